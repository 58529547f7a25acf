// The rewrites as values: their kinds, names and switches, all from rewrites.def. The
// pipeline (mend.cpp) knows no rewrite by name; it asks the registry which rewrite owns a
// break kind and runs it.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "base/runtime_name.h"
#include "diag/reasons.h"

namespace graphmend {

enum class RewriteKind : uint8_t {
#define REWRITE(kind, name, entry, order, scalars) kind,
#include "rewrite/rewrites.def"
};

inline constexpr int kRewriteCount = 0
#define REWRITE(kind, name, entry, order, scalars) +1
#include "rewrite/rewrites.def"
    ;

const char* rewrite_name(RewriteKind kind);  // "where", "defer", "trap"
std::optional<RewriteKind> rewrite_named(std::string_view name);

// Which rewrites are switched on (MendOptions); all of them by default.
class RewriteSet {
 public:
  static constexpr RewriteSet all() { return RewriteSet((1u << kRewriteCount) - 1); }
  static constexpr RewriteSet none() { return RewriteSet(0); }
  constexpr bool has(RewriteKind kind) const { return (bits_ & bit(kind)) != 0; }
  constexpr RewriteSet with(RewriteKind kind, bool on) const {
    return RewriteSet(on ? bits_ | bit(kind) : bits_ & ~bit(kind));
  }

 private:
  constexpr explicit RewriteSet(uint32_t bits) : bits_(bits) {}
  static constexpr uint32_t bit(RewriteKind kind) { return 1u << static_cast<unsigned>(kind); }
  uint32_t bits_;
};

// Whether `kind`'s tags run after every other tag's (rewrites.def's order column).
bool runs_after_others(RewriteKind kind);
// Whether a rewrite of `rewrites` holds scalars as tensors (rewrites.def's scalars column).
bool holds_scalars(RewriteSet rewrites);

namespace rewrite {
// The rewrite a decline reason belongs to (reasons.def's Owner; none for the mender's own).
std::optional<RewriteKind> reason_owner(reasons::Reason reason);
}  // namespace rewrite

}  // namespace graphmend

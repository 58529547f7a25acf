// Dispatch over rewrites.def and the Owner columns of codes.def and reasons.def. A break kind
// whose owner is not a rewrite (or Reported), a reason whose owner is not one (or Mender) and
// a rewrite whose entry point is not declared fail to compile; a kind missing from a switch
// fails -Werror=switch.
#include "rewrite/registry.h"

#include "rewrite/rewrite.h"

namespace graphmend {

const char* rewrite_name(RewriteKind kind) {
  switch (kind) {
#define REWRITE(kind, name, entry, order, scalars) \
  case RewriteKind::kind:                          \
    return name;
#include "rewrite/rewrites.def"
  }
  return "";
}

std::optional<RewriteKind> rewrite_named(std::string_view name) {
#define REWRITE(kind, text, entry, order, scalars) \
  if (name == text) return RewriteKind::kind;
#include "rewrite/rewrites.def"
  return std::nullopt;
}

namespace {
// The values of rewrites.def's order and scalars columns.
constexpr bool InSourceOrder = false;
constexpr bool AfterOthers = true;
constexpr bool KeepsScalars = false;
constexpr bool HoldsScalars = true;
}  // namespace

bool runs_after_others(RewriteKind kind) {
  switch (kind) {
#define REWRITE(kind, name, entry, order, scalars) \
  case RewriteKind::kind:                          \
    return order;
#include "rewrite/rewrites.def"
  }
  return false;
}

bool holds_scalars(RewriteSet rewrites) {
#define REWRITE(kind, name, entry, order, scalars) \
  if (scalars && rewrites.has(RewriteKind::kind)) return true;
#include "rewrite/rewrites.def"
  return false;
}

namespace rewrite {
namespace {

// The values the Owner column of codes.def names.
namespace owner {
#define REWRITE(kind, name, entry, order, scalars) \
  constexpr std::optional<RewriteKind> kind = RewriteKind::kind;
#include "rewrite/rewrites.def"
constexpr std::optional<RewriteKind> Reported = std::nullopt;  // codes.def: no rewrite
constexpr std::optional<RewriteKind> Mender = std::nullopt;    // reasons.def: mend.cpp's own
}  // namespace owner

}  // namespace

std::optional<RewriteKind> owner_of(sema::BreakKind kind) {
  switch (kind) {
#define BREAK(kind, code, summary, owner_kind) \
  case sema::BreakKind::kind:                  \
    return owner::owner_kind;
#include "diag/codes.def"
  }
  return std::nullopt;
}

std::optional<RewriteKind> reason_owner(reasons::Reason reason) {
  switch (reason) {
#define REASON(owner_kind, name, id, hint) \
  case reasons::Reason::name:              \
    return owner::owner_kind;
#include "diag/reasons.def"
  }
  return std::nullopt;
}

std::optional<Outcome> run_rewrite(RewriteKind kind, const sema::BreakTag& tag, Context& context) {
  switch (kind) {
#define REWRITE(kind, name, entry, order, scalars) \
  case RewriteKind::kind:                          \
    return entry(tag, context);
#include "rewrite/rewrites.def"
  }
  return std::nullopt;
}

}  // namespace rewrite
}  // namespace graphmend

// Decline reasons (reasons.def): why a break site was not rewritten, as a stable id, the
// rewrite it belongs to and a hint for the user.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace graphmend::reasons {

enum class Reason : uint8_t {
#define REASON(owner, name, id, hint) name,
#include "diag/reasons.def"
};

struct ReasonInfo {
  const char* id;    // "not-tensor": MendDiagnostic::reason_id
  const char* hint;  // what the user can do; "" when nothing
};

inline constexpr ReasonInfo kAll[] = {
#define REASON(owner, name, id, hint) {id, hint},
#include "diag/reasons.def"
};

inline constexpr size_t kReasonCount = sizeof(kAll) / sizeof(kAll[0]);

inline const char* id(Reason reason) { return kAll[static_cast<size_t>(reason)].id; }
inline const char* hint(Reason reason) { return kAll[static_cast<size_t>(reason)].hint; }

// Why something cannot be done: the reason, and the words that say it for this site; no
// words, nothing wrong.
struct Problem {
  Reason reason = Reason::Other;
  std::string detail;

  bool empty() const { return detail.empty(); }
};

// A decline whose words quote another's (`...; deferred whole: ...`) is reported as the
// reason of the two whose row comes first in reasons.def.
inline Reason first_of(Reason a, Reason b) { return a < b ? a : b; }

// `words` said before `problem`'s own ("tail duplication: " + ...), for `reason`.
inline Problem quoting(Reason reason, const std::string& words, const Problem& problem) {
  return {first_of(reason, problem.reason), words + problem.detail};
}

}  // namespace graphmend::reasons

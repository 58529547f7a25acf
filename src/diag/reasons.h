// Decline reasons (reasons.def): why a break site was not rewritten, as a stable id, the
// rewrite it belongs to and a hint for the user.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

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

// Why something cannot be done: the reason, and the words that say it for this site.
struct Problem {
  Reason reason = Reason::Other;
  std::string detail;
};

// Temporary, for the declines of [Where] and [Cond] that give words only (see the PHRASE
// rows of reasons.def): the reason of the first phrase the words contain, else Other.
struct ReasonPhrase {
  Reason reason;
  const char* phrase;
};

inline constexpr ReasonPhrase kPhrases[] = {
#define PHRASE(name, phrase) {Reason::name, phrase},
#include "diag/reasons.def"
};

inline Reason from_words(std::string_view words) {
  for (const ReasonPhrase& entry : kPhrases) {
    if (words.find(entry.phrase) != std::string_view::npos) return entry.reason;
  }
  return Reason::Other;
}

}  // namespace graphmend::reasons

// Decline reason ids (reasons.def): the stable name of the free-text reason a rewrite gives.
#pragma once

#include <string_view>

namespace graphmend::reasons {

struct ReasonPhrase {
  const char* id;
  const char* phrase;
};

inline constexpr ReasonPhrase kPhrases[] = {
#define REASON(id, phrase) {id, phrase},
#include "diag/reasons.def"
};

inline constexpr const char* kOther = "other";

// The id of a decline reason: that of the first phrase it contains, else "other".
inline const char* id_of(std::string_view reason) {
  for (const ReasonPhrase& entry : kPhrases) {
    if (reason.find(entry.phrase) != std::string_view::npos) return entry.id;
  }
  return kOther;
}

}  // namespace graphmend::reasons

// libFuzzer target: arbitrary bytes through the whole mender (parse, analysis, tagging,
// rewrites, edit application, re-parse), in both version modes. Besides crashes, leaks and
// hangs, it checks the documented shape of a result: edits sorted, non-overlapping and inside
// the input; an input that does not parse is returned unchanged.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "rewrite/mend.h"

namespace {

void mend_once(std::string_view text, int minor, bool trace_all) {
  using namespace graphmend;
  MendOptions options;
  options.version = PythonVersion{3, minor};
  options.trace_all = trace_all;
  MendResult result = mend_source(text, "<fuzz>", options);
  if (result.error.has_value() && (result.changed || result.source != text)) __builtin_trap();
  if (!result.changed && result.source != text) __builtin_trap();
  uint32_t previous_end = 0;
  for (const TextEdit& edit : result.edits) {
    if (edit.begin < previous_end || edit.end < edit.begin || edit.end > text.size()) {
      __builtin_trap();
    }
    previous_end = edit.end;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  mend_once(text, 11, false);
  mend_once(text, 12, true);
  return 0;
}

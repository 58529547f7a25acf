#include "base/source.h"

#include <algorithm>
#include <cstring>

namespace graphmend {

SourceText::SourceText(std::string text, std::string filename)
    : text_(std::move(text)), filename_(std::move(filename)) {
  line_starts_.push_back(0);
  const size_t n = text_.size();
  if (std::memchr(text_.data(), '\r', n) == nullptr) {  // the common case: \n breaks only
    const char* begin = text_.data();
    for (const char* at = begin;
         (at = static_cast<const char*>(std::memchr(at, '\n', begin + n - at)));) {
      ++at;
      line_starts_.push_back(static_cast<uint32_t>(at - begin));
    }
    return;
  }
  for (size_t i = 0; i < n; ++i) {
    char c = text_[i];
    if (c == '\r') {
      if (i + 1 < n && text_[i + 1] == '\n') ++i;
      line_starts_.push_back(static_cast<uint32_t>(i + 1));
    } else if (c == '\n') {
      line_starts_.push_back(static_cast<uint32_t>(i + 1));
    }
  }
}

LineCol SourceText::line_col(uint32_t offset) const {
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  uint32_t index = static_cast<uint32_t>(it - line_starts_.begin()) - 1;
  return {index + 1, offset - line_starts_[index]};
}

uint32_t SourceText::line_start(uint32_t line) const {
  if (line == 0) return 0;
  if (line > line_starts_.size()) return size();
  return line_starts_[line - 1];
}

std::string_view SourceText::line_text(uint32_t line) const {
  uint32_t begin = line_start(line);
  uint32_t end = line < line_starts_.size() ? line_starts_[line] : size();
  while (end > begin && (text_[end - 1] == '\n' || text_[end - 1] == '\r')) --end;
  return std::string_view(text_).substr(begin, end - begin);
}

}  // namespace graphmend

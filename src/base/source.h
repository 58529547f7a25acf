// The text of one source file and the map from byte offsets to lines and columns.
// Lines break at "\n", "\r\n" and a lone "\r", as CPython's tokenizer reads them.
// Columns are 0-based UTF-8 byte offsets from the start of the line, as in CPython's ast.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace graphmend {

// A half-open byte range [begin, end) in a SourceText.
struct Span {
  uint32_t begin = 0;
  uint32_t end = 0;
};

struct LineCol {
  uint32_t line = 1;    // 1-based
  uint32_t column = 0;  // 0-based, in bytes
};

class SourceText {
 public:
  SourceText(std::string text, std::string filename = "<unknown>");

  std::string_view text() const { return text_; }
  const std::string& filename() const { return filename_; }
  uint32_t size() const { return static_cast<uint32_t>(text_.size()); }

  LineCol line_col(uint32_t offset) const;
  // Byte offset where 1-based `line` starts; size() past the last line.
  uint32_t line_start(uint32_t line) const;
  uint32_t line_count() const { return static_cast<uint32_t>(line_starts_.size()); }
  // The text of 1-based `line` without its line break.
  std::string_view line_text(uint32_t line) const;

 private:
  std::string text_;
  std::string filename_;
  std::vector<uint32_t> line_starts_;
};

}  // namespace graphmend

// The lines a predicated rewrite emits ([Where] and [Cond]), each with its nesting level
// relative to the rewritten statement, joined at the statement's own indentation.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace graphmend::rewrite {

class Emitter {
 public:
  Emitter(std::string indent, std::string unit)
      : indent_(std::move(indent)), unit_(std::move(unit)) {}
  void line(int level, std::string_view text) { lines_.push_back({level, std::string(text)}); }
  // Verbatim source text placed at the statement's own indentation (no re-indenting).
  void raw(std::string_view text) { lines_.push_back({-1, std::string(text)}); }
  void shift_all(int by) {
    for (auto& l : lines_)
      if (l.level >= 0) l.level += by;
  }
  std::string text() const {
    std::string out;
    for (size_t i = 0; i < lines_.size(); ++i) {
      if (i > 0) {
        out += '\n';
        out += indent_;
      }
      if (lines_[i].level > 0)
        for (int k = 0; k < lines_[i].level; ++k) out += unit_;
      out += lines_[i].text;
    }
    return out;
  }
  std::vector<std::pair<int, std::string>> take() {
    std::vector<std::pair<int, std::string>> out;
    for (auto& l : lines_) out.push_back({l.level, std::move(l.text)});
    lines_.clear();
    return out;
  }
  void append(const std::vector<std::pair<int, std::string>>& lines, int shift) {
    for (const auto& [level, text] : lines)
      lines_.push_back({level >= 0 ? level + shift : level, text});
  }

 private:
  struct Line {
    int level;
    std::string text;
  };
  std::string indent_;
  std::string unit_;
  std::vector<Line> lines_;
};

}  // namespace graphmend::rewrite

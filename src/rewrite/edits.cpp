// Edit application and the mended-to-original line map.
#include "rewrite/edits.h"

#include <algorithm>

#include "base/source.h"

namespace graphmend::rewrite {
namespace {

// Line breaks in text[0, length): "\n", "\r\n" and a lone "\r" each count once.
uint32_t count_line_breaks(std::string_view text, size_t length) {
  length = std::min(length, text.size());
  uint32_t count = 0;
  for (size_t i = 0; i < length; ++i) {
    if (text[i] == '\n') {
      ++count;
    } else if (text[i] == '\r') {
      if (i + 1 < text.size() && text[i + 1] == '\n') {
        if (i + 1 < length)
          ++i;  // "\r\n" is one break, counted at its "\n"
        else
          continue;  // the "\n" lies past `length`: the break is not complete
      }
      ++count;
    }
  }
  return count;
}

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\f'; }

size_t skip_blanks(std::string_view text, size_t offset) {
  while (offset < text.size() && is_blank(text[offset])) ++offset;
  return offset;
}

// The blanks before `offset` on its line when only blanks precede it there, else "".
std::string_view indentation_before(std::string_view text, size_t offset) {
  size_t start = offset;
  while (start > 0 && is_blank(text[start - 1])) --start;
  bool line_start = start == 0 || text[start - 1] == '\n' || text[start - 1] == '\r';
  return line_start ? text.substr(start, offset - start) : std::string_view();
}

// Where line breaks are whitespace: between tokens inside (), [] or {}, outside any
// f-string (whose replacement fields take line breaks only from 3.12 on).
class BracketDepths {
 public:
  explicit BracketDepths(const std::vector<Token>& tokens) : tokens_(tokens) {
    depth_before_.reserve(tokens.size());
    int brackets = 0, fstrings = 0;
    for (const Token& token : tokens) {
      depth_before_.push_back(fstrings > 0 ? 0 : brackets);
      switch (token.kind) {
        case TokenKind::LPar:
        case TokenKind::LSqb:
        case TokenKind::LBrace:
          ++brackets;
          break;
        case TokenKind::RPar:
        case TokenKind::RSqb:
        case TokenKind::RBrace:
          brackets = std::max(0, brackets - 1);
          break;
        case TokenKind::FStringStart:
          ++fstrings;
          break;
        case TokenKind::FStringEnd:
          fstrings = std::max(0, fstrings - 1);
          break;
        default:
          break;
      }
    }
  }

  // Whether [begin, end) starts and ends at token boundaries inside the same open bracket.
  bool inside_brackets(uint32_t begin, uint32_t end) const {
    int at_begin = depth_at(begin), at_end = depth_at(end);
    return at_begin > 0 && at_begin == at_end;
  }

 private:
  // The bracket depth at the start of the first token at or after `offset`; 0 when
  // `offset` falls inside a token (a string, say) or an f-string.
  int depth_at(uint32_t offset) const {
    auto next = std::lower_bound(tokens_.begin(), tokens_.end(), offset,
                                 [](const Token& token, uint32_t at) { return token.begin < at; });
    if (next != tokens_.begin() && std::prev(next)->end > offset) return 0;
    if (next == tokens_.end()) return 0;
    return depth_before_[static_cast<size_t>(next - tokens_.begin())];
  }

  const std::vector<Token>& tokens_;
  std::vector<int> depth_before_;
};

}  // namespace

std::vector<Segment> segments_of(uint32_t original_size, const std::vector<TextEdit>& edits) {
  std::vector<Segment> segments;
  uint32_t original = 0;
  uint32_t mended = 0;
  for (const TextEdit& edit : edits) {
    if (edit.begin > original) {
      uint32_t length = edit.begin - original;
      segments.push_back({mended, mended + length, original, nullptr});
      mended += length;
    }
    uint32_t length = static_cast<uint32_t>(edit.replacement.size());
    segments.push_back({mended, mended + length, edit.begin, &edit});
    mended += length;
    original = std::max(original, edit.end);
  }
  if (original_size > original) {
    segments.push_back({mended, mended + (original_size - original), original, nullptr});
  }
  return segments;
}

bool edits_overlap(const TextEdit& a, const TextEdit& b) {
  if (a.begin == a.end || b.begin == b.end) {
    // An insertion overlaps a replacement only strictly inside it.
    const TextEdit& insertion = a.begin == a.end ? a : b;
    const TextEdit& other = a.begin == a.end ? b : a;
    return insertion.begin > other.begin && insertion.begin < other.end;
  }
  return a.begin < b.end && b.begin < a.end;
}

bool normalize_edits(std::vector<TextEdit>& edits, uint32_t text_size, std::string* error) {
  for (const TextEdit& edit : edits) {
    if (edit.begin > edit.end || edit.end > text_size) {
      if (error) *error = "edit range out of bounds";
      return false;
    }
  }
  // Insertions sort before a replacement starting at the same offset.
  std::stable_sort(edits.begin(), edits.end(), [](const TextEdit& a, const TextEdit& b) {
    if (a.begin != b.begin) return a.begin < b.begin;
    return (a.begin == a.end) && (b.begin != b.end);
  });
  for (size_t i = 1; i < edits.size(); ++i) {
    const TextEdit& previous = edits[i - 1];
    const TextEdit& current = edits[i];
    bool both_insert_here = previous.begin == previous.end && current.begin == current.end;
    if (!both_insert_here && (current.begin < previous.end || edits_overlap(previous, current))) {
      if (error) {
        *error = "overlapping edits at bytes " + std::to_string(previous.begin) + ".." +
                 std::to_string(previous.end) + " and " + std::to_string(current.begin) + ".." +
                 std::to_string(current.end);
      }
      return false;
    }
  }
  return true;
}

void pad_to_original_lines(std::string_view text, const std::vector<Token>& tokens,
                           std::vector<TextEdit>& edits) {
  const char* newline = text.find("\r\n") != std::string_view::npos ? "\r\n" : "\n";
  BracketDepths depths(tokens);
  for (TextEdit& edit : edits) {
    if (edit.begin >= edit.end || edit.end > text.size()) continue;
    size_t after = skip_blanks(text, edit.end);
    bool comment = after < text.size() && text[after] == '#';
    bool line_ends = comment || after == text.size() || text[after] == '\n' || text[after] == '\r';
    if (!line_ends && !depths.inside_brackets(edit.begin, edit.end)) {
      continue;  // code follows on the line: a line break would split it
    }
    comment = comment && line_ends;
    std::string_view replaced = text.substr(edit.begin, edit.end - edit.begin);
    uint32_t lines = count_line_breaks(replaced, replaced.size());
    uint32_t written = count_line_breaks(edit.replacement, edit.replacement.size());
    if (written >= lines) continue;
    for (; written < lines; ++written) edit.replacement += newline;
    if (comment) {  // the comment keeps its line, indented as the statement was
      edit.replacement += indentation_before(text, edit.begin);
      edit.end = static_cast<uint32_t>(after);
    }
  }
}

std::string apply_edits(std::string_view text, const std::vector<TextEdit>& edits) {
  std::string out;
  size_t extra = 0;
  for (const TextEdit& edit : edits) extra += edit.replacement.size();
  out.reserve(text.size() + extra);
  uint32_t position = 0;
  for (const TextEdit& edit : edits) {
    uint32_t begin = std::min<uint32_t>(edit.begin, static_cast<uint32_t>(text.size()));
    if (begin > position) out.append(text.substr(position, begin - position));
    out.append(edit.replacement);
    position = std::max(position, std::min<uint32_t>(edit.end, static_cast<uint32_t>(text.size())));
  }
  if (position < text.size()) out.append(text.substr(position));
  return out;
}

std::vector<uint32_t> build_line_map(std::string_view original, std::string_view mended,
                                     const std::vector<TextEdit>& edits) {
  SourceText original_text{std::string(original)};
  SourceText mended_text{std::string(mended)};
  std::vector<Segment> segments = segments_of(original_text.size(), edits);
  std::vector<uint32_t> map;
  map.reserve(mended_text.line_count());
  size_t s = 0;
  for (uint32_t line = 1; line <= mended_text.line_count(); ++line) {
    uint32_t start = mended_text.line_start(line);
    // The segment holding `start`: the first whose end lies past it (empty ones skipped).
    while (s < segments.size() && segments[s].mended_end <= start) ++s;
    uint32_t original_line = 1;
    if (s == segments.size()) {
      original_line = original_text.line_col(original_text.size()).line;
    } else if (segments[s].edit == nullptr) {
      uint32_t offset = segments[s].original_begin + (start - segments[s].mended_begin);
      original_line = original_text.line_col(offset).line;
    } else {
      const TextEdit& edit = *segments[s].edit;
      uint32_t first = original_text.line_col(edit.begin).line;
      uint32_t last = original_text.line_col(edit.end).line;
      uint32_t k = count_line_breaks(edit.replacement, start - segments[s].mended_begin);
      original_line = std::min(first + k, last);
    }
    map.push_back(original_line);
  }
  return map;
}

bool touches_any(const std::vector<TextEdit>& edits, uint32_t begin, uint32_t end) {
  for (const TextEdit& edit : edits) {
    if (edit.begin <= end && edit.end >= begin) return true;
  }
  return false;
}

}  // namespace graphmend::rewrite

// Suppression comments (pragmas.h): a small scanner over comment tokens.
#include "rewrite/pragmas.h"

#include <algorithm>
#include <cctype>

namespace graphmend::rewrite {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t'; }

std::string_view trim_left(std::string_view text) {
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  return text;
}

// Consumes `word` (after optional blanks) from the front of `text`.
bool take(std::string_view& text, std::string_view word) {
  std::string_view rest = trim_left(text);
  if (rest.substr(0, word.size()) != word) return false;
  text = rest.substr(word.size());
  return true;
}

// Where `part` (a view into `text`) starts in `text`.
uint32_t offset_in(std::string_view text, std::string_view part) {
  return static_cast<uint32_t>(part.data() - text.data());
}

// The GM codes of a comma- or blank-separated list (other linters' codes are skipped), with
// their ranges in `comment`, the text the list is part of.
void gm_codes(std::string_view comment, std::string_view list, Pragma& pragma) {
  uint32_t base = offset_in(comment, list);
  size_t i = 0;
  while (i < list.size()) {
    while (i < list.size() && (is_space(list[i]) || list[i] == ',')) ++i;
    size_t start = i;
    while (i < list.size() && std::isalnum(static_cast<unsigned char>(list[i]))) ++i;
    std::string_view code = list.substr(start, i - start);
    if (code.size() > 2 && code.substr(0, 2) == "GM") {
      pragma.codes.emplace_back(code);
      pragma.code_spans.push_back(
          Span{base + static_cast<uint32_t>(start), base + static_cast<uint32_t>(i)});
    }
    if (i == start) ++i;  // a character that is neither a code nor a separator
  }
}

// Where the suppression found at `at` of `comment` starts: at the `#` before it when only
// blanks come between, else at `at`.
uint32_t opening(std::string_view comment, size_t at) {
  size_t i = at;
  while (i > 0 && is_space(comment[i - 1])) --i;
  return static_cast<uint32_t>(i > 0 && comment[i - 1] == '#' ? i - 1 : at);
}

// `graphmend: ignore[...]` / `ignore-file[...]` in `comment` (the comment token's text), its
// ranges in `comment`.
std::optional<Pragma> graphmend_pragma(std::string_view comment) {
  size_t at = comment.find("graphmend:");
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = comment.substr(at + 10);
  if (!take(rest, "ignore")) return std::nullopt;
  Pragma pragma;
  pragma.file_level = take(rest, "-file");
  pragma.text = Span{opening(comment, at), offset_in(comment, rest)};
  if (!rest.empty() && rest.front() == '[') {
    size_t close = rest.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    gm_codes(comment, rest.substr(1, close - 1), pragma);
    if (pragma.codes.empty()) return std::nullopt;  // `ignore[]` or only foreign codes
    pragma.text.end += static_cast<uint32_t>(close + 1);
  } else if (!rest.empty() && !is_space(rest.front()) && rest.front() != '#') {
    return std::nullopt;  // `ignorex`: not ours
  }
  pragma.list = Span{pragma.text.end, pragma.text.end};
  return pragma;
}

// `noqa: GM101, E501` in `comment`: only with at least one GM code; its ranges in `comment`.
std::optional<Pragma> noqa_pragma(std::string_view comment) {
  size_t at = comment.find("noqa:");
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = comment.substr(at + 5);
  rest = rest.substr(0, rest.find('#'));
  Pragma pragma;
  pragma.noqa = true;
  gm_codes(comment, rest, pragma);
  if (pragma.codes.empty()) return std::nullopt;
  uint32_t list_begin = offset_in(comment, rest);
  pragma.list = Span{list_begin, list_begin + static_cast<uint32_t>(rest.size())};
  pragma.text = Span{opening(comment, at), pragma.list.end};
  return pragma;
}

// `span`, a range in a comment that starts at `base`, as a range of the source.
Span shifted(Span span, uint32_t base) { return Span{span.begin + base, span.end + base}; }

bool covers(const Pragma& pragma, std::string_view code) {
  return pragma.codes.empty() ||
         std::find(pragma.codes.begin(), pragma.codes.end(), code) != pragma.codes.end();
}

}  // namespace

std::vector<Pragma> find_pragmas(const SourceText& source, const std::vector<Token>& tokens) {
  std::vector<Pragma> pragmas;
  for (const Token& token : tokens) {
    if (token.kind != TokenKind::Comment) continue;
    std::string_view text = source.text().substr(token.begin, token.end - token.begin);
    std::optional<Pragma> pragma = graphmend_pragma(text);
    if (!pragma) pragma = noqa_pragma(text);
    if (!pragma) continue;
    pragma->line = source.line_col(token.begin).line;
    pragma->comment = Span{token.begin, token.end};
    pragma->text = shifted(pragma->text, token.begin);
    pragma->list = shifted(pragma->list, token.begin);
    for (Span& span : pragma->code_spans) span = shifted(span, token.begin);
    pragmas.push_back(std::move(*pragma));
  }
  return pragmas;
}

const Pragma* suppressing(std::vector<Pragma>& pragmas, uint32_t line, std::string_view code) {
  for (bool file_level : {false, true}) {
    for (Pragma& pragma : pragmas) {
      if (pragma.file_level != file_level || !covers(pragma, code)) continue;
      if (!file_level && pragma.line != line) continue;
      pragma.used = true;
      return &pragma;
    }
  }
  return nullptr;
}

}  // namespace graphmend::rewrite

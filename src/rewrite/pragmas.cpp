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

// The GM codes of a comma- or blank-separated list (other linters' codes are skipped).
std::vector<std::string> gm_codes(std::string_view list) {
  std::vector<std::string> codes;
  size_t i = 0;
  while (i < list.size()) {
    while (i < list.size() && (is_space(list[i]) || list[i] == ',')) ++i;
    size_t start = i;
    while (i < list.size() && std::isalnum(static_cast<unsigned char>(list[i]))) ++i;
    std::string_view code = list.substr(start, i - start);
    if (code.size() > 2 && code.substr(0, 2) == "GM") codes.emplace_back(code);
    if (i == start) ++i;  // a character that is neither a code nor a separator
  }
  return codes;
}

// `graphmend: ignore[...]` / `ignore-file[...]` in `text` (the comment after '#').
std::optional<Pragma> graphmend_pragma(std::string_view text) {
  size_t at = text.find("graphmend:");
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = text.substr(at + 10);
  if (!take(rest, "ignore")) return std::nullopt;
  Pragma pragma;
  pragma.file_level = take(rest, "-file");
  if (!rest.empty() && rest.front() == '[') {
    size_t close = rest.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    pragma.codes = gm_codes(rest.substr(1, close - 1));
    if (pragma.codes.empty()) return std::nullopt;  // `ignore[]` or only foreign codes
  } else if (!rest.empty() && !is_space(rest.front()) && rest.front() != '#') {
    return std::nullopt;  // `ignorex`: not ours
  }
  return pragma;
}

// `noqa: GM101, E501` in `text`: only with at least one GM code.
std::optional<Pragma> noqa_pragma(std::string_view text) {
  size_t at = text.find("noqa:");
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = text.substr(at + 5);
  rest = rest.substr(0, rest.find('#'));
  Pragma pragma;
  pragma.codes = gm_codes(rest);
  if (pragma.codes.empty()) return std::nullopt;
  return pragma;
}

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

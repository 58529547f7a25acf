// Token cursor, error recording and the `file` rule.
#include <algorithm>
#include <utility>

#include "base/unicode.h"
#include "parse/parser_impl.h"

namespace graphmend {

namespace {

std::vector<Token> significant_tokens(const std::vector<Token>& all) {
  std::vector<Token> out;
  out.reserve(all.size());
  for (const Token& token : all) {
    if (!is_trivia(token.kind)) out.push_back(token);
  }
  return out;
}

bool is_ascii(std::string_view text) {
  for (unsigned char c : text) {
    if (c >= 0x80) return false;
  }
  return true;
}

// After a syntax error, CPython tokenizes the rest of the input and lets a tokenizer error
// found there replace it (_PyPegen_tokenize_full_source_to_check_for_errors). Errors the
// tokenizer only flags without raising (indentation, EOF inside a statement, a stray
// backslash) never do; an unclosed bracket does when it opened on an earlier line than
// the syntax error's; nothing replaces "unexpected indent". Decoding errors are found
// before parsing starts.
bool later_lexer_error_wins(const Diagnostic& lexer, const Diagnostic& parser,
                            const SourceText& source, const PythonVersion& version) {
  if (lexer.code == codes::kEncodingError) return true;
  if (lexer.code == codes::kIndentationError) return false;
  // CPython raises these from the token it stopped on, without the full-source check.
  if (parser.message == "unexpected indent" || parser.message == "unexpected unindent") {
    return false;
  }
  const std::string& message = lexer.message;
  if (message == "unexpected EOF while parsing" ||
      message == "unexpected character after line continuation character") {
    return false;
  }
  // Before 3.12, f-strings are checked when the parser reaches them, not by the tokenizer.
  if (!version.at_least(3, 12) && message.rfind("f-string", 0) == 0) return false;
  static constexpr std::string_view kUnclosed = "' was never closed";
  if (message.size() > kUnclosed.size() &&
      message.compare(message.size() - kUnclosed.size(), kUnclosed.size(), kUnclosed) == 0) {
    return source.line_col(lexer.span.begin).line < source.line_col(parser.span.begin).line;
  }
  return true;
}

// Pairs each opening bracket with its closer by a stack, ignoring a closer of the wrong
// kind; any bracket atom the parser accepts is balanced, so it ends at this closer.
std::vector<uint32_t> match_brackets(const std::vector<Token>& tokens, uint32_t none) {
  std::vector<uint32_t> closer_of(tokens.size(), none);
  std::vector<uint32_t> open;
  for (uint32_t i = 0; i < tokens.size(); ++i) {
    TokenKind kind = tokens[i].kind;
    if (kind == TokenKind::LPar || kind == TokenKind::LSqb || kind == TokenKind::LBrace) {
      open.push_back(i);
      continue;
    }
    TokenKind opener = kind == TokenKind::RPar     ? TokenKind::LPar
                       : kind == TokenKind::RSqb   ? TokenKind::LSqb
                       : kind == TokenKind::RBrace ? TokenKind::LBrace
                                                   : TokenKind::EndMarker;
    if (opener == TokenKind::EndMarker || open.empty() || tokens[open.back()].kind != opener) {
      continue;
    }
    closer_of[open.back()] = i;
    open.pop_back();
  }
  return closer_of;
}

}  // namespace

Parser::Parser(const SourceText& source, Arena& arena, const ParseOptions& options,
               std::vector<Token> tokens)
    : source_(source),
      arena_(arena),
      options_(options),
      tokens_(std::move(tokens)),
      closer_of_(match_brackets(tokens_, kNoCloser)) {}

bool Parser::at_soft_keyword(std::string_view word, size_t ahead) const {
  const Token& token = peek(ahead);
  return token.kind == TokenKind::Name && text(token) == word;
}

bool Parser::accept(TokenKind kind) {
  if (!at(kind)) return false;
  advance();
  return true;
}

bool Parser::expect(TokenKind kind, const char* what) {
  if (accept(kind)) return true;
  fail_here(std::string("expected ") + what);
  return false;
}

const Token& Parser::advance() {
  const Token& token = peek();
  // Never step past the final EndMarker/Error token.
  if (pos_ + 1 < tokens_.size()) ++pos_;
  return token;
}

std::string_view Parser::text(const Token& token) const { return token.text(source_.text()); }

Span Parser::span_from(size_t start_token) const {
  uint32_t begin = tokens_[start_token < tokens_.size() ? start_token : tokens_.size() - 1].begin;
  // The last consumed token is the one before pos_, skipping zero-width structure tokens
  // (Newline/Indent/Dedent), as CPython's _PyPegen_get_last_nonnwhitespace_token does.
  size_t last = pos_;
  while (last > start_token) {
    const Token& token = tokens_[last - 1];
    if (token.kind != TokenKind::Newline && token.kind != TokenKind::Indent &&
        token.kind != TokenKind::Dedent) {
      return {begin, token.end};
    }
    --last;
  }
  return {begin, begin};
}

std::nullptr_t Parser::fail(Span where, std::string message, const char* code) {
  if (!error_) error_ = Diagnostic{code, Severity::Error, where, std::move(message)};
  return nullptr;
}

std::nullptr_t Parser::fail_here(std::string message) {
  const Token& token = peek();
  if (token.kind == TokenKind::Error) {
    // The lexer's own error is the better message; parse_module reports it.
    return fail(token.span(), "invalid token");
  }
  Span where = token.span();
  std::string_view text = source_.text();
  if ((token.kind == TokenKind::EndMarker || token.kind == TokenKind::Dedent) &&
      token.begin >= text.size() && !text.empty() && text.back() == '\n') {
    // At the end of input CPython points at the file's last line break.
    uint32_t last = static_cast<uint32_t>(text.size()) - 1;
    if (last > 0 && text[last - 1] == '\r') --last;
    where = {last, last};
  }
  // A generic error on an INDENT/DEDENT token is an IndentationError in CPython.
  if (message == "invalid syntax" && token.kind == TokenKind::Indent) {
    return fail(where, "unexpected indent", codes::kIndentationError);
  }
  if (message == "invalid syntax" && token.kind == TokenKind::Dedent) {
    return fail(where, "unexpected unindent", codes::kIndentationError);
  }
  return fail(where, std::move(message));
}

void Parser::restore(const Checkpoint& cp) {
  pos_ = cp.pos;
  if (!cp.had_error) error_.reset();
}

std::string_view Parser::identifier(const Token& name_token) {
  std::string_view raw = text(name_token);
  if (is_ascii(raw)) return raw;
  return arena_.copy(unicode::nfkc(raw));
}

ast::Module* Parser::parse_file() {
  ast::Seq<ast::stmt*> body = parse_statements_until(TokenKind::EndMarker);
  if (failed()) return nullptr;
  if (!at(TokenKind::EndMarker)) return fail_here("invalid syntax");
  auto* module = make<ast::Module>({0, source_.size()});
  module->body = body;
  return module;
}

ParseResult parse_module(const SourceText& source, Arena& arena, const ParseOptions& options) {
  ParseResult result;
  LexResult lexed = lex(source, LexOptions{options.version});
  result.tokens = std::move(lexed.tokens);
  Parser parser(source, arena, options, significant_tokens(result.tokens));
  ast::Module* module = parser.parse_file();
  if (module != nullptr && !lexed.error) {
    result.module = module;
    return result;
  }
  // The lexer's error wins when the parser reached the point where lexing stopped, and
  // in the cases later_lexer_error_wins describes; otherwise the parser's.
  std::optional<Diagnostic>& error = parser.error();
  uint32_t lex_stop = 0;
  if (lexed.error) {
    lex_stop = lexed.error->span.begin;
    if (!result.tokens.empty()) lex_stop = std::min(lex_stop, result.tokens.back().begin);
  }
  bool lexer_first =
      lexed.error && (!error || error->span.begin >= lex_stop ||
                      later_lexer_error_wins(*lexed.error, *error, source, options.version));
  result.error = lexer_first ? lexed.error : error;
  if (!result.error) {
    result.error = Diagnostic{codes::kSyntaxError, Severity::Error, {0, 0}, "invalid syntax"};
  }
  return result;
}

}  // namespace graphmend

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

}  // namespace

Parser::Parser(const SourceText& source, Arena& arena, const ParseOptions& options,
               std::vector<Token> tokens)
    : source_(source), arena_(arena), options_(options), tokens_(std::move(tokens)) {}

const Token& Parser::peek(size_t ahead) const {
  size_t index = pos_ + ahead;
  return index < tokens_.size() ? tokens_[index] : tokens_.back();
}

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
  return fail(token.span(), std::move(message));
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
  // A parser error before the point where lexing stopped wins; otherwise the lexer's.
  std::optional<Diagnostic>& error = parser.error();
  // The parser reaching the Error token (where lexing stopped) also defers to the lexer.
  uint32_t lex_stop = 0;
  if (lexed.error) {
    lex_stop = lexed.error->span.begin;
    if (!result.tokens.empty()) lex_stop = std::min(lex_stop, result.tokens.back().begin);
  }
  bool lexer_first = lexed.error && (!error || error->span.begin >= lex_stop);
  result.error = lexer_first ? lexed.error : error;
  if (!result.error) result.error = Diagnostic{codes::kSyntaxError, Severity::Error, {0, 0}, "invalid syntax"};
  return result;
}

}  // namespace graphmend

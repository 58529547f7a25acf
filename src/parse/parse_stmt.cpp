// Placeholder: replaced by the statement parser.
#include "parse/parser_impl.h"

namespace graphmend {

ast::Seq<ast::stmt*> Parser::parse_statements_until(TokenKind) {
  fail_here("statements not parsed yet");
  return {};
}
ast::Seq<ast::stmt*> Parser::parse_block() { return parse_statements_until(TokenKind::Dedent); }
bool Parser::parse_statement(std::vector<ast::stmt*>&) { return false; }
ast::arguments* Parser::parse_parameters(bool, TokenKind) {
  return make<ast::arguments>(peek().span());
}
ast::Seq<ast::type_param*> Parser::parse_type_params_opt() { return {}; }

}  // namespace graphmend

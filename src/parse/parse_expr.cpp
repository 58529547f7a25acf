// Placeholder: replaced by the expression parser.
#include "parse/parser_impl.h"

namespace graphmend {

ast::expr* Parser::parse_expression() { return fail_here("expressions not parsed yet"); }
ast::expr* Parser::parse_named_expression() { return parse_expression(); }
ast::expr* Parser::parse_star_expressions() { return parse_expression(); }
ast::expr* Parser::parse_star_named_expressions_in_brackets() { return parse_expression(); }
ast::expr* Parser::parse_yield_expr() { return parse_expression(); }
ast::expr* Parser::parse_disjunction() { return parse_expression(); }
ast::expr* Parser::parse_bitwise_or() { return parse_expression(); }
ast::expr* Parser::parse_star_targets() { return parse_expression(); }
ast::expr* Parser::parse_single_target() { return parse_expression(); }
ast::expr* Parser::parse_del_targets() { return parse_expression(); }
ast::expr* Parser::parse_slices() { return parse_expression(); }
ast::expr* Parser::parse_atom() { return parse_expression(); }
bool Parser::parse_call_arguments(std::vector<ast::expr*>&, std::vector<ast::keyword*>&) {
  return false;
}
bool Parser::set_context(ast::expr*, ast::ExprContext) { return false; }

}  // namespace graphmend

// Placeholder: replaced by the string and f-string parser.
#include "parse/parser_impl.h"

namespace graphmend {

ast::expr* Parser::parse_strings() { return fail_here("strings not parsed yet"); }

}  // namespace graphmend

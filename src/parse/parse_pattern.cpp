// Placeholder: replaced by the pattern parser.
#include "parse/parser_impl.h"

namespace graphmend {

ast::pattern* Parser::parse_patterns() { return fail_here("patterns not parsed yet"); }

}  // namespace graphmend

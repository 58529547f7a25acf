// What is bound where a statement stands, read off its place (ast::find_path): the
// parameters of its function and the simple assignments before it on the path.
#pragma once

#include <set>
#include <string_view>
#include <vector>

#include "ast/path.h"
#include "sema/sema.h"

namespace graphmend::sema {

// Whether `var` is bound on every path reaching the statement at the end of `path`: a
// parameter, or assigned by a simple statement earlier in an enclosing block of the function.
bool definitely_bound(const std::vector<ast::BlockRef>& path, std::string_view var);

// Function-local names: parameters and names assigned anywhere in the body of the innermost
// function on `path` (empty outside a function).
std::set<std::string_view> function_locals(const Analysis& analysis,
                                           const std::vector<ast::BlockRef>& path);

}  // namespace graphmend::sema

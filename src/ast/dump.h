// ast.dump for our AST: the exact text CPython's ast.dump(tree, include_attributes=...)
// returns for the same source, on the Python version the tree was parsed for.
#pragma once

#include <string>

#include "ast/ast.h"
#include "base/source.h"
#include "lex/lexer.h"

namespace graphmend {

struct DumpOptions {
  bool include_attributes = false;
  PythonVersion version;  // fields that exist only from a later version are left out
};

std::string dump_ast(const ast::Node* root, const SourceText& source, const DumpOptions& options);

// Python's repr() of a constant: 'abc', b'\x00', 12345678901234567890, 1e+16, 1j, Ellipsis.
std::string constant_repr(const ast::ConstantValue& value);

}  // namespace graphmend

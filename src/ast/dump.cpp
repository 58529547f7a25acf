// Placeholder: replaced by the real dumper.
#include "ast/dump.h"

namespace graphmend {

std::string dump_ast(const ast::Node* root, const SourceText&, const DumpOptions&) {
  return root ? ast::kind_name(root->kind) : "";
}

std::string constant_repr(const ast::ConstantValue&) { return "?"; }

}  // namespace graphmend

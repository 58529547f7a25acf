// The runtime import of mended modules: where it goes and whether it is there already.
#pragma once

#include <string_view>
#include <vector>

#include "ast/ast.h"
#include "base/source.h"
#include "rewrite/mend.h"

namespace graphmend::rewrite {

// Whether the module already has `import graphmend.runtime as <runtime>` at top level.
bool imports_runtime(const ast::Module& module, std::string_view runtime);

// The edit inserting the runtime import after the docstring and `from __future__` imports.
// In front of the next statement on its own line (`import ...; import torch`) when that
// statement is simple and no other edit touches it, so no line moves and the mended module
// keeps the original's line numbers; otherwise on a line of its own.
TextEdit runtime_import_edit(const ast::Module& module, const SourceText& source,
                             std::string_view runtime, const std::vector<TextEdit>& other_edits);

}  // namespace graphmend::rewrite

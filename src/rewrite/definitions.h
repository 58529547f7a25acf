// The table of a module's functions and classes that the object mender (python/graphmend/
// mender.py) rebuilds live objects from: where each one is, in the original text and in the
// mended text, and whether an edit touched it. It saves the Python side a parse of its own.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ast/ast.h"
#include "base/source.h"
#include "rewrite/mend.h"

namespace graphmend::rewrite {

// `edits`: the mended text's edits, normalized; `mended`: the mended text (the original when
// nothing changed). Every def, async def and class of the module, nested ones included, in
// source order.
std::vector<Definition> list_definitions(const SourceText& original, const ast::Module& module,
                                         const std::vector<TextEdit>& edits,
                                         const SourceText& mended);

}  // namespace graphmend::rewrite

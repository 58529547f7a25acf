// The skeleton of a mended module: the mended text with the body of every function and
// class that no edit touches replaced by a stub on the same lines. CPython compiles it far
// faster than the whole text, and the import hook then puts the unchanged code objects
// (function bodies, class bodies with their methods), loaded from the original module's
// .pyc, in place of the stubs (python/graphmend/splice.py).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ast/ast.h"
#include "base/source.h"
#include "rewrite/mend.h"

namespace graphmend::rewrite {

struct Skeleton {
  std::string text;  // line for line as the mended text (same line map)
  // The first line (decorators included: CPython's co_firstlineno) of each stubbed
  // function or class, in the original's numbering, ascending.
  std::vector<uint32_t> stubbed_lines;
};

// `edits`: the mended text's edits, normalized. Only bodies the enclosing code does not
// depend on are stubbed: a function or class defined in module or class scope (never in a
// function, whose cells a stub would change), declaring nothing `global` anywhere inside,
// without type parameters. A class is stubbed whole when no edit touches it, else its
// methods one by one. A stub ends at the body's last line and column (the enclosing code
// records positions up to there) and a method's stub names `__class__` where the body does
// (`super()`: the class body makes the cell only for methods that need it; a class body's
// own cell is inside its code, which is replaced whole).
Skeleton build_skeleton(const SourceText& source, const ast::Module& module,
                        const std::vector<TextEdit>& edits);

// Where a statement's text starts, decorators included.
uint32_t statement_start(const ast::stmt* statement);

}  // namespace graphmend::rewrite

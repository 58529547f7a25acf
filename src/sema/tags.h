// Graph-break tagging: every statement of a traced function that TorchDynamo will break
// on, with why, before anything is rewritten.
#pragma once

#include <string>
#include <vector>

#include "ast/ast.h"
#include "sema/sema.h"

namespace graphmend::sema {

// The graph-break kinds, from diag/codes.def (each with its code, summary and owner).
enum class BreakKind : uint8_t {
#define BREAK(kind, code, summary, owner) kind,
#include "diag/codes.def"
};

const char* break_code(BreakKind kind);     // "GM101", ...
const char* break_summary(BreakKind kind);  // "data-dependent branch", ...

struct BreakTag {
  BreakKind kind;
  const ast::stmt* statement = nullptr;  // the statement that breaks (the If, the Expr(print))
  const ast::Node* site = nullptr;       // the precise node: the condition, the Call
  const FunctionInfo* function = nullptr;
  std::string message;  // e.g. "branch on tensor value `x.sum() > 0`"
};

// A byte range of the source, both ends inclusive (an empty range is one position).
struct ByteRange {
  uint32_t begin = 0;
  uint32_t end = 0;
};

// Tags of every traced function, in source order. With `only_within`, only the functions
// whose text meets one of those ranges are tagged.
std::vector<BreakTag> tag_breaks(const ast::Module& module, const Analysis& analysis,
                                 const std::vector<ByteRange>* only_within = nullptr);

}  // namespace graphmend::sema

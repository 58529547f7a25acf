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
// Whether a tag of `kind` has for site the condition its statement tests (a branch's, a
// guard's, an assert's): a fix that rewrites the condition evaluates what it reads.
bool site_is_condition(BreakKind kind);

struct BreakTag {
  BreakKind kind;
  const ast::stmt* statement = nullptr;  // the statement that breaks (the If, the Expr(print))
  const ast::Node* site = nullptr;       // the precise node: the condition, the Call
  const FunctionInfo* function = nullptr;
  std::string message;  // e.g. "branch on tensor value `x.sum() > 0`"
  // Tagged though the text shows no tensor: Dynamo broke on this condition when the program
  // ran (TagOptions), or it reads an attribute its class sets to a tensor. Its operands are
  // assumed tensors and checked at run time.
  bool assumed = false;
  // In an if GraphMend wrote around a statement it mended (its test calls the runtime): the
  // statement's own test, or the original kept in its else for when the run-time check fails.
  bool in_mended_fallback = false;
};

// A byte range of the source, both ends inclusive (an empty range is one position).
struct ByteRange {
  uint32_t begin = 0;
  uint32_t end = 0;
};

struct TagOptions {
  // With ranges, only the functions whose text meets one of them are tagged.
  const std::vector<ByteRange>* only_within = nullptr;
  // 1-based lines where Dynamo broke on a data-dependent jump in a profiling run: an `if`,
  // `elif` or `while` condition or a conditional expression there is a tensor condition
  // even when the text does not show it (BreakTag::observed).
  const std::vector<uint32_t>* observed_lines = nullptr;
};

// Tags of every traced function, in source order.
std::vector<BreakTag> tag_breaks(const ast::Module& module, const Analysis& analysis,
                                 const TagOptions& options = {});

}  // namespace graphmend::sema

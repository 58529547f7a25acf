// [Cond]: a data-dependent branch that calls code (a submodule, a local function) becomes
// `torch.cond` over two nested functions, through the runtime's `cond` (the plain `if`
// eagerly). The [Where] rewrite plans the branch, chooses this form and describes the call
// (CondCall); this emits it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "rewrite/emitter.h"
#include "rewrite/rewrite.h"

namespace graphmend::rewrite {

// One branch function: its statements as written and what it returns.
struct CondBranch {
  std::vector<std::string> body;
  std::vector<std::string> returns;
};

// A torch.cond call over two branch functions that take the same tensor operands.
struct CondCall {
  std::string condition;                  // as a tensor expression
  std::vector<std::string> operands;      // the tensor locals both functions take
  bool returns = false;                   // the statement returns the selected value...
  std::vector<std::string_view> targets;  // ...or assigns it to these variables
  const CondBranch* on_true = nullptr;
  const CondBranch* on_false = nullptr;
};

// Emits the two branch functions `true_name` and `false_name` and the call that selects
// between them.
void emit_cond(const CondCall& call, const Context& context, const std::string& true_name,
               const std::string& false_name, Emitter& out);

}  // namespace graphmend::rewrite

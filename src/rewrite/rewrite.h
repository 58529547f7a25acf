// What every rewrite shares: a rewrite looks at one break tag and either returns a Fix
// (text edits that remove the break without changing what the program computes, prints
// or logs) or a Decline (the safety condition that failed). Rewrites never edit outside
// the tagged statement, so fixes of different tags never overlap.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/source.h"
#include "rewrite/mend.h"
#include "sema/sema.h"
#include "sema/tags.h"

namespace graphmend::rewrite {

struct Context {
  const SourceText& source;
  const ast::Module& module;
  const sema::Analysis& analysis;
  const MendOptions& options;
  // The runtime module's name in mended code (`__graphmend_rt__`); emitted code calls
  // runtime helpers through it (see python/graphmend/runtime.py).
  std::string runtime = "__graphmend_rt__";
  // Fresh temporaries: `__gm_<stem><n>`, unique within the module.
  std::string fresh_name(std::string_view stem);
  int next_temp = 0;
};

struct Outcome {
  bool fixed = false;
  std::string rewrite;          // "where", "cond", "defer", "trap"
  std::vector<TextEdit> edits;  // when fixed
  std::string reason;           // when declined: the safety condition that failed
  bool needs_runtime = false;   // the edits reference Context::runtime
};

// Each returns std::nullopt when the tag is not its kind.
std::optional<Outcome> rewrite_defer(const sema::BreakTag& tag, Context& context);  // defer.cpp
std::optional<Outcome> rewrite_trap(const sema::BreakTag& tag, Context& context);   // trap.cpp
std::optional<Outcome> rewrite_where(const sema::BreakTag& tag,
                                     Context& context);  // where.cpp (torch.where and torch.cond)

// Shared helpers (expr_text.cpp).
// The source text of a node, exactly as written.
std::string_view node_text(const Context& context, const ast::Node& node);
// A tensor-valued Python expression for a branch condition: `and`/`or`/`not` become
// torch.logical_and/or/not over the operands, comparisons and tensor calls stay as
// written. Returns std::nullopt when an operand is not a tensor.
std::optional<std::string> tensor_condition(const Context& context, const ast::expr& condition);
// The indentation (spaces/tabs) of the line where `statement` starts.
std::string indentation_of(const Context& context, const ast::stmt& statement);

}  // namespace graphmend::rewrite

// What every rewrite shares: a rewrite looks at one break tag and returns an Outcome, a fix
// (text edits that remove the break without changing what the program computes, prints
// or logs) or a decline (the safety condition that failed; it may still carry edits that
// keep the order of side effects). A rewrite edits only inside its tagged statement, but for
// [Scalar], which edits the uses of the name it assigns; when two fixes' edits overlap all
// the same (two tags in one statement), mend.cpp declines the later one.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/source.h"
#include "diag/reasons.h"
#include "rewrite/mend.h"
#include "rewrite/registry.h"
#include "sema/sema.h"
#include "sema/tags.h"

namespace graphmend::rewrite {

struct Context {
  const SourceText& source;
  const ast::Module& module;
  const sema::Analysis& analysis;
  const MendOptions& options;
  // The runtime module's name in mended code (`__graphmend_rt__`); emitted code calls
  // runtime helpers through it (see python/graphmend/runtime/).
  std::string runtime = kRuntimeName;
  // Fresh temporaries: `__gm_<stem><n>`, unique within the module.
  std::string fresh_name(std::string_view stem);
  int next_temp = 0;
};

struct Outcome {
  bool fixed = false;
  // The form the fix took when it has a name of its own, reported instead of the
  // rewrite's name ([Where]'s "cond"); null otherwise.
  const char* form = nullptr;
  std::vector<TextEdit> edits;  // when fixed (a decline may edit too: defer.cpp)
  // When declined: the safety condition that failed, in words; when fixed without edits of
  // its own: the fix that holds it.
  std::string reason;
  // When declined: the id of its reason.
  reasons::Reason reason_id = reasons::Reason::Other;
  bool needs_runtime = false;  // the edits reference Context::runtime
  // Sites of other tags this fix removes with its own (a `.item()` whose conversion [Defer]
  // moves to the replay): reported fixed with it, saying how they now run.
  std::vector<const ast::Node*> absorbed;
  enum class Absorbed : uint8_t {
    Deferred,      // recorded and replayed with the fix's calls
    RunOnFailure,  // run eagerly, only when the fix's guard fails
    Rewritten,     // rewritten with the fix's own edits (a routed loop's other sites)
  };
  Absorbed absorbed_as = Absorbed::Deferred;
  // Functions the fix needs mended too (a deferring helper it calls): runtime-aware mode
  // mends them though Dynamo never broke in them (mend.cpp, with_relied_on_lines).
  std::vector<const ast::Node*> relies_on;
  // Nodes the fix removes its break through only where other fixes rewrite them (the
  // comparisons a held scalar feeds): mend.cpp runs such a fix after the others (rewrites.def's
  // AfterOthers) and keeps it only where their accepted edits cover each of these, else
  // declines it with `unpaid`.
  std::vector<const ast::Node*> pays_off_in;
  reasons::Problem unpaid;

  static Outcome declined(reasons::Reason reason, std::string detail) {
    Outcome outcome;
    outcome.reason = std::move(detail);
    outcome.reason_id = reason;
    return outcome;
  }
  static Outcome declined(reasons::Problem problem) {
    return declined(problem.reason, std::move(problem.detail));
  }
};

// The entry points of rewrites.def, each in src/rewrite/<name>/; each returns
// std::nullopt when the tag is not its kind.
#define REWRITE(kind, name, entry, order, scalars) \
  std::optional<Outcome> entry(const sema::BreakTag& tag, Context& context);
#include "rewrite/rewrites.def"

// The registry (registry.cpp): the rewrite that handles a break kind (codes.def's Owner;
// none for the kinds that are only reported), and running it.
std::optional<RewriteKind> owner_of(sema::BreakKind kind);
std::optional<Outcome> run_rewrite(RewriteKind kind, const sema::BreakTag& tag, Context& context);

// Shared helpers (expr_text.cpp).
// The source text of a node, exactly as written.
std::string_view node_text(const Context& context, const ast::Node& node);
// Whether `statement` is written `elif ...`: the else branch of another if, not a
// statement of its own.
bool written_as_elif(const Context& context, const ast::stmt& statement);
// A tensor-valued Python expression for a branch condition: `and`/`or`/`not` become
// torch.logical_and/or/not over the operands, comparisons and tensor calls stay as
// written. Returns std::nullopt when an operand is not a tensor.
std::optional<std::string> tensor_condition(const Context& context, const ast::expr& condition);
// `a and b and t1 and t2` where a, b are static (not data-dependent) and t1, t2 tensors:
// the Python condition `(a) and (b)` and the tensor condition `logical_and(t1, t2)`.
struct StaticSplit {
  std::string prefix;
  std::string tensor_part;
};
std::optional<StaticSplit> split_static_prefix(const Context& context, const ast::expr& test);
// `X.item()` with no arguments: X, else null.
const ast::expr* item_receiver(const ast::expr* e);
// Whether `e` is `X.item() <op> y` (or reversed) on a tensor X and a pure y that is not a
// tensor: tensor_condition lowers it to `runtime.item_compare(X, "<op>", y)` where Python
// always evaluates it.
bool is_item_comparison(const Context& context, const ast::expr& e);
// `<runtime>.item_later(X[, "read"])` for a scalar read of X (sema::ScalarRead): the read
// itself where not compiling, the scalar held as a 0-d tensor while compiling.
std::string held_read(const Context& context, const sema::ScalarRead& read);
// `<runtime>.tensors(a, b)` over the values a speculation assumed to be tensors: the run-time
// check (true only while compiling) that they are.
std::string tensors_check(const Context& context, const sema::Speculation& speculation);
// Whether `statement` is a string literal standing alone (a docstring, when it comes first).
bool is_docstring(const ast::stmt* statement);
// The indentation (spaces/tabs) of the line where `statement` starts.
std::string indentation_of(const Context& context, const ast::stmt& statement);

}  // namespace graphmend::rewrite

// Semantic analysis of one module: what each name is bound to, which functions Dynamo
// will trace, which values are tensors, which expressions are pure, and which variables
// are live where. Everything the tagger and the rewrites ask about source meaning goes
// through Analysis; nothing else walks scopes.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ast/ast.h"
#include "base/source.h"
#include "diag/reasons.h"

namespace graphmend::sema {

// What a called expression resolves to, as far as the module's own bindings show.
enum class CalleeKind : uint8_t {
  Unknown,       // anything not shown to be one of the below (treated as impure)
  Print,         // the builtin print (not shadowed anywhere in scope)
  LoggerMethod,  // <logger>.debug/info/warning/warn/error/critical/exception/log/warning_once/info_once
  WarningsWarn,   // warnings.warn (module imported as such, or `from warnings import warn`)
  TorchFunction,  // torch.<qualified name> (torch.where, torch.nn.functional.relu, ...)
  TensorMethod,   // <tensor>.method(...) on a value known to be a tensor
  SelfSubmodule,  // self.<attr>(...) inside an nn.Module method (a submodule or method call)
  LocalFunction,  // a function defined in this module (call-graph edge)
  Builtin,        // another builtin (len, isinstance, range, ...)
};

struct Callee {
  CalleeKind kind = CalleeKind::Unknown;
  std::string qualified_name;  // "torch.where", "logging.Logger.info", "len", the method name...
  const ast::Node* definition = nullptr;  // LocalFunction: its FunctionDef
};

enum class EntryReason : uint8_t {
  None,
  CompileDecorator,  // @torch.compile / @torch.compile(...)
  CompileCall,       // torch.compile(f) / torch.compile(Model) / torch.compile(model_instance)
  CompileMethod,     // model.compile() where model's class is known
  ModuleForward,     // forward of an nn.Module subclass
  Configured,        // named by qualified name in AnalysisOptions::entry_points
  Library,           // any function, when the module is library code (AnalysisOptions)
  Reached,           // called, directly or not, from an entry point
};

struct FunctionInfo {
  const ast::Node* node = nullptr;             // FunctionDef / AsyncFunctionDef
  const ast::ClassDef* owner_class = nullptr;  // for methods
  bool in_module_subclass = false;             // owner_class derives from nn.Module
  // A method of a torch.optim.Optimizer subclass that stores an attribute on its first
  // parameter (`self._warned = True`): torch 2.13's Dynamo drops such a store in compiled
  // code, which only a break in the method keeps eager (docs/MENDER.md).
  bool stores_optimizer_state = false;
  EntryReason reason = EntryReason::None;  // why Dynamo traces it (None: it does not)
  std::vector<const ast::Node*> callees;   // local functions/methods it calls
  std::string qualified_name;              // "Model.forward", "helper"
};

// Facts a rewrite has established around an expression that make more of it provably pure.
struct PurityFacts {
  // Source texts of dtype expressions known to be floating (`x.dtype` under
  // `if x.dtype == torch.float16 and ...`): torch.finfo of them cannot raise.
  std::vector<std::string> floating_dtypes;
  // Names bound to Python numbers computed without side effects (`torch.finfo(d).max - 1000`).
  std::vector<std::string> numeric_names;
  // Subscripts by a computed index that the caller reads with the index masked to the range
  // (runtime.index_where): pure when their value and index are.
  std::vector<const ast::Subscript*> masked_subscripts;
  // Subexpressions evaluated once before the expression asked about (a rewrite hoists
  // them): they count as pure values.
  std::vector<const ast::expr*> opaque;
};

// `test` as a condition that holds where `test` does (`holds`) or where it does not, written
// to be joined with `and` (`not (a < b)`; `ok(x)` where `not ok(x)` does not hold); `text`
// gives an expression's text in the words wanted.
std::string condition_check(const ast::expr& test, bool holds,
                            const std::function<std::string(const ast::expr&)>& text);

// A method whose result a speculation computes as its definition shows: the rewrite checks
// `runtime.same_method(<receiver>, "<name>", <owner>.<name>)` before the statement.
struct SameMethod {
  std::string receiver;
  std::string name;
  std::string owner;  // the module-level class defining it
  bool operator==(const SameMethod&) const = default;
};

// Speculation: while one is active (Analysis::speculate), a local variable or a `self`
// attribute whose type the text cannot show counts as a tensor wherever a tensor is asked
// for, and is recorded in `assumed`. A rewrite that relies on it checks at run time, just
// before `site`, that every recorded value is a plain tensor (runtime.tensors), and runs
// the original statement when one is not.
struct Speculation {
  const ast::stmt* site = nullptr;  // the statement the run-time check is evaluated before
  // Names assigned earlier in the part of `site` being analysed: the check before `site`
  // does not see their values. Those in `derived` hold tensors (given the assumptions).
  std::vector<std::string_view> local;
  std::vector<std::string_view> derived;
  std::vector<const ast::expr*> assumed;  // out: the values assumed, first use first
  // out: tensors whose dtype is assumed floating (`torch.finfo(x.dtype)` cannot raise then);
  // the check also asks `x.is_floating_point()`
  std::vector<const ast::expr*> floating;
  // Whether a parameter with a numeric default or an int/float annotation may be assumed a
  // Python number (in number expressions); the check asks `runtime.python_numbers(...)` of each.
  bool assume_numbers = false;
  std::vector<const ast::expr*> numbers;  // out: the values assumed numbers
  // out: of those, the parameters declared int (`top_k: Optional[int]`): the check asks
  // `runtime.python_ints(...)`, since a float may raise where an int is wanted (`x.topk(k)`)
  std::vector<const ast::expr*> integers;
  // out: tests (Python text) that must hold for the helpers a speculated value calls to be
  // pure: `not (img.ndim < 2)` for a helper that raises when `img.ndim < 2`
  std::vector<std::string> preconditions;
  // out: the methods whose results it computes (see SameMethod)
  std::vector<SameMethod> methods;
  // Evidence only (the tagger's question, never a rewrite's): the attributes a class
  // registers as parameters or buffers, or sets only to tensors, count as tensors, nothing
  // else is assumed, and a local variable counts as what its definitions compute under the
  // same assumption.
  bool class_evidence = false;
  // With class_evidence: a parameter with neither annotation nor default counts as a tensor
  // too. Asked only of a conditional expression whose values are tensors (a scheduler's
  // `alphas_cumprod[prev_t] if prev_t >= 0 else final_alpha`): the condition is on what
  // the caller passes, a tensor timestep as often as an int.
  bool plain_parameters = false;
};

// A Python scalar read from a tensor: `X.item()`, `int(X)`, `float(X)` or `bool(X)` (the
// builtins).
struct ScalarRead {
  const ast::expr* tensor = nullptr;  // X; null where `e` is no such read
  std::string_view read;              // "item", "int", "float" or "bool"
};

// A Python scalar read from a tensor (`n = mask.sum().item()`, `int(count)`, `bool(m.any())`)
// that the function uses only in comparisons with ints (`x.shape[0] != n`), `isinstance(n,
// ...)` tests, the tests of guards (ifs ending in a raise: `if n: raise ...`) and their
// bodies. Mended code may hold the tensor instead while compiling (runtime.item_later, as
// int64, bool or float64): each comparison or truth test, written as it is, then gives in
// the graph what the scalar gives, `isinstance` goes to runtime.item_isinstance and a
// guard's body reads the scalar with runtime.item_now.
struct HeldScalar {
  const ast::Name* target = nullptr;
  const ast::expr* tensor = nullptr;  // X of the read (ScalarRead)
  std::string_view read;              // how: "item", "int", "float" or "bool"
  // outside the bodies of guards: comparisons with ints, and the tests of guards that are
  // the scalar's truth (`if not n: raise ...`)
  std::vector<const ast::expr*> tests;
  std::vector<const ast::Call*> type_tests;   // `isinstance(n, ...)`, outside them too
  std::vector<const ast::Name*> guard_reads;  // reads in the bodies of guards
  std::optional<reasons::Problem> problem;    // why it cannot be held; none when it can
};

struct AnalysisOptions {
  // Library code: its functions are called from models in other modules, so every function
  // and method counts as traced (no entry point in the module itself need reach it).
  bool trace_all = false;
  // Qualified names ("Engine.step", "helper") of functions that count as traced: entry
  // points the text cannot show (a configuration's `entry-points`).
  std::vector<std::string> entry_points;
  // Whether a speculation may take a held scalar (HeldScalar) for a tensor: the mended
  // assignment holds one only where [Scalar] runs.
  bool hold_scalars = true;
};

// Whether the statement list always ends by raising: its last statement is a `raise`, or
// `<torch_name>._assert(False, ...)` (torchvision's GeneralizedRCNN), which raises
// AssertionError.
bool ends_in_raise(const ast::Seq<ast::stmt*>& body, std::string_view torch_name);

// Whether `call` asks torch for a mode Dynamo resolves while tracing, into a guard
// (`torch.is_grad_enabled()`, `torch.jit.is_scripting()`, `torch.compiler.is_compiling()`):
// no arguments, a bool, no side effect, cannot raise.
bool is_mode_query(const Callee& callee, const ast::Call& call);

// The argument `call` passes for `param` of `def`, or null when the parameter takes its
// default or the call passes *args or **kwargs. `bound`: the leading parameters the call
// binds itself (1 for a method called on an object: `self.helper(x)`), which get null.
const ast::expr* argument_for(const ast::FunctionDef& def, const ast::arg& param,
                              const ast::Call& call, size_t bound = 0);

class Analysis {
 public:
  // Analyses `module`; the tree and source must outlive the Analysis.
  static std::unique_ptr<Analysis> run(const ast::Module& module, const SourceText& source,
                                       const AnalysisOptions& options = {});
  virtual ~Analysis() = default;

  virtual const std::vector<FunctionInfo>& functions() const = 0;
  // The innermost function containing `node`, or nullptr at module level.
  virtual const FunctionInfo* function_of(const ast::Node* node) const = 0;
  // True when the function is traced by Dynamo (an entry point or reached from one).
  virtual bool is_traced(const FunctionInfo& function) const = 0;

  // The module-level name bound to the real `torch` module ("torch"), or empty.
  virtual std::string_view torch_name() const = 0;
  virtual Callee resolve_call(const ast::Call& call) const = 0;

  // Whether `e`, evaluated where it stands, is a torch.Tensor: parameters annotated
  // torch.Tensor, results of torch functions and tensor methods that return tensors,
  // arithmetic with a tensor operand, names whose every reaching definition is a tensor.
  // Parameters without annotation are not assumed to be tensors.
  virtual bool is_tensor(const ast::expr& e) const = 0;
  // Whether a branch on `condition` depends on tensor values (a break under Dynamo):
  // it is a tensor, or compares/combines tensors, directly or through a chain of single
  // definitions. Shape, dtype, device, ndim, `is None` and `self.training` tests are not.
  virtual bool is_data_dependent(const ast::expr& condition) const = 0;
  // Free of side effects and unable to raise for well-typed tensor operands: constants,
  // names, attribute reads of tensors, whitelisted torch functions and tensor methods,
  // arithmetic and comparisons on those.
  virtual bool is_pure(const ast::expr& e) const = 0;
  // is_pure given `facts`: also `torch.finfo(D).max` (and min, eps, tiny...) where D is a
  // literal floating dtype or one of facts.floating_dtypes, and +, -, * and unary minus
  // over such numbers, numeric constants and facts.numeric_names.
  virtual bool is_pure(const ast::expr& e, const PurityFacts& facts) const = 0;
  // Whether `e` is a Python number that is_pure(e, facts) computes (see above).
  virtual bool is_number(const ast::expr& e, const PurityFacts& facts) const = 0;
  // Adds the dtype expressions that `condition` being true shows to be floating:
  // `x.dtype == torch.float16`, `x.dtype in (torch.float16, torch.bfloat16)`.
  virtual void add_floating_dtypes(const ast::expr& condition, PurityFacts& facts) const = 0;

  // Local variables live on exit from `statement` (read later on some path before being
  // rewritten), in the function containing it.
  virtual std::vector<std::string_view> live_after(const ast::stmt& statement) const = 0;
  // Local variable names a statement list may assign (targets, augmented targets, walrus,
  // for targets, with-as, imports, nested defs), in first-assignment order.
  virtual std::vector<std::string_view> assigned_names(const ast::Seq<ast::stmt*>& body) const = 0;
  // Whether a statement list assigns attributes or subscripts, calls methods that mutate
  // (add_, copy_, append, ...), or otherwise writes state outside its own locals.
  virtual bool mutates_state(const ast::Seq<ast::stmt*>& body) const = 0;

  // Additions for the rewrites.
  // Whether `e` is a tensor of dtype bool (a tensor comparison, logical_*, isnan, .bool()...).
  virtual bool is_bool_tensor(const ast::expr& e) const = 0;
  // Whether local `name` is bound on every path reaching `statement` (reaching definitions).
  virtual bool is_definitely_bound_before(const ast::stmt& statement,
                                          std::string_view name) const = 0;
  // Whether local `name` is bound on every path reaching `statement` and every reaching
  // definition is a tensor.
  virtual bool is_tensor_before(const ast::stmt& statement, std::string_view name) const = 0;
  // Local variables live on entry to `statement`.
  virtual std::vector<std::string_view> live_before(const ast::stmt& statement) const = 0;

  // Why the tensor `e` evaluates to might not have been created by the running call of the
  // function holding `e`, or empty when it was: on every path `e` is the result of a torch
  // op that allocates (torch_facts' FreshResult, tensor arithmetic), a view of such a value
  // whose elements do not overlap (ViewOfReceiver, indexing), a local bound only to such
  // values, a parameter of a nested function every call of which (in the function defining
  // it) passes such values, or the call of a module function whose every return is such a
  // value; and no function involved changes grad mode (no_grad, enable_grad, ...), so
  // nothing saved the value for backward while grad mode was on.
  virtual std::string why_not_fresh(const ast::expr& e) const = 0;

  // `e` as a Python scalar read from a tensor (see ScalarRead).
  virtual ScalarRead scalar_read(const ast::expr& e) const = 0;
  // Whether the scalar `statement` assigns may be held as a tensor (see HeldScalar).
  virtual HeldScalar held_scalar(const ast::stmt& statement) const = 0;

  // Answers the queries above under `speculation` (see Speculation) from now on, nullptr
  // under none; returns the one active before, for the caller to restore. The caller keeps
  // `speculation` alive while it is active.
  virtual Speculation* speculate(Speculation* speculation) const = 0;
};

}  // namespace graphmend::sema

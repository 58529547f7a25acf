// [Trap]: a validation guard `if <tensor condition>: raise E("literal")` becomes
//
//   __graphmend_rt__.guard(<tensor condition>, E, "literal")
//
// The runtime raises E("literal") at once when not compiling (bool() of the condition,
// exactly the original); while compiling it emits torch._assert_async on the negated
// condition with a token naming E and "literal", which the compile boundary turns back into
// E("literal") (python/graphmend/runtime/trap.py: guard, translate). A tensor assert becomes
// `assert __graphmend_rt__.check_assert(<cond>, "literal")` the same way (GM110), and
// `torch._check_tensor_all(cond)` goes to the runtime's check_tensor_all (GM109).
#include <algorithm>
#include <string>
#include <unordered_set>
#include <vector>

#include "ast/walk.h"
#include "rewrite/defer/defer.h"
#include "rewrite/rewrite.h"
#include "rewrite/where/where.h"

namespace graphmend::rewrite {
namespace {

// Builtin exception classes whose constructor takes one message (or none). Left out:
// those that need more arguments (UnicodeDecodeError, ExceptionGroup, ...) and those
// that steer the interpreter (StopIteration, GeneratorExit, SystemExit, KeyboardInterrupt).
bool is_builtin_exception(std::string_view name) {
  static const std::unordered_set<std::string_view> kNames = {"ArithmeticError",
                                                              "AssertionError",
                                                              "AttributeError",
                                                              "BaseException",
                                                              "BlockingIOError",
                                                              "BrokenPipeError",
                                                              "BufferError",
                                                              "BytesWarning",
                                                              "ChildProcessError",
                                                              "ConnectionAbortedError",
                                                              "ConnectionError",
                                                              "ConnectionRefusedError",
                                                              "ConnectionResetError",
                                                              "DeprecationWarning",
                                                              "EOFError",
                                                              "EncodingWarning",
                                                              "EnvironmentError",
                                                              "Exception",
                                                              "FileExistsError",
                                                              "FileNotFoundError",
                                                              "FloatingPointError",
                                                              "FutureWarning",
                                                              "IOError",
                                                              "ImportError",
                                                              "ImportWarning",
                                                              "IndexError",
                                                              "InterruptedError",
                                                              "IsADirectoryError",
                                                              "KeyError",
                                                              "LookupError",
                                                              "MemoryError",
                                                              "ModuleNotFoundError",
                                                              "NameError",
                                                              "NotADirectoryError",
                                                              "NotImplementedError",
                                                              "OSError",
                                                              "OverflowError",
                                                              "PendingDeprecationWarning",
                                                              "PermissionError",
                                                              "ProcessLookupError",
                                                              "RecursionError",
                                                              "ReferenceError",
                                                              "ResourceWarning",
                                                              "RuntimeError",
                                                              "RuntimeWarning",
                                                              "SyntaxWarning",
                                                              "SystemError",
                                                              "TimeoutError",
                                                              "TypeError",
                                                              "UnboundLocalError",
                                                              "UnicodeError",
                                                              "UnicodeWarning",
                                                              "UserWarning",
                                                              "ValueError",
                                                              "Warning",
                                                              "ZeroDivisionError"};
  return kNames.count(name) != 0;
}

enum class Binding : uint8_t { None, Class, Import, Other };

// How `name` is bound at module scope (the last binding statement wins; compound
// statements are entered, function and class bodies are not).
void module_binding(const ast::Seq<ast::stmt*>& body, std::string_view name, Binding& found) {
  auto bind = [&](Binding binding) { found = found == Binding::None ? binding : Binding::Other; };
  for (const ast::stmt* statement : body) {
    if (const auto* s = ast::as<ast::ClassDef>(statement)) {
      if (s->name == name) bind(Binding::Class);
    } else if (const auto* s = ast::as<ast::FunctionDef>(statement)) {
      if (s->name == name) bind(Binding::Other);
    } else if (const auto* s = ast::as<ast::AsyncFunctionDef>(statement)) {
      if (s->name == name) bind(Binding::Other);
    } else if (const auto* s = ast::as<ast::ImportFrom>(statement)) {
      for (const ast::alias* alias : s->names) {
        if ((alias->asname.empty() ? alias->name : alias->asname) == name) bind(Binding::Import);
      }
    } else if (const auto* s = ast::as<ast::Import>(statement)) {
      for (const ast::alias* alias : s->names) {
        std::string_view bound =
            alias->asname.empty() ? alias->name.substr(0, alias->name.find('.')) : alias->asname;
        if (bound == name) bind(Binding::Other);  // a module, not a class
      }
    } else if (const auto* s = ast::as<ast::If>(statement)) {
      module_binding(s->body, name, found);
      module_binding(s->orelse, name, found);
    } else if (const auto* s = ast::as<ast::Try>(statement)) {
      module_binding(s->body, name, found);
      for (const ast::excepthandler* h : s->handlers) {
        if (const auto* handler = ast::as<ast::ExceptHandler>(h)) {
          if (handler->name == name) bind(Binding::Other);
          module_binding(handler->body, name, found);
        }
      }
      module_binding(s->orelse, name, found);
      module_binding(s->finalbody, name, found);
    } else {
      // Any other statement that mentions the name as a target rebinds it.
      bool assigns = false;
      // A nested function, class or lambda binds its names in a scope of its own.
      auto visit = [&](const ast::Node* node) {
        if (const auto* n = ast::as<ast::Name>(node)) {
          if (n->id == name && n->ctx != ast::ExprContext::Load) assigns = true;
        }
        return !(ast::is<ast::FunctionDef>(node) || ast::is<ast::AsyncFunctionDef>(node) ||
                 ast::is<ast::ClassDef>(node) || ast::is<ast::Lambda>(node));
      };
      ast::walk(statement, visit);
      if (assigns) bind(Binding::Other);
    }
  }
}

bool binds_parameter(const ast::arguments& args, std::string_view name) {
  auto in = [&](const ast::Seq<ast::arg*>& list) {
    for (const ast::arg* a : list) {
      if (a->arg == name) return true;
    }
    return false;
  };
  return in(args.posonlyargs) || in(args.args) || in(args.kwonlyargs) ||
         (args.vararg && args.vararg->arg == name) || (args.kwarg && args.kwarg->arg == name);
}

// Whether a function enclosing `node` binds `name` locally (parameter or assignment).
bool bound_in_enclosing_function(const Context& context, const ast::Node& node,
                                 std::string_view name) {
  for (const sema::FunctionInfo& info : context.analysis.functions()) {
    if (info.node == nullptr || info.node->begin > node.begin || info.node->end < node.end)
      continue;
    const ast::arguments* args = nullptr;
    const ast::Seq<ast::stmt*>* body = nullptr;
    if (const auto* f = ast::as<ast::FunctionDef>(info.node)) {
      args = f->args;
      body = &f->body;
    } else if (const auto* f = ast::as<ast::AsyncFunctionDef>(info.node)) {
      args = f->args;
      body = &f->body;
    }
    if (args && binds_parameter(*args, name)) return true;
    if (body) {
      for (std::string_view assigned : context.analysis.assigned_names(*body)) {
        if (assigned == name) return true;
      }
    }
  }
  return false;
}

// Why `name` cannot be used as the exception class at module level, or none.
std::optional<reasons::Problem> check_exception_class(const Context& context,
                                                      const ast::Node& where,
                                                      std::string_view name) {
  auto not_a_class = [](std::string detail) {
    return reasons::Problem{reasons::Reason::ExceptionNotClass, std::move(detail)};
  };
  if (bound_in_enclosing_function(context, where, name)) {
    return not_a_class("the raised `" + std::string(name) + "` is a local variable, not a class");
  }
  Binding binding = Binding::None;
  module_binding(context.module.body, name, binding);
  switch (binding) {
    case Binding::Class:
    case Binding::Import:
      return std::nullopt;
    case Binding::None:
      if (is_builtin_exception(name)) return std::nullopt;
      return not_a_class("`" + std::string(name) +
                         "` is not a builtin exception class taking a message");
    case Binding::Other:
      break;
  }
  return not_a_class("`" + std::string(name) +
                     "` is not bound to a class in the module (an instance variable?)");
}

bool is_string_literal(const ast::expr* e);

// The guard's condition as a tensor expression, assuming (under `speculation`) the values
// whose type the text cannot show are tensors; `speculation.assumed` names them.
std::optional<std::string> speculated_condition(const Context& context, const ast::If& guard,
                                                sema::Speculation& speculation) {
  speculation.site = &guard;
  sema::Speculation* before = context.analysis.speculate(&speculation);
  std::optional<std::string> condition = tensor_condition(context, *guard.test);
  context.analysis.is_pure(*guard.test);  // records what its operands assume, lowered or not
  context.analysis.speculate(before);
  return condition;
}

// A value a message formats: pure and not shown to be a tensor (Dynamo folds a config
// value, a dtype, a Python number or a static shape into the text while tracing).
bool is_formattable_value(const Context& context, const ast::expr* e,
                          const std::vector<std::string_view>& condition_tensors) {
  if (e == nullptr || !context.analysis.is_pure(*e) || context.analysis.is_tensor(*e)) return false;
  return std::find(condition_tensors.begin(), condition_tensors.end(), node_text(context, *e)) ==
         condition_tensors.end();
}

// A message formatted from such values: an f-string, `"..." % values` or `"...".format(...)`
// on a string literal.
bool is_formatted_message(const Context& context, const ast::expr* e,
                          const std::vector<std::string_view>& condition_tensors) {
  if (const auto* joined = ast::as<ast::JoinedStr>(e)) {
    for (const ast::expr* part : joined->values) {
      const auto* field = ast::as<ast::FormattedValue>(part);
      if (field == nullptr) continue;
      if (!is_formattable_value(context, field->value, condition_tensors)) return false;
      if (field->format_spec != nullptr &&
          !is_formatted_message(context, field->format_spec, condition_tensors))
        return false;
    }
    return true;
  }
  if (const auto* mod = ast::as<ast::BinOp>(e); mod && mod->op == ast::OperatorKind::Mod) {
    return is_string_literal(mod->left) &&
           is_formattable_value(context, mod->right, condition_tensors);
  }
  if (const auto* call = ast::as<ast::Call>(e)) {
    const auto* method = ast::as<ast::Attribute>(call->func);
    if (method == nullptr || method->attr != "format" || !is_string_literal(method->value))
      return false;
    for (const ast::expr* arg : call->args)
      if (ast::is<ast::Starred>(arg) || !is_formattable_value(context, arg, condition_tensors))
        return false;
    for (const ast::keyword* k : call->keywords)
      if (k->arg.empty() || !is_formattable_value(context, k->value, condition_tensors))
        return false;
    return true;
  }
  return false;
}

bool is_string_literal(const ast::expr* e) {
  if (const auto* constant = ast::as<ast::Constant>(e)) {
    return constant->value.type == ast::ConstantValue::Type::Str;
  }
  if (const auto* joined = ast::as<ast::JoinedStr>(e)) {
    for (const ast::expr* part : joined->values) {
      if (!ast::is<ast::Constant>(part)) return false;
    }
    return true;
  }
  return false;
}

// `torch._check_tensor_all(cond)` reads `cond` on the host (`.item()`); the runtime's
// `check_tensor_all` asserts in the graph instead while compiling.
Outcome rewrite_tensor_check(const sema::BreakTag& tag, Context& context) {
  const auto* call = ast::as<ast::Call>(tag.site);
  if (call == nullptr) return Outcome::declined(reasons::Reason::Other, "the check is not a call");
  if (call->args.size != 1 || !call->keywords.empty()) {
    return Outcome::declined(
        reasons::Reason::MessageNotLiteral,
        "the check has a message: a message callable runs only on failure, which an in-graph "
        "assert cannot do");
  }
  if (ast::is<ast::Starred>(call->args[0]))
    return Outcome::declined(reasons::Reason::Other, "the condition is a starred argument");
  Outcome outcome;
  outcome.needs_runtime = true;
  outcome.edits.push_back(
      {call->func->begin, call->func->end, context.runtime + ".check_tensor_all"});
  outcome.fixed = true;
  return outcome;
}

// `assert <tensor cond>, "msg"` becomes `assert <runtime>.check_assert(<cond>, "msg")`:
// compiled, the failure surfaces as AssertionError("msg") rather than Dynamo's
// RuntimeError; the statement stays an assert, so `python -O` still removes it whole.
Outcome rewrite_assert(const sema::BreakTag& tag, Context& context) {
  const auto* assertion = ast::as<ast::Assert>(tag.statement);
  if (assertion == nullptr)
    return Outcome::declined(reasons::Reason::Other, "the check is not an assert statement");
  if (assertion->msg != nullptr && !is_string_literal(assertion->msg)) {
    return Outcome::declined(
        reasons::Reason::MessageNotLiteral,
        "the assert message is not a string literal (Dynamo breaks there and the "
        "AssertionError is raised as written)");
  }
  // Two insertions keep the text between the condition and the message (a comma, a
  // parenthesised message over several lines) as written.
  Outcome outcome;
  outcome.needs_runtime = true;
  const ast::expr& test = *assertion->test;
  // `assert lengths.max().item() <= slen` (transformers' XLM): compared in the graph.
  // item_compare checks at run time that `lengths.max()` is a tensor (the original
  // comparison otherwise), so a speculation may assume it; nothing else is evaluated.
  sema::Speculation speculation;
  speculation.site = assertion;
  sema::Speculation* before = context.analysis.speculate(&speculation);
  std::optional<std::string> lowered;
  if (is_item_comparison(context, test)) lowered = tensor_condition(context, test);
  context.analysis.speculate(before);
  // `assert (a == b).all().item()`: the truth of the scalar is the truth of the held tensor
  // (nonzero; NaN is true), so the read stays in the graph with the assert.
  if (sema::ScalarRead read = context.analysis.scalar_read(test); read.tensor != nullptr)
    lowered = held_read(context, read);
  if (lowered) {
    outcome.edits.push_back({test.begin, test.end, context.runtime + ".check_assert(" + *lowered});
  } else {
    outcome.edits.push_back({test.begin, test.begin, context.runtime + ".check_assert("});
  }
  outcome.edits.push_back({assertion->end, assertion->end, ")"});
  outcome.fixed = true;
  return outcome;
}

// `if <tensor condition>: <statements ending in a raise>` that the in-graph forms cannot
// lower (a message formatted from tensor data, statements before the raise): its test
// becomes `runtime.rerun_if(<condition>)`. While compiling, where the call has changed
// nothing yet, that is an in-graph assert, and a failure runs the whole call again eagerly
// (the original body with it); otherwise the `if` tests the condition as written.
Outcome rerun_guard(const sema::BreakTag& tag, Context& context, const ast::If& guard) {
  if (!tag.assumed && !context.analysis.is_data_dependent(*guard.test))
    return Outcome::declined(reasons::Reason::NotDataDependent,
                             "the condition is not data-dependent");
  std::string rerun = context.runtime + ".rerun_if(";
  Outcome outcome;
  outcome.needs_runtime = true;
  outcome.fixed = true;
  // The body is never traced (a failure runs it eagerly): the breaks in it are gone too.
  for (const ast::stmt* statement : guard.body)
    ast::walk(statement, [&](const ast::Node* node) {
      outcome.absorbed.push_back(node);
      return true;
    });
  if (std::optional<std::string> condition = tensor_condition(context, *guard.test)) {
    outcome.edits.push_back({guard.test->begin, guard.test->end, rerun + *condition + ")"});
    return outcome;
  }
  if (std::optional<StaticSplit> split = split_static_prefix(context, *guard.test)) {
    outcome.edits.push_back({guard.test->begin, guard.test->end,
                             split->prefix + " and " + rerun + split->tensor_part + ")"});
    return outcome;
  }
  sema::Speculation speculation;
  std::optional<std::string> speculated = speculated_condition(context, guard, speculation);
  if (!speculated || speculation.assumed.empty())
    return Outcome::declined(
        reasons::Reason::NotTensor,
        "the condition is not a tensor expression (an operand is not shown to be a tensor, or "
        "an and/or operand Python may skip is not pure)");
  outcome.edits.push_back({guard.test->begin, guard.test->end,
                           "(" + rerun + *speculated + ") if " +
                               tensors_check(context, speculation) + " else (" +
                               std::string(node_text(context, *guard.test)) + "))"});
  return outcome;
}

Outcome lower_guard(const sema::BreakTag& tag, Context& context, const ast::If& guard);

// A guard whose body logs (directly or through helpers that only defer) before its raise:
// [Defer]'s branch form with the raise in-graph (defer_guard), so the records made before
// the failure replay first and the exception follows.
Outcome deferred_guard(const sema::BreakTag& tag, Context& context, const ast::If& guard);

}  // namespace

std::optional<Outcome> rewrite_trap(const sema::BreakTag& tag, Context& context) {
  if (tag.kind == sema::BreakKind::TensorCheck) return rewrite_tensor_check(tag, context);
  if (tag.kind == sema::BreakKind::TensorAssert) return rewrite_assert(tag, context);
  if (tag.kind != sema::BreakKind::ValidationGuard) return std::nullopt;
  const auto* guard = ast::as<ast::If>(tag.statement);
  if (guard == nullptr)
    return Outcome::declined(reasons::Reason::NotSingleRaise, "the guard is not an if statement");
  // a raising arm of a predicated branch, or a guard with an else branch: [Where]
  if (std::optional<Outcome> predicated = predicate_guard(tag, context)) return predicated;
  if (written_as_elif(context, *guard)) {
    return Outcome::declined(reasons::Reason::HasElse,
                             "the guard is an elif branch of a larger if statement");
  }
  if (!guard->orelse.empty())
    return Outcome::declined(reasons::Reason::HasElse, "the if statement has an else branch");
  Outcome lowered = lower_guard(tag, context, *guard);
  if (lowered.fixed || !sema::ends_in_raise(guard->body, context.analysis.torch_name()))
    return lowered;
  // What a guard's fix absorbs runs only when the guard fails (its [Where] form aside).
  Outcome deferred = deferred_guard(tag, context, *guard);
  deferred.absorbed_as = Outcome::Absorbed::RunOnFailure;
  if (deferred.fixed) return deferred;
  Outcome rerun = rerun_guard(tag, context, *guard);
  rerun.absorbed_as = Outcome::Absorbed::RunOnFailure;
  return rerun.fixed ? rerun : lowered;
}

// The call that raises `raise` where the guard fails, as `function` and `arguments` around the
// condition, or the reason it cannot (defer.h).
GuardRaise guard_raise(const Context& context, const ast::Node& site, const ast::Raise& raise,
                       const std::vector<std::string_view>& condition_tensors) {
  if (raise.exc == nullptr)
    return GuardRaise::declined(reasons::Reason::BareRaise,
                                "a bare raise re-raises the exception being handled");
  if (raise.cause != nullptr)
    return GuardRaise::declined(reasons::Reason::RaiseFrom,
                                "the raise chains a cause (raise ... from ...)");
  const ast::Name* exception_class = nullptr;
  const ast::expr* message = nullptr;
  if (const auto* name = ast::as<ast::Name>(raise.exc)) {
    exception_class = name;
  } else if (const auto* call = ast::as<ast::Call>(raise.exc)) {
    exception_class = ast::as<ast::Name>(call->func);
    if (exception_class == nullptr)
      return GuardRaise::declined(reasons::Reason::ExceptionNotClass,
                                  "the exception class is not a plain name");
    if (!call->keywords.empty() || call->args.size > 1)
      return GuardRaise::declined(reasons::Reason::MessageNotLiteral,
                                  "the exception is built with more than one message argument");
    if (call->args.size == 1) {
      message = call->args[0];
      if (!is_string_literal(message) && !is_formatted_message(context, message, condition_tensors))
        return GuardRaise::declined(
            reasons::Reason::MessageFormatsTensor,
            "the exception message is neither a string literal nor formatted from values "
            "other than tensors");
    }
  } else {
    return GuardRaise::declined(reasons::Reason::ExceptionNotClass,
                                "the raised exception is neither a class nor a class call");
  }
  if (std::optional<reasons::Problem> problem =
          check_exception_class(context, site, exception_class->id))
    return GuardRaise::declined(problem->reason, problem->detail);
  // A formatted message is built only when the guard fails, as the original builds it: the
  // guard gets it as a function (guard_formatted).
  GuardRaise form;
  form.message = message;
  bool formatted = message != nullptr && !is_string_literal(message);
  form.function = formatted ? ".guard_formatted(" : ".guard(";
  std::string message_text = message ? std::string(node_text(context, *message)) : "None";
  if (formatted) message_text = "lambda: " + message_text;
  form.arguments = ", " + std::string(exception_class->id) + ", " + message_text + ")";
  return form;
}

namespace {

// The in-graph forms of `if <tensor condition>: raise E(message)`: runtime.guard (a string
// message) and guard_formatted (one formatted from values other than tensors).
Outcome lower_guard(const sema::BreakTag& tag, Context& context, const ast::If& guard_node) {
  const ast::If* guard = &guard_node;
  if (guard->body.size != 1 || !ast::is<ast::Raise>(guard->body[0])) {
    return Outcome::declined(reasons::Reason::NotSingleRaise,
                             "the if body is not exactly one raise statement");
  }
  const auto* raise = ast::as<ast::Raise>(guard->body[0]);
  sema::Speculation speculation;
  std::optional<std::string> speculated = speculated_condition(context, *guard, speculation);
  // values the condition treats as tensors: a message formatting them reads tensor data
  std::vector<std::string_view> condition_tensors;
  for (const ast::expr* value : speculation.assumed)
    condition_tensors.push_back(node_text(context, *value));
  GuardRaise form = guard_raise(context, *guard, *raise, condition_tensors);
  if (!form.problem.empty()) return Outcome::declined(form.reason, form.problem);
  if (!tag.assumed && !context.analysis.is_data_dependent(*guard->test)) {
    return Outcome::declined(reasons::Reason::NotDataDependent,
                             "the condition is not data-dependent");
  }
  const std::string& function = form.function;
  const std::string& arguments = form.arguments;
  Outcome outcome;
  outcome.needs_runtime = true;
  if (std::optional<std::string> condition = tensor_condition(context, *guard->test)) {
    outcome.edits.push_back(
        {guard->begin, guard->end, context.runtime + function + *condition + arguments});
    outcome.fixed = true;
    return outcome;
  }
  // `if <static> and <tensor>: raise` keeps the static part as the Python `if`.
  std::optional<StaticSplit> split = split_static_prefix(context, *guard->test);
  if (!split && speculated && !speculation.assumed.empty()) {
    // checked: `if runtime.tensors(<assumed>): <guard> el<the original if>`
    std::string indent = indentation_of(context, *guard);
    outcome.edits.push_back({guard->begin, guard->end,
                             "if " + tensors_check(context, speculation) + ":\n" + indent + "    " +
                                 context.runtime + function + *speculated + arguments + "\n" +
                                 indent + "el" + std::string(node_text(context, *guard))});
    outcome.fixed = true;
    return outcome;
  }
  if (!split) {
    return Outcome::declined(
        reasons::Reason::NotTensor,
        "the condition is not a tensor expression (an operand is not shown to be a tensor, or "
        "an and/or operand Python may skip is not pure)");
  }
  outcome.edits.push_back({guard->test->begin, guard->test->end, split->prefix});
  outcome.edits.push_back(
      {raise->begin, raise->end, context.runtime + function + split->tensor_part + arguments});
  outcome.fixed = true;
  return outcome;
}

Outcome deferred_guard(const sema::BreakTag& tag, Context& context, const ast::If& guard) {
  if (guard.body.size < 2)
    return Outcome::declined(reasons::Reason::Other, "the guard holds only its raise");
  const auto* raise = ast::as<ast::Raise>(guard.body[guard.body.size - 1]);
  if (raise == nullptr)
    return Outcome::declined(reasons::Reason::Other, "the guard does not end in its raise");
  if (!tag.assumed && !context.analysis.is_data_dependent(*guard.test))
    return Outcome::declined(reasons::Reason::NotDataDependent,
                             "the condition is not data-dependent");
  GuardRaise form = guard_raise(context, guard, *raise, {});
  if (!form.problem.empty()) return Outcome::declined(form.reason, form.problem);
  return defer_guard(tag, context, form);
}

}  // namespace

}  // namespace graphmend::rewrite

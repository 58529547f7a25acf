// The in-graph form of a guard's `raise` (guard_raise.h): the exception class it raises, looked
// up where the raise stands, and its message, a literal or one formatted from values other
// than tensors.
#include "rewrite/guard_raise.h"

#include <algorithm>
#include <string>
#include <unordered_set>
#include <vector>

#include "ast/walk.h"

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

}  // namespace

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

}  // namespace graphmend::rewrite

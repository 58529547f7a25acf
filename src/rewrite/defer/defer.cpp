// [Defer]: a print / logging / warnings.warn call inside a traced function is replaced by
// a call that records it while compiling and replays it after the compiled region returns
// (python/graphmend/runtime/defer.py: defer, defer_format). Outside compilation the runtime calls
// the callee at once, so eager behaviour is unchanged.
//
// clang-format off
//   print(a, b, sep="")         ->  __graphmend_rt__.defer(("f.py", 12, "forward"), print, a, b, sep="")
//   logger.info(f"x={x:.3f}")   ->  __graphmend_rt__.defer_format(("f.py", 12, "forward"),
//                                       logger.info, ((0, "x={0:.3f}"),), (x,))
// clang-format on
//
// Only the call's own bytes change: the callee and the opening parenthesis become the
// runtime call's head, and each f-string argument becomes the tuple of its field values
// (its template moves into the head, so formatting happens at replay, on snapshots).
#include "rewrite/defer/defer.h"

#include <string>
#include <vector>

#include "ast/dump.h"
#include "parse/parser.h"
#include "rewrite/rewrite.h"

namespace graphmend::rewrite {
namespace {

std::string python_string(std::string_view text) {
  ast::ConstantValue value;
  value.type = ast::ConstantValue::Type::Str;
  value.text = text;
  return constant_repr(value);
}

// The name of the function whose code object runs the call (its co_name).
std::string function_name(const Context& context, const ast::Node* node) {
  const sema::FunctionInfo* info = context.analysis.function_of(node);
  if (info == nullptr || info->node == nullptr) return "<module>";
  if (const auto* f = ast::as<ast::FunctionDef>(info->node)) return std::string(f->name);
  if (const auto* f = ast::as<ast::AsyncFunctionDef>(info->node)) return std::string(f->name);
  return "<module>";
}

// Statements at module scope (compound statements entered, function and class bodies not).
template <class Visit>
void for_each_module_scope_statement(const ast::Seq<ast::stmt*>& body, Visit&& visit) {
  for (const ast::stmt* statement : body) {
    visit(statement);
    ast::for_each_block(statement, [&](const ast::Seq<ast::stmt*>& inner) {
      for_each_module_scope_statement(inner, visit);
    });
  }
}

// Whether `name` is bound by an import at module scope (CPython then does not compile
// `name.attr(...)` as a method call, which changes the line it reports for the call).
bool imported_at_module_scope(const ast::Module& module, std::string_view name) {
  bool found = false;
  for_each_module_scope_statement(module.body, [&](const ast::stmt* statement) {
    auto check = [&](const ast::Seq<ast::alias*>& names, bool dotted_binds_first) {
      for (const ast::alias* alias : names) {
        std::string_view bound = alias->asname.empty() ? alias->name : alias->asname;
        if (alias->asname.empty() && dotted_binds_first) bound = bound.substr(0, bound.find('.'));
        if (bound == name) found = true;
      }
    };
    if (const auto* s = ast::as<ast::Import>(statement)) check(s->names, true);
    if (const auto* s = ast::as<ast::ImportFrom>(statement)) check(s->names, false);
  });
  return found;
}

// The line CPython reports (frame.f_lineno) while the call runs: the call's first line,
// except for calls compiled as method calls, which report the line of the method name.
uint32_t reported_line(const Context& context, const ast::Call& call) {
  uint32_t line = context.source.line_col(call.begin).line;
  const auto* method = ast::as<ast::Attribute>(call.func);
  if (method == nullptr) return line;
  for (const ast::expr* arg : call.args) {
    if (ast::is<ast::Starred>(arg)) return line;
  }
  for (const ast::keyword* keyword : call.keywords) {
    if (keyword->arg.empty()) return line;
  }
  if (const auto* base = ast::as<ast::Name>(method->value);
      base && imported_at_module_scope(context.module, base->id)) {
    return line;
  }
  return context.source.line_col(method->end).line;
}

// Offset just past the opening parenthesis of `call`'s argument list.
std::optional<uint32_t> after_open_paren(const Context& context, const ast::Call& call) {
  std::string_view text = context.source.text();
  size_t i = call.func->end;
  while (i < call.end && i < text.size()) {
    char c = text[i];
    if (c == '(') return static_cast<uint32_t>(i + 1);
    if (c == '#') {
      while (i < text.size() && text[i] != '\n' && text[i] != '\r') ++i;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\f' || c == '\n' || c == '\r' || c == '\\' || c == ')') {
      ++i;
      continue;
    }
    return std::nullopt;
  }
  return std::nullopt;
}

// The module-level class `call` instantiates, if any (`Config(...)`).
const ast::ClassDef* instantiated_class(const Context& context, const ast::expr* value) {
  const auto* call = ast::as<ast::Call>(value);
  if (call == nullptr) return nullptr;
  const auto* name = ast::as<ast::Name>(call->func);
  if (name == nullptr) return nullptr;
  for (const ast::stmt* statement : context.module.body) {
    const auto* class_def = ast::as<ast::ClassDef>(statement);
    if (class_def && class_def->name == name->id) return class_def;
  }
  return nullptr;
}

// Calls visit(target, value) for every `target = value` in `body`, nested blocks included
// (function and class bodies not).
template <class Visit>
void for_each_assignment(const ast::Seq<ast::stmt*>& body, Visit&& visit) {
  for (const ast::stmt* statement : body) {
    if (const auto* assign = ast::as<ast::Assign>(statement)) {
      for (const ast::expr* target : assign->targets) visit(target, assign->value);
    } else if (const auto* annotated = ast::as<ast::AnnAssign>(statement)) {
      if (annotated->value) visit(annotated->target, annotated->value);
    }
    ast::for_each_block(
        statement, [&](const ast::Seq<ast::stmt*>& inner) { for_each_assignment(inner, visit); });
  }
}

const ast::Seq<ast::stmt*>* function_body(const ast::Node* function) {
  if (const auto* f = ast::as<ast::FunctionDef>(function)) return &f->body;
  if (const auto* f = ast::as<ast::AsyncFunctionDef>(function)) return &f->body;
  return nullptr;
}

// Whether `e` is shown to hold an instance of a class of this module: a name assigned
// `Cls(...)` in the function or at module level, or `self.attr` assigned `Cls(...)` in a
// method of the enclosing class. Such objects format through their own __str__/__repr__,
// which may read state that changes before the replay.
bool is_user_object(const Context& context, const ast::expr& e) {
  const sema::FunctionInfo* info = context.analysis.function_of(&e);
  bool found = false;
  if (const auto* name = ast::as<ast::Name>(&e)) {
    auto check = [&](const ast::expr* target, const ast::expr* value) {
      const auto* assigned = ast::as<ast::Name>(target);
      if (assigned && assigned->id == name->id && instantiated_class(context, value)) found = true;
    };
    if (info != nullptr) {
      if (const auto* body = function_body(info->node)) for_each_assignment(*body, check);
    }
    for_each_assignment(context.module.body, check);
    return found;
  }
  const auto* attribute = ast::as<ast::Attribute>(&e);
  if (attribute == nullptr || info == nullptr || info->owner_class == nullptr) return false;
  const auto* base = ast::as<ast::Name>(attribute->value);
  if (base == nullptr || base->id != "self") return false;
  for (const ast::stmt* member : info->owner_class->body) {
    const auto* body = function_body(member);
    if (body == nullptr) continue;
    for_each_assignment(*body, [&](const ast::expr* target, const ast::expr* value) {
      const auto* assigned = ast::as<ast::Attribute>(target);
      if (assigned == nullptr || assigned->attr != attribute->attr) return;
      const auto* owner = ast::as<ast::Name>(assigned->value);
      if (owner && owner->id == "self" && instantiated_class(context, value)) found = true;
    });
  }
  return found;
}

bool is_standard_stream(const ast::expr& e) {
  if (const auto* constant = ast::as<ast::Constant>(&e)) {
    return constant->value.type == ast::ConstantValue::Type::None;
  }
  const auto* attribute = ast::as<ast::Attribute>(&e);
  if (attribute == nullptr || (attribute->attr != "stdout" && attribute->attr != "stderr")) {
    return false;
  }
  const auto* base = ast::as<ast::Name>(attribute->value);
  return base != nullptr && base->id == "sys";
}

// The innermost `with` around `node` in `body` whose context managers are not all torch
// calls (torch.no_grad(), torch.autocast(...)): it may redirect output or change logging.
const ast::Node* enclosing_foreign_with(const Context& context, const ast::Seq<ast::stmt*>& body,
                                        const ast::Node& node) {
  for (const ast::stmt* statement : body) {
    if (statement->begin > node.begin || statement->end < node.end) continue;
    const ast::Node* found = nullptr;
    auto inner = [&](const ast::Seq<ast::stmt*>& nested) {
      if (!found) found = enclosing_foreign_with(context, nested, node);
    };
    auto check_items = [&](const ast::Seq<ast::withitem*>& items,
                           const ast::Seq<ast::stmt*>& nested) {
      inner(nested);
      if (found) return;
      std::string torch_prefix = std::string(context.analysis.torch_name()) + ".";
      for (const ast::withitem* item : items) {
        std::string_view text = node_text(context, *item->context_expr);
        if (context.analysis.torch_name().empty() ||
            text.substr(0, torch_prefix.size()) != torch_prefix) {
          found = statement;
          return;
        }
      }
    };
    if (const auto* s = ast::as<ast::With>(statement))
      check_items(s->items, s->body);
    else if (const auto* s = ast::as<ast::AsyncWith>(statement))
      check_items(s->items, s->body);
    else if (const auto* s = ast::as<ast::If>(statement)) {
      inner(s->body);
      inner(s->orelse);
    } else if (const auto* s = ast::as<ast::For>(statement)) {
      inner(s->body);
      inner(s->orelse);
    } else if (const auto* s = ast::as<ast::While>(statement)) {
      inner(s->body);
      inner(s->orelse);
    } else if (const auto* s = ast::as<ast::Try>(statement)) {
      inner(s->body);
      for (const ast::excepthandler* h : s->handlers) {
        if (const auto* handler = ast::as<ast::ExceptHandler>(h)) inner(handler->body);
      }
      inner(s->orelse);
      inner(s->finalbody);
    }
    return found;
  }
  return nullptr;
}

// The comma between the runtime call's head and the original first argument at `offset`:
// no space when the original already has whitespace there (no trailing blanks).
std::string separator_before(const Context& context, uint32_t offset) {
  std::string_view text = context.source.text();
  if (offset < text.size() && (text[offset] == ' ' || text[offset] == '\t' ||
                               text[offset] == '\n' || text[offset] == '\r')) {
    return ",";
  }
  return ", ";
}

// Why formatting `e` at replay time might show something else than formatting it at the
// call would, or empty. Values are snapshotted (tensors cloned, lists and dicts copied) and
// the runtime calls at once any value it cannot snapshot; what is refused here are the
// objects known to format through user code: `self`, instances of the module's classes.
std::optional<reasons::Problem> unstable_formatting(const Context& context, const ast::expr& e) {
  if (const auto* name = ast::as<ast::Name>(&e);
      name && (name->id == "self" || name->id == "cls")) {
    return reasons::Problem{reasons::Reason::UserObjectStr,
                            "argument `" + std::string(name->id) +
                                "` is a user object whose formatting reads mutable state at "
                                "replay time"};
  }
  if (is_user_object(context, e)) {
    return reasons::Problem{reasons::Reason::UserObjectStr,
                            "argument `" + std::string(node_text(context, e)) +
                                "` is an instance of a class of this module, whose formatting "
                                "may read mutable state at replay time"};
  }
  if (ast::is<ast::GeneratorExp>(&e) || ast::is<ast::Lambda>(&e) || ast::is<ast::Yield>(&e) ||
      ast::is<ast::YieldFrom>(&e) || ast::is<ast::Await>(&e) || ast::is<ast::NamedExpr>(&e)) {
    return reasons::Problem{reasons::Reason::UserObjectStr,
                            "argument `" + std::string(node_text(context, e)) +
                                "` is not a plain value (generator, lambda, await, yield or "
                                "assignment)"};
  }
  return std::nullopt;
}

// The source text of an f-string field's expression, checked to mean the same thing
// when parsed on its own (f-string positions are the least trusted ones).
std::optional<std::string> field_text(const Context& context, const ast::expr& value) {
  std::string text(node_text(context, value));
  if (text.empty()) return std::nullopt;
  SourceText wrapped("(" + text + "\n)\n");
  Arena arena;
  ParseResult parsed = parse_module(wrapped, arena, ParseOptions{context.options.version});
  if (!parsed.module || parsed.error || parsed.module->body.size != 1) return std::nullopt;
  const auto* statement = ast::as<ast::Expr>(parsed.module->body[0]);
  if (statement == nullptr) return std::nullopt;
  DumpOptions options{false, context.options.version};
  if (dump_ast(statement->value, wrapped, options) != dump_ast(&value, context.source, options)) {
    return std::nullopt;
  }
  return text;
}

// `"...".format(a, b)` with positional arguments only: the literal, else null.
const ast::Constant* format_literal(const ast::expr& e) {
  const auto* call = ast::as<ast::Call>(&e);
  const auto* method = call ? ast::as<ast::Attribute>(call->func) : nullptr;
  if (method == nullptr || method->attr != "format" || !call->keywords.empty()) return nullptr;
  for (const ast::expr* arg : call->args)
    if (ast::is<ast::Starred>(arg)) return nullptr;
  const auto* literal = ast::as<ast::Constant>(method->value);
  return literal && literal->value.type == ast::ConstantValue::Type::Str ? literal : nullptr;
}

// Literal text of an f-string, as str.format template text.
void append_literal(std::string& out, std::string_view text) {
  for (char c : text) {
    out += c;
    if (c == '{' || c == '}') out += c;
  }
}

// An f-string as a str.format template over its field values, or a reason it cannot be.
struct FormatTemplate {
  std::string text;
  bool raw = false;  // no template: the one value itself, converted (`None` in the spec)
  std::vector<const ast::expr*> values;
  std::optional<reasons::Problem> problem;
  void fail(std::string detail) { problem = {reasons::Reason::FString, std::move(detail)}; }
};

void append_field(FormatTemplate& out, const ast::FormattedValue& field, bool nested);

void append_parts(FormatTemplate& out, const ast::JoinedStr& joined, bool in_spec) {
  for (const ast::expr* part : joined.values) {
    if (out.problem) return;
    if (const auto* constant = ast::as<ast::Constant>(part)) {
      if (constant->value.type != ast::ConstantValue::Type::Str) {
        out.fail("an f-string part is not text");
        return;
      }
      if (in_spec && constant->value.text.find_first_of("{}") != std::string_view::npos) {
        out.fail("an f-string format spec holds a brace");
        return;
      }
      append_literal(out.text, constant->value.text);
    } else if (const auto* field = ast::as<ast::FormattedValue>(part)) {
      append_field(out, *field, in_spec);
    } else {
      out.fail("an f-string part is neither text nor a field");
    }
  }
}

void append_field(FormatTemplate& out, const ast::FormattedValue& field, bool nested) {
  out.text += '{';
  out.text += std::to_string(out.values.size());
  out.values.push_back(field.value);
  switch (field.conversion) {
    case 's':
      out.text += "!s";
      break;
    case 'r':
      out.text += "!r";
      break;
    case 'a':
      out.text += "!a";
      break;
    case -1:
      break;
    default:
      out.fail("unknown f-string conversion");
      return;
  }
  if (const auto* spec = ast::as<ast::JoinedStr>(field.format_spec)) {
    if (nested) {
      // str.format allows one level of nested fields; deeper specs stay in the f-string.
      for (const ast::expr* part : spec->values) {
        if (!ast::is<ast::Constant>(part)) {
          out.fail("an f-string nests format specs too deeply for str.format");
          return;
        }
      }
    }
    out.text += ':';
    append_parts(out, *spec, true);
  } else if (field.format_spec != nullptr) {
    out.fail("an f-string format spec is not a string");
    return;
  }
  out.text += '}';
}

bool has_fields(const ast::JoinedStr& joined) {
  for (const ast::expr* part : joined.values) {
    if (ast::is<ast::FormattedValue>(part)) return true;
  }
  return false;
}

// What the callee is, from the tag and the resolver, or a reason to decline.
std::optional<reasons::Problem> check_print(const sema::Callee& callee) {
  if (callee.kind != sema::CalleeKind::Print)
    return reasons::Problem{reasons::Reason::CalleeUnknown,
                            "the callee is not shown to be the builtin print"};
  return std::nullopt;
}

std::optional<reasons::Problem> check_warning(const sema::Callee& callee, const ast::Call& call) {
  if (callee.kind != sema::CalleeKind::WarningsWarn)
    return reasons::Problem{reasons::Reason::CalleeUnknown,
                            "the callee is not shown to be warnings.warn"};
  // A stacklevel is resolved by the runtime: from the traced frames, or at once where they
  // cannot name the frame (runtime/sites.py, _inlined_site).
  for (const ast::keyword* keyword : call.keywords) {
    if (keyword->arg == "skip_file_prefixes")
      return reasons::Problem{reasons::Reason::CallerFrame,
                              "warnings.warn with skip_file_prefixes names a caller's frame"};
  }
  return std::nullopt;
}

std::optional<reasons::Problem> check_logging(const sema::Callee& callee, const ast::Call& call) {
  if (callee.kind != sema::CalleeKind::LoggerMethod)
    return reasons::Problem{reasons::Reason::CalleeUnknown,
                            "the callee is not shown to be a logger method"};
  std::string_view method = callee.qualified_name;
  if (const auto* attribute = ast::as<ast::Attribute>(call.func)) method = attribute->attr;
  if (method.size() >= 9 && method.substr(method.size() - 9) == "exception") {
    return reasons::Problem{reasons::Reason::CallerFrame,
                            "logger.exception records the exception being handled at the call"};
  }
  for (const ast::keyword* keyword : call.keywords) {
    std::string_view argument = keyword->arg;
    const char* names_the_caller =
        argument == "exc_info"     ? "exc_info refers to the exception being handled at the call"
        : argument == "stack_info" ? "stack_info records the stack at the call"
        : argument == "stacklevel" ? "stacklevel names a caller's frame"
                                   : nullptr;
    if (names_the_caller) return reasons::Problem{reasons::Reason::CallerFrame, names_the_caller};
  }
  return std::nullopt;
}

// The `if` whose body holds `statement` directly, searching `body` and its nested blocks.
const ast::If* if_holding(const ast::Seq<ast::stmt*>& body, const ast::stmt& statement) {
  for (const ast::stmt* s : body) {
    if (s->begin > statement.begin || s->end < statement.end || s == &statement) continue;
    if (const auto* branch = ast::as<ast::If>(s)) {
      for (const ast::stmt* inner : branch->body)
        if (inner == &statement) return branch;
    }
    const ast::If* found = nullptr;
    ast::for_each_body(s, [&](const ast::Seq<ast::stmt*>& nested) {
      if (found == nullptr) found = if_holding(nested, statement);
    });
    return found;
  }
  return nullptr;
}

// The logging level a logger method emits at (`warn` is `warning`), or empty.
std::string_view method_level(std::string_view method) {
  if (method == "debug") return "DEBUG";
  if (method == "info") return "INFO";
  if (method == "warning" || method == "warn") return "WARNING";
  if (method == "error") return "ERROR";
  if (method == "critical" || method == "fatal") return "CRITICAL";
  return {};
}

// `logger.<method>(...)` with arguments Python may evaluate unconditionally: the method's
// level, else empty.
std::string_view pure_logging_level(const Context& context, const ast::stmt& statement,
                                    std::string_view logger) {
  const auto* expression = ast::as<ast::Expr>(&statement);
  const auto* call = expression ? ast::as<ast::Call>(expression->value) : nullptr;
  const auto* method = call ? ast::as<ast::Attribute>(call->func) : nullptr;
  if (method == nullptr || node_text(context, *method->value) != logger) return {};
  auto pure = [&](const ast::expr* e) {
    if (const auto* joined = ast::as<ast::JoinedStr>(e)) {
      for (const ast::expr* part : joined->values)
        if (const auto* field = ast::as<ast::FormattedValue>(part);
            field && !context.analysis.is_pure(*field->value))
          return false;
      return true;
    }
    return context.analysis.is_pure(*e);
  };
  for (const ast::expr* arg : call->args)
    if (ast::is<ast::Starred>(arg) || !pure(arg)) return {};
  for (const ast::keyword* k : call->keywords)
    if (k->arg.empty() || !pure(k->value)) return {};
  return method_level(method->attr);
}

// `if logger.isEnabledFor(logging.L):` over a body of `logger.<method at L>(...)` calls whose
// arguments are pure: each logger method tests its level itself, so the body may run
// without the test. While compiling the test becomes `runtime.is_compiling() or <test>`
// (Dynamo breaks on isEnabledFor; the deferred calls test the level when they replay);
// eagerly it is the test as written. Made by the body's first call.
void lift_level_test(const sema::BreakTag& tag, Context& context, Outcome& outcome) {
  const sema::FunctionInfo* info = context.analysis.function_of(tag.statement);
  const auto* body = info ? function_body(info->node) : nullptr;
  const ast::If* branch = body ? if_holding(*body, *tag.statement) : nullptr;
  if (branch == nullptr || branch->body[0] != tag.statement || !branch->orelse.empty()) return;
  const auto* test = ast::as<ast::Call>(branch->test);
  const auto* method = test ? ast::as<ast::Attribute>(test->func) : nullptr;
  if (method == nullptr || method->attr != "isEnabledFor" || test->args.size != 1 ||
      !test->keywords.empty())
    return;
  std::string_view logger = node_text(context, *method->value);
  std::string_view level = node_text(context, *test->args[0]);
  size_t dot = level.rfind('.');
  std::string_view level_name = dot == std::string_view::npos ? level : level.substr(dot + 1);
  for (const ast::stmt* statement : branch->body)
    if (pure_logging_level(context, *statement, logger) != level_name) return;
  outcome.edits.insert(outcome.edits.begin(), {branch->test->begin, branch->test->begin,
                                               context.runtime + ".is_compiling() or "});
}

std::optional<reasons::Problem> check_callee(const sema::BreakTag& tag, const Context& context,
                                             const ast::Call& call) {
  sema::Callee callee = context.analysis.resolve_call(call);
  if (tag.kind == sema::BreakKind::PrintCall) return check_print(callee);
  if (tag.kind == sema::BreakKind::WarningsCall) return check_warning(callee, call);
  if (tag.kind == sema::BreakKind::LoggingCall) return check_logging(callee, call);
  return reasons::Problem{reasons::Reason::CalleeUnknown, "not a print, logging or warnings call"};
}

}  // namespace

std::optional<sema::BreakKind> deferrable_kind(const Context& context, const ast::Call& call) {
  switch (context.analysis.resolve_call(call).kind) {
    case sema::CalleeKind::Print:
      return sema::BreakKind::PrintCall;
    case sema::CalleeKind::LoggerMethod:
      return sema::BreakKind::LoggingCall;
    case sema::CalleeKind::WarningsWarn:
      return sema::BreakKind::WarningsCall;
    default:
      return std::nullopt;
  }
}

namespace {

// A declined print stays in place, and Dynamo runs it at a graph break, while calls
// deferred earlier in the same compiled region are still pending: they would come out
// after it. The declined print is therefore routed through the runtime's call_now, which
// replays the pending records first and then calls print itself (a break, as before).
void keep_order(const sema::BreakTag& tag, Context& context, Outcome& outcome) {
  const auto* call = ast::as<ast::Call>(tag.site);
  if (tag.kind != sema::BreakKind::PrintCall || call == nullptr) return;
  if (context.analysis.resolve_call(*call).kind != sema::CalleeKind::Print) return;
  std::optional<uint32_t> open = after_open_paren(context, *call);
  if (!open) return;
  // Inside a foreign `with` (a redirection), earlier records would be replayed into it.
  if (const sema::FunctionInfo* info = context.analysis.function_of(call)) {
    const auto* body = function_body(info->node);
    if (body && enclosing_foreign_with(context, *body, *call)) return;
  }
  std::string head = context.runtime + ".call_now(" + std::string(node_text(context, *call->func));
  if (call->args.size > 0 || call->keywords.size > 0) head += separator_before(context, *open);
  outcome.edits = {{call->begin, *open, head}};
  outcome.needs_runtime = true;
}

// The deferral of one call statement (defer_call), in named steps: the checks of the site,
// then each argument (a formatted one becomes a spec and the tuple of its values), then the
// head that calls the runtime.
class CallDeferral {
 public:
  CallDeferral(const sema::BreakTag& tag, const Context& context, std::string_view condition)
      : tag_(tag), context_(context), condition_(condition) {}

  Outcome run() {
    if (std::optional<reasons::Problem> problem = check_site()) return declined(*problem);
    if (std::optional<reasons::Problem> problem = defer_positional()) return declined(*problem);
    if (std::optional<reasons::Problem> problem = defer_keywords()) return declined(*problem);
    outcome_.edits.push_back({call_->begin, open_, head()});
    outcome_.fixed = true;
    outcome_.needs_runtime = true;
    return std::move(outcome_);
  }

 private:
  static Outcome declined(const reasons::Problem& problem) {
    return Outcome::declined(problem.reason, problem.detail);
  }

  // The call is a statement of its own, of a known callee; inside a `with` that may
  // redirect its output, deferred behind the run-time check of defer_within.
  std::optional<reasons::Problem> check_site() {
    call_ = ast::as<ast::Call>(tag_.site);
    if (call_ == nullptr)
      return reasons::Problem{reasons::Reason::Other, "the break site is not a call"};
    const auto* statement = ast::as<ast::Expr>(tag_.statement);
    if (statement == nullptr || statement->value != call_)
      return reasons::Problem{reasons::Reason::ResultUsed,
                              "the call's result is used (it is not a statement of its own)"};
    if (std::optional<reasons::Problem> problem = check_callee(tag_, context_, *call_))
      return problem;
    std::optional<uint32_t> open = after_open_paren(context_, *call_);
    if (!open)
      return reasons::Problem{reasons::Reason::Internal,
                              "internal: the call's argument list was not found"};
    open_ = *open;
    return check_with();
  }

  // Inside a `with` of a manager not torch's, the call is recorded only while sys.stdout
  // and sys.stderr are the compile boundary's (runtime.defer_within: Dynamo resolves the
  // check while tracing; a manager that changes logging or warning filters is not traced).
  // A conditional call or one in `async with` is declined.
  std::optional<reasons::Problem> check_with() {
    const sema::FunctionInfo* info = context_.analysis.function_of(call_);
    const auto* body = info != nullptr ? function_body(info->node) : nullptr;
    if (body == nullptr) return std::nullopt;
    const ast::Node* with = enclosing_foreign_with(context_, *body, *call_);
    if (with == nullptr) return std::nullopt;
    if (condition_.empty() && ast::is<ast::With>(with)) {
      within_ = true;
      return std::nullopt;
    }
    std::string_view text = node_text(context_, *with);
    text = text.substr(0, text.find_first_of("\r\n"));
    return reasons::Problem{reasons::Reason::InsideWith,
                            "the call is inside `" + std::string(text) +
                                "`, which may redirect its output or change logging until it "
                                "exits"};
  }

  std::optional<reasons::Problem> defer_positional() {
    bool after_star = false;
    for (uint32_t i = 0; i < call_->args.size; ++i) {
      const ast::expr* arg = call_->args[i];
      if (const auto* starred = ast::as<ast::Starred>(arg)) {
        after_star = true;
        if (std::optional<reasons::Problem> problem =
                unstable_formatting(context_, *starred->value))
          return problem;
        continue;
      }
      if (after_star && ast::is<ast::JoinedStr>(arg))
        return reasons::Problem{reasons::Reason::FString,
                                "an f-string argument follows *args (its position is not known)"};
      if (std::optional<reasons::Problem> problem = defer_argument(*arg, std::to_string(i)))
        return problem;
    }
    return std::nullopt;
  }

  std::optional<reasons::Problem> defer_keywords() {
    for (const ast::keyword* keyword : call_->keywords) {
      if (keyword->arg.empty()) {
        if (std::optional<reasons::Problem> problem =
                unstable_formatting(context_, *keyword->value))
          return problem;
        continue;
      }
      if (keyword->arg == "file") {
        // A stream written to at replay: only the standard ones, which the function cannot
        // read back (a StringIO it reads later would miss the text).
        if (!is_standard_stream(*keyword->value))
          return reasons::Problem{reasons::Reason::OtherStream,
                                  "print writes to a stream other than sys.stdout/sys.stderr, "
                                  "which the program may read back before the replay"};
        continue;
      }
      if (std::optional<reasons::Problem> problem =
              defer_argument(*keyword->value, python_string(keyword->arg)))
        return problem;
    }
    return std::nullopt;
  }

  // One argument: a format call, an f-string with fields or (for print) `X.item()` is
  // deferred as a spec; any other value must format the same at the replay.
  std::optional<reasons::Problem> defer_argument(const ast::expr& value, const std::string& key) {
    if (const ast::Constant* literal = format_literal(value)) {
      FormatTemplate format;
      format.text = std::string(literal->value.text);
      for (const ast::expr* arg : ast::as<ast::Call>(&value)->args) format.values.push_back(arg);
      return defer_formatting(value, key, format, true);
    }
    if (context_.analysis.scalar_read(value).tensor != nullptr) {
      // print(x.item()) prints str(x.item()); a logger or warnings.warn is handed the
      // number itself (`%.3f`, `%d` format it); float(x), int(x), bool(x) the same
      FormatTemplate format;
      format.text = "{0!s}";
      format.raw = tag_.kind != sema::BreakKind::PrintCall;
      format.values.push_back(&value);
      return defer_formatting(value, key, format, true);
    }
    const auto* joined = ast::as<ast::JoinedStr>(&value);
    if (joined == nullptr || !has_fields(*joined)) return unstable_formatting(context_, value);
    FormatTemplate format;
    append_parts(format, *joined, false);
    if (format.problem) return format.problem;
    return defer_formatting(value, key, format, false);
  }

  // A formatted argument becomes a (key, template[, conversions]) spec and the tuple of its
  // values; a value the original converts to a Python scalar (sema::scalar_read: `X.item()`,
  // `float(X)`, `int(X)`, `bool(X)`) becomes X, converted at the replay
  // (runtime._apply_formats): its index, or (index, builtin name).
  std::optional<reasons::Problem> defer_formatting(const ast::expr& value, const std::string& key,
                                                   const FormatTemplate& format, bool from_source) {
    std::string tuple = "(";
    std::string items;
    for (size_t i = 0; i < format.values.size(); ++i) {
      const ast::expr* field = format.values[i];
      if (sema::ScalarRead read = context_.analysis.scalar_read(*field); read.tensor != nullptr) {
        items += read.read == "item"
                     ? std::to_string(i) + ", "
                     : "(" + std::to_string(i) + ", " + python_string(read.read) + "), ";
        outcome_.absorbed.push_back(field);
        field = read.tensor;
      }
      if (std::optional<reasons::Problem> problem = unstable_formatting(context_, *field))
        return problem;
      std::optional<std::string> text =
          from_source ? std::optional<std::string>(node_text(context_, *field))
                      : field_text(context_, *field);
      if (!text)
        return reasons::Problem{reasons::Reason::FString,
                                "an f-string field's source text could not be recovered exactly"};
      tuple += *text;
      tuple += ", ";
    }
    if (format.values.size() > 1)
      tuple.resize(tuple.size() - 2);
    else
      tuple.pop_back();  // keep the comma of a 1-tuple
    tuple += ")";
    std::string spec = "(" + key + ", " + (format.raw ? "None" : python_string(format.text));
    if (!items.empty()) spec += ", (" + items + ")";
    specs_.push_back(spec + ")");
    outcome_.edits.push_back({value.begin, value.end, tuple});
    return std::nullopt;
  }

  // `<runtime>.defer[_format][_when](<condition>, ]<site>, <callee>[, (<specs>)]` in place of
  // the call's head, up to its first argument.
  std::string head() const {
    std::string site = "(" + python_string(context_.source.filename()) + ", " +
                       std::to_string(reported_line(context_, *call_)) + ", " +
                       python_string(function_name(context_, call_)) + ")";
    std::string head = context_.runtime + (specs_.empty() ? ".defer" : ".defer_format") +
                       (within_ ? "_within" : "") +
                       (condition_.empty() ? "(" : "_when(" + std::string(condition_) + ", ") +
                       site + ", " + std::string(node_text(context_, *call_->func));
    if (!specs_.empty()) {
      head += ", (";
      for (const std::string& spec : specs_) head += spec + ", ";
      if (specs_.size() > 1)
        head.resize(head.size() - 2);
      else
        head.pop_back();
      head += ")";
    }
    if (call_->args.size > 0 || call_->keywords.size > 0) head += separator_before(context_, open_);
    return head;
  }

  const sema::BreakTag& tag_;
  const Context& context_;
  std::string_view condition_;
  const ast::Call* call_ = nullptr;
  uint32_t open_ = 0;    // just after the call's `(`
  bool within_ = false;  // inside a `with` of a manager not torch's
  Outcome outcome_;
  // f-string arguments: (key, template) pairs for the head, field tuples in place.
  std::vector<std::string> specs_;
};

}  // namespace

std::optional<Outcome> rewrite_defer(const sema::BreakTag& tag, Context& context) {
  if (tag.kind != sema::BreakKind::PrintCall && tag.kind != sema::BreakKind::LoggingCall &&
      tag.kind != sema::BreakKind::WarningsCall) {
    return std::nullopt;
  }
  Outcome outcome = defer_call(tag, context);
  if (outcome.fixed && tag.kind == sema::BreakKind::LoggingCall)
    lift_level_test(tag, context, outcome);
  if (!outcome.fixed) keep_order(tag, context, outcome);
  return outcome;
}

Outcome defer_call(const sema::BreakTag& tag, const Context& context, std::string_view condition) {
  return CallDeferral(tag, context, condition).run();
}

}  // namespace graphmend::rewrite

// [Defer] of a whole branch: a data-dependent `if` whose body only builds strings from
// static values and then prints, logs or warns (transformers'
// `warn_if_padding_and_no_attention_mask`):
//
// clang-format off
//   if pad in ids[:, [-1, 0]]:            if rt.defer_branch(__gm_c0 := rt.contains(pad, ids[:, [-1, 0]]),
//       msg = "padded"                                        lambda: (self.cfg.bos,)) or __gm_c0:
//       if self.cfg.bos == pad:               msg = "padded"
//           msg += f" ({pad})"                if self.cfg.bos == pad:
//       logger.warning(msg)                       msg += f" ({pad})"
//                                             rt.defer_when(__gm_c0, site, logger.warning, msg)
// clang-format on
//
// While compiling, when the condition is a one-element tensor and every value the body
// reads from outside it (the lambda) is None, a bool, an int, a float, a str, a torch
// dtype or device,
// runtime.defer_branch is true: the body runs whatever the condition, which it may since
// on such values it has no side effect and cannot raise, and each call is recorded with the
// condition, to be replayed only if it holds. Otherwise (and always eagerly) the `if` tests
// the condition as written. Statically: the body holds only assignments to names nobody
// reads after the `if`, static `if`s, and deferrable calls; every expression outside the
// calls is built from constants, f-strings without format specs, `==`/`!=`/`is`, `and`/
// `or`/`not`, string concatenation, names, attribute chains and `getattr(x, "name", c)`.
#include <algorithm>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ast/walk.h"
#include "base/contains.h"
#include "rewrite/defer/branch_condition.h"
#include "rewrite/defer/defer.h"
#include "rewrite/rewrite.h"

namespace graphmend::rewrite {

using defer_detail::Condition;
using defer_detail::guard_condition;
using defer_detail::lower_condition_speculating;

namespace {

// Whether `e` is built only from string operations: a str literal, an f-string, `+` of
// such values, or a name of `strings`.
bool is_string(const ast::expr* e, const std::vector<std::string_view>& strings) {
  if (const auto* constant = ast::as<ast::Constant>(e))
    return constant->value.type == ast::ConstantValue::Type::Str;
  if (ast::is<ast::JoinedStr>(e)) return true;
  if (const auto* name = ast::as<ast::Name>(e)) return contains(strings, name->id);
  const auto* sum = ast::as<ast::BinOp>(e);
  return sum && sum->op == ast::OperatorKind::Add && is_string(sum->left, strings) &&
         is_string(sum->right, strings);
}

// Calls visit(name, value) for every assignment to a name in `body` (augmented ones
// included), nested static ifs too.
template <class Visit>
void for_each_name_assignment(const ast::Seq<ast::stmt*>& body, Visit&& visit) {
  for (const ast::stmt* statement : body) {
    if (const auto* assign = ast::as<ast::Assign>(statement)) {
      for (const ast::expr* target : assign->targets)
        if (const auto* name = ast::as<ast::Name>(target)) visit(name->id, assign->value);
    } else if (const auto* update = ast::as<ast::AugAssign>(statement)) {
      if (const auto* name = ast::as<ast::Name>(update->target)) visit(name->id, update->value);
    } else if (const auto* nested = ast::as<ast::If>(statement)) {
      for_each_name_assignment(nested->body, visit);
      for_each_name_assignment(nested->orelse, visit);
    }
  }
}

// The names `body` assigns only strings to (a fixpoint: `s += t` is a string when t is).
std::vector<std::string_view> string_names(const ast::Seq<ast::stmt*>& body) {
  std::vector<std::string_view> strings;
  for_each_name_assignment(body, [&](std::string_view name, const ast::expr*) {
    if (!contains(strings, name)) strings.push_back(name);
  });
  for (bool changed = true; changed;) {
    changed = false;
    for_each_name_assignment(body, [&](std::string_view name, const ast::expr* value) {
      if (contains(strings, name) && !is_string(value, strings)) {
        strings.erase(std::find(strings.begin(), strings.end(), name));
        changed = true;
      }
    });
  }
  return strings;
}

bool is_warning_category(std::string_view name) {
  static constexpr std::string_view kCategories[] = {
      "Warning",        "UserWarning",    "DeprecationWarning", "PendingDeprecationWarning",
      "SyntaxWarning",  "RuntimeWarning", "FutureWarning",      "ImportWarning",
      "UnicodeWarning", "BytesWarning",   "ResourceWarning",    "EncodingWarning"};
  return std::find(std::begin(kCategories), std::end(kCategories), name) != std::end(kCategories);
}

// Whether `body` makes a deferrable call statement anywhere (in nested blocks too).
bool makes_deferrable_call(const Context& context, const ast::Seq<ast::stmt*>& body) {
  for (const ast::stmt* statement : body) {
    const auto* expression = ast::as<ast::Expr>(statement);
    const auto* call = expression ? ast::as<ast::Call>(expression->value) : nullptr;
    if (call && deferrable_kind(context, *call)) return true;
    bool found = false;
    ast::for_each_block(statement, [&](const ast::Seq<ast::stmt*>& inner) {
      found = found || makes_deferrable_call(context, inner);
    });
    if (found) return true;
  }
  return false;
}

// The definition of the function of this module `call` calls when its body makes a
// deferrable call (a candidate deferring helper), else null.
const ast::FunctionDef* deferring_helper_of(const Context& context, const ast::Call& call) {
  sema::Callee callee = context.analysis.resolve_call(call);
  if (callee.kind != sema::CalleeKind::LocalFunction) return nullptr;
  const auto* def = ast::as<ast::FunctionDef>(callee.definition);
  return def && makes_deferrable_call(context, def->body) ? def : nullptr;
}

// nn.Module's walks over its members: a loop over one reads the module's dictionaries only
// (runtime._plain_module checks at run time that the module's class keeps them).
bool is_module_walk(std::string_view method) {
  static constexpr std::string_view kWalks[] = {
      "parameters", "named_parameters", "buffers", "named_buffers",
      "children",   "named_children",   "modules", "named_modules"};
  return std::find(std::begin(kWalks), std::end(kWalks), method) != std::end(kWalks);
}

// The parameters of a deferring helper as one call binds them, and what the helper may hand
// its deferrable calls: parameters, constants, builtin warning classes, f-strings of
// parameters, and an int parameter plus or minus a constant (`stacklevel + 1`).
class HelperParameters {
 public:
  // Binds the call's arguments (else each parameter's default); why it cannot, or empty.
  std::string bind(const ast::FunctionDef& def, const ast::Call& call) {
    const ast::arguments& params = *def.args;
    if (params.vararg || params.kwarg || !params.kwonlyargs.empty())
      return "the function takes *args, **kwargs or keyword-only parameters";
    names_.assign(params.posonlyargs.begin(), params.posonlyargs.end());
    names_.insert(names_.end(), params.args.begin(), params.args.end());
    if (call.args.size > names_.size()) return "the call passes more arguments than it takes";
    values_.assign(names_.size(), nullptr);
    size_t first_default = names_.size() - params.defaults.size;
    for (size_t i = first_default; i < names_.size(); ++i)
      values_[i] = params.defaults[i - first_default];
    for (size_t i = 0; i < call.args.size; ++i) {
      if (ast::is<ast::Starred>(call.args[i])) return "the call unpacks arguments";
      values_[i] = call.args[i];
    }
    for (const ast::keyword* keyword : call.keywords) {
      size_t index = index_of(keyword->arg);
      if (keyword->arg.empty() || index == names_.size())
        return "the call passes an argument the function does not name";
      values_[index] = keyword->value;
    }
    if (std::find(values_.begin(), values_.end(), nullptr) != values_.end())
      return "the call leaves a parameter without a value";
    return {};
  }

  bool is_parameter_name(std::string_view name) const { return index_of(name) < names_.size(); }

  // The parameter the call binds `argument` (one of its own arguments) to.
  std::string_view parameter_of(const ast::expr* argument) const {
    auto found = std::find(values_.begin(), values_.end(), argument);
    return found == values_.end() ? std::string_view{} : names_[found - values_.begin()]->arg;
  }

  // The call's argument for parameter `name`, or null (its default).
  bool bound_by_call(std::string_view name, const ast::Call& call) const {
    size_t index = index_of(name);
    if (index >= names_.size()) return false;
    for (const ast::expr* arg : call.args)
      if (arg == values_[index]) return true;
    for (const ast::keyword* keyword : call.keywords)
      if (keyword->value == values_[index]) return true;
    return false;
  }

  bool passes(const ast::expr& e) const {
    if (is_parameter(e) || ast::is<ast::Constant>(&e)) return true;
    if (const auto* name = ast::as<ast::Name>(&e); name && is_warning_category(name->id))
      return true;
    if (const auto* joined = ast::as<ast::JoinedStr>(&e)) {
      return std::all_of(joined->values.begin(), joined->values.end(), [&](const ast::expr* p) {
        const auto* field = ast::as<ast::FormattedValue>(p);
        return field == nullptr || (is_parameter(*field->value) && field->format_spec == nullptr);
      });
    }
    const auto* sum = ast::as<ast::BinOp>(&e);
    return sum && (sum->op == ast::OperatorKind::Add || sum->op == ast::OperatorKind::Sub) &&
           is_int_parameter(*sum->left) && is_int_constant(sum->right);
  }

 private:
  size_t index_of(std::string_view name) const {
    auto found = std::find_if(names_.begin(), names_.end(),
                              [&](const ast::arg* a) { return a->arg == name; });
    return static_cast<size_t>(found - names_.begin());
  }

  bool is_parameter(const ast::expr& e) const {
    const auto* name = ast::as<ast::Name>(&e);
    return name && index_of(name->id) < names_.size();
  }

  // A parameter the call (or its default) gives an int literal.
  bool is_int_parameter(const ast::expr& e) const {
    const auto* name = ast::as<ast::Name>(&e);
    size_t index = name ? index_of(name->id) : names_.size();
    return index < names_.size() && is_int_constant(values_[index]);
  }

  static bool is_int_constant(const ast::expr* e) {
    const auto* constant = ast::as<ast::Constant>(e);
    return constant && constant->value.type == ast::ConstantValue::Type::Int;
  }

  std::vector<const ast::arg*> names_;
  std::vector<const ast::expr*> values_;  // what the call binds to each parameter
};

// Walks the body of the `if`: what it reads from outside (the leaves, checked at run time),
// the calls it defers, or the first reason it cannot run whatever the condition.
class BodyCheck {
 public:
  // `guard`: the branch is a guard whose last statement is the raise that form lowers.
  BodyCheck(Context& context, const ast::If& branch, const GuardRaise* guard = nullptr)
      : context_(context),
        branch_(branch),
        guard_(guard),
        assigned_(context.analysis.assigned_names(branch.body)),
        strings_(string_names(branch.body)) {}

  bool run() {
    for (std::string_view name : context_.analysis.live_after(branch_)) {
      if (contains(assigned_, name))
        return fail(reasons::Reason::BranchLiveAfter,
                    "variable `" + std::string(name) + "` assigned in the branch is used after it");
    }
    std::vector<std::string_view> bound;
    if (!block(branch_.body, bound, /*tail=*/true)) return false;
    if (calls_.empty() && helpers_.empty())
      return fail(reasons::Reason::Other,
                  "the branch calls no print, logger method or warnings.warn");
    return true;
  }

  const std::vector<const ast::expr*>& leaves() const { return leaves_; }
  const std::vector<const ast::Call*>& calls() const { return calls_; }
  const std::vector<sema::BreakKind>& kinds() const { return kinds_; }
  const std::vector<const ast::stmt*>& statements() const { return statements_; }
  // A call of a deferring helper: the line of its `def`, the modules it walks.
  struct Helper {
    const ast::Call* call;
    uint32_t line;
    std::vector<const ast::expr*> modules;
  };
  const std::vector<Helper>& helpers() const { return helpers_; }
  // The deferring helpers' definitions, and those their own deferred branches call.
  const std::vector<const ast::Node*>& helper_definitions() const { return definitions_; }
  const ast::Raise* raise() const { return raise_; }
  // A raise ending an arm of a static if that ends the branch (`if not strict: warn(...)
  // else: raise E(msg)`), with its guard form: it raises only if the condition holds.
  struct TailRaise {
    const ast::Raise* raise;
    GuardRaise form;
  };
  const std::vector<TailRaise>& tail_raises() const { return tail_raises_; }
  // The first reason the branch cannot be deferred (after run() returned false).
  const reasons::Problem& problem() const { return *problem_; }

 private:
  bool fail(reasons::Reason reason, std::string detail) {
    if (!problem_) problem_ = reasons::Problem{reason, std::move(detail)};
    return false;
  }

  std::string quoted(const ast::Node& node) const {
    std::string text(node_text(context_, node));
    text = text.substr(0, text.find_first_of("\r\n"));
    return "`" + (text.size() > 60 ? text.substr(0, 60) + "..." : text) + "`";
  }

  // Names assigned earlier in the same or an enclosing block of the body stay bound; one a
  // nested if assigns is bound only inside it.
  // `tail`: the block ends the branch (nothing of the branch runs after its last statement).
  bool block(const ast::Seq<ast::stmt*>& body, std::vector<std::string_view> bound, bool tail) {
    for (size_t i = 0; i < body.size; ++i)
      if (!this->statement(*body[i], bound, tail && i + 1 == body.size)) return false;
    return true;
  }

  bool statement(const ast::stmt& s, std::vector<std::string_view>& bound, bool tail) {
    if (ast::is<ast::Pass>(&s)) return true;
    if (const auto* raise = ast::as<ast::Raise>(&s)) return raises(*raise, bound, tail);
    if (const auto* assign = ast::as<ast::Assign>(&s)) {
      const auto* target =
          assign->targets.size == 1 ? ast::as<ast::Name>(assign->targets[0]) : nullptr;
      if (target == nullptr)
        return fail(reasons::Reason::BranchNotStatic,
                    "an assignment to a target that is not one name: " + quoted(s));
      if (!value(*assign->value, bound)) return false;
      bound.push_back(target->id);
      return true;
    }
    if (const auto* update = ast::as<ast::AugAssign>(&s)) {
      const auto* target = ast::as<ast::Name>(update->target);
      if (target == nullptr || update->op != ast::OperatorKind::Add ||
          !contains(strings_, target->id) || !contains(bound, target->id))
        return fail(reasons::Reason::BranchNotStatic,
                    "an augmented assignment other than `+=` of strings to a name: " + quoted(s));
      return value(*update->value, bound);
    }
    if (const auto* nested = ast::as<ast::If>(&s)) {
      if (context_.analysis.is_data_dependent(*nested->test))
        return fail(reasons::Reason::BranchNotStatic,
                    "a data-dependent if nested in the branch: " + quoted(*nested->test));
      ++nesting_;
      bool ok = value(*nested->test, bound) && block(nested->body, bound, tail) &&
                block(nested->orelse, bound, tail);
      --nesting_;
      return ok;
    }
    const auto* expression = ast::as<ast::Expr>(&s);
    const auto* call = expression ? ast::as<ast::Call>(expression->value) : nullptr;
    std::optional<sema::BreakKind> kind = call ? deferrable_kind(context_, *call) : std::nullopt;
    if (!kind && call && deferring_helper_of(context_, *call)) return helper_call(*call, bound);
    if (!kind)
      return fail(reasons::Reason::BranchNotStatic,
                  "the branch holds " + quoted(s) +
                      ", neither a print, logging or warnings call nor an assignment of a name");
    calls_.push_back(call);
    statements_.push_back(&s);
    kinds_.push_back(*kind);
    for (const ast::expr* arg : call->args)
      if (!argument(*arg, bound)) return false;
    for (const ast::keyword* keyword : call->keywords)
      if (!argument(*keyword->value, bound)) return false;
    return true;
  }

  // A guard's raise, last in its body, or a raise ending an arm of a static if that ends the
  // branch: its message is formatted whatever the condition while compiling
  // (guard_formatted), from static values only.
  bool raises(const ast::Raise& raise, std::vector<std::string_view>& bound, bool tail) {
    if (guard_ != nullptr && nesting_ == 0 && &raise == branch_.body[branch_.body.size - 1]) {
      raise_ = &raise;
      return guard_->message == nullptr || value(*guard_->message, bound);
    }
    if (guard_ != nullptr || nesting_ == 0 || !tail)
      return fail(reasons::Reason::BranchRaises,
                  "the branch raises before its end: " + quoted(raise));
    GuardRaise form = guard_raise(context_, branch_, raise, {});
    if (!form.problem.empty()) return fail(form.reason, form.problem);
    if (form.message != nullptr && !value(*form.message, bound)) return false;
    tail_raises_.push_back({&raise, std::move(form)});
    return true;
  }

  // `helper(...)`: a function of this module that only makes deferrable calls from its
  // parameters. It runs whatever the condition with its calls recorded with the condition
  // (runtime.push_condition), so it is handed static values only, as the body computes them.
  bool helper_call(const ast::Call& call, const std::vector<std::string_view>& bound) {
    const auto& def = *deferring_helper_of(context_, call);
    HelperParameters parameters;
    std::vector<std::string_view> walked;  // the parameters holding the modules it walks
    if (std::string why = helper_problem(def, call, parameters, walked); !why.empty())
      return fail(reasons::Reason::BranchNotStatic,
                  "the branch calls " + quoted(call) + ": " + why);
    Helper helper{&call, context_.source.line_col(def.begin).line, {}};
    auto argument = [&](const ast::expr& arg) {
      if (!contains(walked, parameters.parameter_of(&arg))) return value(arg, bound);
      helper.modules.push_back(&arg);
      return module_leaf(arg);
    };
    for (const ast::expr* arg : call.args)
      if (!argument(*arg)) return false;
    for (const ast::keyword* keyword : call.keywords)
      if (!argument(*keyword->value)) return false;
    for (std::string_view module : walked)
      if (!parameters.bound_by_call(module, call))
        return fail(reasons::Reason::BranchNotStatic, "the branch calls " + quoted(call) +
                                                          ", which walks the default of `" +
                                                          std::string(module) + "`");
    helpers_.push_back(std::move(helper));
    definitions_.push_back(&def);
    return true;
  }

  // Why `def`, called as `call`, may do more than record its deferrable calls, or empty.
  std::string helper_problem(const ast::FunctionDef& def, const ast::Call& call,
                             HelperParameters& parameters, std::vector<std::string_view>& walked) {
    if (!def.decorator_list.empty()) return "the function is decorated";
    if (std::string why = parameters.bind(def, call); !why.empty()) return why;
    for (size_t i = 0; i < def.body.size; ++i) {
      const ast::stmt* statement = def.body[i];
      if (i == 0 && is_docstring(statement)) continue;
      if (std::string why = helper_statement_problem(*statement, parameters, walked); !why.empty())
        return why;
    }
    return {};
  }

  // Why `loop`, in a deferring helper, may do more than walk a module it is handed and defer
  // calls (a branch of its body deferred whole: Lightning's print_nan_gradients), or empty.
  std::string loop_problem(const ast::For& loop, const HelperParameters& parameters,
                           std::vector<std::string_view>& walked) {
    const auto* walk = ast::as<ast::Call>(loop.iter);
    const auto* method = walk ? ast::as<ast::Attribute>(walk->func) : nullptr;
    const auto* module = method ? ast::as<ast::Name>(method->value) : nullptr;
    if (module == nullptr || !walk->args.empty() || !walk->keywords.empty() ||
        !is_module_walk(method->attr) || !parameters.is_parameter_name(module->id))
      return "its loop runs over " + quoted(*loop.iter) +
             ", not over the members of a module it is handed";
    if (!loop.orelse.empty()) return "its loop has an else branch";
    bool shadows = ast::contains(loop.target, [&](const ast::Node* node) {
      const auto* name = ast::as<ast::Name>(node);
      return name && parameters.is_parameter_name(name->id);
    });
    if (shadows) return "its loop rebinds a parameter";
    if (!contains(walked, module->id)) walked.push_back(module->id);
    for (const ast::stmt* statement : loop.body) {
      const auto* branch = ast::as<ast::If>(statement);
      if (branch == nullptr || !context_.analysis.is_data_dependent(*branch->test)) {
        if (std::string why = helper_statement_problem(*statement, parameters, walked);
            !why.empty())
          return why;
        continue;
      }
      sema::BreakTag tag;
      tag.kind = sema::BreakKind::DataDependentBranch;
      tag.site = branch->test;
      tag.statement = branch;
      tag.function = context_.analysis.function_of(branch);
      // A helper whose branch calls helpers back would recurse for ever.
      static thread_local int depth = 0;
      if (depth > 3) return "its branches call helpers nested too deep";
      ++depth;
      std::optional<Outcome> deferred = defer_branch(tag, context_);
      --depth;
      if (!deferred || !deferred->fixed)
        return "its branch " + quoted(*branch->test) + " cannot be deferred" +
               (deferred ? ": " + deferred->reason : "");
      definitions_.insert(definitions_.end(), deferred->relies_on.begin(),
                          deferred->relies_on.end());
    }
    return {};
  }

  // A module a helper walks: a local bound before the `if` or an attribute chain on one,
  // checked at run time to be a module whose walks are nn.Module's own.
  bool module_leaf(const ast::expr& e) {
    const ast::expr* root = &e;
    while (const auto* attribute = ast::as<ast::Attribute>(root)) root = attribute->value;
    const auto* name = ast::as<ast::Name>(root);
    if (name && !contains(assigned_, name->id) &&
        context_.analysis.is_definitely_bound_before(branch_, name->id))
      return true;
    return fail(reasons::Reason::BranchNotStatic,
                "the branch hands " + quoted(e) +
                    " to a helper that walks it, not a local bound before the if");
  }

  // Why a statement of a deferring helper is not a deferrable call handed only what
  // HelperParameters::passes (or a loop loop_problem accepts), or empty.
  std::string helper_statement_problem(const ast::stmt& statement,
                                       const HelperParameters& parameters,
                                       std::vector<std::string_view>& walked) {
    if (const auto* loop = ast::as<ast::For>(&statement))
      return loop_problem(*loop, parameters, walked);
    const auto* expression = ast::as<ast::Expr>(&statement);
    const auto* inner = expression ? ast::as<ast::Call>(expression->value) : nullptr;
    std::optional<sema::BreakKind> kind = inner ? deferrable_kind(context_, *inner) : std::nullopt;
    if (!kind) return "the function holds " + quoted(statement) + ", not only deferrable calls";
    sema::BreakTag tag;
    tag.kind = *kind;
    tag.site = inner;
    tag.statement = &statement;
    tag.function = context_.analysis.function_of(&statement);
    if (Outcome deferred = defer_call(tag, context_); !deferred.fixed)
      return "its call " + quoted(*inner) + " cannot be deferred: " + deferred.reason;
    for (const ast::expr* arg : inner->args)
      if (!parameters.passes(*arg))
        return "its call " + quoted(*inner) + " computes " + quoted(*arg);
    for (const ast::keyword* keyword : inner->keywords)
      if (keyword->arg.empty() || !parameters.passes(*keyword->value))
        return "its call " + quoted(*inner) + " computes " + quoted(*keyword->value);
    return {};
  }

  // What a deferred call is handed: recorded (tensors snapshotted) and formatted at replay,
  // so any pure value will do; an f-string's fields are recorded one by one.
  bool argument(const ast::expr& e, const std::vector<std::string_view>& bound) {
    if (const auto* joined = ast::as<ast::JoinedStr>(&e)) {
      for (const ast::expr* part : joined->values) {
        const auto* field = ast::as<ast::FormattedValue>(part);
        if (field && !argument(*field->value, bound)) return false;
      }
      return true;
    }
    if (const auto* starred = ast::as<ast::Starred>(&e)) return argument(*starred->value, bound);
    if (context_.analysis.is_pure(e) && reads_bound_names(e, bound)) return true;
    return value(e, bound);
  }

  // Whether every name of the body that `e` reads is bound where it stands.
  bool reads_bound_names(const ast::Node& e, const std::vector<std::string_view>& bound) {
    bool ok = true;
    if (const auto* name = ast::as<ast::Name>(&e))
      ok = !contains(assigned_, name->id) || contains(bound, name->id);
    ast::for_each_child(
        &e, [&](const ast::Node* child) { ok = ok && reads_bound_names(*child, bound); });
    if (!ok)
      fail(reasons::Reason::BranchNotStatic,
           "the branch reads " + quoted(e) + " before assigning it");
    return ok;
  }

  // A value computed while tracing whatever the condition: free of side effects and unable
  // to raise once every leaf is a plain value (runtime.defer_branch checks that).
  bool value(const ast::expr& e, const std::vector<std::string_view>& bound) {
    switch (e.kind) {
      case ast::Kind::Constant:
        return true;
      case ast::Kind::JoinedStr:
        return formatted(*ast::as<ast::JoinedStr>(&e), bound);
      case ast::Kind::Name:
        return name_value(*ast::as<ast::Name>(&e), bound);
      case ast::Kind::Attribute:
        return leaf(e);
      case ast::Kind::Call: {
        const auto& call = *ast::as<ast::Call>(&e);
        if (sema::is_mode_query(context_.analysis.resolve_call(call), call)) return true;
        return getattr_leaf(call);
      }
      case ast::Kind::Compare:
        return comparison(*ast::as<ast::Compare>(&e), bound);
      case ast::Kind::BoolOp:
        return all_values(ast::as<ast::BoolOp>(&e)->values, bound);
      case ast::Kind::UnaryOp: {
        const auto* unary = ast::as<ast::UnaryOp>(&e);
        if (unary->op != ast::UnaryOpKind::Not) break;
        return value(*unary->operand, bound);
      }
      case ast::Kind::BinOp: {
        const auto* sum = ast::as<ast::BinOp>(&e);
        if (!is_string(&e, strings_)) break;
        return value(*sum->left, bound) && value(*sum->right, bound);
      }
      case ast::Kind::IfExp: {
        const auto* choice = ast::as<ast::IfExp>(&e);
        return value(*choice->test, bound) && value(*choice->body, bound) &&
               value(*choice->orelse, bound);
      }
      default:
        break;
    }
    return fail(
        reasons::Reason::BranchNotStatic,
        "the branch computes " + quoted(e) + ", which is not built from static values only");
  }

  template <class Values>
  bool all_values(const Values& values, const std::vector<std::string_view>& bound) {
    for (const ast::expr* each : values)
      if (!value(*each, bound)) return false;
    return true;
  }

  // An f-string whose fields are static values, without format specs.
  bool formatted(const ast::JoinedStr& text, const std::vector<std::string_view>& bound) {
    for (const ast::expr* part : text.values) {
      const auto* field = ast::as<ast::FormattedValue>(part);
      if (field == nullptr) continue;
      if (field->format_spec != nullptr)
        return fail(reasons::Reason::BranchNotStatic,
                    "an f-string field with a format spec: " + quoted(*field));
      if (!value(*field->value, bound)) return false;
    }
    return true;
  }

  // A name the branch assigns reads its value from earlier in the branch; any other is a leaf.
  bool name_value(const ast::Name& name, const std::vector<std::string_view>& bound) {
    if (contains(assigned_, name.id)) return reads_bound_names(name, bound);
    return leaf(name);
  }

  // ==, !=, is, is not over static values: they cannot raise.
  bool comparison(const ast::Compare& compare, const std::vector<std::string_view>& bound) {
    for (ast::CmpOpKind op : compare.ops)
      if (op != ast::CmpOpKind::Eq && op != ast::CmpOpKind::NotEq && op != ast::CmpOpKind::Is &&
          op != ast::CmpOpKind::IsNot)
        return fail(reasons::Reason::BranchNotStatic,
                    "a comparison other than ==, !=, is, is not: " + quoted(compare));
    return value(*compare.left, bound) && all_values(compare.comparators, bound);
  }

  // A name, or an attribute chain on a name, bound before the `if` and read unchanged in
  // the body: its value is checked at run time.
  bool leaf(const ast::expr& e) {
    const ast::expr* root = &e;
    int hops = 0;
    while (const auto* attribute = ast::as<ast::Attribute>(root)) {
      if (attribute->ctx != ast::ExprContext::Load || ++hops > 4) break;
      root = attribute->value;
    }
    const auto* name = ast::as<ast::Name>(root);
    bool torch_constant = name && hops > 0 && name->id == context_.analysis.torch_name();
    // A warning category by its builtin name (a global of that name too: its value is
    // checked at run time to be a Warning class).
    bool category = name && hops == 0 && is_warning_category(name->id);
    if (name == nullptr || contains(assigned_, name->id) ||
        (!torch_constant && !category &&
         !context_.analysis.is_definitely_bound_before(branch_, name->id)))
      return fail(reasons::Reason::BranchNotStatic,
                  "the branch reads " + quoted(e) +
                      ", which is not a local bound before the if or an attribute of one");
    if (context_.analysis.is_tensor(e))
      return fail(reasons::Reason::BranchNotStatic,
                  "the branch formats the tensor " + quoted(e) + " outside a deferred call");
    add_leaf(e);
    return true;
  }

  // `getattr(x, "name", default)` over a leaf chain with a constant default.
  bool getattr_leaf(const ast::Call& call) {
    sema::Callee callee = context_.analysis.resolve_call(call);
    bool shape = callee.kind == sema::CalleeKind::Builtin && callee.qualified_name == "getattr" &&
                 call.args.size == 3 && call.keywords.empty() &&
                 ast::is<ast::Constant>(call.args[1]) && ast::is<ast::Constant>(call.args[2]);
    if (!shape) return fail(reasons::Reason::BranchNotStatic, "the branch calls " + quoted(call));
    size_t count = leaves_.size();
    if (!leaf(*call.args[0])) return false;
    leaves_.resize(count);  // the object itself is not a plain value: the result is
    add_leaf(call);
    return true;
  }

  void add_leaf(const ast::expr& e) {
    std::string_view text = node_text(context_, e);
    for (const ast::expr* other : leaves_)
      if (node_text(context_, *other) == text) return;
    leaves_.push_back(&e);
  }

  Context& context_;
  const ast::If& branch_;
  const GuardRaise* guard_;
  std::vector<std::string_view> assigned_;
  std::vector<std::string_view> strings_;
  std::vector<const ast::expr*> leaves_;
  std::vector<const ast::Call*> calls_;
  std::vector<sema::BreakKind> kinds_;
  std::vector<const ast::stmt*> statements_;
  std::vector<Helper> helpers_;
  std::vector<const ast::Node*> definitions_;
  const ast::Raise* raise_ = nullptr;
  std::vector<TailRaise> tail_raises_;
  int nesting_ = 0;  // the static ifs around the statement checked
  std::optional<reasons::Problem> problem_;
};

// Whether the body calls a deferrable function anywhere (the rule is meant for it).
bool calls_deferrable(const Context& context, const ast::Seq<ast::stmt*>& body) {
  for (const ast::stmt* statement : body) {
    const auto* expression = ast::as<ast::Expr>(statement);
    const auto* call = expression ? ast::as<ast::Call>(expression->value) : nullptr;
    if (call && (deferrable_kind(context, *call) || deferring_helper_of(context, *call)))
      return true;
    bool found = false;
    ast::for_each_block(statement, [&](const ast::Seq<ast::stmt*>& inner) {
      found = found || calls_deferrable(context, inner);
    });
    if (found) return true;
  }
  return false;
}

}  // namespace

namespace {

// The branch `tag` names deferred (see the top of this file); with `guard`, its last
// statement is a raise that becomes the guard's in-graph form over the condition.
Outcome defer_if(const sema::BreakTag& tag, Context& context, const ast::If& branch,
                 const GuardRaise* guard) {
  if (!branch.orelse.empty())
    return Outcome::declined(reasons::Reason::BranchHasElse,
                             "a branch that prints, logs or warns has an else branch");
  BodyCheck body(context, branch, guard);
  if (!body.run()) return Outcome::declined(body.problem().reason, body.problem().detail);
  std::string name = context.fresh_name("c");
  Condition condition = guard ? guard_condition(context, *branch.test, name)
                              : lower_condition_speculating(context, branch, name);
  if (condition.problem)
    return Outcome::declined(condition.problem->reason, condition.problem->detail);

  Outcome outcome;
  for (size_t i = 0; i < body.calls().size(); ++i) {
    const ast::Call* call = body.calls()[i];
    sema::BreakTag inner = tag;
    inner.kind = body.kinds()[i];
    inner.site = call;
    inner.statement = body.statements()[i];
    Outcome deferred = defer_call(inner, context, name);
    if (!deferred.fixed)
      return Outcome::declined(deferred.reason_id,
                               "its call " + std::string(node_text(context, *call)).substr(0, 60) +
                                   " cannot be deferred: " + deferred.reason);
    outcome.edits.insert(outcome.edits.end(), deferred.edits.begin(), deferred.edits.end());
    outcome.absorbed.insert(outcome.absorbed.end(), deferred.absorbed.begin(),
                            deferred.absorbed.end());
    outcome.absorbed.push_back(call);
  }
  // A helper is called by the mended function itself (its frames stay the original's),
  // its records made under the condition: `pop_condition(push_condition(c) or helper(...))`.
  std::string helpers;
  outcome.relies_on = body.helper_definitions();
  for (const BodyCheck::Helper& helper : body.helpers()) {
    const ast::Call* call = helper.call;
    outcome.edits.push_back({call->begin, call->begin,
                             context.runtime + ".pop_condition(" + context.runtime +
                                 ".push_condition(" + name + ") or "});
    outcome.edits.push_back({call->end, call->end, ")"});
    helpers +=
        "(" + std::string(node_text(context, *call->func)) + ", " + std::to_string(helper.line);
    if (!helper.modules.empty()) {
      helpers += ", lambda: (";
      for (const ast::expr* module : helper.modules)
        helpers += std::string(node_text(context, *module)) + ",";
      helpers += ")";
    }
    helpers += "),";
  }
  if (const ast::Raise* raise = body.raise()) {
    outcome.edits.push_back(
        {raise->begin, raise->end, context.runtime + guard->function + name + guard->arguments});
  }
  // Eagerly the body runs only where the test held, and the condition's value may be None
  // there (an and/or lowered only while compiling): the guard then fails as the raise did.
  for (const BodyCheck::TailRaise& tail : body.tail_raises()) {
    std::string failed = "(True if " + name + " is None else " + name + ")";
    outcome.edits.push_back({tail.raise->begin, tail.raise->end,
                             context.runtime + tail.form.function + failed + tail.form.arguments});
  }
  std::string leaves = "lambda: (";
  for (const ast::expr* leaf : body.leaves())
    leaves += std::string(node_text(context, *leaf)) + ", ";
  if (!body.leaves().empty()) leaves.resize(leaves.size() - (body.leaves().size() > 1 ? 2 : 1));
  leaves += ")";
  if (!helpers.empty()) leaves += ", (" + helpers + ")";
  std::string test = context.runtime + ".defer_branch(" + name + " := " + condition.value + ", " +
                     leaves + ") or " + condition.fallback;
  if (!condition.prefix.empty()) test = "(" + condition.prefix + ") and (" + test + ")";
  outcome.edits.push_back({branch.test->begin, branch.test->end, test});
  outcome.fixed = true;
  outcome.form = guard ? nullptr : "defer";
  outcome.needs_runtime = true;
  return outcome;
}

}  // namespace

std::optional<Outcome> defer_branch(const sema::BreakTag& tag, Context& context) {
  const auto* branch = ast::as<ast::If>(tag.statement);
  if (branch == nullptr || tag.site != branch->test || !calls_deferrable(context, branch->body))
    return std::nullopt;
  return defer_if(tag, context, *branch, nullptr);
}

Outcome defer_guard(const sema::BreakTag& tag, Context& context, const GuardRaise& raise_form) {
  const auto* branch = ast::as<ast::If>(tag.statement);
  if (branch == nullptr || !calls_deferrable(context, branch->body))
    return Outcome::declined(reasons::Reason::Other,
                             "the guard prints, logs or warns nothing before its raise");
  return defer_if(tag, context, *branch, &raise_form);
}

}  // namespace graphmend::rewrite

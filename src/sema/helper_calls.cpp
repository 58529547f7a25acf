// Calls of this module's helper functions, asked about in the frame of the call: the kinds of
// the helper's parameters are those of the arguments, so `hflip(img)` is as pure as
// `img.flip(-1)` where `img` is a tensor. A helper is pure when its body is straight-line
// code of pure statements (assignments to names, grad-mode `with` blocks, calls of pure
// helpers, a final return); a validation `if <test>: raise ...` on its parameters does not
// make it impure under a speculation: the rewrite checks `not <test>`, in the caller's
// words, before the statement (Speculation::preconditions) and runs the original where it
// fails, so the helper never raises where it is speculated.
#include <algorithm>
#include <utility>

#include "ast/walk.h"
#include "sema/analysis_impl.h"
#include "sema/helpers.h"
#include "sema/torch_facts.h"

namespace graphmend::sema {

using ast::as;
using ast::is;

namespace {

constexpr int kMaxHelperDepth = 4;  // helpers calling helpers: how deep the question goes

// torch's grad-mode context managers: entering and leaving one changes no state after it.
bool is_grad_mode_block(const ast::With& with, const AnalysisImpl& a, ScopeId scope) {
  for (const ast::withitem* item : with.items) {
    const auto* call = as<ast::Call>(item->context_expr);
    if (item->optional_vars != nullptr || call == nullptr || !call->args.empty() ||
        !call->keywords.empty())
      return false;
    std::string q = a.qualify(call->func, scope);
    if (!starts_with(q, "torch.") || !has_fact(TorchFact::GradModeChange, q.substr(6)))
      return false;
  }
  return true;
}

}  // namespace

// The module-level function a call of a bare name runs, or null.
const ast::FunctionDef* AnalysisImpl::module_helper(const ast::Call& call, ScopeId scope) const {
  const auto* name = as<ast::Name>(call.func);
  const Binding* b = name != nullptr ? lookup(scope, name->id) : nullptr;
  if (b == nullptr || b->conflicting || b->kind != BindKind::Function) return nullptr;
  const auto* def = as<ast::FunctionDef>(b->definition);
  if (def == nullptr || !def->decorator_list.empty()) return nullptr;
  auto it = function_index_.find(def);
  if (it == function_index_.end()) return nullptr;
  int f = it->second;
  if (function_parent_[f] >= 0 || function_class_[f].has_value()) return nullptr;
  return def;
}

// The method `self.m(...)` runs, where `self` is the receiver of the method holding the call:
// a plain method or a staticmethod (no other decorator), or null.
const ast::FunctionDef* AnalysisImpl::self_method(const ast::Call& call, ScopeId scope) const {
  const auto* attribute = as<ast::Attribute>(call.func);
  const auto* receiver = attribute != nullptr ? as<ast::Name>(attribute->value) : nullptr;
  if (receiver == nullptr) return nullptr;
  ClassId klass = self_class_of_scope(scope, receiver->id);
  const auto* def = as<ast::FunctionDef>(find_method(klass, attribute->attr));
  if (def == nullptr || def->decorator_list.size != (is_staticmethod(def) ? 1u : 0u))
    return nullptr;
  return def;
}

// The method `self.m(...)` runs, defined (as a plain method or a staticmethod) by a class
// at module level, where `self` is the method's own receiver; null otherwise. `method`: the
// check that the instance still runs that definition (no subclass or instance attribute
// replaces it), in the speculated statement's words.
const ast::FunctionDef* AnalysisImpl::method_helper(const ast::Call& call, ScopeId scope,
                                                    SameMethod& method) const {
  const ast::FunctionDef* def = self_method(call, scope);
  if (def == nullptr) return nullptr;
  const auto& attribute = *as<ast::Attribute>(call.func);
  const auto& receiver = *as<ast::Name>(attribute.value);
  bool staticmethod = is_staticmethod(def);
  ClassId owner = function_class_[function_index_.at(def)];
  const ast::ClassDef& owner_node = *classes_[owner.index].node;
  const Binding* named = lookup(kModuleScope, owner_node.name);
  // the check names the class where the speculated statement stands
  if (named == nullptr || named->conflicting || named->kind != BindKind::Class ||
      named->class_index != owner || speculation_->site == nullptr ||
      lookup(scope_of(speculation_->site), owner_node.name) != named)
    return nullptr;
  method.receiver = caller_text(receiver, frame_);
  // the method's `self.x` reads the same object as the speculated statement's
  if (!staticmethod && method.receiver != first_param(def)) return nullptr;
  method.name = std::string(attribute.attr);
  method.owner = std::string(owner_node.name);
  return def;
}

// Whether `e` reads a name assigned earlier in the part of the statement being speculated.
bool AnalysisImpl::reads_speculated_local(const ast::expr& e) const {
  if (speculation_ == nullptr) return false;
  return ast::contains(&e, [&](const ast::Node* n) {
    const auto* name = as<ast::Name>(n);
    return name != nullptr && in_list(name->id, speculation_->local);
  });
}

// `e` as the caller writes it: each parameter of `frame` it reads replaced by the caller's
// text of its argument.
std::string AnalysisImpl::caller_text(const ast::expr& e, const HelperFrame* frame) const {
  std::string_view all = source_.text();
  if (frame == nullptr) return std::string(all.substr(e.begin, e.end - e.begin));
  std::string out;
  uint32_t at = e.begin;
  ast::walk(&e, [&](const ast::Node* n) {
    const auto* name = as<ast::Name>(n);
    if (name == nullptr) return true;
    auto it = frame->texts.find(name->id);
    if (it == frame->texts.end()) return true;
    out += all.substr(at, name->begin - at);
    out += it->second;
    at = name->end;
    return true;
  });
  out += all.substr(at, e.end - at);
  return out;
}

// caller_text, in brackets unless it is a primary, so that it reads the same as an operand.
std::string AnalysisImpl::operand_text(const ast::expr& e, const HelperFrame* frame) const {
  std::string text = caller_text(e, frame);
  return ast::is_primary(&e) ? text : "(" + text + ")";
}

std::string condition_check(const ast::expr& test, bool holds,
                            const std::function<std::string(const ast::expr&)>& text) {
  if (holds) return ast::is_condition_operand(&test) ? text(test) : "(" + text(test) + ")";
  const auto* negated = as<ast::UnaryOp>(&test);
  if (negated != nullptr && negated->op == ast::UnaryOpKind::Not)  // `not ok(x)` fails: ok(x)
    return condition_check(*negated->operand, true, text);
  return "not " + (ast::is_primary(&test) ? text(test) : "(" + text(test) + ")");
}

// Whether every name `test` reads is a parameter of the frame, or a global the statement
// being speculated reads as the same object (the check before it evaluates `test` there).
bool AnalysisImpl::reads_parameters_only(const ast::expr& test, const HelperFrame& frame) const {
  ScopeId site = scope_of(speculation_->site);
  bool ok = true;
  ast::walk(&test, [&](const ast::Node* n) {
    if (is<ast::Lambda>(n) || is<ast::NamedExpr>(n)) ok = false;
    const auto* name = as<ast::Name>(n);
    if (name == nullptr || !ok) return ok;
    if (frame.texts.count(name->id) != 0) return true;
    const Binding* here = lookup(frame.scope, name->id);
    ok = here == lookup(kModuleScope, name->id) && lookup(site, name->id) == here;
    return ok;
  });
  return ok;
}

// `if <test>: raise ...` in a helper: its precondition `not (<test>)`, in the caller's words,
// added to the speculation; false where it cannot be checked before the statement.
bool AnalysisImpl::helper_guard(const ast::If& guard, HelperFrame& frame, int depth) const {
  if (!guard.orelse.empty() || guard.body.size != 1 || !is<ast::Raise>(guard.body[0])) return false;
  return add_precondition(*guard.test, false, frame, depth);
}

// That `test`, read in the helper's frame, holds (`holds`) or not, as a check before the
// statement; false where it reads tensor data, a name the check cannot compute (a local not
// computed purely from the parameters), or is not pure. An
// `assert` (`holds`) is one too: under `python -O`, where it is not run, the check failing
// only runs the original, which does not run it either.
bool AnalysisImpl::add_precondition(const ast::expr& test, bool holds, HelperFrame& frame,
                                    int depth) const {
  if (speculation_ == nullptr || speculation_->class_evidence || speculation_->site == nullptr)
    return false;
  if (!pure_in_scope(test, frame.scope, depth + 1) ||
      is_data_kind(kind_rec(&test, frame.scope, depth + 1)) || !reads_parameters_only(test, frame))
    return false;
  std::string check =
      condition_check(test, holds, [&](const ast::expr& e) { return caller_text(e, &frame); });
  auto& preconditions = speculation_->preconditions;
  if (std::find(preconditions.begin(), preconditions.end(), check) == preconditions.end())
    preconditions.push_back(check);
  return true;
}

// `if <static test>: ... else: ...` in a helper (`if img.ndim == 3: img = img.unsqueeze(0)`):
// Dynamo resolves it while tracing, so the helper is pure where both sides are. After it, a
// name holds what both paths that go on leave it (`ended`: both returned).
bool AnalysisImpl::helper_static_if(const ast::If& branch, HelperFrame& frame, int depth,
                                    bool& ended) const {
  if (!pure_in_scope(*branch.test, frame.scope, depth + 1) ||
      is_data_kind(kind_rec(branch.test, frame.scope, depth + 1)))
    return false;
  HelperFrame before = frame;
  bool true_ended = false, false_ended = false;
  if (!helper_block(branch.body, frame, depth, true_ended)) return false;
  HelperFrame on_true = std::exchange(frame, std::move(before));  // the else side starts anew
  if (!helper_block(branch.orelse, frame, depth, false_ended)) return false;
  ended = true_ended && false_ended;
  if (false_ended) {
    frame = std::move(on_true);
  } else if (!true_ended) {
    std::erase_if(frame.numbers, [&](const std::string& n) {
      return std::find(on_true.numbers.begin(), on_true.numbers.end(), n) == on_true.numbers.end();
    });
    std::erase_if(frame.dtypes, [&](std::string_view n) {
      return std::find(on_true.dtypes.begin(), on_true.dtypes.end(), n) == on_true.dtypes.end();
    });
    for (auto& [name, kind] : on_true.kinds) {
      auto it = frame.kinds.find(name);
      if (it == frame.kinds.end() || it->second != kind) frame.kinds[name] = ValueKind::Other;
    }
    for (auto& [name, kind] : frame.kinds)
      if (on_true.kinds.count(name) == 0) kind = ValueKind::Other;
    for (auto it = frame.texts.begin(); it != frame.texts.end();) {
      auto other = on_true.texts.find(it->first);
      it = other == on_true.texts.end() || other->second != it->second ? frame.texts.erase(it)
                                                                       : std::next(it);
    }
  }
  return true;
}

// The statements of a helper's body from `from`, in its frame; `ended`: a return was met
// (nothing may follow it).
bool AnalysisImpl::helper_block(const ast::Seq<ast::stmt*>& body, HelperFrame& frame, int depth,
                                bool& ended) const {
  for (uint32_t i = 0; i < body.size; ++i) {
    const ast::stmt* s = body[i];
    if (ended) return false;
    if (const auto* e = as<ast::Expr>(s)) {
      if (!is<ast::Constant>(e->value) && !pure_in_scope(*e->value, frame.scope, depth + 1))
        return false;
      continue;
    }
    if (is<ast::Pass>(s)) continue;
    const ast::expr* target = nullptr;
    const ast::expr* value = nullptr;
    if (const auto* a = as<ast::Assign>(s); a && a->targets.size == 1) {
      target = a->targets[0];
      value = a->value;
    } else if (const auto* a = as<ast::AnnAssign>(s)) {
      target = a->target;
      value = a->value;
    }
    if (target != nullptr && value != nullptr) {
      if (!pure_in_scope(*value, frame.scope, depth + 1) ||
          !bind_names(frame, *target, *value, depth))
        return false;
      continue;
    }
    if (const auto* r = as<ast::Return>(s)) {
      if (r->value != nullptr && !pure_in_scope(*r->value, frame.scope, depth + 1)) return false;
      ended = true;
      continue;
    }
    if (const auto* w = as<ast::With>(s); w && is_grad_mode_block(*w, *this, frame.scope)) {
      if (!helper_block(w->body, frame, depth, ended)) return false;
      continue;
    }
    if (const auto* guard = as<ast::If>(s); guard && helper_guard(*guard, frame, depth)) continue;
    if (const auto* assertion = as<ast::Assert>(s);
        assertion && add_precondition(*assertion->test, true, frame, depth))
      continue;
    if (const auto* branch = as<ast::If>(s);
        branch && helper_static_if(*branch, frame, depth, ended))
      continue;
    return false;
  }
  return true;
}

// The kind of what a call of a module helper or of a method of `self` returns: every
// return's, in the frame of the call; Other where its body is not straight-line code and
// static ifs.
ValueKind AnalysisImpl::helper_call_kind(const ast::Call& call, ScopeId scope, int depth) const {
  const ast::FunctionDef* def = module_helper(call, scope);
  size_t bound = 0;
  if (def == nullptr) {  // `self.m(...)`: evidence only; its purity checks the method
    def = self_method(call, scope);
    if (def == nullptr) return ValueKind::Other;
    bound = is_staticmethod(def) ? 0 : 1;
  }
  std::optional<HelperFrame> frame =
      depth > kMaxDepth ? std::nullopt : bind_call(call, *def, bound);
  if (!frame) return ValueKind::Other;
  const HelperFrame* before = frame_;
  frame_ = &*frame;
  std::optional<ValueKind> returned;
  bool known = returned_kind(def->body, *frame, depth, returned);
  frame_ = before;
  return known && returned ? *returned : ValueKind::Other;
}

// The kinds `body` returns, joined into `returned`; false where the body holds a statement
// other than assignments to names, expressions, raises, ifs, withs and returns.
bool AnalysisImpl::returned_kind(const ast::Seq<ast::stmt*>& body, HelperFrame& frame, int depth,
                                 std::optional<ValueKind>& returned) const {
  for (const ast::stmt* s : body) {
    if (is<ast::Expr>(s) || is<ast::Pass>(s) || is<ast::Raise>(s)) continue;
    if (const auto* r = as<ast::Return>(s)) {
      ValueKind k =
          r->value != nullptr ? kind_rec(r->value, frame.scope, depth + 1) : ValueKind::Other;
      returned = returned ? join_kind(*returned, k) : k;
      return true;
    }
    if (const auto* a = as<ast::Assign>(s); a && a->targets.size == 1) {
      if (!bind_names(frame, *a->targets[0], *a->value, depth)) return false;
      continue;
    }
    if (const auto* w = as<ast::With>(s)) {
      if (!returned_kind(w->body, frame, depth, returned)) return false;
      continue;
    }
    const auto* branch = as<ast::If>(s);
    if (branch == nullptr) return false;
    HelperFrame on_false = frame;
    if (!returned_kind(branch->body, frame, depth, returned)) return false;
    const HelperFrame* active = frame_;
    frame_ = &on_false;
    bool known = returned_kind(branch->orelse, on_false, depth, returned);
    frame_ = active;
    if (!known) return false;
    for (auto& [name, kind] : on_false.kinds) {
      auto it = frame.kinds.find(name);
      frame.kinds[name] = it == frame.kinds.end() ? kind : join_kind(it->second, kind);
    }
  }
  return true;
}

// `target = value` in a helper's frame: a name, or a tuple of names unpacking a tuple of
// tensors (`r, g, b = img.unbind(dim=-3)`, a count the shape decides) or a display of as
// many values; false for any other target.
bool AnalysisImpl::bind_names(HelperFrame& frame, const ast::expr& target, const ast::expr& value,
                              int depth) const {
  auto bind = [&](const ast::Name& name, const ast::expr* one, ValueKind kind) {
    frame.kinds[name.id] = kind;
    // a guard may read it as the caller would compute it (`c = x.shape[0] * 2`, pure, from
    // what the caller passes), and as nothing else
    std::optional<std::string> text;
    if (one != nullptr && speculation_ != nullptr && speculation_->site != nullptr &&
        reads_parameters_only(*one, frame))
      text = operand_text(*one, &frame);
    frame.texts.erase(name.id);
    if (text) frame.texts[name.id] = *text;
    if (one != nullptr) {
      note_frame_value(frame, name.id, *one, frame.scope);
    } else {
      std::erase(frame.numbers, name.id);
      std::erase(frame.dtypes, name.id);
    }
  };
  if (const auto* name = as<ast::Name>(&target)) {
    bind(*name, &value, kind_rec(&value, frame.scope, depth + 1));
    return true;
  }
  const auto* names = as<ast::Tuple>(&target);
  if (names == nullptr) return false;
  for (const ast::expr* element : names->elts)
    if (!is<ast::Name>(element)) return false;
  if (const auto* display = as<ast::Tuple>(&value)) {
    if (display->elts.size != names->elts.size) return false;  // a ValueError
    for (const ast::expr* element : display->elts)
      if (is<ast::Starred>(element)) return false;
    std::vector<ValueKind> kinds;  // every value is read before any name is bound
    for (const ast::expr* element : display->elts)
      kinds.push_back(kind_rec(element, frame.scope, depth + 1));
    for (uint32_t i = 0; i < names->elts.size; ++i)
      bind(*as<ast::Name>(names->elts[i]), nullptr, kinds[i]);
    return true;
  }
  if (kind_rec(&value, frame.scope, depth + 1) != ValueKind::TensorTuple) return false;
  for (const ast::expr* element : names->elts)
    bind(*as<ast::Name>(element), nullptr, ValueKind::Tensor);
  return true;
}

// Whether `name` now holds a Python number or a dtype, as `value` (read in `scope`, under the
// frame active there) shows.
void AnalysisImpl::note_frame_value(HelperFrame& frame, std::string_view name,
                                    const ast::expr& value, ScopeId scope) const {
  PurityFacts facts;  // what the value reads, before the name is bound (`r = float(r)`)
  if (frame_ != nullptr && frame_->scope == scope) facts.numeric_names = frame_->numbers;
  bool number = number_rec(&value, scope, 1, facts);
  bool dtype = is_dtype_like(&value, scope);
  std::erase(frame.numbers, name);
  std::erase(frame.dtypes, name);
  if (number) frame.numbers.emplace_back(name);
  if (dtype) frame.dtypes.push_back(name);
}

int AnalysisImpl::helper_nesting() const {
  int nesting = 0;
  for (const HelperFrame* f = frame_; f != nullptr; f = f->outer) ++nesting;
  return nesting;
}

bool AnalysisImpl::helper_call_pure(const ast::Call& call, ScopeId scope, int depth) const {
  size_t bound = 0;  // the receiver of a plain method
  SameMethod method;
  const ast::FunctionDef* def = module_helper(call, scope);
  if (def == nullptr && speculation_ != nullptr && !speculation_->class_evidence) {
    def = method_helper(call, scope, method);
    bound = def != nullptr && !is_staticmethod(def) ? 1 : 0;
  }
  if (def == nullptr || depth > kMaxDepth) return false;
  std::optional<HelperFrame> frame = bind_call(call, *def, bound);
  if (!frame) return false;
  if (bound == 1) frame->texts[first_param(def)] = method.receiver;
  const HelperFrame* before = frame_;
  frame_ = &*frame;
  bool ended = false;
  bool pure = helper_block(def->body, *frame, depth, ended);
  frame_ = before;
  if (pure && !method.name.empty()) {
    auto& methods = speculation_->methods;
    if (std::find(methods.begin(), methods.end(), method) == methods.end())
      methods.push_back(method);
  }
  return pure;
}

// The frame of `def` called by `call` (`bound`: leading parameters the call binds itself; a
// method's receiver is an object, not a tensor), or none where the call would raise
// TypeError, passes a default that is not a literal, `def` takes *args or **kwargs, or
// helpers already nest too deep.
std::optional<AnalysisImpl::HelperFrame> AnalysisImpl::bind_call(const ast::Call& call,
                                                                 const ast::FunctionDef& def,
                                                                 size_t bound) const {
  const ast::arguments& args = *def.args;
  if (args.vararg != nullptr || args.kwarg != nullptr || helper_nesting() >= kMaxHelperDepth)
    return std::nullopt;
  if (call.args.size + bound > args.posonlyargs.size + args.args.size) return std::nullopt;
  for (const ast::keyword* k : call.keywords)
    if (!find_parameter(args, k->arg)) return std::nullopt;
  HelperFrame frame;
  frame.scope = ScopeId::for_function(function_index_.at(&def));
  frame.outer = frame_;
  if (bound == 1) frame.kinds[first_param(&def)] = ValueKind::Other;
  size_t position = 0;
  for (const auto* list : {&args.posonlyargs, &args.args, &args.kwonlyargs}) {
    for (const ast::arg* param : *list) {
      if (position++ < bound) continue;
      const ast::expr* argument = argument_for(def, *param, call, bound);
      if (argument == nullptr) {  // the default: a literal, the same on every call
        std::optional<Parameter> declared = find_parameter(args, param->arg);
        const ast::expr* given = declared ? declared->default_value : nullptr;
        const auto* negative = as<ast::UnaryOp>(given);
        if (negative != nullptr && negative->op == ast::UnaryOpKind::USub)
          given = negative->operand;
        if (given == nullptr || !is<ast::Constant>(given)) return std::nullopt;
        argument = declared->default_value;
      }
      frame.kinds[param->arg] = kind_rec(argument, scope_of(argument), 1);
      note_frame_value(frame, param->arg, *argument, scope_of(argument));
      // an argument reading a name the speculated part assigns: the check before it cannot
      if (frame_ != nullptr || !reads_speculated_local(*argument))
        frame.texts[param->arg] = operand_text(*argument, frame_);
    }
  }
  return frame;
}

}  // namespace graphmend::sema

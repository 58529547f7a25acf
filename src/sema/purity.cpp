// Purity: expressions free of side effects that cannot raise for well-typed tensor
// operands, and the Python numbers (torch.finfo fields) that facts make pure.
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "ast/walk.h"
#include "sema/analysis_impl.h"
#include "sema/helpers.h"
#include "sema/torch_facts.h"

namespace graphmend::sema {

using ast::as;
using ast::is;

// `x.dtype`, `torch.float16`, or a helper's parameter passed one (HelperFrame::dtypes).
bool AnalysisImpl::is_dtype_like(const ast::expr* arg, ScopeId scope) const {
  if (const auto* at = as<ast::Attribute>(arg); at && at->attr == "dtype") return true;
  // `x.to(int)`: torch takes Python's int, float, bool and complex for its default dtypes
  if (const auto* name = as<ast::Name>(arg);
      name &&
      (name->id == "int" || name->id == "float" || name->id == "bool" || name->id == "complex") &&
      lookup(scope, name->id) == nullptr)
    return true;
  if (const auto* name = as<ast::Name>(arg); name && frame_ != nullptr && frame_->scope == scope)
    return std::find(frame_->dtypes.begin(), frame_->dtypes.end(), name->id) !=
           frame_->dtypes.end();
  std::string q = qualify(arg, scope);
  if (!starts_with(q, "torch.")) return false;
  std::string_view t = std::string_view(q).substr(6);
  return has_fact(TorchFact::DtypeName, t);
}

bool AnalysisImpl::is_number(const ast::expr& e, const PurityFacts& facts) const {
  return number_checked(&e, scope_of(&e), 0, facts);
}

// number_rec, keeping the numbers it assumed only when it holds.
bool AnalysisImpl::number_checked(const ast::expr* e, ScopeId scope, int depth,
                                  const PurityFacts& facts) const {
  size_t assumed = speculation_ != nullptr ? speculation_->numbers.size() : 0;
  bool number = number_rec(e, scope, depth, facts);
  if (!number && speculation_ != nullptr) speculation_->numbers.resize(assumed);
  return number;
}

// A literal floating dtype (`torch.float16`) or a dtype expression `facts` show floating.
bool AnalysisImpl::is_floating_dtype(const ast::expr* e, ScopeId scope,
                                     const PurityFacts* facts) const {
  if (has_fact(TorchFact::FloatingDtype, qualify(e, scope))) return true;
  if (facts == nullptr) return false;
  std::string_view text = source_.text().substr(e->begin, e->end - e->begin);
  if (std::find(facts->floating_dtypes.begin(), facts->floating_dtypes.end(), text) !=
      facts->floating_dtypes.end()) {
    return true;
  }
  // Under a speculation, `x.dtype` of a tensor may be assumed floating: the run-time check
  // asks `x.is_floating_point()` too.
  const auto* dtype = as<ast::Attribute>(e);
  if (speculation_ == nullptr || dtype == nullptr || dtype->attr != "dtype" ||
      !is_tensor_kind(kind_rec(dtype->value, scope, 1))) {
    return false;
  }
  auto& floating = speculation_->floating;
  std::string_view tensor =
      source_.text().substr(dtype->value->begin, dtype->value->end - dtype->value->begin);
  bool seen = std::any_of(floating.begin(), floating.end(), [&](const ast::expr* other) {
    return source_.text().substr(other->begin, other->end - other->begin) == tensor;
  });
  if (!seen) floating.push_back(dtype->value);
  return true;
}

// A read of a shape: `x.shape[i]`, `x.size(i)` (i an int literal or its negation), `x.ndim`,
// `x.dim()`, `x.numel()`, `len(x)` or `len(x.shape)`: x, and the literal i where there is one.
AnalysisImpl::ShapeRead AnalysisImpl::shape_read(const ast::expr* e, ScopeId scope) const {
  auto int_literal = [](const ast::expr* x) -> const ast::Constant* {
    if (const auto* u = as<ast::UnaryOp>(x); u && u->op == ast::UnaryOpKind::USub) x = u->operand;
    const auto* c = as<ast::Constant>(x);
    return c != nullptr && c->value.type == ast::ConstantValue::Type::Int ? c : nullptr;
  };
  if (const auto* s = as<ast::Subscript>(e)) {
    const auto* shape = as<ast::Attribute>(s->value);
    const ast::Constant* index = int_literal(s->slice);
    if (shape == nullptr || shape->attr != "shape" || index == nullptr) return {};
    return {shape->value, index};
  }
  if (const auto* ndim = as<ast::Attribute>(e); ndim && ndim->attr == "ndim") return {ndim->value};
  const auto* call = as<ast::Call>(e);
  if (call == nullptr || !call->keywords.empty()) return {};
  if (const auto* method = as<ast::Attribute>(call->func)) {
    if ((method->attr == "dim" || method->attr == "numel") && call->args.empty())
      return {method->value};
    const ast::Constant* index = call->args.size == 1 ? int_literal(call->args[0]) : nullptr;
    if (method->attr == "size" && index != nullptr) return {method->value, index};
    return {};
  }
  const auto* f = as<ast::Name>(call->func);
  if (f == nullptr || f->id != "len" || lookup(scope, "len") != nullptr || call->args.size != 1 ||
      is<ast::Starred>(call->args[0]))
    return {};
  const ast::expr* sized = call->args[0];  // `len(x)`, `len(x.shape)`
  if (const auto* shape = as<ast::Attribute>(sized); shape && shape->attr == "shape")
    sized = shape->value;
  return {sized};
}

// A Python int computed from shapes only: int literals, shape reads of tensors (shape_read)
// and +, -, * of those.
bool AnalysisImpl::shape_int(const ast::expr* e, ScopeId scope, int depth) const {
  if (e == nullptr || depth > kMaxDepth) return false;
  if (const auto* c = as<ast::Constant>(e)) return c->value.type == ast::ConstantValue::Type::Int;
  if (const auto* b = as<ast::BinOp>(e)) {
    return (b->op == ast::OperatorKind::Add || b->op == ast::OperatorKind::Sub ||
            b->op == ast::OperatorKind::Mult) &&
           shape_int(b->left, scope, depth + 1) && shape_int(b->right, scope, depth + 1);
  }
  ShapeRead read = shape_read(e, scope);
  return read.object != nullptr && is_tensor_kind(kind_rec(read.object, scope, depth + 1));
}

// Under a speculation that assumes numbers: a parameter with a numeric default or an
// int/float annotation, not assigned inside the part analysed (the check sees its value).
bool AnalysisImpl::may_assume_number(const ast::Name& name, ScopeId scope) const {
  if (speculation_ == nullptr || !speculation_->assume_numbers || !scope.is_function() ||
      in_list(name.id, speculation_->local)) {
    return false;
  }
  const ast::stmt* site = speculation_->site;
  if (site == nullptr || scope_of(site) != scope) return false;
  std::optional<bool> attribute = assigned_self_attribute(name, scope);
  if (attribute && *attribute) return true;
  if (!is_number_parameter(name, scope, false)) return false;
  // torchmetrics' `top_k: Optional[int] = None`, then `if top_k is None: top_k = preds.shape[-1]`
  return !attribute || rebound_to_numbers(name, scope);
}

// Under a speculation that assumes numbers: a method's `self.<attr>` its class sets only to
// literals or from parameters with number defaults (`self.momentum = momentum`), recorded
// once (the check asks runtime.python_numbers of it).
bool AnalysisImpl::may_assume_number_setting(const ast::Attribute& a, ScopeId scope) const {
  if (speculation_ == nullptr || !speculation_->assume_numbers || !scope.is_function())
    return false;
  const auto* self = as<ast::Name>(a.value);
  if (self == nullptr || a.ctx != ast::ExprContext::Load || in_list(self->id, speculation_->local))
    return false;
  ClassId klass = self_class_of_scope(scope, self->id);
  if (!klass.has_value() || find_method(klass, a.attr) != nullptr ||
      class_registers(klass, a.attr, 0))
    return false;
  AttributeSets sets = attribute_sets(klass, a.attr);
  if (sets.constants == 0 || sets.tensors > 0 || sets.others > 0) return false;
  auto& numbers = speculation_->numbers;
  bool seen = std::any_of(numbers.begin(), numbers.end(), [&](const ast::expr* other) {
    const auto* same = as<ast::Attribute>(other);
    const auto* base = same ? as<ast::Name>(same->value) : nullptr;
    return base != nullptr && base->id == self->id && same->attr == a.attr;
  });
  if (!seen) numbers.push_back(&a);
  return true;
}

// Whether every assignment to `name` before the speculated statement, at any depth of the
// function's body, binds a Python number by its form: a number literal, a method's
// `self.<attr>`, `<x>.shape[...]`, `<x>.size(...)` or `len(...)` (evidence: the run-time
// check decides).
bool AnalysisImpl::rebound_to_numbers(const ast::Name& name, ScopeId scope) const {
  const auto* function = as<ast::FunctionDef>(scopes_[scope.index].node);
  const ast::stmt* site = speculation_->site;
  if (function == nullptr || site == nullptr) return false;
  auto numeric_form = [&](const ast::expr* value) {
    if (const auto* c = as<ast::Constant>(value))
      return c->value.type == ast::ConstantValue::Type::Int ||
             c->value.type == ast::ConstantValue::Type::Float;
    if (const auto* attr = as<ast::Attribute>(value)) {  // a method's `self.<attr>`
      const auto* base = as<ast::Name>(attr->value);
      return base != nullptr && self_class_of_scope(scope, base->id).has_value();
    }
    if (const auto* sub = as<ast::Subscript>(value)) {
      const auto* shape = as<ast::Attribute>(sub->value);
      return shape != nullptr && shape->attr == "shape";
    }
    const auto* call = as<ast::Call>(value);
    if (call == nullptr) return false;
    if (const auto* method = as<ast::Attribute>(call->func)) return method->attr == "size";
    const auto* f = as<ast::Name>(call->func);
    return f != nullptr && f->id == "len" && lookup(scope, "len") == nullptr;
  };
  bool ok = true;
  const ast::Node* accepted = nullptr;  // the target of the assignment last checked
  ast::walk(function, [&](const ast::Node* n) {
    if (!ok || n->begin >= site->begin) return false;
    if (n != function && (is<ast::FunctionDef>(n) || is<ast::AsyncFunctionDef>(n) ||
                          is<ast::ClassDef>(n) || is<ast::Lambda>(n)))
      return false;
    if (const auto* assign = as<ast::Assign>(n); assign && assign->targets.size == 1) {
      const auto* target = as<ast::Name>(assign->targets[0]);
      if (target != nullptr && target->id == name.id) {
        ok = numeric_form(assign->value);
        accepted = target;
      }
    }
    const auto* stored = as<ast::Name>(n);
    if (stored && stored->ctx == ast::ExprContext::Store && stored->id == name.id && n != accepted)
      ok = false;  // augmented, a loop or with target, unpacked, `:=`
    return ok;
  });
  return ok;
}

// The type a parameter's annotation names, alone or with None (`Optional[int]`, `int |
// None`: a number or None, which the check tells apart); null for any other annotation.
const ast::Name* AnalysisImpl::declared_type(const ast::expr* annotation, ScopeId scope) const {
  if (const auto* generic = as<ast::Subscript>(annotation);
      generic && qualify(generic->value, scope) == "typing.Optional")
    annotation = generic->slice;
  if (const auto* either = as<ast::BinOp>(annotation);
      either && either->op == ast::OperatorKind::BitOr)
    annotation = is_none_constant(either->right)  ? either->left
                 : is_none_constant(either->left) ? either->right
                                                  : nullptr;
  return as<ast::Name>(annotation);
}

// A parameter of the function `scope` annotated int or float (alone or with None), or
// defaulting to a number, negative ones included (with `or_bool`, also annotated bool or
// defaulting to True or False).
bool AnalysisImpl::is_number_parameter(const ast::Name& name, ScopeId scope, bool or_bool) const {
  std::optional<Parameter> parameter = find_parameter(scopes_[scope.index].node, name.id);
  if (!parameter) return false;
  using Type = ast::ConstantValue::Type;
  const ast::expr* given = parameter->default_value;
  if (const auto* negated = as<ast::UnaryOp>(given);
      negated && negated->op == ast::UnaryOpKind::USub)
    given = negated->operand;
  const auto* default_value = as<ast::Constant>(given);
  if (parameter->arg->annotation != nullptr) {
    const ast::Name* type = declared_type(parameter->arg->annotation, scope);
    return type != nullptr &&
           (type->id == "float" || type->id == "int" || (or_bool && type->id == "bool"));
  }
  if (default_value == nullptr) return false;
  Type type = default_value->value.type;
  return type == Type::Int || type == Type::Float ||
         (or_bool && (type == Type::True || type == Type::False));
}

bool AnalysisImpl::is_int_parameter(const ast::Name& name, ScopeId scope) const {
  std::optional<Parameter> parameter = find_parameter(scopes_[scope.index].node, name.id);
  const ast::Name* type = parameter ? declared_type(parameter->arg->annotation, scope) : nullptr;
  return type != nullptr && type->id == "int";
}

// Whether `name` is last bound, before the speculated statement and in the function's own
// body, by `name = self.<attr>` (a configuration value: `num_buckets = self.num_buckets`,
// transformers' Reformer) or `name = <x>.shape[...]`; empty when the function body never
// binds it before there. Any other binding before the statement (nested, augmented, a
// parameter rebound) gives false.
std::optional<bool> AnalysisImpl::assigned_self_attribute(const ast::Name& name,
                                                          ScopeId scope) const {
  const ast::Seq<ast::stmt*>* body = nullptr;
  const ast::arguments* args = nullptr;
  if (const auto* f = as<ast::FunctionDef>(scopes_[scope.index].node)) {
    body = &f->body;
    args = f->args;
  }
  if (body == nullptr || args == nullptr || args->args.size == 0) return std::nullopt;
  std::string_view self = args->args[0]->arg;
  std::optional<bool> found;
  for (const ast::stmt* s : *body) {
    if (s == speculation_->site) return found;
    if (!ast::stores_name(s, name.id)) continue;
    const auto* assign = as<ast::Assign>(s);
    const auto* attr = assign != nullptr && assign->targets.size == 1 &&
                               as<ast::Name>(assign->targets[0]) != nullptr
                           ? as<ast::Attribute>(assign->value)
                           : nullptr;
    const auto* base = attr != nullptr ? as<ast::Name>(attr->value) : nullptr;
    const auto* shape = assign != nullptr ? as<ast::Subscript>(assign->value) : nullptr;
    const auto* shape_attr = shape != nullptr ? as<ast::Attribute>(shape->value) : nullptr;
    found = (base != nullptr && base->id == self) ||
            (shape_attr != nullptr && shape_attr->attr == "shape");
  }
  return false;  // the statement is not in the function's own body
}

// Under a speculation that assumes numbers: a parameter whose default is True, False or
// None (`increase_num_buckets=False`), a flag the rewrite tests in Python (and checks with
// runtime.python_flags) rather than a tensor.
bool AnalysisImpl::is_flag_parameter(const ast::Name& name, ScopeId scope) const {
  if (speculation_ == nullptr || !speculation_->assume_numbers || !scope.is_function())
    return false;
  std::optional<Parameter> parameter = find_parameter(scopes_[scope.index].node, name.id);
  const auto* c = parameter ? as<ast::Constant>(parameter->default_value) : nullptr;
  using Type = ast::ConstantValue::Type;
  return c != nullptr && (c->value.type == Type::True || c->value.type == Type::False ||
                          c->value.type == Type::None);
}

namespace {

// `a ** b` of two number literals with a finite result (`2**0.5`): cannot raise.
bool constant_power(const ast::BinOp& b) {
  auto value = [](const ast::expr* x, double& out) {
    const auto* c = as<ast::Constant>(x);
    if (c == nullptr) return false;
    std::string_view text = c->value.text;
    if (c->value.type == ast::ConstantValue::Type::Int && !text.empty() && text.size() < 16 &&
        std::all_of(text.begin(), text.end(), [](char ch) { return ch >= '0' && ch <= '9'; })) {
      out = std::stod(std::string(text));
      return true;
    }
    if (c->value.type == ast::ConstantValue::Type::Float) {
      out = c->value.number;
      return true;
    }
    return false;
  };
  double base = 0, exponent = 0;
  if (!value(b.left, base) || !value(b.right, exponent)) return false;
  if (base == 0 && exponent < 0) return false;
  if (base < 0 && exponent != std::floor(exponent)) return false;  // a complex result
  return std::isfinite(std::pow(base, exponent)) && std::fabs(exponent) <= 64;
}

}  // namespace

bool AnalysisImpl::number_rec(const ast::expr* e, ScopeId scope, int depth,
                              const PurityFacts& facts) const {
  if (e == nullptr || depth > kMaxDepth) return false;
  switch (e->kind) {
    case ast::Kind::Constant: {
      auto type = as<ast::Constant>(e)->value.type;
      return type == ast::ConstantValue::Type::Int || type == ast::ConstantValue::Type::Float;
    }
    case ast::Kind::Name: {
      const auto* name = as<ast::Name>(e);
      const auto& names = facts.numeric_names;
      if (std::find(names.begin(), names.end(), name->id) != names.end()) return true;
      if (!may_assume_number(*name, scope)) return false;
      auto& numbers = speculation_->numbers;
      bool seen = std::any_of(numbers.begin(), numbers.end(), [&](const ast::expr* other) {
        const auto* same = as<ast::Name>(other);
        return same != nullptr && same->id == name->id;
      });
      if (!seen) numbers.push_back(e);
      if (!seen && is_int_parameter(*name, scope)) speculation_->integers.push_back(e);
      return true;
    }
    case ast::Kind::Call: {
      // min/max of numbers: Python compares them, which cannot raise for int and float
      const auto* call = as<ast::Call>(e);
      const auto* f = as<ast::Name>(call->func);
      if (f != nullptr && in_list(f->id, {"float", "int"}) && lookup(scope, f->id) == nullptr &&
          call->args.size == 1 && call->keywords.empty())  // a number converted
        return number_rec(call->args[0], scope, depth + 1, facts);
      if (f == nullptr || !in_list(f->id, {"min", "max"}) || lookup(scope, f->id) != nullptr ||
          call->args.size < 2 || !call->keywords.empty()) {
        return shape_int(e, scope, depth);
      }
      for (const ast::expr* arg : call->args) {
        if (is<ast::Starred>(arg) || !number_rec(arg, scope, depth + 1, facts)) return false;
      }
      return true;
    }
    case ast::Kind::Attribute: {
      if (shape_int(e, scope, depth)) return true;  // `x.ndim`
      // torch.finfo(<floating dtype>).max
      const auto* a = as<ast::Attribute>(e);
      if (may_assume_number_setting(*a, scope)) return true;
      const auto* call = as<ast::Call>(a->value);
      if (call == nullptr || !has_fact(TorchFact::FinfoField, a->attr) || call->args.size != 1 ||
          !call->keywords.empty() || qualify(call->func, scope) != "torch.finfo") {
        return false;
      }
      return is_floating_dtype(call->args[0], scope, &facts);
    }
    case ast::Kind::UnaryOp: {
      const auto* u = as<ast::UnaryOp>(e);
      return (u->op == ast::UnaryOpKind::USub || u->op == ast::UnaryOpKind::UAdd) &&
             number_rec(u->operand, scope, depth + 1, facts);
    }
    case ast::Kind::BinOp: {
      const auto* b = as<ast::BinOp>(e);
      if (b->op == ast::OperatorKind::Pow) return constant_power(*b);
      // a division by a shape (`x / (len(t) - 1)`) raises only for one shape, which counts
      // as static (see "An assumption, stated" in docs/MENDER.md)
      if (b->op == ast::OperatorKind::Div) {
        return number_rec(b->left, scope, depth + 1, facts) &&
               shape_int(b->right, scope, depth + 1);
      }
      return (b->op == ast::OperatorKind::Add || b->op == ast::OperatorKind::Sub ||
              b->op == ast::OperatorKind::Mult) &&
             number_rec(b->left, scope, depth + 1, facts) &&
             number_rec(b->right, scope, depth + 1, facts);
    }
    case ast::Kind::Subscript:
      return shape_int(e, scope, depth);
    default:
      return false;
  }
}

void AnalysisImpl::add_floating_dtypes(const ast::expr& condition, PurityFacts& facts) const {
  const auto* c = as<ast::Compare>(&condition);
  if (c == nullptr || c->ops.size != 1) return;
  const auto* dtype = as<ast::Attribute>(c->left);
  if (dtype == nullptr || dtype->attr != "dtype") return;
  ScopeId scope = scope_of(&condition);
  bool floating = false;
  if (c->ops[0] == ast::CmpOpKind::Eq) {
    floating = is_floating_dtype(c->comparators[0], scope, nullptr);
  } else if (c->ops[0] == ast::CmpOpKind::In) {
    const ast::Seq<ast::expr*>* options = nullptr;
    if (const auto* t = as<ast::Tuple>(c->comparators[0])) options = &t->elts;
    if (const auto* l = as<ast::List>(c->comparators[0])) options = &l->elts;
    if (const auto* st = as<ast::Set>(c->comparators[0])) options = &st->elts;
    floating = options != nullptr && options->size > 0;
    if (options != nullptr) {
      for (const ast::expr* option : *options) {
        floating = floating && is_floating_dtype(option, scope, nullptr);
      }
    }
  }
  if (floating)
    facts.floating_dtypes.emplace_back(
        source_.text().substr(dtype->begin, dtype->end - dtype->begin));
}

// One is_pure question: the scope and the facts stay the same all the way down. child_pure
// and child_tensor ask about a child of the node at `depth`.
class PurityCheck {
 public:
  PurityCheck(const AnalysisImpl& a, ScopeId scope, const PurityFacts* facts)
      : a_(a), scope_(scope), facts_(facts) {}

  bool pure(const ast::expr* e, int depth) const {
    if (e == nullptr) return true;
    if (depth > kMaxDepth) return false;
    if (facts_ != nullptr &&
        std::find(facts_->opaque.begin(), facts_->opaque.end(), e) != facts_->opaque.end()) {
      return true;
    }
    // a name is pure as it is: asking whether it is a number would assume one
    if (facts_ != nullptr && !is<ast::Name>(e) && a_.number_checked(e, scope_, depth, *facts_))
      return true;
    switch (e->kind) {
      case ast::Kind::Constant:
      case ast::Kind::Name:
      case ast::Kind::Lambda:
        return true;
      case ast::Kind::Attribute: {
        const auto* a = as<ast::Attribute>(e);
        return a->ctx == ast::ExprContext::Load && child_pure(a->value, depth);
      }
      case ast::Kind::Subscript:
        return subscript(*as<ast::Subscript>(e), depth);
      case ast::Kind::Slice: {
        const auto* s = as<ast::Slice>(e);
        return child_pure(s->lower, depth) && child_pure(s->upper, depth) &&
               child_pure(s->step, depth);
      }
      case ast::Kind::Tuple:
        return elements(as<ast::Tuple>(e)->elts, depth);
      case ast::Kind::List:
        return elements(as<ast::List>(e)->elts, depth);
      case ast::Kind::BinOp:
        return binop(*as<ast::BinOp>(e), depth);
      case ast::Kind::UnaryOp:
        return unaryop(*as<ast::UnaryOp>(e), depth);
      case ast::Kind::Compare:
        return compare(*as<ast::Compare>(e), depth);
      case ast::Kind::BoolOp:
        return boolop(*as<ast::BoolOp>(e), depth);
      case ast::Kind::IfExp: {
        const auto* i = as<ast::IfExp>(e);
        return child_pure(i->test, depth) && !shown_tensor(i->test, depth) &&
               child_pure(i->body, depth) && child_pure(i->orelse, depth);
      }
      case ast::Kind::Call:
        return call(*as<ast::Call>(e), depth);
      default:
        return false;  // comprehensions, f-strings, await, yield, walrus, dict/set displays
    }
  }

 private:
  bool child_pure(const ast::expr* x, int depth) const { return pure(x, depth + 1); }
  bool child_tensor(const ast::expr* x, int depth) const {
    return is_tensor_kind(a_.kind_rec(x, scope_, depth + 1));
  }
  // What the text shows, under no speculation: where a tensor would make an expression
  // impure (nothing may be assumed there), and to prefer shown tensors to assumed ones.
  bool shown_tensor(const ast::expr* x, int depth) const {
    Speculation* active = a_.speculation_;
    a_.speculation_ = nullptr;
    bool tensor = child_tensor(x, depth);
    a_.speculation_ = active;
    return tensor;
  }
  // Whether one of two operands is a tensor: one the text shows, else one assumed, a local
  // variable before a `self` attribute (more often a Python number).
  bool either_tensor(const ast::expr* left, const ast::expr* right, int depth) const {
    if (shown_tensor(left, depth) || shown_tensor(right, depth)) return true;
    if (a_.speculation_ == nullptr) return false;
    if (is<ast::Attribute>(left) && is<ast::Name>(right)) std::swap(left, right);
    return child_tensor(left, depth) || child_tensor(right, depth);
  }

  // An index that is a tensor, or that the active speculation may assume one (its run-time
  // check then makes it one, as for `t` in `self.table[t] if t >= 0 else ...`).
  bool tensor_index_part(const ast::expr* part, int depth) const {
    if (is<ast::Slice>(part)) return false;
    return shown_tensor(part, depth) || (a_.speculation_ != nullptr && child_tensor(part, depth));
  }

  bool has_tensor_index(const ast::expr* index, int depth) const {
    if (const auto* parts = as<ast::Tuple>(index)) {
      for (const ast::expr* part : parts->elts) {
        if (tensor_index_part(part, depth)) return true;
      }
      return false;
    }
    return tensor_index_part(index, depth);
  }

  bool subscript(const ast::Subscript& s, int depth) const {
    if (s.ctx != ast::ExprContext::Load || !child_pure(s.value, depth) ||
        !child_pure(s.slice, depth)) {
      return false;
    }
    if (facts_ != nullptr &&
        std::find(facts_->masked_subscripts.begin(), facts_->masked_subscripts.end(), &s) !=
            facts_->masked_subscripts.end()) {
      return true;
    }
    // Indexing with a tensor can raise for some values (out of bounds): a branch on a
    // tensor condition often guards exactly that, so it is not safe to evaluate eagerly.
    if (has_tensor_index(s.slice, depth)) return false;
    ValueKind k = a_.kind_rec(s.value, scope_, depth + 1);
    if (is_tensor_kind(k) || k == ValueKind::TensorTuple) return true;
    if (const auto* at = as<ast::Attribute>(s.value); at && at->attr == "shape") return true;
    return false;
  }

  bool elements(const ast::Seq<ast::expr*>& elts, int depth) const {
    for (const ast::expr* x : elts) {
      if (is<ast::Starred>(x) || !child_pure(x, depth)) return false;
    }
    return true;
  }

  bool binop(const ast::BinOp& b, int depth) const {
    if (!child_pure(b.left, depth) || !child_pure(b.right, depth)) return false;
    if (either_tensor(b.left, b.right, depth)) return true;
    // constant folding such as -1e4 * 2 cannot raise either
    return is<ast::Constant>(b.left) && is<ast::Constant>(b.right) &&
           b.op != ast::OperatorKind::Div && b.op != ast::OperatorKind::FloorDiv &&
           b.op != ast::OperatorKind::Mod && b.op != ast::OperatorKind::Pow;
  }

  bool unaryop(const ast::UnaryOp& u, int depth) const {
    if (!child_pure(u.operand, depth)) return false;
    if (u.op == ast::UnaryOpKind::Not) return !shown_tensor(u.operand, depth);
    if (child_tensor(u.operand, depth)) return true;
    const auto* c = as<ast::Constant>(u.operand);
    return c && (c->value.type == ast::ConstantValue::Type::Int ||
                 c->value.type == ast::ConstantValue::Type::Float);
  }

  bool compare(const ast::Compare& c, int depth) const {
    if (!child_pure(c.left, depth)) return false;
    for (const ast::expr* x : c.comparators) {
      if (!child_pure(x, depth)) return false;
    }
    bool identity = true;
    for (ast::CmpOpKind op : c.ops) {
      identity &= op == ast::CmpOpKind::Is || op == ast::CmpOpKind::IsNot;
    }
    if (identity) return true;
    if (numbers(c, depth) || dtypes(c) || number_in_display(c, depth)) return true;
    if (c.ops.size != 1) return false;
    return either_tensor(c.left, c.comparators[0], depth);
  }

  // `x.dtype == torch.uint8`, `x.dtype in (torch.float32, torch.float64)`: dtypes compare
  // without raising.
  bool dtypes(const ast::Compare& c) const {
    if (!a_.is_dtype_like(c.left, scope_)) return false;
    for (uint32_t i = 0; i < c.ops.size; ++i) {
      const ast::expr* x = c.comparators[i];
      if (c.ops[i] == ast::CmpOpKind::Eq || c.ops[i] == ast::CmpOpKind::NotEq) {
        if (!a_.is_dtype_like(x, scope_)) return false;
        continue;
      }
      if (c.ops[i] != ast::CmpOpKind::In && c.ops[i] != ast::CmpOpKind::NotIn) return false;
      const auto* display = as<ast::Tuple>(x);
      if (display == nullptr) return false;
      for (const ast::expr* element : display->elts)
        if (!a_.is_dtype_like(element, scope_)) return false;
    }
    return true;
  }

  // `n not in (1, 3)`: a number against a display of numbers.
  bool number_in_display(const ast::Compare& c, int depth) const {
    if (facts_ == nullptr || c.ops.size != 1 ||
        (c.ops[0] != ast::CmpOpKind::In && c.ops[0] != ast::CmpOpKind::NotIn))
      return false;
    const ast::Seq<ast::expr*>* elements = nullptr;
    if (const auto* t = as<ast::Tuple>(c.comparators[0])) elements = &t->elts;
    if (const auto* l = as<ast::List>(c.comparators[0])) elements = &l->elts;
    if (elements == nullptr || !a_.number_rec(c.left, scope_, depth + 1, *facts_)) return false;
    for (const ast::expr* x : *elements)
      if (!a_.number_rec(x, scope_, depth + 1, *facts_)) return false;
    return true;
  }

  // Every operand a Python number: comparing int and float cannot raise.
  bool numbers(const ast::Compare& c, int depth) const {
    if (facts_ == nullptr) return false;
    size_t assumed = a_.speculation_ != nullptr ? a_.speculation_->numbers.size() : 0;
    bool numbers = a_.number_rec(c.left, scope_, depth + 1, *facts_);
    for (const ast::expr* x : c.comparators)
      numbers = numbers && a_.number_rec(x, scope_, depth + 1, *facts_);
    if (!numbers && a_.speculation_ != nullptr) a_.speculation_->numbers.resize(assumed);
    return numbers;
  }

  bool boolop(const ast::BoolOp& b, int depth) const {
    for (const ast::expr* v : b.values) {
      if (!child_pure(v, depth) || shown_tensor(v, depth)) return false;
    }
    return true;
  }

  bool call(const ast::Call& call, int depth) const {
    for (const ast::expr* arg : call.args) {
      if (is<ast::Starred>(arg) || !child_pure(arg, depth)) return false;
    }
    for (const ast::keyword* k : call.keywords) {
      if (k->arg.empty() || k->arg == "out" || !child_pure(k->value, depth)) return false;
      if (k->arg == "inplace") {
        const auto* c = as<ast::Constant>(k->value);
        if (!c || c->value.type != ast::ConstantValue::Type::False) return false;
      }
    }
    std::string q = a_.qualify(call.func, scope_);
    if (!q.empty()) return torch_function(q);
    const auto* attr = as<ast::Attribute>(call.func);
    if (attr == nullptr) {
      if (const auto* name = as<ast::Name>(call.func)) {
        if (a_.lookup(scope_, name->id) == nullptr && in_list(name->id, {"isinstance", "len"})) {
          return true;
        }
      }
      return a_.helper_call_pure(call, scope_, depth);
    }
    return method(call, *attr, depth) || a_.helper_call_pure(call, scope_, depth);
  }

  static bool torch_function(std::string_view q) {
    if (!starts_with(q, "torch.")) return false;
    std::string_view name = q.substr(6);
    if (starts_with(name, "nn.functional.")) {
      return has_fact(TorchFact::PureFunctional, name.substr(14));
    }
    if (starts_with(name, "special.")) return true;
    return has_fact(TorchFact::PureTorch, name);
  }

  bool method(const ast::Call& call, const ast::Attribute& attr, int depth) const {
    std::string_view m = attr.attr;
    if (!m.empty() && m.back() == '_') return false;  // in place
    if (!child_pure(attr.value, depth) || !child_tensor(attr.value, depth)) return false;
    if (!has_fact(TorchFact::PureMethod, m)) return false;
    if (m == "to" || m == "type") {  // only dtype conversions
      if (call.args.empty() && call.keywords.empty()) return m == "to";
      for (const ast::expr* arg : call.args) {
        if (!a_.is_dtype_like(arg, scope_)) return false;
      }
      for (const ast::keyword* k : call.keywords) {
        if (k->arg != "dtype") return false;
      }
    }
    return true;
  }

  const AnalysisImpl& a_;
  ScopeId scope_;
  const PurityFacts* facts_;
};

bool AnalysisImpl::pure_in_scope(const ast::expr& e, ScopeId scope, int depth) const {
  // the caller's facts name its own values; a helper's frame knows its numbers
  PurityFacts facts;
  if (frame_ != nullptr && frame_->scope == scope) facts.numeric_names = frame_->numbers;
  return PurityCheck(*this, scope, &facts).pure(&e, depth);
}

bool AnalysisImpl::is_pure(const ast::expr& e) const {
  return PurityCheck(*this, scope_of(&e), nullptr).pure(&e, 0);
}

bool AnalysisImpl::is_pure(const ast::expr& e, const PurityFacts& facts) const {
  return PurityCheck(*this, scope_of(&e), &facts).pure(&e, 0);
}

}  // namespace graphmend::sema

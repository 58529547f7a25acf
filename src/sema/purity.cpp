// Purity: expressions free of side effects that cannot raise for well-typed tensor
// operands, and the Python numbers (torch.finfo fields) that facts make pure.
#include <algorithm>

#include "sema/analysis_impl.h"
#include "sema/helpers.h"
#include "sema/torch_facts.h"

namespace graphmend::sema {

using ast::as;
using ast::is;

namespace {

bool is_dtype_like(const ast::expr* arg, const AnalysisImpl& a, int scope) {
  if (const auto* at = as<ast::Attribute>(arg); at && at->attr == "dtype") return true;
  std::string q = a.qualify(arg, scope);
  if (!starts_with(q, "torch.")) return false;
  std::string_view t = std::string_view(q).substr(6);
  return has_fact(TorchFact::DtypeName, t);
}

}  // namespace

bool AnalysisImpl::is_pure(const ast::expr& e) const { return pure_rec(&e, scope_of(&e), 0); }

bool AnalysisImpl::is_pure(const ast::expr& e, const PurityFacts& facts) const {
  return pure_rec(&e, scope_of(&e), 0, &facts);
}

bool AnalysisImpl::is_number(const ast::expr& e, const PurityFacts& facts) const {
  return number_rec(&e, scope_of(&e), 0, facts);
}

// A literal floating dtype (`torch.float16`) or a dtype expression `facts` show floating.
bool AnalysisImpl::is_floating_dtype(const ast::expr* e, int scope,
                                     const PurityFacts* facts) const {
  if (has_fact(TorchFact::FloatingDtype, qualify(e, scope))) return true;
  if (facts == nullptr) return false;
  std::string_view text = source_.text().substr(e->begin, e->end - e->begin);
  return std::find(facts->floating_dtypes.begin(), facts->floating_dtypes.end(), text) !=
         facts->floating_dtypes.end();
}

bool AnalysisImpl::number_rec(const ast::expr* e, int scope, int depth,
                              const PurityFacts& facts) const {
  if (e == nullptr || depth > kMaxDepth) return false;
  switch (e->kind) {
    case ast::Kind::Constant: {
      auto type = as<ast::Constant>(e)->value.type;
      return type == ast::ConstantValue::Type::Int || type == ast::ConstantValue::Type::Float;
    }
    case ast::Kind::Name: {
      const auto& names = facts.numeric_names;
      return std::find(names.begin(), names.end(), as<ast::Name>(e)->id) != names.end();
    }
    case ast::Kind::Attribute: {
      // torch.finfo(<floating dtype>).max
      const auto* a = as<ast::Attribute>(e);
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
      return (b->op == ast::OperatorKind::Add || b->op == ast::OperatorKind::Sub ||
              b->op == ast::OperatorKind::Mult) &&
             number_rec(b->left, scope, depth + 1, facts) &&
             number_rec(b->right, scope, depth + 1, facts);
    }
    default:
      return false;
  }
}

void AnalysisImpl::add_floating_dtypes(const ast::expr& condition, PurityFacts& facts) const {
  const auto* c = as<ast::Compare>(&condition);
  if (c == nullptr || c->ops.size != 1) return;
  const auto* dtype = as<ast::Attribute>(c->left);
  if (dtype == nullptr || dtype->attr != "dtype") return;
  int scope = scope_of(&condition);
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

bool AnalysisImpl::pure_rec(const ast::expr* e, int scope, int depth,
                            const PurityFacts* facts) const {
  if (e == nullptr) return true;
  if (depth > kMaxDepth) return false;
  if (facts != nullptr && number_rec(e, scope, depth, *facts)) return true;
  auto pure = [&](const ast::expr* x) { return pure_rec(x, scope, depth + 1, facts); };
  auto tensor = [&](const ast::expr* x) { return is_tensor_kind(kind_rec(x, scope, depth + 1)); };
  auto has_tensor_index = [&](const ast::expr* index) {
    if (const auto* parts = as<ast::Tuple>(index)) {
      for (const ast::expr* part : parts->elts) {
        if (!is<ast::Slice>(part) && tensor(part)) return true;
      }
      return false;
    }
    return !is<ast::Slice>(index) && tensor(index);
  };
  switch (e->kind) {
    case ast::Kind::Constant:
    case ast::Kind::Name:
    case ast::Kind::Lambda:
      return true;
    case ast::Kind::Attribute: {
      const auto* a = as<ast::Attribute>(e);
      return a->ctx == ast::ExprContext::Load && pure(a->value);
    }
    case ast::Kind::Subscript: {
      const auto* s = as<ast::Subscript>(e);
      if (s->ctx != ast::ExprContext::Load || !pure(s->value) || !pure(s->slice)) return false;
      // Indexing with a tensor can raise for some values (out of bounds): a branch on a
      // tensor condition often guards exactly that, so it is not safe to evaluate eagerly.
      if (has_tensor_index(s->slice)) return false;
      ValueKind k = kind_rec(s->value, scope, depth + 1);
      if (is_tensor_kind(k) || k == ValueKind::TensorTuple) return true;
      if (const auto* at = as<ast::Attribute>(s->value); at && at->attr == "shape") return true;
      return false;
    }
    case ast::Kind::Slice: {
      const auto* s = as<ast::Slice>(e);
      return pure(s->lower) && pure(s->upper) && pure(s->step);
    }
    case ast::Kind::Tuple: {
      for (const ast::expr* x : as<ast::Tuple>(e)->elts) {
        if (is<ast::Starred>(x) || !pure(x)) return false;
      }
      return true;
    }
    case ast::Kind::List: {
      for (const ast::expr* x : as<ast::List>(e)->elts) {
        if (is<ast::Starred>(x) || !pure(x)) return false;
      }
      return true;
    }
    case ast::Kind::BinOp: {
      const auto* b = as<ast::BinOp>(e);
      if (!pure(b->left) || !pure(b->right)) return false;
      if (tensor(b->left) || tensor(b->right)) return true;
      // constant folding such as -1e4 * 2 cannot raise either
      return is<ast::Constant>(b->left) && is<ast::Constant>(b->right) &&
             b->op != ast::OperatorKind::Div && b->op != ast::OperatorKind::FloorDiv &&
             b->op != ast::OperatorKind::Mod && b->op != ast::OperatorKind::Pow;
    }
    case ast::Kind::UnaryOp: {
      const auto* u = as<ast::UnaryOp>(e);
      if (!pure(u->operand)) return false;
      if (u->op == ast::UnaryOpKind::Not) return !tensor(u->operand);
      if (tensor(u->operand)) return true;
      const auto* c = as<ast::Constant>(u->operand);
      return c && (c->value.type == ast::ConstantValue::Type::Int ||
                   c->value.type == ast::ConstantValue::Type::Float);
    }
    case ast::Kind::Compare: {
      const auto* c = as<ast::Compare>(e);
      if (!pure(c->left)) return false;
      for (const ast::expr* x : c->comparators) {
        if (!pure(x)) return false;
      }
      bool identity = true;
      for (ast::CmpOpKind op : c->ops) {
        identity &= op == ast::CmpOpKind::Is || op == ast::CmpOpKind::IsNot;
      }
      if (identity) return true;
      if (c->ops.size != 1) return false;
      return tensor(c->left) || tensor(c->comparators[0]);
    }
    case ast::Kind::BoolOp: {
      for (const ast::expr* v : as<ast::BoolOp>(e)->values) {
        if (!pure(v) || tensor(v)) return false;
      }
      return true;
    }
    case ast::Kind::IfExp: {
      const auto* i = as<ast::IfExp>(e);
      return pure(i->test) && !tensor(i->test) && pure(i->body) && pure(i->orelse);
    }
    case ast::Kind::Call: {
      const auto* call = as<ast::Call>(e);
      for (const ast::expr* arg : call->args) {
        if (is<ast::Starred>(arg) || !pure(arg)) return false;
      }
      for (const ast::keyword* k : call->keywords) {
        if (k->arg.empty() || k->arg == "out" || !pure(k->value)) return false;
        if (k->arg == "inplace") {
          const auto* c = as<ast::Constant>(k->value);
          if (!c || c->value.type != ast::ConstantValue::Type::False) return false;
        }
      }
      std::string q = qualify(call->func, scope);
      if (!q.empty()) {
        if (!starts_with(q, "torch.")) return false;
        std::string_view name = std::string_view(q).substr(6);
        if (starts_with(name, "nn.functional."))
          return has_fact(TorchFact::PureFunctional, name.substr(14));
        if (starts_with(name, "special.")) return true;
        return has_fact(TorchFact::PureTorch, name);
      }
      const auto* attr = as<ast::Attribute>(call->func);
      if (attr == nullptr) {
        if (const auto* name = as<ast::Name>(call->func)) {
          if (lookup(scope, name->id) == nullptr && in_list(name->id, {"isinstance", "len"})) {
            return true;
          }
        }
        return false;
      }
      std::string_view m = attr->attr;
      if (!m.empty() && m.back() == '_') return false;  // in place
      if (!pure(attr->value) || !tensor(attr->value)) return false;
      if (!has_fact(TorchFact::PureMethod, m)) return false;
      if (m == "to" || m == "type") {  // only dtype conversions
        if (call->args.empty() && call->keywords.empty()) return m == "to";
        for (const ast::expr* arg : call->args) {
          if (!is_dtype_like(arg, *this, scope)) return false;
        }
        for (const ast::keyword* k : call->keywords) {
          if (k->arg != "dtype") return false;
        }
      }
      return true;
    }
    default:
      return false;  // comprehensions, f-strings, await, yield, walrus, dict/set displays
  }
}

}  // namespace graphmend::sema

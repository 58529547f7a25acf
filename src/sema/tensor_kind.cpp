// Tensor-ness: which expressions are tensors, bool tensors, tuples of tensors or Python
// values computed from tensor data, and the kind of every definition of a flow graph.
#include <optional>

#include "sema/analysis_impl.h"
#include "sema/helpers.h"
#include "sema/torch_facts.h"

namespace graphmend::sema {

using ast::as;
using ast::is;

ValueKind AnalysisImpl::kind_of(const ast::expr& e) const { return kind_rec(&e, scope_of(&e), 0); }

bool AnalysisImpl::is_tensor(const ast::expr& e) const { return is_tensor_kind(kind_of(e)); }

bool AnalysisImpl::is_bool_tensor(const ast::expr& e) const {
  return kind_of(e) == ValueKind::BoolTensor;
}

bool AnalysisImpl::is_data_dependent(const ast::expr& condition) const {
  return is_data_kind(kind_of(condition));
}

ValueKind AnalysisImpl::kind_rec(const ast::expr* e, ScopeId scope, int depth) const {
  if (e == nullptr || depth > kMaxDepth) return ValueKind::Other;
  if (const auto* name = as<ast::Name>(e); name && frame_ != nullptr && frame_->scope == scope) {
    auto it = frame_->kinds.find(name->id);
    if (it != frame_->kinds.end()) return it->second;
  }
  if (speculation_ != nullptr && (is<ast::Name>(e) || is<ast::Attribute>(e))) {
    return speculated_kind(e, scope, depth);
  }
  switch (e->kind) {
    case ast::Kind::Name:
      return kind_of_name(*as<ast::Name>(e), scope);
    case ast::Kind::NamedExpr:
      return kind_rec(as<ast::NamedExpr>(e)->value, scope, depth + 1);
    case ast::Kind::Attribute:
      return attribute_kind(*as<ast::Attribute>(e), scope, depth);
    case ast::Kind::Subscript:
      return subscript_kind(*as<ast::Subscript>(e), scope, depth);
    case ast::Kind::Call:
      return call_kind(*as<ast::Call>(e), scope, depth);
    case ast::Kind::BinOp:
      return binop_kind(*as<ast::BinOp>(e), scope, depth);
    case ast::Kind::UnaryOp:
      return unaryop_kind(*as<ast::UnaryOp>(e), scope, depth);
    case ast::Kind::Compare:
      return compare_kind(*as<ast::Compare>(e), scope, depth);
    case ast::Kind::BoolOp:
      return boolop_kind(*as<ast::BoolOp>(e), scope, depth);
    case ast::Kind::IfExp: {
      const auto* i = as<ast::IfExp>(e);
      return join_kind(kind_rec(i->body, scope, depth + 1), kind_rec(i->orelse, scope, depth + 1));
    }
    case ast::Kind::Tuple:
      return tuple_kind(*as<ast::Tuple>(e), scope, depth);
    default:
      return ValueKind::Other;
  }
}

ValueKind AnalysisImpl::attribute_kind(const ast::Attribute& a, ScopeId scope, int depth) const {
  ValueKind base = kind_rec(a.value, scope, depth + 1);
  if (is_tensor_kind(base)) {
    if (in_list(a.attr, {"T", "mT", "H", "mH", "data", "real", "imag", "grad"})) {
      return a.attr == "T" || a.attr == "mT" || a.attr == "data" ? base : ValueKind::Tensor;
    }
    return ValueKind::Other;
  }
  if (base == ValueKind::TensorTuple && in_list(a.attr, {"values", "indices"})) {
    return ValueKind::Tensor;
  }
  return ValueKind::Other;
}

ValueKind AnalysisImpl::subscript_kind(const ast::Subscript& s, ScopeId scope, int depth) const {
  ValueKind base = kind_rec(s.value, scope, depth + 1);
  if (is_tensor_kind(base)) return base;
  if (base == ValueKind::TensorTuple) return ValueKind::Tensor;
  return ValueKind::Other;
}

// The kinds of two operands: what the text shows, and under a speculation, when it shows no
// tensor, one assumed (a local variable before a `self` attribute, more often a number).
std::pair<ValueKind, ValueKind> AnalysisImpl::operand_kinds(const ast::expr* left,
                                                            const ast::expr* right, ScopeId scope,
                                                            int depth) const {
  Speculation* active = speculation_;
  speculation_ = nullptr;
  ValueKind l = kind_rec(left, scope, depth + 1);
  ValueKind r = kind_rec(right, scope, depth + 1);
  speculation_ = active;
  if (active == nullptr || is_tensor_kind(l) || is_tensor_kind(r)) return {l, r};
  bool swap = is<ast::Attribute>(left) && is<ast::Name>(right);
  const ast::expr* first = swap ? right : left;
  const ast::expr* second = swap ? left : right;
  ValueKind k = kind_rec(first, scope, depth + 1);
  if (is_tensor_kind(k)) return swap ? std::pair{l, k} : std::pair{k, r};
  k = kind_rec(second, scope, depth + 1);
  return swap ? std::pair{k, r} : std::pair{l, k};
}

ValueKind AnalysisImpl::binop_kind(const ast::BinOp& b, ScopeId scope, int depth) const {
  auto [l, r] = operand_kinds(b.left, b.right, scope, depth);
  if (is_tensor_kind(l) || is_tensor_kind(r)) {
    bool bitwise = b.op == ast::OperatorKind::BitAnd || b.op == ast::OperatorKind::BitOr ||
                   b.op == ast::OperatorKind::BitXor;
    if (bitwise && l == ValueKind::BoolTensor && r == ValueKind::BoolTensor) {
      return ValueKind::BoolTensor;
    }
    if (l == ValueKind::TensorTuple || r == ValueKind::TensorTuple) return ValueKind::Other;
    return ValueKind::Tensor;
  }
  if (l == ValueKind::DataScalar || r == ValueKind::DataScalar) return ValueKind::DataScalar;
  return ValueKind::Other;
}

ValueKind AnalysisImpl::unaryop_kind(const ast::UnaryOp& u, ScopeId scope, int depth) const {
  ValueKind k = kind_rec(u.operand, scope, depth + 1);
  if (u.op == ast::UnaryOpKind::Not) {
    return is_data_kind(k) ? ValueKind::DataScalar : ValueKind::Other;
  }
  if (k == ValueKind::BoolTensor && u.op != ast::UnaryOpKind::Invert) return ValueKind::Tensor;
  return k == ValueKind::TensorTuple ? ValueKind::Other : k;
}

namespace {

// `x[:, i]`, `x[..., [0, -1]]`: a subscript whose index is a tuple holding a slice or an
// ellipsis, which only arrays and tensors take.
bool is_array_subscript(const ast::expr* e) {
  const auto* subscript = as<ast::Subscript>(e);
  const auto* index = subscript ? as<ast::Tuple>(subscript->slice) : nullptr;
  if (index == nullptr) return false;
  for (const ast::expr* part : index->elts) {
    if (is<ast::Slice>(part)) return true;
    if (const auto* c = as<ast::Constant>(part);
        c && c->value.type == ast::ConstantValue::Type::Ellipsis)
      return true;
  }
  return false;
}

}  // namespace

ValueKind AnalysisImpl::compare_kind(const ast::Compare& c, ScopeId scope, int depth) const {
  // `v in t` on a tensor is `bool((v == t).any().item())`: a Python bool from tensor data
  if (c.ops.size == 1 && (c.ops[0] == ast::CmpOpKind::In || c.ops[0] == ast::CmpOpKind::NotIn)) {
    const ast::expr* container = c.comparators[0];
    bool tensor = is_tensor_kind(kind_rec(container, scope, depth + 1)) ||
                  (is_array_subscript(container) && !known_non_tensor(container, scope, 0));
    return tensor ? ValueKind::DataScalar : ValueKind::Other;
  }
  for (ast::CmpOpKind op : c.ops) {
    if (op == ast::CmpOpKind::Is || op == ast::CmpOpKind::IsNot || op == ast::CmpOpKind::In ||
        op == ast::CmpOpKind::NotIn) {
      return ValueKind::Other;
    }
  }
  bool tensor = false, data = false;
  if (c.ops.size == 1) {
    auto [l, r] = operand_kinds(c.left, c.comparators[0], scope, depth);
    tensor = is_tensor_kind(l) || is_tensor_kind(r);
    data = l == ValueKind::DataScalar || r == ValueKind::DataScalar;
  } else {
    ValueKind l = kind_rec(c.left, scope, depth + 1);
    tensor |= is_tensor_kind(l);
    data |= l == ValueKind::DataScalar;
    for (const ast::expr* r : c.comparators) {
      ValueKind k = kind_rec(r, scope, depth + 1);
      tensor |= is_tensor_kind(k);
      data |= k == ValueKind::DataScalar;
    }
  }
  if (tensor) return c.ops.size == 1 ? ValueKind::BoolTensor : ValueKind::DataScalar;
  return data ? ValueKind::DataScalar : ValueKind::Other;
}

ValueKind AnalysisImpl::boolop_kind(const ast::BoolOp& b, ScopeId scope, int depth) const {
  // `flag and mask.any()`: nothing is assumed a tensor under `and`/`or` (a Python flag there
  // is the common case, and assuming it would fail every run-time check); evidence for
  // tagging is read there as anywhere (`labels is not None and pad in labels`)
  Speculation* active = speculation_;
  if (active != nullptr && !active->class_evidence) speculation_ = nullptr;
  ValueKind k = boolop_kind_shown(b, scope, depth);
  speculation_ = active;
  return k;
}

ValueKind AnalysisImpl::boolop_kind_shown(const ast::BoolOp& b, ScopeId scope, int depth) const {
  bool all_tensor = true, all_bool = true, any_data = false;
  for (const ast::expr* v : b.values) {
    ValueKind k = kind_rec(v, scope, depth + 1);
    all_tensor &= is_tensor_kind(k);
    all_bool &= k == ValueKind::BoolTensor;
    any_data |= is_data_kind(k);
  }
  if (all_tensor) return all_bool ? ValueKind::BoolTensor : ValueKind::Tensor;
  return any_data ? ValueKind::DataScalar : ValueKind::Other;
}

ValueKind AnalysisImpl::tuple_kind(const ast::Tuple& t, ScopeId scope, int depth) const {
  if (t.elts.empty()) return ValueKind::Other;
  for (const ast::expr* x : t.elts) {
    if (!is_tensor_kind(kind_rec(x, scope, depth + 1))) return ValueKind::Other;
  }
  return ValueKind::TensorTuple;
}

namespace {

ValueKind torch_function_kind(std::string_view name, const ast::Call& call, const AnalysisImpl& a,
                              ScopeId scope) {
  // name is the part after "torch."
  size_t dot = name.find('.');
  if (dot != std::string_view::npos) {
    std::string_view package = name.substr(0, dot);
    std::string_view rest = name.substr(dot + 1);
    if (package == "nn") {
      if (starts_with(rest, "functional.")) {
        std::string_view fn = rest.substr(11);
        if (fn.find('.') != std::string_view::npos) return ValueKind::Other;
        return ValueKind::Tensor;
      }
      return ValueKind::Other;
    }
    if (in_list(package, {"linalg", "fft", "special"})) return ValueKind::Tensor;
    return ValueKind::Other;
  }
  if (name.empty()) return ValueKind::Other;
  if (in_list(name, {"equal", "allclose", "is_nonzero"})) return ValueKind::DataScalar;
  if (name[0] >= 'A' && name[0] <= 'Z') {
    return ends_with(name, "Tensor") ? ValueKind::Tensor : ValueKind::Other;
  }
  // torch.distributions' validation reads these: `t.all()` / `t.any()` of a bool tensor
  if (in_list(name, {"_is_all_true", "_is_any_true"})) return ValueKind::BoolTensor;
  if (name[0] == '_' || starts_with(name, "is_") || starts_with(name, "get_") ||
      starts_with(name, "set_") || starts_with(name, "use_") || starts_with(name, "are_")) {
    return ValueKind::Other;
  }
  if (has_fact(TorchFact::NonTensorTorch, name)) return ValueKind::Other;
  if (has_fact(TorchFact::TupleOp, name)) return ValueKind::TensorTuple;
  if (in_list(name, {"max", "min", "median", "nanmedian"})) {
    if (find_keyword(call, "dim") != nullptr) return ValueKind::TensorTuple;
    if (call.args.size >= 2 && !is_tensor_kind(a.kind_of(*call.args[1]))) {
      return ValueKind::TensorTuple;
    }
    return ValueKind::Tensor;
  }
  if (name == "where" && call.args.size == 1) return ValueKind::TensorTuple;
  if (name == "nonzero") {
    if (const ast::keyword* k = find_keyword(call, "as_tuple")) {
      const auto* c = as<ast::Constant>(k->value);
      if (!c || c->value.type != ast::ConstantValue::Type::False) return ValueKind::TensorTuple;
    }
    return ValueKind::Tensor;
  }
  if (has_fact(TorchFact::BoolOp, name)) return ValueKind::BoolTensor;
  if (const ast::keyword* k = find_keyword(call, "dtype")) {
    if (a.qualify(k->value, scope) == "torch.bool") return ValueKind::BoolTensor;
  }
  return ValueKind::Tensor;
}

bool is_bool_dtype_arg(const ast::Call& call, const AnalysisImpl& a, ScopeId scope) {
  for (const ast::expr* arg : call.args) {
    if (a.qualify(arg, scope) == "torch.bool") return true;
  }
  if (const ast::keyword* k = find_keyword(call, "dtype")) {
    return a.qualify(k->value, scope) == "torch.bool";
  }
  return false;
}

// Whether `.to(...)` names a dtype (not only a device): a bool tensor then changes dtype.
bool names_dtype(const ast::Call& call, const AnalysisImpl& a, ScopeId scope) {
  bool dtype = find_keyword(call, "dtype") != nullptr;
  for (const ast::expr* arg : call.args) {
    std::string aq = a.qualify(arg, scope);
    if (starts_with(aq, "torch.") && aq != "torch.device") dtype = true;
    if (const auto* at = as<ast::Attribute>(arg); at && at->attr == "dtype") dtype = true;
  }
  return dtype;
}

}  // namespace

ValueKind AnalysisImpl::call_kind(const ast::Call& call, ScopeId scope, int depth) const {
  const ast::expr* func = call.func;
  std::string q = qualify(func, scope);
  if (!q.empty()) {
    if (starts_with(q, "torch.")) {
      return torch_function_kind(std::string_view(q).substr(6), call, *this, scope);
    }
    return ValueKind::Other;
  }
  if (const auto* name = as<ast::Name>(func)) return name_call_kind(call, *name, scope, depth);
  if (const auto* sub = as<ast::Subscript>(func)) {
    return subscript_call_kind(call, *sub, scope, depth);
  }
  const auto* attr = as<ast::Attribute>(func);
  if (attr == nullptr) return ValueKind::Other;
  return method_call_kind(call, *attr, scope, depth);
}

bool AnalysisImpl::first_arg_tensor(const ast::Call& call, ScopeId scope, int depth) const {
  return !call.args.empty() && is_tensor_kind(kind_rec(call.args[0], scope, depth + 1));
}

// f(x): a builtin conversion, or an instance of a local nn.Module called on a tensor.
ValueKind AnalysisImpl::name_call_kind(const ast::Call& call, const ast::Name& name, ScopeId scope,
                                       int depth) const {
  const Binding* b = lookup(scope, name.id);
  if (b == nullptr) {
    if (in_list(name.id, {"int", "float", "bool", "complex"}) && call.args.size == 1) {
      return is_data_kind(kind_rec(call.args[0], scope, depth + 1)) ? ValueKind::DataScalar
                                                                    : ValueKind::Other;
    }
    if (name.id == "abs" && call.args.size == 1) {
      ValueKind k = kind_rec(call.args[0], scope, depth + 1);
      return k == ValueKind::BoolTensor ? ValueKind::Tensor : k;
    }
    return ValueKind::Other;
  }
  if (!b->conflicting && b->kind == BindKind::Function) return helper_call_kind(call, scope, depth);
  if (!b->conflicting && b->kind == BindKind::Instance && b->class_index.has_value() &&
      classes_[b->class_index.index].is_module && first_arg_tensor(call, scope, depth)) {
    return ValueKind::Tensor;
  }
  return ValueKind::Other;
}

// self.layers[i](x): a submodule call
ValueKind AnalysisImpl::subscript_call_kind(const ast::Call& call, const ast::Subscript& sub,
                                            ScopeId scope, int depth) const {
  const ast::expr* root = sub.value;
  while (const auto* at = as<ast::Attribute>(root)) root = at->value;
  if (const auto* recv = as<ast::Name>(root)) {
    ClassId klass = self_class_of_scope(scope, recv->id);
    if (klass.has_value() && classes_[klass.index].is_module &&
        first_arg_tensor(call, scope, depth)) {
      return ValueKind::Tensor;
    }
  }
  return ValueKind::Other;
}

// self.<submodule>(x) / self.a.b(x) in an nn.Module method, or a method of a module or
// class; nullopt for any other receiver.
std::optional<ValueKind> AnalysisImpl::self_call_kind(const ast::Call& call,
                                                      const ast::Attribute& attr, ScopeId scope,
                                                      int depth) const {
  const ast::expr* root = attr.value;
  int hops = 0;
  while (const auto* at = as<ast::Attribute>(root)) root = at->value, ++hops;
  const auto* recv = as<ast::Name>(root);
  if (recv == nullptr) return std::nullopt;
  ClassId klass = self_class_of_scope(scope, recv->id);
  if (klass.has_value()) {
    if (hops == 0 && find_method(klass, attr.attr) != nullptr)
      return helper_call_kind(call, scope, depth);
    // self.running_max.max(): a reduction of an attribute (a buffer), not a submodule call
    if (hops > 0 && has_fact(TorchFact::Reduction, attr.attr) &&
        !first_arg_tensor(call, scope, depth)) {
      return std::nullopt;
    }
    if (classes_[klass.index].is_module && first_arg_tensor(call, scope, depth)) {
      return ValueKind::Tensor;
    }
    return ValueKind::Other;
  }
  if (hops == 0) {
    const Binding* b = lookup(scope, recv->id);
    if (b && (b->kind == BindKind::Import || b->kind == BindKind::Class)) return ValueKind::Other;
  }
  return std::nullopt;
}

ValueKind AnalysisImpl::method_call_kind(const ast::Call& call, const ast::Attribute& attr,
                                         ScopeId scope, int depth) const {
  if (std::optional<ValueKind> k = self_call_kind(call, attr, scope, depth)) return *k;
  std::string_view m = attr.attr;
  ValueKind rk = kind_rec(attr.value, scope, depth + 1);
  if (!is_tensor_kind(rk)) {
    if (rk == ValueKind::TensorTuple || known_non_tensor(attr.value, scope, 0)) {
      return ValueKind::Other;
    }
    // A reduction is a tensor op whatever the receiver: the design's data-dependence rule.
    if (in_list(m, {"item", "tolist"}) && call.args.empty()) return ValueKind::DataScalar;
    if (!has_fact(TorchFact::Reduction, m)) return ValueKind::Other;
    rk = ValueKind::Tensor;
  }
  return tensor_method_kind(call, m, rk, scope, depth);
}

// <receiver>.m(...) where the receiver is (or counts as) a tensor of kind `rk`.
ValueKind AnalysisImpl::tensor_method_kind(const ast::Call& call, std::string_view m, ValueKind rk,
                                           ScopeId scope, int depth) const {
  if (in_list(m, {"item", "tolist", "equal", "allclose", "is_nonzero"})) {
    return ValueKind::DataScalar;
  }
  if (starts_with(m, "is_") || has_fact(TorchFact::NonTensorMethod, m)) {
    if (m == "type" && !call.args.empty()) return ValueKind::Tensor;
    return ValueKind::Other;
  }
  if (has_fact(TorchFact::TupleOp, m)) return ValueKind::TensorTuple;
  if (in_list(m, {"max", "min", "median", "nanmedian"})) {
    if (find_keyword(call, "dim") != nullptr) return ValueKind::TensorTuple;
    if (!call.args.empty() && !is_tensor_kind(kind_rec(call.args[0], scope, depth + 1))) {
      return ValueKind::TensorTuple;
    }
    return ValueKind::Tensor;
  }
  if (has_fact(TorchFact::BoolOp, m)) return ValueKind::BoolTensor;
  if ((m == "to" || m == "type") && is_bool_dtype_arg(call, *this, scope)) {
    return ValueKind::BoolTensor;
  }
  if (rk == ValueKind::BoolTensor && has_fact(TorchFact::ShapeOp, m)) return ValueKind::BoolTensor;
  if (rk == ValueKind::BoolTensor && m == "to" && !call.args.empty() &&
      !is_bool_dtype_arg(call, *this, scope)) {
    return names_dtype(call, *this, scope) ? ValueKind::Tensor : ValueKind::BoolTensor;
  }
  return ValueKind::Tensor;
}

// Whether every definition in `defs` binds a value known not to be a tensor (and one does).
bool AnalysisImpl::defs_non_tensor(const std::vector<const Def*>& defs, ScopeId scope,
                                   int depth) const {
  bool any = false;
  for (const Def* reaching : defs) {
    const Def& def = *reaching;
    if (def.source == Def::Source::Unbound) continue;
    any = true;
    if (def.source == Def::Source::Value) {
      if (!known_non_tensor(def.value, scope, depth + 1)) return false;
    } else if (def.source == Def::Source::Param) {
      const auto* a = as<ast::arg>(def.origin);
      const ast::expr* ann = a ? a->annotation : nullptr;
      const auto* n = as<ast::Name>(ann);
      if (n == nullptr ||
          !in_list(n->id, {"int", "float", "bool", "str", "list", "tuple", "dict"})) {
        std::string q = ann ? qualify(ann, kModuleScope) : std::string();
        if (!starts_with(q, "numpy.")) return false;
      }
    } else {
      return false;
    }
  }
  return any;
}

// Whether `name` holds no tensor where `statement` begins (known_non_tensor, over the
// definitions reaching it).
bool AnalysisImpl::known_non_tensor_before(const ast::stmt& statement,
                                           std::string_view name) const {
  non_tensor_budget_ = 256;
  return defs_non_tensor(defs_before(statement, name), scope_of(&statement), 1);
}

// Values shown not to be tensors: literals, results of other modules' functions (numpy,
// math), parameters annotated with builtin types, and names bound only to such values.
// They keep the reduction rule (`x.max()` is a tensor op) off numpy code.
bool AnalysisImpl::known_non_tensor(const ast::expr* e, ScopeId scope, int depth) const {
  if (depth == 0) non_tensor_budget_ = 256;  // names fan out over definitions: bound the work
  if (e == nullptr || depth > 8 || --non_tensor_budget_ < 0) return false;
  if (is_literal(e) || is_shape_read(e)) return true;
  if (const auto* name = as<ast::Name>(e))
    return defs_non_tensor(reaching_defs(*name, scope), scope, depth);
  if (const auto* b = as<ast::BinOp>(e)) {
    return known_non_tensor(b->left, scope, depth + 1) &&
           known_non_tensor(b->right, scope, depth + 1);
  }
  if (const auto* a = as<ast::Attribute>(e)) {
    if (class_sets_setting(*a, scope)) return true;
  }
  // np.array(...), np.broadcast_to(...)[...], math.floor(...)
  const ast::expr* root = e;
  for (int guard = 0; guard < 32; ++guard) {
    if (const auto* c = as<ast::Call>(root)) {
      root = c->func;
    } else if (const auto* a = as<ast::Attribute>(root)) {
      root = a->value;
    } else if (const auto* sub = as<ast::Subscript>(root)) {
      root = sub->value;
    } else {
      break;
    }
  }
  if (root == e) return false;
  const auto* base = as<ast::Name>(root);
  if (base == nullptr) return false;
  if (!is<ast::Call>(e) && !is<ast::Subscript>(e)) return false;
  const Binding* b = lookup(scope, base->id);
  if (b != nullptr && !b->conflicting && b->kind == BindKind::Import) {
    return b->path.find("torch") == std::string::npos;
  }
  // methods of a known non-tensor (arr.reshape(...) on a numpy array) stay non-tensors
  return known_non_tensor(base, scope, depth + 1);
}

// `x.shape`, `x.shape[0]`, `x.ndim`, `len(x)`: a size, whatever `x` is (a tensor's or an
// array's shape is a tuple of ints; len returns an int), never a tensor.
bool AnalysisImpl::is_shape_read(const ast::expr* e) const {
  if (const auto* sub = as<ast::Subscript>(e)) e = sub->value;
  if (const auto* a = as<ast::Attribute>(e)) return a->attr == "shape" || a->attr == "ndim";
  const auto* call = as<ast::Call>(e);
  const auto* callee = call != nullptr ? as<ast::Name>(call->func) : nullptr;
  if (callee == nullptr || callee->id != "len") return false;
  return resolve_call(*call).kind == CalleeKind::Builtin;  // not shadowed
}

ValueKind AnalysisImpl::kind_of_name(const ast::Name& name, ScopeId scope) const {
  Flow* flow = flow_for_scope(scope);
  if (flow == nullptr) return ValueKind::Other;
  auto it = flow->var_ids.find(name.id);
  if (it == flow->var_ids.end()) return ValueKind::Other;
  int node = flow->node_at(name.begin);
  bool any = false;
  return join_defs(*flow, it->second, node < 0 ? UINT32_MAX : static_cast<uint32_t>(node), &any);
}

ValueKind AnalysisImpl::def_kind(const Flow& flow, uint32_t d) const {
  const Def& def = flow.defs[d];
  ScopeId scope = flow.scope;
  switch (def.source) {
    case Def::Source::Param: {
      const auto* a = as<ast::arg>(def.origin);
      if (a == nullptr || a->annotation == nullptr) return ValueKind::Other;
      ScopeId outer = scope.is_function() ? scopes_[scope.index].parent : kModuleScope;
      if (const auto* c = as<ast::Constant>(a->annotation)) {
        if (c->value.type == ast::ConstantValue::Type::Str &&
            (c->value.text == "torch.Tensor" || c->value.text == "Tensor")) {
          return ValueKind::Tensor;
        }
        return ValueKind::Other;
      }
      if (!outer.has_value()) outer = kModuleScope;
      return qualify(a->annotation, outer) == "torch.Tensor" ? ValueKind::Tensor : ValueKind::Other;
    }
    case Def::Source::Value:
      return kind_rec(def.value, scope, 1);
    case Def::Source::Unpack: {
      const ast::expr* v = def.value;
      const ast::Seq<ast::expr*>* elts = nullptr;
      if (const auto* t = as<ast::Tuple>(v)) elts = &t->elts;
      if (const auto* l = as<ast::List>(v)) elts = &l->elts;
      if (elts != nullptr) {
        for (const ast::expr* x : *elts) {
          if (is<ast::Starred>(x)) return ValueKind::Other;
        }
        if (def.index >= 0 && static_cast<uint32_t>(def.index) < elts->size) {
          return kind_rec((*elts)[def.index], scope, 1);
        }
        return ValueKind::Other;
      }
      return kind_rec(v, scope, 1) == ValueKind::TensorTuple ? ValueKind::Tensor : ValueKind::Other;
    }
    case Def::Source::AugAssign: {
      const auto* aug = as<ast::AugAssign>(def.origin);
      bool any = false;
      ValueKind l = join_defs(flow, def.var, def.node, &any);
      ValueKind r = kind_rec(aug->value, scope, 1);
      if (is_tensor_kind(l) || is_tensor_kind(r)) {
        if (l == ValueKind::BoolTensor && r == ValueKind::BoolTensor &&
            (aug->op == ast::OperatorKind::BitAnd || aug->op == ast::OperatorKind::BitOr ||
             aug->op == ast::OperatorKind::BitXor)) {
          return ValueKind::BoolTensor;
        }
        return ValueKind::Tensor;
      }
      if (l == ValueKind::DataScalar || r == ValueKind::DataScalar) return ValueKind::DataScalar;
      return ValueKind::Other;
    }
    case Def::Source::ForTarget: {
      ValueKind k = kind_rec(def.value, scope, 1);
      if (is_tensor_kind(k) || k == ValueKind::TensorTuple) return ValueKind::Tensor;
      return ValueKind::Other;
    }
    default:
      return ValueKind::Other;
  }
}

void AnalysisImpl::compute_def_kinds(Flow& flow) const {
  // Definitions' kinds are what the text shows: cached, so never computed under a speculation
  // or in the frame of a helper's call.
  Speculation* active = speculation_;
  const HelperFrame* frame = frame_;
  speculation_ = nullptr;
  frame_ = nullptr;
  flow.kind_state = Flow::KindState::Computing;
  size_t n = flow.defs.size();
  flow.def_kinds.assign(n, ValueKind::Other);
  flow.def_kind_known.assign(n, false);
  // Definitions are numbered from the end of the function backwards: visiting them in
  // reverse numbering follows program order, so most are known before they are read. A
  // definition that only reads still-unknown ones stays unknown (optimistic) for a round.
  for (int round = 0; round < 8; ++round) {
    bool changed = false;
    for (uint32_t d = static_cast<uint32_t>(n); d-- > 0;) {
      if (flow.defs[d].source == Def::Source::Unbound) continue;
      pending_seen_ = false;
      ValueKind k = def_kind(flow, d);
      if (pending_seen_ && k == ValueKind::Other && round < 7) continue;
      if (!flow.def_kind_known[d] || k != flow.def_kinds[d]) {
        flow.def_kinds[d] = k;
        flow.def_kind_known[d] = true;
        changed = true;
      }
    }
    if (!changed) break;
  }
  flow.kind_state = Flow::KindState::Done;
  speculation_ = active;
  frame_ = frame;
}

ValueKind AnalysisImpl::join_defs(const Flow& flow, uint32_t var, uint32_t node,
                                  bool* any_def) const {
  if (flow.kind_state == Flow::KindState::NotStarted) {
    compute_def_kinds(const_cast<Flow&>(flow));
  }
  bool first = true;
  bool pending = false;
  ValueKind out = ValueKind::Other;
  for (uint32_t d : flow.defs_of_var[var]) {
    if (node != UINT32_MAX && node < flow.nodes.size() && !flow.reaches(d, node)) continue;
    if (flow.defs[d].source == Def::Source::Unbound) continue;
    *any_def = true;
    if (!flow.def_kind_known[d]) {  // optimistic while the fixpoint runs
      pending = true;
      continue;
    }
    ValueKind k = flow.def_kinds[d];
    out = first ? k : join_kind(out, k);
    first = false;
  }
  if (first && pending) pending_seen_ = true;
  return first ? ValueKind::Other : out;
}

}  // namespace graphmend::sema

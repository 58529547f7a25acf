// Aliasing: see aliasing.h.
#include "sema/aliasing.h"

#include <algorithm>

#include "ast/functions.h"
#include "ast/names.h"
#include "sema/helpers.h"
#include "sema/torch_facts.h"

namespace graphmend::sema {

using ast::Kind;

namespace {

// torch.<name>(...) may return (a view of) an argument (torch_facts' ViewFunction).
bool is_view_function(std::string_view qualified_name) {
  constexpr std::string_view kTorch = "torch.";
  if (!starts_with(qualified_name, kTorch)) return false;
  std::string_view name = qualified_name.substr(kTorch.size());
  return name.find('.') == std::string_view::npos && has_fact(TorchFact::ViewFunction, name);
}

// `names` grown by every name the function binds to a value that may share a tensor with
// one of them (`z = y`, `v = preds.view(-1)`), until none is added; `holders` gets those
// bound to a tuple or list display holding one (`outputs = (y,)`), through which a tensor
// changes only by an element (`outputs[0].add_(1)`; `outputs += (a,)` makes a new tuple).
void add_aliases(const Analysis& analysis, const ast::Node* scope,
                 std::set<std::string_view>& names, std::set<std::string_view>& holders) {
  for (size_t before = 0; before != names.size() + holders.size();) {
    before = names.size() + holders.size();
    ast::walk_own_body(scope, [&](const ast::Node* n) {
      const auto* assign = ast::as<ast::Assign>(n);
      if (assign == nullptr || !may_alias(analysis, *assign->value)) return;
      bool reads = false;
      for (const ast::Name* read : ast::loads(assign->value))
        reads |= names.count(read->id) != 0 || holders.count(read->id) != 0;
      if (!reads) return;
      bool display = ast::is<ast::Tuple>(assign->value) || ast::is<ast::List>(assign->value);
      for (const ast::expr* target : assign->targets)
        ast::walk(target, [&](const ast::Node* t) {
          const auto* bound = ast::as<ast::Name>(t);
          if (bound != nullptr && bound->ctx == ast::ExprContext::Store)
            (display && bound == target ? holders : names).insert(bound->id);
          return true;
        });
    });
  }
}

}  // namespace

bool may_alias(const Analysis& analysis, const ast::expr& value) {
  switch (value.kind) {
    case Kind::Constant:
    case Kind::BinOp:
    case Kind::Compare:
    case Kind::JoinedStr:
    case Kind::ListComp:
    case Kind::Dict:
    case Kind::DictComp:
    case Kind::Set:
    case Kind::SetComp:
      return false;
    case Kind::UnaryOp:
      return ast::as<ast::UnaryOp>(&value)->op == ast::UnaryOpKind::UAdd;
    case Kind::Tuple:
    case Kind::List: {  // holds what its elements may be
      const auto& elements = value.kind == Kind::Tuple ? ast::as<ast::Tuple>(&value)->elts
                                                       : ast::as<ast::List>(&value)->elts;
      return std::any_of(elements.begin(), elements.end(),
                         [&](const ast::expr* e) { return may_alias(analysis, *e); });
    }
    case Kind::Call: {
      const auto& call = *ast::as<ast::Call>(&value);
      // `x.clone()`: a tensor's copy holds nothing another name holds (a receiver of
      // another type is refused at run time: values the rewrite selects are tensors)
      const auto* method = ast::as<ast::Attribute>(call.func);
      if (method != nullptr && method->attr == "clone" && call.args.empty()) return false;
      // what the callee is, as the text shows it: resolving assumes nothing of the receiver
      Speculation* active = analysis.speculate(nullptr);
      Callee callee = analysis.resolve_call(call);
      analysis.speculate(active);
      if (callee.kind == CalleeKind::TorchFunction) return is_view_function(callee.qualified_name);
      return callee.kind != CalleeKind::Builtin;
    }
    default:
      return true;  // names, attributes, subscripts, conditional expressions...
  }
}

bool changes_tensors_in_place(const Analysis& analysis, const ast::Module& module,
                              const ast::stmt& statement, std::set<std::string_view> names) {
  const ast::Node* scope = ast::innermost_function(module, statement);
  std::set<std::string_view> holders;
  add_aliases(analysis, scope, names, holders);
  auto shared = [&](const ast::expr* e) {
    std::string_view root = ast::access_root(e);
    if (root.empty() || names.count(root) != 0) return true;
    return holders.count(root) != 0 && !ast::is<ast::Name>(e);  // an element of one
  };
  bool found = false;
  ast::walk_own_body(scope, [&](const ast::Node* n) {
    if (const auto* update = ast::as<ast::AugAssign>(n)) found |= shared(update->target);
    if (const auto* assign = ast::as<ast::Assign>(n))
      for (const ast::expr* target : assign->targets)
        found |= ast::is<ast::Subscript>(target) && shared(target);
    if (const auto* call = ast::as<ast::Call>(n)) {
      if (const auto* method = ast::as<ast::Attribute>(call->func)) {
        std::string_view m = method->attr;
        found |= m.size() > 1 && m.back() == '_' && m.front() != '_' && shared(method->value);
      }
      for (const ast::keyword* k : call->keywords) found |= k->arg == "out" && shared(k->value);
    }
  });
  return found;
}

}  // namespace graphmend::sema

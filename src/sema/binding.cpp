// What is bound where a statement stands: see binding.h.
#include "sema/binding.h"

namespace graphmend::sema {

using ast::Kind;

namespace {

// Whether the simple statement `s` (an assignment) binds `var`.
bool binds(const ast::stmt& s, std::string_view var) {
  auto target_binds = [&](const ast::expr* target) {
    if (auto* name = ast::as<ast::Name>(target)) return name->id == var;
    if (auto* tuple = ast::as<ast::Tuple>(target)) {
      for (auto* elt : tuple->elts)
        if (auto* name = ast::as<ast::Name>(elt); name && name->id == var) return true;
    }
    return false;
  };
  switch (s.kind) {
    case Kind::Assign:
      for (auto* t : static_cast<const ast::Assign&>(s).targets)
        if (target_binds(t)) return true;
      return false;
    case Kind::AnnAssign: {
      auto& n = static_cast<const ast::AnnAssign&>(s);
      return n.value != nullptr && target_binds(n.target);
    }
    case Kind::AugAssign:
      return target_binds(static_cast<const ast::AugAssign&>(s).target);
    default:
      return false;
  }
}

}  // namespace

bool definitely_bound(const std::vector<ast::BlockRef>& path, std::string_view var) {
  size_t level = 0;
  const ast::arguments* args = ast::function_arguments(path, level);
  if (args == nullptr) return false;
  auto is_param = [&](const ast::Seq<ast::arg*>& list) {
    for (auto* a : list)
      if (a->arg == var) return true;
    return false;
  };
  if (is_param(args->posonlyargs) || is_param(args->args) || is_param(args->kwonlyargs))
    return true;
  if ((args->vararg && args->vararg->arg == var) || (args->kwarg && args->kwarg->arg == var))
    return true;
  for (size_t k = path.size(); k-- > level;) {
    const ast::BlockRef& ref = path[k];
    for (uint32_t i = 0; i < ref.index; ++i)
      if (binds(*(*ref.block)[i], var)) return true;
  }
  return false;
}

std::set<std::string_view> function_locals(const Analysis& analysis,
                                           const std::vector<ast::BlockRef>& path) {
  std::set<std::string_view> out;
  size_t level = 0;
  const ast::arguments* args = ast::function_arguments(path, level);
  if (args == nullptr) return out;
  for (auto* list : {&args->posonlyargs, &args->args, &args->kwonlyargs})
    for (auto* a : *list) out.insert(a->arg);
  if (args->vararg) out.insert(args->vararg->arg);
  if (args->kwarg) out.insert(args->kwarg->arg);
  for (std::string_view name : analysis.assigned_names(*path[level].block)) out.insert(name);
  return out;
}

}  // namespace graphmend::sema

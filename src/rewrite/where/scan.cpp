// [Where] expression scans: what a condition or a branch value holds (kinds of node,
// scalar reads, literals, indexing) and the short texts decline reasons quote.
#include <algorithm>

#include "ast/names.h"
#include "ast/walk.h"
#include "rewrite/where/planner.h"
#include "sema/aliasing.h"

namespace graphmend::rewrite::where_detail {

using ast::Kind;

bool contains_kind(const ast::Node* node, std::initializer_list<Kind> kinds) {
  return ast::contains(node, [&](const ast::Node* n) {
    return std::find(kinds.begin(), kinds.end(), n->kind) != kinds.end();
  });
}

// Whether the last statement before the one at the end of `path` that binds `var`, in the
// same block, assigns it a Python number (`variance = 0`).
bool number_before(const Context& context, const std::vector<BlockRef>& path,
                   std::string_view var) {
  const BlockRef& here = path.back();
  for (uint32_t i = here.index; i-- > 0;) {
    const ast::stmt* s = (*here.block)[i];
    if (!ast::stores_name(s, var)) continue;
    auto* assign = ast::as<ast::Assign>(s);
    return assign != nullptr && assign->targets.size == 1 &&
           ast::is<ast::Name>(assign->targets[0]) &&
           context.analysis.is_number(*assign->value, sema::PurityFacts{});
  }
  return false;
}

// `.item()` / `.tolist()` anywhere in `node`.
bool uses_scalar(const ast::Node* node) {
  return ast::contains(node, [](const ast::Node* n) {
    const auto* call = ast::as<ast::Call>(n);
    const auto* attr = call ? ast::as<ast::Attribute>(call->func) : nullptr;
    return attr && (attr->attr == "item" || attr->attr == "tolist");
  });
}

// `.item()` / `.tolist()` in a condition other than as a direct operand of one comparison
// (`X.item() < y`, which tensor_condition compares in the graph).
bool condition_uses_scalar(const ast::Node* node) {
  std::vector<const ast::Node*> compared;
  bool found = false;
  auto visit = [&](const ast::Node* n) {
    if (auto* compare = ast::as<ast::Compare>(n); compare && compare->ops.size == 1) {
      compared.push_back(compare->left);
      compared.push_back(compare->comparators[0]);
    }
    if (auto* call = ast::as<ast::Call>(n))
      if (auto* attr = ast::as<ast::Attribute>(call->func))
        if ((attr->attr == "item" || attr->attr == "tolist") &&
            (attr->attr == "tolist" || !call->args.empty() ||
             std::find(compared.begin(), compared.end(), n) == compared.end()))
          found = true;
    return !found;
  };
  ast::walk(node, visit);
  return found;
}

// The number of values of a tuple display without `*` (`a, b`), else 0.
size_t tuple_arity(const ast::expr& e) {
  const auto* tuple = ast::as<ast::Tuple>(&e);
  return tuple != nullptr && !contains_kind(tuple, {Kind::Starred}) ? tuple->elts.size : 0;
}

// The operands of a condition below its `and`/`or`/`not`.
std::vector<const ast::expr*> condition_leaves(const ast::expr& e) {
  if (auto* op = ast::as<ast::BoolOp>(&e)) {
    std::vector<const ast::expr*> out;
    for (auto* value : op->values) {
      auto inner = condition_leaves(*value);
      out.insert(out.end(), inner.begin(), inner.end());
    }
    return out;
  }
  if (auto* unary = ast::as<ast::UnaryOp>(&e); unary && unary->op == ast::UnaryOpKind::Not)
    return condition_leaves(*unary->operand);
  return {&e};
}

// A value that is a Python number literal (`0.0`, `-1`), or null.
const ast::expr* number_literal(const ast::expr* e) {
  const ast::expr* inner = e;
  if (auto* unary = ast::as<ast::UnaryOp>(e);
      unary && (unary->op == ast::UnaryOpKind::USub || unary->op == ast::UnaryOpKind::UAdd))
    inner = unary->operand;
  auto* constant = ast::as<ast::Constant>(inner);
  if (constant == nullptr) return nullptr;
  using Type = ast::ConstantValue::Type;
  Type type = constant->value.type;
  return type == Type::Int || type == Type::Float ? e : nullptr;
}

const ast::expr* first_index(const std::vector<const ast::Node*>& nodes) {
  auto slicing = [](const ast::expr* e) {
    if (ast::is<ast::Slice>(e)) return true;
    const auto* c = ast::as<ast::Constant>(e);
    return c != nullptr && (c->value.type == ast::ConstantValue::Type::None ||
                            c->value.type == ast::ConstantValue::Type::Ellipsis);
  };
  const ast::expr* found = nullptr;
  for (const ast::Node* node : nodes)
    ast::walk(node, [&](const ast::Node* n) {
      if (found != nullptr || ast::is<ast::Raise>(n)) return false;
      const auto* sub = ast::as<ast::Subscript>(n);
      if (sub == nullptr || sub->ctx != ast::ExprContext::Load) return true;
      const auto* tuple = ast::as<ast::Tuple>(sub->slice);
      bool slices = tuple != nullptr ? std::all_of(tuple->elts.begin(), tuple->elts.end(), slicing)
                                     : slicing(sub->slice);
      if (!slices) found = sub;
      return found == nullptr;
    });
  return found;
}

const ast::Attribute* attribute_store(const ast::stmt& s) {
  const auto* assign = ast::as<ast::Assign>(&s);
  if (assign == nullptr || assign->targets.size != 1) return nullptr;
  const auto* target = ast::as<ast::Attribute>(assign->targets[0]);
  return target != nullptr && ast::is<ast::Name>(target->value) ? target : nullptr;
}

bool is_attribute_var(std::string_view var) { return var.find('.') != std::string_view::npos; }

bool mutates_beyond_attribute_stores(const Context& context, const ast::If& node,
                                     const ast::Seq<ast::stmt*>& body) {
  for (uint32_t i = 0; i < body.size; ++i) {
    const ast::stmt& s = *body[i];
    if (attribute_store(s) != nullptr) continue;  // its value is checked pure when planned
    if (const auto* nested = ast::as<ast::If>(&s)) {
      if (mutates_beyond_attribute_stores(context, node, nested->body) ||
          mutates_beyond_attribute_stores(context, node, nested->orelse))
        return true;
      continue;
    }
    const ast::Name* receiver = sema::in_place_receiver(s);
    if (receiver != nullptr &&
        sema::is_fresh_in_place_target(context.analysis, context.module, node, receiver->id))
      continue;  // planned by torch.cond only (Planner::add_in_place_call)
    if (context.analysis.mutates_state(ast::Seq<ast::stmt*>{body.data + i, 1})) return true;
  }
  return false;
}

bool is_python_constant(const ast::expr& e) {
  if (number_literal(&e) != nullptr) return true;
  const auto* constant = ast::as<ast::Constant>(&e);
  using Type = ast::ConstantValue::Type;
  return constant != nullptr &&
         (constant->value.type == Type::True || constant->value.type == Type::False ||
          constant->value.type == Type::None);
}

std::string short_text(std::string_view text) {
  std::string out(text.substr(0, std::min<size_t>(text.size(), 60)));
  std::replace(out.begin(), out.end(), '\n', ' ');
  if (text.size() > 60) out += "...";
  return out;
}

std::string parenthesize_multiline(std::string text) {
  if (text.find('\n') != std::string::npos) return "(" + text + ")";
  return text;
}

}  // namespace graphmend::rewrite::where_detail

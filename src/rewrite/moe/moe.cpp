// [Moe]: the routed expert loop with static shapes (see moe.h).
//
//   hit = (mask.sum(dim=(-1, -2)) > 0).nonzero(as_tuple=True)[0].tolist()
//   ->  hit = <runtime>.experts_hit(mask.sum(dim=(-1, -2)) > 0, self.experts)
//   for e in hit:                      (or range(...), or enumerate(<experts>))
//       expert = self.experts[e]
//       idx, top_x = torch.where(mask[e])
//   ->  idx, top_x = <runtime>.routed_where(mask[e], self.experts)
//       if top_x.shape[0] == 0: continue
//       rows = expert(h[None, top_x].reshape(-1, d)) * w[top_x, idx, None]
//       out.index_add_(0, top_x, rows.to(h.dtype))
//   ->  <runtime>.routed_index_add_(out, 0, top_x, rows.to(h.dtype))
//
// While compiling, the padded indices visit every expert on `mask.numel()` rows and a
// padding row adds -0.0, so the loop computes what the original does provided (1) each
// routed row's value is computed from its own token alone: the indices only gather rows,
// test emptiness and index the `index_add_`, and the rows only go through row-wise
// operations (casts, `reshape(-1, ...)`, elementwise arithmetic with other rows or numbers,
// `rows @ W`, `F.linear`, elementwise activations) and calls of modules that the runtime
// checks are row-wise (`rowwise_experts`, resolved while tracing); (2) the extra
// iterations change nothing: every other statement of the body is pure and nothing the
// loop assigns is read after it. Everything else keeps the loop as written.
#include "rewrite/moe/moe.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "ast/names.h"
#include "ast/path.h"
#include "ast/walk.h"
#include "base/contains.h"

namespace graphmend::rewrite {
namespace {

using Names = std::vector<std::string_view>;

bool is_int_constant(const ast::expr* e, std::string_view digits) {
  const auto* c = ast::as<ast::Constant>(e);
  return c != nullptr && c->value.type == ast::ConstantValue::Type::Int && c->value.text == digits;
}

bool is_minus_one(const ast::expr* e) {
  const auto* u = ast::as<ast::UnaryOp>(e);
  return u != nullptr && u->op == ast::UnaryOpKind::USub && is_int_constant(u->operand, "1");
}

bool is_number_constant(const ast::expr* e) {
  if (const auto* u = ast::as<ast::UnaryOp>(e); u && u->op == ast::UnaryOpKind::USub)
    e = u->operand;
  const auto* c = ast::as<ast::Constant>(e);
  return c != nullptr && (c->value.type == ast::ConstantValue::Type::Int ||
                          c->value.type == ast::ConstantValue::Type::Float);
}

// `X.nonzero(as_tuple=True)[0].tolist()` or `torch.nonzero(X, as_tuple=True)[0].tolist()`:
// the list of the experts hit, X a vector of the experts.
struct HitList {
  const ast::Call* tolist = nullptr;
  const ast::Call* nonzero = nullptr;
  const ast::expr* hit = nullptr;        // X
  const ast::stmt* statement = nullptr;  // where the list is computed (set by header_problem)
};

bool as_tuple_only(const ast::Call& call) {
  return call.keywords.size == 1 && call.keywords[0]->arg == "as_tuple" &&
         ast::is<ast::Constant>(call.keywords[0]->value) &&
         ast::as<ast::Constant>(call.keywords[0]->value)->value.type ==
             ast::ConstantValue::Type::True;
}

std::optional<HitList> hit_list(const Context& context, const ast::expr* e) {
  const auto* tolist = ast::as<ast::Call>(e);
  const auto* method = tolist ? ast::as<ast::Attribute>(tolist->func) : nullptr;
  if (method == nullptr || method->attr != "tolist" || !tolist->args.empty() ||
      !tolist->keywords.empty())
    return std::nullopt;
  const auto* first = ast::as<ast::Subscript>(method->value);
  const auto* nonzero = first ? ast::as<ast::Call>(first->value) : nullptr;
  if (nonzero == nullptr || !is_int_constant(first->slice, "0") || !as_tuple_only(*nonzero))
    return std::nullopt;
  if (const auto* bound = ast::as<ast::Attribute>(nonzero->func);
      bound != nullptr && bound->attr == "nonzero" && nonzero->args.empty())
    return HitList{tolist, nonzero, bound->value};
  sema::Callee callee = context.analysis.resolve_call(*nonzero);
  if (callee.kind == sema::CalleeKind::TorchFunction && callee.qualified_name == "torch.nonzero" &&
      nonzero->args.size == 1)
    return HitList{tolist, nonzero, nonzero->args[0]};
  return std::nullopt;
}

// `a, b = torch.where(mask)` (one argument, names as targets): the call, else null.
const ast::Call* routed_where_call(const Context& context, const ast::stmt* s) {
  const auto* assign = ast::as<ast::Assign>(s);
  if (assign == nullptr || assign->targets.size != 1) return nullptr;
  const auto* targets = ast::as<ast::Tuple>(assign->targets[0]);
  const auto* call = ast::as<ast::Call>(assign->value);
  if (targets == nullptr || call == nullptr || call->args.size != 1 || !call->keywords.empty() ||
      ast::is<ast::Starred>(call->args[0]))
    return nullptr;
  for (const ast::expr* target : targets->elts)
    if (!ast::is<ast::Name>(target)) return nullptr;
  sema::Callee callee = context.analysis.resolve_call(*call);
  bool is_where =
      callee.kind == sema::CalleeKind::TorchFunction && callee.qualified_name == "torch.where";
  return is_where ? call : nullptr;
}

// One routed loop and its header.
struct RoutedLoop {
  const ast::FunctionDef* function = nullptr;
  const ast::For* loop = nullptr;
  const ast::Assign* routed = nullptr;  // `a, b = torch.where(mask)`
  const ast::Call* where = nullptr;
  std::optional<HitList> hits;  // the experts hit, where the loop iterates them
};

// What a value of the body carries: nothing routed, the gathered rows (each computed from
// its own token), or something else (a count, a reduction over rows, an unknown call).
enum class Flow { Invariant, Rows, Other };

class BodyCheck {
 public:
  BodyCheck(const Context& context, const RoutedLoop& loop) : context_(context), loop_(loop) {}

  // Empty when the body is the routed form; else the first thing that is not, in words.
  std::string check();
  const std::vector<std::string>& experts() const { return experts_; }
  const std::vector<const ast::Call*>& index_adds() const { return index_adds_; }
  const Names& assigned() const { return assigned_; }

 private:
  bool statement(const ast::stmt* s);
  bool assignment(const ast::Assign& assign);
  bool empty_guard(const ast::If& branch) const;
  bool index_add(const ast::Expr& s);
  Flow flow(const ast::expr* e);
  Flow call_flow(const ast::Call& call);
  Flow method_flow(const ast::Call& call, const ast::Attribute& method);
  bool arguments_invariant(const ast::Call& call, size_t from);
  std::optional<std::string> module_of(const ast::expr* callee) const;
  bool stable_chain(const ast::expr* e) const;
  bool touches(const ast::Node* node) const;
  bool fail(const ast::Node& node, std::string_view why);
  void add_index(std::string_view name) {
    if (!contains(indices_, name)) indices_.push_back(name);
    assigned_.push_back(name);
  }
  void add_expert_alias(std::string_view name, std::string module) {
    for (const auto& alias : expert_aliases_)
      if (alias.first == name) return;
    expert_aliases_.push_back({name, std::move(module)});
  }
  void add_row(std::string_view name) {
    if (!contains(rows_, name)) rows_.push_back(name);
  }

  const Context& context_;
  const RoutedLoop& loop_;
  std::string_view expert_var_;
  Names indices_, rows_, assigned_;
  std::vector<std::pair<std::string_view, std::string>> expert_aliases_;
  std::vector<std::string> experts_;
  std::vector<const ast::Call*> index_adds_;
  bool seen_where_ = false;
  std::string problem_;
};

bool BodyCheck::fail(const ast::Node& node, std::string_view why) {
  if (problem_.empty()) {
    std::string text(node_text(context_, node));
    if (size_t newline = text.find('\n'); newline != std::string::npos)
      text = text.substr(0, newline) + " ...";
    problem_ = "`" + text + "` " + std::string(why);
  }
  return false;
}

// Whether `node` reads the routed indices, the rows or an expert bound by the loop.
bool BodyCheck::touches(const ast::Node* node) const {
  for (const ast::Name* name : ast::loads(node)) {
    if (contains(indices_, name->id) || contains(rows_, name->id)) return true;
    for (const auto& alias : expert_aliases_)
      if (alias.first == name->id) return true;
  }
  return false;
}

// `self.experts`, `self.mlp.act`: an attribute chain from a name the function never
// rebinds (and never the loop's own), so it means the same before and in the loop.
bool BodyCheck::stable_chain(const ast::expr* e) const {
  std::string_view root = ast::attribute_root(*e);
  if (root.empty() || root == expert_var_ || ast::stores_name(loop_.function, root)) return false;
  std::string_view text = node_text(context_, *e);
  return !ast::contains(loop_.function, [&](const ast::Node* n) {
    const auto* attribute = ast::as<ast::Attribute>(n);
    return attribute && attribute->ctx == ast::ExprContext::Store &&
           node_text(context_, *attribute) == text;
  });
}

// The module a call goes through: an expert alias, `<experts>[e]` or a stable chain.
std::optional<std::string> BodyCheck::module_of(const ast::expr* callee) const {
  if (const auto* name = ast::as<ast::Name>(callee)) {
    for (const auto& alias : expert_aliases_)
      if (alias.first == name->id) return alias.second;
    return std::nullopt;
  }
  if (const auto* item = ast::as<ast::Subscript>(callee)) {
    const auto* index = ast::as<ast::Name>(item->slice);
    if (index != nullptr && index->id == expert_var_ && stable_chain(item->value))
      return std::string(node_text(context_, *item->value));
    return std::nullopt;
  }
  if (ast::is<ast::Attribute>(callee) && stable_chain(callee))
    return std::string(node_text(context_, *callee));
  return std::nullopt;
}

bool BodyCheck::arguments_invariant(const ast::Call& call, size_t from) {
  for (size_t i = from; i < call.args.size; ++i)
    if (flow(call.args[i]) != Flow::Invariant) return false;
  for (const ast::keyword* keyword : call.keywords)
    if (keyword->arg.empty() || flow(keyword->value) != Flow::Invariant) return false;
  return true;
}

Flow BodyCheck::method_flow(const ast::Call& call, const ast::Attribute& method) {
  static constexpr std::string_view kCasts[] = {"to",     "float",      "half",   "bfloat16",
                                                "double", "contiguous", "type_as"};
  static constexpr std::string_view kElementwise[] = {"sigmoid", "tanh", "relu", "exp",
                                                      "abs",     "neg",  "sqrt", "square"};
  auto in = [&](const auto& list) {
    return std::find(std::begin(list), std::end(list), method.attr) != std::end(list);
  };
  if (in(kCasts) && arguments_invariant(call, 0)) return Flow::Rows;
  if (in(kElementwise) && call.args.empty() && call.keywords.empty()) return Flow::Rows;
  // reshape(-1, d, ...): the rows stay the leading dimension (a gather by one index vector,
  // with or without a leading None, keeps one row per token).
  if ((method.attr == "reshape" || method.attr == "view") && call.args.size >= 2 &&
      call.keywords.empty() && is_minus_one(call.args[0]) && arguments_invariant(call, 1) &&
      std::none_of(call.args.begin() + 1, call.args.end(), is_minus_one))
    return Flow::Rows;
  return Flow::Other;
}

Flow BodyCheck::call_flow(const ast::Call& call) {
  if (const auto* method = ast::as<ast::Attribute>(call.func);
      method != nullptr && flow(method->value) == Flow::Rows)
    return method_flow(call, *method);
  sema::Callee callee = context_.analysis.resolve_call(call);
  if (callee.kind == sema::CalleeKind::TorchFunction) {
    // torch functions that compute each row from that row: the rows first, then weights.
    static constexpr std::string_view kRowwise[] = {"torch.nn.functional.linear",
                                                    "torch.nn.functional.silu",
                                                    "torch.nn.functional.gelu",
                                                    "torch.nn.functional.relu",
                                                    "torch.nn.functional.tanh",
                                                    "torch.nn.functional.sigmoid",
                                                    "torch.sigmoid",
                                                    "torch.tanh",
                                                    "torch.relu",
                                                    "torch.exp"};
    bool rowwise = std::find(std::begin(kRowwise), std::end(kRowwise), callee.qualified_name) !=
                   std::end(kRowwise);
    return rowwise && !call.args.empty() && flow(call.args[0]) == Flow::Rows &&
                   arguments_invariant(call, 1)
               ? Flow::Rows
               : Flow::Other;
  }
  // A module: an expert alias, `<experts>[e]`, or a submodule `self.<name>`.
  std::optional<std::string> module = module_of(call.func);
  if (ast::is<ast::Attribute>(call.func) && callee.kind != sema::CalleeKind::SelfSubmodule)
    module.reset();
  if (!module) return Flow::Other;
  bool rows = false;
  for (const ast::expr* arg : call.args) {
    Flow f = ast::is<ast::Starred>(arg) ? Flow::Other : flow(arg);
    if (f == Flow::Other) return Flow::Other;
    rows = rows || f == Flow::Rows;
  }
  if (!rows || !arguments_invariant(call, call.args.size)) return Flow::Other;
  if (std::find(experts_.begin(), experts_.end(), *module) == experts_.end())
    experts_.push_back(*module);
  return Flow::Rows;
}

Flow BodyCheck::flow(const ast::expr* e) {
  if (!touches(e)) return Flow::Invariant;
  if (const auto* name = ast::as<ast::Name>(e))
    return contains(rows_, name->id) ? Flow::Rows : Flow::Other;
  if (const auto* item = ast::as<ast::Subscript>(e)) {
    // A gather: `h[top_x]`, `h[None, top_x]`, `w[top_x, idx, None]`.
    if (touches(item->value)) return Flow::Other;
    std::vector<const ast::expr*> parts{item->slice};
    if (const auto* tuple = ast::as<ast::Tuple>(item->slice))
      parts.assign(tuple->elts.begin(), tuple->elts.end());
    for (const ast::expr* part : parts) {
      const auto* name = ast::as<ast::Name>(part);
      const auto* none = ast::as<ast::Constant>(part);
      if (!(name && contains(indices_, name->id)) &&
          !(none && none->value.type == ast::ConstantValue::Type::None))
        return Flow::Other;
    }
    return Flow::Rows;
  }
  if (const auto* unary = ast::as<ast::UnaryOp>(e); unary && unary->op == ast::UnaryOpKind::USub)
    return flow(unary->operand);
  if (const auto* binary = ast::as<ast::BinOp>(e)) {
    Flow left = flow(binary->left), right = flow(binary->right);
    if (binary->op == ast::OperatorKind::MatMult)
      return left == Flow::Rows && right == Flow::Invariant ? Flow::Rows : Flow::Other;
    bool elementwise =
        binary->op == ast::OperatorKind::Add || binary->op == ast::OperatorKind::Sub ||
        binary->op == ast::OperatorKind::Mult || binary->op == ast::OperatorKind::Div;
    auto operand = [](Flow f, const ast::expr* x) {
      return f == Flow::Rows || is_number_constant(x);
    };
    if (elementwise && (left == Flow::Rows || right == Flow::Rows) && operand(left, binary->left) &&
        operand(right, binary->right))
      return Flow::Rows;
    return Flow::Other;
  }
  if (const auto* call = ast::as<ast::Call>(e)) return call_flow(*call);
  return Flow::Other;
}

// `if <indices>.shape[0] == 0: continue` (or `.numel() == 0`, `len(..) == 0`, `.size(0) == 0`).
bool BodyCheck::empty_guard(const ast::If& branch) const {
  if (branch.body.size != 1 || !ast::is<ast::Continue>(branch.body[0]) || !branch.orelse.empty())
    return false;
  const auto* test = ast::as<ast::Compare>(branch.test);
  if (test == nullptr || test->ops.size != 1 || test->ops[0] != ast::CmpOpKind::Eq ||
      !is_int_constant(test->comparators[0], "0"))
    return false;
  const ast::expr* count = test->left;
  const ast::expr* of = nullptr;
  if (const auto* first = ast::as<ast::Subscript>(count);
      first && is_int_constant(first->slice, "0")) {
    const auto* shape = ast::as<ast::Attribute>(first->value);
    if (shape != nullptr && shape->attr == "shape") of = shape->value;
  } else if (const auto* call = ast::as<ast::Call>(count); call && call->keywords.empty()) {
    const auto* method = ast::as<ast::Attribute>(call->func);
    const auto* builtin = ast::as<ast::Name>(call->func);
    if (method && method->attr == "numel" && call->args.empty()) of = method->value;
    if (method && method->attr == "size" && call->args.size == 1 &&
        is_int_constant(call->args[0], "0"))
      of = method->value;
    if (builtin && builtin->id == "len" && call->args.size == 1) of = call->args[0];
  }
  const auto* name = ast::as<ast::Name>(of);
  return name != nullptr && contains(indices_, name->id);
}

// `out.index_add_(0, <indices>, <rows>)`.
bool BodyCheck::index_add(const ast::Expr& s) {
  const auto* call = ast::as<ast::Call>(s.value);
  const auto* method = call ? ast::as<ast::Attribute>(call->func) : nullptr;
  if (method == nullptr || method->attr != "index_add_")
    return fail(s, "is not `out.index_add_(0, <indices>, <rows>)`");
  const auto* index = call->args.size == 3 ? ast::as<ast::Name>(call->args[1]) : nullptr;
  if (index == nullptr || !call->keywords.empty() || !is_int_constant(call->args[0], "0") ||
      !contains(indices_, index->id) || touches(method->value) ||
      !context_.analysis.is_pure(*method->value))
    return fail(s, "adds other than `out.index_add_(0, <indices>, <rows>)`");
  if (flow(call->args[2]) != Flow::Rows)
    return fail(*call->args[2], "is not computed row by row from the gathered rows");
  index_adds_.push_back(call);
  return true;
}

bool BodyCheck::assignment(const ast::Assign& assign) {
  if (assign.targets.size != 1) return fail(assign, "assigns more than one target");
  const ast::expr* value = assign.value;
  if (const auto* target = ast::as<ast::Name>(assign.targets[0])) {
    assigned_.push_back(target->id);
    const auto* source = ast::as<ast::Name>(value);
    if (source && contains(indices_, source->id)) {
      add_index(target->id);  // `token_list = token_idx`
      return true;
    }
    if (const auto* item = ast::as<ast::Subscript>(value); item && module_of(item)) {
      add_expert_alias(target->id, *module_of(item));  // `expert = self.experts[e]`
      return true;
    }
    Flow f = flow(value);
    if (f == Flow::Rows) {
      add_row(target->id);
      return true;
    }
    if (f == Flow::Invariant && context_.analysis.is_pure(*value)) return true;
    return fail(*value, f == Flow::Invariant
                            ? "may have side effects, and the static form runs it for every expert"
                            : "uses the routed indices or rows other than row by row");
  }
  // `gate, up = rows.chunk(2, dim=-1)`: a split of each row.
  const auto* targets = ast::as<ast::Tuple>(assign.targets[0]);
  const auto* call = ast::as<ast::Call>(value);
  const auto* chunk = call ? ast::as<ast::Attribute>(call->func) : nullptr;
  bool last_dim =
      call && call->args.size == 2 && is_minus_one(call->args[1]) && call->keywords.empty();
  if (call && call->args.size == 1 && call->keywords.size == 1 && call->keywords[0]->arg == "dim" &&
      is_minus_one(call->keywords[0]->value))
    last_dim = true;
  if (targets == nullptr || chunk == nullptr || chunk->attr != "chunk" || !last_dim ||
      flow(chunk->value) != Flow::Rows || flow(call->args[0]) != Flow::Invariant)
    return fail(assign, "unpacks other than `a, b = <rows>.chunk(n, dim=-1)`");
  for (const ast::expr* element : targets->elts) {
    const auto* name = ast::as<ast::Name>(element);
    if (name == nullptr) return fail(assign, "unpacks into other than names");
    add_row(name->id);
    assigned_.push_back(name->id);
  }
  return true;
}

bool BodyCheck::statement(const ast::stmt* s) {
  if (s == loop_.routed) {
    seen_where_ = true;
    for (const ast::expr* target : ast::as<ast::Tuple>(loop_.routed->targets[0])->elts)
      add_index(ast::as<ast::Name>(target)->id);
    return true;
  }
  if (ast::is<ast::Pass>(s)) return true;
  if (const auto* assign = ast::as<ast::Assign>(s)) return assignment(*assign);
  if (const auto* branch = ast::as<ast::If>(s)) {
    if (seen_where_ && empty_guard(*branch)) return true;
    return fail(*s, "is a branch other than `if <indices>.shape[0] == 0: continue`");
  }
  if (const auto* expression = ast::as<ast::Expr>(s); expression && seen_where_)
    return index_add(*expression);
  return fail(*s,
              "is not a statement of the routed form (assignments, the emptiness test, "
              "index_add_)");
}

std::string BodyCheck::check() {
  expert_var_ = ast::as<ast::Name>(loop_.loop->target) ? ast::as<ast::Name>(loop_.loop->target)->id
                                                       : std::string_view();
  if (const auto* pair = ast::as<ast::Tuple>(loop_.loop->target)) {
    // `for e, expert in enumerate(self.experts)`
    const auto* call = ast::as<ast::Call>(loop_.loop->iter);
    const auto* index = pair->elts.size == 2 ? ast::as<ast::Name>(pair->elts[0]) : nullptr;
    const auto* expert = pair->elts.size == 2 ? ast::as<ast::Name>(pair->elts[1]) : nullptr;
    if (index && expert && call && call->args.size == 1 && call->keywords.empty()) {
      expert_var_ = index->id;
      if (stable_chain(call->args[0]))
        expert_aliases_.push_back({expert->id, std::string(node_text(context_, *call->args[0]))});
    }
  }
  if (expert_var_.empty()) return "the loop's target is not a name (the expert's index)";
  // A value the body reads before it assigns it comes from the previous iteration: the
  // passes repeat until the names holding indices and rows are all known.
  size_t known = 0;
  for (int pass = 0; pass < 8; ++pass) {
    problem_.clear();
    experts_.clear();
    index_adds_.clear();
    assigned_.assign({expert_var_});
    for (const auto& alias : expert_aliases_) assigned_.push_back(alias.first);
    seen_where_ = false;
    bool ok = true;
    for (const ast::stmt* s : loop_.loop->body) ok = ok && statement(s);
    if (!ok) return problem_;
    if (indices_.size() + rows_.size() == known) break;
    known = indices_.size() + rows_.size();
  }
  if (index_adds_.empty())
    return "the loop adds no rows back with `out.index_add_(0, <indices>, <rows>)`";
  for (std::string_view live : context_.analysis.live_after(*loop_.loop))
    if (contains(assigned_, live))
      return "`" + std::string(live) +
             "`, assigned in the loop, is read after it (the static form "
             "runs the loop for every expert)";
  return {};
}

// The loop's header: a range, enumerate over a stable chain, or the experts hit (a
// `.tolist()` inline or a name assigned one just before, used only there).
std::optional<std::string> header_problem(const Context& context, RoutedLoop& loop,
                                          const ast::Seq<ast::stmt*>& block) {
  const ast::expr* iter = loop.loop->iter;
  if (const auto* call = ast::as<ast::Call>(iter)) {
    sema::Callee callee = context.analysis.resolve_call(*call);
    if (callee.kind == sema::CalleeKind::Builtin &&
        (callee.qualified_name == "range" || callee.qualified_name == "enumerate") &&
        call->keywords.empty() &&
        std::all_of(call->args.begin(), call->args.end(),
                    [&](const ast::expr* arg) { return context.analysis.is_pure(*arg); }))
      return std::nullopt;
    if ((loop.hits = hit_list(context, iter))) {
      loop.hits->statement = loop.loop;
      return std::nullopt;
    }
  }
  if (const auto* name = ast::as<ast::Name>(iter)) {
    for (const ast::stmt* s : block) {
      const auto* assign = ast::as<ast::Assign>(s);
      const auto* target =
          assign && assign->targets.size == 1 ? ast::as<ast::Name>(assign->targets[0]) : nullptr;
      if (target != nullptr && target->id == name->id) {
        loop.hits = hit_list(context, assign->value);
        if (loop.hits) loop.hits->statement = s;
      }
    }
    auto count = [&](const std::vector<const ast::Name*>& names) {
      return std::count_if(names.begin(), names.end(),
                           [&](const ast::Name* n) { return n->id == name->id; });
    };
    if (loop.hits && count(ast::loads(loop.function)) == 1 &&
        count(ast::stores(loop.function)) == 1)
      return std::nullopt;
  }
  loop.hits.reset();
  return "the loop iterates `" + std::string(node_text(context, *iter)) +
         "`, not a range, enumerate(<experts>) or the `.nonzero(as_tuple=True)[0].tolist()` of the "
         "experts hit";
}

// The routed loop holding the tag's site: its where call is the site, or the site is the
// nonzero of the experts hit its header iterates.
std::optional<RoutedLoop> find_loop(const sema::BreakTag& tag, const Context& context) {
  if (tag.function == nullptr) return std::nullopt;
  std::vector<ast::BlockRef> path;
  RoutedLoop loop;
  loop.function = ast::as<ast::FunctionDef>(tag.function->node);
  if (loop.function == nullptr ||
      !ast::find_path(loop.function->body, loop.function, tag.statement, path))
    return std::nullopt;
  const ast::BlockRef& here = path.back();
  if (routed_where_call(context, tag.statement) == tag.site) {
    loop.loop = ast::as<ast::For>(here.owner);
    if (loop.loop == nullptr || here.block != &loop.loop->body) return std::nullopt;
    loop.routed = ast::as<ast::Assign>(tag.statement);
  } else {
    // The nonzero of a hit list, in the loop's header or in the assignment just before.
    const ast::For* candidate = ast::as<ast::For>(tag.statement);
    const auto* assign = ast::as<ast::Assign>(tag.statement);
    const auto* target =
        assign && assign->targets.size == 1 ? ast::as<ast::Name>(assign->targets[0]) : nullptr;
    std::optional<HitList> hits = hit_list(context, candidate ? candidate->iter
                                                    : assign  ? assign->value
                                                              : nullptr);
    if (!hits || hits->nonzero != tag.site || (candidate == nullptr && target == nullptr))
      return std::nullopt;
    for (uint32_t i = here.index + 1; candidate == nullptr && i < here.block->size; ++i) {
      const auto* next = ast::as<ast::For>((*here.block)[i]);
      const auto* iter = next ? ast::as<ast::Name>(next->iter) : nullptr;
      if (iter != nullptr && iter->id == target->id) candidate = next;
    }
    if (candidate == nullptr) return std::nullopt;
    loop.loop = candidate;
    for (const ast::stmt* s : candidate->body)
      if (routed_where_call(context, s) != nullptr && loop.routed == nullptr)
        loop.routed = ast::as<ast::Assign>(s);
    if (loop.routed == nullptr) return std::nullopt;
  }
  loop.where = ast::as<ast::Call>(loop.routed->value);
  return loop;
}

// The masks of every expert, `M` of the loop's `torch.where(M[e])`, where the experts hit are
// listed: experts_hit reads their size, so that it decides as routed_where does whether the
// static form pays. Null when M is not a name bound there and left alone by the loop.
const ast::Name* mask_stack(const Context& context, const RoutedLoop& loop) {
  const auto* item = ast::as<ast::Subscript>(loop.where->args[0]);
  const auto* stack = item ? ast::as<ast::Name>(item->value) : nullptr;
  const auto* index = item ? ast::as<ast::Name>(item->slice) : nullptr;
  const auto* target = ast::as<ast::Name>(loop.loop->target);
  if (stack == nullptr || index == nullptr || target == nullptr || index->id != target->id ||
      ast::stores_name(loop.loop, stack->id) ||
      !context.analysis.is_definitely_bound_before(*loop.hits->statement, stack->id))
    return nullptr;
  return stack;
}

Outcome routed_form(const Context& context, const RoutedLoop& loop, const BodyCheck& body) {
  std::string experts;
  for (const std::string& module : body.experts()) experts += ", " + module;
  const std::string& rt = context.runtime;
  Outcome outcome;
  outcome.fixed = true;
  outcome.form = "moe";
  outcome.needs_runtime = true;
  const ast::expr* mask = loop.where->args[0];
  outcome.edits.push_back(
      {loop.where->begin, loop.where->end,
       rt + ".routed_where(" + std::string(node_text(context, *mask)) + experts + ")"});
  for (const ast::Call* add : body.index_adds()) {
    const auto* method = ast::as<ast::Attribute>(add->func);
    std::string args;
    for (const ast::expr* arg : add->args) args += ", " + std::string(node_text(context, *arg));
    outcome.edits.push_back({add->begin, add->end,
                             rt + ".routed_index_add_(" +
                                 std::string(node_text(context, *method->value)) + args + ")"});
  }
  outcome.absorbed.push_back(loop.where);
  outcome.absorbed_as = Outcome::Absorbed::Rewritten;
  if (loop.hits) {
    outcome.edits.push_back({loop.hits->tolist->begin, loop.hits->tolist->end,
                             rt + ".experts_hit(" +
                                 std::string(node_text(context, *loop.hits->hit)) + ", " +
                                 std::string(mask_stack(context, loop)->id) + experts + ")"});
    outcome.absorbed.push_back(loop.hits->nonzero);
    outcome.absorbed.push_back(loop.hits->tolist);
  }
  return outcome;
}

}  // namespace

std::optional<Outcome> rewrite_routed_loop(const sema::BreakTag& tag, Context& context) {
  std::optional<RoutedLoop> loop = find_loop(tag, context);
  if (!loop) return std::nullopt;
  auto declined = [](std::string why) {
    return Outcome::declined(reasons::Reason::RoutedLoopForm,
                             "a routed expert loop kept as written: " + why);
  };
  // The block holding the loop, for a hit list assigned before it.
  std::vector<ast::BlockRef> to_loop;
  if (!ast::find_path(loop->function->body, loop->function, loop->loop, to_loop))
    return std::nullopt;
  if (!loop->loop->orelse.empty()) return declined("the loop has an else clause");
  if (std::optional<std::string> problem = header_problem(context, *loop, *to_loop.back().block))
    return declined(*problem);
  BodyCheck body(context, *loop);
  if (std::string problem = body.check(); !problem.empty()) return declined(problem);
  if (loop->hits && mask_stack(context, *loop) == nullptr)
    return declined("the experts hit are listed where the masks the loop reads (`" +
                    std::string(node_text(context, *loop->where->args[0])) +
                    "`: a name indexed by the expert) are not known");
  return routed_form(context, *loop, body);
}

}  // namespace graphmend::rewrite

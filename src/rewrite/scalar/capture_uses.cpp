// Where a captured scalar may flow. Under capture_scalar_outputs Dynamo keeps a scalar read
// in the graph as a symbol, and keeps what sizes, indexes and computes with it there too;
// a branch on it (an if, a comparison, a truth test) or a call into code that may branch
// on it breaks the graph there instead, and one inside a loop or an inlined function may
// break more often than the read did. So a read is captured only where its value reaches
// nothing but:
//
//   arithmetic (unary minus, a binary operator; with a tensor operand the result is a
//   tensor, which is used freely), the builtins max, min, abs, round, int and float, tuple
//   and list displays, whose own consumer decides;
//   an argument of a torch function or of a tensor method (a size, a factor, a bound);
//   an index or slice bound; a return value;
//   a local name assigned once, whose every read is itself such a use.
//
// The option holds for the whole frame, and so reaches the file's other reads too. Dynamo
// lowers an assert on a captured float to a runtime assertion that raises RuntimeError in
// place of the AssertionError (torch 2.13: `assert t.item() > 0, msg` with a floating t), so
// no read is captured in a file holding an assert that tests a scalar read from a tensor.
#include "rewrite/scalar/capture_uses.h"

#include <string>
#include <unordered_map>

#include "sema/torch_facts.h"

namespace graphmend::rewrite {
namespace {

constexpr int kMaxNames = 4;  // names the value may pass through (`n = ...; m = n - 1`)

using Parents = std::unordered_map<const ast::Node*, const ast::Node*>;

void index_parents(const ast::Node* node, Parents& parents) {
  ast::for_each_child(node, [&](const ast::Node* child) {
    if (child == nullptr) return;
    parents[child] = node;
    index_parents(child, parents);
  });
}

bool opens_scope(const ast::Node* node) {
  return ast::is<ast::FunctionDef>(node) || ast::is<ast::AsyncFunctionDef>(node) ||
         ast::is<ast::Lambda>(node) || ast::is<ast::ClassDef>(node) ||
         ast::is<ast::ListComp>(node) || ast::is<ast::SetComp>(node) ||
         ast::is<ast::DictComp>(node) || ast::is<ast::GeneratorExp>(node);
}

class CaptureUses {
 public:
  CaptureUses(const Context& context, const ast::Node& function) : context_(context) {
    function_ = &function;
    index_parents(&function, parents_);
  }

  std::optional<reasons::Problem> of(const ast::expr& value, int names) const {
    const ast::Node* node = &value;
    while (true) {
      auto up = parents_.find(node);
      if (up == parents_.end()) return problem("its value is used where it cannot be followed");
      const ast::Node* parent = up->second;
      if (const auto* binary = ast::as<ast::BinOp>(parent)) {
        const ast::expr* other = binary->left == node ? binary->right : binary->left;
        if (context_.analysis.is_tensor(*other)) return std::nullopt;  // a tensor from here
      } else if (const auto* unary = ast::as<ast::UnaryOp>(parent)) {
        if (unary->op == ast::UnaryOpKind::Not) return problem("it is tested for truth");
      } else if (ast::is<ast::Tuple>(parent) || ast::is<ast::List>(parent) ||
                 ast::is<ast::keyword>(parent) || ast::is<ast::Slice>(parent)) {
        // its consumer decides
      } else if (const auto* call = ast::as<ast::Call>(parent)) {
        if (call->func == node) return problem("it is called");
        std::optional<bool> kept = kept_by_call(*call);
        if (!kept) return problem("it is passed to `" + text(*call->func) + "`");
        if (*kept) return std::nullopt;
      } else if (const auto* subscript = ast::as<ast::Subscript>(parent)) {
        if (subscript->slice == node) return std::nullopt;
        return problem("it is indexed");
      } else if (ast::is<ast::Return>(parent)) {
        return std::nullopt;
      } else if (const auto* assign = ast::as<ast::Assign>(parent)) {
        return through_name(*assign, names);
      } else {
        return problem("it is used by `" + text(*parent) + "`");
      }
      node = parent;
    }
  }

 private:
  // True: the call keeps the value in the graph; false: the value passes through it (a
  // builtin such as max); nullopt: the call may branch on it.
  std::optional<bool> kept_by_call(const ast::Call& call) const {
    sema::Callee callee = context_.analysis.resolve_call(call);
    if (callee.kind == sema::CalleeKind::TorchFunction ||
        callee.kind == sema::CalleeKind::TensorMethod)
      return true;
    if (callee.kind == sema::CalleeKind::Builtin) {
      for (std::string_view name : {"max", "min", "abs", "round", "int", "float"})
        if (callee.qualified_name == name) return false;
      return std::nullopt;
    }
    const auto* method = ast::as<ast::Attribute>(call.func);
    if (callee.kind == sema::CalleeKind::Unknown && method != nullptr &&
        sema::has_fact(sema::TorchFact::PureMethod, method->attr))
      return true;  // a tensor method by its name (`x.view(b, n)` on a parameter)
    return std::nullopt;
  }

  // `name = <value>`: every read of `name` the value may reach must be a use the capture
  // keeps. Outside a loop those are the reads after the assignment, whatever else the name
  // holds before it (`num_boxes` a tensor, then its clamped count); in a loop, every read,
  // and the name assigned only here.
  std::optional<reasons::Problem> through_name(const ast::Assign& assign, int names) const {
    const auto* target = assign.targets.size == 1 ? ast::as<ast::Name>(assign.targets[0]) : nullptr;
    if (target == nullptr) return problem("it is unpacked or stored elsewhere than in a name");
    if (names >= kMaxNames) return problem("it passes through too many names");
    Reads found{target->id, target, in_loop(&assign) ? 0 : assign.end, {}, false};
    collect(function_, found, false);
    if (found.other)
      return problem("`" + std::string(target->id) +
                     "` is assigned again, global or read by a nested scope");
    for (const ast::Name* read : found.reads)
      if (std::optional<reasons::Problem> problem = of(*read, names + 1)) return problem;
    return std::nullopt;
  }

  struct Reads {
    std::string_view id;
    const ast::Name* target;
    uint32_t after;  // reads and other stores before this offset do not count
    std::vector<const ast::Name*> reads;
    bool other = false;
  };

  void collect(const ast::Node* node, Reads& found, bool nested) const {
    if (node == nullptr || found.other) return;
    if (const auto* name = ast::as<ast::Name>(node); name && name->id == found.id) {
      if (nested) {
        found.other = true;
      } else if (name->begin >= found.after && name != found.target) {
        if (name->ctx != ast::ExprContext::Load) found.other = true;
        if (name->ctx == ast::ExprContext::Load) found.reads.push_back(name);
      }
      return;
    }
    if (declares(node, found.id)) found.other = true;
    bool inner = nested || (node != function_ && opens_scope(node));
    ast::for_each_child(node, [&](const ast::Node* child) { collect(child, found, inner); });
  }

  static bool declares(const ast::Node* node, std::string_view id) {
    const ast::Seq<std::string_view>* names = nullptr;
    if (const auto* global = ast::as<ast::Global>(node)) names = &global->names;
    if (const auto* nonlocal = ast::as<ast::Nonlocal>(node)) names = &nonlocal->names;
    if (names == nullptr) return false;
    for (std::string_view name : *names)
      if (name == id) return true;
    return false;
  }

  bool in_loop(const ast::Node* node) const {
    for (auto up = parents_.find(node); up != parents_.end(); up = parents_.find(up->second)) {
      const ast::Node* parent = up->second;
      if (parent == function_) return false;
      if (ast::is<ast::For>(parent) || ast::is<ast::AsyncFor>(parent) ||
          ast::is<ast::While>(parent))
        return true;
    }
    return false;
  }

  std::string text(const ast::Node& node) const {
    std::string_view written = node_text(context_, node);
    return std::string(written.substr(0, written.find('\n')));
  }

  static reasons::Problem problem(std::string why) {
    return {reasons::Reason::ScalarCaptureUse, "the scalar is not captured: " + why +
                                                   ", where a captured value would break the "
                                                   "graph as the read does"};
  }

  const Context& context_;
  const ast::Node* function_ = nullptr;
  Parents parents_;
};

// Whether `node` reads a scalar from a tensor, directly or through a name in `held`.
bool reads_scalar(const Context& context, const ast::Node* node,
                  const std::vector<std::string_view>& held) {
  if (node == nullptr) return false;
  if (const auto* call = ast::as<ast::Call>(node);
      call && context.analysis.scalar_read(*call).tensor != nullptr)
    return true;
  if (const auto* name = ast::as<ast::Name>(node))
    for (std::string_view id : held)
      if (name->id == id) return true;
  bool found = false;
  ast::for_each_child(
      node, [&](const ast::Node* child) { found = found || reads_scalar(context, child, held); });
  return found;
}

// The names assigned a scalar read (`n = t.item()`) and the asserts of the module.
void scan(const Context& context, const ast::Node* node, std::vector<std::string_view>& held,
          std::vector<const ast::Assert*>& asserts) {
  if (node == nullptr) return;
  if (const auto* assign = ast::as<ast::Assign>(node)) {
    const auto* target =
        assign->targets.size == 1 ? ast::as<ast::Name>(assign->targets[0]) : nullptr;
    if (target != nullptr && context.analysis.scalar_read(*assign->value).tensor != nullptr)
      held.push_back(target->id);
  }
  if (const auto* check = ast::as<ast::Assert>(node)) asserts.push_back(check);
  ast::for_each_child(node, [&](const ast::Node* child) { scan(context, child, held, asserts); });
}

bool asserts_on_scalars(const Context& context) {
  std::vector<std::string_view> held;
  std::vector<const ast::Assert*> asserts;
  scan(context, &context.module, held, asserts);
  for (const ast::Assert* check : asserts)
    if (reads_scalar(context, check->test, held)) return true;
  return false;
}

}  // namespace

std::optional<reasons::Problem> capture_problem(const Context& context, const ast::Call& read) {
  const sema::FunctionInfo* function = context.analysis.function_of(&read);
  if (function == nullptr || function->node == nullptr)
    return reasons::Problem{reasons::Reason::ScalarCaptureUse,
                            "the scalar is not captured: it is read outside a function"};
  if (asserts_on_scalars(context))
    return reasons::Problem{reasons::Reason::ScalarCaptureUse,
                            "the scalar is not captured: an assert of the file tests a scalar "
                            "read from a tensor, which Dynamo checks otherwise in a frame "
                            "traced with scalar capture (RuntimeError for AssertionError)"};
  return CaptureUses(context, *function->node).of(read, 0);
}

}  // namespace graphmend::rewrite

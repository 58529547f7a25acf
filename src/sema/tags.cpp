// Graph-break tagging: walks every traced function and records each construct TorchDynamo
// breaks on, with the reason quoted from the source.
#include "sema/tags.h"

#include <algorithm>

#include "ast/walk.h"
#include "base/runtime_name.h"
#include "sema/analysis_impl.h"
#include "sema/helpers.h"

namespace graphmend::sema {

using ast::as;
using ast::is;

const char* break_code(BreakKind kind) {
  switch (kind) {
#define BREAK(kind, code, summary, owner) \
  case BreakKind::kind:                   \
    return code;
#include "diag/codes.def"
  }
  return "";
}

const char* break_summary(BreakKind kind) {
  switch (kind) {
#define BREAK(kind, code, summary, owner) \
  case BreakKind::kind:                   \
    return summary;
#include "diag/codes.def"
  }
  return "";
}

bool site_is_condition(BreakKind kind) {
  return kind == BreakKind::DataDependentBranch || kind == BreakKind::ValidationGuard ||
         kind == BreakKind::TensorAssert;
}

namespace {

bool is_stmt_kind(ast::Kind k) { return k >= ast::Kind::FunctionDef && k <= ast::Kind::Continue; }

bool is_rerun_call(const ast::expr* e) {
  const auto* call = as<ast::Call>(e);
  const auto* method = call ? as<ast::Attribute>(call->func) : nullptr;
  const auto* module = method ? as<ast::Name>(method->value) : nullptr;
  return module != nullptr && module->id == kRuntimeName && method->attr == "rerun_if";
}

// Whether `test` calls the runtime module: the if around a statement GraphMend mended.
bool calls_runtime(const ast::expr* test) {
  bool found = false;
  ast::walk(test, [&](const ast::Node* n) {
    if (const auto* call = as<ast::Call>(n))
      if (const auto* method = as<ast::Attribute>(call->func))
        if (const auto* module = as<ast::Name>(method->value); module && module->id == kRuntimeName)
          found = true;
    return !found;
  });
  return found;
}

// The test of a guard [Trap] mended into `if <runtime>.rerun_if(...):` (also after a static
// prefix, `p and <runtime>.rerun_if(...)`, or checked, `<runtime>.rerun_if(...) if ... else
// ...`), whose body only ever runs eagerly; or null.
const ast::expr* rerun_guard_test(const ast::stmt& s) {
  const auto* guard = as<ast::If>(&s);
  if (guard == nullptr) return nullptr;
  const ast::expr* test = guard->test;
  if (const auto* conjunction = as<ast::BoolOp>(test);
      conjunction && conjunction->op == ast::BoolOpKind::And && conjunction->values.size > 0)
    test = conjunction->values[conjunction->values.size - 1];
  if (const auto* choice = as<ast::IfExp>(test)) test = choice->body;
  return is_rerun_call(test) ? guard->test : nullptr;
}

class Tagger {
 public:
  Tagger(const AnalysisImpl& a, const FunctionInfo& f, const std::vector<uint32_t>* observed,
         std::vector<BreakTag>& out)
      : a_(a), f_(f), observed_(observed), out_(out) {}

  void run() {
    const ast::Seq<ast::stmt*>* body = nullptr;
    if (const auto* fn = as<ast::FunctionDef>(f_.node)) body = &fn->body;
    if (const auto* fn = as<ast::AsyncFunctionDef>(f_.node)) body = &fn->body;
    if (body == nullptr) return;
    std::vector<std::pair<const ast::Node*, const ast::stmt*>> stack;
    for (uint32_t i = body->size; i-- > 0;) stack.push_back({(*body)[i], (*body)[i]});
    while (!stack.empty()) {
      auto [n, owner] = stack.back();
      stack.pop_back();
      if (n == nullptr) continue;
      if (is_stmt_kind(n->kind)) {
        owner = static_cast<const ast::stmt*>(n);
        if (n->kind == ast::Kind::FunctionDef || n->kind == ast::Kind::AsyncFunctionDef ||
            n->kind == ast::Kind::ClassDef) {
          continue;  // separate functions, tagged when traced themselves
        }
        if (const ast::expr* test = rerun_guard_test(*owner)) {
          stack.push_back({test, owner});  // its body runs eagerly only: never traced
          continue;
        }
        statement(owner);
      } else {
        // `(<mended> if <runtime check> else <original>)`: the original is a fallback too
        if (const auto* choice = as<ast::IfExp>(n); choice && calls_runtime(choice->test))
          fallbacks_.push_back({choice->orelse->begin, choice->orelse->end});
        expression(n, owner);
      }
      size_t mark = stack.size();
      // An init-capture: clang before 16 cannot capture a structured binding.
      ast::for_each_child(n, [&, owner = owner](const ast::Node* c) {
        stack.push_back({c, owner});
      });
      std::reverse(stack.begin() + static_cast<long>(mark), stack.end());
    }
  }

 private:
  void add(BreakKind kind, const ast::stmt* s, const ast::Node* site, std::string message) {
    BreakTag tag;
    tag.kind = kind;
    tag.statement = s;
    tag.site = site;
    tag.function = &f_;
    tag.message = std::move(message);
    tag.in_mended_fallback =
        std::any_of(fallbacks_.begin(), fallbacks_.end(), [&](const ByteRange& range) {
          return range.begin <= site->begin && site->end <= range.end;
        });
    out_.push_back(std::move(tag));
  }

  // Records the parts of an if GraphMend wrote that hold the original (the walk visits an if
  // before what it holds): its test and its else, run where the mended form's check fails.
  void note_mended_fallback(const ast::If& i) {
    fallbacks_.push_back({i.test->begin, i.test->end});
    if (i.orelse.size > 0)
      fallbacks_.push_back({i.orelse[0]->begin, i.orelse[i.orelse.size - 1]->end});
  }

  std::string quote(const ast::Node& n) const { return "`" + quote_source(a_.source(), n) + "`"; }

  // Whether Dynamo broke on a jump on a line of `n` (TagOptions::observed_lines).
  bool observed_at(const ast::Node& n) const {
    if (observed_ == nullptr || observed_->empty()) return false;
    uint32_t first = a_.source().line_col(n.begin).line;
    uint32_t last = a_.source().line_col(n.end).line;
    return std::any_of(observed_->begin(), observed_->end(),
                       [&](uint32_t line) { return first <= line && line <= last; });
  }

  // A condition that branches on tensor data: shown by the text; else observed by Dynamo,
  // or reading an attribute its class sets to a tensor (a parameter, a buffer). `assumption` then
  // says which, and the rewrite assumes its operands are tensors and checks them at run time.
  bool tensor_condition(const ast::expr& test, const ast::Node& observed_range,
                        const ast::stmt& site, std::string* assumption) {
    assumption->clear();
    if (a_.is_data_dependent(test)) return true;
    if (observed_at(observed_range)) {
      *assumption = " (Dynamo broke on it when the program ran)";
      return true;
    }
    std::vector<const ast::expr*> evidence;
    if (!a_.is_data_dependent_by_class(test, site, evidence) || evidence.empty()) {
      evidence.clear();
      const auto* selection = as<ast::IfExp>(&observed_range);
      if (selection == nullptr || !a_.selects_tensors_by_parameter(*selection, site, evidence) ||
          evidence.empty())
        return false;
      *assumption = " (its values are tensors, and " + quote(*evidence.front()) +
                    " is a parameter that may be one)";
      return true;
    }
    if (ast::is<ast::Name>(evidence.front()))
      *assumption = " (" + quote(*evidence.front()) + " is annotated as a tensor)";
    else
      *assumption = " (its class sets " + quote(*evidence.front()) + " to a tensor)";
    return true;
  }

  void add_condition(BreakKind kind, const ast::stmt* s, const ast::Node* site, std::string what,
                     const ast::expr& test, const std::string& assumption) {
    add(kind, s, site, what + " on tensor value " + quote(test) + assumption);
    out_.back().assumed = !assumption.empty();
  }

  void statement(const ast::stmt* s) {
    std::string assumption;
    if (const auto* i = as<ast::If>(s)) {
      if (calls_runtime(i->test)) note_mended_fallback(*i);
      if (!tensor_condition(*i->test, *i->test, *s, &assumption)) return;
      if (ends_in_raise(i->body, a_.torch_name())) {
        add_condition(BreakKind::ValidationGuard, s, i->test, "validation guard", *i->test,
                      assumption);
      } else {
        add_condition(BreakKind::DataDependentBranch, s, i->test, "branch", *i->test, assumption);
      }
    } else if (const auto* assertion = as<ast::Assert>(s)) {
      // Not a break: Dynamo lowers it to an in-graph assert, whose failure is a RuntimeError
      // rather than the AssertionError the program raises eagerly.
      if (a_.is_data_dependent(*assertion->test)) {
        add(BreakKind::TensorAssert, s, assertion->test,
            "assert on tensor value " + quote(*assertion->test));
      }
    } else if (const auto* w = as<ast::While>(s)) {
      if (tensor_condition(*w->test, *w->test, *s, &assumption)) {
        add_condition(BreakKind::DataDependentBranch, s, w->test, "loop condition", *w->test,
                      assumption);
      }
    }
  }

  void expression(const ast::Node* n, const ast::stmt* owner) {
    switch (n->kind) {
      case ast::Kind::Call:
        call(*as<ast::Call>(n), owner);
        break;
      case ast::Kind::IfExp: {
        const auto* e = as<ast::IfExp>(n);
        std::string assumption;
        if (tensor_condition(*e->test, *e, *owner, &assumption)) {
          add_condition(BreakKind::DataDependentBranch, owner, e, "conditional expression",
                        *e->test, assumption);
        }
        break;
      }
      case ast::Kind::Subscript:
        subscript(*as<ast::Subscript>(n), owner);
        break;
      default:
        break;
    }
  }

  void call(const ast::Call& c, const ast::stmt* owner) {
    Callee callee = a_.resolve_call(c);
    switch (callee.kind) {
      case CalleeKind::Print:
        add(BreakKind::PrintCall, owner, &c, "print call " + quote(c));
        return;
      case CalleeKind::LoggerMethod:
        add(BreakKind::LoggingCall, owner, &c, "logging call " + quote(c));
        return;
      case CalleeKind::WarningsWarn:
        add(BreakKind::WarningsCall, owner, &c, "warnings.warn call " + quote(c));
        return;
      case CalleeKind::Builtin:
        // A read of a value the text does not show a tensor counts where Dynamo broke on
        // it: what mended code does with such a read is the read itself for a non-tensor.
        if (in_list(callee.qualified_name, {"int", "float", "bool"}) && c.args.size == 1 &&
            c.keywords.empty() &&
            (a_.is_tensor(*c.args[0]) ||
             (observed_at(c) && !a_.known_non_tensor(c.args[0], a_.scope_of(c.args[0]))))) {
          add(BreakKind::ScalarUse, owner, &c, "tensor converted to a Python scalar " + quote(c));
        }
        return;
      case CalleeKind::TorchFunction: {
        std::string_view name = callee.qualified_name;
        if (name.substr(0, 6) == "torch.") name = name.substr(6);
        if (name == "_check_tensor_all") {
          add(BreakKind::TensorCheck, owner, &c, "tensor check " + quote(c));
          return;
        }
        if (in_list(name,
                    {"nonzero", "unique", "unique_consecutive", "masked_select", "argwhere"}) ||
            (name == "where" && c.args.size == 1 && c.keywords.empty())) {
          add(BreakKind::DynamicShape, owner, &c, "data-dependent output shape " + quote(c));
        }
        return;
      }
      default:
        break;
    }
    const auto* attr = as<ast::Attribute>(c.func);
    if (attr == nullptr || is_literal(attr->value)) return;
    if (callee.kind != CalleeKind::TensorMethod && callee.kind != CalleeKind::Unknown) return;
    std::string_view m = attr->attr;
    bool to_scalar = in_list(m, {"item", "tolist"}) && c.args.empty() && c.keywords.empty();
    bool dynamic_shape =
        in_list(m, {"nonzero", "unique", "unique_consecutive", "masked_select", "argwhere"});
    // The method name first: what the receiver is costs a data-flow query.
    if (!to_scalar && !dynamic_shape) return;
    if (a_.known_non_tensor(attr->value, a_.scope_of(attr->value))) return;  // numpy, lists
    if (to_scalar) {
      add(BreakKind::ScalarUse, owner, &c, "tensor converted to a Python scalar " + quote(c));
    } else if (callee.kind == CalleeKind::TensorMethod ||
               a_.kind_of(*attr->value) == ValueKind::Other) {
      add(BreakKind::DynamicShape, owner, &c, "data-dependent output shape " + quote(c));
    }
  }

  void subscript(const ast::Subscript& s, const ast::stmt* owner) {
    if (s.ctx != ast::ExprContext::Load) return;
    const ast::expr* index = s.slice;
    const ast::Seq<ast::expr*>* parts = nullptr;
    if (const auto* t = as<ast::Tuple>(index)) parts = &t->elts;
    auto check = [&](const ast::expr* part) -> bool {
      if (const auto* sl = as<ast::Slice>(part)) {
        for (const ast::expr* bound : {sl->lower, sl->upper, sl->step}) {
          if (bound != nullptr && a_.is_tensor(*bound)) {
            add(BreakKind::TensorSliceBound, owner, &s,
                "tensor slice bound " + quote(*bound) + " in " + quote(s));
            return true;
          }
        }
        return false;
      }
      // a mask by the text, or by Dynamo's break on the line (an operator of data-dependent
      // output shape) where a plain parameter counts as a tensor
      if (a_.is_bool_tensor(*part) ||
          (owner != nullptr && observed_at(s) && a_.is_bool_tensor_by_parameter(*part, *owner))) {
        add(BreakKind::DynamicShape, owner, &s, "boolean-mask indexing " + quote(s));
        return true;
      }
      return false;
    };
    if (parts != nullptr) {
      for (const ast::expr* part : *parts) {
        if (check(part)) return;
      }
    } else {
      check(index);
    }
  }

  const AnalysisImpl& a_;
  const FunctionInfo& f_;
  const std::vector<uint32_t>* observed_;
  std::vector<BreakTag>& out_;
  std::vector<ByteRange> fallbacks_;  // note_mended_fallback
};

}  // namespace

namespace {

bool meets_any(const ast::Node& node, const std::vector<ByteRange>& ranges) {
  for (const ByteRange& range : ranges) {
    if (range.begin <= node.end && node.begin <= range.end) return true;
  }
  return false;
}

}  // namespace

std::vector<BreakTag> tag_breaks(const ast::Module& module, const Analysis& analysis,
                                 const TagOptions& options) {
  (void)module;
  std::vector<BreakTag> tags;
  const auto& impl = static_cast<const AnalysisImpl&>(analysis);
  for (const FunctionInfo& f : impl.functions()) {
    if (!impl.is_traced(f)) continue;
    if (options.only_within != nullptr && !meets_any(*f.node, *options.only_within)) continue;
    size_t first = tags.size();
    Tagger(impl, f, options.observed_lines, tags).run();
    std::stable_sort(
        tags.begin() + static_cast<long>(first), tags.end(),
        [](const BreakTag& x, const BreakTag& y) { return x.site->begin < y.site->begin; });
  }
  // functions are already in source order; nested functions come after their parents'
  // tags, so sort globally by position
  std::stable_sort(tags.begin(), tags.end(), [](const BreakTag& x, const BreakTag& y) {
    return x.site->begin < y.site->begin;
  });
  return tags;
}

}  // namespace graphmend::sema

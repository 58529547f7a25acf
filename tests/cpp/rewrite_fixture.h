// The fixture of the rewrite unit tests: a parsed module, a small fake Analysis (names in
// a set are tensors; print / logger.<m> / warnings.warn resolve as the real resolver
// would) and one hand-made break tag, so the tests pin each rewrite's emitted text
// independently of the analysis.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "lex/lexer.h"
#include "parse/parser.h"
#include "rewrite/edits.h"
#include "rewrite/rewrite.h"

namespace graphmend::rewrite_test {

using rewrite::apply_edits;
using rewrite::normalize_edits;

class FakeAnalysis : public sema::Analysis {
 public:
  FakeAnalysis(const ast::Module& module, std::set<std::string> tensors)
      : tensors_(std::move(tensors)) {
    collect(module.body);
  }

  const std::vector<sema::FunctionInfo>& functions() const override { return functions_; }
  const sema::FunctionInfo* function_of(const ast::Node* node) const override {
    const sema::FunctionInfo* best = nullptr;
    for (const auto& info : functions_) {
      if (info.node->begin <= node->begin && node->end <= info.node->end) best = &info;
    }
    return best;
  }
  bool is_traced(const sema::FunctionInfo&) const override { return true; }
  std::string_view torch_name() const override { return "torch"; }

  sema::Callee resolve_call(const ast::Call& call) const override {
    sema::Callee callee;
    if (const auto* name = ast::as<ast::Name>(call.func)) {
      if (name->id == "print") callee.kind = sema::CalleeKind::Print;
      callee.qualified_name = std::string(name->id);
    } else if (const auto* attribute = ast::as<ast::Attribute>(call.func)) {
      const auto* base = ast::as<ast::Name>(attribute->value);
      callee.qualified_name = std::string(attribute->attr);
      if (base && base->id == "logger") callee.kind = sema::CalleeKind::LoggerMethod;
      if (base && base->id == "warnings" && attribute->attr == "warn") {
        callee.kind = sema::CalleeKind::WarningsWarn;
      }
      if (base && base->id == "torch") callee.kind = sema::CalleeKind::TorchFunction;
    }
    return callee;
  }

  bool is_tensor(const ast::expr& e) const override {
    if (const auto* name = ast::as<ast::Name>(&e)) return tensors_.count(std::string(name->id)) > 0;
    if (const auto* call = ast::as<ast::Call>(&e)) {
      if (const auto* attribute = ast::as<ast::Attribute>(call->func)) {
        return is_tensor(*attribute->value) ||
               resolve_call(*call).kind == sema::CalleeKind::TorchFunction;
      }
      return false;
    }
    if (const auto* compare = ast::as<ast::Compare>(&e)) {
      if (is_tensor(*compare->left)) return true;
      for (const ast::expr* c : compare->comparators) {
        if (is_tensor(*c)) return true;
      }
      return false;
    }
    if (const auto* binop = ast::as<ast::BinOp>(&e))
      return is_tensor(*binop->left) || is_tensor(*binop->right);
    if (const auto* unary = ast::as<ast::UnaryOp>(&e)) {
      return unary->op != ast::UnaryOpKind::Not && is_tensor(*unary->operand);
    }
    return false;
  }
  bool is_data_dependent(const ast::expr& condition) const override {
    if (const auto* boolean = ast::as<ast::BoolOp>(&condition)) {
      for (const ast::expr* value : boolean->values) {
        if (is_data_dependent(*value)) return true;
      }
      return false;
    }
    if (const auto* unary = ast::as<ast::UnaryOp>(&condition))
      return is_data_dependent(*unary->operand);
    return is_tensor(condition);
  }
  bool is_pure(const ast::expr& e, const sema::PurityFacts&) const override { return is_pure(e); }
  bool is_number(const ast::expr&, const sema::PurityFacts&) const override { return false; }
  void add_floating_dtypes(const ast::expr&, sema::PurityFacts&) const override {}
  bool is_pure(const ast::expr& e) const override {
    // Calls of `impure(...)` anywhere make an expression impure.
    bool pure = true;
    std::function<void(ast::Node*)> visit = [&](ast::Node* node) {
      if (const auto* call = ast::as<ast::Call>(node)) {
        if (const auto* name = ast::as<ast::Name>(call->func); name && name->id == "impure")
          pure = false;
      }
      ast::for_each_child(node, visit);
    };
    visit(const_cast<ast::expr*>(&e));
    return pure;
  }
  std::vector<std::string_view> live_after(const ast::stmt&) const override { return {}; }
  std::vector<std::string_view> assigned_names(const ast::Seq<ast::stmt*>& body) const override {
    std::vector<std::string_view> names;
    for (const ast::stmt* statement : body) {
      if (const auto* assign = ast::as<ast::Assign>(statement)) {
        for (const ast::expr* target : assign->targets) {
          if (const auto* name = ast::as<ast::Name>(target)) names.push_back(name->id);
        }
      }
    }
    return names;
  }
  bool mutates_state(const ast::Seq<ast::stmt*>&) const override { return false; }
  bool is_bool_tensor(const ast::expr& e) const override { return ast::is<ast::Compare>(&e); }
  bool is_definitely_bound_before(const ast::stmt&, std::string_view) const override {
    return true;
  }
  bool is_tensor_before(const ast::stmt&, std::string_view name) const override {
    return tensors_.count(std::string(name)) > 0;
  }
  std::vector<std::string_view> live_before(const ast::stmt&) const override { return {}; }
  sema::Speculation* speculate(sema::Speculation*) const override { return nullptr; }
  std::string why_not_fresh(const ast::expr&) const override { return "not known here"; }
  sema::ScalarRead scalar_read(const ast::expr&) const override { return {}; }
  sema::HeldScalar held_scalar(const ast::stmt&) const override {
    sema::HeldScalar held;
    held.problem = reasons::Problem{reasons::Reason::Other, "not known here"};
    return held;
  }

 private:
  void collect(const ast::Seq<ast::stmt*>& body) {
    for (const ast::stmt* statement : body) {
      if (const auto* f = ast::as<ast::FunctionDef>(statement)) {
        sema::FunctionInfo info;
        info.node = f;
        info.qualified_name = std::string(f->name);
        info.reason = sema::EntryReason::CompileDecorator;
        functions_.push_back(info);
        collect(f->body);
      } else if (const auto* c = ast::as<ast::ClassDef>(statement)) {
        collect(c->body);
      }
    }
  }

  std::set<std::string> tensors_;
  std::vector<sema::FunctionInfo> functions_;
};

// A parsed module, its fake analysis and one tag on the first statement of kind `kind`
// found in the first function's body (depth first).
struct Fixture {
  SourceText source;
  Arena arena;
  ParseResult parsed;
  std::unique_ptr<FakeAnalysis> analysis;
  MendOptions options;
  std::unique_ptr<rewrite::Context> context;

  Fixture(std::string text, std::set<std::string> tensors, int minor = 11)
      : source(std::move(text), "model.py") {
    options.version.minor = minor;
    parsed = parse_module(source, arena, ParseOptions{options.version});
    if (parsed.module == nullptr) return;
    analysis = std::make_unique<FakeAnalysis>(*parsed.module, std::move(tensors));
    context = std::make_unique<rewrite::Context>(
        rewrite::Context{source, *parsed.module, *analysis, options});
  }

  const ast::stmt* find(std::function<bool(const ast::stmt*)> match) const {
    const ast::stmt* found = nullptr;
    std::function<void(ast::Node*)> visit = [&](ast::Node* node) {
      if (found) return;
      if (ast::kind_has_position(node->kind) && node->kind != ast::Kind::Module) {
        auto* statement = static_cast<ast::stmt*>(node);
        bool is_statement = false;
        switch (node->kind) {
#define AST_NODE(cls, category, positioned, fields)       \
  case ast::Kind::cls:                                    \
    is_statement = std::string_view(#category) == "stmt"; \
    break;
#include "ast/nodes.def"
        }
        if (is_statement && match(statement)) {
          found = statement;
          return;
        }
      }
      ast::for_each_child(node, visit);
    };
    visit(parsed.module);
    return found;
  }

  // Runs the rewrite for a tag of `kind` on the first matching statement; returns the
  // mended text, or "DECLINED: <reason>".
  std::string run(sema::BreakKind kind) {
    if (parsed.module == nullptr) return "PARSE ERROR";
    sema::BreakTag tag;
    tag.kind = kind;
    if (kind == sema::BreakKind::ValidationGuard) {
      tag.statement = find([](const ast::stmt* s) { return ast::is<ast::If>(s); });
      if (tag.statement) tag.site = ast::as<ast::If>(tag.statement)->test;
    } else if (kind == sema::BreakKind::TensorAssert) {
      tag.statement = find([](const ast::stmt* s) { return ast::is<ast::Assert>(s); });
      if (tag.statement) tag.site = ast::as<ast::Assert>(tag.statement)->test;
    } else {
      tag.statement = find([](const ast::stmt* s) {
        const auto* e = ast::as<ast::Expr>(s);
        return e && ast::is<ast::Call>(e->value);
      });
      if (tag.statement == nullptr) {
        tag.statement = find([](const ast::stmt* s) { return ast::is<ast::Assign>(s); });
        if (tag.statement) tag.site = ast::as<ast::Assign>(tag.statement)->value;
      } else {
        tag.site = ast::as<ast::Expr>(tag.statement)->value;
      }
    }
    if (tag.statement == nullptr) return "NO STATEMENT";
    tag.function = analysis->function_of(tag.statement);
    bool trap = kind == sema::BreakKind::ValidationGuard || kind == sema::BreakKind::TensorAssert;
    std::optional<rewrite::Outcome> outcome =
        trap ? rewrite::rewrite_trap(tag, *context) : rewrite::rewrite_defer(tag, *context);
    if (!outcome) return "NOT MINE";
    if (!outcome->fixed) return "DECLINED: " + outcome->reason;
    EXPECT_TRUE(outcome->needs_runtime);
    std::string error;
    std::vector<TextEdit> edits = outcome->edits;
    if (!normalize_edits(edits, source.size(), &error)) return "BAD EDITS: " + error;
    std::string mended = apply_edits(source.text(), edits);
    // The result must parse.
    SourceText check(mended);
    Arena check_arena;
    ParseResult reparsed = parse_module(check, check_arena, ParseOptions{options.version});
    if (reparsed.module == nullptr) return "DOES NOT PARSE: " + mended;
    return mended;
  }
};

inline std::string body(const std::string& lines) {
  return "import torch\nimport warnings\n\ndef forward(x, n):\n" + lines;
}

}  // namespace graphmend::rewrite_test

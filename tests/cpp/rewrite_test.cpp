// Unit tests of edit application, the line map, and the [Defer] and [Trap] rewrites.
//
// The rewrites are driven by hand-made break tags over a small fake Analysis (names in a
// set are tensors; print / logger.<m> / warnings.warn resolve as the real resolver would),
// so these tests pin the emitted text independently of the analysis.
#include "rewrite/rewrite.h"

#include <gtest/gtest.h>

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "lex/lexer.h"
#include "parse/parser.h"
#include "rewrite/edits.h"

namespace graphmend {
namespace {

using rewrite::apply_edits;
using rewrite::build_line_map;
using rewrite::normalize_edits;

// ---------------------------------------------------------------------------------------------
// Edits.

TEST(Edits, AppliesSortedEditsAndKeepsOtherBytes) {
  std::string text = "abc def ghi";
  std::vector<TextEdit> edits = {{8, 11, "GHI"}, {0, 3, "A"}, {4, 4, ">"}};
  std::string error;
  ASSERT_TRUE(normalize_edits(edits, text.size(), &error)) << error;
  EXPECT_EQ(edits[0].begin, 0u);
  EXPECT_EQ(apply_edits(text, edits), "A >def GHI");
}

TEST(Edits, RejectsOverlapAndOutOfBounds) {
  std::string error;
  std::vector<TextEdit> overlapping = {{0, 5, "x"}, {3, 7, "y"}};
  EXPECT_FALSE(normalize_edits(overlapping, 10, &error));
  EXPECT_NE(error.find("overlapping"), std::string::npos);
  std::vector<TextEdit> inside = {{0, 5, "x"}, {2, 2, "y"}};
  EXPECT_FALSE(normalize_edits(inside, 10, &error));
  std::vector<TextEdit> out_of_bounds = {{4, 12, "x"}};
  EXPECT_FALSE(normalize_edits(out_of_bounds, 10, &error));
  std::vector<TextEdit> backwards = {{5, 4, "x"}};
  EXPECT_FALSE(normalize_edits(backwards, 10, &error));
}

TEST(Edits, AdjacentEditsAndInsertionsAtBoundaries) {
  std::string text = "0123456789";
  std::vector<TextEdit> edits = {{2, 4, "b"}, {4, 6, "c"}, {4, 4, "|"}, {0, 0, "<"}, {10, 10, ">"}};
  std::string error;
  ASSERT_TRUE(normalize_edits(edits, text.size(), &error)) << error;
  EXPECT_EQ(apply_edits(text, edits), "<01b|c6789>");
}

TEST(Edits, TwoInsertionsAtOneOffsetKeepTheirOrder) {
  std::vector<TextEdit> edits = {{1, 1, "x"}, {1, 1, "y"}};
  std::string error;
  ASSERT_TRUE(normalize_edits(edits, 2, &error)) << error;
  EXPECT_EQ(apply_edits("ab", edits), "axyb");
}

TEST(LineMap, InsertedLineAndSameLineReplacement) {
  std::string original = "a\nb\nc\n";
  std::vector<TextEdit> edits = {{2, 2, "new\n"}, {4, 5, "C"}};
  std::string mended = apply_edits(original, edits);
  ASSERT_EQ(mended, "a\nnew\nb\nC\n");
  std::vector<uint32_t> map = build_line_map(original, mended, edits);
  ASSERT_GE(map.size(), 4u);
  EXPECT_EQ(map[0], 1u);
  EXPECT_EQ(map[1], 2u);  // the inserted line maps to where it was inserted
  EXPECT_EQ(map[2], 2u);
  EXPECT_EQ(map[3], 3u);
}

TEST(LineMap, MultiLineStatementCollapsedToOneLine) {
  std::string original = "x\nif c:\n    raise E\ny\n";
  // "if c:\n    raise E" (bytes 2..20) becomes one line.
  std::vector<TextEdit> edits = {{2, 19, "guard(c, E)"}};
  std::string mended = apply_edits(original, edits);
  ASSERT_EQ(mended, "x\nguard(c, E)\ny\n");
  std::vector<uint32_t> map = build_line_map(original, mended, edits);
  EXPECT_EQ(map[0], 1u);
  EXPECT_EQ(map[1], 2u);
  EXPECT_EQ(map[2], 4u);
}

// pad_to_original_lines with the original's tokens, as the mender calls it.
void pad(const std::string& original, std::vector<TextEdit>& edits) {
  SourceText source(original);
  rewrite::pad_to_original_lines(original, lex(source, LexOptions{}).tokens, edits);
}

TEST(PadLines, ACollapsedStatementKeepsTheLinesAfterIt) {
  std::string original = "x\nif c:\n    raise E  # why\ny\n";
  std::vector<TextEdit> edits = {{2, 19, "guard(c, E)"}};
  pad(original, edits);
  std::string mended = apply_edits(original, edits);
  EXPECT_EQ(mended, "x\nguard(c, E)\n# why\ny\n");
  std::vector<uint32_t> identity = {1, 2, 3, 4, 5};  // 5: the empty line after the last break
  EXPECT_EQ(build_line_map(original, mended, edits), identity);
}

TEST(PadLines, ATrailingCommentKeepsItsLineAndTheStatementsIndentation) {
  std::string original = "def f():\n    if c:\n        raise E  # why\n    y\n";
  std::vector<TextEdit> edits = {{13, 34, "guard(c, E)"}};
  pad(original, edits);
  std::string mended = apply_edits(original, edits);
  EXPECT_EQ(mended, "def f():\n    guard(c, E)\n    # why\n    y\n");
  std::vector<uint32_t> identity = {1, 2, 3, 4, 5};
  EXPECT_EQ(build_line_map(original, mended, edits), identity);
}

TEST(PadLines, UsesTheFilesLineBreaks) {
  std::string original = "if c:\r\n    raise E\r\ny\r\n";
  std::vector<TextEdit> edits = {{0, 18, "guard(c, E)"}};
  pad(original, edits);
  EXPECT_EQ(apply_edits(original, edits), "guard(c, E)\r\n\r\ny\r\n");
}

TEST(PadLines, LeavesEditsThatDoNotEndTheirLine) {
  // More code follows the replaced range on its line: a line break there would split it.
  std::string original = "f(a,\n  b) + 1\n";
  std::vector<TextEdit> edits = {{0, 10, "g(a, b)"}, {10, 10, ""}};
  pad(original, edits);
  EXPECT_EQ(edits[0].replacement, "g(a, b)");
  EXPECT_EQ(edits[1].replacement, "");  // an insertion replaces no lines
}

TEST(PadLines, InsideBracketsALineBreakGoesBeforeTheCodeThatFollows) {
  // A two-line message argument becomes one line; inside the call's parentheses a line
  // break is whitespace, so the lines after it keep their numbers.
  std::string original = "warn(\n    'a'\n    'b',\n    W,\n)\ny\n";
  std::vector<TextEdit> edits = {{10, 21, "(m,)"}};
  pad(original, edits);
  std::string mended = apply_edits(original, edits);
  EXPECT_EQ(mended, "warn(\n    (m,)\n,\n    W,\n)\ny\n");
  std::vector<uint32_t> identity = {1, 2, 3, 4, 5, 6, 7};
  EXPECT_EQ(build_line_map(original, mended, edits), identity);
  SourceText source(mended);
  Arena arena;
  EXPECT_FALSE(parse_module(source, arena).error.has_value());
}

TEST(PadLines, LeavesEditsInsideAnFStringsReplacementField) {
  // In a replacement field a line break is not always whitespace (a single-quoted
  // f-string before 3.12): left alone.
  std::string original = "x = f'''{g(a,\n b)}''' + 1\n";
  std::vector<TextEdit> edits = {{9, 17, "h()"}};
  pad(original, edits);
  EXPECT_EQ(edits[0].replacement, "h()");
}

TEST(PadLines, LeavesReplacementsWithAsManyLinesOrMore) {
  std::string original = "a\nb\nc\n";
  std::vector<TextEdit> edits = {{0, 3, "x\ny\nz"}};
  pad(original, edits);
  EXPECT_EQ(edits[0].replacement, "x\ny\nz");
}

TEST(LineMap, ReplacementWithMoreLinesThanTheRange) {
  std::string original = "a\nb\nc";
  std::vector<TextEdit> edits = {{2, 3, "b1\nb2\nb3"}};
  std::string mended = apply_edits(original, edits);
  std::vector<uint32_t> map = build_line_map(original, mended, edits);
  ASSERT_EQ(map.size(), 5u);
  EXPECT_EQ(map[1], 2u);
  EXPECT_EQ(map[2], 2u);  // clamped to the replaced range's last line
  EXPECT_EQ(map[3], 2u);
  EXPECT_EQ(map[4], 3u);
}

TEST(LineMap, CrLfLineBreaks) {
  std::string original = "a\r\nb\r\n";
  std::vector<TextEdit> edits = {{3, 3, "i\r\n"}};
  std::string mended = apply_edits(original, edits);
  std::vector<uint32_t> map = build_line_map(original, mended, edits);
  EXPECT_EQ(map[0], 1u);
  EXPECT_EQ(map[1], 2u);
  EXPECT_EQ(map[2], 2u);
}

// ---------------------------------------------------------------------------------------------
// A fake analysis: enough meaning for the rewrites' own decisions.

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

std::string body(const std::string& lines) {
  return "import torch\nimport warnings\n\ndef forward(x, n):\n" + lines;
}

// ---------------------------------------------------------------------------------------------
// [Defer].

TEST(Defer, PrintWithKeywords) {
  Fixture f(body("    print(\"y =\", x, sep=\"\")\n"), {"x"});
  EXPECT_EQ(
      f.run(sema::BreakKind::PrintCall),
      body(
          "    __graphmend_rt__.defer(('model.py', 5, 'forward'), print, \"y =\", x, sep=\"\")\n"));
}

TEST(Defer, PrintWithoutArguments) {
  Fixture f(body("    print()\n"), {"x"});
  EXPECT_EQ(f.run(sema::BreakKind::PrintCall),
            body("    __graphmend_rt__.defer(('model.py', 5, 'forward'), print)\n"));
}

TEST(Defer, LoggerWithPercentArgs) {
  Fixture f(body("    logger.info(\"x=%s n=%d\", x, n)  # note\n"), {"x"});
  EXPECT_EQ(
      f.run(sema::BreakKind::LoggingCall),
      body("    __graphmend_rt__.defer(('model.py', 5, 'forward'), logger.info, \"x=%s n=%d\", "
           "x, n)  # note\n"));
}

TEST(Defer, FStringBecomesTemplateAndValues) {
  Fixture f(body("    print(f\"a {x!r:>5} {{b}} {n=}\", end=f\"{n}\\n\")\n"), {"x"});
  EXPECT_EQ(f.run(sema::BreakKind::PrintCall),
            body("    __graphmend_rt__.defer_format(('model.py', 5, 'forward'), print, ((0, "
                 "'a {0!r:>5} {{b}} n={1!r}'), ('end', '{0}\\n')), (x, n), end=(n,))\n"));
}

TEST(Defer, FStringNestedSpec) {
  Fixture f(body("    print(f\"{x:{n}.{n}f}\")\n"), {"x"});
  EXPECT_EQ(f.run(sema::BreakKind::PrintCall),
            body("    __graphmend_rt__.defer_format(('model.py', 5, 'forward'), print, ((0, "
                 "'{0:{1}.{2}f}'),), (x, n, n))\n"));
}

TEST(Defer, FStringFieldsInPython312Mode) {
  Fixture f(body("    print(f\"{x[\"k\"]:.2f}\")\n"), {"x"}, 12);
  EXPECT_EQ(f.run(sema::BreakKind::PrintCall),
            body("    __graphmend_rt__.defer_format(('model.py', 5, 'forward'), print, ((0, "
                 "'{0:.2f}'),), (x[\"k\"],))\n"));
}

TEST(Defer, MultiLineCallKeepsItsLayout) {
  Fixture f(body("    logger.warning(\n        \"x=%s\",  # why\n        x,\n    )\n"), {"x"});
  EXPECT_EQ(f.run(sema::BreakKind::LoggingCall),
            body("    __graphmend_rt__.defer(('model.py', 5, 'forward'), logger.warning,\n"
                 "        \"x=%s\",  # why\n        x,\n    )\n"));
}

TEST(Defer, MethodCallReportsTheLineOfTheMethodName) {
  Fixture f(body("    (logger\n        .info)(\"x\")\n"), {"x"});
  EXPECT_EQ(f.run(sema::BreakKind::LoggingCall),
            body("    __graphmend_rt__.defer(('model.py', 6, 'forward'), logger\n        .info, "
                 "\"x\")\n"));
}

TEST(Defer, ModuleAttributeCallReportsTheFirstLine) {
  Fixture f(body("    (warnings\n        .warn)(\"w\")\n"), {"x"});
  EXPECT_EQ(f.run(sema::BreakKind::WarningsCall),
            body("    __graphmend_rt__.defer(('model.py', 5, 'forward'), warnings\n        .warn, "
                 "\"w\")\n"));
}

TEST(Defer, WarningsWarnWithCategory) {
  Fixture f(body("    warnings.warn(\"careful\", RuntimeWarning)\n"), {"x"});
  EXPECT_EQ(
      f.run(sema::BreakKind::WarningsCall),
      body("    __graphmend_rt__.defer(('model.py', 5, 'forward'), warnings.warn, \"careful\", "
           "RuntimeWarning)\n"));
}

TEST(Defer, DeclinesWhenTheResultIsUsed) {
  Fixture f(body("    y = print(x)\n"), {"x"});
  EXPECT_EQ(f.run(sema::BreakKind::PrintCall),
            "DECLINED: the call's result is used (it is not a statement of its own)");
}

TEST(Defer, DeclinesAnUnknownCallee) {
  Fixture f(body("    show(x)\n"), {"x"});
  EXPECT_EQ(f.run(sema::BreakKind::PrintCall),
            "DECLINED: the callee is not shown to be the builtin print");
}

TEST(Defer, DeclinesFormattingSelf) {
  Fixture f("class M:\n    def forward(self, x):\n        print(self)\n", {"x"});
  EXPECT_EQ(f.run(sema::BreakKind::PrintCall),
            "DECLINED: argument `self` is a user object whose formatting reads mutable state at "
            "replay time");
}

TEST(Defer, DeclinedPrintIsRoutedThroughCallNow) {
  Fixture f("class M:\n    def forward(self, x):\n        print(self, x)\n", {"x"});
  sema::BreakTag tag;
  tag.kind = sema::BreakKind::PrintCall;
  tag.statement = f.find([](const ast::stmt* s) { return ast::is<ast::Expr>(s); });
  ASSERT_NE(tag.statement, nullptr);
  tag.site = ast::as<ast::Expr>(tag.statement)->value;
  std::optional<rewrite::Outcome> outcome = rewrite::rewrite_defer(tag, *f.context);
  ASSERT_TRUE(outcome.has_value());
  EXPECT_FALSE(outcome->fixed);
  EXPECT_TRUE(outcome->needs_runtime);
  std::vector<TextEdit> edits = outcome->edits;
  std::string error;
  ASSERT_TRUE(normalize_edits(edits, f.source.size(), &error));
  EXPECT_EQ(
      apply_edits(f.source.text(), edits),
      "class M:\n    def forward(self, x):\n        __graphmend_rt__.call_now(print, self, x)\n");
}

TEST(Defer, DeclinedLoggerCallIsLeftAsItIs) {
  Fixture f(body("    logger.exception(\"boom\")\n"), {"x"});
  sema::BreakTag tag;
  tag.kind = sema::BreakKind::LoggingCall;
  tag.statement = f.find([](const ast::stmt* s) { return ast::is<ast::Expr>(s); });
  tag.site = ast::as<ast::Expr>(tag.statement)->value;
  std::optional<rewrite::Outcome> outcome = rewrite::rewrite_defer(tag, *f.context);
  ASSERT_TRUE(outcome.has_value());
  EXPECT_FALSE(outcome->fixed);
  EXPECT_TRUE(outcome->edits.empty());
}

TEST(Defer, DeclinesStreamsOtherThanStdoutAndStderr) {
  Fixture f(body("    print(x, file=buf)\n"), {"x"});
  EXPECT_EQ(
      f.run(sema::BreakKind::PrintCall),
      "DECLINED: print writes to a stream other than sys.stdout/sys.stderr, which the program "
      "may read back before the replay");
  Fixture g(body("    print(x, file=sys.stderr)\n"), {"x"});
  EXPECT_EQ(
      g.run(sema::BreakKind::PrintCall),
      body("    __graphmend_rt__.defer(('model.py', 5, 'forward'), print, x, file=sys.stderr)\n"));
}

TEST(Defer, DeclinesInsideAForeignWith) {
  Fixture f(body("    with contextlib.redirect_stdout(buf):\n        print(x)\n"), {"x"});
  EXPECT_EQ(
      f.run(sema::BreakKind::PrintCall),
      "DECLINED: the call is inside `with contextlib.redirect_stdout(buf):`, which may redirect "
      "its output or change logging until it exits");
  Fixture g(body("    with torch.no_grad():\n        print(x)\n"), {"x"});
  EXPECT_EQ(
      g.run(sema::BreakKind::PrintCall),
      body("    with torch.no_grad():\n        __graphmend_rt__.defer(('model.py', 6, 'forward'), "
           "print, x)\n"));
}

TEST(Defer, DeclinesGenerators) {
  Fixture f(body("    print(v for v in x)\n"), {"x"});
  EXPECT_EQ(f.run(sema::BreakKind::PrintCall).substr(0, 20), "DECLINED: argument `");
}

TEST(Defer, DeclinesLoggerException) {
  Fixture f(body("    logger.exception(\"boom\")\n"), {"x"});
  EXPECT_EQ(f.run(sema::BreakKind::LoggingCall),
            "DECLINED: logger.exception records the exception being handled at the call");
}

TEST(Defer, DeclinesExcInfoStackInfoStacklevel) {
  Fixture a(body("    logger.info(\"m\", exc_info=True)\n"), {"x"});
  EXPECT_EQ(a.run(sema::BreakKind::LoggingCall),
            "DECLINED: exc_info refers to the exception being handled at the call");
  Fixture b(body("    logger.info(\"m\", stack_info=True)\n"), {"x"});
  EXPECT_EQ(b.run(sema::BreakKind::LoggingCall),
            "DECLINED: stack_info records the stack at the call");
  Fixture c(body("    logger.info(\"m\", stacklevel=2)\n"), {"x"});
  EXPECT_EQ(c.run(sema::BreakKind::LoggingCall), "DECLINED: stacklevel names a caller's frame");
  Fixture d(body("    warnings.warn(\"m\", stacklevel=2)\n"), {"x"});
  EXPECT_EQ(d.run(sema::BreakKind::WarningsCall),
            "DECLINED: warnings.warn with a stacklevel other than 1 names a caller's frame");
}

TEST(Defer, DeclinesFStringAfterStarArgs) {
  Fixture f(body("    print(*n, f\"{x}\")\n"), {"x"});
  EXPECT_EQ(f.run(sema::BreakKind::PrintCall),
            "DECLINED: an f-string argument follows *args (its position is not known)");
}

TEST(Defer, OtherTagsAreNotDefers) {
  Fixture f(body("    print(x)\n"), {"x"});
  sema::BreakTag tag;
  tag.kind = sema::BreakKind::ScalarUse;
  EXPECT_FALSE(rewrite::rewrite_defer(tag, *f.context).has_value());
}

// ---------------------------------------------------------------------------------------------
// [Trap].

TEST(Trap, GuardWithBuiltinException) {
  Fixture f(body("    if x.sum() < 0:\n        raise ValueError(\"negative\")\n    return x\n"),
            {"x"});
  EXPECT_EQ(
      f.run(sema::BreakKind::ValidationGuard),
      body("    __graphmend_rt__.guard(x.sum() < 0, ValueError, \"negative\")\n    return x\n"));
}

TEST(Trap, NotAndOrBecomeLogicalOps) {
  Fixture f(body("    if not (x > 0).all() or x.isnan().any():  # check\n"
                 "        raise RuntimeError('bad')\n"),
            {"x"});
  EXPECT_EQ(f.run(sema::BreakKind::ValidationGuard),
            body("    __graphmend_rt__.guard(torch.logical_or(torch.logical_not((x > 0).all()), "
                 "x.isnan().any()), RuntimeError, 'bad')\n"));
}

TEST(Trap, ClassWithoutMessageAndModuleClass) {
  Fixture f(
      "import torch\nclass Bad(Exception):\n    pass\ndef f(x):\n    if x.max() > 1: raise Bad\n",
      {"x"});
  EXPECT_EQ(f.run(sema::BreakKind::ValidationGuard),
            "import torch\nclass Bad(Exception):\n    pass\ndef f(x):\n    "
            "__graphmend_rt__.guard(x.max() > 1, Bad, None)\n");
}

TEST(Trap, StaticPrefixStaysAPythonIf) {
  Fixture f(body("    if n is not None and x.max() >= n and (x < 0).any():\n"
                 "        raise ValueError(\"out of range\")\n"),
            {"x"});
  EXPECT_EQ(
      f.run(sema::BreakKind::ValidationGuard),
      body("    if n is not None:\n        __graphmend_rt__.guard(torch.logical_and(x.max() >= n, "
           "(x < 0).any()), ValueError, \"out of range\")\n"));
}

TEST(Trap, StaticPrefixDeclinesAnImpureSkippedOperand) {
  Fixture f(body("    if n and x.max() >= n and impure(x) > 0:\n        raise ValueError(\"r\")\n"),
            {"x"});
  EXPECT_EQ(f.run(sema::BreakKind::ValidationGuard).substr(0, 45),
            "DECLINED: the condition is not a tensor expre");
}

TEST(Trap, DeclinesNonLiteralMessage) {
  Fixture f(body("    if x.sum() < 0:\n        raise ValueError(f\"bad {x}\")\n"), {"x"});
  EXPECT_EQ(f.run(sema::BreakKind::ValidationGuard),
            "DECLINED: the exception message is not a string literal");
}

TEST(Trap, DeclinesElse) {
  Fixture f(body("    if x.sum() < 0:\n        raise ValueError(\"n\")\n    else:\n        pass\n"),
            {"x"});
  EXPECT_EQ(f.run(sema::BreakKind::ValidationGuard),
            "DECLINED: the if statement has an else branch");
}

TEST(Trap, DeclinesMoreThanARaise) {
  Fixture f(body("    if x.sum() < 0:\n        n = 1\n        raise ValueError(\"n\")\n"), {"x"});
  EXPECT_EQ(f.run(sema::BreakKind::ValidationGuard),
            "DECLINED: the if body is not exactly one raise statement");
}

TEST(Trap, DeclinesInstanceVariable) {
  Fixture f(body("    err = ValueError(\"n\")\n    if x.sum() < 0:\n        raise err\n"), {"x"});
  EXPECT_EQ(f.run(sema::BreakKind::ValidationGuard),
            "DECLINED: the raised `err` is a local variable, not a class");
  Fixture g(
      "import torch\nERR = ValueError('x')\ndef f(x):\n    if x.sum() < 0:\n        raise ERR\n",
      {"x"});
  EXPECT_EQ(g.run(sema::BreakKind::ValidationGuard),
            "DECLINED: `ERR` is not bound to a class in the module (an instance variable?)");
}

TEST(Trap, DeclinesUnknownName) {
  Fixture f(body("    if x.sum() < 0:\n        raise Mystery(\"n\")\n"), {"x"});
  EXPECT_EQ(f.run(sema::BreakKind::ValidationGuard),
            "DECLINED: `Mystery` is not a builtin exception class taking a message");
}

TEST(Trap, DeclinesCauseAndBareRaise) {
  Fixture f(body("    if x.sum() < 0:\n        raise ValueError(\"n\") from None\n"), {"x"});
  EXPECT_EQ(f.run(sema::BreakKind::ValidationGuard),
            "DECLINED: the raise chains a cause (raise ... from ...)");
  Fixture g(body("    if x.sum() < 0:\n        raise\n"), {"x"});
  EXPECT_EQ(g.run(sema::BreakKind::ValidationGuard),
            "DECLINED: a bare raise re-raises the exception being handled");
}

TEST(Trap, DeclinesConditionThatIsNotDataDependent) {
  Fixture f(body("    if n < 0:\n        raise ValueError(\"n\")\n"), {"x"});
  EXPECT_EQ(f.run(sema::BreakKind::ValidationGuard),
            "DECLINED: the condition is not data-dependent");
}

TEST(Trap, DeclinesNonTensorOperandOrImpureSkippedOperand) {
  Fixture f(body("    if n is None or x.sum() < 0:\n        raise ValueError(\"n\")\n"), {"x"});
  EXPECT_EQ(f.run(sema::BreakKind::ValidationGuard).substr(0, 45),
            "DECLINED: the condition is not a tensor expre");
  Fixture g(body("    if x.sum() < 0 or impure(x) > 0:\n        raise ValueError(\"n\")\n"), {"x"});
  EXPECT_EQ(g.run(sema::BreakKind::ValidationGuard).substr(0, 45),
            "DECLINED: the condition is not a tensor expre");
}

TEST(Trap, DeclinesElif) {
  Fixture f(
      body("    if n:\n        pass\n    elif x.sum() < 0:\n        raise ValueError(\"n\")\n"),
      {"x"});
  sema::BreakTag tag;
  tag.kind = sema::BreakKind::ValidationGuard;
  const auto* outer =
      ast::as<ast::If>(f.find([](const ast::stmt* s) { return ast::is<ast::If>(s); }));
  ASSERT_NE(outer, nullptr);
  tag.statement = outer->orelse[0];
  tag.site = ast::as<ast::If>(tag.statement)->test;
  std::optional<rewrite::Outcome> outcome = rewrite::rewrite_trap(tag, *f.context);
  ASSERT_TRUE(outcome.has_value());
  EXPECT_FALSE(outcome->fixed);
  EXPECT_EQ(outcome->reason, "the guard is an elif branch of a larger if statement");
}

TEST(Trap, TensorAssertKeepsTheAssertAroundTheRuntimeCheck) {
  Fixture f(body("    assert (x > 0).all(), \"positive\"  # note\n    return x\n"), {"x"});
  EXPECT_EQ(f.run(sema::BreakKind::TensorAssert),
            body("    assert __graphmend_rt__.check_assert((x > 0).all(), \"positive\")  # note\n"
                 "    return x\n"));
  Fixture g(body("    assert x.sum() > 0; y = 1\n"), {"x"});
  EXPECT_EQ(g.run(sema::BreakKind::TensorAssert),
            body("    assert __graphmend_rt__.check_assert(x.sum() > 0); y = 1\n"));
}

TEST(Trap, TensorAssertKeepsAParenthesisedMessageAsWritten) {
  Fixture f(body("    assert (x > 0).all(), (\"a\"\n        \"b\")\n"), {"x"});
  EXPECT_EQ(f.run(sema::BreakKind::TensorAssert),
            body("    assert __graphmend_rt__.check_assert((x > 0).all(), (\"a\"\n        \"b\"))\n"));
}

TEST(Trap, TensorAssertDeclinesNonLiteralMessage) {
  Fixture f(body("    assert (x > 0).all(), f\"bad {x}\"\n"), {"x"});
  EXPECT_EQ(f.run(sema::BreakKind::TensorAssert).substr(0, 52),
            "DECLINED: the assert message is not a string literal");
}

// ---------------------------------------------------------------------------------------------
// Helpers.

TEST(ExprText, FreshNamesAvoidExistingIdentifiers) {
  Fixture f(body("    __gm_t0 = x\n"), {"x"});
  EXPECT_EQ(f.context->fresh_name("t"), "__gm_t1");
  EXPECT_EQ(f.context->fresh_name("t"), "__gm_t2");
}

TEST(ExprText, IndentationAndNodeText) {
  Fixture f(body("\t  print((x))\n"), {"x"});
  const ast::stmt* statement = f.find([](const ast::stmt* s) { return ast::is<ast::Expr>(s); });
  ASSERT_NE(statement, nullptr);
  EXPECT_EQ(rewrite::indentation_of(*f.context, *statement), "\t  ");
  const auto* call = ast::as<ast::Call>(ast::as<ast::Expr>(statement)->value);
  EXPECT_EQ(rewrite::node_text(*f.context, *call->args[0]), "x");
}

}  // namespace
}  // namespace graphmend

// ---------------------------------------------------------------------------------------------
// The facade, with the real analysis.

namespace graphmend {
namespace {

MendResult mend(const std::string& text, MendOptions options = {}) {
  return mend_source(text, "m.py", options);
}

const char* kModel =
    "\"\"\"Doc.\"\"\"\n"
    "from __future__ import annotations\n"
    "import torch\n"
    "\n"
    "@torch.compile\n"
    "def f(x: torch.Tensor):\n"
    "    print(\"x\", x)  # note\n"
    "    if x.sum() < 0:\n"
    "        raise ValueError(\"negative\")\n"
    "    return x\n";

TEST(Mend, InsertsTheRuntimeImportAndMapsLines) {
  MendResult result = mend(kModel);
  ASSERT_FALSE(result.error.has_value());
  EXPECT_TRUE(result.changed);
  EXPECT_EQ(result.source,
            "\"\"\"Doc.\"\"\"\n"
            "from __future__ import annotations\n"
            "import graphmend.runtime as __graphmend_rt__; import torch\n"
            "\n"
            "@torch.compile\n"
            "def f(x: torch.Tensor):\n"
            "    __graphmend_rt__.defer(('m.py', 7, 'f'), print, \"x\", x)  # note\n"
            "    __graphmend_rt__.guard(x.sum() < 0, ValueError, \"negative\")\n"
            "\n"
            "    return x\n");
  // The import shares the line of `import torch`, and the guard's one line is padded to the
  // two it replaced: every line keeps its number.
  std::vector<uint32_t> expected = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  EXPECT_EQ(result.line_map, expected);
  ASSERT_EQ(result.diagnostics.size(), 2u);
  EXPECT_EQ(result.diagnostics[0].code, "GM102");
  EXPECT_TRUE(result.diagnostics[0].fixed);
  EXPECT_EQ(result.diagnostics[0].rewrite, "defer");
  EXPECT_EQ(result.diagnostics[0].line, 7u);
  EXPECT_EQ(result.diagnostics[1].code, "GM105");
  EXPECT_EQ(result.diagnostics[1].rewrite, "trap");
  // Everything outside the edits is byte-identical.
  for (const TextEdit& edit : result.edits) EXPECT_LE(edit.begin, edit.end);
}

TEST(Mend, MendingTheOutputChangesNothing) {
  MendResult first = mend(kModel);
  MendResult second = mend(first.source);
  EXPECT_FALSE(second.changed);
  EXPECT_EQ(second.source, first.source);
  for (const MendDiagnostic& d : first.diagnostics) EXPECT_NE(d.code.substr(0, 3), "GM9");
}

TEST(Mend, DisabledRewritesAreReportedAndNothingChanges) {
  MendOptions options;
  options.rewrites =
      RewriteSet::all().with(RewriteKind::Defer, false).with(RewriteKind::Trap, false);
  MendResult result = mend(kModel, options);
  EXPECT_FALSE(result.changed);
  EXPECT_EQ(result.source, kModel);
  ASSERT_EQ(result.diagnostics.size(), 2u);
  EXPECT_FALSE(result.diagnostics[0].fixed);
  EXPECT_NE(result.diagnostics[0].message.find("the [defer] rewrite is disabled"),
            std::string::npos);
  EXPECT_NE(result.diagnostics[1].message.find("the [trap] rewrite is disabled"),
            std::string::npos);
}

TEST(Mend, SyntaxErrorReturnsTheInput) {
  MendResult result = mend("x = = 1\n");
  ASSERT_TRUE(result.error.has_value());
  EXPECT_EQ(result.error->code, "GM001");
  EXPECT_EQ(result.source, "x = = 1\n");
  EXPECT_FALSE(result.changed);
}

TEST(Mend, ImportGoesBeforeDecoratorsWithoutDocstring) {
  MendResult result =
      mend("# comment\n@torch.compile\ndef f(x: torch.Tensor):\n    print(x)\nimport torch\n");
  EXPECT_EQ(result.source.substr(0, 57),
            "# comment\nimport graphmend.runtime as __graphmend_rt__\n@t");
}

TEST(Mend, CrLfFilesKeepTheirLineBreaks) {
  MendResult result = mend(
      "try:\r\n    import torch\r\nexcept ImportError:\r\n    torch = None\r\n"
      "@torch.compile\r\ndef f(x: torch.Tensor):\r\n    print(x)\r\n");
  EXPECT_NE(result.source.find("import graphmend.runtime as __graphmend_rt__\r\n"),
            std::string::npos);
  EXPECT_EQ(result.source.find("\n\n"), std::string::npos);
}

TEST(Mend, RuntimeImportSharesTheFirstSimpleStatementsLine) {
  MendResult result = mend("import torch\n@torch.compile\ndef f(x: torch.Tensor):\n    print(x)\n");
  EXPECT_EQ(result.source.rfind("import graphmend.runtime as __graphmend_rt__; import torch\n", 0),
            0u);
  std::vector<uint32_t> identity = {1, 2, 3, 4, 5};
  EXPECT_EQ(result.line_map, identity);
}

TEST(Mend, NoTracedCodeNoChange) {
  MendResult result = mend("def helper(x):\n    print(x)\n");
  EXPECT_EQ(result.source, "def helper(x):\n    print(x)\n");
}

}  // namespace
}  // namespace graphmend

// ---------------------------------------------------------------------------------------------
// The skeleton (rewrite/skeleton.h).

namespace graphmend {
namespace {

const char* kSkeletonModel =
    "import torch\n"
    "\n"
    "class M(torch.nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.weight = torch.nn.Parameter(torch.ones(3))\n"
    "\n"
    "    @torch.no_grad()\n"
    "    def untouched(self, x: torch.Tensor):\n"
    "        y = x * 2 + 1\n"
    "        return y.sum(dim=0, keepdim=True) + torch.ones_like(y[0:1])\n"
    "\n"
    "    def forward(self, x: torch.Tensor):\n"
    "        print(\"x\", x)\n"
    "        return x\n"
    "\n"
    "def helper(x: torch.Tensor):\n"
    "    def inner(y):\n"
    "        return y + 1 + 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 + 10 + 11 + 12 + 13\n"
    "    return inner(x)\n"
    "\n"
    "def setter():\n"
    "    global STATE\n"
    "    STATE = 'something long enough to be worth a stub, really quite long'\n"
    "\n"
    "def short(x):\n"
    "    return x\n";

MendResult mend_with_skeleton(const std::string& text) {
  MendOptions options;
  options.trace_all = true;
  options.skeleton = true;
  return mend_source(text, "m.py", options);
}

TEST(Skeleton, StubsUntouchedFunctionsOnTheirOwnLinesAndColumns) {
  MendResult result = mend_with_skeleton(kSkeletonModel);
  ASSERT_TRUE(result.changed);
  // __init__ (keeps `__class__` for super()), untouched (from its decorator), helper.
  std::vector<uint32_t> stubbed = {4, 8, 17};
  EXPECT_EQ(result.stubbed_lines, stubbed);
  EXPECT_EQ(result.skeleton,
            "import graphmend.runtime as __graphmend_rt__; import torch\n"
            "\n"
            "class M(torch.nn.Module):\n"
            "    def __init__(self):\n"
            "        (__class__\n"
            "                                                      )\n"
            "\n"
            "    @torch.no_grad()\n"
            "    def untouched(self, x: torch.Tensor):\n"
            "        (\n"
            "                                                                  )\n"
            "\n"
            "    def forward(self, x: torch.Tensor):\n"
            "        __graphmend_rt__.defer(('m.py', 14, 'forward'), print, \"x\", x)\n"
            "        return x\n"
            "\n"
            "def helper(x: torch.Tensor):\n"
            "    (\n"
            "\n"
            "                  )\n"
            "\n"
            "def setter():\n"
            "    global STATE\n"
            "    STATE = 'something long enough to be worth a stub, really quite long'\n"
            "\n"
            "def short(x):\n"
            "    return x\n");
}

TEST(Skeleton, StubsUntouchedClassesWhole) {
  MendResult result = mend_with_skeleton(
      "import torch\n"
      "@torch.no_grad()\n"
      "class Untouched(torch.nn.Module):\n"
      "    \"\"\"A docstring.\"\"\"\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "    class Inner:\n"
      "        size = 3\n"
      "class Globals:\n"
      "    def set(self):\n"
      "        global STATE\n"
      "        STATE = 'something long enough to be worth a stub, really'\n"
      "    def get(self):\n"
      "        return STATE + 'something long enough to be worth a stub, really'\n"
      "def f(x: torch.Tensor):\n"
      "    print(x)\n");
  ASSERT_TRUE(result.changed);
  // The whole of Untouched (from its decorator; its body's `__class__` cell stays inside the
  // body's code, so the stub needs none); Globals' `get`, not the class, nor its `set`.
  std::vector<uint32_t> stubbed = {2, 13};
  EXPECT_EQ(result.stubbed_lines, stubbed);
  EXPECT_EQ(result.skeleton.substr(0, result.skeleton.find("def f")),
            "import graphmend.runtime as __graphmend_rt__; import torch\n"
            "@torch.no_grad()\n"
            "class Untouched(torch.nn.Module):\n"
            "    (\n"
            "\n"
            "\n"
            "\n"
            "               )\n"
            "class Globals:\n"
            "    def set(self):\n"
            "        global STATE\n"
            "        STATE = 'something long enough to be worth a stub, really'\n"
            "    def get(self):\n"
            "        (                                                               )\n");
}

TEST(Skeleton, NotAskedForOrNothingChangedGivesNone) {
  MendOptions options;
  options.trace_all = true;
  EXPECT_TRUE(mend_source(kSkeletonModel, "m.py", options).skeleton.empty());
  MendResult unchanged =
      mend_with_skeleton("def f(x):\n    return x + 1 + 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 + 10\n");
  EXPECT_FALSE(unchanged.changed);
  EXPECT_TRUE(unchanged.skeleton.empty());
  EXPECT_TRUE(unchanged.stubbed_lines.empty());
}

TEST(Skeleton, KeepsCrLfLineBreaksAndOneLineBodies) {
  MendResult result = mend_with_skeleton(
      "import torch\r\n"
      "def f(x): return x + 1 + 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 + 10 + 11 + 12 + 13 + 14\r\n"
      "def g(x: torch.Tensor):\r\n"
      "    y = x + 1 + 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 + 10 + 11 + 12 + 13 + 14\r\n"
      "    return y\r\n"
      "def h(x: torch.Tensor):\r\n"
      "    print(x)\r\n");
  ASSERT_TRUE(result.changed);
  std::vector<uint32_t> stubbed = {2, 3};
  EXPECT_EQ(result.stubbed_lines, stubbed);
  EXPECT_EQ(result.skeleton.substr(0, result.skeleton.find("def h")),
            "import graphmend.runtime as __graphmend_rt__; import torch\r\n"
            "def f(x): (                                                                   )\r\n"
            "def g(x: torch.Tensor):\r\n"
            "    (\r\n"
            "           )\r\n");
}

}  // namespace
}  // namespace graphmend

// The [Defer] rewrite on hand-made tags (rewrite_fixture.h).
#include "rewrite_fixture.h"

namespace graphmend {
namespace {

using rewrite::apply_edits;
using rewrite::normalize_edits;
using rewrite_test::body;
using rewrite_test::Fixture;

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

TEST(Defer, ChecksTheStreamsInsideAForeignWith) {
  Fixture f(body("    with contextlib.redirect_stdout(buf):\n        print(x)\n"), {"x"});
  EXPECT_EQ(f.run(sema::BreakKind::PrintCall),
            body("    with contextlib.redirect_stdout(buf):\n        "
                 "__graphmend_rt__.defer_within(('model.py', 6, 'forward'), print, x)\n"));
  Fixture formatted(body("    with scope():\n        print(f\"x={x}\")\n"), {"x"});
  EXPECT_NE(formatted.run(sema::BreakKind::PrintCall).find("__graphmend_rt__.defer_format_within("),
            std::string::npos);
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
  Fixture d(body("    warnings.warn(\"m\", skip_file_prefixes=(\"lib/\",))\n"), {"x"});
  EXPECT_EQ(d.run(sema::BreakKind::WarningsCall),
            "DECLINED: warnings.warn with skip_file_prefixes names a caller's frame");
}

// The runtime finds the frame a warning's stacklevel names (runtime._inlined_site).
TEST(Defer, DefersWarningsWithAStacklevel) {
  Fixture a(body("    warnings.warn(\"m\", stacklevel=n + 1)\n"), {"x"});
  EXPECT_EQ(a.run(sema::BreakKind::WarningsCall),
            "import torch\nimport warnings\n\ndef forward(x, n):\n    "
            "__graphmend_rt__.defer(('model.py', 5, 'forward'), warnings.warn, \"m\", "
            "stacklevel=n + 1)\n");
  Fixture b(body("    warnings.warn(\"m\", UserWarning, 2)\n"), {"x"});
  EXPECT_EQ(b.run(sema::BreakKind::WarningsCall).substr(0, 60),
            "import torch\nimport warnings\n\ndef forward(x, n):\n    __graph");
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

}  // namespace
}  // namespace graphmend

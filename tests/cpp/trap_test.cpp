// The [Trap] rewrite on hand-made tags (rewrite_fixture.h).
#include "rewrite_fixture.h"

namespace graphmend {
namespace {

using rewrite::apply_edits;
using rewrite::normalize_edits;
using rewrite_test::body;
using rewrite_test::Fixture;

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

TEST(Trap, AFormattedMessageIsBuiltOnlyWhenTheGuardFails) {
  for (const char* message :
       {"f\"power={p:.2f} in {n!r}\"", "\"power=%s\" % (p,)", "\"power={}\".format(p, n=n)"}) {
    Fixture f(body(std::string("    if x.sum() < 0:\n        raise ValueError(") + message + ")\n"),
              {"x"});
    EXPECT_EQ(f.run(sema::BreakKind::ValidationGuard),
              body(std::string("    __graphmend_rt__.guard_formatted(x.sum() < 0, ValueError, "
                               "lambda: ") +
                   message + ")\n"))
        << message;
  }
}

// ... and predicated where [Where] can: the raise is a guard inside the predicated form.
TEST(Trap, GuardWithElseIsPredicatedAsABranch) {
  Fixture f(body("    if x.sum() < 0:\n        raise ValueError(\"n\")\n    else:\n"
                 "        return x * 2\n"),
            {"x"});
  std::string mended = f.run(sema::BreakKind::ValidationGuard);
  EXPECT_NE(mended.find("    if __graphmend_rt__.where_ok(__gm_c1, __gm_t0, gradient_safe=True):\n"
                        "        __graphmend_rt__.guard(__gm_c1, ValueError, \"n\")\n"
                        "        return __gm_t0\n"
                        "    elif x.sum() < 0:\n"
                        "        raise ValueError(\"n\")\n"
                        "    else:\n"
                        "        return __gm_t0\n"),
            std::string::npos)
      << mended;
}

// A guard with an else branch is a branch with a raising arm: [Where] predicates it, or
// declines it saying why.
TEST(Trap, DeclinesElse) {
  Fixture f(body("    if x.sum() < 0:\n        raise ValueError(\"n\")\n    else:\n        pass\n"),
            {"x"});
  EXPECT_EQ(f.run(sema::BreakKind::ValidationGuard),
            "DECLINED: the if statement has an else branch, which [Where] declines: the branches "
            "assign no variable used afterwards");
}

// What the in-graph forms cannot lower (a message formatted from tensor data or by a call,
// statements before the raise, a raised instance, an unknown class, a cause, a bare raise)
// keeps its body: the test becomes runtime.rerun_if, and a failure runs the call again
// eagerly, where the body runs as written.
TEST(Trap, RerunsWhatTheInGraphFormsCannotLower) {
  for (const char* raise :
       {"raise ValueError(f\"bad {x}\")", "raise ValueError(\"bad %s\" % x)",
        "raise ValueError(\"bad {}\".format(x))", "raise ValueError(f\"bad {impure(p)}\")",
        "raise ValueError(make_message(p))", "n = 1\n        raise ValueError(\"n\")",
        "raise Mystery(\"n\")", "raise ValueError(\"n\") from None", "raise"}) {
    Fixture f(body(std::string("    if x.sum() < 0:\n        ") + raise + "\n"), {"x"});
    EXPECT_EQ(f.run(sema::BreakKind::ValidationGuard),
              body(std::string("    if __graphmend_rt__.rerun_if(x.sum() < 0):\n        ") + raise +
                   "\n"))
        << raise;
  }
  Fixture g(
      "import torch\nERR = ValueError('x')\ndef f(x):\n    if x.sum() < 0:\n        raise ERR\n",
      {"x"});
  EXPECT_EQ(g.run(sema::BreakKind::ValidationGuard),
            "import torch\nERR = ValueError('x')\ndef f(x):\n    if "
            "__graphmend_rt__.rerun_if(x.sum() < 0):\n        raise ERR\n");
}

TEST(Trap, RerunKeepsAStaticPrefixAsPython) {
  Fixture f(body("    if n is not None and (x < 0).any():\n        raise ValueError(f\"{x}\")\n"),
            {"x"});
  EXPECT_EQ(f.run(sema::BreakKind::ValidationGuard),
            body("    if n is not None and __graphmend_rt__.rerun_if((x < 0).any()):\n"
                 "        raise ValueError(f\"{x}\")\n"));
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
            body("    assert __graphmend_rt__.check_assert((x > 0).all(), \"positive\"), "
                 "\"positive\"  # note\n"
                 "    return x\n"));
  Fixture g(body("    assert x.sum() > 0; y = 1\n"), {"x"});
  EXPECT_EQ(g.run(sema::BreakKind::TensorAssert),
            body("    assert __graphmend_rt__.check_assert(x.sum() > 0); y = 1\n"));
}

TEST(Trap, TensorAssertKeepsAParenthesisedMessageAsWritten) {
  Fixture f(body("    assert (x > 0).all(), (\"a\"\n        \"b\")\n"), {"x"});
  EXPECT_EQ(f.run(sema::BreakKind::TensorAssert),
            body("    assert __graphmend_rt__.check_assert((x > 0).all(), (\"a\"\n        \"b\")), "
                 "(\"a\"\n        \"b\")\n"));
}

// A message that is not a literal is evaluated only on failure: the rerun form.
TEST(Trap, TensorAssertWithANonLiteralMessageRunsAgainOnFailure) {
  Fixture f(body("    assert (x > 0).all(), f\"bad {x}\"\n"), {"x"});
  EXPECT_EQ(f.run(sema::BreakKind::TensorAssert),
            body("    assert __graphmend_rt__.rerun_unless((x > 0).all()), f\"bad {x}\"\n"));
}

}  // namespace
}  // namespace graphmend

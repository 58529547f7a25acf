// The whole analysis on odd, deep and huge programs: no crash, conservative answers.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sema_program.h"

namespace graphmend::sema {
namespace {

using test_support::Program;

TEST(SemaRobust, OddPrograms) {
  const char* sources[] = {
      "",
      "x = 1\n",
      "def f():\n    return\n",
      "async def f(x):\n    async with a as b:\n        await b\n    async for i in x:\n        "
      "yield i\n",
      "def f(x):\n    match x:\n        case [a, *rest] if a:\n            return rest\n        "
      "case {'k': v, **kw}:\n            return v\n        case Point(x=0) | None:\n            "
      "pass\n        case _:\n            pass\n",
      "def f():\n    try:\n        pass\n    except* ValueError:\n        pass\n",
      "def f():\n    while True:\n        try:\n            continue\n        finally:\n           "
      " break\n",
      "class A:\n    x = [i for i in range(3)]\n    def f(self):\n        nonlocal_thing = 1\n",
      "def f():\n    def g():\n        nonlocal q\n        q = 1\n    q = 0\n",
      "def f():\n    del x\n    x = 1\n    del x\n",
      "lambda: (yield)\n",
  };
  for (const char* src : sources) {
    Program p(src);
    if (p.module == nullptr) continue;
    for (const FunctionInfo& f : p.analysis->functions()) {
      (void)p.analysis->is_traced(f);
    }
    std::vector<ast::Node*> stack{p.module};
    while (!stack.empty()) {
      ast::Node* n = stack.back();
      stack.pop_back();
      if (n->kind >= ast::Kind::FunctionDef && n->kind <= ast::Kind::Continue) {
        (void)p.analysis->live_after(*static_cast<ast::stmt*>(n));
      }
      if (n->kind >= ast::Kind::BoolOp && n->kind <= ast::Kind::Slice) {
        (void)p.analysis->is_tensor(*static_cast<ast::expr*>(n));
        (void)p.analysis->is_pure(*static_cast<ast::expr*>(n));
      }
      ast::for_each_child(n, [&](ast::Node* c) { stack.push_back(c); });
    }
  }
}

TEST(SemaRobust, DeepExpression) {
  std::string src = "import torch\ndef f(x: torch.Tensor):\n    y = x";
  for (int i = 0; i < 20000; ++i) src += " + x";
  src += "\n    if y.sum() > 0:\n        pass\n";
  Program p(src);
  ASSERT_NE(p.module, nullptr);
  (void)p.analysis->is_data_dependent(*ast::as<ast::If>(p.stmt("if y.sum()"))->test);
  (void)p.analysis->live_after(*p.stmt("y = x"));
}

TEST(SemaRobust, HugeFunctionFallsBackToConservativeAnswers) {
  std::string src = "import torch\ndef f(x: torch.Tensor):\n    y = x * 2\n";
  for (int i = 0; i < 30000; ++i)
    src += "    v" + std::to_string(i) + " = " + std::to_string(i) + "\n";
  src += "    if y.sum() > 0:\n        pass\n    return v1\n";
  Program p(src);
  ASSERT_NE(p.module, nullptr);
  EXPECT_TRUE(p.analysis->is_data_dependent(*ast::as<ast::If>(p.stmt("if y.sum()"))->test));
  EXPECT_EQ(p.analysis->live_after(*p.stmt("y = x * 2")).size(), 30002u);  // everything
  EXPECT_FALSE(p.analysis->is_definitely_bound_before(*p.stmt("if y.sum()"), "y"));
}

}  // namespace
}  // namespace graphmend::sema

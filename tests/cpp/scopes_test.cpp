// Scopes: imports, name resolution and what calls resolve to.
#include <gtest/gtest.h>

#include "sema_program.h"

namespace graphmend::sema {
namespace {

using test_support::kind_of_call;
using test_support::Program;

TEST(SemaImports, TorchAliases) {
  Program p(
      "import torch\n"
      "import torch.nn as nn\n"
      "import torch.nn.functional as F\n"
      "from torch import nn as nn2\n"
      "def f(x: torch.Tensor):\n"
      "    a = torch.where(x > 0, x, x)\n"
      "    b = F.relu(x)\n"
      "    c = nn.functional.gelu(x)\n"
      "    d = nn2.functional.silu(x)\n"
      "    return a, b, c, d\n");
  ASSERT_NE(p.module, nullptr);
  EXPECT_EQ(p.analysis->torch_name(), "torch");
  EXPECT_EQ(kind_of_call(p, "torch.where(x > 0, x, x)"), CalleeKind::TorchFunction);
  EXPECT_EQ(kind_of_call(p, "F.relu(x)"), CalleeKind::TorchFunction);
  EXPECT_EQ(kind_of_call(p, "nn.functional.gelu(x)"), CalleeKind::TorchFunction);
  EXPECT_EQ(kind_of_call(p, "nn2.functional.silu(x)"), CalleeKind::TorchFunction);
  auto* c = ast::as<ast::Call>(p.find("F.relu(x)"));
  EXPECT_EQ(p.analysis->resolve_call(*c).qualified_name, "torch.nn.functional.relu");
  EXPECT_TRUE(p.tensor("F.relu(x)"));
}

TEST(SemaImports, TorchAsOtherNameAndNoTorch) {
  Program p("import torch as th\ndef f(x):\n    return th.zeros(3)\n");
  EXPECT_EQ(p.analysis->torch_name(), "th");
  EXPECT_TRUE(p.tensor("th.zeros(3)"));
  Program q("import numpy as torch2\ndef f(x):\n    return torch2.zeros(3)\n");
  EXPECT_EQ(q.analysis->torch_name(), "");
  EXPECT_FALSE(q.tensor("torch2.zeros(3)"));
}

TEST(SemaImports, LocalTorchShadowIsNotTorch) {
  Program p(
      "import torch\n"
      "def f(x, torch):\n"
      "    return torch.zeros(3)\n");
  EXPECT_FALSE(p.tensor("torch.zeros(3)"));
  EXPECT_EQ(kind_of_call(p, "torch.zeros(3)"), CalleeKind::Unknown);
}

TEST(SemaImports, PrintBuiltinAndShadowed) {
  Program p("def f():\n    print(1)\n");
  EXPECT_EQ(kind_of_call(p, "print(1)"), CalleeKind::Print);
  Program q("print = lambda *a: None\ndef f():\n    print(1)\n");
  EXPECT_EQ(kind_of_call(q, "print(1)"), CalleeKind::Unknown);
  Program r("def f(print):\n    print(1)\n");
  EXPECT_EQ(kind_of_call(r, "print(1)"), CalleeKind::Unknown);
  Program s("from rich import print\ndef f():\n    print(1)\n");
  EXPECT_EQ(kind_of_call(s, "print(1)"), CalleeKind::Unknown);
  Program t("def g():\n    print = 3\n    def h():\n        print(1)\n");
  EXPECT_EQ(kind_of_call(t, "print(1)"), CalleeKind::Unknown);
  Program u("def g():\n    global print\n    print = 3\ndef h():\n    print(1)\n");
  EXPECT_EQ(kind_of_call(u, "print(1)"), CalleeKind::Unknown);
  // a class attribute named print does not shadow the builtin inside methods
  Program v("class A:\n    print = 3\n    def m(self):\n        print(1)\n");
  EXPECT_EQ(kind_of_call(v, "print(1)"), CalleeKind::Print);
}

TEST(SemaImports, Loggers) {
  Program p(
      "import logging\n"
      "logger = logging.getLogger(__name__)\n"
      "def f(x):\n"
      "    logger.info('a')\n"
      "    logger.warning_once('b')\n"
      "    logging.getLogger('x').debug('c')\n"
      "    logging.info('d')\n"
      "    self_logger = object()\n"
      "    self_logger.info('e')\n");
  EXPECT_EQ(kind_of_call(p, "logger.info('a')"), CalleeKind::LoggerMethod);
  EXPECT_EQ(kind_of_call(p, "logger.warning_once('b')"), CalleeKind::LoggerMethod);
  EXPECT_EQ(kind_of_call(p, "logging.getLogger('x').debug('c')"), CalleeKind::LoggerMethod);
  EXPECT_EQ(kind_of_call(p, "logging.info('d')"), CalleeKind::LoggerMethod);
  EXPECT_EQ(kind_of_call(p, "self_logger.info('e')"), CalleeKind::Unknown);
}

TEST(SemaImports, TransformersLogging) {
  Program p(
      "from ...utils import logging\n"
      "logger = logging.get_logger(__name__)\n"
      "class A:\n"
      "    def m(self):\n"
      "        logger.warning_once('x')\n"
      "        self.logger.info('y')\n");
  EXPECT_EQ(kind_of_call(p, "logger.warning_once('x')"), CalleeKind::LoggerMethod);
  EXPECT_EQ(kind_of_call(p, "self.logger.info('y')"), CalleeKind::Unknown);
  Program q(
      "from transformers.utils import logging\n"
      "logger = logging.get_logger(__name__)\n"
      "def f():\n"
      "    logger.info_once('x')\n");
  EXPECT_EQ(kind_of_call(q, "logger.info_once('x')"), CalleeKind::LoggerMethod);
}

TEST(SemaImports, Warnings) {
  Program p(
      "import warnings\n"
      "from warnings import warn\n"
      "from warnings import warn as w2\n"
      "def f():\n"
      "    warnings.warn('a')\n"
      "    warn('b')\n"
      "    w2('c')\n");
  EXPECT_EQ(kind_of_call(p, "warnings.warn('a')"), CalleeKind::WarningsWarn);
  EXPECT_EQ(kind_of_call(p, "warn('b')"), CalleeKind::WarningsWarn);
  EXPECT_EQ(kind_of_call(p, "w2('c')"), CalleeKind::WarningsWarn);
  Program q("def warn(x): pass\ndef f():\n    warn('b')\n");
  EXPECT_EQ(kind_of_call(q, "warn('b')"), CalleeKind::LocalFunction);
}

TEST(SemaImports, BuiltinsAndLocals) {
  Program p("def helper(x): return x\ndef f(x):\n    len(x)\n    helper(x)\n");
  EXPECT_EQ(kind_of_call(p, "len(x)"), CalleeKind::Builtin);
  const auto* c = ast::as<ast::Call>(p.find("helper(x)"));
  Callee callee = p.analysis->resolve_call(*c);
  EXPECT_EQ(callee.kind, CalleeKind::LocalFunction);
  EXPECT_EQ(callee.definition, p.function("helper")->node);
}

TEST(SemaImports, ComprehensionAndWalrusScopes) {
  // the comprehension variable is not a local of f; the walrus target is
  Program p(
      "def f(xs):\n"
      "    ys = [print for print in xs]\n"
      "    print(ys)\n"
      "    if any((n := x) for x in xs):\n"
      "        pass\n"
      "    return n\n");
  EXPECT_EQ(kind_of_call(p, "print(ys)"), CalleeKind::Print);
  auto names = p.analysis->assigned_names(ast::as<ast::FunctionDef>(p.stmt("def f"))->body);
  std::vector<std::string_view> want{"ys", "n"};
  EXPECT_EQ(names, want);
}

}  // namespace
}  // namespace graphmend::sema

// Semantic analysis: scopes and imports, entry points and the call graph, tensor-ness,
// data dependence, purity, assigned names, state mutation, liveness and reaching definitions.
#include "sema/sema.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "parse/parser.h"

namespace graphmend::sema {
namespace {

struct Program {
  explicit Program(const std::string& text, const AnalysisOptions& options = {})
      : source(text, "t.py") {
    ParseResult r = parse_module(source, arena);
    module = r.module;
    if (module != nullptr) analysis = Analysis::run(*module, source, options);
  }
  SourceText source;
  Arena arena;
  ast::Module* module = nullptr;
  std::unique_ptr<Analysis> analysis;

  std::string_view text(const ast::Node* n) const {
    return source.text().substr(n->begin, n->end - n->begin);
  }

  // The first node (pre-order) whose source text is exactly `want`, of the given category.
  template <class T = ast::expr>
  const T* find(std::string_view want, int nth = 0) const {
    std::vector<ast::Node*> stack{module};
    while (!stack.empty()) {
      ast::Node* n = stack.back();
      stack.pop_back();
      bool category = std::is_same_v<T, ast::stmt>
                          ? (n->kind >= ast::Kind::FunctionDef && n->kind <= ast::Kind::Continue)
                          : (n->kind >= ast::Kind::BoolOp && n->kind <= ast::Kind::Slice);
      if (n != module && category && text(n) == want) {
        if (nth-- == 0) return static_cast<const T*>(n);
      }
      std::vector<ast::Node*> children;
      ast::for_each_child(n, [&](ast::Node* c) { children.push_back(c); });
      for (auto it = children.rbegin(); it != children.rend(); ++it) stack.push_back(*it);
    }
    ADD_FAILURE() << "no node with text: " << want;
    return nullptr;
  }

  // The first statement whose text starts with `prefix`.
  const ast::stmt* stmt(std::string_view prefix, int nth = 0) const {
    std::vector<ast::Node*> stack{module};
    while (!stack.empty()) {
      ast::Node* n = stack.back();
      stack.pop_back();
      if (n->kind >= ast::Kind::FunctionDef && n->kind <= ast::Kind::Continue &&
          text(n).substr(0, prefix.size()) == prefix) {
        if (nth-- == 0) return static_cast<const ast::stmt*>(n);
      }
      std::vector<ast::Node*> children;
      ast::for_each_child(n, [&](ast::Node* c) { children.push_back(c); });
      for (auto it = children.rbegin(); it != children.rend(); ++it) stack.push_back(*it);
    }
    ADD_FAILURE() << "no statement starting with: " << prefix;
    return nullptr;
  }

  const FunctionInfo* function(std::string_view qualified) const {
    for (const FunctionInfo& f : analysis->functions()) {
      if (f.qualified_name == qualified) return &f;
    }
    ADD_FAILURE() << "no function " << qualified;
    return nullptr;
  }

  bool tensor(std::string_view e, int nth = 0) const { return analysis->is_tensor(*find(e, nth)); }
  bool dd(std::string_view e, int nth = 0) const {
    return analysis->is_data_dependent(*find(e, nth));
  }
  bool pure(std::string_view e, int nth = 0) const { return analysis->is_pure(*find(e, nth)); }
  std::string live(std::string_view stmt_prefix, int nth = 0) const {
    std::string out;
    for (std::string_view v : analysis->live_after(*stmt(stmt_prefix, nth))) {
      if (!out.empty()) out += ",";
      out += v;
    }
    return out;
  }
};

CalleeKind kind_of_call(const Program& p, std::string_view call, int nth = 0) {
  const auto* c = ast::as<ast::Call>(p.find(call, nth));
  if (c == nullptr) return CalleeKind::Unknown;
  return p.analysis->resolve_call(*c).kind;
}

// ------------------------------------------------------------------------------------------
// Imports and name resolution

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

// ------------------------------------------------------------------------------------------
// Entry points and the call graph

TEST(SemaEntries, ModuleForwardAndHelpers) {
  Program p(
      "import torch\n"
      "from torch import nn\n"
      "def helper(x):\n"
      "    return inner(x)\n"
      "def inner(x):\n"
      "    return x\n"
      "def unused(x):\n"
      "    return x\n"
      "class Block(nn.Module):\n"
      "    def forward(self, x):\n"
      "        return self.act(helper(x))\n"
      "    def act(self, x):\n"
      "        return x\n"
      "    def other(self, x):\n"
      "        return x\n"
      "class Derived(Block):\n"
      "    def forward(self, x):\n"
      "        return x\n"
      "class Plain:\n"
      "    def forward(self, x):\n"
      "        return x\n");
  const Analysis& a = *p.analysis;
  EXPECT_EQ(p.function("Block.forward")->reason, EntryReason::ModuleForward);
  EXPECT_TRUE(p.function("Block.forward")->in_module_subclass);
  EXPECT_EQ(p.function("Block.act")->reason, EntryReason::Reached);
  EXPECT_EQ(p.function("helper")->reason, EntryReason::Reached);
  EXPECT_EQ(p.function("inner")->reason, EntryReason::Reached);
  EXPECT_FALSE(a.is_traced(*p.function("unused")));
  EXPECT_FALSE(a.is_traced(*p.function("Block.other")));
  EXPECT_EQ(p.function("Derived.forward")->reason, EntryReason::ModuleForward);
  EXPECT_FALSE(a.is_traced(*p.function("Plain.forward")));
  EXPECT_FALSE(p.function("Plain.forward")->in_module_subclass);
}

TEST(SemaEntries, CompileDecoratorsAndCalls) {
  Program p(
      "import torch\n"
      "@torch.compile\n"
      "def a(x):\n"
      "    return x\n"
      "@torch.compile(mode='max-autotune')\n"
      "def b(x):\n"
      "    return x\n"
      "def c(x):\n"
      "    return x\n"
      "def d(x):\n"
      "    return x\n"
      "class M(torch.nn.Module):\n"
      "    def forward(self, x):\n"
      "        return x\n"
      "class N(torch.nn.Module):\n"
      "    def forward(self, x):\n"
      "        return x\n"
      "class K(torch.nn.Module):\n"
      "    def forward(self, x):\n"
      "        return x\n"
      "fc = torch.compile(c)\n"
      "def main():\n"
      "    model = N().eval()\n"
      "    opt = torch.compile(model)\n"
      "    k = K()\n"
      "    k.compile()\n"
      "    torch.compile(M)\n");
  EXPECT_EQ(p.function("a")->reason, EntryReason::CompileDecorator);
  EXPECT_EQ(p.function("b")->reason, EntryReason::CompileDecorator);
  EXPECT_EQ(p.function("c")->reason, EntryReason::CompileCall);
  EXPECT_EQ(p.function("d")->reason, EntryReason::None);
  EXPECT_EQ(p.function("M.forward")->reason, EntryReason::CompileCall);
  EXPECT_EQ(p.function("N.forward")->reason, EntryReason::CompileCall);
  EXPECT_EQ(p.function("K.forward")->reason, EntryReason::CompileMethod);
  EXPECT_FALSE(p.analysis->is_traced(*p.function("main")));
}

TEST(SemaEntries, TraceAllMakesEveryFunctionTraced) {
  const std::string text =
      "import torch\n"
      "def helper(x):\n"
      "    return x\n"
      "class Rotary:\n"
      "    def update(self, x):\n"
      "        def inner(y):\n"
      "            return y\n"
      "        return inner(x)\n";
  Program plain(text);
  EXPECT_FALSE(plain.analysis->is_traced(*plain.function("helper")));
  EXPECT_FALSE(plain.analysis->is_traced(*plain.function("Rotary.update")));
  AnalysisOptions library;
  library.trace_all = true;
  Program p(text, library);
  EXPECT_EQ(p.function("helper")->reason, EntryReason::Library);
  EXPECT_EQ(p.function("Rotary.update")->reason, EntryReason::Library);
  EXPECT_TRUE(p.analysis->is_traced(*p.function("Rotary.update.<locals>.inner")));
}

TEST(SemaEntries, SelfSubmoduleReachesForward) {
  Program p(
      "import torch.nn as nn\n"
      "class Inner(nn.Module):\n"
      "    def forward(self, x):\n"
      "        return self.helper(x)\n"
      "    def helper(self, x):\n"
      "        return x\n"
      "class Base(nn.Module):\n"
      "    def shared(self, x):\n"
      "        return x\n"
      "class Outer(Base):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.inner = Inner()\n"
      "    def forward(self, x):\n"
      "        y = self.inner(x)\n"
      "        return self.shared(y)\n");
  EXPECT_EQ(p.function("Inner.helper")->reason, EntryReason::Reached);
  EXPECT_EQ(p.function("Base.shared")->reason, EntryReason::Reached);
  EXPECT_FALSE(p.analysis->is_traced(*p.function("Outer.__init__")));
  const FunctionInfo* fwd = p.function("Outer.forward");
  EXPECT_NE(std::find(fwd->callees.begin(), fwd->callees.end(), p.function("Inner.forward")->node),
            fwd->callees.end());
  const auto* call = ast::as<ast::Call>(p.find("self.inner(x)"));
  EXPECT_EQ(p.analysis->resolve_call(*call).kind, CalleeKind::SelfSubmodule);
  const auto* call2 = ast::as<ast::Call>(p.find("self.shared(y)"));
  EXPECT_EQ(p.analysis->resolve_call(*call2).kind, CalleeKind::LocalFunction);
}

TEST(SemaEntries, FunctionOf) {
  Program p(
      "x = 1\n"
      "def f():\n"
      "    y = 2\n"
      "    def g():\n"
      "        z = 3\n"
      "    w = 4\n");
  const Analysis& a = *p.analysis;
  EXPECT_EQ(a.function_of(p.stmt("x = 1")), nullptr);
  EXPECT_EQ(a.function_of(p.stmt("y = 2")), p.function("f"));
  EXPECT_EQ(a.function_of(p.stmt("z = 3")), p.function("f.<locals>.g"));
  EXPECT_EQ(a.function_of(p.stmt("w = 4")), p.function("f"));
  EXPECT_EQ(a.function_of(p.stmt("def g")), p.function("f"));
  EXPECT_EQ(a.function_of(p.stmt("def f")), nullptr);
}

// ------------------------------------------------------------------------------------------
// Tensor-ness and data dependence

TEST(SemaTensor, ParametersAndFactories) {
  Program p(
      "import torch\n"
      "from torch import Tensor\n"
      "from typing import Optional\n"
      "def f(a: torch.Tensor, b: Tensor, c, d: Optional[torch.Tensor], e: int):\n"
      "    a; b; c; d; e\n"
      "    z = torch.zeros(3)\n"
      "    z\n"
      "    n = torch.finfo(a.dtype)\n"
      "    n\n"
      "    s = a.shape\n"
      "    s; a.shape[0]; a.size(0); a.dim(); a.dtype\n"
      "    a.sum(); a.float(); a.T; a[0]; a + 1; 1 - a; -a; a @ b\n"
      "    c.sum()\n"
      "    q = c.item()\n"
      "    q\n");
  EXPECT_TRUE(p.tensor("a"));
  EXPECT_TRUE(p.tensor("b"));
  EXPECT_FALSE(p.tensor("c"));
  EXPECT_FALSE(p.tensor("d"));
  EXPECT_FALSE(p.tensor("e"));
  EXPECT_TRUE(p.tensor("z", 1));
  EXPECT_FALSE(p.tensor("n", 1));
  EXPECT_FALSE(p.tensor("s", 1));
  EXPECT_FALSE(p.tensor("a.shape[0]"));
  EXPECT_FALSE(p.tensor("a.size(0)"));
  EXPECT_FALSE(p.tensor("a.dim()"));
  EXPECT_FALSE(p.tensor("a.dtype"));
  EXPECT_TRUE(p.tensor("a.sum()"));
  EXPECT_TRUE(p.tensor("a.float()"));
  EXPECT_TRUE(p.tensor("a.T"));
  EXPECT_TRUE(p.tensor("a[0]"));
  EXPECT_TRUE(p.tensor("a + 1"));
  EXPECT_TRUE(p.tensor("1 - a"));
  EXPECT_TRUE(p.tensor("-a"));
  EXPECT_TRUE(p.tensor("a @ b"));
  EXPECT_FALSE(p.tensor("c", 1));    // an unannotated receiver stays unknown...
  EXPECT_TRUE(p.tensor("c.sum()"));  // ...but a reduction on it is a tensor op
  EXPECT_FALSE(p.tensor("q", 1));
  EXPECT_TRUE(p.dd("q", 1));
}

TEST(SemaTensor, ReachingDefinitions) {
  Program p(
      "import torch\n"
      "def f(x: torch.Tensor, flag):\n"
      "    if flag:\n"
      "        y = x * 2\n"
      "    else:\n"
      "        y = torch.ones(3)\n"
      "    y\n"
      "    if flag:\n"
      "        w = x\n"
      "    else:\n"
      "        w = 3\n"
      "    w\n"
      "    v = 3\n"
      "    v\n"
      "    v = x\n"
      "    v\n"
      "    for i in range(3):\n"
      "        acc = x if i else x + 1\n"
      "    acc\n"
      "    a, b = x.chunk(2)\n"
      "    a; b\n"
      "    m, n = x, 3\n"
      "    m; n\n"
      "    t = x\n"
      "    t += 1\n"
      "    t\n");
  EXPECT_TRUE(p.tensor("y", 2));
  EXPECT_FALSE(p.tensor("w", 2));
  EXPECT_FALSE(p.tensor("v", 1));
  EXPECT_TRUE(p.tensor("v", 3));
  EXPECT_TRUE(p.tensor("acc", 1));
  EXPECT_TRUE(p.tensor("a", 1));
  EXPECT_TRUE(p.tensor("b", 1));
  EXPECT_TRUE(p.tensor("m", 1));
  EXPECT_FALSE(p.tensor("n", 1));
  EXPECT_TRUE(p.tensor("t", 2));
}

TEST(SemaTensor, LoopCarriedDefinitions) {
  Program p(
      "import torch\n"
      "def f(x: torch.Tensor, n):\n"
      "    h = x\n"
      "    for _ in range(n):\n"
      "        h = h * 2\n"
      "    h\n"
      "    k = n\n"
      "    while n:\n"
      "        k = k + x\n"
      "    k\n");
  EXPECT_TRUE(p.tensor("h", 3));
  EXPECT_FALSE(p.tensor("k", 3));  // n (unknown) reaches along the loop-skipping path
}

TEST(SemaTensor, DataDependentConditions) {
  Program p(
      "import torch\n"
      "class M(torch.nn.Module):\n"
      "    def forward(self, x: torch.Tensor, pos: torch.Tensor, mask, limit, y=None):\n"
      "        x.sum() > 0\n"
      "        torch.any(mask)\n"
      "        x.max() > limit\n"
      "        mask.sum() > 0\n"
      "        seq_len = torch.max(pos) + 1\n"
      "        seq_len > limit\n"
      "        (x > 0).all() and limit\n"
      "        not torch.isnan(x).any()\n"
      "        x.shape[0] > 1\n"
      "        x.dim() == 3\n"
      "        x.dtype == torch.float16\n"
      "        y is None\n"
      "        self.training\n"
      "        isinstance(x, torch.Tensor)\n"
      "        limit > 3\n"
      "        x.size(-1) == limit\n"
      "        x.item() > 0\n"
      "        h = self.proj(x)\n"
      "        h.mean() > 0\n"
      "        x is not None and x.numel() > 0\n");
  EXPECT_TRUE(p.dd("x.sum() > 0"));
  EXPECT_TRUE(p.dd("torch.any(mask)"));
  EXPECT_TRUE(p.dd("x.max() > limit"));
  EXPECT_TRUE(p.dd("mask.sum() > 0"));
  EXPECT_TRUE(p.dd("seq_len > limit"));
  EXPECT_TRUE(p.dd("(x > 0).all() and limit"));
  EXPECT_TRUE(p.dd("not torch.isnan(x).any()"));
  EXPECT_FALSE(p.dd("x.shape[0] > 1"));
  EXPECT_FALSE(p.dd("x.dim() == 3"));
  EXPECT_FALSE(p.dd("x.dtype == torch.float16"));
  EXPECT_FALSE(p.dd("y is None"));
  EXPECT_FALSE(p.dd("self.training"));
  EXPECT_FALSE(p.dd("isinstance(x, torch.Tensor)"));
  EXPECT_FALSE(p.dd("limit > 3"));
  EXPECT_FALSE(p.dd("x.size(-1) == limit"));
  EXPECT_TRUE(p.dd("x.item() > 0"));
  EXPECT_TRUE(p.tensor("self.proj(x)"));
  EXPECT_TRUE(p.dd("h.mean() > 0"));
  EXPECT_FALSE(p.dd("x is not None and x.numel() > 0"));
}

TEST(SemaTensor, NumpyValuesAreNotTensors) {
  Program p(
      "import numpy as np\n"
      "def f(n, limit, m):\n"
      "    idx = []\n"
      "    idx = np.array(idx)\n"
      "    idx = idx.reshape(n, 2) + np.arange(2)\n"
      "    idx.max() > limit\n"
      "    np.random.rand(1).item()\n"
      "    m.max() > limit\n");
  EXPECT_FALSE(p.dd("idx.max() > limit"));
  EXPECT_FALSE(p.dd("np.random.rand(1).item()"));
  EXPECT_TRUE(p.dd("m.max() > limit"));  // unknown receiver: the reduction rule applies
}

TEST(SemaTensor, BoolTensors) {
  Program p(
      "import torch\n"
      "def f(x: torch.Tensor, k):\n"
      "    m = x > 0\n"
      "    m; x > 0; torch.isnan(x); ~m; m & (x < 1); x.bool(); x.to(torch.bool); x.float()\n"
      "    m.unsqueeze(0); m.float(); x.eq(0); k > 0\n");
  const Analysis& a = *p.analysis;
  EXPECT_TRUE(a.is_bool_tensor(*p.find("m", 1)));
  EXPECT_TRUE(a.is_bool_tensor(*p.find("x > 0", 1)));
  EXPECT_TRUE(a.is_bool_tensor(*p.find("torch.isnan(x)")));
  EXPECT_TRUE(a.is_bool_tensor(*p.find("~m")));
  EXPECT_TRUE(a.is_bool_tensor(*p.find("m & (x < 1)")));
  EXPECT_TRUE(a.is_bool_tensor(*p.find("x.bool()")));
  EXPECT_TRUE(a.is_bool_tensor(*p.find("x.to(torch.bool)")));
  EXPECT_FALSE(a.is_bool_tensor(*p.find("x.float()")));
  EXPECT_TRUE(a.is_bool_tensor(*p.find("m.unsqueeze(0)")));
  EXPECT_FALSE(a.is_bool_tensor(*p.find("m.float()")));
  EXPECT_TRUE(a.is_bool_tensor(*p.find("x.eq(0)")));
  EXPECT_FALSE(a.is_bool_tensor(*p.find("k > 0")));
}

// ------------------------------------------------------------------------------------------
// Purity

TEST(SemaPurity, Whitelists) {
  Program p(
      "import torch\n"
      "import torch.nn.functional as F\n"
      "def f(x: torch.Tensor, y: torch.Tensor, n, cache):\n"
      "    torch.where(x > 0, x, y)\n"
      "    x.masked_fill(x > 0, 0.0)\n"
      "    x.masked_fill_(x > 0, 0.0)\n"
      "    x.add_(1)\n"
      "    F.relu(x)\n"
      "    F.relu(x, inplace=True)\n"
      "    F.dropout(x)\n"
      "    x / y\n"
      "    n / 2\n"
      "    x.to(torch.float16)\n"
      "    x.to('cuda')\n"
      "    torch.finfo(x.dtype).min\n"
      "    unknown(x)\n"
      "    cache.update(x)\n"
      "    x[0]\n"
      "    cache[0]\n"
      "    (x * 2).sum(dim=-1).clamp(min=0)\n"
      "    f'{x}'\n"
      "    (z := x)\n"
      "    [v for v in x]\n"
      "    torch.cat([x, y], dim=0)\n"
      "    torch.add(x, y, out=x)\n"
      "    x.view(-1, 3).transpose(0, 1).contiguous()\n"
      "    x.sum() > 0 and n\n"
      "    -1e4\n");
  EXPECT_TRUE(p.pure("torch.where(x > 0, x, y)"));
  EXPECT_TRUE(p.pure("x.masked_fill(x > 0, 0.0)"));
  EXPECT_FALSE(p.pure("x.masked_fill_(x > 0, 0.0)"));
  EXPECT_FALSE(p.pure("x.add_(1)"));
  EXPECT_TRUE(p.pure("F.relu(x)"));
  EXPECT_FALSE(p.pure("F.relu(x, inplace=True)"));
  EXPECT_FALSE(p.pure("F.dropout(x)"));
  EXPECT_TRUE(p.pure("x / y"));
  EXPECT_FALSE(p.pure("n / 2"));
  EXPECT_TRUE(p.pure("x.to(torch.float16)"));
  EXPECT_FALSE(p.pure("x.to('cuda')"));
  EXPECT_TRUE(p.pure("torch.finfo(x.dtype).min"));
  EXPECT_FALSE(p.pure("unknown(x)"));
  EXPECT_FALSE(p.pure("cache.update(x)"));
  EXPECT_TRUE(p.pure("x[0]"));
  EXPECT_FALSE(p.pure("cache[0]"));
  EXPECT_TRUE(p.pure("(x * 2).sum(dim=-1).clamp(min=0)"));
  EXPECT_FALSE(p.pure("f'{x}'"));
  EXPECT_FALSE(p.pure("z := x"));
  EXPECT_FALSE(p.pure("[v for v in x]"));
  EXPECT_TRUE(p.pure("torch.cat([x, y], dim=0)"));
  EXPECT_FALSE(p.pure("torch.add(x, y, out=x)"));
  EXPECT_TRUE(p.pure("x.view(-1, 3).transpose(0, 1).contiguous()"));
  EXPECT_FALSE(p.pure("x.sum() > 0 and n"));
  EXPECT_TRUE(p.pure("-1e4"));
}

// ------------------------------------------------------------------------------------------
// Statement-list queries

TEST(SemaBody, AssignedNamesAndMutation) {
  Program p(
      "import torch\n"
      "def f(x: torch.Tensor, cache):\n"
      "    global G\n"
      "    if x.sum() > 0:\n"
      "        a = 1\n"
      "        b, (c, *d) = x\n"
      "        a += 1\n"
      "        for i in range(3):\n"
      "            pass\n"
      "        with open('f') as fh:\n"
      "            pass\n"
      "        import os.path\n"
      "        G = 1\n"
      "        def g(): pass\n"
      "        if (w := 1):\n"
      "            pass\n"
      "    if x.sum() > 1:\n"
      "        self_state = x\n"
      "    if x.sum() > 2:\n"
      "        cache.x = 1\n"
      "    if x.sum() > 3:\n"
      "        cache[0] = 1\n"
      "    if x.sum() > 4:\n"
      "        x.add_(1)\n"
      "    if x.sum() > 5:\n"
      "        cache.append(x)\n"
      "    if x.sum() > 6:\n"
      "        y = x.add(1)\n");
  const Analysis& a = *p.analysis;
  auto body = [&](const char* prefix) { return ast::as<ast::If>(p.stmt(prefix))->body; };
  std::vector<std::string_view> want{"a", "b", "c", "d", "i", "fh", "os", "g", "w"};
  EXPECT_EQ(a.assigned_names(body("if x.sum() > 0")), want);
  EXPECT_FALSE(a.mutates_state(body("if x.sum() > 1")));
  EXPECT_TRUE(a.mutates_state(body("if x.sum() > 2")));
  EXPECT_TRUE(a.mutates_state(body("if x.sum() > 3")));
  EXPECT_TRUE(a.mutates_state(body("if x.sum() > 4")));
  EXPECT_TRUE(a.mutates_state(body("if x.sum() > 5")));
  EXPECT_FALSE(a.mutates_state(body("if x.sum() > 6")));
}

// ------------------------------------------------------------------------------------------
// Liveness and reaching definitions

TEST(SemaFlow, LivenessStraightLineAndBranches) {
  Program p(
      "def f(a, b, c):\n"
      "    x = a + b\n"
      "    y = c\n"
      "    if a:\n"
      "        x = 1\n"
      "        z = 2\n"
      "    else:\n"
      "        x = 3\n"
      "        z = 4\n"
      "    return x + y\n");
  EXPECT_EQ(p.live("x = a + b"), "a,c");
  EXPECT_EQ(p.live("y = c"), "a,y");
  EXPECT_EQ(p.live("if a:"), "x,y");
  EXPECT_EQ(p.live("x = 1"), "x,y");
  EXPECT_EQ(p.live("z = 2"), "x,y");
  EXPECT_EQ(p.live("return x + y"), "");
}

TEST(SemaFlow, LivenessLoopsAreSupersets) {
  Program p(
      "def f(xs):\n"
      "    total = 0\n"
      "    for v in xs:\n"
      "        t = v * 2\n"
      "        total = total + t\n"
      "    while total:\n"
      "        if total > 3:\n"
      "            break\n"
      "        total = total - 1\n"
      "    return total\n");
  EXPECT_EQ(p.live("t = v * 2"), "total,t");
  EXPECT_EQ(p.live("total = total + t"), "total");
  EXPECT_EQ(p.live("total = 0"), "xs,total");
  EXPECT_EQ(p.live("total = total - 1"), "total");
}

TEST(SemaFlow, LivenessTryAndClosures) {
  Program p(
      "def f(a):\n"
      "    x = 1\n"
      "    try:\n"
      "        x = a()\n"
      "        y = 2\n"
      "    except ValueError as e:\n"
      "        return x\n"
      "    finally:\n"
      "        pass\n"
      "    k = 5\n"
      "    def g():\n"
      "        return k\n"
      "    k = 6\n"
      "    return g\n");
  // x is read by the handler if a() raises: live before the try's first statement
  EXPECT_EQ(p.live("x = 1"), "a,x");
  EXPECT_EQ(p.live("x = a()"), "x");  // the handler may still read x
  EXPECT_EQ(p.live("k = 6"), "k,g");  // k is captured by g
}

TEST(SemaFlow, LivenessElifChainAndReturn) {
  Program p(
      "def f(a, b):\n"
      "    r = 0\n"
      "    if a > 1:\n"
      "        r = 1\n"
      "    elif a > 2:\n"
      "        r = 2\n"
      "    elif b:\n"
      "        return a\n"
      "    return r\n");
  EXPECT_EQ(p.live("r = 0"), "a,b,r");
  EXPECT_EQ(p.live("elif a > 2:"), "r");
  EXPECT_EQ(p.live("r = 1"), "r");
  EXPECT_EQ(p.live("return a"), "");
}

TEST(SemaFlow, DefinitelyBound) {
  Program p(
      "import torch\n"
      "def f(x: torch.Tensor, c):\n"
      "    if c:\n"
      "        y = x\n"
      "    if c:\n"
      "        z = 1\n"
      "    y = x * 2\n"
      "    if c:\n"
      "        pass\n");
  const Analysis& a = *p.analysis;
  EXPECT_FALSE(a.is_definitely_bound_before(*p.stmt("if c:", 1), "y"));
  EXPECT_TRUE(a.is_definitely_bound_before(*p.stmt("if c:", 2), "y"));
  EXPECT_TRUE(a.is_tensor_before(*p.stmt("if c:", 2), "y"));
  EXPECT_TRUE(a.is_definitely_bound_before(*p.stmt("if c:", 0), "x"));
  EXPECT_TRUE(a.is_tensor_before(*p.stmt("if c:", 0), "x"));
  EXPECT_FALSE(a.is_tensor_before(*p.stmt("if c:", 2), "c"));
  EXPECT_FALSE(a.is_definitely_bound_before(*p.stmt("if c:", 2), "z"));
}

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

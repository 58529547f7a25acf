// Entry points (what Dynamo traces) and the call graph.
#include <gtest/gtest.h>

#include <algorithm>

#include "sema_program.h"

namespace graphmend::sema {
namespace {

using test_support::Program;

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

TEST(SemaEntries, ConfiguredEntryPointsAndWhatTheyReach) {
  const char* text =
      "import torch\n"
      "class Engine:\n"
      "    def step(self, x):\n"
      "        return self.scale(x)\n"
      "    def scale(self, x):\n"
      "        return x\n"
      "def unrelated(x):\n"
      "    return x\n";
  AnalysisOptions named;
  named.entry_points = {"Engine.step", "Engine.missing"};
  Program p(text, named);
  EXPECT_EQ(p.function("Engine.step")->reason, EntryReason::Configured);
  EXPECT_EQ(p.function("Engine.scale")->reason, EntryReason::Reached);
  EXPECT_FALSE(p.analysis->is_traced(*p.function("unrelated")));
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

// A diffusers pipeline's shape: the module holds a plain object (`self.scheduler =
// Scheduler()`) and calls its methods; those are traced with the caller.
TEST(SemaEntries, MethodsOfAnObjectSetOnSelfAreReached) {
  Program p(
      "import torch.nn as nn\n"
      "class Scheduler:\n"
      "    def step(self, x):\n"
      "        return x\n"
      "    def set_timesteps(self, n):\n"
      "        self.n = n\n"
      "class Pipe(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.scheduler = Scheduler()\n"
      "    def forward(self, x):\n"
      "        return self.scheduler.step(x)\n");
  EXPECT_EQ(p.function("Scheduler.step")->reason, EntryReason::Reached);
  EXPECT_FALSE(p.analysis->is_traced(*p.function("Scheduler.set_timesteps")));
}

// Building an object of a local class runs its __init__, and a base's through super()
// (torch.distributions' Exponential -> Distribution.__init__, which validates its arguments);
// a method called on the object is reached, an inherited one too.
TEST(SemaEntries, ConstructorsOfLocalClassesAreReached) {
  Program p(
      "import torch\n"
      "class Distribution:\n"
      "    def __init__(self, validate):\n"
      "        self.validate = validate\n"
      "    def _validate_sample(self, v):\n"
      "        return v\n"
      "    def unused(self):\n"
      "        pass\n"
      "class Exponential(Distribution):\n"
      "    def __init__(self, rate):\n"
      "        super().__init__(True)\n"
      "    def log_prob(self, v):\n"
      "        return self._validate_sample(v)\n"
      "@torch.compile\n"
      "def nll(rate, t):\n"
      "    d = Exponential(rate)\n"
      "    return d.log_prob(t)\n");
  EXPECT_EQ(p.function("Exponential.__init__")->reason, EntryReason::Reached);
  EXPECT_EQ(p.function("Distribution.__init__")->reason, EntryReason::Reached);
  EXPECT_EQ(p.function("Exponential.log_prob")->reason, EntryReason::Reached);
  EXPECT_EQ(p.function("Distribution._validate_sample")->reason, EntryReason::Reached);
  EXPECT_FALSE(p.analysis->is_traced(*p.function("Distribution.unused")));
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

}  // namespace
}  // namespace graphmend::sema

namespace graphmend::sema {
namespace {

// The argument a call passes for each parameter: by position (after the ones a method call
// binds), by keyword, none for a default or when *args / **kwargs hide it.
TEST(SemaCalls, ArgumentForEachParameter) {
  test_support::Program p(
      "def f(a, b, c=1, *, d=2):\n    pass\n"
      "f(x, y, d=z)\nf(*xs)\nf(x, **kw)\n"
      "class M:\n    def m(self, a, b=0):\n        pass\n    def g(self):\n        self.m(b=y, "
      "a=x)\n");
  ASSERT_NE(p.module, nullptr);
  const auto* f = ast::as<ast::FunctionDef>(p.stmt("def f"));
  const auto* call = p.find<ast::Call>("f(x, y, d=z)");
  auto text = [&](const ast::expr* e) { return e ? std::string(p.text(e)) : std::string("-"); };
  EXPECT_EQ(text(argument_for(*f, *f->args->args[0], *call)), "x");
  EXPECT_EQ(text(argument_for(*f, *f->args->args[1], *call)), "y");
  EXPECT_EQ(text(argument_for(*f, *f->args->args[2], *call)), "-");
  EXPECT_EQ(text(argument_for(*f, *f->args->kwonlyargs[0], *call)), "z");
  EXPECT_EQ(text(argument_for(*f, *f->args->args[0], *p.find<ast::Call>("f(*xs)"))), "-");
  EXPECT_EQ(text(argument_for(*f, *f->args->args[1], *p.find<ast::Call>("f(x, **kw)"))), "-");
  const auto* m = ast::as<ast::FunctionDef>(p.stmt("def m"));
  const auto* method_call = p.find<ast::Call>("self.m(b=y, a=x)");
  EXPECT_EQ(text(argument_for(*m, *m->args->args[0], *method_call, 1)), "-");
  EXPECT_EQ(text(argument_for(*m, *m->args->args[1], *method_call, 1)), "x");
  EXPECT_EQ(text(argument_for(*m, *m->args->args[2], *method_call, 1)), "y");
}

}  // namespace
}  // namespace graphmend::sema

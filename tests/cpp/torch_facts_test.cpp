// torch_facts.def: every category is filled, lookups follow the file, and each category
// reaches an answer of the analysis.
#include "sema/torch_facts.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "sema_program.h"

namespace graphmend::sema {
namespace {

using test_support::kind_of_call;
using test_support::Program;

struct Category {
  TorchFact fact;
  const char* name;
};

constexpr Category kCategories[] = {
#define TORCH_FACT_CATEGORY(category) {TorchFact::category, #category},
#include "sema/torch_facts.def"
};

TEST(TorchFacts, EveryCategoryIsFilledWithoutDuplicates) {
  for (const Category& c : kCategories) {
    const auto& names = fact_names(c.fact);
    EXPECT_FALSE(names.empty()) << c.name;
    std::set<std::string_view> unique(names.begin(), names.end());
    EXPECT_EQ(unique.size(), names.size()) << c.name;
    for (std::string_view name : names)
      EXPECT_TRUE(has_fact(c.fact, name)) << c.name << " " << name;
    EXPECT_FALSE(has_fact(c.fact, "")) << c.name;
    EXPECT_FALSE(has_fact(c.fact, "no_such_name")) << c.name;
  }
}

TEST(TorchFacts, SampleLookups) {
  struct Sample {
    TorchFact fact;
    const char* yes;
    const char* no;
  };
  const Sample samples[] = {
      {TorchFact::PureTorch, "where", "dropout"},
      {TorchFact::PureFunctional, "relu", "dropout"},
      {TorchFact::PureMethod, "masked_fill", "masked_fill_"},
      {TorchFact::FloatingDtype, "torch.bfloat16", "torch.int32"},
      {TorchFact::FinfoField, "eps", "dtype"},
      {TorchFact::DtypeName, "int64", "device"},
      {TorchFact::BoolOp, "isnan", "sum"},
      {TorchFact::TupleOp, "chunk", "cat"},
      {TorchFact::Reduction, "sum", "view"},
      {TorchFact::NonTensorMethod, "size", "view"},
      {TorchFact::ShapeOp, "view", "sum"},
      {TorchFact::NonTensorTorch, "finfo", "zeros"},
      {TorchFact::Builtin, "len", "print_"},
      {TorchFact::LoggerMethod, "warning_once", "setLevel"},
      {TorchFact::ModuleChainMethod, "eval", "forward"},
      {TorchFact::MutatingMethod, "append", "copy"},
      {TorchFact::FreshResult, "gather", "einsum"},
      {TorchFact::FreshFunctional, "log_softmax", "relu"},
      {TorchFact::ViewOfReceiver, "squeeze", "expand"},
      {TorchFact::GradModeChange, "enable_grad", "is_grad_enabled"},
      {TorchFact::ViewFunction, "narrow", "add"},
      {TorchFact::Elementwise, "sigmoid", "cumsum"},
      {TorchFact::InPlaceUpdate, "mul_", "scatter_"},
      {TorchFact::BoundedGradient, "clamp", "exp"},
      {TorchFact::PairOp, "sort", "chunk"},
      {TorchFact::PlainContext, "torch.no_grad", "contextlib.suppress"},
  };
  EXPECT_EQ(std::size(samples), std::size(kCategories));
  for (const Sample& s : samples) {
    EXPECT_TRUE(has_fact(s.fact, s.yes)) << s.yes;
    EXPECT_FALSE(has_fact(s.fact, s.no)) << s.no;
  }
}

TEST(TorchFacts, PurityCategories) {
  Program p(
      "import torch\n"
      "import torch.nn.functional as F\n"
      "def f(x: torch.Tensor):\n"
      "    torch.where(x > 0, x, 0)\n"
      "    torch.dropout(x, 0.1, True)\n"
      "    F.gelu(x)\n"
      "    F.dropout(x)\n"
      "    x.clamp(min=0)\n"
      "    x.bernoulli()\n"
      "    x.to(torch.int64)\n"
      "    x.to(torch.device)\n"
      "    torch.finfo(torch.float16).max\n"
      "    torch.finfo(torch.float16).dtype\n"
      "    if x.dtype == torch.bfloat16:\n"
      "        pass\n"
      "    if x.dtype == torch.int32:\n"
      "        pass\n");
  // PureTorch
  EXPECT_TRUE(p.pure("torch.where(x > 0, x, 0)"));
  EXPECT_FALSE(p.pure("torch.dropout(x, 0.1, True)"));
  // PureFunctional
  EXPECT_TRUE(p.pure("F.gelu(x)"));
  EXPECT_FALSE(p.pure("F.dropout(x)"));
  // PureMethod
  EXPECT_TRUE(p.pure("x.clamp(min=0)"));
  EXPECT_FALSE(p.pure("x.bernoulli()"));
  // DtypeName
  EXPECT_TRUE(p.pure("x.to(torch.int64)"));
  EXPECT_FALSE(p.pure("x.to(torch.device)"));
  // FinfoField
  PurityFacts facts;
  EXPECT_TRUE(p.analysis->is_number(*p.find("torch.finfo(torch.float16).max"), facts));
  EXPECT_FALSE(p.analysis->is_number(*p.find("torch.finfo(torch.float16).dtype"), facts));
  // FloatingDtype
  p.analysis->add_floating_dtypes(*p.find("x.dtype == torch.bfloat16"), facts);
  p.analysis->add_floating_dtypes(*p.find("x.dtype == torch.int32"), facts);
  ASSERT_EQ(facts.floating_dtypes.size(), 1u);
  EXPECT_EQ(facts.floating_dtypes[0], "x.dtype");
}

TEST(TorchFacts, TensorKindCategories) {
  Program p(
      "import torch\n"
      "def f(x: torch.Tensor, arr):\n"
      "    torch.isnan(x)\n"
      "    x.chunk(2)\n"
      "    x.chunk(2)[0]\n"
      "    arr.sum() > 0\n"
      "    arr.view(-1) > 0\n"
      "    x.size()\n"
      "    (x > 0).view(-1)\n"
      "    (x > 0).float()\n"
      "    torch.finfo(x.dtype)\n"
      "    torch.zeros(3)\n");
  // BoolOp
  EXPECT_TRUE(p.analysis->is_bool_tensor(*p.find("torch.isnan(x)")));
  // TupleOp
  EXPECT_FALSE(p.tensor("x.chunk(2)"));
  EXPECT_TRUE(p.tensor("x.chunk(2)[0]"));
  // Reduction
  EXPECT_TRUE(p.dd("arr.sum() > 0"));
  EXPECT_FALSE(p.dd("arr.view(-1) > 0"));
  // NonTensorMethod
  EXPECT_FALSE(p.tensor("x.size()"));
  // ShapeOp
  EXPECT_TRUE(p.analysis->is_bool_tensor(*p.find("(x > 0).view(-1)")));
  EXPECT_FALSE(p.analysis->is_bool_tensor(*p.find("(x > 0).float()")));
  // NonTensorTorch
  EXPECT_FALSE(p.tensor("torch.finfo(x.dtype)"));
  EXPECT_TRUE(p.tensor("torch.zeros(3)"));
}

TEST(TorchFacts, CallAndStatementCategories) {
  Program p(
      "import logging\n"
      "import torch\n"
      "logger = logging.getLogger(__name__)\n"
      "class Model(torch.nn.Module):\n"
      "    def forward(self, x):\n"
      "        return x\n"
      "def f(xs):\n"
      "    len(xs)\n"
      "    logger.warning_once('w')\n"
      "    logger.setLevel(1)\n"
      "    xs.append(1)\n"
      "def g(xs):\n"
      "    xs.copy()\n"
      "model = Model().eval()\n"
      "torch.compile(model)\n");
  // Builtin
  EXPECT_EQ(kind_of_call(p, "len(xs)"), CalleeKind::Builtin);
  // LoggerMethod
  EXPECT_EQ(kind_of_call(p, "logger.warning_once('w')"), CalleeKind::LoggerMethod);
  EXPECT_NE(kind_of_call(p, "logger.setLevel(1)"), CalleeKind::LoggerMethod);
  // ModuleChainMethod: model = Model().eval() is an instance of Model
  EXPECT_EQ(p.function("Model.forward")->reason, EntryReason::CompileCall);
  auto body = [&](const char* def) { return ast::as<ast::FunctionDef>(p.stmt(def))->body; };
  // MutatingMethod
  EXPECT_TRUE(p.analysis->mutates_state(body("def f(xs)")));
  EXPECT_FALSE(p.analysis->mutates_state(body("def g(xs)")));
}

}  // namespace
}  // namespace graphmend::sema

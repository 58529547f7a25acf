// Tensor-ness and data dependence.
#include <gtest/gtest.h>

#include "sema_program.h"

namespace graphmend::sema {
namespace {

using test_support::Program;

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

}  // namespace
}  // namespace graphmend::sema

// Purity: side-effect-free expressions that cannot raise.
#include <gtest/gtest.h>

#include "sema_program.h"

namespace graphmend::sema {
namespace {

using test_support::Program;

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

}  // namespace
}  // namespace graphmend::sema

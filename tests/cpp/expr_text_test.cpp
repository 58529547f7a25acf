// Shared helpers of the rewrites: fresh names, indentation, node text (rewrite/expr_text.cpp).
#include "rewrite_fixture.h"

namespace graphmend {
namespace {

using rewrite::apply_edits;
using rewrite::normalize_edits;
using rewrite_test::body;
using rewrite_test::Fixture;

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

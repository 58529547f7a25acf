// Expression parsing checked against CPython: each expected string is what
// ast.dump(ast.parse(source), include_attributes=...) printed on python3.11 (or 3.12.1 where
// the test name says 312). Error tests check the SyntaxError message.
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "ast/dump.h"
#include "parse/parser.h"

namespace graphmend {
namespace {

std::string parse_and_dump(const char* text, int minor, bool attributes) {
  SourceText source(text);
  Arena arena;
  ParseOptions options;
  options.version.minor = minor;
  ParseResult result = parse_module(source, arena, options);
  if (result.module == nullptr) return "ERR " + result.error->message;
  DumpOptions dump;
  dump.include_attributes = attributes;
  dump.version.minor = minor;
  return dump_ast(result.module, source, dump);
}

TEST(ParseExpr, Arithmetic) {
  EXPECT_EQ(
      parse_and_dump(R"py(a + b * c - d / e // f % g @ h)py", 11, false),
      R"py(Module(body=[Expr(value=BinOp(left=BinOp(left=Name(id='a', ctx=Load()), op=Add(), right=BinOp(left=Name(id='b', ctx=Load()), op=Mult(), right=Name(id='c', ctx=Load()))), op=Sub(), right=BinOp(left=BinOp(left=BinOp(left=BinOp(left=Name(id='d', ctx=Load()), op=Div(), right=Name(id='e', ctx=Load())), op=FloorDiv(), right=Name(id='f', ctx=Load())), op=Mod(), right=Name(id='g', ctx=Load())), op=MatMult(), right=Name(id='h', ctx=Load()))))], type_ignores=[]))py");
}

TEST(ParseExpr, PowerBindsTighterThanUnary) {
  EXPECT_EQ(
      parse_and_dump(R"py(-x ** 2)py", 11, true),
      R"py(Module(body=[Expr(value=UnaryOp(op=USub(), operand=BinOp(left=Name(id='x', ctx=Load(), lineno=1, col_offset=1, end_lineno=1, end_col_offset=2), op=Pow(), right=Constant(value=2, lineno=1, col_offset=6, end_lineno=1, end_col_offset=7), lineno=1, col_offset=1, end_lineno=1, end_col_offset=7), lineno=1, col_offset=0, end_lineno=1, end_col_offset=7), lineno=1, col_offset=0, end_lineno=1, end_col_offset=7)], type_ignores=[]))py");
}

TEST(ParseExpr, PowerIsRightAssociative) {
  EXPECT_EQ(
      parse_and_dump(R"py(a ** -b ** c)py", 11, false),
      R"py(Module(body=[Expr(value=BinOp(left=Name(id='a', ctx=Load()), op=Pow(), right=UnaryOp(op=USub(), operand=BinOp(left=Name(id='b', ctx=Load()), op=Pow(), right=Name(id='c', ctx=Load())))))], type_ignores=[]))py");
}

TEST(ParseExpr, BoolOpIsOneNode) {
  EXPECT_EQ(
      parse_and_dump(R"py(a and b and c or not d)py", 11, true),
      R"py(Module(body=[Expr(value=BoolOp(op=Or(), values=[BoolOp(op=And(), values=[Name(id='a', ctx=Load(), lineno=1, col_offset=0, end_lineno=1, end_col_offset=1), Name(id='b', ctx=Load(), lineno=1, col_offset=6, end_lineno=1, end_col_offset=7), Name(id='c', ctx=Load(), lineno=1, col_offset=12, end_lineno=1, end_col_offset=13)], lineno=1, col_offset=0, end_lineno=1, end_col_offset=13), UnaryOp(op=Not(), operand=Name(id='d', ctx=Load(), lineno=1, col_offset=21, end_lineno=1, end_col_offset=22), lineno=1, col_offset=17, end_lineno=1, end_col_offset=22)], lineno=1, col_offset=0, end_lineno=1, end_col_offset=22), lineno=1, col_offset=0, end_lineno=1, end_col_offset=22)], type_ignores=[]))py");
}

TEST(ParseExpr, CompareChain) {
  EXPECT_EQ(
      parse_and_dump(R"py(a < b <= c == d != e > f >= g in h not in i is j is not k)py", 11, true),
      R"py(Module(body=[Expr(value=Compare(left=Name(id='a', ctx=Load(), lineno=1, col_offset=0, end_lineno=1, end_col_offset=1), ops=[Lt(), LtE(), Eq(), NotEq(), Gt(), GtE(), In(), NotIn(), Is(), IsNot()], comparators=[Name(id='b', ctx=Load(), lineno=1, col_offset=4, end_lineno=1, end_col_offset=5), Name(id='c', ctx=Load(), lineno=1, col_offset=9, end_lineno=1, end_col_offset=10), Name(id='d', ctx=Load(), lineno=1, col_offset=14, end_lineno=1, end_col_offset=15), Name(id='e', ctx=Load(), lineno=1, col_offset=19, end_lineno=1, end_col_offset=20), Name(id='f', ctx=Load(), lineno=1, col_offset=23, end_lineno=1, end_col_offset=24), Name(id='g', ctx=Load(), lineno=1, col_offset=28, end_lineno=1, end_col_offset=29), Name(id='h', ctx=Load(), lineno=1, col_offset=33, end_lineno=1, end_col_offset=34), Name(id='i', ctx=Load(), lineno=1, col_offset=42, end_lineno=1, end_col_offset=43), Name(id='j', ctx=Load(), lineno=1, col_offset=47, end_lineno=1, end_col_offset=48), Name(id='k', ctx=Load(), lineno=1, col_offset=56, end_lineno=1, end_col_offset=57)], lineno=1, col_offset=0, end_lineno=1, end_col_offset=57), lineno=1, col_offset=0, end_lineno=1, end_col_offset=57)], type_ignores=[]))py");
}

TEST(ParseExpr, BitwiseAndShifts) {
  EXPECT_EQ(
      parse_and_dump(R"py(a | b ^ c & d << e >> f)py", 11, false),
      R"py(Module(body=[Expr(value=BinOp(left=Name(id='a', ctx=Load()), op=BitOr(), right=BinOp(left=Name(id='b', ctx=Load()), op=BitXor(), right=BinOp(left=Name(id='c', ctx=Load()), op=BitAnd(), right=BinOp(left=BinOp(left=Name(id='d', ctx=Load()), op=LShift(), right=Name(id='e', ctx=Load())), op=RShift(), right=Name(id='f', ctx=Load()))))))], type_ignores=[]))py");
}

TEST(ParseExpr, AwaitPrimary) {
  EXPECT_EQ(
      parse_and_dump(R"py(await x.y ** 2)py", 11, true),
      R"py(Module(body=[Expr(value=BinOp(left=Await(value=Attribute(value=Name(id='x', ctx=Load(), lineno=1, col_offset=6, end_lineno=1, end_col_offset=7), attr='y', ctx=Load(), lineno=1, col_offset=6, end_lineno=1, end_col_offset=9), lineno=1, col_offset=0, end_lineno=1, end_col_offset=9), op=Pow(), right=Constant(value=2, lineno=1, col_offset=13, end_lineno=1, end_col_offset=14), lineno=1, col_offset=0, end_lineno=1, end_col_offset=14), lineno=1, col_offset=0, end_lineno=1, end_col_offset=14)], type_ignores=[]))py");
}

TEST(ParseExpr, AttributeCallSubscriptSpans) {
  EXPECT_EQ(
      parse_and_dump(R"py((a).b(c)[d].e)py", 11, true),
      R"py(Module(body=[Expr(value=Attribute(value=Subscript(value=Call(func=Attribute(value=Name(id='a', ctx=Load(), lineno=1, col_offset=1, end_lineno=1, end_col_offset=2), attr='b', ctx=Load(), lineno=1, col_offset=0, end_lineno=1, end_col_offset=5), args=[Name(id='c', ctx=Load(), lineno=1, col_offset=6, end_lineno=1, end_col_offset=7)], keywords=[], lineno=1, col_offset=0, end_lineno=1, end_col_offset=8), slice=Name(id='d', ctx=Load(), lineno=1, col_offset=9, end_lineno=1, end_col_offset=10), ctx=Load(), lineno=1, col_offset=0, end_lineno=1, end_col_offset=11), attr='e', ctx=Load(), lineno=1, col_offset=0, end_lineno=1, end_col_offset=13), lineno=1, col_offset=0, end_lineno=1, end_col_offset=13)], type_ignores=[]))py");
}

TEST(ParseExpr, CallArguments) {
  EXPECT_EQ(
      parse_and_dump(R"py(f(a, *b, c=1, *d, **e))py", 11, true),
      R"py(Module(body=[Expr(value=Call(func=Name(id='f', ctx=Load(), lineno=1, col_offset=0, end_lineno=1, end_col_offset=1), args=[Name(id='a', ctx=Load(), lineno=1, col_offset=2, end_lineno=1, end_col_offset=3), Starred(value=Name(id='b', ctx=Load(), lineno=1, col_offset=6, end_lineno=1, end_col_offset=7), ctx=Load(), lineno=1, col_offset=5, end_lineno=1, end_col_offset=7), Starred(value=Name(id='d', ctx=Load(), lineno=1, col_offset=15, end_lineno=1, end_col_offset=16), ctx=Load(), lineno=1, col_offset=14, end_lineno=1, end_col_offset=16)], keywords=[keyword(arg='c', value=Constant(value=1, lineno=1, col_offset=11, end_lineno=1, end_col_offset=12), lineno=1, col_offset=9, end_lineno=1, end_col_offset=12), keyword(value=Name(id='e', ctx=Load(), lineno=1, col_offset=20, end_lineno=1, end_col_offset=21), lineno=1, col_offset=18, end_lineno=1, end_col_offset=21)], lineno=1, col_offset=0, end_lineno=1, end_col_offset=22), lineno=1, col_offset=0, end_lineno=1, end_col_offset=22)], type_ignores=[]))py");
}

TEST(ParseExpr, SoleGeneratorArgumentOwnsParens) {
  EXPECT_EQ(
      parse_and_dump(R"py(f(x for x in y))py", 11, true),
      R"py(Module(body=[Expr(value=Call(func=Name(id='f', ctx=Load(), lineno=1, col_offset=0, end_lineno=1, end_col_offset=1), args=[GeneratorExp(elt=Name(id='x', ctx=Load(), lineno=1, col_offset=2, end_lineno=1, end_col_offset=3), generators=[comprehension(target=Name(id='x', ctx=Store(), lineno=1, col_offset=8, end_lineno=1, end_col_offset=9), iter=Name(id='y', ctx=Load(), lineno=1, col_offset=13, end_lineno=1, end_col_offset=14), ifs=[], is_async=0)], lineno=1, col_offset=1, end_lineno=1, end_col_offset=15)], keywords=[], lineno=1, col_offset=0, end_lineno=1, end_col_offset=15), lineno=1, col_offset=0, end_lineno=1, end_col_offset=15)], type_ignores=[]))py");
}

TEST(ParseExpr, Slices) {
  EXPECT_EQ(
      parse_and_dump(R"py(x[1:2, ::3, a:b:c, :])py", 11, true),
      R"py(Module(body=[Expr(value=Subscript(value=Name(id='x', ctx=Load(), lineno=1, col_offset=0, end_lineno=1, end_col_offset=1), slice=Tuple(elts=[Slice(lower=Constant(value=1, lineno=1, col_offset=2, end_lineno=1, end_col_offset=3), upper=Constant(value=2, lineno=1, col_offset=4, end_lineno=1, end_col_offset=5), lineno=1, col_offset=2, end_lineno=1, end_col_offset=5), Slice(step=Constant(value=3, lineno=1, col_offset=9, end_lineno=1, end_col_offset=10), lineno=1, col_offset=7, end_lineno=1, end_col_offset=10), Slice(lower=Name(id='a', ctx=Load(), lineno=1, col_offset=12, end_lineno=1, end_col_offset=13), upper=Name(id='b', ctx=Load(), lineno=1, col_offset=14, end_lineno=1, end_col_offset=15), step=Name(id='c', ctx=Load(), lineno=1, col_offset=16, end_lineno=1, end_col_offset=17), lineno=1, col_offset=12, end_lineno=1, end_col_offset=17), Slice(lineno=1, col_offset=19, end_lineno=1, end_col_offset=20)], ctx=Load(), lineno=1, col_offset=2, end_lineno=1, end_col_offset=20), ctx=Load(), lineno=1, col_offset=0, end_lineno=1, end_col_offset=21), lineno=1, col_offset=0, end_lineno=1, end_col_offset=21)], type_ignores=[]))py");
}

TEST(ParseExpr, StarredSubscript) {
  EXPECT_EQ(
      parse_and_dump(R"py(x[*a])py", 11, true),
      R"py(Module(body=[Expr(value=Subscript(value=Name(id='x', ctx=Load(), lineno=1, col_offset=0, end_lineno=1, end_col_offset=1), slice=Tuple(elts=[Starred(value=Name(id='a', ctx=Load(), lineno=1, col_offset=3, end_lineno=1, end_col_offset=4), ctx=Load(), lineno=1, col_offset=2, end_lineno=1, end_col_offset=4)], ctx=Load(), lineno=1, col_offset=2, end_lineno=1, end_col_offset=4), ctx=Load(), lineno=1, col_offset=0, end_lineno=1, end_col_offset=5), lineno=1, col_offset=0, end_lineno=1, end_col_offset=5)], type_ignores=[]))py");
}

TEST(ParseExpr, ParenthesizedTupleSpan) {
  EXPECT_EQ(
      parse_and_dump(R"py((a, b,))py", 11, true),
      R"py(Module(body=[Expr(value=Tuple(elts=[Name(id='a', ctx=Load(), lineno=1, col_offset=1, end_lineno=1, end_col_offset=2), Name(id='b', ctx=Load(), lineno=1, col_offset=4, end_lineno=1, end_col_offset=5)], ctx=Load(), lineno=1, col_offset=0, end_lineno=1, end_col_offset=7), lineno=1, col_offset=0, end_lineno=1, end_col_offset=7)], type_ignores=[]))py");
}

TEST(ParseExpr, GroupParensNotInSpan) {
  EXPECT_EQ(
      parse_and_dump(R"py(((a)) + (b))py", 11, true),
      R"py(Module(body=[Expr(value=BinOp(left=Name(id='a', ctx=Load(), lineno=1, col_offset=2, end_lineno=1, end_col_offset=3), op=Add(), right=Name(id='b', ctx=Load(), lineno=1, col_offset=9, end_lineno=1, end_col_offset=10), lineno=1, col_offset=0, end_lineno=1, end_col_offset=11), lineno=1, col_offset=0, end_lineno=1, end_col_offset=11)], type_ignores=[]))py");
}

TEST(ParseExpr, EmptyTuple) {
  EXPECT_EQ(
      parse_and_dump(R"py(())py", 11, true),
      R"py(Module(body=[Expr(value=Tuple(elts=[], ctx=Load(), lineno=1, col_offset=0, end_lineno=1, end_col_offset=2), lineno=1, col_offset=0, end_lineno=1, end_col_offset=2)], type_ignores=[]))py");
}

TEST(ParseExpr, GeneratorExpression) {
  EXPECT_EQ(
      parse_and_dump(R"py((x async for x in y if a if b for z in x))py", 11, true),
      R"py(Module(body=[Expr(value=GeneratorExp(elt=Name(id='x', ctx=Load(), lineno=1, col_offset=1, end_lineno=1, end_col_offset=2), generators=[comprehension(target=Name(id='x', ctx=Store(), lineno=1, col_offset=13, end_lineno=1, end_col_offset=14), iter=Name(id='y', ctx=Load(), lineno=1, col_offset=18, end_lineno=1, end_col_offset=19), ifs=[Name(id='a', ctx=Load(), lineno=1, col_offset=23, end_lineno=1, end_col_offset=24), Name(id='b', ctx=Load(), lineno=1, col_offset=28, end_lineno=1, end_col_offset=29)], is_async=1), comprehension(target=Name(id='z', ctx=Store(), lineno=1, col_offset=34, end_lineno=1, end_col_offset=35), iter=Name(id='x', ctx=Load(), lineno=1, col_offset=39, end_lineno=1, end_col_offset=40), ifs=[], is_async=0)], lineno=1, col_offset=0, end_lineno=1, end_col_offset=41), lineno=1, col_offset=0, end_lineno=1, end_col_offset=41)], type_ignores=[]))py");
}

TEST(ParseExpr, ListAndListComp) {
  EXPECT_EQ(
      parse_and_dump(R"py([1, *a], [x for x in y])py", 11, true),
      R"py(Module(body=[Expr(value=Tuple(elts=[List(elts=[Constant(value=1, lineno=1, col_offset=1, end_lineno=1, end_col_offset=2), Starred(value=Name(id='a', ctx=Load(), lineno=1, col_offset=5, end_lineno=1, end_col_offset=6), ctx=Load(), lineno=1, col_offset=4, end_lineno=1, end_col_offset=6)], ctx=Load(), lineno=1, col_offset=0, end_lineno=1, end_col_offset=7), ListComp(elt=Name(id='x', ctx=Load(), lineno=1, col_offset=10, end_lineno=1, end_col_offset=11), generators=[comprehension(target=Name(id='x', ctx=Store(), lineno=1, col_offset=16, end_lineno=1, end_col_offset=17), iter=Name(id='y', ctx=Load(), lineno=1, col_offset=21, end_lineno=1, end_col_offset=22), ifs=[], is_async=0)], lineno=1, col_offset=9, end_lineno=1, end_col_offset=23)], ctx=Load(), lineno=1, col_offset=0, end_lineno=1, end_col_offset=23), lineno=1, col_offset=0, end_lineno=1, end_col_offset=23)], type_ignores=[]))py");
}

TEST(ParseExpr, DictWithUnpacking) {
  EXPECT_EQ(
      parse_and_dump(R"py({1: 2, **a, 3: 4})py", 11, true),
      R"py(Module(body=[Expr(value=Dict(keys=[Constant(value=1, lineno=1, col_offset=1, end_lineno=1, end_col_offset=2), None, Constant(value=3, lineno=1, col_offset=12, end_lineno=1, end_col_offset=13)], values=[Constant(value=2, lineno=1, col_offset=4, end_lineno=1, end_col_offset=5), Name(id='a', ctx=Load(), lineno=1, col_offset=9, end_lineno=1, end_col_offset=10), Constant(value=4, lineno=1, col_offset=15, end_lineno=1, end_col_offset=16)], lineno=1, col_offset=0, end_lineno=1, end_col_offset=17), lineno=1, col_offset=0, end_lineno=1, end_col_offset=17)], type_ignores=[]))py");
}

TEST(ParseExpr, SetAndComprehensions) {
  EXPECT_EQ(
      parse_and_dump(R"py({1, *a}, {x for x in y}, {k: v for k, v in z})py", 11, false),
      R"py(Module(body=[Expr(value=Tuple(elts=[Set(elts=[Constant(value=1), Starred(value=Name(id='a', ctx=Load()), ctx=Load())]), SetComp(elt=Name(id='x', ctx=Load()), generators=[comprehension(target=Name(id='x', ctx=Store()), iter=Name(id='y', ctx=Load()), ifs=[], is_async=0)]), DictComp(key=Name(id='k', ctx=Load()), value=Name(id='v', ctx=Load()), generators=[comprehension(target=Tuple(elts=[Name(id='k', ctx=Store()), Name(id='v', ctx=Store())], ctx=Store()), iter=Name(id='z', ctx=Load()), ifs=[], is_async=0)])], ctx=Load()))], type_ignores=[]))py");
}

TEST(ParseExpr, Constants) {
  EXPECT_EQ(
      parse_and_dump(R"py(None, True, False, ..., 1_000, 0x1F, 1.5, 2j)py", 11, false),
      R"py(Module(body=[Expr(value=Tuple(elts=[Constant(value=None), Constant(value=True), Constant(value=False), Constant(value=Ellipsis), Constant(value=1000), Constant(value=31), Constant(value=1.5), Constant(value=2j)], ctx=Load()))], type_ignores=[]))py");
}

TEST(ParseExpr, Lambda) {
  EXPECT_EQ(
      parse_and_dump(R"py(lambda: 0)py", 11, true),
      R"py(Module(body=[Expr(value=Lambda(args=arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]), body=Constant(value=0, lineno=1, col_offset=8, end_lineno=1, end_col_offset=9), lineno=1, col_offset=0, end_lineno=1, end_col_offset=9), lineno=1, col_offset=0, end_lineno=1, end_col_offset=9)], type_ignores=[]))py");
}

TEST(ParseExpr, LambdaWithParameters) {
  EXPECT_EQ(
      parse_and_dump(R"py(lambda x, y=1, *a, z, **k: x)py", 11, false),
      R"py(Module(body=[Expr(value=Lambda(args=arguments(posonlyargs=[], args=[arg(arg='x'), arg(arg='y')], vararg=arg(arg='a'), kwonlyargs=[arg(arg='z')], kw_defaults=[None], kwarg=arg(arg='k'), defaults=[Constant(value=1)]), body=Name(id='x', ctx=Load())))], type_ignores=[]))py");
}

TEST(ParseExpr, ConditionalExpression) {
  EXPECT_EQ(
      parse_and_dump(R"py(a if b else c if d else e)py", 11, true),
      R"py(Module(body=[Expr(value=IfExp(test=Name(id='b', ctx=Load(), lineno=1, col_offset=5, end_lineno=1, end_col_offset=6), body=Name(id='a', ctx=Load(), lineno=1, col_offset=0, end_lineno=1, end_col_offset=1), orelse=IfExp(test=Name(id='d', ctx=Load(), lineno=1, col_offset=17, end_lineno=1, end_col_offset=18), body=Name(id='c', ctx=Load(), lineno=1, col_offset=12, end_lineno=1, end_col_offset=13), orelse=Name(id='e', ctx=Load(), lineno=1, col_offset=24, end_lineno=1, end_col_offset=25), lineno=1, col_offset=12, end_lineno=1, end_col_offset=25), lineno=1, col_offset=0, end_lineno=1, end_col_offset=25), lineno=1, col_offset=0, end_lineno=1, end_col_offset=25)], type_ignores=[]))py");
}

TEST(ParseExpr, Walrus) {
  EXPECT_EQ(
      parse_and_dump(R"py([y := f(x), y ** 2])py", 11, true),
      R"py(Module(body=[Expr(value=List(elts=[NamedExpr(target=Name(id='y', ctx=Store(), lineno=1, col_offset=1, end_lineno=1, end_col_offset=2), value=Call(func=Name(id='f', ctx=Load(), lineno=1, col_offset=6, end_lineno=1, end_col_offset=7), args=[Name(id='x', ctx=Load(), lineno=1, col_offset=8, end_lineno=1, end_col_offset=9)], keywords=[], lineno=1, col_offset=6, end_lineno=1, end_col_offset=10), lineno=1, col_offset=1, end_lineno=1, end_col_offset=10), BinOp(left=Name(id='y', ctx=Load(), lineno=1, col_offset=12, end_lineno=1, end_col_offset=13), op=Pow(), right=Constant(value=2, lineno=1, col_offset=17, end_lineno=1, end_col_offset=18), lineno=1, col_offset=12, end_lineno=1, end_col_offset=18)], ctx=Load(), lineno=1, col_offset=0, end_lineno=1, end_col_offset=19), lineno=1, col_offset=0, end_lineno=1, end_col_offset=19)], type_ignores=[]))py");
}

TEST(ParseExpr, WalrusInSubscript) {
  EXPECT_EQ(
      parse_and_dump(R"py(x[a := 1])py", 11, false),
      R"py(Module(body=[Expr(value=Subscript(value=Name(id='x', ctx=Load()), slice=NamedExpr(target=Name(id='a', ctx=Store()), value=Constant(value=1)), ctx=Load()))], type_ignores=[]))py");
}

TEST(ParseExpr, YieldForms) {
  EXPECT_EQ(
      parse_and_dump(R"py(def f():
    x = yield
    y = yield a, b
    z = yield from c)py",
                     11, false),
      R"py(Module(body=[FunctionDef(name='f', args=arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]), body=[Assign(targets=[Name(id='x', ctx=Store())], value=Yield()), Assign(targets=[Name(id='y', ctx=Store())], value=Yield(value=Tuple(elts=[Name(id='a', ctx=Load()), Name(id='b', ctx=Load())], ctx=Load()))), Assign(targets=[Name(id='z', ctx=Store())], value=YieldFrom(value=Name(id='c', ctx=Load())))], decorator_list=[])], type_ignores=[]))py");
}

TEST(ParseExpr, StarTargets) {
  EXPECT_EQ(
      parse_and_dump(R"py(a, *b = [c, d], = e = f)py", 11, true),
      R"py(Module(body=[Assign(targets=[Tuple(elts=[Name(id='a', ctx=Store(), lineno=1, col_offset=0, end_lineno=1, end_col_offset=1), Starred(value=Name(id='b', ctx=Store(), lineno=1, col_offset=4, end_lineno=1, end_col_offset=5), ctx=Store(), lineno=1, col_offset=3, end_lineno=1, end_col_offset=5)], ctx=Store(), lineno=1, col_offset=0, end_lineno=1, end_col_offset=5), Tuple(elts=[List(elts=[Name(id='c', ctx=Store(), lineno=1, col_offset=9, end_lineno=1, end_col_offset=10), Name(id='d', ctx=Store(), lineno=1, col_offset=12, end_lineno=1, end_col_offset=13)], ctx=Store(), lineno=1, col_offset=8, end_lineno=1, end_col_offset=14)], ctx=Store(), lineno=1, col_offset=8, end_lineno=1, end_col_offset=15), Name(id='e', ctx=Store(), lineno=1, col_offset=18, end_lineno=1, end_col_offset=19)], value=Name(id='f', ctx=Load(), lineno=1, col_offset=22, end_lineno=1, end_col_offset=23), lineno=1, col_offset=0, end_lineno=1, end_col_offset=23)], type_ignores=[]))py");
}

TEST(ParseExpr, ParenthesizedTargets) {
  EXPECT_EQ(
      parse_and_dump(R"py((a) = (b, [c, *d]) = x)py", 11, true),
      R"py(Module(body=[Assign(targets=[Name(id='a', ctx=Store(), lineno=1, col_offset=1, end_lineno=1, end_col_offset=2), Tuple(elts=[Name(id='b', ctx=Store(), lineno=1, col_offset=7, end_lineno=1, end_col_offset=8), List(elts=[Name(id='c', ctx=Store(), lineno=1, col_offset=11, end_lineno=1, end_col_offset=12), Starred(value=Name(id='d', ctx=Store(), lineno=1, col_offset=15, end_lineno=1, end_col_offset=16), ctx=Store(), lineno=1, col_offset=14, end_lineno=1, end_col_offset=16)], ctx=Store(), lineno=1, col_offset=10, end_lineno=1, end_col_offset=17)], ctx=Store(), lineno=1, col_offset=6, end_lineno=1, end_col_offset=18)], value=Name(id='x', ctx=Load(), lineno=1, col_offset=21, end_lineno=1, end_col_offset=22), lineno=1, col_offset=0, end_lineno=1, end_col_offset=22)], type_ignores=[]))py");
}

TEST(ParseExpr, AttributeAndSubscriptTargets) {
  EXPECT_EQ(
      parse_and_dump(R"py(a.b.c[d](e).f = g[h] = 1)py", 11, true),
      R"py(Module(body=[Assign(targets=[Attribute(value=Call(func=Subscript(value=Attribute(value=Attribute(value=Name(id='a', ctx=Load(), lineno=1, col_offset=0, end_lineno=1, end_col_offset=1), attr='b', ctx=Load(), lineno=1, col_offset=0, end_lineno=1, end_col_offset=3), attr='c', ctx=Load(), lineno=1, col_offset=0, end_lineno=1, end_col_offset=5), slice=Name(id='d', ctx=Load(), lineno=1, col_offset=6, end_lineno=1, end_col_offset=7), ctx=Load(), lineno=1, col_offset=0, end_lineno=1, end_col_offset=8), args=[Name(id='e', ctx=Load(), lineno=1, col_offset=9, end_lineno=1, end_col_offset=10)], keywords=[], lineno=1, col_offset=0, end_lineno=1, end_col_offset=11), attr='f', ctx=Store(), lineno=1, col_offset=0, end_lineno=1, end_col_offset=13), Subscript(value=Name(id='g', ctx=Load(), lineno=1, col_offset=16, end_lineno=1, end_col_offset=17), slice=Name(id='h', ctx=Load(), lineno=1, col_offset=18, end_lineno=1, end_col_offset=19), ctx=Store(), lineno=1, col_offset=16, end_lineno=1, end_col_offset=20)], value=Constant(value=1, lineno=1, col_offset=23, end_lineno=1, end_col_offset=24), lineno=1, col_offset=0, end_lineno=1, end_col_offset=24)], type_ignores=[]))py");
}

TEST(ParseExpr, ForTargets) {
  EXPECT_EQ(
      parse_and_dump(R"py(for (a, b), c in d: pass)py", 11, true),
      R"py(Module(body=[For(target=Tuple(elts=[Tuple(elts=[Name(id='a', ctx=Store(), lineno=1, col_offset=5, end_lineno=1, end_col_offset=6), Name(id='b', ctx=Store(), lineno=1, col_offset=8, end_lineno=1, end_col_offset=9)], ctx=Store(), lineno=1, col_offset=4, end_lineno=1, end_col_offset=10), Name(id='c', ctx=Store(), lineno=1, col_offset=12, end_lineno=1, end_col_offset=13)], ctx=Store(), lineno=1, col_offset=4, end_lineno=1, end_col_offset=13), iter=Name(id='d', ctx=Load(), lineno=1, col_offset=17, end_lineno=1, end_col_offset=18), body=[Pass(lineno=1, col_offset=20, end_lineno=1, end_col_offset=24)], orelse=[], lineno=1, col_offset=0, end_lineno=1, end_col_offset=24)], type_ignores=[]))py");
}

TEST(ParseExpr, ComprehensionTargets) {
  EXPECT_EQ(
      parse_and_dump(R"py([x for a.b, c[0] in y])py", 11, true),
      R"py(Module(body=[Expr(value=ListComp(elt=Name(id='x', ctx=Load(), lineno=1, col_offset=1, end_lineno=1, end_col_offset=2), generators=[comprehension(target=Tuple(elts=[Attribute(value=Name(id='a', ctx=Load(), lineno=1, col_offset=7, end_lineno=1, end_col_offset=8), attr='b', ctx=Store(), lineno=1, col_offset=7, end_lineno=1, end_col_offset=10), Subscript(value=Name(id='c', ctx=Load(), lineno=1, col_offset=12, end_lineno=1, end_col_offset=13), slice=Constant(value=0, lineno=1, col_offset=14, end_lineno=1, end_col_offset=15), ctx=Store(), lineno=1, col_offset=12, end_lineno=1, end_col_offset=16)], ctx=Store(), lineno=1, col_offset=7, end_lineno=1, end_col_offset=16), iter=Name(id='y', ctx=Load(), lineno=1, col_offset=20, end_lineno=1, end_col_offset=21), ifs=[], is_async=0)], lineno=1, col_offset=0, end_lineno=1, end_col_offset=22), lineno=1, col_offset=0, end_lineno=1, end_col_offset=22)], type_ignores=[]))py");
}

TEST(ParseExpr, AugmentedTarget) {
  EXPECT_EQ(
      parse_and_dump(R"py(a.b[c] += 1)py", 11, true),
      R"py(Module(body=[AugAssign(target=Subscript(value=Attribute(value=Name(id='a', ctx=Load(), lineno=1, col_offset=0, end_lineno=1, end_col_offset=1), attr='b', ctx=Load(), lineno=1, col_offset=0, end_lineno=1, end_col_offset=3), slice=Name(id='c', ctx=Load(), lineno=1, col_offset=4, end_lineno=1, end_col_offset=5), ctx=Store(), lineno=1, col_offset=0, end_lineno=1, end_col_offset=6), op=Add(), value=Constant(value=1, lineno=1, col_offset=10, end_lineno=1, end_col_offset=11), lineno=1, col_offset=0, end_lineno=1, end_col_offset=11)], type_ignores=[]))py");
}

TEST(ParseExpr, DeleteTargets) {
  EXPECT_EQ(
      parse_and_dump(R"py(del a, (b, c), [d], e.f, g[0], (h))py", 11, true),
      R"py(Module(body=[Delete(targets=[Name(id='a', ctx=Del(), lineno=1, col_offset=4, end_lineno=1, end_col_offset=5), Tuple(elts=[Name(id='b', ctx=Del(), lineno=1, col_offset=8, end_lineno=1, end_col_offset=9), Name(id='c', ctx=Del(), lineno=1, col_offset=11, end_lineno=1, end_col_offset=12)], ctx=Del(), lineno=1, col_offset=7, end_lineno=1, end_col_offset=13), List(elts=[Name(id='d', ctx=Del(), lineno=1, col_offset=16, end_lineno=1, end_col_offset=17)], ctx=Del(), lineno=1, col_offset=15, end_lineno=1, end_col_offset=18), Attribute(value=Name(id='e', ctx=Load(), lineno=1, col_offset=20, end_lineno=1, end_col_offset=21), attr='f', ctx=Del(), lineno=1, col_offset=20, end_lineno=1, end_col_offset=23), Subscript(value=Name(id='g', ctx=Load(), lineno=1, col_offset=25, end_lineno=1, end_col_offset=26), slice=Constant(value=0, lineno=1, col_offset=27, end_lineno=1, end_col_offset=28), ctx=Del(), lineno=1, col_offset=25, end_lineno=1, end_col_offset=29), Name(id='h', ctx=Del(), lineno=1, col_offset=32, end_lineno=1, end_col_offset=33)], lineno=1, col_offset=0, end_lineno=1, end_col_offset=34)], type_ignores=[]))py");
}

TEST(ParseExpr, StringConcatenation) {
  EXPECT_EQ(
      parse_and_dump(R"py(u'a' 'b' "c")py", 11, true),
      R"py(Module(body=[Expr(value=Constant(value='abc', kind='u', lineno=1, col_offset=0, end_lineno=1, end_col_offset=12), lineno=1, col_offset=0, end_lineno=1, end_col_offset=12)], type_ignores=[]))py");
}

TEST(ParseExpr, BytesConcatenation) {
  EXPECT_EQ(
      parse_and_dump(R"py(b'a' rb'\\')py", 11, true),
      R"py(Module(body=[Expr(value=Constant(value=b'a\\\\', lineno=1, col_offset=0, end_lineno=1, end_col_offset=11), lineno=1, col_offset=0, end_lineno=1, end_col_offset=11)], type_ignores=[]))py");
}

TEST(ParseExpr, TripleQuoted) {
  EXPECT_EQ(
      parse_and_dump(R"py(x = '''a
b''')py",
                     11, true),
      R"py(Module(body=[Assign(targets=[Name(id='x', ctx=Store(), lineno=1, col_offset=0, end_lineno=1, end_col_offset=1)], value=Constant(value='a\nb', lineno=1, col_offset=4, end_lineno=2, end_col_offset=4), lineno=1, col_offset=0, end_lineno=2, end_col_offset=4)], type_ignores=[]))py");
}

TEST(ParseExpr, FString311Positions) {
  EXPECT_EQ(
      parse_and_dump(R"py(f"a{x!r:>{w}}b" "c")py", 11, true),
      R"py(Module(body=[Expr(value=JoinedStr(values=[Constant(value='a', lineno=1, col_offset=0, end_lineno=1, end_col_offset=19), FormattedValue(value=Name(id='x', ctx=Load(), lineno=1, col_offset=4, end_lineno=1, end_col_offset=5), conversion=114, format_spec=JoinedStr(values=[Constant(value='>', lineno=1, col_offset=0, end_lineno=1, end_col_offset=19), FormattedValue(value=Name(id='w', ctx=Load(), lineno=1, col_offset=10, end_lineno=1, end_col_offset=11), conversion=-1, lineno=1, col_offset=0, end_lineno=1, end_col_offset=19)], lineno=1, col_offset=0, end_lineno=1, end_col_offset=15), lineno=1, col_offset=0, end_lineno=1, end_col_offset=19), Constant(value='bc', lineno=1, col_offset=0, end_lineno=1, end_col_offset=19)], lineno=1, col_offset=0, end_lineno=1, end_col_offset=19), lineno=1, col_offset=0, end_lineno=1, end_col_offset=19)], type_ignores=[]))py");
}

TEST(ParseExpr, FStringDebug311) {
  EXPECT_EQ(
      parse_and_dump(R"py(f'{x=}' f'{ y = !s:3}')py", 11, true),
      R"py(Module(body=[Expr(value=JoinedStr(values=[Constant(value='x=', lineno=1, col_offset=0, end_lineno=1, end_col_offset=22), FormattedValue(value=Name(id='x', ctx=Load(), lineno=1, col_offset=3, end_lineno=1, end_col_offset=4), conversion=114, lineno=1, col_offset=0, end_lineno=1, end_col_offset=22), Constant(value=' y = ', lineno=1, col_offset=0, end_lineno=1, end_col_offset=22), FormattedValue(value=Name(id='y', ctx=Load(), lineno=1, col_offset=12, end_lineno=1, end_col_offset=13), conversion=115, format_spec=JoinedStr(values=[Constant(value='3', lineno=1, col_offset=8, end_lineno=1, end_col_offset=22)], lineno=1, col_offset=8, end_lineno=1, end_col_offset=22), lineno=1, col_offset=0, end_lineno=1, end_col_offset=22)], lineno=1, col_offset=0, end_lineno=1, end_col_offset=22), lineno=1, col_offset=0, end_lineno=1, end_col_offset=22)], type_ignores=[]))py");
}

TEST(ParseExpr, FStringTuple311) {
  EXPECT_EQ(
      parse_and_dump(R"py(f'{a, b!r}')py", 11, true),
      R"py(Module(body=[Expr(value=JoinedStr(values=[FormattedValue(value=Tuple(elts=[Name(id='a', ctx=Load(), lineno=1, col_offset=3, end_lineno=1, end_col_offset=4), Name(id='b', ctx=Load(), lineno=1, col_offset=6, end_lineno=1, end_col_offset=7)], ctx=Load(), lineno=1, col_offset=2, end_lineno=1, end_col_offset=8), conversion=114, lineno=1, col_offset=0, end_lineno=1, end_col_offset=11)], lineno=1, col_offset=0, end_lineno=1, end_col_offset=11), lineno=1, col_offset=0, end_lineno=1, end_col_offset=11)], type_ignores=[]))py");
}

TEST(ParseExpr, FStringMultiline311) {
  EXPECT_EQ(
      parse_and_dump(R"py(x = f'''a
{x
 + 1}
  {
 y}''')py",
                     11, true),
      R"py(Module(body=[Assign(targets=[Name(id='x', ctx=Store(), lineno=1, col_offset=0, end_lineno=1, end_col_offset=1)], value=JoinedStr(values=[Constant(value='a\n', lineno=1, col_offset=4, end_lineno=5, end_col_offset=6), FormattedValue(value=BinOp(left=Name(id='x', ctx=Load(), lineno=2, col_offset=1, end_lineno=2, end_col_offset=2), op=Add(), right=Constant(value=1, lineno=3, col_offset=3, end_lineno=3, end_col_offset=4), lineno=2, col_offset=1, end_lineno=3, end_col_offset=4), conversion=-1, lineno=1, col_offset=4, end_lineno=5, end_col_offset=6), Constant(value='\n  ', lineno=1, col_offset=4, end_lineno=5, end_col_offset=6), FormattedValue(value=Name(id='y', ctx=Load(), lineno=5, col_offset=1, end_lineno=5, end_col_offset=2), conversion=-1, lineno=1, col_offset=4, end_lineno=5, end_col_offset=6)], lineno=1, col_offset=4, end_lineno=5, end_col_offset=6), lineno=1, col_offset=0, end_lineno=5, end_col_offset=6)], type_ignores=[]))py");
}

TEST(ParseExpr, FStringSecondTokenSpec311) {
  EXPECT_EQ(
      parse_and_dump(R"py((f'{x}'
  f'{y:>{z}}' 'w'))py",
                     11, true),
      R"py(Module(body=[Expr(value=JoinedStr(values=[FormattedValue(value=Name(id='x', ctx=Load(), lineno=1, col_offset=4, end_lineno=1, end_col_offset=5), conversion=-1, lineno=1, col_offset=1, end_lineno=2, end_col_offset=17), FormattedValue(value=Name(id='y', ctx=Load(), lineno=2, col_offset=5, end_lineno=2, end_col_offset=6), conversion=-1, format_spec=JoinedStr(values=[Constant(value='>', lineno=1, col_offset=1, end_lineno=2, end_col_offset=17), FormattedValue(value=Name(id='z', ctx=Load(), lineno=2, col_offset=9, end_lineno=2, end_col_offset=10), conversion=-1, lineno=1, col_offset=1, end_lineno=2, end_col_offset=17)], lineno=2, col_offset=2, end_lineno=2, end_col_offset=13), lineno=1, col_offset=1, end_lineno=2, end_col_offset=17), Constant(value='w', lineno=1, col_offset=1, end_lineno=2, end_col_offset=17)], lineno=1, col_offset=1, end_lineno=2, end_col_offset=17), lineno=1, col_offset=0, end_lineno=2, end_col_offset=18)], type_ignores=[]))py");
}

TEST(ParseExpr, FStringDoubledBraces311) {
  EXPECT_EQ(
      parse_and_dump(R"py(f'a{{{x}}}b')py", 11, true),
      R"py(Module(body=[Expr(value=JoinedStr(values=[Constant(value='a{', lineno=1, col_offset=0, end_lineno=1, end_col_offset=12), FormattedValue(value=Name(id='x', ctx=Load(), lineno=1, col_offset=6, end_lineno=1, end_col_offset=7), conversion=-1, lineno=1, col_offset=0, end_lineno=1, end_col_offset=12), Constant(value='}b', lineno=1, col_offset=0, end_lineno=1, end_col_offset=12)], lineno=1, col_offset=0, end_lineno=1, end_col_offset=12), lineno=1, col_offset=0, end_lineno=1, end_col_offset=12)], type_ignores=[]))py");
}

TEST(ParseExpr, FStringNested) {
  EXPECT_EQ(
      parse_and_dump(R"py(f'{f"{x:{y}}"}')py", 11, true),
      R"py(Module(body=[Expr(value=JoinedStr(values=[FormattedValue(value=JoinedStr(values=[FormattedValue(value=Name(id='x', ctx=Load(), lineno=1, col_offset=6, end_lineno=1, end_col_offset=7), conversion=-1, format_spec=JoinedStr(values=[FormattedValue(value=Name(id='y', ctx=Load(), lineno=1, col_offset=9, end_lineno=1, end_col_offset=10), conversion=-1, lineno=1, col_offset=3, end_lineno=1, end_col_offset=13)], lineno=1, col_offset=3, end_lineno=1, end_col_offset=13), lineno=1, col_offset=3, end_lineno=1, end_col_offset=13)], lineno=1, col_offset=3, end_lineno=1, end_col_offset=13), conversion=-1, lineno=1, col_offset=0, end_lineno=1, end_col_offset=15)], lineno=1, col_offset=0, end_lineno=1, end_col_offset=15), lineno=1, col_offset=0, end_lineno=1, end_col_offset=15)], type_ignores=[]))py");
}

TEST(ParseExpr, FStringKindU311) {
  EXPECT_EQ(
      parse_and_dump(R"py(u'a' f'{x}' 'b')py", 11, true),
      R"py(Module(body=[Expr(value=JoinedStr(values=[Constant(value='a', kind='u', lineno=1, col_offset=0, end_lineno=1, end_col_offset=15), FormattedValue(value=Name(id='x', ctx=Load(), lineno=1, col_offset=8, end_lineno=1, end_col_offset=9), conversion=-1, lineno=1, col_offset=0, end_lineno=1, end_col_offset=15), Constant(value='b', kind='u', lineno=1, col_offset=0, end_lineno=1, end_col_offset=15)], lineno=1, col_offset=0, end_lineno=1, end_col_offset=15), lineno=1, col_offset=0, end_lineno=1, end_col_offset=15)], type_ignores=[]))py");
}

TEST(ParseExpr, FStringGeneratorExp311) {
  EXPECT_EQ(
      parse_and_dump(R"py(f'{x for x in y}')py", 11, true),
      R"py(Module(body=[Expr(value=JoinedStr(values=[FormattedValue(value=GeneratorExp(elt=Name(id='x', ctx=Load(), lineno=1, col_offset=3, end_lineno=1, end_col_offset=4), generators=[comprehension(target=Name(id='x', ctx=Store(), lineno=1, col_offset=9, end_lineno=1, end_col_offset=10), iter=Name(id='y', ctx=Load(), lineno=1, col_offset=14, end_lineno=1, end_col_offset=15), ifs=[], is_async=0)], lineno=1, col_offset=2, end_lineno=1, end_col_offset=16), conversion=-1, lineno=1, col_offset=0, end_lineno=1, end_col_offset=17)], lineno=1, col_offset=0, end_lineno=1, end_col_offset=17), lineno=1, col_offset=0, end_lineno=1, end_col_offset=17)], type_ignores=[]))py");
}

TEST(ParseExpr, FString312Positions) {
  EXPECT_EQ(
      parse_and_dump(R"py(f"a{x!r:>{w}}b" "c")py", 12, true),
      R"py(Module(body=[Expr(value=JoinedStr(values=[Constant(value='a', lineno=1, col_offset=2, end_lineno=1, end_col_offset=3), FormattedValue(value=Name(id='x', ctx=Load(), lineno=1, col_offset=4, end_lineno=1, end_col_offset=5), conversion=114, format_spec=JoinedStr(values=[Constant(value='>', lineno=1, col_offset=8, end_lineno=1, end_col_offset=9), FormattedValue(value=Name(id='w', ctx=Load(), lineno=1, col_offset=10, end_lineno=1, end_col_offset=11), conversion=-1, lineno=1, col_offset=9, end_lineno=1, end_col_offset=12), Constant(value='', lineno=1, col_offset=12, end_lineno=1, end_col_offset=12)], lineno=1, col_offset=7, end_lineno=1, end_col_offset=12), lineno=1, col_offset=3, end_lineno=1, end_col_offset=13), Constant(value='bc', lineno=1, col_offset=13, end_lineno=1, end_col_offset=19)], lineno=1, col_offset=0, end_lineno=1, end_col_offset=19), lineno=1, col_offset=0, end_lineno=1, end_col_offset=19)], type_ignores=[]))py");
}

TEST(ParseExpr, FStringDebug312) {
  EXPECT_EQ(
      parse_and_dump(R"py(f'{x=}' f'{ y = !s:3}')py", 12, true),
      R"py(Module(body=[Expr(value=JoinedStr(values=[Constant(value='x=', lineno=1, col_offset=3, end_lineno=1, end_col_offset=5), FormattedValue(value=Name(id='x', ctx=Load(), lineno=1, col_offset=3, end_lineno=1, end_col_offset=4), conversion=114, lineno=1, col_offset=2, end_lineno=1, end_col_offset=6), Constant(value=' y = ', lineno=1, col_offset=11, end_lineno=1, end_col_offset=16), FormattedValue(value=Name(id='y', ctx=Load(), lineno=1, col_offset=12, end_lineno=1, end_col_offset=13), conversion=115, format_spec=JoinedStr(values=[Constant(value='3', lineno=1, col_offset=19, end_lineno=1, end_col_offset=20)], lineno=1, col_offset=18, end_lineno=1, end_col_offset=20), lineno=1, col_offset=10, end_lineno=1, end_col_offset=21)], lineno=1, col_offset=0, end_lineno=1, end_col_offset=22), lineno=1, col_offset=0, end_lineno=1, end_col_offset=22)], type_ignores=[]))py");
}

TEST(ParseExpr, FStringTuple312) {
  EXPECT_EQ(
      parse_and_dump(R"py(f'{a, b!r}')py", 12, true),
      R"py(Module(body=[Expr(value=JoinedStr(values=[FormattedValue(value=Tuple(elts=[Name(id='a', ctx=Load(), lineno=1, col_offset=3, end_lineno=1, end_col_offset=4), Name(id='b', ctx=Load(), lineno=1, col_offset=6, end_lineno=1, end_col_offset=7)], ctx=Load(), lineno=1, col_offset=3, end_lineno=1, end_col_offset=7), conversion=114, lineno=1, col_offset=2, end_lineno=1, end_col_offset=10)], lineno=1, col_offset=0, end_lineno=1, end_col_offset=11), lineno=1, col_offset=0, end_lineno=1, end_col_offset=11)], type_ignores=[]))py");
}

TEST(ParseExpr, FStringSecondTokenSpec312) {
  EXPECT_EQ(
      parse_and_dump(R"py((f'{x}'
  f'{y:>{z}}' 'w'))py",
                     12, true),
      R"py(Module(body=[Expr(value=JoinedStr(values=[FormattedValue(value=Name(id='x', ctx=Load(), lineno=1, col_offset=4, end_lineno=1, end_col_offset=5), conversion=-1, lineno=1, col_offset=3, end_lineno=1, end_col_offset=6), FormattedValue(value=Name(id='y', ctx=Load(), lineno=2, col_offset=5, end_lineno=2, end_col_offset=6), conversion=-1, format_spec=JoinedStr(values=[Constant(value='>', lineno=2, col_offset=7, end_lineno=2, end_col_offset=8), FormattedValue(value=Name(id='z', ctx=Load(), lineno=2, col_offset=9, end_lineno=2, end_col_offset=10), conversion=-1, lineno=2, col_offset=8, end_lineno=2, end_col_offset=11), Constant(value='', lineno=2, col_offset=11, end_lineno=2, end_col_offset=11)], lineno=2, col_offset=6, end_lineno=2, end_col_offset=11), lineno=2, col_offset=4, end_lineno=2, end_col_offset=12), Constant(value='w', lineno=2, col_offset=14, end_lineno=2, end_col_offset=17)], lineno=1, col_offset=1, end_lineno=2, end_col_offset=17), lineno=1, col_offset=0, end_lineno=2, end_col_offset=18)], type_ignores=[]))py");
}

TEST(ParseExpr, FStringDoubledBraces312) {
  EXPECT_EQ(
      parse_and_dump(R"py(f'a{{{x}}}b')py", 12, true),
      R"py(Module(body=[Expr(value=JoinedStr(values=[Constant(value='a{', lineno=1, col_offset=2, end_lineno=1, end_col_offset=5), FormattedValue(value=Name(id='x', ctx=Load(), lineno=1, col_offset=6, end_lineno=1, end_col_offset=7), conversion=-1, lineno=1, col_offset=5, end_lineno=1, end_col_offset=8), Constant(value='}b', lineno=1, col_offset=8, end_lineno=1, end_col_offset=11)], lineno=1, col_offset=0, end_lineno=1, end_col_offset=12), lineno=1, col_offset=0, end_lineno=1, end_col_offset=12)], type_ignores=[]))py");
}

TEST(ParseExpr, FStringEmptyParts) {
  EXPECT_EQ(
      parse_and_dump(R"py('' f'' f'{x}' '')py", 12, true),
      R"py(Module(body=[Expr(value=JoinedStr(values=[FormattedValue(value=Name(id='x', ctx=Load(), lineno=1, col_offset=10, end_lineno=1, end_col_offset=11), conversion=-1, lineno=1, col_offset=9, end_lineno=1, end_col_offset=12)], lineno=1, col_offset=0, end_lineno=1, end_col_offset=16), lineno=1, col_offset=0, end_lineno=1, end_col_offset=16)], type_ignores=[]))py");
}

TEST(ParseExpr, FStringKindU312) {
  EXPECT_EQ(
      parse_and_dump(R"py(u'a' f'{x}' 'b')py", 12, true),
      R"py(Module(body=[Expr(value=JoinedStr(values=[Constant(value='a', kind='u', lineno=1, col_offset=0, end_lineno=1, end_col_offset=4), FormattedValue(value=Name(id='x', ctx=Load(), lineno=1, col_offset=8, end_lineno=1, end_col_offset=9), conversion=-1, lineno=1, col_offset=7, end_lineno=1, end_col_offset=10), Constant(value='b', lineno=1, col_offset=12, end_lineno=1, end_col_offset=15)], lineno=1, col_offset=0, end_lineno=1, end_col_offset=15), lineno=1, col_offset=0, end_lineno=1, end_col_offset=15)], type_ignores=[]))py");
}

TEST(ParseExpr, FStringEmptySpec) {
  EXPECT_EQ(
      parse_and_dump(R"py(f'{x:}' f'{y!a}')py", 12, true),
      R"py(Module(body=[Expr(value=JoinedStr(values=[FormattedValue(value=Name(id='x', ctx=Load(), lineno=1, col_offset=3, end_lineno=1, end_col_offset=4), conversion=-1, format_spec=JoinedStr(values=[], lineno=1, col_offset=4, end_lineno=1, end_col_offset=5), lineno=1, col_offset=2, end_lineno=1, end_col_offset=6), FormattedValue(value=Name(id='y', ctx=Load(), lineno=1, col_offset=11, end_lineno=1, end_col_offset=12), conversion=97, lineno=1, col_offset=10, end_lineno=1, end_col_offset=15)], lineno=1, col_offset=0, end_lineno=1, end_col_offset=16), lineno=1, col_offset=0, end_lineno=1, end_col_offset=16)], type_ignores=[]))py");
}

TEST(ParseExprError, AssignToCallHere) {
  EXPECT_EQ(parse_and_dump(R"py(f() = 1)py", 11, false),
            R"py(ERR cannot assign to function call here. Maybe you meant '==' instead of '='?)py");
}

TEST(ParseExprError, AssignToCallInTuple) {
  EXPECT_EQ(parse_and_dump(R"py((a, f()) = 1)py", 11, false),
            R"py(ERR cannot assign to function call)py");
}

TEST(ParseExprError, AssignToLiteral) {
  EXPECT_EQ(parse_and_dump(R"py([a, 1] = 2)py", 11, false), R"py(ERR cannot assign to literal)py");
}

TEST(ParseExprError, DeleteCall) {
  EXPECT_EQ(parse_and_dump(R"py(del f())py", 11, false), R"py(ERR cannot delete function call)py");
}

TEST(ParseExprError, ForTargetCall) {
  EXPECT_EQ(parse_and_dump(R"py(for f() in x: pass)py", 11, false),
            R"py(ERR cannot assign to function call)py");
}

TEST(ParseExprError, ComprehensionTargetCall) {
  EXPECT_EQ(parse_and_dump(R"py([x for a, f() in y])py", 11, false),
            R"py(ERR cannot assign to function call)py");
}

// Every level is a comprehension whose target holds the next one inside brackets; the
// parser once tried each target as a t_primary, then as a star_atom, then as an
// expression, parsing the levels below again each time (seconds at 4 levels). Both
// errors are CPython's. Without the fix these would not finish before ctest's timeout.
std::string repeat(std::string_view piece, int times) {
  std::string out;
  for (int i = 0; i < times; ++i) out += piece;
  return out;
}

TEST(ParseExprError, NestedComprehensionTargetsParseEachLevelOnce) {
  std::string unclosed = "x(" + repeat("{a for k, [[[e(", 35) + "(_)\n";
  EXPECT_EQ(parse_and_dump(unclosed.c_str(), 11, false), "ERR '(' was never closed");
  std::string balanced = "f() in w";
  for (int i = 0; i < 60; ++i) balanced = "e([y for b, " + balanced + "])";
  balanced = "[x for a, " + balanced + " in u]\n";
  EXPECT_EQ(parse_and_dump(balanced.c_str(), 12, false), "ERR cannot assign to function call");
}

TEST(ParseExprError, PositionalAfterKeyword) {
  EXPECT_EQ(parse_and_dump(R"py(f(a=1, b))py", 11, false),
            R"py(ERR positional argument follows keyword argument)py");
}

TEST(ParseExprError, PositionalAfterUnpacking) {
  EXPECT_EQ(parse_and_dump(R"py(f(**a, b))py", 11, false),
            R"py(ERR positional argument follows keyword argument unpacking)py");
}

TEST(ParseExprError, StarAfterDoubleStar) {
  EXPECT_EQ(parse_and_dump(R"py(f(**a, *b))py", 11, false),
            R"py(ERR iterable argument unpacking follows keyword argument unpacking)py");
}

TEST(ParseExprError, UnparenthesizedGenerator) {
  EXPECT_EQ(parse_and_dump(R"py(f(x for x in y, 1))py", 11, false),
            R"py(ERR Generator expression must be parenthesized)py");
}

TEST(ParseExprError, KeywordExpression) {
  EXPECT_EQ(parse_and_dump(R"py(f(a.b=1))py", 11, false),
            R"py(ERR expression cannot contain assignment, perhaps you meant "=="?)py");
}

TEST(ParseExprError, KeywordTrue) {
  EXPECT_EQ(parse_and_dump(R"py(f(True=1))py", 11, false), R"py(ERR cannot assign to True)py");
}

TEST(ParseExprError, ComprehensionTargetParens) {
  EXPECT_EQ(parse_and_dump(R"py([a, b for a in c])py", 11, false),
            R"py(ERR did you forget parentheses around the comprehension target?)py");
}

TEST(ParseExprError, StarredComprehension) {
  EXPECT_EQ(parse_and_dump(R"py([*a for a in b])py", 11, false),
            R"py(ERR iterable unpacking cannot be used in comprehension)py");
}

TEST(ParseExprError, StarredGroup) {
  EXPECT_EQ(parse_and_dump(R"py((*a))py", 11, false),
            R"py(ERR cannot use starred expression here)py");
}

TEST(ParseExprError, DoubleStarredGroup) {
  EXPECT_EQ(parse_and_dump(R"py((**a))py", 11, false),
            R"py(ERR cannot use double starred expression here)py");
}

TEST(ParseExprError, DictUnpackingComprehension) {
  EXPECT_EQ(parse_and_dump(R"py({**a for a in b})py", 11, false),
            R"py(ERR dict unpacking cannot be used in dict comprehension)py");
}

TEST(ParseExprError, StarredDictValue) {
  EXPECT_EQ(parse_and_dump(R"py({a: *b})py", 11, false),
            R"py(ERR cannot use a starred expression in a dictionary value)py");
}

TEST(ParseExprError, MissingDictValue) {
  EXPECT_EQ(parse_and_dump(R"py({a:})py", 11, false),
            R"py(ERR expression expected after dictionary key and ':')py");
}

TEST(ParseExprError, IfWithoutElse) {
  EXPECT_EQ(parse_and_dump(R"py(x = a if b)py", 11, false),
            R"py(ERR expected 'else' after 'if' expression)py");
}

TEST(ParseExprError, WalrusOnAttribute) {
  EXPECT_EQ(parse_and_dump(R"py((a.b := 1))py", 11, false),
            R"py(ERR cannot use assignment expressions with attribute)py");
}

TEST(ParseExprError, MixBytes) {
  EXPECT_EQ(parse_and_dump(R"py(b'a' 'b')py", 11, false),
            R"py(ERR cannot mix bytes and nonbytes literals)py");
}

TEST(ParseExprError, FStringEmpty311) {
  EXPECT_EQ(parse_and_dump(R"py(f'{}')py", 11, false),
            R"py(ERR f-string: empty expression not allowed)py");
}

TEST(ParseExprError, FStringConversion311) {
  EXPECT_EQ(parse_and_dump(R"py(f'{x!z}')py", 11, false),
            R"py(ERR f-string: invalid conversion character: expected 's', 'r', or 'a')py");
}

TEST(ParseExprError, AssignInCondition) {
  EXPECT_EQ(parse_and_dump(R"py(if x = 1: pass)py", 11, false),
            R"py(ERR invalid syntax. Maybe you meant '==' or ':=' instead of '='?)py");
}

TEST(ParseExprError, FStringEmpty312) {
  EXPECT_EQ(parse_and_dump(R"py(f'{}')py", 12, false),
            R"py(ERR f-string: valid expression required before '}')py");
}

TEST(ParseExprError, FStringConversion312) {
  EXPECT_EQ(parse_and_dump(R"py(f'{x!z}')py", 12, false),
            R"py(ERR f-string: invalid conversion character 'z': expected 's', 'r', or 'a')py");
}

}  // namespace
}  // namespace graphmend

// ast.dump output and constant repr, checked against text produced by CPython 3.11/3.12.
// The trees are built by hand; each test names the source ast.parse was given.
#include "ast/dump.h"

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <initializer_list>
#include <string>

#include "ast/ast.h"

namespace graphmend {
namespace {

using ast::ConstantValue;
using Type = ConstantValue::Type;

struct FloatReprCase {
  uint64_t bits;
  const char* float_repr;
  const char* complex_repr;
};

constexpr FloatReprCase kFloatReprCases[] = {
#include "data/float_repr_table.inc"
};

std::string repr_of(Type type, std::string_view text, double number = 0) {
  ConstantValue value;
  value.type = type;
  value.text = text;
  value.number = number;
  return constant_repr(value);
}

TEST(ConstantRepr, FloatsMatchPythonRepr) {
  for (const FloatReprCase& c : kFloatReprCases) {
    const double x = std::bit_cast<double>(c.bits);
    EXPECT_EQ(repr_of(Type::Float, "", x), c.float_repr) << "bits " << std::hex << c.bits;
    EXPECT_EQ(repr_of(Type::Complex, "", x), c.complex_repr) << "bits " << std::hex << c.bits;
  }
}

TEST(ConstantRepr, Ints) {
  EXPECT_EQ(repr_of(Type::Int, "0"), "0");
  EXPECT_EQ(repr_of(Type::Int, "00"), "0");
  EXPECT_EQ(repr_of(Type::Int, "123"), "123");
  EXPECT_EQ(repr_of(Type::Int, "0x1F"), "31");
  EXPECT_EQ(repr_of(Type::Int, "0XfF"), "255");
  EXPECT_EQ(repr_of(Type::Int, "0o17"), "15");
  EXPECT_EQ(repr_of(Type::Int, "0b101"), "5");
  EXPECT_EQ(repr_of(Type::Int, "0x0"), "0");
  EXPECT_EQ(repr_of(Type::Int, "18446744073709551616"), "18446744073709551616");
  // int("f" * 40, 16) and 10**30 as written in hex
  EXPECT_EQ(repr_of(Type::Int, "0xffffffffffffffffffffffffffffffffffffffff"),
            "1461501637330902918203684832716283019655932542975");
  EXPECT_EQ(repr_of(Type::Int, "0xc9f2c9cd04674edea40000000"), "1000000000000000000000000000000");
  EXPECT_EQ(repr_of(Type::Int, "0b1" + std::string(64, '0')), "18446744073709551616");
  EXPECT_EQ(repr_of(Type::Int, "0o1" + std::string(30, '0')), "1237940039285380274899124224");
}

TEST(ConstantRepr, Singletons) {
  EXPECT_EQ(repr_of(Type::None, ""), "None");
  EXPECT_EQ(repr_of(Type::True, ""), "True");
  EXPECT_EQ(repr_of(Type::False, ""), "False");
  EXPECT_EQ(repr_of(Type::Ellipsis, ""), "Ellipsis");
}

TEST(ConstantRepr, StrQuotesAndEscapes) {
  EXPECT_EQ(repr_of(Type::Str, ""), "''");
  EXPECT_EQ(repr_of(Type::Str, "it's"), "\"it's\"");
  EXPECT_EQ(repr_of(Type::Str, "both ' and \""), "'both \\' and \"'");
  EXPECT_EQ(repr_of(Type::Str, "say \"hi\""), "'say \"hi\"'");
  EXPECT_EQ(repr_of(Type::Str, "\t\n\r\\"), "'\\t\\n\\r\\\\'");
}

TEST(ConstantRepr, StrNonPrintable) {
  // repr('\x00\x1f\x7f\x80\x85\xa0\xad\xe9')
  EXPECT_EQ(repr_of(Type::Str,
                    std::string_view("\x00\x1f\x7f\xc2\x80\xc2\x85\xc2\xa0\xc2\xad\xc3\xa9", 13)),
            "'\\x00\\x1f\\x7f\\x80\\x85\\xa0\\xad\xc3\xa9'");
  // repr('\u200b\ue000\U0010ffff\ud800\U0001f600\u01ff'): the surrogate comes from an escape
  EXPECT_EQ(repr_of(Type::Str,
                    "\xe2\x80\x8b\xee\x80\x80\xf4\x8f\xbf\xbf\xed\xa0\x80\xf0\x9f\x98\x80\xc7\xbf"),
            "'\\u200b\\ue000\\U0010ffff\\ud800\xf0\x9f\x98\x80\xc7\xbf'");
  // repr('\u2028\u3000\U000e0001')
  EXPECT_EQ(repr_of(Type::Str, "\xe2\x80\xa8\xe3\x80\x80\xf3\xa0\x80\x81"),
            "'\\u2028\\u3000\\U000e0001'");
}

TEST(ConstantRepr, Bytes) {
  EXPECT_EQ(repr_of(Type::Bytes, ""), "b''");
  EXPECT_EQ(repr_of(Type::Bytes, "it's"), "b\"it's\"");
  EXPECT_EQ(repr_of(Type::Bytes, "both ' and \""), "b'both \\' and \"'");
  EXPECT_EQ(repr_of(Type::Bytes, std::string_view("\x00\t\n\r\\\x7f\x80\xff abc", 12)),
            "b'\\x00\\t\\n\\r\\\\\\x7f\\x80\\xff abc'");
}

// Builds trees by hand; spans are byte offsets into the source named in each test.
class TreeBuilder {
 public:
  template <class T>
  T* node(uint32_t begin, uint32_t end) {
    return ast::make_node<T>(arena_, {begin, end});
  }

  template <class T>
  ast::Seq<T> seq(std::initializer_list<T> items) {
    return ast::make_seq<T>(arena_, items);
  }

  ast::Name* name(std::string_view id, ast::ExprContext ctx, uint32_t begin, uint32_t end) {
    auto* n = node<ast::Name>(begin, end);
    n->id = id;
    n->ctx = ctx;
    return n;
  }

  ast::Constant* constant(Type type, std::string_view text, uint32_t begin, uint32_t end) {
    auto* c = node<ast::Constant>(begin, end);
    c->value.type = type;
    c->value.text = text;
    return c;
  }

  ast::Expr* expr_stmt(ast::expr* value, uint32_t begin, uint32_t end) {
    auto* s = node<ast::Expr>(begin, end);
    s->value = value;
    return s;
  }

  ast::Module* module(std::initializer_list<ast::stmt*> body, uint32_t end) {
    auto* m = node<ast::Module>(0, end);
    m->body = seq<ast::stmt*>(body);
    return m;
  }

 private:
  Arena arena_;
};

constexpr DumpOptions k311{false, {3, 11}};
constexpr DumpOptions k311Attrs{true, {3, 11}};
constexpr DumpOptions k312{false, {3, 12}};
constexpr DumpOptions k312Attrs{true, {3, 12}};

TEST(DumpAst, Assign) {
  // x = 1
  SourceText source("x = 1");
  TreeBuilder b;
  auto* assign = b.node<ast::Assign>(0, 5);
  assign->targets = b.seq<ast::expr*>({b.name("x", ast::ExprContext::Store, 0, 1)});
  assign->value = b.constant(Type::Int, "1", 4, 5);
  auto* module = b.module({assign}, 5);
  EXPECT_EQ(dump_ast(module, source, k311),
            "Module(body=[Assign(targets=[Name(id='x', ctx=Store())], value=Constant(value=1))], "
            "type_ignores=[])");
  EXPECT_EQ(dump_ast(module, source, k311Attrs),
            "Module(body=[Assign(targets=[Name(id='x', ctx=Store(), lineno=1, col_offset=0, "
            "end_lineno=1, end_col_offset=1)], value=Constant(value=1, lineno=1, col_offset=4, "
            "end_lineno=1, end_col_offset=5), lineno=1, col_offset=0, end_lineno=1, "
            "end_col_offset=5)], type_ignores=[])");
}

TEST(DumpAst, OptionalIdentifiersAreOmitted) {
  // from . import x as y
  SourceText source("from . import x as y");
  TreeBuilder b;
  auto* alias = b.node<ast::alias>(14, 20);
  alias->name = "x";
  alias->asname = "y";
  auto* import = b.node<ast::ImportFrom>(0, 20);
  import->names = b.seq<ast::alias*>({alias});
  import->level = 1;
  auto* module = b.module({import}, 20);
  EXPECT_EQ(dump_ast(module, source, k311),
            "Module(body=[ImportFrom(names=[alias(name='x', asname='y')], level=1)], "
            "type_ignores=[])");
  EXPECT_EQ(dump_ast(module, source, k311Attrs),
            "Module(body=[ImportFrom(names=[alias(name='x', asname='y', lineno=1, col_offset=14, "
            "end_lineno=1, end_col_offset=20)], level=1, lineno=1, col_offset=0, end_lineno=1, "
            "end_col_offset=20)], type_ignores=[])");
}

TEST(DumpAst, FunctionDefTypeParamsOnlyIn312) {
  // def f(a, *, b=1, **k) -> int: pass
  SourceText source("def f(a, *, b=1, **k) -> int: pass");
  TreeBuilder b;
  auto make_arg = [&](std::string_view name, uint32_t begin) {
    auto* a = b.node<ast::arg>(begin, begin + 1);
    a->arg = name;
    return a;
  };
  auto* args = b.node<ast::arguments>(6, 20);
  args->args = b.seq<ast::arg*>({make_arg("a", 6)});
  args->kwonlyargs = b.seq<ast::arg*>({make_arg("b", 12)});
  args->kw_defaults = b.seq<ast::expr*>({b.constant(Type::Int, "1", 14, 15)});
  args->kwarg = make_arg("k", 19);
  auto* def = b.node<ast::FunctionDef>(0, 34);
  def->name = "f";
  def->args = args;
  def->body = b.seq<ast::stmt*>({b.node<ast::Pass>(30, 34)});
  def->returns = b.name("int", ast::ExprContext::Load, 25, 28);
  auto* module = b.module({def}, 34);
  EXPECT_EQ(dump_ast(module, source, k311),
            "Module(body=[FunctionDef(name='f', args=arguments(posonlyargs=[], "
            "args=[arg(arg='a')], kwonlyargs=[arg(arg='b')], kw_defaults=[Constant(value=1)], "
            "kwarg=arg(arg='k'), defaults=[]), body=[Pass()], decorator_list=[], "
            "returns=Name(id='int', ctx=Load()))], type_ignores=[])");
  EXPECT_EQ(dump_ast(module, source, k312),
            "Module(body=[FunctionDef(name='f', args=arguments(posonlyargs=[], "
            "args=[arg(arg='a')], kwonlyargs=[arg(arg='b')], kw_defaults=[Constant(value=1)], "
            "kwarg=arg(arg='k'), defaults=[]), body=[Pass()], decorator_list=[], "
            "returns=Name(id='int', ctx=Load()), type_params=[])], type_ignores=[])");
  EXPECT_EQ(dump_ast(module, source, k312Attrs),
            "Module(body=[FunctionDef(name='f', args=arguments(posonlyargs=[], args=[arg(arg='a', "
            "lineno=1, col_offset=6, end_lineno=1, end_col_offset=7)], kwonlyargs=[arg(arg='b', "
            "lineno=1, col_offset=12, end_lineno=1, end_col_offset=13)], "
            "kw_defaults=[Constant(value=1, lineno=1, col_offset=14, end_lineno=1, "
            "end_col_offset=15)], kwarg=arg(arg='k', lineno=1, col_offset=19, end_lineno=1, "
            "end_col_offset=20), defaults=[]), body=[Pass(lineno=1, col_offset=30, end_lineno=1, "
            "end_col_offset=34)], decorator_list=[], returns=Name(id='int', ctx=Load(), lineno=1, "
            "col_offset=25, end_lineno=1, end_col_offset=28), type_params=[], lineno=1, "
            "col_offset=0, end_lineno=1, end_col_offset=34)], type_ignores=[])");
}

TEST(DumpAst, NoneItemsInOptionalLists) {
  // d = {**a, 1: 2}
  SourceText source("d = {**a, 1: 2}");
  TreeBuilder b;
  auto* dict = b.node<ast::Dict>(4, 15);
  dict->keys = b.seq<ast::expr*>({nullptr, b.constant(Type::Int, "1", 10, 11)});
  dict->values = b.seq<ast::expr*>(
      {b.name("a", ast::ExprContext::Load, 7, 8), b.constant(Type::Int, "2", 13, 14)});
  auto* assign = b.node<ast::Assign>(0, 15);
  assign->targets = b.seq<ast::expr*>({b.name("d", ast::ExprContext::Store, 0, 1)});
  assign->value = dict;
  EXPECT_EQ(dump_ast(b.module({assign}, 15), source, k311),
            "Module(body=[Assign(targets=[Name(id='d', ctx=Store())], value=Dict(keys=[None, "
            "Constant(value=1)], values=[Name(id='a', ctx=Load()), Constant(value=2)]))], "
            "type_ignores=[])");
}

TEST(DumpAst, CompareOps) {
  // a < b > c
  SourceText source("a < b > c");
  TreeBuilder b;
  auto* compare = b.node<ast::Compare>(0, 9);
  compare->left = b.name("a", ast::ExprContext::Load, 0, 1);
  compare->ops = b.seq<ast::CmpOpKind>({ast::CmpOpKind::Lt, ast::CmpOpKind::Gt});
  compare->comparators = b.seq<ast::expr*>(
      {b.name("b", ast::ExprContext::Load, 4, 5), b.name("c", ast::ExprContext::Load, 8, 9)});
  EXPECT_EQ(dump_ast(b.module({b.expr_stmt(compare, 0, 9)}, 9), source, k311),
            "Module(body=[Expr(value=Compare(left=Name(id='a', ctx=Load()), ops=[Lt(), Gt()], "
            "comparators=[Name(id='b', ctx=Load()), Name(id='c', ctx=Load())]))], "
            "type_ignores=[])");
}

TEST(DumpAst, EmptyNodeWithPositionsOnSecondLine) {
  // match x:\n    case _: pass
  SourceText source("match x:\n    case _: pass");
  TreeBuilder b;
  auto* match_case = b.node<ast::match_case>(13, 25);
  match_case->pattern = b.node<ast::MatchAs>(18, 19);
  match_case->body = b.seq<ast::stmt*>({b.node<ast::Pass>(21, 25)});
  auto* match = b.node<ast::Match>(0, 25);
  match->subject = b.name("x", ast::ExprContext::Load, 6, 7);
  match->cases = b.seq<ast::match_case*>({match_case});
  auto* module = b.module({match}, 25);
  EXPECT_EQ(dump_ast(module, source, k311),
            "Module(body=[Match(subject=Name(id='x', ctx=Load()), cases=[match_case("
            "pattern=MatchAs(), body=[Pass()])])], type_ignores=[])");
  EXPECT_EQ(dump_ast(module, source, k311Attrs),
            "Module(body=[Match(subject=Name(id='x', ctx=Load(), lineno=1, col_offset=6, "
            "end_lineno=1, end_col_offset=7), cases=[match_case(pattern=MatchAs(lineno=2, "
            "col_offset=9, end_lineno=2, end_col_offset=10), body=[Pass(lineno=2, col_offset=12, "
            "end_lineno=2, end_col_offset=16)])], lineno=1, col_offset=0, end_lineno=2, "
            "end_col_offset=16)], type_ignores=[])");
}

TEST(DumpAst, ConstantKindAndKeywordWithoutArg) {
  // u'x'
  SourceText source1("u'x'");
  TreeBuilder b;
  auto* str = b.constant(Type::Str, "x", 0, 4);
  str->kind = "u";
  EXPECT_EQ(dump_ast(b.module({b.expr_stmt(str, 0, 4)}, 4), source1, k311Attrs),
            "Module(body=[Expr(value=Constant(value='x', kind='u', lineno=1, col_offset=0, "
            "end_lineno=1, end_col_offset=4), lineno=1, col_offset=0, end_lineno=1, "
            "end_col_offset=4)], type_ignores=[])");

  // f(*a, k=1, **kw)
  SourceText source2("f(*a, k=1, **kw)");
  auto* starred = b.node<ast::Starred>(2, 4);
  starred->value = b.name("a", ast::ExprContext::Load, 3, 4);
  starred->ctx = ast::ExprContext::Load;
  auto* k = b.node<ast::keyword>(6, 9);
  k->arg = "k";
  k->value = b.constant(Type::Int, "1", 8, 9);
  auto* kw = b.node<ast::keyword>(11, 15);
  kw->value = b.name("kw", ast::ExprContext::Load, 13, 15);
  auto* call = b.node<ast::Call>(0, 16);
  call->func = b.name("f", ast::ExprContext::Load, 0, 1);
  call->args = b.seq<ast::expr*>({starred});
  call->keywords = b.seq<ast::keyword*>({k, kw});
  EXPECT_EQ(dump_ast(b.module({b.expr_stmt(call, 0, 16)}, 16), source2, k311),
            "Module(body=[Expr(value=Call(func=Name(id='f', ctx=Load()), "
            "args=[Starred(value=Name(id='a', ctx=Load()), ctx=Load())], "
            "keywords=[keyword(arg='k', value=Constant(value=1)), keyword(value=Name(id='kw', "
            "ctx=Load()))]))], type_ignores=[])");
}

TEST(DumpAst, NonAsciiIdentifiersAndByteColumns) {
  // é = 'ü'
  SourceText source("\xc3\xa9 = '\xc3\xbc'");
  TreeBuilder b;
  auto* assign = b.node<ast::Assign>(0, 9);
  assign->targets = b.seq<ast::expr*>({b.name("\xc3\xa9", ast::ExprContext::Store, 0, 2)});
  assign->value = b.constant(Type::Str, "\xc3\xbc", 5, 9);
  EXPECT_EQ(dump_ast(b.module({assign}, 9), source, k311Attrs),
            "Module(body=[Assign(targets=[Name(id='\xc3\xa9', ctx=Store(), lineno=1, "
            "col_offset=0, end_lineno=1, end_col_offset=2)], value=Constant(value='\xc3\xbc', "
            "lineno=1, col_offset=5, end_lineno=1, end_col_offset=9), lineno=1, col_offset=0, "
            "end_lineno=1, end_col_offset=9)], type_ignores=[])");
}

TEST(DumpAst, NullRootAndDeepTreesDoNotCrash) {
  SourceText source("");
  EXPECT_EQ(dump_ast(nullptr, source, k311), "None");
  TreeBuilder b;
  ast::expr* e = b.name("x", ast::ExprContext::Load, 0, 0);
  for (int i = 0; i < 100000; ++i) {
    auto* op = b.node<ast::UnaryOp>(0, 0);
    op->op = ast::UnaryOpKind::USub;
    op->operand = e;
    e = op;
  }
  EXPECT_FALSE(dump_ast(e, source, k311).empty());
}

}  // namespace
}  // namespace graphmend

// Statement, parameter and pattern parsing against CPython's ast.dump.
//
// Every expected string below is what python3.11 (or python3.12 where marked 3.12)
// prints for the same source: ast.dump(ast.parse(src), include_attributes=True), or for
// rejected sources "ERROR <code> <line>:<offset> <message>" from the SyntaxError
// (IndentationError -> GM003, otherwise GM001; offset is CPython's 1-based column).
#include <gtest/gtest.h>

#include <string>

#include "ast/dump.h"
#include "parse/parser.h"

namespace graphmend {
namespace {

struct Case {
  const char* source;
  int minor;
  const char* expected;
};

std::string parse_and_dump(const char* text, int minor) {
  SourceText source(text);
  Arena arena;
  ParseOptions options;
  options.version.minor = minor;
  ParseResult result = parse_module(source, arena, options);
  if (result.module == nullptr) {
    if (!result.error) return "ERROR (none)";
    LineCol where = source.line_col(result.error->span.begin);
    return "ERROR " + result.error->code + " " + std::to_string(where.line) + ":" +
           std::to_string(where.column + 1) + " " + result.error->message;
  }
  DumpOptions dump;
  dump.include_attributes = true;
  dump.version.minor = minor;
  return dump_ast(result.module, source, dump);
}

const Case kValidCases[] = {
    {"pass\n", 11,
     "Module(body=[Pass(lineno=1, col_offset=0, end_lineno=1, end_col_offset=4)], "
     "type_ignores=[])"},
    {"x = 1\n", 11,
     "Module(body=[Assign(targets=[Name(id='x', ctx=Store(), lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=1)], value=Constant(value=1, lineno=1, col_offset=4, end_lineno=1, "
     "end_col_offset=5), lineno=1, col_offset=0, end_lineno=1, end_col_offset=5)], "
     "type_ignores=[])"},
    {"a = b = c\n", 11,
     "Module(body=[Assign(targets=[Name(id='a', ctx=Store(), lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=1), Name(id='b', ctx=Store(), lineno=1, col_offset=4, end_lineno=1, "
     "end_col_offset=5)], value=Name(id='c', ctx=Load(), lineno=1, col_offset=8, end_lineno=1, "
     "end_col_offset=9), lineno=1, col_offset=0, end_lineno=1, end_col_offset=9)], "
     "type_ignores=[])"},
    {"a, b = c\n", 11,
     "Module(body=[Assign(targets=[Tuple(elts=[Name(id='a', ctx=Store(), lineno=1, col_offset=0, "
     "end_lineno=1, end_col_offset=1), Name(id='b', ctx=Store(), lineno=1, col_offset=3, "
     "end_lineno=1, end_col_offset=4)], ctx=Store(), lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=4)], value=Name(id='c', ctx=Load(), lineno=1, col_offset=7, end_lineno=1, "
     "end_col_offset=8), lineno=1, col_offset=0, end_lineno=1, end_col_offset=8)], "
     "type_ignores=[])"},
    {"(a, b) = [c, d] = e\n", 11,
     "Module(body=[Assign(targets=[Tuple(elts=[Name(id='a', ctx=Store(), lineno=1, col_offset=1, "
     "end_lineno=1, end_col_offset=2), Name(id='b', ctx=Store(), lineno=1, col_offset=4, "
     "end_lineno=1, end_col_offset=5)], ctx=Store(), lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=6), List(elts=[Name(id='c', ctx=Store(), lineno=1, col_offset=10, "
     "end_lineno=1, end_col_offset=11), Name(id='d', ctx=Store(), lineno=1, col_offset=13, "
     "end_lineno=1, end_col_offset=14)], ctx=Store(), lineno=1, col_offset=9, end_lineno=1, "
     "end_col_offset=15)], value=Name(id='e', ctx=Load(), lineno=1, col_offset=18, end_lineno=1, "
     "end_col_offset=19), lineno=1, col_offset=0, end_lineno=1, end_col_offset=19)], "
     "type_ignores=[])"},
    {"[a, *b] = c\n", 11,
     "Module(body=[Assign(targets=[List(elts=[Name(id='a', ctx=Store(), lineno=1, col_offset=1, "
     "end_lineno=1, end_col_offset=2), Starred(value=Name(id='b', ctx=Store(), lineno=1, "
     "col_offset=5, end_lineno=1, end_col_offset=6), ctx=Store(), lineno=1, col_offset=4, "
     "end_lineno=1, end_col_offset=6)], ctx=Store(), lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=7)], value=Name(id='c', ctx=Load(), lineno=1, col_offset=10, end_lineno=1, "
     "end_col_offset=11), lineno=1, col_offset=0, end_lineno=1, end_col_offset=11)], "
     "type_ignores=[])"},
    {"*a, b = c\n", 11,
     "Module(body=[Assign(targets=[Tuple(elts=[Starred(value=Name(id='a', ctx=Store(), lineno=1, "
     "col_offset=1, end_lineno=1, end_col_offset=2), ctx=Store(), lineno=1, col_offset=0, "
     "end_lineno=1, end_col_offset=2), Name(id='b', ctx=Store(), lineno=1, col_offset=4, "
     "end_lineno=1, end_col_offset=5)], ctx=Store(), lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=5)], value=Name(id='c', ctx=Load(), lineno=1, col_offset=8, end_lineno=1, "
     "end_col_offset=9), lineno=1, col_offset=0, end_lineno=1, end_col_offset=9)], "
     "type_ignores=[])"},
    {"x = yield\n", 11,
     "Module(body=[Assign(targets=[Name(id='x', ctx=Store(), lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=1)], value=Yield(lineno=1, col_offset=4, end_lineno=1, end_col_offset=9), "
     "lineno=1, col_offset=0, end_lineno=1, end_col_offset=9)], type_ignores=[])"},
    {"x = yield from y\n", 11,
     "Module(body=[Assign(targets=[Name(id='x', ctx=Store(), lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=1)], value=YieldFrom(value=Name(id='y', ctx=Load(), lineno=1, col_offset=15, "
     "end_lineno=1, end_col_offset=16), lineno=1, col_offset=4, end_lineno=1, end_col_offset=16), "
     "lineno=1, col_offset=0, end_lineno=1, end_col_offset=16)], type_ignores=[])"},
    {"a.b = c[d] = 1\n", 11,
     "Module(body=[Assign(targets=[Attribute(value=Name(id='a', ctx=Load(), lineno=1, "
     "col_offset=0, end_lineno=1, end_col_offset=1), attr='b', ctx=Store(), lineno=1, "
     "col_offset=0, end_lineno=1, end_col_offset=3), Subscript(value=Name(id='c', ctx=Load(), "
     "lineno=1, col_offset=6, end_lineno=1, end_col_offset=7), slice=Name(id='d', ctx=Load(), "
     "lineno=1, col_offset=8, end_lineno=1, end_col_offset=9), ctx=Store(), lineno=1, "
     "col_offset=6, end_lineno=1, end_col_offset=10)], value=Constant(value=1, lineno=1, "
     "col_offset=13, end_lineno=1, end_col_offset=14), lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=14)], type_ignores=[])"},
    {"x += 1\n", 11,
     "Module(body=[AugAssign(target=Name(id='x', ctx=Store(), lineno=1, col_offset=0, "
     "end_lineno=1, end_col_offset=1), op=Add(), value=Constant(value=1, lineno=1, col_offset=5, "
     "end_lineno=1, end_col_offset=6), lineno=1, col_offset=0, end_lineno=1, end_col_offset=6)], "
     "type_ignores=[])"},
    {"x.y //= 2\n", 11,
     "Module(body=[AugAssign(target=Attribute(value=Name(id='x', ctx=Load(), lineno=1, "
     "col_offset=0, end_lineno=1, end_col_offset=1), attr='y', ctx=Store(), lineno=1, "
     "col_offset=0, end_lineno=1, end_col_offset=3), op=FloorDiv(), value=Constant(value=2, "
     "lineno=1, col_offset=8, end_lineno=1, end_col_offset=9), lineno=1, col_offset=0, "
     "end_lineno=1, end_col_offset=9)], type_ignores=[])"},
    {"x[0] **= 3\n", 11,
     "Module(body=[AugAssign(target=Subscript(value=Name(id='x', ctx=Load(), lineno=1, "
     "col_offset=0, end_lineno=1, end_col_offset=1), slice=Constant(value=0, lineno=1, "
     "col_offset=2, end_lineno=1, end_col_offset=3), ctx=Store(), lineno=1, col_offset=0, "
     "end_lineno=1, end_col_offset=4), op=Pow(), value=Constant(value=3, lineno=1, col_offset=9, "
     "end_lineno=1, end_col_offset=10), lineno=1, col_offset=0, end_lineno=1, end_col_offset=10)], "
     "type_ignores=[])"},
    {"(a) += 1\n", 11,
     "Module(body=[AugAssign(target=Name(id='a', ctx=Store(), lineno=1, col_offset=1, "
     "end_lineno=1, end_col_offset=2), op=Add(), value=Constant(value=1, lineno=1, col_offset=7, "
     "end_lineno=1, end_col_offset=8), lineno=1, col_offset=0, end_lineno=1, end_col_offset=8)], "
     "type_ignores=[])"},
    {"x @= m\n", 11,
     "Module(body=[AugAssign(target=Name(id='x', ctx=Store(), lineno=1, col_offset=0, "
     "end_lineno=1, end_col_offset=1), op=MatMult(), value=Name(id='m', ctx=Load(), lineno=1, "
     "col_offset=5, end_lineno=1, end_col_offset=6), lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=6)], type_ignores=[])"},
    {"x = *a, *b\n", 11,
     "Module(body=[Assign(targets=[Name(id='x', ctx=Store(), lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=1)], value=Tuple(elts=[Starred(value=Name(id='a', ctx=Load(), lineno=1, "
     "col_offset=5, end_lineno=1, end_col_offset=6), ctx=Load(), lineno=1, col_offset=4, "
     "end_lineno=1, end_col_offset=6), Starred(value=Name(id='b', ctx=Load(), lineno=1, "
     "col_offset=9, end_lineno=1, end_col_offset=10), ctx=Load(), lineno=1, col_offset=8, "
     "end_lineno=1, end_col_offset=10)], ctx=Load(), lineno=1, col_offset=4, end_lineno=1, "
     "end_col_offset=10), lineno=1, col_offset=0, end_lineno=1, end_col_offset=10)], "
     "type_ignores=[])"},
    {"x: int\n", 11,
     "Module(body=[AnnAssign(target=Name(id='x', ctx=Store(), lineno=1, col_offset=0, "
     "end_lineno=1, end_col_offset=1), annotation=Name(id='int', ctx=Load(), lineno=1, "
     "col_offset=3, end_lineno=1, end_col_offset=6), simple=1, lineno=1, col_offset=0, "
     "end_lineno=1, end_col_offset=6)], type_ignores=[])"},
    {"x: int = 1\n", 11,
     "Module(body=[AnnAssign(target=Name(id='x', ctx=Store(), lineno=1, col_offset=0, "
     "end_lineno=1, end_col_offset=1), annotation=Name(id='int', ctx=Load(), lineno=1, "
     "col_offset=3, end_lineno=1, end_col_offset=6), value=Constant(value=1, lineno=1, "
     "col_offset=9, end_lineno=1, end_col_offset=10), simple=1, lineno=1, col_offset=0, "
     "end_lineno=1, end_col_offset=10)], type_ignores=[])"},
    {"(x): int = 1\n", 11,
     "Module(body=[AnnAssign(target=Name(id='x', ctx=Store(), lineno=1, col_offset=1, "
     "end_lineno=1, end_col_offset=2), annotation=Name(id='int', ctx=Load(), lineno=1, "
     "col_offset=5, end_lineno=1, end_col_offset=8), value=Constant(value=1, lineno=1, "
     "col_offset=11, end_lineno=1, end_col_offset=12), simple=0, lineno=1, col_offset=0, "
     "end_lineno=1, end_col_offset=12)], type_ignores=[])"},
    {"a.b: int\n", 11,
     "Module(body=[AnnAssign(target=Attribute(value=Name(id='a', ctx=Load(), lineno=1, "
     "col_offset=0, end_lineno=1, end_col_offset=1), attr='b', ctx=Store(), lineno=1, "
     "col_offset=0, end_lineno=1, end_col_offset=3), annotation=Name(id='int', ctx=Load(), "
     "lineno=1, col_offset=5, end_lineno=1, end_col_offset=8), simple=0, lineno=1, col_offset=0, "
     "end_lineno=1, end_col_offset=8)], type_ignores=[])"},
    {"a[0]: int = yield\n", 11,
     "Module(body=[AnnAssign(target=Subscript(value=Name(id='a', ctx=Load(), lineno=1, "
     "col_offset=0, end_lineno=1, end_col_offset=1), slice=Constant(value=0, lineno=1, "
     "col_offset=2, end_lineno=1, end_col_offset=3), ctx=Store(), lineno=1, col_offset=0, "
     "end_lineno=1, end_col_offset=4), annotation=Name(id='int', ctx=Load(), lineno=1, "
     "col_offset=6, end_lineno=1, end_col_offset=9), value=Yield(lineno=1, col_offset=12, "
     "end_lineno=1, end_col_offset=17), simple=0, lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=17)], type_ignores=[])"},
    {"x: 'str' = y, z\n", 11,
     "Module(body=[AnnAssign(target=Name(id='x', ctx=Store(), lineno=1, col_offset=0, "
     "end_lineno=1, end_col_offset=1), annotation=Constant(value='str', lineno=1, col_offset=3, "
     "end_lineno=1, end_col_offset=8), value=Tuple(elts=[Name(id='y', ctx=Load(), lineno=1, "
     "col_offset=11, end_lineno=1, end_col_offset=12), Name(id='z', ctx=Load(), lineno=1, "
     "col_offset=14, end_lineno=1, end_col_offset=15)], ctx=Load(), lineno=1, col_offset=11, "
     "end_lineno=1, end_col_offset=15), simple=1, lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=15)], type_ignores=[])"},
    {"f(x)\n", 11,
     "Module(body=[Expr(value=Call(func=Name(id='f', ctx=Load(), lineno=1, col_offset=0, "
     "end_lineno=1, end_col_offset=1), args=[Name(id='x', ctx=Load(), lineno=1, col_offset=2, "
     "end_lineno=1, end_col_offset=3)], keywords=[], lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=4), lineno=1, col_offset=0, end_lineno=1, end_col_offset=4)], "
     "type_ignores=[])"},
    {"(a)\n", 11,
     "Module(body=[Expr(value=Name(id='a', ctx=Load(), lineno=1, col_offset=1, end_lineno=1, "
     "end_col_offset=2), lineno=1, col_offset=0, end_lineno=1, end_col_offset=3)], "
     "type_ignores=[])"},
    {"1; 2;\n", 11,
     "Module(body=[Expr(value=Constant(value=1, lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=1), lineno=1, col_offset=0, end_lineno=1, end_col_offset=1), "
     "Expr(value=Constant(value=2, lineno=1, col_offset=3, end_lineno=1, end_col_offset=4), "
     "lineno=1, col_offset=3, end_lineno=1, end_col_offset=4)], type_ignores=[])"},
    {"x = 1; y = 2\n", 11,
     "Module(body=[Assign(targets=[Name(id='x', ctx=Store(), lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=1)], value=Constant(value=1, lineno=1, col_offset=4, end_lineno=1, "
     "end_col_offset=5), lineno=1, col_offset=0, end_lineno=1, end_col_offset=5), "
     "Assign(targets=[Name(id='y', ctx=Store(), lineno=1, col_offset=7, end_lineno=1, "
     "end_col_offset=8)], value=Constant(value=2, lineno=1, col_offset=11, end_lineno=1, "
     "end_col_offset=12), lineno=1, col_offset=7, end_lineno=1, end_col_offset=12)], "
     "type_ignores=[])"},
    {"return_value = 3\n", 11,
     "Module(body=[Assign(targets=[Name(id='return_value', ctx=Store(), lineno=1, col_offset=0, "
     "end_lineno=1, end_col_offset=12)], value=Constant(value=3, lineno=1, col_offset=15, "
     "end_lineno=1, end_col_offset=16), lineno=1, col_offset=0, end_lineno=1, end_col_offset=16)], "
     "type_ignores=[])"},
    {"lambda: 0\n", 11,
     "Module(body=[Expr(value=Lambda(args=arguments(posonlyargs=[], args=[], kwonlyargs=[], "
     "kw_defaults=[], defaults=[]), body=Constant(value=0, lineno=1, col_offset=8, end_lineno=1, "
     "end_col_offset=9), lineno=1, col_offset=0, end_lineno=1, end_col_offset=9), lineno=1, "
     "col_offset=0, end_lineno=1, end_col_offset=9)], type_ignores=[])"},
    {"await_ = 1\n", 11,
     "Module(body=[Assign(targets=[Name(id='await_', ctx=Store(), lineno=1, col_offset=0, "
     "end_lineno=1, end_col_offset=6)], value=Constant(value=1, lineno=1, col_offset=9, "
     "end_lineno=1, end_col_offset=10), lineno=1, col_offset=0, end_lineno=1, end_col_offset=10)], "
     "type_ignores=[])"},
    {"def f():\n    return\n", 11,
     "Module(body=[FunctionDef(name='f', args=arguments(posonlyargs=[], args=[], kwonlyargs=[], "
     "kw_defaults=[], defaults=[]), body=[Return(lineno=2, col_offset=4, end_lineno=2, "
     "end_col_offset=10)], decorator_list=[], lineno=1, col_offset=0, end_lineno=2, "
     "end_col_offset=10)], type_ignores=[])"},
    {"def f():\n    return 1, 2\n", 11,
     "Module(body=[FunctionDef(name='f', args=arguments(posonlyargs=[], args=[], kwonlyargs=[], "
     "kw_defaults=[], defaults=[]), body=[Return(value=Tuple(elts=[Constant(value=1, lineno=2, "
     "col_offset=11, end_lineno=2, end_col_offset=12), Constant(value=2, lineno=2, col_offset=14, "
     "end_lineno=2, end_col_offset=15)], ctx=Load(), lineno=2, col_offset=11, end_lineno=2, "
     "end_col_offset=15), lineno=2, col_offset=4, end_lineno=2, end_col_offset=15)], "
     "decorator_list=[], lineno=1, col_offset=0, end_lineno=2, end_col_offset=15)], "
     "type_ignores=[])"},
    {"def f():\n    return *a, b\n", 11,
     "Module(body=[FunctionDef(name='f', args=arguments(posonlyargs=[], args=[], kwonlyargs=[], "
     "kw_defaults=[], defaults=[]), body=[Return(value=Tuple(elts=[Starred(value=Name(id='a', "
     "ctx=Load(), lineno=2, col_offset=12, end_lineno=2, end_col_offset=13), ctx=Load(), lineno=2, "
     "col_offset=11, end_lineno=2, end_col_offset=13), Name(id='b', ctx=Load(), lineno=2, "
     "col_offset=15, end_lineno=2, end_col_offset=16)], ctx=Load(), lineno=2, col_offset=11, "
     "end_lineno=2, end_col_offset=16), lineno=2, col_offset=4, end_lineno=2, end_col_offset=16)], "
     "decorator_list=[], lineno=1, col_offset=0, end_lineno=2, end_col_offset=16)], "
     "type_ignores=[])"},
    {"raise\n", 11,
     "Module(body=[Raise(lineno=1, col_offset=0, end_lineno=1, end_col_offset=5)], "
     "type_ignores=[])"},
    {"raise E\n", 11,
     "Module(body=[Raise(exc=Name(id='E', ctx=Load(), lineno=1, col_offset=6, end_lineno=1, "
     "end_col_offset=7), lineno=1, col_offset=0, end_lineno=1, end_col_offset=7)], "
     "type_ignores=[])"},
    {"raise E from None\n", 11,
     "Module(body=[Raise(exc=Name(id='E', ctx=Load(), lineno=1, col_offset=6, end_lineno=1, "
     "end_col_offset=7), cause=Constant(value=None, lineno=1, col_offset=13, end_lineno=1, "
     "end_col_offset=17), lineno=1, col_offset=0, end_lineno=1, end_col_offset=17)], "
     "type_ignores=[])"},
    {"del a\n", 11,
     "Module(body=[Delete(targets=[Name(id='a', ctx=Del(), lineno=1, col_offset=4, end_lineno=1, "
     "end_col_offset=5)], lineno=1, col_offset=0, end_lineno=1, end_col_offset=5)], "
     "type_ignores=[])"},
    {"del a, b\n", 11,
     "Module(body=[Delete(targets=[Name(id='a', ctx=Del(), lineno=1, col_offset=4, end_lineno=1, "
     "end_col_offset=5), Name(id='b', ctx=Del(), lineno=1, col_offset=7, end_lineno=1, "
     "end_col_offset=8)], lineno=1, col_offset=0, end_lineno=1, end_col_offset=8)], "
     "type_ignores=[])"},
    {"del (a, b)\n", 11,
     "Module(body=[Delete(targets=[Tuple(elts=[Name(id='a', ctx=Del(), lineno=1, col_offset=5, "
     "end_lineno=1, end_col_offset=6), Name(id='b', ctx=Del(), lineno=1, col_offset=8, "
     "end_lineno=1, end_col_offset=9)], ctx=Del(), lineno=1, col_offset=4, end_lineno=1, "
     "end_col_offset=10)], lineno=1, col_offset=0, end_lineno=1, end_col_offset=10)], "
     "type_ignores=[])"},
    {"del (a), [b]\n", 11,
     "Module(body=[Delete(targets=[Name(id='a', ctx=Del(), lineno=1, col_offset=5, end_lineno=1, "
     "end_col_offset=6), List(elts=[Name(id='b', ctx=Del(), lineno=1, col_offset=10, end_lineno=1, "
     "end_col_offset=11)], ctx=Del(), lineno=1, col_offset=9, end_lineno=1, end_col_offset=12)], "
     "lineno=1, col_offset=0, end_lineno=1, end_col_offset=12)], type_ignores=[])"},
    {"del a.b, c[0],\n", 11,
     "Module(body=[Delete(targets=[Attribute(value=Name(id='a', ctx=Load(), lineno=1, "
     "col_offset=4, end_lineno=1, end_col_offset=5), attr='b', ctx=Del(), lineno=1, col_offset=4, "
     "end_lineno=1, end_col_offset=7), Subscript(value=Name(id='c', ctx=Load(), lineno=1, "
     "col_offset=9, end_lineno=1, end_col_offset=10), slice=Constant(value=0, lineno=1, "
     "col_offset=11, end_lineno=1, end_col_offset=12), ctx=Del(), lineno=1, col_offset=9, "
     "end_lineno=1, end_col_offset=13)], lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=14)], type_ignores=[])"},
    {"del (a,)\n", 11,
     "Module(body=[Delete(targets=[Tuple(elts=[Name(id='a', ctx=Del(), lineno=1, col_offset=5, "
     "end_lineno=1, end_col_offset=6)], ctx=Del(), lineno=1, col_offset=4, end_lineno=1, "
     "end_col_offset=8)], lineno=1, col_offset=0, end_lineno=1, end_col_offset=8)], "
     "type_ignores=[])"},
    {"assert x\n", 11,
     "Module(body=[Assert(test=Name(id='x', ctx=Load(), lineno=1, col_offset=7, end_lineno=1, "
     "end_col_offset=8), lineno=1, col_offset=0, end_lineno=1, end_col_offset=8)], "
     "type_ignores=[])"},
    {"assert x, 'msg'\n", 11,
     "Module(body=[Assert(test=Name(id='x', ctx=Load(), lineno=1, col_offset=7, end_lineno=1, "
     "end_col_offset=8), msg=Constant(value='msg', lineno=1, col_offset=10, end_lineno=1, "
     "end_col_offset=15), lineno=1, col_offset=0, end_lineno=1, end_col_offset=15)], "
     "type_ignores=[])"},
    {"import a\n", 11,
     "Module(body=[Import(names=[alias(name='a', lineno=1, col_offset=7, end_lineno=1, "
     "end_col_offset=8)], lineno=1, col_offset=0, end_lineno=1, end_col_offset=8)], "
     "type_ignores=[])"},
    {"import a.b.c\n", 11,
     "Module(body=[Import(names=[alias(name='a.b.c', lineno=1, col_offset=7, end_lineno=1, "
     "end_col_offset=12)], lineno=1, col_offset=0, end_lineno=1, end_col_offset=12)], "
     "type_ignores=[])"},
    {"import a as b, c.d as e\n", 11,
     "Module(body=[Import(names=[alias(name='a', asname='b', lineno=1, col_offset=7, end_lineno=1, "
     "end_col_offset=13), alias(name='c.d', asname='e', lineno=1, col_offset=15, end_lineno=1, "
     "end_col_offset=23)], lineno=1, col_offset=0, end_lineno=1, end_col_offset=23)], "
     "type_ignores=[])"},
    {"from a import b\n", 11,
     "Module(body=[ImportFrom(module='a', names=[alias(name='b', lineno=1, col_offset=14, "
     "end_lineno=1, end_col_offset=15)], level=0, lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=15)], type_ignores=[])"},
    {"from a.b import c as d, e\n", 11,
     "Module(body=[ImportFrom(module='a.b', names=[alias(name='c', asname='d', lineno=1, "
     "col_offset=16, end_lineno=1, end_col_offset=22), alias(name='e', lineno=1, col_offset=24, "
     "end_lineno=1, end_col_offset=25)], level=0, lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=25)], type_ignores=[])"},
    {"from . import a\n", 11,
     "Module(body=[ImportFrom(names=[alias(name='a', lineno=1, col_offset=14, end_lineno=1, "
     "end_col_offset=15)], level=1, lineno=1, col_offset=0, end_lineno=1, end_col_offset=15)], "
     "type_ignores=[])"},
    {"from .. import a\n", 11,
     "Module(body=[ImportFrom(names=[alias(name='a', lineno=1, col_offset=15, end_lineno=1, "
     "end_col_offset=16)], level=2, lineno=1, col_offset=0, end_lineno=1, end_col_offset=16)], "
     "type_ignores=[])"},
    {"from ... import a\n", 11,
     "Module(body=[ImportFrom(names=[alias(name='a', lineno=1, col_offset=16, end_lineno=1, "
     "end_col_offset=17)], level=3, lineno=1, col_offset=0, end_lineno=1, end_col_offset=17)], "
     "type_ignores=[])"},
    {"from .... import a\n", 11,
     "Module(body=[ImportFrom(names=[alias(name='a', lineno=1, col_offset=17, end_lineno=1, "
     "end_col_offset=18)], level=4, lineno=1, col_offset=0, end_lineno=1, end_col_offset=18)], "
     "type_ignores=[])"},
    {"from .a import b\n", 11,
     "Module(body=[ImportFrom(module='a', names=[alias(name='b', lineno=1, col_offset=15, "
     "end_lineno=1, end_col_offset=16)], level=1, lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=16)], type_ignores=[])"},
    {"from ...a.b import (c, d,)\n", 11,
     "Module(body=[ImportFrom(module='a.b', names=[alias(name='c', lineno=1, col_offset=20, "
     "end_lineno=1, end_col_offset=21), alias(name='d', lineno=1, col_offset=23, end_lineno=1, "
     "end_col_offset=24)], level=3, lineno=1, col_offset=0, end_lineno=1, end_col_offset=26)], "
     "type_ignores=[])"},
    {"from a import *\n", 11,
     "Module(body=[ImportFrom(module='a', names=[alias(name='*', lineno=1, col_offset=14, "
     "end_lineno=1, end_col_offset=15)], level=0, lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=15)], type_ignores=[])"},
    {"from . import (a as b)\n", 11,
     "Module(body=[ImportFrom(names=[alias(name='a', asname='b', lineno=1, col_offset=15, "
     "end_lineno=1, end_col_offset=21)], level=1, lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=22)], type_ignores=[])"},
    {"global a\n", 11,
     "Module(body=[Global(names=['a'], lineno=1, col_offset=0, end_lineno=1, end_col_offset=8)], "
     "type_ignores=[])"},
    {"global a, b\n", 11,
     "Module(body=[Global(names=['a', 'b'], lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=11)], type_ignores=[])"},
    {"def f():\n    nonlocal x, y\n", 11,
     "Module(body=[FunctionDef(name='f', args=arguments(posonlyargs=[], args=[], kwonlyargs=[], "
     "kw_defaults=[], defaults=[]), body=[Nonlocal(names=['x', 'y'], lineno=2, col_offset=4, "
     "end_lineno=2, end_col_offset=17)], decorator_list=[], lineno=1, col_offset=0, end_lineno=2, "
     "end_col_offset=17)], type_ignores=[])"},
    {"break\n", 11,
     "Module(body=[Break(lineno=1, col_offset=0, end_lineno=1, end_col_offset=5)], "
     "type_ignores=[])"},
    {"continue\n", 11,
     "Module(body=[Continue(lineno=1, col_offset=0, end_lineno=1, end_col_offset=8)], "
     "type_ignores=[])"},
    {"if a:\n    pass\n", 11,
     "Module(body=[If(test=Name(id='a', ctx=Load(), lineno=1, col_offset=3, end_lineno=1, "
     "end_col_offset=4), body=[Pass(lineno=2, col_offset=4, end_lineno=2, end_col_offset=8)], "
     "orelse=[], lineno=1, col_offset=0, end_lineno=2, end_col_offset=8)], type_ignores=[])"},
    {"if a: pass\n", 11,
     "Module(body=[If(test=Name(id='a', ctx=Load(), lineno=1, col_offset=3, end_lineno=1, "
     "end_col_offset=4), body=[Pass(lineno=1, col_offset=6, end_lineno=1, end_col_offset=10)], "
     "orelse=[], lineno=1, col_offset=0, end_lineno=1, end_col_offset=10)], type_ignores=[])"},
    {"if a:\n    x\nelse:\n    y\n", 11,
     "Module(body=[If(test=Name(id='a', ctx=Load(), lineno=1, col_offset=3, end_lineno=1, "
     "end_col_offset=4), body=[Expr(value=Name(id='x', ctx=Load(), lineno=2, col_offset=4, "
     "end_lineno=2, end_col_offset=5), lineno=2, col_offset=4, end_lineno=2, end_col_offset=5)], "
     "orelse=[Expr(value=Name(id='y', ctx=Load(), lineno=4, col_offset=4, end_lineno=4, "
     "end_col_offset=5), lineno=4, col_offset=4, end_lineno=4, end_col_offset=5)], lineno=1, "
     "col_offset=0, end_lineno=4, end_col_offset=5)], type_ignores=[])"},
    {"if a:\n    x\nelif b:\n    y\nelif c:\n    z\nelse:\n    w\n", 11,
     "Module(body=[If(test=Name(id='a', ctx=Load(), lineno=1, col_offset=3, end_lineno=1, "
     "end_col_offset=4), body=[Expr(value=Name(id='x', ctx=Load(), lineno=2, col_offset=4, "
     "end_lineno=2, end_col_offset=5), lineno=2, col_offset=4, end_lineno=2, end_col_offset=5)], "
     "orelse=[If(test=Name(id='b', ctx=Load(), lineno=3, col_offset=5, end_lineno=3, "
     "end_col_offset=6), body=[Expr(value=Name(id='y', ctx=Load(), lineno=4, col_offset=4, "
     "end_lineno=4, end_col_offset=5), lineno=4, col_offset=4, end_lineno=4, end_col_offset=5)], "
     "orelse=[If(test=Name(id='c', ctx=Load(), lineno=5, col_offset=5, end_lineno=5, "
     "end_col_offset=6), body=[Expr(value=Name(id='z', ctx=Load(), lineno=6, col_offset=4, "
     "end_lineno=6, end_col_offset=5), lineno=6, col_offset=4, end_lineno=6, end_col_offset=5)], "
     "orelse=[Expr(value=Name(id='w', ctx=Load(), lineno=8, col_offset=4, end_lineno=8, "
     "end_col_offset=5), lineno=8, col_offset=4, end_lineno=8, end_col_offset=5)], lineno=5, "
     "col_offset=0, end_lineno=8, end_col_offset=5)], lineno=3, col_offset=0, end_lineno=8, "
     "end_col_offset=5)], lineno=1, col_offset=0, end_lineno=8, end_col_offset=5)], "
     "type_ignores=[])"},
    {"if a: x; y\nelif b: z\n", 11,
     "Module(body=[If(test=Name(id='a', ctx=Load(), lineno=1, col_offset=3, end_lineno=1, "
     "end_col_offset=4), body=[Expr(value=Name(id='x', ctx=Load(), lineno=1, col_offset=6, "
     "end_lineno=1, end_col_offset=7), lineno=1, col_offset=6, end_lineno=1, end_col_offset=7), "
     "Expr(value=Name(id='y', ctx=Load(), lineno=1, col_offset=9, end_lineno=1, "
     "end_col_offset=10), lineno=1, col_offset=9, end_lineno=1, end_col_offset=10)], "
     "orelse=[If(test=Name(id='b', ctx=Load(), lineno=2, col_offset=5, end_lineno=2, "
     "end_col_offset=6), body=[Expr(value=Name(id='z', ctx=Load(), lineno=2, col_offset=8, "
     "end_lineno=2, end_col_offset=9), lineno=2, col_offset=8, end_lineno=2, end_col_offset=9)], "
     "orelse=[], lineno=2, col_offset=0, end_lineno=2, end_col_offset=9)], lineno=1, col_offset=0, "
     "end_lineno=2, end_col_offset=9)], type_ignores=[])"},
    {"if (x := 1):\n    pass\n", 11,
     "Module(body=[If(test=NamedExpr(target=Name(id='x', ctx=Store(), lineno=1, col_offset=4, "
     "end_lineno=1, end_col_offset=5), value=Constant(value=1, lineno=1, col_offset=9, "
     "end_lineno=1, end_col_offset=10), lineno=1, col_offset=4, end_lineno=1, end_col_offset=10), "
     "body=[Pass(lineno=2, col_offset=4, end_lineno=2, end_col_offset=8)], orelse=[], lineno=1, "
     "col_offset=0, end_lineno=2, end_col_offset=8)], type_ignores=[])"},
    {"while x:\n    pass\n", 11,
     "Module(body=[While(test=Name(id='x', ctx=Load(), lineno=1, col_offset=6, end_lineno=1, "
     "end_col_offset=7), body=[Pass(lineno=2, col_offset=4, end_lineno=2, end_col_offset=8)], "
     "orelse=[], lineno=1, col_offset=0, end_lineno=2, end_col_offset=8)], type_ignores=[])"},
    {"while x:\n    pass\nelse:\n    y\n", 11,
     "Module(body=[While(test=Name(id='x', ctx=Load(), lineno=1, col_offset=6, end_lineno=1, "
     "end_col_offset=7), body=[Pass(lineno=2, col_offset=4, end_lineno=2, end_col_offset=8)], "
     "orelse=[Expr(value=Name(id='y', ctx=Load(), lineno=4, col_offset=4, end_lineno=4, "
     "end_col_offset=5), lineno=4, col_offset=4, end_lineno=4, end_col_offset=5)], lineno=1, "
     "col_offset=0, end_lineno=4, end_col_offset=5)], type_ignores=[])"},
    {"while 1: pass\n", 11,
     "Module(body=[While(test=Constant(value=1, lineno=1, col_offset=6, end_lineno=1, "
     "end_col_offset=7), body=[Pass(lineno=1, col_offset=9, end_lineno=1, end_col_offset=13)], "
     "orelse=[], lineno=1, col_offset=0, end_lineno=1, end_col_offset=13)], type_ignores=[])"},
    {"for x in y:\n    pass\n", 11,
     "Module(body=[For(target=Name(id='x', ctx=Store(), lineno=1, col_offset=4, end_lineno=1, "
     "end_col_offset=5), iter=Name(id='y', ctx=Load(), lineno=1, col_offset=9, end_lineno=1, "
     "end_col_offset=10), body=[Pass(lineno=2, col_offset=4, end_lineno=2, end_col_offset=8)], "
     "orelse=[], lineno=1, col_offset=0, end_lineno=2, end_col_offset=8)], type_ignores=[])"},
    {"for x, y in z: pass\n", 11,
     "Module(body=[For(target=Tuple(elts=[Name(id='x', ctx=Store(), lineno=1, col_offset=4, "
     "end_lineno=1, end_col_offset=5), Name(id='y', ctx=Store(), lineno=1, col_offset=7, "
     "end_lineno=1, end_col_offset=8)], ctx=Store(), lineno=1, col_offset=4, end_lineno=1, "
     "end_col_offset=8), iter=Name(id='z', ctx=Load(), lineno=1, col_offset=12, end_lineno=1, "
     "end_col_offset=13), body=[Pass(lineno=1, col_offset=15, end_lineno=1, end_col_offset=19)], "
     "orelse=[], lineno=1, col_offset=0, end_lineno=1, end_col_offset=19)], type_ignores=[])"},
    {"for (x, y) in z: pass\nelse: w\n", 11,
     "Module(body=[For(target=Tuple(elts=[Name(id='x', ctx=Store(), lineno=1, col_offset=5, "
     "end_lineno=1, end_col_offset=6), Name(id='y', ctx=Store(), lineno=1, col_offset=8, "
     "end_lineno=1, end_col_offset=9)], ctx=Store(), lineno=1, col_offset=4, end_lineno=1, "
     "end_col_offset=10), iter=Name(id='z', ctx=Load(), lineno=1, col_offset=14, end_lineno=1, "
     "end_col_offset=15), body=[Pass(lineno=1, col_offset=17, end_lineno=1, end_col_offset=21)], "
     "orelse=[Expr(value=Name(id='w', ctx=Load(), lineno=2, col_offset=6, end_lineno=2, "
     "end_col_offset=7), lineno=2, col_offset=6, end_lineno=2, end_col_offset=7)], lineno=1, "
     "col_offset=0, end_lineno=2, end_col_offset=7)], type_ignores=[])"},
    {"for x in *a, b:\n    pass\n", 11,
     "Module(body=[For(target=Name(id='x', ctx=Store(), lineno=1, col_offset=4, end_lineno=1, "
     "end_col_offset=5), iter=Tuple(elts=[Starred(value=Name(id='a', ctx=Load(), lineno=1, "
     "col_offset=10, end_lineno=1, end_col_offset=11), ctx=Load(), lineno=1, col_offset=9, "
     "end_lineno=1, end_col_offset=11), Name(id='b', ctx=Load(), lineno=1, col_offset=13, "
     "end_lineno=1, end_col_offset=14)], ctx=Load(), lineno=1, col_offset=9, end_lineno=1, "
     "end_col_offset=14), body=[Pass(lineno=2, col_offset=4, end_lineno=2, end_col_offset=8)], "
     "orelse=[], lineno=1, col_offset=0, end_lineno=2, end_col_offset=8)], type_ignores=[])"},
    {"for x.y in z: pass\n", 11,
     "Module(body=[For(target=Attribute(value=Name(id='x', ctx=Load(), lineno=1, col_offset=4, "
     "end_lineno=1, end_col_offset=5), attr='y', ctx=Store(), lineno=1, col_offset=4, "
     "end_lineno=1, end_col_offset=7), iter=Name(id='z', ctx=Load(), lineno=1, col_offset=11, "
     "end_lineno=1, end_col_offset=12), body=[Pass(lineno=1, col_offset=14, end_lineno=1, "
     "end_col_offset=18)], orelse=[], lineno=1, col_offset=0, end_lineno=1, end_col_offset=18)], "
     "type_ignores=[])"},
    {"for [a, *b] in c: pass\n", 11,
     "Module(body=[For(target=List(elts=[Name(id='a', ctx=Store(), lineno=1, col_offset=5, "
     "end_lineno=1, end_col_offset=6), Starred(value=Name(id='b', ctx=Store(), lineno=1, "
     "col_offset=9, end_lineno=1, end_col_offset=10), ctx=Store(), lineno=1, col_offset=8, "
     "end_lineno=1, end_col_offset=10)], ctx=Store(), lineno=1, col_offset=4, end_lineno=1, "
     "end_col_offset=11), iter=Name(id='c', ctx=Load(), lineno=1, col_offset=15, end_lineno=1, "
     "end_col_offset=16), body=[Pass(lineno=1, col_offset=18, end_lineno=1, end_col_offset=22)], "
     "orelse=[], lineno=1, col_offset=0, end_lineno=1, end_col_offset=22)], type_ignores=[])"},
    {"async def f():\n    async for x in y:\n        pass\n    async with a as b:\n        pass\n",
     11,
     "Module(body=[AsyncFunctionDef(name='f', args=arguments(posonlyargs=[], args=[], "
     "kwonlyargs=[], kw_defaults=[], defaults=[]), body=[AsyncFor(target=Name(id='x', ctx=Store(), "
     "lineno=2, col_offset=14, end_lineno=2, end_col_offset=15), iter=Name(id='y', ctx=Load(), "
     "lineno=2, col_offset=19, end_lineno=2, end_col_offset=20), body=[Pass(lineno=3, "
     "col_offset=8, end_lineno=3, end_col_offset=12)], orelse=[], lineno=2, col_offset=4, "
     "end_lineno=3, end_col_offset=12), AsyncWith(items=[withitem(context_expr=Name(id='a', "
     "ctx=Load(), lineno=4, col_offset=15, end_lineno=4, end_col_offset=16), "
     "optional_vars=Name(id='b', ctx=Store(), lineno=4, col_offset=20, end_lineno=4, "
     "end_col_offset=21))], body=[Pass(lineno=5, col_offset=8, end_lineno=5, end_col_offset=12)], "
     "lineno=4, col_offset=4, end_lineno=5, end_col_offset=12)], decorator_list=[], lineno=1, "
     "col_offset=0, end_lineno=5, end_col_offset=12)], type_ignores=[])"},
    {"with a: pass\n", 11,
     "Module(body=[With(items=[withitem(context_expr=Name(id='a', ctx=Load(), lineno=1, "
     "col_offset=5, end_lineno=1, end_col_offset=6))], body=[Pass(lineno=1, col_offset=8, "
     "end_lineno=1, end_col_offset=12)], lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=12)], type_ignores=[])"},
    {"with a as b: pass\n", 11,
     "Module(body=[With(items=[withitem(context_expr=Name(id='a', ctx=Load(), lineno=1, "
     "col_offset=5, end_lineno=1, end_col_offset=6), optional_vars=Name(id='b', ctx=Store(), "
     "lineno=1, col_offset=10, end_lineno=1, end_col_offset=11))], body=[Pass(lineno=1, "
     "col_offset=13, end_lineno=1, end_col_offset=17)], lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=17)], type_ignores=[])"},
    {"with a as b, c as d: pass\n", 11,
     "Module(body=[With(items=[withitem(context_expr=Name(id='a', ctx=Load(), lineno=1, "
     "col_offset=5, end_lineno=1, end_col_offset=6), optional_vars=Name(id='b', ctx=Store(), "
     "lineno=1, col_offset=10, end_lineno=1, end_col_offset=11)), "
     "withitem(context_expr=Name(id='c', ctx=Load(), lineno=1, col_offset=13, end_lineno=1, "
     "end_col_offset=14), optional_vars=Name(id='d', ctx=Store(), lineno=1, col_offset=18, "
     "end_lineno=1, end_col_offset=19))], body=[Pass(lineno=1, col_offset=21, end_lineno=1, "
     "end_col_offset=25)], lineno=1, col_offset=0, end_lineno=1, end_col_offset=25)], "
     "type_ignores=[])"},
    {"with (a, b): pass\n", 11,
     "Module(body=[With(items=[withitem(context_expr=Name(id='a', ctx=Load(), lineno=1, "
     "col_offset=6, end_lineno=1, end_col_offset=7)), withitem(context_expr=Name(id='b', "
     "ctx=Load(), lineno=1, col_offset=9, end_lineno=1, end_col_offset=10))], body=[Pass(lineno=1, "
     "col_offset=13, end_lineno=1, end_col_offset=17)], lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=17)], type_ignores=[])"},
    {"with (a, b) as c: pass\n", 11,
     "Module(body=[With(items=[withitem(context_expr=Tuple(elts=[Name(id='a', ctx=Load(), "
     "lineno=1, col_offset=6, end_lineno=1, end_col_offset=7), Name(id='b', ctx=Load(), lineno=1, "
     "col_offset=9, end_lineno=1, end_col_offset=10)], ctx=Load(), lineno=1, col_offset=5, "
     "end_lineno=1, end_col_offset=11), optional_vars=Name(id='c', ctx=Store(), lineno=1, "
     "col_offset=15, end_lineno=1, end_col_offset=16))], body=[Pass(lineno=1, col_offset=18, "
     "end_lineno=1, end_col_offset=22)], lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=22)], type_ignores=[])"},
    {"with (a as b, c): pass\n", 11,
     "Module(body=[With(items=[withitem(context_expr=Name(id='a', ctx=Load(), lineno=1, "
     "col_offset=6, end_lineno=1, end_col_offset=7), optional_vars=Name(id='b', ctx=Store(), "
     "lineno=1, col_offset=11, end_lineno=1, end_col_offset=12)), "
     "withitem(context_expr=Name(id='c', ctx=Load(), lineno=1, col_offset=14, end_lineno=1, "
     "end_col_offset=15))], body=[Pass(lineno=1, col_offset=18, end_lineno=1, end_col_offset=22)], "
     "lineno=1, col_offset=0, end_lineno=1, end_col_offset=22)], type_ignores=[])"},
    {"with (a as b, c as d,): pass\n", 11,
     "Module(body=[With(items=[withitem(context_expr=Name(id='a', ctx=Load(), lineno=1, "
     "col_offset=6, end_lineno=1, end_col_offset=7), optional_vars=Name(id='b', ctx=Store(), "
     "lineno=1, col_offset=11, end_lineno=1, end_col_offset=12)), "
     "withitem(context_expr=Name(id='c', ctx=Load(), lineno=1, col_offset=14, end_lineno=1, "
     "end_col_offset=15), optional_vars=Name(id='d', ctx=Store(), lineno=1, col_offset=19, "
     "end_lineno=1, end_col_offset=20))], body=[Pass(lineno=1, col_offset=24, end_lineno=1, "
     "end_col_offset=28)], lineno=1, col_offset=0, end_lineno=1, end_col_offset=28)], "
     "type_ignores=[])"},
    {"with (a): pass\n", 11,
     "Module(body=[With(items=[withitem(context_expr=Name(id='a', ctx=Load(), lineno=1, "
     "col_offset=6, end_lineno=1, end_col_offset=7))], body=[Pass(lineno=1, col_offset=10, "
     "end_lineno=1, end_col_offset=14)], lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=14)], type_ignores=[])"},
    {"with (a) as b: pass\n", 11,
     "Module(body=[With(items=[withitem(context_expr=Name(id='a', ctx=Load(), lineno=1, "
     "col_offset=6, end_lineno=1, end_col_offset=7), optional_vars=Name(id='b', ctx=Store(), "
     "lineno=1, col_offset=12, end_lineno=1, end_col_offset=13))], body=[Pass(lineno=1, "
     "col_offset=15, end_lineno=1, end_col_offset=19)], lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=19)], type_ignores=[])"},
    {"with (yield): pass\n", 11,
     "Module(body=[With(items=[withitem(context_expr=Yield(lineno=1, col_offset=6, end_lineno=1, "
     "end_col_offset=11))], body=[Pass(lineno=1, col_offset=14, end_lineno=1, end_col_offset=18)], "
     "lineno=1, col_offset=0, end_lineno=1, end_col_offset=18)], type_ignores=[])"},
    {"with a as (b, c): pass\n", 11,
     "Module(body=[With(items=[withitem(context_expr=Name(id='a', ctx=Load(), lineno=1, "
     "col_offset=5, end_lineno=1, end_col_offset=6), optional_vars=Tuple(elts=[Name(id='b', "
     "ctx=Store(), lineno=1, col_offset=11, end_lineno=1, end_col_offset=12), Name(id='c', "
     "ctx=Store(), lineno=1, col_offset=14, end_lineno=1, end_col_offset=15)], ctx=Store(), "
     "lineno=1, col_offset=10, end_lineno=1, end_col_offset=16))], body=[Pass(lineno=1, "
     "col_offset=18, end_lineno=1, end_col_offset=22)], lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=22)], type_ignores=[])"},
    {"with a as b.c, d as e[0]: pass\n", 11,
     "Module(body=[With(items=[withitem(context_expr=Name(id='a', ctx=Load(), lineno=1, "
     "col_offset=5, end_lineno=1, end_col_offset=6), optional_vars=Attribute(value=Name(id='b', "
     "ctx=Load(), lineno=1, col_offset=10, end_lineno=1, end_col_offset=11), attr='c', "
     "ctx=Store(), lineno=1, col_offset=10, end_lineno=1, end_col_offset=13)), "
     "withitem(context_expr=Name(id='d', ctx=Load(), lineno=1, col_offset=15, end_lineno=1, "
     "end_col_offset=16), optional_vars=Subscript(value=Name(id='e', ctx=Load(), lineno=1, "
     "col_offset=20, end_lineno=1, end_col_offset=21), slice=Constant(value=0, lineno=1, "
     "col_offset=22, end_lineno=1, end_col_offset=23), ctx=Store(), lineno=1, col_offset=20, "
     "end_lineno=1, end_col_offset=24))], body=[Pass(lineno=1, col_offset=26, end_lineno=1, "
     "end_col_offset=30)], lineno=1, col_offset=0, end_lineno=1, end_col_offset=30)], "
     "type_ignores=[])"},
    {"with (a, b), c: pass\n", 11,
     "Module(body=[With(items=[withitem(context_expr=Tuple(elts=[Name(id='a', ctx=Load(), "
     "lineno=1, col_offset=6, end_lineno=1, end_col_offset=7), Name(id='b', ctx=Load(), lineno=1, "
     "col_offset=9, end_lineno=1, end_col_offset=10)], ctx=Load(), lineno=1, col_offset=5, "
     "end_lineno=1, end_col_offset=11)), withitem(context_expr=Name(id='c', ctx=Load(), lineno=1, "
     "col_offset=13, end_lineno=1, end_col_offset=14))], body=[Pass(lineno=1, col_offset=16, "
     "end_lineno=1, end_col_offset=20)], lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=20)], type_ignores=[])"},
    {"with a as [b, *c]: pass\n", 11,
     "Module(body=[With(items=[withitem(context_expr=Name(id='a', ctx=Load(), lineno=1, "
     "col_offset=5, end_lineno=1, end_col_offset=6), optional_vars=List(elts=[Name(id='b', "
     "ctx=Store(), lineno=1, col_offset=11, end_lineno=1, end_col_offset=12), "
     "Starred(value=Name(id='c', ctx=Store(), lineno=1, col_offset=15, end_lineno=1, "
     "end_col_offset=16), ctx=Store(), lineno=1, col_offset=14, end_lineno=1, end_col_offset=16)], "
     "ctx=Store(), lineno=1, col_offset=10, end_lineno=1, end_col_offset=17))], "
     "body=[Pass(lineno=1, col_offset=19, end_lineno=1, end_col_offset=23)], lineno=1, "
     "col_offset=0, end_lineno=1, end_col_offset=23)], type_ignores=[])"},
    {"with (a) as b, (c): pass\n", 11,
     "Module(body=[With(items=[withitem(context_expr=Name(id='a', ctx=Load(), lineno=1, "
     "col_offset=6, end_lineno=1, end_col_offset=7), optional_vars=Name(id='b', ctx=Store(), "
     "lineno=1, col_offset=12, end_lineno=1, end_col_offset=13)), "
     "withitem(context_expr=Name(id='c', ctx=Load(), lineno=1, col_offset=16, end_lineno=1, "
     "end_col_offset=17))], body=[Pass(lineno=1, col_offset=20, end_lineno=1, end_col_offset=24)], "
     "lineno=1, col_offset=0, end_lineno=1, end_col_offset=24)], type_ignores=[])"},
    {"with a(), b(): pass\n", 11,
     "Module(body=[With(items=[withitem(context_expr=Call(func=Name(id='a', ctx=Load(), lineno=1, "
     "col_offset=5, end_lineno=1, end_col_offset=6), args=[], keywords=[], lineno=1, col_offset=5, "
     "end_lineno=1, end_col_offset=8)), withitem(context_expr=Call(func=Name(id='b', ctx=Load(), "
     "lineno=1, col_offset=10, end_lineno=1, end_col_offset=11), args=[], keywords=[], lineno=1, "
     "col_offset=10, end_lineno=1, end_col_offset=13))], body=[Pass(lineno=1, col_offset=15, "
     "end_lineno=1, end_col_offset=19)], lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=19)], type_ignores=[])"},
    {"try:\n    pass\nexcept:\n    pass\n", 11,
     "Module(body=[Try(body=[Pass(lineno=2, col_offset=4, end_lineno=2, end_col_offset=8)], "
     "handlers=[ExceptHandler(body=[Pass(lineno=4, col_offset=4, end_lineno=4, end_col_offset=8)], "
     "lineno=3, col_offset=0, end_lineno=4, end_col_offset=8)], orelse=[], finalbody=[], lineno=1, "
     "col_offset=0, end_lineno=4, end_col_offset=8)], type_ignores=[])"},
    {"try:\n    pass\nexcept E:\n    pass\nexcept (A, B) as e:\n    pass\nelse:\n    "
     "pass\nfinally:\n    pass\n",
     11,
     "Module(body=[Try(body=[Pass(lineno=2, col_offset=4, end_lineno=2, end_col_offset=8)], "
     "handlers=[ExceptHandler(type=Name(id='E', ctx=Load(), lineno=3, col_offset=7, end_lineno=3, "
     "end_col_offset=8), body=[Pass(lineno=4, col_offset=4, end_lineno=4, end_col_offset=8)], "
     "lineno=3, col_offset=0, end_lineno=4, end_col_offset=8), "
     "ExceptHandler(type=Tuple(elts=[Name(id='A', ctx=Load(), lineno=5, col_offset=8, "
     "end_lineno=5, end_col_offset=9), Name(id='B', ctx=Load(), lineno=5, col_offset=11, "
     "end_lineno=5, end_col_offset=12)], ctx=Load(), lineno=5, col_offset=7, end_lineno=5, "
     "end_col_offset=13), name='e', body=[Pass(lineno=6, col_offset=4, end_lineno=6, "
     "end_col_offset=8)], lineno=5, col_offset=0, end_lineno=6, end_col_offset=8)], "
     "orelse=[Pass(lineno=8, col_offset=4, end_lineno=8, end_col_offset=8)], "
     "finalbody=[Pass(lineno=10, col_offset=4, end_lineno=10, end_col_offset=8)], lineno=1, "
     "col_offset=0, end_lineno=10, end_col_offset=8)], type_ignores=[])"},
    {"try:\n    pass\nfinally:\n    pass\n", 11,
     "Module(body=[Try(body=[Pass(lineno=2, col_offset=4, end_lineno=2, end_col_offset=8)], "
     "handlers=[], orelse=[], finalbody=[Pass(lineno=4, col_offset=4, end_lineno=4, "
     "end_col_offset=8)], lineno=1, col_offset=0, end_lineno=4, end_col_offset=8)], "
     "type_ignores=[])"},
    {"try:\n    pass\nexcept* E:\n    pass\nexcept* F as f:\n    pass\n", 11,
     "Module(body=[TryStar(body=[Pass(lineno=2, col_offset=4, end_lineno=2, end_col_offset=8)], "
     "handlers=[ExceptHandler(type=Name(id='E', ctx=Load(), lineno=3, col_offset=8, end_lineno=3, "
     "end_col_offset=9), body=[Pass(lineno=4, col_offset=4, end_lineno=4, end_col_offset=8)], "
     "lineno=3, col_offset=0, end_lineno=4, end_col_offset=8), ExceptHandler(type=Name(id='F', "
     "ctx=Load(), lineno=5, col_offset=8, end_lineno=5, end_col_offset=9), name='f', "
     "body=[Pass(lineno=6, col_offset=4, end_lineno=6, end_col_offset=8)], lineno=5, col_offset=0, "
     "end_lineno=6, end_col_offset=8)], orelse=[], finalbody=[], lineno=1, col_offset=0, "
     "end_lineno=6, end_col_offset=8)], type_ignores=[])"},
    {"try: x\nexcept E as e: y\n", 11,
     "Module(body=[Try(body=[Expr(value=Name(id='x', ctx=Load(), lineno=1, col_offset=5, "
     "end_lineno=1, end_col_offset=6), lineno=1, col_offset=5, end_lineno=1, end_col_offset=6)], "
     "handlers=[ExceptHandler(type=Name(id='E', ctx=Load(), lineno=2, col_offset=7, end_lineno=2, "
     "end_col_offset=8), name='e', body=[Expr(value=Name(id='y', ctx=Load(), lineno=2, "
     "col_offset=15, end_lineno=2, end_col_offset=16), lineno=2, col_offset=15, end_lineno=2, "
     "end_col_offset=16)], lineno=2, col_offset=0, end_lineno=2, end_col_offset=16)], orelse=[], "
     "finalbody=[], lineno=1, col_offset=0, end_lineno=2, end_col_offset=16)], type_ignores=[])"},
    {"def f(): pass\n", 11,
     "Module(body=[FunctionDef(name='f', args=arguments(posonlyargs=[], args=[], kwonlyargs=[], "
     "kw_defaults=[], defaults=[]), body=[Pass(lineno=1, col_offset=9, end_lineno=1, "
     "end_col_offset=13)], decorator_list=[], lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=13)], type_ignores=[])"},
    {"def f(a, b=1, *args, c, d=2, **kw): pass\n", 11,
     "Module(body=[FunctionDef(name='f', args=arguments(posonlyargs=[], args=[arg(arg='a', "
     "lineno=1, col_offset=6, end_lineno=1, end_col_offset=7), arg(arg='b', lineno=1, "
     "col_offset=9, end_lineno=1, end_col_offset=10)], vararg=arg(arg='args', lineno=1, "
     "col_offset=15, end_lineno=1, end_col_offset=19), kwonlyargs=[arg(arg='c', lineno=1, "
     "col_offset=21, end_lineno=1, end_col_offset=22), arg(arg='d', lineno=1, col_offset=24, "
     "end_lineno=1, end_col_offset=25)], kw_defaults=[None, Constant(value=2, lineno=1, "
     "col_offset=26, end_lineno=1, end_col_offset=27)], kwarg=arg(arg='kw', lineno=1, "
     "col_offset=31, end_lineno=1, end_col_offset=33), defaults=[Constant(value=1, lineno=1, "
     "col_offset=11, end_lineno=1, end_col_offset=12)]), body=[Pass(lineno=1, col_offset=36, "
     "end_lineno=1, end_col_offset=40)], decorator_list=[], lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=40)], type_ignores=[])"},
    {"def f(a, /, b, *, c): pass\n", 11,
     "Module(body=[FunctionDef(name='f', args=arguments(posonlyargs=[arg(arg='a', lineno=1, "
     "col_offset=6, end_lineno=1, end_col_offset=7)], args=[arg(arg='b', lineno=1, col_offset=12, "
     "end_lineno=1, end_col_offset=13)], kwonlyargs=[arg(arg='c', lineno=1, col_offset=18, "
     "end_lineno=1, end_col_offset=19)], kw_defaults=[None], defaults=[]), body=[Pass(lineno=1, "
     "col_offset=22, end_lineno=1, end_col_offset=26)], decorator_list=[], lineno=1, col_offset=0, "
     "end_lineno=1, end_col_offset=26)], type_ignores=[])"},
    {"def f(a=1, /, b=2, *, c=3, d): pass\n", 11,
     "Module(body=[FunctionDef(name='f', args=arguments(posonlyargs=[arg(arg='a', lineno=1, "
     "col_offset=6, end_lineno=1, end_col_offset=7)], args=[arg(arg='b', lineno=1, col_offset=14, "
     "end_lineno=1, end_col_offset=15)], kwonlyargs=[arg(arg='c', lineno=1, col_offset=22, "
     "end_lineno=1, end_col_offset=23), arg(arg='d', lineno=1, col_offset=27, end_lineno=1, "
     "end_col_offset=28)], kw_defaults=[Constant(value=3, lineno=1, col_offset=24, end_lineno=1, "
     "end_col_offset=25), None], defaults=[Constant(value=1, lineno=1, col_offset=8, end_lineno=1, "
     "end_col_offset=9), Constant(value=2, lineno=1, col_offset=16, end_lineno=1, "
     "end_col_offset=17)]), body=[Pass(lineno=1, col_offset=31, end_lineno=1, end_col_offset=35)], "
     "decorator_list=[], lineno=1, col_offset=0, end_lineno=1, end_col_offset=35)], "
     "type_ignores=[])"},
    {"def f(a: int, *args: str, b: 'x' = 1, **kw: dict) -> int: pass\n", 11,
     "Module(body=[FunctionDef(name='f', args=arguments(posonlyargs=[], args=[arg(arg='a', "
     "annotation=Name(id='int', ctx=Load(), lineno=1, col_offset=9, end_lineno=1, "
     "end_col_offset=12), lineno=1, col_offset=6, end_lineno=1, end_col_offset=12)], "
     "vararg=arg(arg='args', annotation=Name(id='str', ctx=Load(), lineno=1, col_offset=21, "
     "end_lineno=1, end_col_offset=24), lineno=1, col_offset=15, end_lineno=1, end_col_offset=24), "
     "kwonlyargs=[arg(arg='b', annotation=Constant(value='x', lineno=1, col_offset=29, "
     "end_lineno=1, end_col_offset=32), lineno=1, col_offset=26, end_lineno=1, "
     "end_col_offset=32)], kw_defaults=[Constant(value=1, lineno=1, col_offset=35, end_lineno=1, "
     "end_col_offset=36)], kwarg=arg(arg='kw', annotation=Name(id='dict', ctx=Load(), lineno=1, "
     "col_offset=44, end_lineno=1, end_col_offset=48), lineno=1, col_offset=40, end_lineno=1, "
     "end_col_offset=48), defaults=[]), body=[Pass(lineno=1, col_offset=58, end_lineno=1, "
     "end_col_offset=62)], decorator_list=[], returns=Name(id='int', ctx=Load(), lineno=1, "
     "col_offset=53, end_lineno=1, end_col_offset=56), lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=62)], type_ignores=[])"},
    {"def f(*, a): pass\n", 11,
     "Module(body=[FunctionDef(name='f', args=arguments(posonlyargs=[], args=[], "
     "kwonlyargs=[arg(arg='a', lineno=1, col_offset=9, end_lineno=1, end_col_offset=10)], "
     "kw_defaults=[None], defaults=[]), body=[Pass(lineno=1, col_offset=13, end_lineno=1, "
     "end_col_offset=17)], decorator_list=[], lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=17)], type_ignores=[])"},
    {"def f(a,): pass\n", 11,
     "Module(body=[FunctionDef(name='f', args=arguments(posonlyargs=[], args=[arg(arg='a', "
     "lineno=1, col_offset=6, end_lineno=1, end_col_offset=7)], kwonlyargs=[], kw_defaults=[], "
     "defaults=[]), body=[Pass(lineno=1, col_offset=11, end_lineno=1, end_col_offset=15)], "
     "decorator_list=[], lineno=1, col_offset=0, end_lineno=1, end_col_offset=15)], "
     "type_ignores=[])"},
    {"def f(*a: *Ts): pass\n", 11,
     "Module(body=[FunctionDef(name='f', args=arguments(posonlyargs=[], args=[], "
     "vararg=arg(arg='a', annotation=Starred(value=Name(id='Ts', ctx=Load(), lineno=1, "
     "col_offset=11, end_lineno=1, end_col_offset=13), ctx=Load(), lineno=1, col_offset=10, "
     "end_lineno=1, end_col_offset=13), lineno=1, col_offset=7, end_lineno=1, end_col_offset=13), "
     "kwonlyargs=[], kw_defaults=[], defaults=[]), body=[Pass(lineno=1, col_offset=16, "
     "end_lineno=1, end_col_offset=20)], decorator_list=[], lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=20)], type_ignores=[])"},
    {"def f(**k,): pass\n", 11,
     "Module(body=[FunctionDef(name='f', args=arguments(posonlyargs=[], args=[], kwonlyargs=[], "
     "kw_defaults=[], kwarg=arg(arg='k', lineno=1, col_offset=8, end_lineno=1, end_col_offset=9), "
     "defaults=[]), body=[Pass(lineno=1, col_offset=13, end_lineno=1, end_col_offset=17)], "
     "decorator_list=[], lineno=1, col_offset=0, end_lineno=1, end_col_offset=17)], "
     "type_ignores=[])"},
    {"def f(a, /,): pass\n", 11,
     "Module(body=[FunctionDef(name='f', args=arguments(posonlyargs=[arg(arg='a', lineno=1, "
     "col_offset=6, end_lineno=1, end_col_offset=7)], args=[], kwonlyargs=[], kw_defaults=[], "
     "defaults=[]), body=[Pass(lineno=1, col_offset=14, end_lineno=1, end_col_offset=18)], "
     "decorator_list=[], lineno=1, col_offset=0, end_lineno=1, end_col_offset=18)], "
     "type_ignores=[])"},
    {"def f(a, /): pass\n", 11,
     "Module(body=[FunctionDef(name='f', args=arguments(posonlyargs=[arg(arg='a', lineno=1, "
     "col_offset=6, end_lineno=1, end_col_offset=7)], args=[], kwonlyargs=[], kw_defaults=[], "
     "defaults=[]), body=[Pass(lineno=1, col_offset=13, end_lineno=1, end_col_offset=17)], "
     "decorator_list=[], lineno=1, col_offset=0, end_lineno=1, end_col_offset=17)], "
     "type_ignores=[])"},
    {"async def f(x):\n    await x\n", 11,
     "Module(body=[AsyncFunctionDef(name='f', args=arguments(posonlyargs=[], args=[arg(arg='x', "
     "lineno=1, col_offset=12, end_lineno=1, end_col_offset=13)], kwonlyargs=[], kw_defaults=[], "
     "defaults=[]), body=[Expr(value=Await(value=Name(id='x', ctx=Load(), lineno=2, col_offset=10, "
     "end_lineno=2, end_col_offset=11), lineno=2, col_offset=4, end_lineno=2, end_col_offset=11), "
     "lineno=2, col_offset=4, end_lineno=2, end_col_offset=11)], decorator_list=[], lineno=1, "
     "col_offset=0, end_lineno=2, end_col_offset=11)], type_ignores=[])"},
    {"@d\ndef f(): pass\n", 11,
     "Module(body=[FunctionDef(name='f', args=arguments(posonlyargs=[], args=[], kwonlyargs=[], "
     "kw_defaults=[], defaults=[]), body=[Pass(lineno=2, col_offset=9, end_lineno=2, "
     "end_col_offset=13)], decorator_list=[Name(id='d', ctx=Load(), lineno=1, col_offset=1, "
     "end_lineno=1, end_col_offset=2)], lineno=2, col_offset=0, end_lineno=2, end_col_offset=13)], "
     "type_ignores=[])"},
    {"@a.b(c)\n@d\nclass C: pass\n", 11,
     "Module(body=[ClassDef(name='C', bases=[], keywords=[], body=[Pass(lineno=3, col_offset=9, "
     "end_lineno=3, end_col_offset=13)], decorator_list=[Call(func=Attribute(value=Name(id='a', "
     "ctx=Load(), lineno=1, col_offset=1, end_lineno=1, end_col_offset=2), attr='b', ctx=Load(), "
     "lineno=1, col_offset=1, end_lineno=1, end_col_offset=4), args=[Name(id='c', ctx=Load(), "
     "lineno=1, col_offset=5, end_lineno=1, end_col_offset=6)], keywords=[], lineno=1, "
     "col_offset=1, end_lineno=1, end_col_offset=7), Name(id='d', ctx=Load(), lineno=2, "
     "col_offset=1, end_lineno=2, end_col_offset=2)], lineno=3, col_offset=0, end_lineno=3, "
     "end_col_offset=13)], type_ignores=[])"},
    {"@x[0] or y\ndef f(): pass\n", 11,
     "Module(body=[FunctionDef(name='f', args=arguments(posonlyargs=[], args=[], kwonlyargs=[], "
     "kw_defaults=[], defaults=[]), body=[Pass(lineno=2, col_offset=9, end_lineno=2, "
     "end_col_offset=13)], decorator_list=[BoolOp(op=Or(), values=[Subscript(value=Name(id='x', "
     "ctx=Load(), lineno=1, col_offset=1, end_lineno=1, end_col_offset=2), slice=Constant(value=0, "
     "lineno=1, col_offset=3, end_lineno=1, end_col_offset=4), ctx=Load(), lineno=1, col_offset=1, "
     "end_lineno=1, end_col_offset=5), Name(id='y', ctx=Load(), lineno=1, col_offset=9, "
     "end_lineno=1, end_col_offset=10)], lineno=1, col_offset=1, end_lineno=1, "
     "end_col_offset=10)], lineno=2, col_offset=0, end_lineno=2, end_col_offset=13)], "
     "type_ignores=[])"},
    {"@d\nasync def f(): pass\n", 11,
     "Module(body=[AsyncFunctionDef(name='f', args=arguments(posonlyargs=[], args=[], "
     "kwonlyargs=[], kw_defaults=[], defaults=[]), body=[Pass(lineno=2, col_offset=15, "
     "end_lineno=2, end_col_offset=19)], decorator_list=[Name(id='d', ctx=Load(), lineno=1, "
     "col_offset=1, end_lineno=1, end_col_offset=2)], lineno=2, col_offset=0, end_lineno=2, "
     "end_col_offset=19)], type_ignores=[])"},
    {"class C: pass\n", 11,
     "Module(body=[ClassDef(name='C', bases=[], keywords=[], body=[Pass(lineno=1, col_offset=9, "
     "end_lineno=1, end_col_offset=13)], decorator_list=[], lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=13)], type_ignores=[])"},
    {"class C(): pass\n", 11,
     "Module(body=[ClassDef(name='C', bases=[], keywords=[], body=[Pass(lineno=1, col_offset=11, "
     "end_lineno=1, end_col_offset=15)], decorator_list=[], lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=15)], type_ignores=[])"},
    {"class C(A, B, metaclass=M, **kw): pass\n", 11,
     "Module(body=[ClassDef(name='C', bases=[Name(id='A', ctx=Load(), lineno=1, col_offset=8, "
     "end_lineno=1, end_col_offset=9), Name(id='B', ctx=Load(), lineno=1, col_offset=11, "
     "end_lineno=1, end_col_offset=12)], keywords=[keyword(arg='metaclass', value=Name(id='M', "
     "ctx=Load(), lineno=1, col_offset=24, end_lineno=1, end_col_offset=25), lineno=1, "
     "col_offset=14, end_lineno=1, end_col_offset=25), keyword(value=Name(id='kw', ctx=Load(), "
     "lineno=1, col_offset=29, end_lineno=1, end_col_offset=31), lineno=1, col_offset=27, "
     "end_lineno=1, end_col_offset=31)], body=[Pass(lineno=1, col_offset=34, end_lineno=1, "
     "end_col_offset=38)], decorator_list=[], lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=38)], type_ignores=[])"},
    {"class C(*bases): pass\n", 11,
     "Module(body=[ClassDef(name='C', bases=[Starred(value=Name(id='bases', ctx=Load(), lineno=1, "
     "col_offset=9, end_lineno=1, end_col_offset=14), ctx=Load(), lineno=1, col_offset=8, "
     "end_lineno=1, end_col_offset=14)], keywords=[], body=[Pass(lineno=1, col_offset=17, "
     "end_lineno=1, end_col_offset=21)], decorator_list=[], lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=21)], type_ignores=[])"},
    {"class C:\n    def f(self):\n        return self\n\n    x = 1\n", 11,
     "Module(body=[ClassDef(name='C', bases=[], keywords=[], body=[FunctionDef(name='f', "
     "args=arguments(posonlyargs=[], args=[arg(arg='self', lineno=2, col_offset=10, end_lineno=2, "
     "end_col_offset=14)], kwonlyargs=[], kw_defaults=[], defaults=[]), "
     "body=[Return(value=Name(id='self', ctx=Load(), lineno=3, col_offset=15, end_lineno=3, "
     "end_col_offset=19), lineno=3, col_offset=8, end_lineno=3, end_col_offset=19)], "
     "decorator_list=[], lineno=2, col_offset=4, end_lineno=3, end_col_offset=19), "
     "Assign(targets=[Name(id='x', ctx=Store(), lineno=5, col_offset=4, end_lineno=5, "
     "end_col_offset=5)], value=Constant(value=1, lineno=5, col_offset=8, end_lineno=5, "
     "end_col_offset=9), lineno=5, col_offset=4, end_lineno=5, end_col_offset=9)], "
     "decorator_list=[], lineno=1, col_offset=0, end_lineno=5, end_col_offset=9)], "
     "type_ignores=[])"},
    {"f = lambda a, b=1, *c, d, e=2, **f: 0\n", 11,
     "Module(body=[Assign(targets=[Name(id='f', ctx=Store(), lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=1)], value=Lambda(args=arguments(posonlyargs=[], args=[arg(arg='a', lineno=1, "
     "col_offset=11, end_lineno=1, end_col_offset=12), arg(arg='b', lineno=1, col_offset=14, "
     "end_lineno=1, end_col_offset=15)], vararg=arg(arg='c', lineno=1, col_offset=20, "
     "end_lineno=1, end_col_offset=21), kwonlyargs=[arg(arg='d', lineno=1, col_offset=23, "
     "end_lineno=1, end_col_offset=24), arg(arg='e', lineno=1, col_offset=26, end_lineno=1, "
     "end_col_offset=27)], kw_defaults=[None, Constant(value=2, lineno=1, col_offset=28, "
     "end_lineno=1, end_col_offset=29)], kwarg=arg(arg='f', lineno=1, col_offset=33, end_lineno=1, "
     "end_col_offset=34), defaults=[Constant(value=1, lineno=1, col_offset=16, end_lineno=1, "
     "end_col_offset=17)]), body=Constant(value=0, lineno=1, col_offset=36, end_lineno=1, "
     "end_col_offset=37), lineno=1, col_offset=4, end_lineno=1, end_col_offset=37), lineno=1, "
     "col_offset=0, end_lineno=1, end_col_offset=37)], type_ignores=[])"},
    {"f = lambda *, a: a\n", 11,
     "Module(body=[Assign(targets=[Name(id='f', ctx=Store(), lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=1)], value=Lambda(args=arguments(posonlyargs=[], args=[], "
     "kwonlyargs=[arg(arg='a', lineno=1, col_offset=14, end_lineno=1, end_col_offset=15)], "
     "kw_defaults=[None], defaults=[]), body=Name(id='a', ctx=Load(), lineno=1, col_offset=17, "
     "end_lineno=1, end_col_offset=18), lineno=1, col_offset=4, end_lineno=1, end_col_offset=18), "
     "lineno=1, col_offset=0, end_lineno=1, end_col_offset=18)], type_ignores=[])"},
    {"f = lambda a, /, b: 0\n", 11,
     "Module(body=[Assign(targets=[Name(id='f', ctx=Store(), lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=1)], value=Lambda(args=arguments(posonlyargs=[arg(arg='a', lineno=1, "
     "col_offset=11, end_lineno=1, end_col_offset=12)], args=[arg(arg='b', lineno=1, "
     "col_offset=17, end_lineno=1, end_col_offset=18)], kwonlyargs=[], kw_defaults=[], "
     "defaults=[]), body=Constant(value=0, lineno=1, col_offset=20, end_lineno=1, "
     "end_col_offset=21), lineno=1, col_offset=4, end_lineno=1, end_col_offset=21), lineno=1, "
     "col_offset=0, end_lineno=1, end_col_offset=21)], type_ignores=[])"},
    {"f = lambda: (yield)\n", 11,
     "Module(body=[Assign(targets=[Name(id='f', ctx=Store(), lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=1)], value=Lambda(args=arguments(posonlyargs=[], args=[], kwonlyargs=[], "
     "kw_defaults=[], defaults=[]), body=Yield(lineno=1, col_offset=13, end_lineno=1, "
     "end_col_offset=18), lineno=1, col_offset=4, end_lineno=1, end_col_offset=19), lineno=1, "
     "col_offset=0, end_lineno=1, end_col_offset=19)], type_ignores=[])"},
    {"match x:\n    case 1:\n        pass\n", 11,
     "Module(body=[Match(subject=Name(id='x', ctx=Load(), lineno=1, col_offset=6, end_lineno=1, "
     "end_col_offset=7), cases=[match_case(pattern=MatchValue(value=Constant(value=1, lineno=2, "
     "col_offset=9, end_lineno=2, end_col_offset=10), lineno=2, col_offset=9, end_lineno=2, "
     "end_col_offset=10), body=[Pass(lineno=3, col_offset=8, end_lineno=3, end_col_offset=12)])], "
     "lineno=1, col_offset=0, end_lineno=3, end_col_offset=12)], type_ignores=[])"},
    {"match x, y:\n    case a, b: pass\n", 11,
     "Module(body=[Match(subject=Tuple(elts=[Name(id='x', ctx=Load(), lineno=1, col_offset=6, "
     "end_lineno=1, end_col_offset=7), Name(id='y', ctx=Load(), lineno=1, col_offset=9, "
     "end_lineno=1, end_col_offset=10)], ctx=Load(), lineno=1, col_offset=6, end_lineno=1, "
     "end_col_offset=10), cases=[match_case(pattern=MatchSequence(patterns=[MatchAs(name='a', "
     "lineno=2, col_offset=9, end_lineno=2, end_col_offset=10), MatchAs(name='b', lineno=2, "
     "col_offset=12, end_lineno=2, end_col_offset=13)], lineno=2, col_offset=9, end_lineno=2, "
     "end_col_offset=13), body=[Pass(lineno=2, col_offset=15, end_lineno=2, end_col_offset=19)])], "
     "lineno=1, col_offset=0, end_lineno=2, end_col_offset=19)], type_ignores=[])"},
    {"match *a, b:\n    case [a, *_]: pass\n", 11,
     "Module(body=[Match(subject=Tuple(elts=[Starred(value=Name(id='a', ctx=Load(), lineno=1, "
     "col_offset=7, end_lineno=1, end_col_offset=8), ctx=Load(), lineno=1, col_offset=6, "
     "end_lineno=1, end_col_offset=8), Name(id='b', ctx=Load(), lineno=1, col_offset=10, "
     "end_lineno=1, end_col_offset=11)], ctx=Load(), lineno=1, col_offset=6, end_lineno=1, "
     "end_col_offset=11), cases=[match_case(pattern=MatchSequence(patterns=[MatchAs(name='a', "
     "lineno=2, col_offset=10, end_lineno=2, end_col_offset=11), MatchStar(lineno=2, "
     "col_offset=13, end_lineno=2, end_col_offset=15)], lineno=2, col_offset=9, end_lineno=2, "
     "end_col_offset=16), body=[Pass(lineno=2, col_offset=18, end_lineno=2, end_col_offset=22)])], "
     "lineno=1, col_offset=0, end_lineno=2, end_col_offset=22)], type_ignores=[])"},
    {"match x,:\n    case (): pass\n", 11,
     "Module(body=[Match(subject=Tuple(elts=[Name(id='x', ctx=Load(), lineno=1, col_offset=6, "
     "end_lineno=1, end_col_offset=7)], ctx=Load(), lineno=1, col_offset=6, end_lineno=1, "
     "end_col_offset=8), cases=[match_case(pattern=MatchSequence(patterns=[], lineno=2, "
     "col_offset=9, end_lineno=2, end_col_offset=11), body=[Pass(lineno=2, col_offset=13, "
     "end_lineno=2, end_col_offset=17)])], lineno=1, col_offset=0, end_lineno=2, "
     "end_col_offset=17)], type_ignores=[])"},
    {"match x:\n    case -1+2j | (a.b.c) | C(1, x=[a, *_]) | {1: _, 'k': a, **r}: pass\n", 11,
     "Module(body=[Match(subject=Name(id='x', ctx=Load(), lineno=1, col_offset=6, end_lineno=1, "
     "end_col_offset=7), "
     "cases=[match_case(pattern=MatchOr(patterns=[MatchValue(value=BinOp(left=UnaryOp(op=USub(), "
     "operand=Constant(value=1, lineno=2, col_offset=10, end_lineno=2, end_col_offset=11), "
     "lineno=2, col_offset=9, end_lineno=2, end_col_offset=11), op=Add(), right=Constant(value=2j, "
     "lineno=2, col_offset=12, end_lineno=2, end_col_offset=14), lineno=2, col_offset=9, "
     "end_lineno=2, end_col_offset=14), lineno=2, col_offset=9, end_lineno=2, end_col_offset=14), "
     "MatchValue(value=Attribute(value=Attribute(value=Name(id='a', ctx=Load(), lineno=2, "
     "col_offset=18, end_lineno=2, end_col_offset=19), attr='b', ctx=Load(), lineno=2, "
     "col_offset=18, end_lineno=2, end_col_offset=21), attr='c', ctx=Load(), lineno=2, "
     "col_offset=18, end_lineno=2, end_col_offset=23), lineno=2, col_offset=18, end_lineno=2, "
     "end_col_offset=23), MatchClass(cls=Name(id='C', ctx=Load(), lineno=2, col_offset=27, "
     "end_lineno=2, end_col_offset=28), patterns=[MatchValue(value=Constant(value=1, lineno=2, "
     "col_offset=29, end_lineno=2, end_col_offset=30), lineno=2, col_offset=29, end_lineno=2, "
     "end_col_offset=30)], kwd_attrs=['x'], "
     "kwd_patterns=[MatchSequence(patterns=[MatchAs(name='a', lineno=2, col_offset=35, "
     "end_lineno=2, end_col_offset=36), MatchStar(lineno=2, col_offset=38, end_lineno=2, "
     "end_col_offset=40)], lineno=2, col_offset=34, end_lineno=2, end_col_offset=41)], lineno=2, "
     "col_offset=27, end_lineno=2, end_col_offset=42), MatchMapping(keys=[Constant(value=1, "
     "lineno=2, col_offset=46, end_lineno=2, end_col_offset=47), Constant(value='k', lineno=2, "
     "col_offset=52, end_lineno=2, end_col_offset=55)], patterns=[MatchAs(lineno=2, col_offset=49, "
     "end_lineno=2, end_col_offset=50), MatchAs(name='a', lineno=2, col_offset=57, end_lineno=2, "
     "end_col_offset=58)], rest='r', lineno=2, col_offset=45, end_lineno=2, end_col_offset=64)], "
     "lineno=2, col_offset=9, end_lineno=2, end_col_offset=64), body=[Pass(lineno=2, "
     "col_offset=66, end_lineno=2, end_col_offset=70)])], lineno=1, col_offset=0, end_lineno=2, "
     "end_col_offset=70)], type_ignores=[])"},
    {"match x:\n    case 1 | 2 as y if y > 1:\n        pass\n    case _:\n        pass\n", 11,
     "Module(body=[Match(subject=Name(id='x', ctx=Load(), lineno=1, col_offset=6, end_lineno=1, "
     "end_col_offset=7), "
     "cases=[match_case(pattern=MatchAs(pattern=MatchOr(patterns=[MatchValue(value=Constant(value="
     "1, lineno=2, col_offset=9, end_lineno=2, end_col_offset=10), lineno=2, col_offset=9, "
     "end_lineno=2, end_col_offset=10), MatchValue(value=Constant(value=2, lineno=2, "
     "col_offset=13, end_lineno=2, end_col_offset=14), lineno=2, col_offset=13, end_lineno=2, "
     "end_col_offset=14)], lineno=2, col_offset=9, end_lineno=2, end_col_offset=14), name='y', "
     "lineno=2, col_offset=9, end_lineno=2, end_col_offset=19), guard=Compare(left=Name(id='y', "
     "ctx=Load(), lineno=2, col_offset=23, end_lineno=2, end_col_offset=24), ops=[Gt()], "
     "comparators=[Constant(value=1, lineno=2, col_offset=27, end_lineno=2, end_col_offset=28)], "
     "lineno=2, col_offset=23, end_lineno=2, end_col_offset=28), body=[Pass(lineno=3, "
     "col_offset=8, end_lineno=3, end_col_offset=12)]), match_case(pattern=MatchAs(lineno=4, "
     "col_offset=9, end_lineno=4, end_col_offset=10), body=[Pass(lineno=5, col_offset=8, "
     "end_lineno=5, end_col_offset=12)])], lineno=1, col_offset=0, end_lineno=5, "
     "end_col_offset=12)], type_ignores=[])"},
    {"match x:\n    case {a.b: 1,}: pass\n", 11,
     "Module(body=[Match(subject=Name(id='x', ctx=Load(), lineno=1, col_offset=6, end_lineno=1, "
     "end_col_offset=7), cases=[match_case(pattern=MatchMapping(keys=[Attribute(value=Name(id='a', "
     "ctx=Load(), lineno=2, col_offset=10, end_lineno=2, end_col_offset=11), attr='b', ctx=Load(), "
     "lineno=2, col_offset=10, end_lineno=2, end_col_offset=13)], "
     "patterns=[MatchValue(value=Constant(value=1, lineno=2, col_offset=15, end_lineno=2, "
     "end_col_offset=16), lineno=2, col_offset=15, end_lineno=2, end_col_offset=16)], lineno=2, "
     "col_offset=9, end_lineno=2, end_col_offset=18), body=[Pass(lineno=2, col_offset=20, "
     "end_lineno=2, end_col_offset=24)])], lineno=1, col_offset=0, end_lineno=2, "
     "end_col_offset=24)], type_ignores=[])"},
    {"match x:\n    case {**r}: pass\n", 11,
     "Module(body=[Match(subject=Name(id='x', ctx=Load(), lineno=1, col_offset=6, end_lineno=1, "
     "end_col_offset=7), cases=[match_case(pattern=MatchMapping(keys=[], patterns=[], rest='r', "
     "lineno=2, col_offset=9, end_lineno=2, end_col_offset=14), body=[Pass(lineno=2, "
     "col_offset=16, end_lineno=2, end_col_offset=20)])], lineno=1, col_offset=0, end_lineno=2, "
     "end_col_offset=20)], type_ignores=[])"},
    {"match x:\n    case {}: pass\n", 11,
     "Module(body=[Match(subject=Name(id='x', ctx=Load(), lineno=1, col_offset=6, end_lineno=1, "
     "end_col_offset=7), cases=[match_case(pattern=MatchMapping(keys=[], patterns=[], lineno=2, "
     "col_offset=9, end_lineno=2, end_col_offset=11), body=[Pass(lineno=2, col_offset=13, "
     "end_lineno=2, end_col_offset=17)])], lineno=1, col_offset=0, end_lineno=2, "
     "end_col_offset=17)], type_ignores=[])"},
    {"match x:\n    case None | True | False: pass\n", 11,
     "Module(body=[Match(subject=Name(id='x', ctx=Load(), lineno=1, col_offset=6, end_lineno=1, "
     "end_col_offset=7), cases=[match_case(pattern=MatchOr(patterns=[MatchSingleton(value=None, "
     "lineno=2, col_offset=9, end_lineno=2, end_col_offset=13), MatchSingleton(value=True, "
     "lineno=2, col_offset=16, end_lineno=2, end_col_offset=20), MatchSingleton(value=False, "
     "lineno=2, col_offset=23, end_lineno=2, end_col_offset=28)], lineno=2, col_offset=9, "
     "end_lineno=2, end_col_offset=28), body=[Pass(lineno=2, col_offset=30, end_lineno=2, "
     "end_col_offset=34)])], lineno=1, col_offset=0, end_lineno=2, end_col_offset=34)], "
     "type_ignores=[])"},
    {"match x:\n    case 'a' 'b': pass\n", 11,
     "Module(body=[Match(subject=Name(id='x', ctx=Load(), lineno=1, col_offset=6, end_lineno=1, "
     "end_col_offset=7), cases=[match_case(pattern=MatchValue(value=Constant(value='ab', lineno=2, "
     "col_offset=9, end_lineno=2, end_col_offset=16), lineno=2, col_offset=9, end_lineno=2, "
     "end_col_offset=16), body=[Pass(lineno=2, col_offset=18, end_lineno=2, end_col_offset=22)])], "
     "lineno=1, col_offset=0, end_lineno=2, end_col_offset=22)], type_ignores=[])"},
    {"match x:\n    case -0j: pass\n", 11,
     "Module(body=[Match(subject=Name(id='x', ctx=Load(), lineno=1, col_offset=6, end_lineno=1, "
     "end_col_offset=7), cases=[match_case(pattern=MatchValue(value=UnaryOp(op=USub(), "
     "operand=Constant(value=0j, lineno=2, col_offset=10, end_lineno=2, end_col_offset=12), "
     "lineno=2, col_offset=9, end_lineno=2, end_col_offset=12), lineno=2, col_offset=9, "
     "end_lineno=2, end_col_offset=12), body=[Pass(lineno=2, col_offset=14, end_lineno=2, "
     "end_col_offset=18)])], lineno=1, col_offset=0, end_lineno=2, end_col_offset=18)], "
     "type_ignores=[])"},
    {"match x:\n    case -1.5 - 2j: pass\n", 11,
     "Module(body=[Match(subject=Name(id='x', ctx=Load(), lineno=1, col_offset=6, end_lineno=1, "
     "end_col_offset=7), cases=[match_case(pattern=MatchValue(value=BinOp(left=UnaryOp(op=USub(), "
     "operand=Constant(value=1.5, lineno=2, col_offset=10, end_lineno=2, end_col_offset=13), "
     "lineno=2, col_offset=9, end_lineno=2, end_col_offset=13), op=Sub(), right=Constant(value=2j, "
     "lineno=2, col_offset=16, end_lineno=2, end_col_offset=18), lineno=2, col_offset=9, "
     "end_lineno=2, end_col_offset=18), lineno=2, col_offset=9, end_lineno=2, end_col_offset=18), "
     "body=[Pass(lineno=2, col_offset=20, end_lineno=2, end_col_offset=24)])], lineno=1, "
     "col_offset=0, end_lineno=2, end_col_offset=24)], type_ignores=[])"},
    {"match x:\n    case a.b(): pass\n", 11,
     "Module(body=[Match(subject=Name(id='x', ctx=Load(), lineno=1, col_offset=6, end_lineno=1, "
     "end_col_offset=7), cases=[match_case(pattern=MatchClass(cls=Attribute(value=Name(id='a', "
     "ctx=Load(), lineno=2, col_offset=9, end_lineno=2, end_col_offset=10), attr='b', ctx=Load(), "
     "lineno=2, col_offset=9, end_lineno=2, end_col_offset=12), patterns=[], kwd_attrs=[], "
     "kwd_patterns=[], lineno=2, col_offset=9, end_lineno=2, end_col_offset=14), "
     "body=[Pass(lineno=2, col_offset=16, end_lineno=2, end_col_offset=20)])], lineno=1, "
     "col_offset=0, end_lineno=2, end_col_offset=20)], type_ignores=[])"},
    {"match x:\n    case C(x=1,): pass\n", 11,
     "Module(body=[Match(subject=Name(id='x', ctx=Load(), lineno=1, col_offset=6, end_lineno=1, "
     "end_col_offset=7), cases=[match_case(pattern=MatchClass(cls=Name(id='C', ctx=Load(), "
     "lineno=2, col_offset=9, end_lineno=2, end_col_offset=10), patterns=[], kwd_attrs=['x'], "
     "kwd_patterns=[MatchValue(value=Constant(value=1, lineno=2, col_offset=13, end_lineno=2, "
     "end_col_offset=14), lineno=2, col_offset=13, end_lineno=2, end_col_offset=14)], lineno=2, "
     "col_offset=9, end_lineno=2, end_col_offset=16), body=[Pass(lineno=2, col_offset=18, "
     "end_lineno=2, end_col_offset=22)])], lineno=1, col_offset=0, end_lineno=2, "
     "end_col_offset=22)], type_ignores=[])"},
    {"match x:\n    case C(a, b, c=d, e=f): pass\n", 11,
     "Module(body=[Match(subject=Name(id='x', ctx=Load(), lineno=1, col_offset=6, end_lineno=1, "
     "end_col_offset=7), cases=[match_case(pattern=MatchClass(cls=Name(id='C', ctx=Load(), "
     "lineno=2, col_offset=9, end_lineno=2, end_col_offset=10), patterns=[MatchAs(name='a', "
     "lineno=2, col_offset=11, end_lineno=2, end_col_offset=12), MatchAs(name='b', lineno=2, "
     "col_offset=14, end_lineno=2, end_col_offset=15)], kwd_attrs=['c', 'e'], "
     "kwd_patterns=[MatchAs(name='d', lineno=2, col_offset=19, end_lineno=2, end_col_offset=20), "
     "MatchAs(name='f', lineno=2, col_offset=24, end_lineno=2, end_col_offset=25)], lineno=2, "
     "col_offset=9, end_lineno=2, end_col_offset=26), body=[Pass(lineno=2, col_offset=28, "
     "end_lineno=2, end_col_offset=32)])], lineno=1, col_offset=0, end_lineno=2, "
     "end_col_offset=32)], type_ignores=[])"},
    {"match x:\n    case [a, *rest, b,]: pass\n", 11,
     "Module(body=[Match(subject=Name(id='x', ctx=Load(), lineno=1, col_offset=6, end_lineno=1, "
     "end_col_offset=7), cases=[match_case(pattern=MatchSequence(patterns=[MatchAs(name='a', "
     "lineno=2, col_offset=10, end_lineno=2, end_col_offset=11), MatchStar(name='rest', lineno=2, "
     "col_offset=13, end_lineno=2, end_col_offset=18), MatchAs(name='b', lineno=2, col_offset=20, "
     "end_lineno=2, end_col_offset=21)], lineno=2, col_offset=9, end_lineno=2, end_col_offset=23), "
     "body=[Pass(lineno=2, col_offset=25, end_lineno=2, end_col_offset=29)])], lineno=1, "
     "col_offset=0, end_lineno=2, end_col_offset=29)], type_ignores=[])"},
    {"match x:\n    case (a): pass\n", 11,
     "Module(body=[Match(subject=Name(id='x', ctx=Load(), lineno=1, col_offset=6, end_lineno=1, "
     "end_col_offset=7), cases=[match_case(pattern=MatchAs(name='a', lineno=2, col_offset=10, "
     "end_lineno=2, end_col_offset=11), body=[Pass(lineno=2, col_offset=14, end_lineno=2, "
     "end_col_offset=18)])], lineno=1, col_offset=0, end_lineno=2, end_col_offset=18)], "
     "type_ignores=[])"},
    {"match x:\n    case ((a, b)): pass\n", 11,
     "Module(body=[Match(subject=Name(id='x', ctx=Load(), lineno=1, col_offset=6, end_lineno=1, "
     "end_col_offset=7), cases=[match_case(pattern=MatchSequence(patterns=[MatchAs(name='a', "
     "lineno=2, col_offset=11, end_lineno=2, end_col_offset=12), MatchAs(name='b', lineno=2, "
     "col_offset=14, end_lineno=2, end_col_offset=15)], lineno=2, col_offset=10, end_lineno=2, "
     "end_col_offset=16), body=[Pass(lineno=2, col_offset=19, end_lineno=2, end_col_offset=23)])], "
     "lineno=1, col_offset=0, end_lineno=2, end_col_offset=23)], type_ignores=[])"},
    {"match x:\n    case a,: pass\n", 11,
     "Module(body=[Match(subject=Name(id='x', ctx=Load(), lineno=1, col_offset=6, end_lineno=1, "
     "end_col_offset=7), cases=[match_case(pattern=MatchSequence(patterns=[MatchAs(name='a', "
     "lineno=2, col_offset=9, end_lineno=2, end_col_offset=10)], lineno=2, col_offset=9, "
     "end_lineno=2, end_col_offset=11), body=[Pass(lineno=2, col_offset=13, end_lineno=2, "
     "end_col_offset=17)])], lineno=1, col_offset=0, end_lineno=2, end_col_offset=17)], "
     "type_ignores=[])"},
    {"match x:\n    case *a, b: pass\n", 11,
     "Module(body=[Match(subject=Name(id='x', ctx=Load(), lineno=1, col_offset=6, end_lineno=1, "
     "end_col_offset=7), cases=[match_case(pattern=MatchSequence(patterns=[MatchStar(name='a', "
     "lineno=2, col_offset=9, end_lineno=2, end_col_offset=11), MatchAs(name='b', lineno=2, "
     "col_offset=13, end_lineno=2, end_col_offset=14)], lineno=2, col_offset=9, end_lineno=2, "
     "end_col_offset=14), body=[Pass(lineno=2, col_offset=16, end_lineno=2, end_col_offset=20)])], "
     "lineno=1, col_offset=0, end_lineno=2, end_col_offset=20)], type_ignores=[])"},
    {"match x:\n    case [*_]: pass\n", 11,
     "Module(body=[Match(subject=Name(id='x', ctx=Load(), lineno=1, col_offset=6, end_lineno=1, "
     "end_col_offset=7), cases=[match_case(pattern=MatchSequence(patterns=[MatchStar(lineno=2, "
     "col_offset=10, end_lineno=2, end_col_offset=12)], lineno=2, col_offset=9, end_lineno=2, "
     "end_col_offset=13), body=[Pass(lineno=2, col_offset=15, end_lineno=2, end_col_offset=19)])], "
     "lineno=1, col_offset=0, end_lineno=2, end_col_offset=19)], type_ignores=[])"},
    {"match x:\n    case (1 | 2) as z: pass\n", 11,
     "Module(body=[Match(subject=Name(id='x', ctx=Load(), lineno=1, col_offset=6, end_lineno=1, "
     "end_col_offset=7), "
     "cases=[match_case(pattern=MatchAs(pattern=MatchOr(patterns=[MatchValue(value=Constant(value="
     "1, lineno=2, col_offset=10, end_lineno=2, end_col_offset=11), lineno=2, col_offset=10, "
     "end_lineno=2, end_col_offset=11), MatchValue(value=Constant(value=2, lineno=2, "
     "col_offset=14, end_lineno=2, end_col_offset=15), lineno=2, col_offset=14, end_lineno=2, "
     "end_col_offset=15)], lineno=2, col_offset=10, end_lineno=2, end_col_offset=15), name='z', "
     "lineno=2, col_offset=9, end_lineno=2, end_col_offset=21), body=[Pass(lineno=2, "
     "col_offset=23, end_lineno=2, end_col_offset=27)])], lineno=1, col_offset=0, end_lineno=2, "
     "end_col_offset=27)], type_ignores=[])"},
    {"match (x):\n    case 1: pass\n", 11,
     "Module(body=[Match(subject=Name(id='x', ctx=Load(), lineno=1, col_offset=7, end_lineno=1, "
     "end_col_offset=8), cases=[match_case(pattern=MatchValue(value=Constant(value=1, lineno=2, "
     "col_offset=9, end_lineno=2, end_col_offset=10), lineno=2, col_offset=9, end_lineno=2, "
     "end_col_offset=10), body=[Pass(lineno=2, col_offset=12, end_lineno=2, end_col_offset=16)])], "
     "lineno=1, col_offset=0, end_lineno=2, end_col_offset=16)], type_ignores=[])"},
    {"match a := b:\n    case 1: pass\n", 11,
     "Module(body=[Match(subject=NamedExpr(target=Name(id='a', ctx=Store(), lineno=1, "
     "col_offset=6, end_lineno=1, end_col_offset=7), value=Name(id='b', ctx=Load(), lineno=1, "
     "col_offset=11, end_lineno=1, end_col_offset=12), lineno=1, col_offset=6, end_lineno=1, "
     "end_col_offset=12), cases=[match_case(pattern=MatchValue(value=Constant(value=1, lineno=2, "
     "col_offset=9, end_lineno=2, end_col_offset=10), lineno=2, col_offset=9, end_lineno=2, "
     "end_col_offset=10), body=[Pass(lineno=2, col_offset=12, end_lineno=2, end_col_offset=16)])], "
     "lineno=1, col_offset=0, end_lineno=2, end_col_offset=16)], type_ignores=[])"},
    {"match x:\n    case b'x': pass\n", 11,
     "Module(body=[Match(subject=Name(id='x', ctx=Load(), lineno=1, col_offset=6, end_lineno=1, "
     "end_col_offset=7), cases=[match_case(pattern=MatchValue(value=Constant(value=b'x', lineno=2, "
     "col_offset=9, end_lineno=2, end_col_offset=13), lineno=2, col_offset=9, end_lineno=2, "
     "end_col_offset=13), body=[Pass(lineno=2, col_offset=15, end_lineno=2, end_col_offset=19)])], "
     "lineno=1, col_offset=0, end_lineno=2, end_col_offset=19)], type_ignores=[])"},
    {"match x:\n    case f'a{b}': pass\n", 11,
     "Module(body=[Match(subject=Name(id='x', ctx=Load(), lineno=1, col_offset=6, end_lineno=1, "
     "end_col_offset=7), "
     "cases=[match_case(pattern=MatchValue(value=JoinedStr(values=[Constant(value='a', lineno=2, "
     "col_offset=9, end_lineno=2, end_col_offset=16), FormattedValue(value=Name(id='b', "
     "ctx=Load(), lineno=2, col_offset=13, end_lineno=2, end_col_offset=14), conversion=-1, "
     "lineno=2, col_offset=9, end_lineno=2, end_col_offset=16)], lineno=2, col_offset=9, "
     "end_lineno=2, end_col_offset=16), lineno=2, col_offset=9, end_lineno=2, end_col_offset=16), "
     "body=[Pass(lineno=2, col_offset=18, end_lineno=2, end_col_offset=22)])], lineno=1, "
     "col_offset=0, end_lineno=2, end_col_offset=22)], type_ignores=[])"},
    {"match = 1\n", 11,
     "Module(body=[Assign(targets=[Name(id='match', ctx=Store(), lineno=1, col_offset=0, "
     "end_lineno=1, end_col_offset=5)], value=Constant(value=1, lineno=1, col_offset=8, "
     "end_lineno=1, end_col_offset=9), lineno=1, col_offset=0, end_lineno=1, end_col_offset=9)], "
     "type_ignores=[])"},
    {"match.x = 1\n", 11,
     "Module(body=[Assign(targets=[Attribute(value=Name(id='match', ctx=Load(), lineno=1, "
     "col_offset=0, end_lineno=1, end_col_offset=5), attr='x', ctx=Store(), lineno=1, "
     "col_offset=0, end_lineno=1, end_col_offset=7)], value=Constant(value=1, lineno=1, "
     "col_offset=10, end_lineno=1, end_col_offset=11), lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=11)], type_ignores=[])"},
    {"match(x)\n", 11,
     "Module(body=[Expr(value=Call(func=Name(id='match', ctx=Load(), lineno=1, col_offset=0, "
     "end_lineno=1, end_col_offset=5), args=[Name(id='x', ctx=Load(), lineno=1, col_offset=6, "
     "end_lineno=1, end_col_offset=7)], keywords=[], lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=8), lineno=1, col_offset=0, end_lineno=1, end_col_offset=8)], "
     "type_ignores=[])"},
    {"match[x]\n", 11,
     "Module(body=[Expr(value=Subscript(value=Name(id='match', ctx=Load(), lineno=1, col_offset=0, "
     "end_lineno=1, end_col_offset=5), slice=Name(id='x', ctx=Load(), lineno=1, col_offset=6, "
     "end_lineno=1, end_col_offset=7), ctx=Load(), lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=8), lineno=1, col_offset=0, end_lineno=1, end_col_offset=8)], "
     "type_ignores=[])"},
    {"match -x\n", 11,
     "Module(body=[Expr(value=BinOp(left=Name(id='match', ctx=Load(), lineno=1, col_offset=0, "
     "end_lineno=1, end_col_offset=5), op=Sub(), right=Name(id='x', ctx=Load(), lineno=1, "
     "col_offset=7, end_lineno=1, end_col_offset=8), lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=8), lineno=1, col_offset=0, end_lineno=1, end_col_offset=8)], "
     "type_ignores=[])"},
    {"match: int = 3\n", 11,
     "Module(body=[AnnAssign(target=Name(id='match', ctx=Store(), lineno=1, col_offset=0, "
     "end_lineno=1, end_col_offset=5), annotation=Name(id='int', ctx=Load(), lineno=1, "
     "col_offset=7, end_lineno=1, end_col_offset=10), value=Constant(value=3, lineno=1, "
     "col_offset=13, end_lineno=1, end_col_offset=14), simple=1, lineno=1, col_offset=0, "
     "end_lineno=1, end_col_offset=14)], type_ignores=[])"},
    {"case = 1\n", 11,
     "Module(body=[Assign(targets=[Name(id='case', ctx=Store(), lineno=1, col_offset=0, "
     "end_lineno=1, end_col_offset=4)], value=Constant(value=1, lineno=1, col_offset=7, "
     "end_lineno=1, end_col_offset=8), lineno=1, col_offset=0, end_lineno=1, end_col_offset=8)], "
     "type_ignores=[])"},
    {"match\n", 11,
     "Module(body=[Expr(value=Name(id='match', ctx=Load(), lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=5), lineno=1, col_offset=0, end_lineno=1, end_col_offset=5)], "
     "type_ignores=[])"},
    {"_ = 1\n", 11,
     "Module(body=[Assign(targets=[Name(id='_', ctx=Store(), lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=1)], value=Constant(value=1, lineno=1, col_offset=4, end_lineno=1, "
     "end_col_offset=5), lineno=1, col_offset=0, end_lineno=1, end_col_offset=5)], "
     "type_ignores=[])"},
    {"type = 1\n", 11,
     "Module(body=[Assign(targets=[Name(id='type', ctx=Store(), lineno=1, col_offset=0, "
     "end_lineno=1, end_col_offset=4)], value=Constant(value=1, lineno=1, col_offset=7, "
     "end_lineno=1, end_col_offset=8), lineno=1, col_offset=0, end_lineno=1, end_col_offset=8)], "
     "type_ignores=[])"},
    {"type(x)\n", 11,
     "Module(body=[Expr(value=Call(func=Name(id='type', ctx=Load(), lineno=1, col_offset=0, "
     "end_lineno=1, end_col_offset=4), args=[Name(id='x', ctx=Load(), lineno=1, col_offset=5, "
     "end_lineno=1, end_col_offset=6)], keywords=[], lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=7), lineno=1, col_offset=0, end_lineno=1, end_col_offset=7)], "
     "type_ignores=[])"},
    {"x = 1 if y else 2\n", 11,
     "Module(body=[Assign(targets=[Name(id='x', ctx=Store(), lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=1)], value=IfExp(test=Name(id='y', ctx=Load(), lineno=1, col_offset=9, "
     "end_lineno=1, end_col_offset=10), body=Constant(value=1, lineno=1, col_offset=4, "
     "end_lineno=1, end_col_offset=5), orelse=Constant(value=2, lineno=1, col_offset=16, "
     "end_lineno=1, end_col_offset=17), lineno=1, col_offset=4, end_lineno=1, end_col_offset=17), "
     "lineno=1, col_offset=0, end_lineno=1, end_col_offset=17)], type_ignores=[])"},
    {"print(x)\n", 11,
     "Module(body=[Expr(value=Call(func=Name(id='print', ctx=Load(), lineno=1, col_offset=0, "
     "end_lineno=1, end_col_offset=5), args=[Name(id='x', ctx=Load(), lineno=1, col_offset=6, "
     "end_lineno=1, end_col_offset=7)], keywords=[], lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=8), lineno=1, col_offset=0, end_lineno=1, end_col_offset=8)], "
     "type_ignores=[])"},
    {"if a:\n    if b:\n        pass\n    # comment\nx = 1\n", 11,
     "Module(body=[If(test=Name(id='a', ctx=Load(), lineno=1, col_offset=3, end_lineno=1, "
     "end_col_offset=4), body=[If(test=Name(id='b', ctx=Load(), lineno=2, col_offset=7, "
     "end_lineno=2, end_col_offset=8), body=[Pass(lineno=3, col_offset=8, end_lineno=3, "
     "end_col_offset=12)], orelse=[], lineno=2, col_offset=4, end_lineno=3, end_col_offset=12)], "
     "orelse=[], lineno=1, col_offset=0, end_lineno=3, end_col_offset=12), "
     "Assign(targets=[Name(id='x', ctx=Store(), lineno=5, col_offset=0, end_lineno=5, "
     "end_col_offset=1)], value=Constant(value=1, lineno=5, col_offset=4, end_lineno=5, "
     "end_col_offset=5), lineno=5, col_offset=0, end_lineno=5, end_col_offset=5)], "
     "type_ignores=[])"},
    {"def f():\n    '''doc'''\n    x = 1  # c\n\n\n", 11,
     "Module(body=[FunctionDef(name='f', args=arguments(posonlyargs=[], args=[], kwonlyargs=[], "
     "kw_defaults=[], defaults=[]), body=[Expr(value=Constant(value='doc', lineno=2, col_offset=4, "
     "end_lineno=2, end_col_offset=13), lineno=2, col_offset=4, end_lineno=2, end_col_offset=13), "
     "Assign(targets=[Name(id='x', ctx=Store(), lineno=3, col_offset=4, end_lineno=3, "
     "end_col_offset=5)], value=Constant(value=1, lineno=3, col_offset=8, end_lineno=3, "
     "end_col_offset=9), lineno=3, col_offset=4, end_lineno=3, end_col_offset=9)], "
     "decorator_list=[], lineno=1, col_offset=0, end_lineno=3, end_col_offset=9)], "
     "type_ignores=[])"},
    {"for x in y:\n    if x:\n        break\n    else:\n        continue\n", 11,
     "Module(body=[For(target=Name(id='x', ctx=Store(), lineno=1, col_offset=4, end_lineno=1, "
     "end_col_offset=5), iter=Name(id='y', ctx=Load(), lineno=1, col_offset=9, end_lineno=1, "
     "end_col_offset=10), body=[If(test=Name(id='x', ctx=Load(), lineno=2, col_offset=7, "
     "end_lineno=2, end_col_offset=8), body=[Break(lineno=3, col_offset=8, end_lineno=3, "
     "end_col_offset=13)], orelse=[Continue(lineno=5, col_offset=8, end_lineno=5, "
     "end_col_offset=16)], lineno=2, col_offset=4, end_lineno=5, end_col_offset=16)], orelse=[], "
     "lineno=1, col_offset=0, end_lineno=5, end_col_offset=16)], type_ignores=[])"},
    {"while x:\n  pass\n \n# c\nelse:\n   pass\n", 11,
     "Module(body=[While(test=Name(id='x', ctx=Load(), lineno=1, col_offset=6, end_lineno=1, "
     "end_col_offset=7), body=[Pass(lineno=2, col_offset=2, end_lineno=2, end_col_offset=6)], "
     "orelse=[Pass(lineno=6, col_offset=3, end_lineno=6, end_col_offset=7)], lineno=1, "
     "col_offset=0, end_lineno=6, end_col_offset=7)], type_ignores=[])"},
    {"if x:\n\tpass\n", 11,
     "Module(body=[If(test=Name(id='x', ctx=Load(), lineno=1, col_offset=3, end_lineno=1, "
     "end_col_offset=4), body=[Pass(lineno=2, col_offset=1, end_lineno=2, end_col_offset=5)], "
     "orelse=[], lineno=1, col_offset=0, end_lineno=2, end_col_offset=5)], type_ignores=[])"},
    {"class A(B,):\n    pass\n", 11,
     "Module(body=[ClassDef(name='A', bases=[Name(id='B', ctx=Load(), lineno=1, col_offset=8, "
     "end_lineno=1, end_col_offset=9)], keywords=[], body=[Pass(lineno=2, col_offset=4, "
     "end_lineno=2, end_col_offset=8)], decorator_list=[], lineno=1, col_offset=0, end_lineno=2, "
     "end_col_offset=8)], type_ignores=[])"},
    {"x = [\n  1,\n  2,\n]\n", 11,
     "Module(body=[Assign(targets=[Name(id='x', ctx=Store(), lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=1)], value=List(elts=[Constant(value=1, lineno=2, col_offset=2, end_lineno=2, "
     "end_col_offset=3), Constant(value=2, lineno=3, col_offset=2, end_lineno=3, "
     "end_col_offset=3)], ctx=Load(), lineno=1, col_offset=4, end_lineno=4, end_col_offset=1), "
     "lineno=1, col_offset=0, end_lineno=4, end_col_offset=1)], type_ignores=[])"},
    {"x = (\n  1)\n", 11,
     "Module(body=[Assign(targets=[Name(id='x', ctx=Store(), lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=1)], value=Constant(value=1, lineno=2, col_offset=2, end_lineno=2, "
     "end_col_offset=3), lineno=1, col_offset=0, end_lineno=2, end_col_offset=4)], "
     "type_ignores=[])"},
    {"if x: pass;\n", 11,
     "Module(body=[If(test=Name(id='x', ctx=Load(), lineno=1, col_offset=3, end_lineno=1, "
     "end_col_offset=4), body=[Pass(lineno=1, col_offset=6, end_lineno=1, end_col_offset=10)], "
     "orelse=[], lineno=1, col_offset=0, end_lineno=1, end_col_offset=11)], type_ignores=[])"},
    {"import a.b as c\n", 11,
     "Module(body=[Import(names=[alias(name='a.b', asname='c', lineno=1, col_offset=7, "
     "end_lineno=1, end_col_offset=15)], lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=15)], type_ignores=[])"},
    {"x ; y\n", 11,
     "Module(body=[Expr(value=Name(id='x', ctx=Load(), lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=1), lineno=1, col_offset=0, end_lineno=1, end_col_offset=1), "
     "Expr(value=Name(id='y', ctx=Load(), lineno=1, col_offset=4, end_lineno=1, end_col_offset=5), "
     "lineno=1, col_offset=4, end_lineno=1, end_col_offset=5)], type_ignores=[])"},
    {"with a as *b: pass\n", 11,
     "Module(body=[With(items=[withitem(context_expr=Name(id='a', ctx=Load(), lineno=1, "
     "col_offset=5, end_lineno=1, end_col_offset=6), optional_vars=Starred(value=Name(id='b', "
     "ctx=Store(), lineno=1, col_offset=11, end_lineno=1, end_col_offset=12), ctx=Store(), "
     "lineno=1, col_offset=10, end_lineno=1, end_col_offset=12))], body=[Pass(lineno=1, "
     "col_offset=14, end_lineno=1, end_col_offset=18)], lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=18)], type_ignores=[])"},
    {"*a = 1\n", 11,
     "Module(body=[Assign(targets=[Starred(value=Name(id='a', ctx=Store(), lineno=1, col_offset=1, "
     "end_lineno=1, end_col_offset=2), ctx=Store(), lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=2)], value=Constant(value=1, lineno=1, col_offset=5, end_lineno=1, "
     "end_col_offset=6), lineno=1, col_offset=0, end_lineno=1, end_col_offset=6)], "
     "type_ignores=[])"},
    {"def f(a, a): pass\n", 11,
     "Module(body=[FunctionDef(name='f', args=arguments(posonlyargs=[], args=[arg(arg='a', "
     "lineno=1, col_offset=6, end_lineno=1, end_col_offset=7), arg(arg='a', lineno=1, "
     "col_offset=9, end_lineno=1, end_col_offset=10)], kwonlyargs=[], kw_defaults=[], "
     "defaults=[]), body=[Pass(lineno=1, col_offset=13, end_lineno=1, end_col_offset=17)], "
     "decorator_list=[], lineno=1, col_offset=0, end_lineno=1, end_col_offset=17)], "
     "type_ignores=[])"},
    {"global x\nx = 1\n", 11,
     "Module(body=[Global(names=['x'], lineno=1, col_offset=0, end_lineno=1, end_col_offset=8), "
     "Assign(targets=[Name(id='x', ctx=Store(), lineno=2, col_offset=0, end_lineno=2, "
     "end_col_offset=1)], value=Constant(value=1, lineno=2, col_offset=4, end_lineno=2, "
     "end_col_offset=5), lineno=2, col_offset=0, end_lineno=2, end_col_offset=5)], "
     "type_ignores=[])"},
    {"type X = int\n", 12,
     "Module(body=[TypeAlias(name=Name(id='X', ctx=Store(), lineno=1, col_offset=5, end_lineno=1, "
     "end_col_offset=6), type_params=[], value=Name(id='int', ctx=Load(), lineno=1, col_offset=9, "
     "end_lineno=1, end_col_offset=12), lineno=1, col_offset=0, end_lineno=1, end_col_offset=12)], "
     "type_ignores=[])"},
    {"type X[T] = list[T]\n", 12,
     "Module(body=[TypeAlias(name=Name(id='X', ctx=Store(), lineno=1, col_offset=5, end_lineno=1, "
     "end_col_offset=6), type_params=[TypeVar(name='T', lineno=1, col_offset=7, end_lineno=1, "
     "end_col_offset=8)], value=Subscript(value=Name(id='list', ctx=Load(), lineno=1, "
     "col_offset=12, end_lineno=1, end_col_offset=16), slice=Name(id='T', ctx=Load(), lineno=1, "
     "col_offset=17, end_lineno=1, end_col_offset=18), ctx=Load(), lineno=1, col_offset=12, "
     "end_lineno=1, end_col_offset=19), lineno=1, col_offset=0, end_lineno=1, end_col_offset=19)], "
     "type_ignores=[])"},
    {"type X[T: int, *Ts, **P] = int\n", 12,
     "Module(body=[TypeAlias(name=Name(id='X', ctx=Store(), lineno=1, col_offset=5, end_lineno=1, "
     "end_col_offset=6), type_params=[TypeVar(name='T', bound=Name(id='int', ctx=Load(), lineno=1, "
     "col_offset=10, end_lineno=1, end_col_offset=13), lineno=1, col_offset=7, end_lineno=1, "
     "end_col_offset=13), TypeVarTuple(name='Ts', lineno=1, col_offset=15, end_lineno=1, "
     "end_col_offset=18), ParamSpec(name='P', lineno=1, col_offset=20, end_lineno=1, "
     "end_col_offset=23)], value=Name(id='int', ctx=Load(), lineno=1, col_offset=27, end_lineno=1, "
     "end_col_offset=30), lineno=1, col_offset=0, end_lineno=1, end_col_offset=30)], "
     "type_ignores=[])"},
    {"type X[T,] = int\n", 12,
     "Module(body=[TypeAlias(name=Name(id='X', ctx=Store(), lineno=1, col_offset=5, end_lineno=1, "
     "end_col_offset=6), type_params=[TypeVar(name='T', lineno=1, col_offset=7, end_lineno=1, "
     "end_col_offset=8)], value=Name(id='int', ctx=Load(), lineno=1, col_offset=13, end_lineno=1, "
     "end_col_offset=16), lineno=1, col_offset=0, end_lineno=1, end_col_offset=16)], "
     "type_ignores=[])"},
    {"def f[T](x: T) -> T: pass\n", 12,
     "Module(body=[FunctionDef(name='f', args=arguments(posonlyargs=[], args=[arg(arg='x', "
     "annotation=Name(id='T', ctx=Load(), lineno=1, col_offset=12, end_lineno=1, "
     "end_col_offset=13), lineno=1, col_offset=9, end_lineno=1, end_col_offset=13)], "
     "kwonlyargs=[], kw_defaults=[], defaults=[]), body=[Pass(lineno=1, col_offset=21, "
     "end_lineno=1, end_col_offset=25)], decorator_list=[], returns=Name(id='T', ctx=Load(), "
     "lineno=1, col_offset=18, end_lineno=1, end_col_offset=19), type_params=[TypeVar(name='T', "
     "lineno=1, col_offset=6, end_lineno=1, end_col_offset=7)], lineno=1, col_offset=0, "
     "end_lineno=1, end_col_offset=25)], type_ignores=[])"},
    {"class A[T](B): pass\n", 12,
     "Module(body=[ClassDef(name='A', bases=[Name(id='B', ctx=Load(), lineno=1, col_offset=11, "
     "end_lineno=1, end_col_offset=12)], keywords=[], body=[Pass(lineno=1, col_offset=15, "
     "end_lineno=1, end_col_offset=19)], decorator_list=[], type_params=[TypeVar(name='T', "
     "lineno=1, col_offset=8, end_lineno=1, end_col_offset=9)], lineno=1, col_offset=0, "
     "end_lineno=1, end_col_offset=19)], type_ignores=[])"},
    {"class A[T: (int, str)]: pass\n", 12,
     "Module(body=[ClassDef(name='A', bases=[], keywords=[], body=[Pass(lineno=1, col_offset=24, "
     "end_lineno=1, end_col_offset=28)], decorator_list=[], type_params=[TypeVar(name='T', "
     "bound=Tuple(elts=[Name(id='int', ctx=Load(), lineno=1, col_offset=12, end_lineno=1, "
     "end_col_offset=15), Name(id='str', ctx=Load(), lineno=1, col_offset=17, end_lineno=1, "
     "end_col_offset=20)], ctx=Load(), lineno=1, col_offset=11, end_lineno=1, end_col_offset=21), "
     "lineno=1, col_offset=8, end_lineno=1, end_col_offset=21)], lineno=1, col_offset=0, "
     "end_lineno=1, end_col_offset=28)], type_ignores=[])"},
    {"async def f[T](): pass\n", 12,
     "Module(body=[AsyncFunctionDef(name='f', args=arguments(posonlyargs=[], args=[], "
     "kwonlyargs=[], kw_defaults=[], defaults=[]), body=[Pass(lineno=1, col_offset=18, "
     "end_lineno=1, end_col_offset=22)], decorator_list=[], type_params=[TypeVar(name='T', "
     "lineno=1, col_offset=12, end_lineno=1, end_col_offset=13)], lineno=1, col_offset=0, "
     "end_lineno=1, end_col_offset=22)], type_ignores=[])"},
    {"@d\ndef f[T, *U](): pass\n", 12,
     "Module(body=[FunctionDef(name='f', args=arguments(posonlyargs=[], args=[], kwonlyargs=[], "
     "kw_defaults=[], defaults=[]), body=[Pass(lineno=2, col_offset=16, end_lineno=2, "
     "end_col_offset=20)], decorator_list=[Name(id='d', ctx=Load(), lineno=1, col_offset=1, "
     "end_lineno=1, end_col_offset=2)], type_params=[TypeVar(name='T', lineno=2, col_offset=6, "
     "end_lineno=2, end_col_offset=7), TypeVarTuple(name='U', lineno=2, col_offset=9, "
     "end_lineno=2, end_col_offset=11)], lineno=2, col_offset=0, end_lineno=2, "
     "end_col_offset=20)], type_ignores=[])"},
    {"type = 5\n", 12,
     "Module(body=[Assign(targets=[Name(id='type', ctx=Store(), lineno=1, col_offset=0, "
     "end_lineno=1, end_col_offset=4)], value=Constant(value=5, lineno=1, col_offset=7, "
     "end_lineno=1, end_col_offset=8), lineno=1, col_offset=0, end_lineno=1, end_col_offset=8)], "
     "type_ignores=[])"},
    {"type(x)\n", 12,
     "Module(body=[Expr(value=Call(func=Name(id='type', ctx=Load(), lineno=1, col_offset=0, "
     "end_lineno=1, end_col_offset=4), args=[Name(id='x', ctx=Load(), lineno=1, col_offset=5, "
     "end_lineno=1, end_col_offset=6)], keywords=[], lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=7), lineno=1, col_offset=0, end_lineno=1, end_col_offset=7)], "
     "type_ignores=[])"},
    {"type.x = 1\n", 12,
     "Module(body=[Assign(targets=[Attribute(value=Name(id='type', ctx=Load(), lineno=1, "
     "col_offset=0, end_lineno=1, end_col_offset=4), attr='x', ctx=Store(), lineno=1, "
     "col_offset=0, end_lineno=1, end_col_offset=6)], value=Constant(value=1, lineno=1, "
     "col_offset=9, end_lineno=1, end_col_offset=10), lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=10)], type_ignores=[])"},
    {"type: int\n", 12,
     "Module(body=[AnnAssign(target=Name(id='type', ctx=Store(), lineno=1, col_offset=0, "
     "end_lineno=1, end_col_offset=4), annotation=Name(id='int', ctx=Load(), lineno=1, "
     "col_offset=6, end_lineno=1, end_col_offset=9), simple=1, lineno=1, col_offset=0, "
     "end_lineno=1, end_col_offset=9)], type_ignores=[])"},
};

const Case kErrorCases[] = {
    {"x\n  y\n", 11, "ERROR GM003 2:2 unexpected indent"},
    {"if x:\npass\n", 11,
     "ERROR GM003 2:1 expected an indented block after 'if' statement on line 1"},
    {"if x\n    pass\n", 11, "ERROR GM001 1:5 expected ':'"},
    {"if x y:\n    pass\n", 11, "ERROR GM001 1:6 invalid syntax"},
    {"def f(a=1, b): pass\n", 11, "ERROR GM001 1:12 non-default argument follows default argument"},
    {"f() = 1\n", 11,
     "ERROR GM001 1:1 cannot assign to function call here. Maybe you meant '==' instead of '='?"},
    {"del f()\n", 11, "ERROR GM001 1:5 cannot delete function call"},
    {"for f() in y: pass\n", 11, "ERROR GM001 1:5 cannot assign to function call"},
    {"def f(a b): pass\n", 11, "ERROR GM001 1:9 invalid syntax"},
    {"def f(*,): pass\n", 11, "ERROR GM001 1:7 named arguments must follow bare *"},
    {"def f(**k, a): pass\n", 11, "ERROR GM001 1:12 arguments cannot follow var-keyword argument"},
    {"def f(**k=1): pass\n", 11, "ERROR GM001 1:10 var-keyword argument cannot have default value"},
    {"def f(*a=1): pass\n", 11,
     "ERROR GM001 1:9 var-positional argument cannot have default value"},
    {"def f(/, a): pass\n", 11, "ERROR GM001 1:7 at least one argument must precede /"},
    {"def f(a, /, b, /): pass\n", 11, "ERROR GM001 1:16 / may appear only once"},
    {"def f(*a, /): pass\n", 11, "ERROR GM001 1:11 / must be ahead of *"},
    {"def f(a, *b, *c): pass\n", 11, "ERROR GM001 1:14 * argument may appear only once"},
    {"def f(a=): pass\n", 11, "ERROR GM001 1:8 expected default value expression"},
    {"def f((a)): pass\n", 11, "ERROR GM001 1:7 Function parameters cannot be parenthesized"},
    {"from . import a,\n", 11,
     "ERROR GM001 1:17 trailing comma not allowed without surrounding parentheses"},
    {"print 'x'\n", 11,
     "ERROR GM001 1:1 Missing parentheses in call to 'print'. Did you mean print(...)?"},
    {"x: int, y\n", 11, "ERROR GM001 1:7 invalid syntax"},
    {"a, b: int\n", 11, "ERROR GM001 1:1 only single target (not tuple) can be annotated"},
    {"[a]: int\n", 11, "ERROR GM001 1:1 only single target (not list) can be annotated"},
    {"f(): int\n", 11, "ERROR GM001 1:1 illegal target for annotation"},
    {"(a, b) += 1\n", 11,
     "ERROR GM001 1:1 'tuple' is an illegal expression for augmented assignment"},
    {"class A\n    pass\n", 11, "ERROR GM001 1:8 expected ':'"},
    {"try:\n    pass\n", 11, "ERROR GM001 2:9 expected 'except' or 'finally' block"},
    {"x = yield = 3\n", 11, "ERROR GM001 1:5 assignment to yield expression not possible"},
    {"match x\n    case 1: pass\n", 11, "ERROR GM001 1:8 expected ':'"},
    {"match x:\ncase 1: pass\n", 11,
     "ERROR GM003 2:1 expected an indented block after 'match' statement on line 1"},
    {"while x:\npass\n", 11,
     "ERROR GM003 2:1 expected an indented block after 'while' statement on line 1"},
    {"for x in y:\npass\n", 11,
     "ERROR GM003 2:1 expected an indented block after 'for' statement on line 1"},
    {"def f():\nreturn\n", 11,
     "ERROR GM003 2:1 expected an indented block after function definition on line 1"},
    {"class A:\npass\n", 11,
     "ERROR GM003 2:1 expected an indented block after class definition on line 1"},
    {"with a:\npass\n", 11,
     "ERROR GM003 2:1 expected an indented block after 'with' statement on line 1"},
    {"try:\npass\n", 11,
     "ERROR GM003 2:1 expected an indented block after 'try' statement on line 1"},
    {"try:\n    x\nexcept:\npass\n", 11,
     "ERROR GM003 4:1 expected an indented block after 'except' statement on line 3"},
    {"try:\n    x\nfinally:\npass\n", 11,
     "ERROR GM003 4:1 expected an indented block after 'finally' statement on line 3"},
    {"if x:\n    y\nelse:\npass\n", 11,
     "ERROR GM003 4:1 expected an indented block after 'else' statement on line 3"},
    {"if x:\n    y\nelif z:\npass\n", 11,
     "ERROR GM003 4:1 expected an indented block after 'elif' statement on line 3"},
    {"match x:\n    case 1:\n    pass\n", 11,
     "ERROR GM003 3:5 expected an indented block after 'case' statement on line 2"},
    {"try:\n    x\nexcept E:\n    y\nexcept* F:\n    z\n", 11,
     "ERROR GM001 5:1 cannot have both 'except' and 'except*' on the same 'try'"},
    {"try:\n    x\nexcept* E:\n    y\nexcept F:\n    z\n", 11,
     "ERROR GM001 5:1 cannot have both 'except' and 'except*' on the same 'try'"},
    {"try:\n    x\nexcept A, B:\n    y\n", 11,
     "ERROR GM001 3:8 multiple exception types must be parenthesized"},
    {"try:\n    x\nexcept*:\n    y\n", 11, "ERROR GM001 3:8 expected one or more exception types"},
    {"try:\n    x\nexcept E\n    y\n", 11, "ERROR GM001 3:9 expected ':'"},
    {"else:\n    pass\n", 11, "ERROR GM001 1:1 invalid syntax"},
    {"x = 1\n    y = 2\n", 11, "ERROR GM003 2:4 unexpected indent"},
    {"def f(x):\n    return x\n  y\n", 11,
     "ERROR GM003 3:4 unindent does not match any outer indentation level"},
    {"match x:\n    case {**_}: pass\n", 11, "ERROR GM001 2:13 invalid syntax"},
    {"match x:\n    case C(a=1, b): pass\n", 11,
     "ERROR GM001 2:17 positional patterns follow keyword patterns"},
    {"match x:\n    case a as _: pass\n", 11, "ERROR GM001 2:15 cannot use '_' as a target"},
    {"match x:\n    case 1j+1j: pass\n", 11,
     "ERROR GM001 2:10 real number required in complex literal"},
    {"match x:\n    case -1-1: pass\n", 11,
     "ERROR GM001 2:13 imaginary number required in complex literal"},
    {"match x:\n    case {x: 1}: pass\n", 11, "ERROR GM001 2:12 invalid syntax"},
    {"match x:\n    case *a: pass\n", 11, "ERROR GM001 2:12 invalid syntax"},
    {"type X = int\n", 11, "ERROR GM001 1:6 invalid syntax"},
    {"def f[T](): pass\n", 11, "ERROR GM001 1:6 expected '('"},
    {"x := 1\n", 11, "ERROR GM001 1:3 invalid syntax"},
    {"with a as f(): pass\n", 11, "ERROR GM001 1:11 cannot assign to function call"},
    {"with (a as f()): pass\n", 11, "ERROR GM001 1:12 cannot assign to function call"},
    {"import a.b as c.d\n", 11, "ERROR GM001 1:16 invalid syntax"},
    {"from a import b.c\n", 11, "ERROR GM001 1:16 invalid syntax"},
    {"global a.b\n", 11, "ERROR GM001 1:9 invalid syntax"},
    {"def f():\n    pass\n  x\n", 11,
     "ERROR GM003 3:4 unindent does not match any outer indentation level"},
    {"@d\nx = 1\n", 11, "ERROR GM001 2:1 invalid syntax"},
    {"async x\n", 11, "ERROR GM001 1:7 invalid syntax"},
    {"lambda (a): 0\n", 11, "ERROR GM001 1:8 Lambda expression parameters cannot be parenthesized"},
    {"lambda *,: 0\n", 11, "ERROR GM001 1:10 named arguments must follow bare *"},
    {"def f(a, /*): pass\n", 11, "ERROR GM001 1:11 expected comma between / and *"},
    {"else x:\n", 11, "ERROR GM001 1:1 invalid syntax"},
    {"try x:\n", 11, "ERROR GM001 1:5 expected ':'"},
    {"def f() x:\n", 11, "ERROR GM001 1:9 expected ':'"},
    {"del x y\n", 11, "ERROR GM001 1:7 invalid syntax"},
    {"a + 1 = 2\n", 11,
     "ERROR GM001 1:1 cannot assign to expression here. Maybe you meant '==' instead of '='?"},
    {"a + 1 += 2\n", 11,
     "ERROR GM001 1:1 'expression' is an illegal expression for augmented assignment"},
    {"(yield) = 1\n", 11,
     "ERROR GM001 1:2 cannot assign to yield expression here. Maybe you meant '==' instead of "
     "'='?"},
    {"if x:\n    @d\n", 11, "ERROR GM003 2:7 unexpected unindent"},
    {"class A:\n    def f():\n", 11,
     "ERROR GM003 2:13 expected an indented block after function definition on line 2"},
    {"if x:\n\n\n", 11,
     "ERROR GM003 3:1 expected an indented block after 'if' statement on line 1"},
    {"try:\n    pass\n# c\n", 11, "ERROR GM001 3:4 expected 'except' or 'finally' block"},
    {"try:\n    pass\n\n\n", 11, "ERROR GM001 4:1 expected 'except' or 'finally' block"},
    {"for i < (): pass\n", 11, "ERROR GM001 1:7 invalid syntax"},
    {"with a as b\n", 11, "ERROR GM001 1:12 expected ':'"},
    {"with (a as b)\n    pass\n", 11, "ERROR GM001 1:14 expected ':'"},
    {"with (a, b as c)\n    pass\n", 11, "ERROR GM001 1:17 expected ':'"},
    {"try:\n  pass\nexcept\n  pass\n", 11, "ERROR GM001 3:7 expected ':'"},
    {"match x x:\n  case 1: pass\n", 11, "ERROR GM001 1:9 invalid syntax"},
    {"class C(x for x in L):\n    pass\n", 11, "ERROR GM001 1:11 invalid syntax"},
    {"x = 1 +\n\n\n", 11, "ERROR GM001 1:8 invalid syntax"},
    {"if x:\n    pass\n  else: pass\n", 11,
     "ERROR GM003 3:13 unindent does not match any outer indentation level"},
    {"a = 1\n$\n", 11, "ERROR GM001 2:1 invalid syntax"},
    {"f(**x, *a) = 1\n", 11,
     "ERROR GM001 1:8 iterable argument unpacking follows keyword argument unpacking"},
    {"if x:\n    pass\n  y = 'a\n", 11,
     "ERROR GM003 3:9 unindent does not match any outer indentation level"},
    {"f() = 1, 2\n", 11,
     "ERROR GM001 1:1 cannot assign to function call here. Maybe you meant '==' instead of '='?"},
    {"f() = a = 1\n", 11, "ERROR GM001 1:1 cannot assign to function call"},
    {"f() = yield\n", 11, "ERROR GM001 1:1 cannot assign to function call"},
    {"[a, f()] = 1\n", 11, "ERROR GM001 1:5 cannot assign to function call"},
    {"True = 1\n", 11, "ERROR GM001 1:1 cannot assign to True"},
    {"(f()) = 1\n", 11,
     "ERROR GM001 1:2 cannot assign to function call here. Maybe you meant '==' instead of '='?"},
    {"-a = 1\n", 11,
     "ERROR GM001 1:1 cannot assign to expression here. Maybe you meant '==' instead of '='?"},
    {"a < b = 1\n", 11, "ERROR GM001 1:1 cannot assign to comparison"},
    {"not a = 1\n", 11, "ERROR GM001 1:1 cannot assign to expression"},
    {"x = f() = 1\n", 11, "ERROR GM001 1:5 cannot assign to function call"},
    {"x = f() = 1 = 2\n", 11, "ERROR GM001 1:5 cannot assign to function call"},
    {"(a, f()) = 1\n", 11, "ERROR GM001 1:5 cannot assign to function call"},
    {"f().x + 1 = 2\n", 11,
     "ERROR GM001 1:1 cannot assign to expression here. Maybe you meant '==' instead of '='?"},
    {"a, f() = 1\n", 11,
     "ERROR GM001 1:4 cannot assign to function call here. Maybe you meant '==' instead of '='?"},
    {"f() = not x\n", 11, "ERROR GM001 1:1 cannot assign to function call"},
    {"f() = *a\n", 11, "ERROR GM001 1:1 cannot assign to function call"},
    {"f() += 1\n", 11,
     "ERROR GM001 1:1 'function call' is an illegal expression for augmented assignment"},
    {"f() = lambda: 1\n", 11, "ERROR GM001 1:1 cannot assign to function call"},
    {"try:\n    pass\nx = 1\n", 11, "ERROR GM001 3:1 expected 'except' or 'finally' block"},
    {"try:\n    pass\nelse:\n    pass\n", 11,
     "ERROR GM001 3:1 expected 'except' or 'finally' block"},
    {"def f():\n    try:\n        pass\n    x = 1\n", 11,
     "ERROR GM001 4:5 expected 'except' or 'finally' block"},
    {"x\n    y\n", 11, "ERROR GM003 2:4 unexpected indent"},
    {"if x:\n        a\n    b\n", 11,
     "ERROR GM003 3:6 unindent does not match any outer indentation level"},
    {"for x in range(3):\n\n      pass\n", 11,
     "Module(body=[For(target=Name(id='x', ctx=Store(), lineno=1, col_offset=4, end_lineno=1, "
     "end_col_offset=5), iter=Call(func=Name(id='range', ctx=Load(), lineno=1, col_offset=9, "
     "end_lineno=1, end_col_offset=14), args=[Constant(value=3, lineno=1, col_offset=15, "
     "end_lineno=1, end_col_offset=16)], keywords=[], lineno=1, col_offset=9, end_lineno=1, "
     "end_col_offset=17), body=[Pass(lineno=3, col_offset=6, end_lineno=3, end_col_offset=10)], "
     "orelse=[], lineno=1, col_offset=0, end_lineno=3, end_col_offset=10)], type_ignores=[])"},
    {"(yield) += 1\n", 11,
     "ERROR GM001 1:2 'yield expression' is an illegal expression for augmented assignment"},
    {"None = 1\n", 11, "ERROR GM001 1:1 cannot assign to None"},
    {"... = 1\n", 11,
     "ERROR GM001 1:1 cannot assign to ellipsis here. Maybe you meant '==' instead of '='?"},
    {"f'{x}' = 1\n", 11,
     "ERROR GM001 1:1 cannot assign to f-string expression here. Maybe you meant '==' instead of "
     "'='?"},
    {"del f(), x\n", 11, "ERROR GM001 1:5 cannot delete function call"},
    {"del (a, f())\n", 11, "ERROR GM001 1:9 cannot delete function call"},
    {"del a +\n", 11, "ERROR GM001 1:7 invalid syntax"},
    {"for x in y z: pass\n", 11, "ERROR GM001 1:12 invalid syntax"},
    {"for x y: pass\n", 11, "ERROR GM001 1:7 invalid syntax"},
    {"for a, f() in y: pass\n", 11, "ERROR GM001 1:8 cannot assign to function call"},
    {"f(), a = 1\n", 11,
     "ERROR GM001 1:6 invalid syntax. Maybe you meant '==' or ':=' instead of '='?"},
    {"f(), a.b = 1\n", 11,
     "ERROR GM001 1:6 cannot assign to attribute here. Maybe you meant '==' instead of '='?"},
    {"f(), [a] = 1\n", 11, "ERROR GM001 1:1 cannot assign to function call"},
    {"*f(), a = 1\n", 11,
     "ERROR GM001 1:7 invalid syntax. Maybe you meant '==' or ':=' instead of '='?"},
    {"a, *f() = 1\n", 11, "ERROR GM001 1:5 cannot assign to function call"},
    {"a, (f()) = 1\n", 11,
     "ERROR GM001 1:5 cannot assign to function call here. Maybe you meant '==' instead of '='?"},
    {"x, = f() = 1\n", 11, "ERROR GM001 1:6 cannot assign to function call"},
    {"[f()] = 1\n", 11, "ERROR GM001 1:2 cannot assign to function call"},
    {"(f(),) = 1\n", 11, "ERROR GM001 1:2 cannot assign to function call"},
    {"f() = 1 = 2\n", 11, "ERROR GM001 1:1 cannot assign to function call"},
    {"def f[*Ts: int](): pass\n", 12, "ERROR GM001 1:10 cannot use bound with TypeVarTuple"},
    {"def f[](): pass\n", 12, "ERROR GM001 1:6 expected '('"},
    {"def f(a=1, b): pass\n", 12,
     "ERROR GM001 1:12 parameter without a default follows parameter with a default"},
    {"type X\n", 12, "ERROR GM001 1:7 invalid syntax"},
    {"type X[**P: int] = 1\n", 12, "ERROR GM001 1:11 cannot use bound with ParamSpec"},
};

TEST(ParseStmtTest, AcceptedStatementsMatchCPython) {
  for (const Case& c : kValidCases) {
    EXPECT_EQ(parse_and_dump(c.source, c.minor), c.expected) << "source (3." << c.minor << "):\n"
                                                             << c.source;
  }
}

TEST(ParseStmtTest, RejectedStatementsMatchCPython) {
  for (const Case& c : kErrorCases) {
    EXPECT_EQ(parse_and_dump(c.source, c.minor), c.expected) << "source (3." << c.minor << "):\n"
                                                             << c.source;
  }
}

TEST(ParseStmtTest, SoftKeywordsFollowTheVersion) {
  // `type X = ...` is a statement from 3.12 on and a syntax error before.
  EXPECT_EQ(parse_and_dump("type X = int\n", 11).rfind("ERROR GM001", 0), 0u);
  EXPECT_EQ(parse_and_dump("type X = int\n", 12).rfind("Module(body=[TypeAlias(", 0), 0u);
  // `match` and `case` stay ordinary names outside a match statement.
  EXPECT_EQ(parse_and_dump("match = case = 1\n", 11).rfind("Module(body=[Assign(", 0), 0u);
}

TEST(ParseStmtTest, NeverCrashesOnTruncatedInput) {
  const char* sources[] = {
      "def f(", "class C(",        "if x:",    "match x:\n case", "with (a", "try:\n pass\nexcept",
      "@",      "from . import (", "lambda *", "for x in"};
  for (const char* s : sources) {
    std::string text(s);
    for (size_t n = 0; n <= text.size(); ++n) {
      std::string dump = parse_and_dump(text.substr(0, n).c_str(), 11);
      EXPECT_FALSE(dump.empty());
    }
  }
}

}  // namespace
}  // namespace graphmend

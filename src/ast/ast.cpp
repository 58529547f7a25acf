#include "ast/ast.h"

namespace graphmend::ast {

const char* kind_name(Kind kind) {
  switch (kind) {
#define AST_NODE(cls, category, positioned, fields) \
  case Kind::cls:                                   \
    return #cls;
#include "ast/nodes.def"
  }
  return "?";
}

bool kind_has_position(Kind kind) {
  switch (kind) {
#define AST_NODE(cls, category, positioned, fields) \
  case Kind::cls:                                   \
    return positioned;
#include "ast/nodes.def"
  }
  return false;
}

const char* enum_name(ExprContext value) {
  static const char* const names[] = {"Load", "Store", "Del"};
  return names[static_cast<int>(value)];
}
const char* enum_name(BoolOpKind value) {
  static const char* const names[] = {"And", "Or"};
  return names[static_cast<int>(value)];
}
const char* enum_name(OperatorKind value) {
  static const char* const names[] = {"Add",    "Sub",    "Mult",    "MatMult", "Div",
                                      "Mod",    "Pow",    "LShift",  "RShift",  "BitOr",
                                      "BitXor", "BitAnd", "FloorDiv"};
  return names[static_cast<int>(value)];
}
const char* enum_name(UnaryOpKind value) {
  static const char* const names[] = {"Invert", "Not", "UAdd", "USub"};
  return names[static_cast<int>(value)];
}
const char* enum_name(CmpOpKind value) {
  static const char* const names[] = {"Eq",  "NotEq", "Lt",    "LtE", "Gt",
                                      "GtE", "Is",    "IsNot", "In",  "NotIn"};
  return names[static_cast<int>(value)];
}

}  // namespace graphmend::ast

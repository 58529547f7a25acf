// [Cond] emission: see cond.h.
#include "rewrite/cond/cond.h"

namespace graphmend::rewrite {

void emit_cond(const CondCall& call, const Context& context, const std::string& true_name,
               const std::string& false_name, Emitter& out) {
  std::string params;
  for (size_t i = 0; i < call.operands.size(); ++i) {
    if (i > 0) params += ", ";
    params += call.operands[i];
  }
  auto emit_def = [&](const std::string& name, const CondBranch& branch) {
    out.line(0, "def " + name + "(" + params + "):");
    for (const auto& statement : branch.body) out.line(1, statement);
    if (call.returns) {
      out.line(1, "return " + branch.returns[0]);
    } else if (branch.returns.size() == 1) {
      out.line(1, "return " + branch.returns[0]);
    } else {
      std::string tuple;
      for (size_t i = 0; i < branch.returns.size(); ++i) {
        if (i > 0) tuple += ", ";
        tuple += branch.returns[i];
      }
      out.line(1, "return (" + tuple + ")");
    }
  };
  emit_def(true_name, *call.on_true);
  emit_def(false_name, *call.on_false);
  std::string cond = call.condition;
  if (cond.find('\n') != std::string::npos) cond = "(" + cond + ")";
  std::string operands = "(" + params + (call.operands.size() == 1 ? ",)" : ")");
  std::string selected = context.runtime + ".cond(" + cond + ", " + true_name + ", " + false_name +
                         ", " + operands + ")";
  if (call.returns) {
    out.line(0, "return " + selected);
    return;
  }
  std::string targets;
  for (size_t i = 0; i < call.targets.size(); ++i) {
    if (i > 0) targets += ", ";
    targets += call.targets[i];
  }
  if (call.targets.size() > 1) targets = "(" + targets + ")";
  out.line(0, targets + " = " + selected);
}

}  // namespace graphmend::rewrite

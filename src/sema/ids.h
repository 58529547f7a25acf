// Typed indices into the analysis's tables, after Carbon's IdBase: a scope cannot be passed
// where a class is expected, and "none" is spelled has_value() rather than `< 0`.
#pragma once

#include <cstdint>

namespace graphmend::sema {

template <class Tag>
struct IdBase {
  static constexpr int32_t kNoneIndex = -1;

  constexpr IdBase() = default;
  constexpr explicit IdBase(int32_t index) : index(index) {}

  constexpr bool has_value() const { return index >= 0; }
  friend constexpr bool operator==(IdBase a, IdBase b) { return a.index == b.index; }

  int32_t index = kNoneIndex;
};

// A scope of AnalysisImpl: index 0 is the module, index i + 1 the scope of function i.
struct ScopeId : IdBase<ScopeId> {
  using IdBase::IdBase;
  static constexpr ScopeId for_function(int function) { return ScopeId(function + 1); }
  constexpr bool is_module() const { return index == 0; }
  constexpr bool is_function() const { return index > 0; }
  // The function whose scope this is: -1 for the module.
  constexpr int function() const { return index - 1; }
};

inline constexpr ScopeId kModuleScope(0);

// A class statement of the module (AnalysisImpl's classes, in walk order).
struct ClassId : IdBase<ClassId> {
  using IdBase::IdBase;
};

}  // namespace graphmend::sema

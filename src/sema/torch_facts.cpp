// One set per category of torch_facts.def, built on first use.
#include "sema/torch_facts.h"

#include <array>
#include <unordered_set>

namespace graphmend::sema {

namespace {

constexpr size_t kCategoryCount = 0
#define TORCH_FACT_CATEGORY(category) +1
#include "sema/torch_facts.def"
    ;

struct Facts {
  std::array<std::vector<std::string_view>, kCategoryCount> names;
  std::array<std::unordered_set<std::string_view>, kCategoryCount> sets;
};

Facts build_facts() {
  Facts f;
#define TORCH_FACT(category, name) \
  f.names[static_cast<size_t>(TorchFact::category)].push_back(name);
#include "sema/torch_facts.def"
  for (size_t c = 0; c < kCategoryCount; ++c) {
    f.sets[c].insert(f.names[c].begin(), f.names[c].end());
  }
  return f;
}

const Facts& facts() {
  static const Facts built = build_facts();
  return built;
}

}  // namespace

bool has_fact(TorchFact category, std::string_view name) {
  return facts().sets[static_cast<size_t>(category)].count(name) != 0;
}

const std::vector<std::string_view>& fact_names(TorchFact category) {
  return facts().names[static_cast<size_t>(category)];
}

}  // namespace graphmend::sema

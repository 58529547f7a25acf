// The torch and Python names the analysis knows (torch_facts.def), by category.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace graphmend::sema {

enum class TorchFact : uint8_t {
#define TORCH_FACT_CATEGORY(category) category,
#include "sema/torch_facts.def"
};

// Whether torch_facts.def lists `name` under `category`.
bool has_fact(TorchFact category, std::string_view name);

// The names listed under `category`, in file order.
const std::vector<std::string_view>& fact_names(TorchFact category);

}  // namespace graphmend::sema

// Whether a list holds a value: the one spelling of `std::find(...) != end` the code uses.
#pragma once

#include <algorithm>
#include <iterator>

namespace graphmend {

template <class List, class Item>
bool contains(const List& list, const Item& item) {
  return std::find(std::begin(list), std::end(list), item) != std::end(list);
}

}  // namespace graphmend

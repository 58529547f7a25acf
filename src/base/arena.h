// Bump allocator that owns every AST node, list and interned string of one parse.
// Nodes are trivially destructible: the arena frees whole blocks at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <string_view>
#include <type_traits>
#include <vector>

namespace graphmend {

class Arena {
 public:
  Arena() = default;
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  void* allocate(size_t size, size_t align) {
    size_t pos = (used_ + align - 1) & ~(align - 1);
    if (current_ == nullptr || pos + size > capacity_) {
      grow(size + align);
      pos = (used_ + align - 1) & ~(align - 1);
    }
    used_ = pos + size;
    return current_ + pos;
  }

  template <class T, class... Args>
  T* make(Args&&... args) {
    static_assert(std::is_trivially_destructible_v<T>, "arena objects are never destroyed");
    return new (allocate(sizeof(T), alignof(T))) T(std::forward<Args>(args)...);
  }

  template <class T>
  T* make_array(size_t count) {
    static_assert(std::is_trivially_destructible_v<T>);
    if (count == 0) return nullptr;
    T* items = static_cast<T*>(allocate(sizeof(T) * count, alignof(T)));
    for (size_t i = 0; i < count; ++i) new (items + i) T();
    return items;
  }

  std::string_view copy(std::string_view text) {
    if (text.empty()) return {};
    char* out = static_cast<char*>(allocate(text.size(), 1));
    std::memcpy(out, text.data(), text.size());
    return {out, text.size()};
  }

  size_t bytes_reserved() const { return reserved_; }

 private:
  void grow(size_t at_least) {
    size_t size = next_block_size_;
    if (size < at_least) size = at_least;
    // Not zeroed: every object is constructed in place (make, make_array, copy).
    blocks_.push_back(std::unique_ptr<char[]>(new char[size]));
    current_ = blocks_.back().get();
    capacity_ = size;
    used_ = 0;
    reserved_ += size;
    if (next_block_size_ < (size_t{1} << 24)) next_block_size_ *= 2;
  }

  std::vector<std::unique_ptr<char[]>> blocks_;
  char* current_ = nullptr;
  size_t capacity_ = 0;
  size_t used_ = 0;
  size_t reserved_ = 0;
  size_t next_block_size_ = 64 * 1024;
};

}  // namespace graphmend

# The `type` statement (3.12 only); `type` stays a soft keyword.
type Point = tuple[float, float]
type Pair[T] = tuple[T, T]
type Recursive[K: str, *V] = dict[K, "Recursive[K, *V]"]
type = 3
print(type)

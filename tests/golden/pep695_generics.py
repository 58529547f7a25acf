# PEP 695 type parameters (3.12 only).
def first[T](items: list[T]) -> T:
    return items[0]


class Box[T: (int, str), *Ts, **P]:
    def get[U: int](self, other: U) -> T | U:
        return other


async def gather[T](x: T) -> T:
    return x

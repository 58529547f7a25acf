# Lambdas and parameter lists of every shape.
f = lambda: 0
g = lambda x, y=1, *args, z, w=2, **kw: (x, y, args, z, w, kw)
h = lambda a, /, b, *, c: a + b + c
k = lambda *, key=lambda v: v: key
def full(a, b=2, /, c=3, *args, d, e=5, **kwargs) -> "ret":
    pass
def only_kw(*, x: int = 1, y: "str"): ...
def pos_only(p, q=[], /): ...
sort(items, key=lambda item: (item[1], -item[0]))

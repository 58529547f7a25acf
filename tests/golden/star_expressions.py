# Starred expressions in every place the grammar allows them.
a, *b = range(5)
*c, d = [1, 2, 3]
first, *middle, last = items
print(*args, **kwargs, sep="")
merged = {**x, "k": 1, **y}
combined = [*a, *b, 0]
s = {*a, 1}
t = *a, *b
for x, *rest in pairs:
    pass
def f(*args, key=None, **kwargs):
    return (*args,)
x[1:2, ::3, ...] = y
z = lst[a, *b]

# f-strings valid in 3.11 and 3.12.
name = "world"
width = 10
x = f"hello {name}!"
y = f"{name!r:>{width}} and {width:#x} {{literal}}"
z = f'{f"{name}"}'
w = f"{3.14159:.{width - 8}f}" rf"\d{name}" F"{'a' 'b'}"
v = f"{name=} {width = } {x!s:^10}"
u = f"""multi
{name
}line"""
t = f"a" "b" f"c{x}d" "e"
s = f"{(lambda: 1)()}" if False else f"{x:{width}.{width}}"
r = f"{ {'k': 1}['k'] }" f"{[i for i in range(3)]}"

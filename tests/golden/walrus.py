# Assignment expressions.
if (n := len([1, 2, 3])) > 2:
    print(n)
while chunk := read():
    process(chunk)
values = [y for x in data if (y := f(x)) is not None]
print(total := 0, (a := 1) + (b := 2))
def g(x=(d := 5)):
    return [last := i for i in range(3)], last

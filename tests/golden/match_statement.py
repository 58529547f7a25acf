# Structural pattern matching: every pattern kind.
def describe(command, point):
    match command.split():
        case [action]:
            return action
        case ["go", direction] if direction in ("north", "south"):
            return direction
        case ["drop", *objects]:
            return objects
        case []:
            return None
    match point:
        case (0, 0):
            print("origin")
        case {"x": x, "y": 0, **rest}:
            print(x, rest)
        case Point(x=0, y=y) | Point(x=y, y=0) as p:
            print(y, p)
        case [1, 2, *_] | (3 | 4):
            pass
        case -1 | 1.5 | 2 + 3j | -4 - 5j | "s" "t" | b"u" if True:
            pass
        case None | True | False:
            pass
        case color.RED:
            pass
        case str() | bytes(x):
            pass
        case _:
            pass


match = 1
case = match
match(match)

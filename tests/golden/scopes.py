# global, nonlocal, del, and friends.
counter = 0


def outer():
    x = 1
    global counter, other

    def inner():
        nonlocal x
        x += 1
        return x

    del inner.__doc__, counter
    return inner


class C:
    global g
    g = 1
    try:
        pass
    except* ValueError as eg:
        pass
    finally:
        assert g, "message"
    raise RuntimeError("x") from None

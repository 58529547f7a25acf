# Decorators, including PEP 614 arbitrary expressions.
import functools


@functools.lru_cache(maxsize=None)
@staticmethod
def cached(x):
    return x


@buttons[0].clicked.connect
def on_click():
    pass


@(lambda f: f)
class Model(Base, metaclass=Meta, **extra):
    @property
    def value(self) -> int:
        return self._value

    @value.setter
    def value(self, v):
        self._value = v

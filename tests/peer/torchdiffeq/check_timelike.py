"""torchdiffeq's `_check_timelike`, which `odeint`'s `_check_inputs` runs on the output times
before anything else of them: `t` must be a tensor (assert), floating (`_assert_floating`
raises TypeError), one-dimensional (assert), and strictly monotonic: `diff = t[1:] > t[:-1];
assert diff.all() or (~diff).all(), '{} must be strictly increasing or
decreasing'.format(name)`. A decreasing `t` is then negated (the function wrapped to run
backwards) and `_assert_increasing` rejects repeated times. An `ODEBlock` (odenet_mnist's)
integrates its small ODE function with `euler` over the times it is given. The `or` of the
two tensor reductions in the monotonicity assert breaks plain torch.compile, and so do the
reversal test `t[0] > t[1]` and `_assert_increasing` after it (and the solver's own
comparisons of times). `_check_inputs` is cut to a tensor state (no tuples, events,
callbacks or step options); the fixed-grid solver's step-size grids and cubic interpolation
are left out (the grid is the output times, interpolated linearly)."""

import warnings
from enum import Enum

import torch
from torch import nn

ORIGIN = "rtqichen/torchdiffeq: torchdiffeq/_impl/misc.py: _check_timelike"
CATEGORY = "trap"

_null_callback = lambda *args, **kwargs: None


def _handle_unused_kwargs(solver, unused_kwargs):
    if len(unused_kwargs) > 0:
        warnings.warn('{}: Unexpected arguments {}'.format(solver.__class__.__name__, unused_kwargs))


def _rms_norm(tensor):
    return tensor.abs().pow(2).mean().sqrt()


def _assert_increasing(name, t):
    assert (t[1:] > t[:-1]).all(), '{} must be strictly increasing or decreasing'.format(name)


def _assert_floating(name, t):
    if not torch.is_floating_point(t):
        raise TypeError('`{}` must be a floating point Tensor but is a {}'.format(name, t.type()))


def _check_timelike(name, timelike, can_grad):
    assert isinstance(timelike, torch.Tensor), '{} must be a torch.Tensor'.format(name)
    _assert_floating(name, timelike)
    assert timelike.ndimension() == 1, "{} must be one dimensional".format(name)
    if not can_grad:
        assert not timelike.requires_grad, "{} cannot require gradient".format(name)
    diff = timelike[1:] > timelike[:-1]
    assert diff.all() or (~diff).all(), '{} must be strictly increasing or decreasing'.format(name)


class _ReverseFunc(nn.Module):
    def __init__(self, base_func, mul=1.0):
        super(_ReverseFunc, self).__init__()
        self.base_func = base_func
        self.mul = mul

    def forward(self, t, y):
        return self.mul * self.base_func(-t, y)


class Perturb(Enum):
    NONE = 0
    PREV = 1
    NEXT = 2


class _PerturbFunc(nn.Module):  # odeint's wrapper of the user's function
    def __init__(self, base_func):
        super(_PerturbFunc, self).__init__()
        self.base_func = base_func

    def forward(self, t, y, *, perturb=Perturb.NONE):
        assert isinstance(perturb, Perturb), "perturb argument must be of type Perturb enum"
        t = t.to(y.abs().dtype)
        if perturb is not Perturb.NONE:  # the next (previous) representable time
            t = torch.nextafter(t, t + 1 if perturb is Perturb.NEXT else t - 1)
        return self.base_func(t, y)


class FixedGridODESolver:  # the time grid is the output times; linear interpolation
    def __init__(self, func, y0, interp="linear", perturb=False, **unused_kwargs):
        self.atol = unused_kwargs.pop('atol')
        unused_kwargs.pop('rtol', None)
        unused_kwargs.pop('norm', None)
        _handle_unused_kwargs(self, unused_kwargs)
        del unused_kwargs
        self.func, self.y0, self.interp, self.perturb = func, y0, interp, perturb
        self.grid_constructor = lambda f, y0, t: t

    def integrate(self, t):
        time_grid = self.grid_constructor(self.func, self.y0, t)
        assert time_grid[0] == t[0] and time_grid[-1] == t[-1]
        solution = torch.empty(len(t), *self.y0.shape, dtype=self.y0.dtype, device=self.y0.device)
        solution[0] = self.y0
        j = 1
        y0 = self.y0
        for t0, t1 in zip(time_grid[:-1], time_grid[1:]):
            dt = t1 - t0
            self.func.callback_step(t0, y0, dt)
            dy, f0 = self._step_func(self.func, t0, dt, t1, y0)
            y1 = y0 + dy
            while j < len(t) and t1 >= t[j]:
                solution[j] = self._linear_interp(t0, t1, y0, y1, t[j])
                j += 1
            y0 = y1
        return solution

    def _linear_interp(self, t0, t1, y0, y1, t):
        if t == t0:
            return y0
        if t == t1:
            return y1
        slope = (t - t0) / (t1 - t0)
        return y0 + slope * (y1 - y0)


class Euler(FixedGridODESolver):
    order = 1

    def _step_func(self, func, t0, dt, t1, y0):
        f0 = func(t0, y0, perturb=Perturb.NEXT if self.perturb else Perturb.NONE)
        return dt * f0, f0


SOLVERS = {'euler': Euler}


def _check_inputs(func, y0, t, rtol, atol, method, options, SOLVERS):
    # Normalise method and options
    options = {} if options is None else options.copy()
    if method is None:
        method = 'euler'
    if method not in SOLVERS:
        raise ValueError('Invalid method "{}". Must be one of {}'.format(method,
                                                                         '{"' + '", "'.join(SOLVERS.keys()) + '"}.'))
    if 'norm' not in options:
        options['norm'] = _rms_norm

    # Normalise time
    _check_timelike('t', t, True)
    t_is_reversed = False
    if len(t) > 1 and t[0] > t[1]:
        t_is_reversed = True

    if t_is_reversed:
        # Change the integration times to ascending order.
        t = -t
        func = _ReverseFunc(func, mul=-1.0)

    # Can only do after having normalised time
    _assert_increasing('t', t)

    func = _PerturbFunc(func)
    func.callback_step = _null_callback
    return func, y0, t, rtol, atol, method, options, t_is_reversed


def odeint(func, y0, t, *, rtol=1e-7, atol=1e-9, method=None, options=None):
    func, y0, t, rtol, atol, method, options, t_is_reversed = _check_inputs(func, y0, t, rtol, atol, method,
                                                                            options, SOLVERS)
    solver = SOLVERS[method](func=func, y0=y0, rtol=rtol, atol=atol, **options)
    solution = solver.integrate(t)
    return solution


class ODEFunc(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 2))

    def forward(self, t, y):
        return self.net(y)


class ODEBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.odefunc = ODEFunc()

    def forward(self, x, t):
        return odeint(self.odefunc, x, t, rtol=1e-3, atol=1e-3, method="euler")


ENTRY = ODEBlock
torch.manual_seed(0)
INPUTS = [
    (torch.randn(3, 2), torch.linspace(0., 1., 5)),
    # decreasing times: integrated backwards
    (torch.randn(3, 2), torch.linspace(1., 0., 5)),
    # neither increasing nor decreasing: the monotonicity assert fails
    (torch.randn(3, 2), torch.tensor([0., 0.5, 0.25, 1.])),
    # integer times: TypeError
    (torch.randn(3, 2), torch.arange(4)),
    # a grid of times per row: not one-dimensional
    (torch.randn(3, 2), torch.linspace(0., 1., 4).expand(3, 4)),
    # a list of times, not a tensor
    (torch.randn(3, 2), [0., 1.]),
]

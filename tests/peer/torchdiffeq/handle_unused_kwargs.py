"""torchdiffeq's `_handle_unused_kwargs`: every solver's constructor takes the user's `options`
as keyword arguments, pops the ones it knows (the fixed-grid solvers: `atol`, `rtol`,
`norm`) and hands the rest to it, which warns (`warnings.warn('{}: Unexpected arguments
{}'.format(solver.__class__.__name__, ...))`) when any is left, e.g. an adaptive solver's
`first_step` given to `euler`. An `ODEBlock` (odenet_mnist's) integrates its small ODE
function over a grid of times with the method and options it is given; `odeint` builds the
solver inside the compiled forward, so the warning breaks plain torch.compile; so do the
solver's comparisons of time tensors (the integration loop's `t1 >= t[j]`, the
interpolation's `t == t0`). `odeint`'s input checks (`_check_inputs`) are cut to what a
tensor state on an increasing grid needs (the options' copy with the default norm, the
perturbing wrapper, a null step callback); the fixed-grid solvers' step-size grids and cubic
interpolation are left out (the grid is the output times, interpolated linearly)."""

import warnings
from enum import Enum

import torch
from torch import nn

ORIGIN = "rtqichen/torchdiffeq: torchdiffeq/_impl/misc.py: _handle_unused_kwargs"
CATEGORY = "defer"

_null_callback = lambda *args, **kwargs: None


def _handle_unused_kwargs(solver, unused_kwargs):
    if len(unused_kwargs) > 0:
        warnings.warn('{}: Unexpected arguments {}'.format(solver.__class__.__name__, unused_kwargs))


def _rms_norm(tensor):
    return tensor.abs().pow(2).mean().sqrt()


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


class Midpoint(FixedGridODESolver):
    order = 2

    def _step_func(self, func, t0, dt, t1, y0):
        half_dt = 0.5 * dt
        f0 = func(t0, y0, perturb=Perturb.NEXT if self.perturb else Perturb.NONE)
        y_mid = y0 + f0 * half_dt
        return dt * func(t0 + half_dt, y_mid), f0


SOLVERS = {'euler': Euler, 'midpoint': Midpoint}


def odeint(func, y0, t, *, rtol=1e-7, atol=1e-9, method=None, options=None):
    options = {} if options is None else options.copy()
    if 'norm' not in options:
        options['norm'] = _rms_norm
    func = _PerturbFunc(func)
    func.callback_step = _null_callback
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

    def forward(self, x, t, tol, method, options):
        return odeint(self.odefunc, x, t, rtol=tol, atol=tol, method=method, options=options)


ENTRY = ODEBlock
torch.manual_seed(0)
INPUTS = [
    # an adaptive solver's option given to euler: it is left over, the constructor warns
    (torch.randn(3, 2), torch.linspace(0., 1., 5), 1e-3, "euler", {"first_step": 0.05}),
    (torch.randn(3, 2), torch.linspace(0., 1., 5), 1e-3, "euler", None),
    (torch.randn(3, 2), torch.linspace(0., 1., 5), 1e-3, "midpoint", {"perturb": True, "max_num_steps": 100}),
    (torch.randn(3, 2), torch.linspace(0., 1., 5), 1e-3, "midpoint", {"norm": _rms_norm}),
]

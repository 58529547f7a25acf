"""torchdiffeq's Adams-Bashforth-Moulton solver (`method="implicit_adams"`), its `_step_func`:
with fewer past derivatives than the order needs it takes an RK4 step; otherwise an
Adams-Bashforth predictor, then (implicit) up to `max_iters` Adams-Moulton corrector
iterations, stopping when the change is within tolerance (`converged =
self._has_converged(dy_old, dy)`, a 0-d bool tensor; `if converged: break`); when the
iterations run out, `if not converged:` warns ("Functional iteration did not converge.
Solution may be incorrect.") and drops the oldest derivative. An `ODEBlock` (odenet_mnist's)
integrates its small ODE function over a grid of times. The tests on the convergence tensor
break plain torch.compile, and the warning under one of them with it; so do the solver's
comparisons of time tensors (`_update_history`'s `self.prev_t != t`, the integration loop's
`t1 >= t[j]` and the interpolation's `t == t0`). `odeint`'s input checks (`_check_inputs`, a
program of their own) are cut to what a tensor state on an increasing grid needs (the
perturbing wrapper, a null step callback); the coefficient tables are cut to order 6, the
most the inputs' five steps use."""

import collections
import warnings
from enum import Enum

import torch
from torch import nn

ORIGIN = "rtqichen/torchdiffeq: torchdiffeq/_impl/fixed_adams.py: AdamsBashforthMoulton._step_func"
CATEGORY = "mixed"

_BASHFORTH_COEFFICIENTS = [[], [11], [3, -1], [23, -16, 5], [55, -59, 37, -9],
                           [1901, -2774, 2616, -1274, 251], [4277, -7923, 9982, -7298, 2877, -475]]
_MOULTON_COEFFICIENTS = [[], [1], [1, 1], [5, 8, -1], [9, 19, -5, 1], [251, 646, -264, 106, -19],
                         [475, 1427, -798, 482, -173, 27]]
_DIVISOR = [None, 11, 2, 12, 24, 720, 1440]
_BASHFORTH_DIVISOR = [torch.tensor([b / divisor for b in bashforth], dtype=torch.float64)
                      for bashforth, divisor in zip(_BASHFORTH_COEFFICIENTS, _DIVISOR)]
_MOULTON_DIVISOR = [torch.tensor([m / divisor for m in moulton], dtype=torch.float64)
                    for moulton, divisor in zip(_MOULTON_COEFFICIENTS, _DIVISOR)]
_MIN_ORDER = 4
_MAX_ORDER = 12
_MAX_ITERS = 4
_null_callback = lambda *args, **kwargs: None


def _handle_unused_kwargs(solver, unused_kwargs):
    if len(unused_kwargs) > 0:
        warnings.warn('{}: Unexpected arguments {}'.format(solver.__class__.__name__, unused_kwargs))


def _linf_norm(tensor):
    return tensor.abs().max()


def _compute_error_ratio(error_estimate, rtol, atol, y0, y1, norm):
    error_tol = atol + rtol * torch.max(y0.abs(), y1.abs())
    return norm(error_estimate / error_tol).abs()


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


def rk4_alt_step_func(func, t0, dt, t1, y0, f0=None, perturb=False):
    k1 = f0
    if k1 is None:
        k1 = func(t0, y0, perturb=Perturb.NEXT if perturb else Perturb.NONE)
    k2 = func(t0 + dt * (1 / 3), y0 + dt * k1 * (1 / 3))
    k3 = func(t0 + dt * (2 / 3), y0 + dt * (k2 - k1 * (1 / 3)))
    k4 = func(t1, y0 + dt * (k1 - k2 + k3), perturb=Perturb.PREV if perturb else Perturb.NONE)
    return (k1 + 3 * (k2 + k3) + k4) * dt * 0.125


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


def _dot_product(x, y):
    return sum(xi * yi for xi, yi in zip(x, y))


class AdamsBashforthMoulton(FixedGridODESolver):
    order = 4

    def __init__(self, func, y0, rtol=1e-3, atol=1e-4, implicit=True, max_iters=_MAX_ITERS, max_order=_MAX_ORDER,
                 **kwargs):
        super(AdamsBashforthMoulton, self).__init__(func, y0, rtol=rtol, atol=rtol, **kwargs)
        assert max_order <= _MAX_ORDER, "max_order must be at most {}".format(_MAX_ORDER)
        if max_order < _MIN_ORDER:
            warnings.warn("max_order is below {}, so the solver reduces to `rk4`.".format(_MIN_ORDER))

        self.rtol = torch.as_tensor(rtol, dtype=y0.dtype, device=y0.device)
        self.atol = torch.as_tensor(atol, dtype=y0.dtype, device=y0.device)
        self.implicit = implicit
        self.max_iters = max_iters
        self.max_order = int(max_order)
        self.prev_f = collections.deque(maxlen=self.max_order - 1)
        self.prev_t = None

        self.bashforth = [x.to(y0.device) for x in _BASHFORTH_DIVISOR]
        self.moulton = [x.to(y0.device) for x in _MOULTON_DIVISOR]

    def _update_history(self, t, f):
        if self.prev_t is None or self.prev_t != t:
            self.prev_f.appendleft(f)
            self.prev_t = t

    def _has_converged(self, y0, y1):
        error_ratio = _compute_error_ratio(torch.abs(y0 - y1), self.rtol, self.atol, y0, y1, _linf_norm)
        return error_ratio < 1

    def _step_func(self, func, t0, dt, t1, y0):
        f0 = func(t0, y0, perturb=Perturb.NEXT if self.perturb else Perturb.NONE)
        self._update_history(t0, f0)
        order = min(len(self.prev_f), self.max_order - 1)
        if order < _MIN_ORDER - 1:
            return rk4_alt_step_func(func, t0, dt, t1, y0, f0=self.prev_f[0], perturb=self.perturb), f0
        else:
            bashforth_coeffs = self.bashforth[order]
            dy = _dot_product(dt * bashforth_coeffs, self.prev_f).type_as(y0)
            if self.implicit:
                moulton_coeffs = self.moulton[order + 1]
                delta = dt * _dot_product(moulton_coeffs[1:], self.prev_f).type_as(y0)
                converged = False
                for _ in range(self.max_iters):
                    dy_old = dy
                    f = func(t1, y0 + dy, perturb=Perturb.PREV if self.perturb else Perturb.NONE)
                    dy = (dt * (moulton_coeffs[0]) * f).type_as(y0) + delta
                    converged = self._has_converged(dy_old, dy)
                    if converged:
                        break
                if not converged:
                    warnings.warn('Functional iteration did not converge. Solution may be incorrect.')
                    self.prev_f.pop()
                self._update_history(t0, f)
            return dy, f0


class AdamsBashforth(AdamsBashforthMoulton):
    def __init__(self, func, y0, **kwargs):
        super(AdamsBashforth, self).__init__(func, y0, implicit=False, **kwargs)


SOLVERS = {'explicit_adams': AdamsBashforth, 'implicit_adams': AdamsBashforthMoulton}


def odeint(func, y0, t, *, rtol=1e-7, atol=1e-9, method=None, options=None):
    options = {} if options is None else options.copy()
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
    # one corrector iteration: it does not converge, the step warns
    (torch.randn(3, 2), torch.linspace(0., 1., 6), 1e-6, "implicit_adams", {"max_iters": 1}),
    (torch.randn(3, 2), torch.linspace(0., 1., 6), 1e-6, "implicit_adams", None),
    (torch.randn(3, 2), torch.linspace(0., 1., 6), 1e-6, "explicit_adams", None),
]

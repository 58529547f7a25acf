"""Pyro's `_require_double_precision` (contrib/epidemiology/compartmental.py), which a
CompartmentalModel runs before NUTS inference (`fit_mcmc`) and, for the exact enumerated model
(`num_quant_bins > 1`), at the start of `predict`: when the default dtype is not float64 it
warns `RuntimeWarning("CompartmentalModel is unstable for dtypes less than torch.float64; try
torch.set_default_dtype(torch.float64)")`. The step is a user's script after `fit_mcmc` on a
held SimpleSIRModel: the posterior samples and `num_quant_bins` that the fit leaves on the
model, then `model.predict(forecast)`, whose checks and log lines are the original's
(`RuntimeError("Missing samples, try running .fit_mcmc() first")` without samples,
`logger.info` before predicting and before forecasting); the latent series, which the original
draws under Pyro's effect handlers (condition, trace, infer_discrete), are a stand-in: the SIR
transition with its expected flows. The tests run at the default float32, so the warning fires
whenever `num_quant_bins > 1`. The `warnings.warn` breaks plain torch.compile (Dynamo cannot
trace `_warnings.warn`); as the break is inside the `@torch.no_grad()` method, Dynamo runs
`predict`, with its `logger.info` calls, outside the graph."""

import logging
import warnings

import torch

ORIGIN = "pyro-ppl/pyro: pyro/contrib/epidemiology/compartmental.py: _require_double_precision"
CATEGORY = "defer"

logger = logging.getLogger(__name__)


def _require_double_precision():
    if torch.get_default_dtype() != torch.float64:
        warnings.warn(
            "CompartmentalModel is unstable for dtypes less than torch.float64; "
            "try torch.set_default_dtype(torch.float64)",
            RuntimeWarning,
        )


class SimpleSIRModel:
    """The S, I compartments of pyro's SimpleSIRModel (CompartmentalModel's state kept)."""

    def __init__(self, population, recovery_time, data):
        assert isinstance(recovery_time, float)
        assert recovery_time > 1
        self.population = population
        self.recovery_time = recovery_time
        self.data = data
        self.duration = len(data)
        self.samples = {}
        self.num_quant_bins = 1
        self.relaxed = True

    def _expected_series(self, R0, rho, steps):
        # stand-in for the sequential/generative models: transition() with expected flows
        tau = self.recovery_time
        state = {"S": torch.full_like(R0, self.population - 1.0), "I": torch.ones_like(R0)}
        series = {"S": [], "I": [], "obs": []}
        for t in range(steps):
            S2I = state["S"] * (1 - torch.exp(-(R0 / tau) * state["I"] / self.population))
            I2R = state["I"] / tau
            state["S"] = state["S"] - S2I
            state["I"] = state["I"] + S2I - I2R
            series["S"].append(state["S"])
            series["I"].append(state["I"])
            series["obs"].append(rho * S2I)
        return {name: torch.stack(values, dim=-1) for name, values in series.items()}

    @torch.no_grad()
    def predict(self, forecast=0):
        if self.num_quant_bins > 1:
            _require_double_precision()
        if not self.samples:
            raise RuntimeError("Missing samples, try running .fit_mcmc() first")

        samples = self.samples
        num_samples = len(next(iter(samples.values())))

        logger.info(
            "Predicting latent variables for {} time steps...".format(self.duration)
        )
        series = self._expected_series(samples["R0"], samples["rho"], self.duration)

        if forecast:
            logger.info("Forecasting {} steps ahead...".format(forecast))
            series = self._expected_series(
                samples["R0"], samples["rho"], self.duration + forecast
            )

        samples = dict(samples, **series)
        assert all(v.size(0) == num_samples for v in samples.values()), {
            k: tuple(v.shape) for k, v in samples.items()
        }
        return samples


def make():
    """The script: a model held across the fit and the prediction."""
    model = SimpleSIRModel(population=100, recovery_time=3.0, data=DATA)

    def predict_after_fit(R0, rho, num_quant_bins, forecast):
        # what fit_mcmc leaves on the model: its options and the posterior samples
        model.num_quant_bins = num_quant_bins
        model.relaxed = num_quant_bins == 1
        model.samples = {} if R0 is None else {"R0": R0, "rho": rho}
        return model.predict(forecast=forecast)

    return predict_after_fit


ENTRY = SimpleSIRModel.predict
torch.manual_seed(0)
DATA = torch.tensor([1.0, 2.0, 4.0, 3.0])
INPUTS = [
    # the exact model (num_quant_bins=4) at float32: the warning, then a forecast
    (torch.rand(3) + 1.0, torch.rand(3) * 0.5, 4, 2),
    # the relaxed model: no precision check
    (torch.rand(3) + 1.0, torch.rand(3) * 0.5, 1, 0),
    # predict before any fit: the RuntimeError
    (None, None, 1, 0),
    (None, None, 4, 0),
]

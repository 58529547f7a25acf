"""Pyro's `Rejector.rsample` (distributions/rejector.py), batched accept-reject sampling: a
proposal is drawn (`self.propose(sample_shape) if sample_shape else self.propose()`), each
element is accepted with probability `exp(log_prob_accept(x))` (a Bernoulli draw), and
`while not done.all():` new proposals are drawn and, `if accept.any():`, the newly accepted
elements are written in (`x[accept] = proposed_x[accept]`, `done |= accept`). The rejector is
Pyro's own test subclass `RejectionExponential` (distributions/testing/rejection_exponential.py):
an Exponential(rate) drawn from the proposal Exponential(factor * rate), accepted with
log-probability `(factor - 1) * rate * x` (asserted `<= 0`) less `log(factor)`; it is built
where a model builds it. Pyro's distributions are torch's with a mixin that makes them callable
(`__call__`: `rsample` when reparametrised), which the proposal keeps; `@weakmethod` (a weak
reference to the instance for the bound `log_prob_accept`) is left out. The number of proposal
rounds comes from the drawn data: a Python loop whose trip count is computed from tensor data,
not fixable by design (the `if accept.any():` inside it is a branch on tensor data)."""

import torch
from torch.distributions import constraints
from torch.distributions.utils import broadcast_all

ORIGIN = "pyro-ppl/pyro: pyro/distributions/rejector.py: Rejector.rsample"
CATEGORY = "out_of_scope"


class Exponential(torch.distributions.Exponential):
    # pyro.distributions.Exponential: torch's with TorchDistributionMixin.__call__
    def __call__(self, sample_shape=torch.Size()):
        return (
            self.rsample(sample_shape)
            if self.has_rsample
            else self.sample(sample_shape)
        )


class Rejector(torch.distributions.Distribution):
    """
    Rejection sampled distribution given an acceptance rate function.
    """

    arg_constraints = {}
    has_rsample = True

    def __init__(
        self, propose, log_prob_accept, log_scale, *, batch_shape=None, event_shape=None
    ):
        self.propose = propose
        self.log_prob_accept = log_prob_accept
        self._log_scale = log_scale
        if batch_shape is None:
            batch_shape = propose.batch_shape
        if event_shape is None:
            event_shape = propose.event_shape
        super().__init__(batch_shape, event_shape)

        # These LRU(1) caches allow work to be shared across different method calls.
        self._log_prob_accept_cache = None, None
        self._propose_log_prob_cache = None, None

    def rsample(self, sample_shape=torch.Size()):
        # Implements parallel batched accept-reject sampling.
        x = self.propose(sample_shape) if sample_shape else self.propose()
        log_prob_accept = self.log_prob_accept(x)
        probs = torch.exp(log_prob_accept).clamp_(0.0, 1.0)
        done = torch.bernoulli(probs).bool()
        while not done.all():
            proposed_x = self.propose(sample_shape) if sample_shape else self.propose()
            log_prob_accept = self.log_prob_accept(proposed_x)
            prob_accept = torch.exp(log_prob_accept).clamp_(0.0, 1.0)
            accept = torch.bernoulli(prob_accept).bool() & ~done
            if accept.any():
                x[accept] = proposed_x[accept]
                done |= accept
        return x


class RejectionExponential(Rejector):
    arg_constraints = {"rate": constraints.positive, "factor": constraints.positive}
    support = constraints.positive

    def __init__(self, rate, factor):
        assert (factor <= 1).all()
        self.rate, self.factor = broadcast_all(rate, factor)
        propose = Exponential(self.factor * self.rate)
        log_scale = self.factor.log()
        super().__init__(propose, self.log_prob_accept, log_scale)

    def log_prob_accept(self, x):
        result = (self.factor - 1) * self.rate * x
        assert result.max() <= 0, result.max()
        return result

    @property
    def batch_shape(self):
        return self.rate.shape

    @property
    def event_shape(self):
        return torch.Size()


def draw(rate, factor, sample_shape):
    """A model's draw: the rejector built from its parameters, then sampled."""
    return RejectionExponential(rate, factor).rsample(sample_shape)


def reset():
    torch.manual_seed(0)


ENTRY = draw
torch.manual_seed(0)
INPUTS = [
    # a batch of 6 rates, proposals at half the rate: several rounds, some accepting nothing
    (torch.rand(6) + 0.5, torch.full((6,), 0.5), ()),
    # sample_shape (3,): propose(sample_shape)
    (torch.rand(2) + 0.5, torch.tensor([0.9, 0.3]), (3,)),
    # factor 1: every proposal is accepted at once, no loop
    (torch.ones(3), torch.ones(3), ()),
]

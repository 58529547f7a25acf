"""Pyro's `DirichletMultinomial.sample` (distributions/conjugate.py): the class probabilities
are drawn from the Dirichlet, the number of trials is read back as a Python int
(`total_count = int(self.total_count.max())`), an inhomogeneous count is refused
(`if not self.total_count.min() == total_count: raise NotImplementedError("Inhomogeneous
total count not supported by `sample`.")`), and the counts are drawn from
`Multinomial(total_count, probs)`. The distribution is built where a model builds it, with its
`__init__` (a number as `total_count` becomes a tensor; a tensor is broadcast with the batch)
and Pyro's default of validated arguments; Pyro's Dirichlet and Multinomial are torch's with
Pyro's mixin, which sampling does not use, so torch's are used. The int read back becomes the
Multinomial's number of trials (the shape of its categorical draw): a Python value computed
from tensor data, not fixable by design; the guard compares the minimum with it."""

import numbers

import torch
from torch.distributions import Dirichlet, Multinomial, constraints

ORIGIN = "pyro-ppl/pyro: pyro/distributions/conjugate.py: DirichletMultinomial.sample"
CATEGORY = "out_of_scope"


class DirichletMultinomial(torch.distributions.Distribution):
    r"""
    Compound distribution comprising of a dirichlet-multinomial pair. The probability of
    classes (``probs`` for the Multinomial distribution) is unknown and randomly drawn from
    a Dirichlet distribution prior to a certain number of Categorical trials given by
    ``total_count``.
    """

    arg_constraints = {
        "concentration": constraints.independent(constraints.positive, 1),
        "total_count": constraints.nonnegative_integer,
    }
    support = Multinomial.support

    def __init__(
        self, concentration, total_count=1, is_sparse=False, validate_args=None
    ):
        batch_shape = concentration.shape[:-1]
        event_shape = concentration.shape[-1:]
        if isinstance(total_count, numbers.Number):
            total_count = concentration.new_tensor(total_count)
        else:
            batch_shape = torch.broadcast_shapes(batch_shape, total_count.shape)
            concentration = concentration.expand(batch_shape + (-1,))
            total_count = total_count.expand(batch_shape)
        self._dirichlet = Dirichlet(concentration)
        self.total_count = total_count
        self.is_sparse = is_sparse
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    @property
    def concentration(self):
        return self._dirichlet.concentration

    def sample(self, sample_shape=()):
        probs = self._dirichlet.sample(sample_shape)
        total_count = int(self.total_count.max())
        if not self.total_count.min() == total_count:
            raise NotImplementedError(
                "Inhomogeneous total count not supported by `sample`."
            )
        return Multinomial(total_count, probs).sample()


def draw_counts(concentration, total_count, sample_shape):
    """A model's draw: the distribution built from its parameters, then sampled."""
    return DirichletMultinomial(concentration, total_count).sample(sample_shape)


def reset():
    torch.manual_seed(0)


ENTRY = draw_counts
torch.manual_seed(0)
INPUTS = [
    # a batch of 2 with a tensor count of 5 trials each, 3 draws
    (torch.rand(2, 4) + 0.5, torch.tensor([5.0, 5.0]), (3,)),
    # a number as the count
    (torch.rand(4) + 0.5, 3, ()),
    # an inhomogeneous count: NotImplementedError
    (torch.rand(2, 4) + 0.5, torch.tensor([2.0, 6.0]), ()),
]

"""Rewrites that rely on what the text shows, where run time shows otherwise: the check
before the statement fails and the original runs, eagerly and compiled (Inductor), with the
same outputs, prints and warnings. The programs are the rewrite cases'; here their objects
are built so that a check fails."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

import graphmend  # noqa: E402
from behaviour import assert_same_behaviour, fresh_dynamo, log_everything, observe  # noqa: E402,F401 (fixtures)
from case_files import load  # noqa: E402

VAE = "where/tail_flag_set_in_branch"


def printing_normalize(module):
    """A subclass replacing the static `normalize` the rewrite computes on both sides."""

    class Printing(module.ENTRY):
        @staticmethod
        def normalize(images):
            print("normalizing")
            return 2.0 * images - 1.0

    return Printing()


def instance_normalize(module):
    """An instance attribute hiding the method, printing."""
    obj = module.ENTRY()
    obj.normalize = lambda images: print("hidden") or images * 3.0
    return obj


OBJECTS = {
    # `binarize` changes the image in place: the rewrite holds only where it is off
    "config turns on the impure side": lambda module: module.Binarizing(),
    "method overridden": printing_normalize,
    "method hidden by an instance attribute": instance_normalize,
}


@pytest.mark.inductor
@pytest.mark.parametrize("name", sorted(OBJECTS))
def test_a_failed_check_runs_the_original(name):
    module = load(VAE)
    for index in range(len(module.INPUTS)):
        original = OBJECTS[name](module)
        expected = observe(module, original, index)
        assert_same_behaviour(expected, observe(module, graphmend.mend(original), index))
        compiled = graphmend.compile(OBJECTS[name](module))
        assert_same_behaviour(expected, observe(module, compiled, index))

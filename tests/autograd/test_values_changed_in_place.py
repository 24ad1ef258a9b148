"""A value an op's backward reads, changed in place after the op ran, must never give a
wrong gradient: the backward refuses (BackwardError, naming the op and the value) or
reads its own copy.  Checked here for the layers' functions, kernels included (the ops
of the two protocol files in tests/ops are checked there), on odd, non-square shapes."""
import numpy as np
import pytest
from shared import LAYER_FUNCTIONS, changed_in_place_is_caught_or_harmless

import nnbook as nb

rng = np.random.default_rng(0)


@pytest.mark.parametrize("name", sorted(LAYER_FUNCTIONS))
def test_a_value_changed_in_place_after_the_op_never_gives_a_wrong_gradient(name):
    fn, shapes = LAYER_FUNCTIONS[name]

    def seeded(*tensors):  # the layers' weights come from the global generator
        nb.manual_seed(0)
        return fn(*tensors)

    arrays = [rng.standard_normal(shape) for shape in shapes]
    changed_in_place_is_caught_or_harmless(seeded, arrays)

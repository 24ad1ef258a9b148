"""Each call of a layer function owns its results: the kernels reuse scratch memory from
call to call, and none of it may leak into what a call returns or keeps.  A later call
never changes an earlier call's output or gradients, and a graph kept for a second
backward (retain_graph=True) gives the same gradients again after other calls ran."""
import contextlib

import numpy as np
import pytest
from shared import LAYER_FUNCTIONS

import nnbook as nb


def call(name, seed, reference=False, retain_graph=False):
    """(output, the leaves, the output gradient used) of one forward + backward."""
    fn, shapes = LAYER_FUNCTIONS[name]
    rng = np.random.default_rng(seed)
    nb.manual_seed(0)  # the recurrent layers' weights
    leaves = [nb.tensor(rng.standard_normal(shape), requires_grad=True) for shape in shapes]
    with nb.reference_ops() if reference else contextlib.nullcontext():
        out = fn(*[t * 1 for t in leaves])
    grad = nb.tensor(rng.standard_normal(out.shape))
    out.backward(grad, retain_graph=retain_graph)
    return out, leaves, grad


@pytest.mark.parametrize("reference", [False, True], ids=["kernels", "reference"])
@pytest.mark.parametrize("name", sorted(LAYER_FUNCTIONS))
def test_a_later_call_leaves_an_earlier_calls_results_alone(name, reference):
    out, leaves, _ = call(name, 1, reference)
    kept = [out.detach().numpy().copy()] + [t.grad.numpy().copy() for t in leaves]
    call(name, 2, reference)
    call(name, 3, reference)
    now = [out.detach().numpy()] + [t.grad.numpy() for t in leaves]
    for before, after in zip(kept, now):
        np.testing.assert_array_equal(before, after)


@pytest.mark.parametrize("name", sorted(LAYER_FUNCTIONS))
def test_a_retained_graph_gives_the_same_gradients_after_other_calls(name):
    out, leaves, grad = call(name, 1, retain_graph=True)
    first = [t.grad.numpy().copy() for t in leaves]
    call(name, 2)  # the same op on other data, between the two backwards
    out.backward(grad)
    for t, g in zip(leaves, first):
        np.testing.assert_allclose(t.grad.numpy(), 2 * g, rtol=1e-12, atol=1e-12)

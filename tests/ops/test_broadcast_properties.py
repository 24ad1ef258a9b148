"""Property tests: gradients through broadcasting always come back in the input's shape."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import nnbook as nb

OPS = {
    "add": (lambda a, b: a + b, lambda a, b, g: (g, g)),
    "sub": (lambda a, b: a - b, lambda a, b, g: (g, -g)),
    "mul": (lambda a, b: a * b, lambda a, b, g: (g * b, g * a)),
}


def _sum_to(grad, shape):
    """Reference: sum a broadcast gradient back down to ``shape``, axis by axis."""
    while grad.ndim > len(shape):
        grad = grad.sum(0)
    for i, s in enumerate(shape):
        if s == 1 and grad.shape[i] != 1:
            grad = grad.sum(i, keepdims=True)
    return grad


@settings(max_examples=60, deadline=None)
@given(shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4, max_side=5),
       op=st.sampled_from(sorted(OPS)), seed=st.integers(0, 2**16))
def test_broadcast_gradients_match_reference(shapes, op, seed):
    rng = np.random.default_rng(seed)
    sa, sb = shapes.input_shapes
    a = nb.tensor(rng.standard_normal(sa), requires_grad=True)
    b = nb.tensor(rng.standard_normal(sb), requires_grad=True)
    fn, local = OPS[op]
    out = fn(a, b)
    assert out.shape == shapes.result_shape
    g = rng.standard_normal(out.shape)
    out.backward(g)
    want_a, want_b = local(*np.broadcast_arrays(a.detach().numpy(), b.detach().numpy()), g)
    assert a.grad.shape == sa and b.grad.shape == sb
    np.testing.assert_allclose(a.grad.numpy(), _sum_to(want_a, sa), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(b.grad.numpy(), _sum_to(want_b, sb), rtol=1e-10, atol=1e-12)


@settings(max_examples=25, deadline=None)
@given(shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=1, max_dims=3, max_side=4),
       seed=st.integers(0, 2**16))
def test_broadcast_div_passes_gradcheck(shapes, seed):
    rng = np.random.default_rng(seed)
    sa, sb = shapes.input_shapes
    a = nb.tensor(rng.standard_normal(sa), requires_grad=True)
    b = nb.tensor(np.abs(rng.standard_normal(sb)) + 0.5, requires_grad=True)
    assert nb.gradcheck(lambda a, b: a / b, (a, b))

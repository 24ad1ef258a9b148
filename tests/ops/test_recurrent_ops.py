"""The recurrence ops (nnbook/ops/recurrent.py): backpropagation through time checked
against numerical derivatives, the faster LSTM kernel against the reference, an output
changed in place, and the shape rule (it stores nothing, and refuses states and weights of
the wrong shape)."""
import contextlib

import numpy as np
import pytest

import nnbook as nb
from nnbook.errors import ShapeError
from nnbook.kernels.recurrent import LSTMSequenceKernel
from nnbook.ops.base import Spec
from nnbook.ops.recurrent import GRUSequence, LSTMSequence, RNNSequence
from nnbook.tensor import apply

T, B, H = 5, 3, 4

OPS = [  # (name, build, gates, states)
    ("rnn_tanh", lambda reverse: RNNSequence(reverse), 1, 1),
    ("rnn_relu", lambda reverse: RNNSequence(reverse, "relu"), 1, 1),
    ("lstm", lambda reverse: LSTMSequence(reverse), 4, 2),
    ("gru", lambda reverse: GRUSequence(reverse), 3, 1),
]


def inputs(rng, gates, states, bias=True):
    """gx (T, B, G·H), the states (B, H), W_hh (G·H, H) and b_hh, float64 and tracked."""
    arrays = [rng.standard_normal((T, B, gates * H))]
    arrays += [rng.standard_normal((B, H)) for _ in range(states)]
    arrays.append(rng.standard_normal((gates * H, H)) * 0.5)
    if bias:
        arrays.append(rng.standard_normal(gates * H))
    return [nb.tensor(a, requires_grad=True) for a in arrays]


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("name,build,gates,states", OPS, ids=[o[0] for o in OPS])
def test_backward_through_time_matches_numerical_derivatives(name, build, gates, states,
                                                             reverse, bias):
    rng = np.random.default_rng(21)
    args = inputs(rng, gates, states, bias)
    with nb.reference_ops():  # the reference op, not the kernel that replaces it
        assert type(build(reverse)) in (RNNSequence, LSTMSequence, GRUSequence)
        assert nb.gradcheck(lambda *a: apply(build(reverse), *a), args)


@pytest.mark.parametrize("reverse", [False, True])
def test_the_lstm_kernel_is_built_in_place_of_the_reference_and_passes_gradcheck(reverse):
    assert type(LSTMSequence(reverse)) is LSTMSequenceKernel
    rng = np.random.default_rng(22)
    assert nb.gradcheck(lambda *a: apply(LSTMSequence(reverse), *a),
                                 inputs(rng, 4, 2))


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("dtype,tol", [(np.float64, 1e-13), (np.float32, 2e-6)])
def test_the_lstm_kernel_agrees_with_the_reference(reverse, bias, dtype, tol):
    rng = np.random.default_rng(23)
    args = [a.detach().to(nb.float32 if dtype == np.float32 else nb.float64).requires_grad_()
            for a in inputs(rng, 4, 2, bias)]
    grad_out = rng.standard_normal((2, T, B, H)).astype(dtype)
    results = []
    for op in (LSTMSequence(reverse), None):
        if op is None:
            with nb.reference_ops():
                op = LSTMSequence(reverse)
        for a in args:
            a.grad = None
        out = apply(op, *args)
        (out * nb.tensor(grad_out)).sum().backward()
        results.append([out.detach().numpy()] + [a.grad.numpy().copy() for a in args])
    assert type(op) is LSTMSequence
    for fast, ref in zip(*results):
        assert fast.dtype == ref.dtype == dtype
        np.testing.assert_allclose(fast, ref, rtol=tol, atol=tol)


@pytest.mark.parametrize("name,build,gates,states", OPS, ids=[o[0] for o in OPS])
def test_the_shape_rule_stores_nothing_and_gives_the_outputs_shape(name, build, gates, states):
    op = build(False)
    before = dict(vars(op))
    specs = [Spec((T, B, gates * H))] + [Spec((B, H))] * states + \
        [Spec((gates * H, H)), Spec((gates * H,))]
    shape = op.infer(*specs)
    assert shape == ((2, T, B, H) if name == "lstm" else (T, B, H))
    assert vars(op) == before


@pytest.mark.parametrize("name,build,gates,states", OPS, ids=[o[0] for o in OPS])
def test_the_shape_rule_refuses_a_state_or_weight_of_the_wrong_shape(name, build, gates,
                                                                     states):
    gx, w = Spec((T, B, gates * H)), Spec((gates * H, H))
    with pytest.raises(ShapeError, match=r"expects states \(B, H\) = \(3, 4\), got .*\(4, 3\)"):
        build(False).infer(gx, *[Spec((H, B))] * states, w)
    with pytest.raises(ShapeError, match=r"expects W_hh"):
        build(False).infer(gx, *[Spec((B, H))] * states, Spec((gates * H, H + 1)))


@pytest.mark.parametrize("kernels", [True, False], ids=["kernels", "reference"])
@pytest.mark.parametrize("name,build,gates,states", OPS, ids=[o[0] for o in OPS])
def test_an_output_changed_in_place_leaves_the_gradients_right(name, build, gates, states,
                                                               kernels):
    """The ops keep their own copy of what their backward reads: doubling the output in
    place gives the gradients of doubling it out of place."""
    rng = np.random.default_rng(25)
    args = inputs(rng, gates, states)
    grads = []
    for in_place in (False, True):
        for a in args:
            a.grad = None
        with contextlib.nullcontext() if kernels else nb.reference_ops():
            out = apply(build(False), *args)
        if in_place:
            out.mul_(2)
        else:
            out = out * 2
        out.sum().backward()
        grads.append([a.grad.numpy().copy() for a in args])
    for a, b in zip(*grads):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)

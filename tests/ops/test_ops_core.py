"""Core ops: forward against numpy, backward by gradcheck on odd shapes, error paths."""
import numpy as np
import pytest

import nnbook as nb
from nnbook.errors import DimError, DTypeError, ShapeError
from nnbook.ops import Spec


def t64(rng, *shape, positive=False, requires_grad=True):
    data = rng.standard_normal(shape)
    if positive:
        data = np.abs(data) + 0.5
    return nb.tensor(data, requires_grad=requires_grad)


# (name, nnbook function, numpy reference, input shapes, positive inputs?)
BINARY = [
    ("add", lambda a, b: a + b, np.add),
    ("sub", lambda a, b: a - b, np.subtract),
    ("mul", lambda a, b: a * b, np.multiply),
    ("div", lambda a, b: a / b, np.divide),
    ("pow", lambda a, b: a ** b, np.power),
]
BROADCAST_PAIRS = [
    ((7, 5), (7, 5)),
    ((7, 5), (5,)),
    ((4, 1, 3), (5, 1)),
    ((1,), (9, 4)),
    ((), (3, 2)),
]


@pytest.mark.parametrize("name,fn,ref", BINARY, ids=[b[0] for b in BINARY])
@pytest.mark.parametrize("shapes", BROADCAST_PAIRS, ids=str)
def test_binary_forward_and_gradcheck(rng, name, fn, ref, shapes):
    a = t64(rng, *shapes[0], positive=name == "pow")
    b = t64(rng, *shapes[1], positive=name in ("div", "pow"))
    np.testing.assert_allclose(
        fn(a, b).detach().numpy(), ref(a.detach().numpy(), b.detach().numpy()), rtol=1e-12
    )
    assert nb.gradcheck(fn, (a, b))


UNARY = [
    ("exp", lambda x: x.exp(), np.exp, False),
    ("log", lambda x: x.log(), np.log, True),
    ("sqrt", lambda x: x.sqrt(), np.sqrt, True),
    ("tanh", lambda x: x.tanh(), np.tanh, False),
    ("sigmoid", lambda x: x.sigmoid(), lambda v: 1 / (1 + np.exp(-v)), False),
    ("relu", lambda x: x.relu(), lambda v: np.maximum(v, 0), False),
    ("neg", lambda x: -x, np.negative, False),
    ("abs", lambda x: x.abs(), np.abs, False),
    ("clamp", lambda x: x.clamp(-0.5, 0.7), lambda v: np.clip(v, -0.5, 0.7), False),
]


@pytest.mark.parametrize("name,fn,ref,positive", UNARY, ids=[u[0] for u in UNARY])
def test_unary_forward_and_gradcheck(rng, name, fn, ref, positive):
    x = t64(rng, 7, 5, positive=positive)
    if name in ("relu", "abs", "clamp"):  # keep away from the kinks
        x.data[np.abs(x.detach().numpy()) < 1e-3] = 0.1
        x.data[np.abs(np.abs(x.detach().numpy()) - 0.6) < 0.11] = 0.3
    np.testing.assert_allclose(fn(x).detach().numpy(), ref(x.detach().numpy()), rtol=1e-12)
    assert nb.gradcheck(fn, (x,))


def test_sigmoid_is_stable_for_large_inputs():
    x = nb.tensor([-1000.0, 0.0, 1000.0])
    np.testing.assert_allclose(x.sigmoid().detach().numpy(), [0.0, 0.5, 1.0])


REDUCTIONS = [
    ("sum", None, False), ("sum", 0, False), ("sum", -1, True), ("sum", (0, 2), False),
    ("mean", None, False), ("mean", 1, True), ("mean", (1, 2), False),
]


@pytest.mark.parametrize("op,dim,keepdim", REDUCTIONS)
def test_reductions(rng, op, dim, keepdim):
    x = t64(rng, 7, 5, 3)
    got = getattr(x, op)(dim=dim, keepdim=keepdim)
    want = getattr(np, op)(x.detach().numpy(), axis=dim, keepdims=keepdim)
    np.testing.assert_allclose(got.detach().numpy(), want, rtol=1e-12)
    assert nb.gradcheck(lambda x: getattr(x, op)(dim=dim, keepdim=keepdim), (x,))


@pytest.mark.parametrize("dim,keepdim", [(0, False), (1, True), (-1, False)])
def test_max_along_dim_returns_values_and_indices(rng, dim, keepdim):
    x = t64(rng, 7, 5, 3)
    values, indices = x.max(dim=dim, keepdim=keepdim)
    np.testing.assert_array_equal(
        values.detach().numpy(), x.detach().numpy().max(axis=dim, keepdims=keepdim)
    )
    np.testing.assert_array_equal(
        indices.detach().numpy(), x.detach().numpy().argmax(axis=dim, keepdims=keepdim)
    )
    assert indices.dtype == np.int64
    assert nb.gradcheck(lambda x: x.max(dim=dim, keepdim=keepdim).values, (x,))


def test_max_of_everything_shares_gradient_between_ties():
    x = nb.tensor([1.0, 3.0, 3.0, 2.0], requires_grad=True)
    x.max().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0, 0.5, 0.5, 0])


def test_max_along_dim_gives_gradient_to_first_maximum():
    x = nb.tensor([[1.0, 3.0, 3.0]], requires_grad=True)
    x.max(dim=1).values.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[0, 1, 0]])


def test_reduction_dim_out_of_range():
    with pytest.raises(DimError, match=r"dim=3 is out of range for a tensor with 2 dimension"):
        nb.ones(7, 5).sum(dim=3)
    with pytest.raises(IndexError):  # also an IndexError
        nb.ones(7, 5).mean(dim=-3)


def test_mean_of_integers_is_refused():
    with pytest.raises(DTypeError, match="floating point"):
        nb.tensor([1, 2]).mean()


@pytest.mark.parametrize(
    "sa,sb",
    [
        ((7, 5), (5, 3)),
        ((5,), (5, 3)),
        ((7, 5), (5,)),
        ((5,), (5,)),
        ((2, 7, 5), (5, 3)),
        ((4, 1, 7, 5), (3, 5, 2)),
        ((7, 5), (2, 5, 3)),
    ],
)
def test_matmul_shapes_and_gradients(rng, sa, sb):
    a, b = t64(rng, *sa), t64(rng, *sb)
    out = a @ b
    np.testing.assert_allclose(
        out.detach().numpy(), np.matmul(a.detach().numpy(), b.detach().numpy()), rtol=1e-12
    )
    assert out.shape == nb.ops.linalg.Matmul().infer(Spec(sa), Spec(sb))
    assert nb.gradcheck(lambda a, b: a @ b, (a, b))


def test_matmul_error_names_both_shapes_and_hints_transpose():
    with pytest.raises(ShapeError, match=r"\(7, 5\) @ \(3, 5\).*\(5\).*\(3\)") as info:
        nb.ones(7, 5) @ nb.ones(3, 5)
    assert "transpose" in str(info.value)


def test_broadcast_error_names_the_axis():
    with pytest.raises(ShapeError, match=r"\(7, 5\) and \(4,\).*dimension -1 is 5.*4"):
        nb.ones(7, 5) + nb.ones(4)


@pytest.mark.parametrize("shape", [(35,), (5, 7), (-1, 5), (7, 1, 5), (5, -1, 1)])
def test_reshape(rng, shape):
    x = t64(rng, 7, 5)
    np.testing.assert_array_equal(
        x.reshape(shape).detach().numpy(), x.detach().numpy().reshape(shape)
    )
    assert nb.gradcheck(
        lambda x: x.reshape(*shape) * nb.arange(35, dtype=nb.float64).reshape(shape), (x,)
    )


def test_reshape_errors():
    with pytest.raises(ShapeError, match=r"cannot reshape \(7, 5\) \(35 elements\) into \(6, 6\)"):
        nb.ones(7, 5).reshape(6, 6)
    with pytest.raises(ShapeError, match="at most one -1"):
        nb.ones(7, 5).reshape(-1, -1)


def test_view_flatten_unsqueeze_squeeze(rng):
    x = t64(rng, 2, 7, 5)
    assert x.view(14, 5).shape == (14, 5)
    assert x.flatten().shape == (70,) and x.flatten(1).shape == (2, 35)
    assert x.flatten(0, 1).shape == (14, 5)
    assert x.unsqueeze(1).shape == (2, 1, 7, 5) and x.unsqueeze(-1).shape == (2, 7, 5, 1)
    assert x.unsqueeze(0).squeeze(0).shape == (2, 7, 5) and x.squeeze(1).shape == (2, 7, 5)
    assert nb.gradcheck(lambda x: x.flatten(1) * 2, (x,))


@pytest.mark.parametrize("dims", [(1, 0, 2), (2, 0, 1), (-1, -2, -3)])
def test_permute(rng, dims):
    x = t64(rng, 4, 7, 5)
    np.testing.assert_array_equal(
        x.permute(*dims).detach().numpy(), np.transpose(x.detach().numpy(), dims)
    )
    w = t64(rng, *np.transpose(x.detach().numpy(), dims).shape, requires_grad=False)
    assert nb.gradcheck(lambda x: x.permute(dims) * w, (x,))


def test_transpose_and_T(rng):
    x = t64(rng, 4, 7, 5)
    np.testing.assert_array_equal(
        x.transpose(0, 2).detach().numpy(), np.swapaxes(x.detach().numpy(), 0, 2)
    )
    np.testing.assert_array_equal(t64(rng, 7, 5).T.detach().numpy().shape, (5, 7))
    with pytest.raises(ShapeError, match="not a permutation"):
        x.permute(0, 1)


@pytest.mark.parametrize("key", [
    (slice(1, 6, 2),), (2,), (-1, slice(None, None, 2)), (Ellipsis, 3), (None, 2),
    ([0, 2, 2, 6],), (slice(None), [4, 0, 4]),
], ids=str)
def test_indexing(rng, key):
    x = t64(rng, 7, 5)
    np.testing.assert_array_equal(x[key].detach().numpy(), x.detach().numpy()[key])
    assert nb.gradcheck(lambda x: x[key] * 3, (x,))


def test_negative_slice_steps_are_refused_as_in_pytorch(rng):
    with pytest.raises(nb.InputError, match=r"steps must be positive[\s\S]*hint: .*flip"):
        t64(rng, 7, 5)[::-1]


def test_indexing_with_mask_and_tensor(rng):
    x = t64(rng, 7, 5)
    mask = x > 0
    np.testing.assert_array_equal(
        x[mask].detach().numpy(), x.detach().numpy()[x.detach().numpy() > 0]
    )
    idx = nb.tensor([1, 1, 3])
    x[idx].sum().backward()
    assert x.grad.numpy()[1].sum() == 10 and x.grad.numpy()[3].sum() == 5  # picked twice


def test_index_out_of_range():
    with pytest.raises(DimError, match=r"cannot index a tensor of shape \(7, 5\)"):
        nb.ones(7, 5)[7]
    with pytest.raises(IndexError):
        nb.ones(7, 5)[:, 5]


def test_cat_and_stack(rng):
    a, b = t64(rng, 2, 5, 3), t64(rng, 2, 4, 3)
    np.testing.assert_array_equal(
        nb.cat([a, b], dim=1).detach().numpy(),
        np.concatenate([a.detach().numpy(), b.detach().numpy()], 1),
    )
    assert nb.gradcheck(lambda a, b: nb.cat([a, b], dim=1) ** 2, (a, b))
    c, d = t64(rng, 7, 5), t64(rng, 7, 5)
    assert nb.stack([c, d], dim=1).shape == (7, 2, 5)
    assert nb.gradcheck(lambda c, d: nb.stack([c, d], dim=-1).exp(), (c, d))
    with pytest.raises(ShapeError, match=r"tensor 1 has shape \(2, 4, 4\).*all sizes except dim 1"):
        nb.cat([a, t64(rng, 2, 4, 4)], dim=1)


def test_expand(rng):
    x = t64(rng, 7, 1)
    assert x.expand(3, 7, 5).shape == (3, 7, 5)
    assert nb.gradcheck(lambda x: x.expand(3, -1, 5) * 2, (x,))
    with pytest.raises(ShapeError, match="only size-1"):
        x.expand(6, 5)


@pytest.mark.parametrize("fn", [
    lambda x: x.sum(), lambda x: x.mean(dim=0), lambda x: (x * x).sum(1), lambda x: x[1:, ::2],
    lambda x: x.reshape(5, 7).T, lambda x: x.exp().log(),
])
def test_float32_stays_float32(fn):
    x = nb.randn(7, 5, requires_grad=True)
    y = fn(x)
    assert y.dtype == np.float32
    y.sum().backward()
    assert x.grad.dtype == np.float32


def test_shape_rules_work_on_specs_without_data():
    big = Spec((1000, 3, 4096, 2048))
    assert nb.ops.elementwise.Add().infer(big, Spec((2048,))) == big.shape
    assert nb.ops.reduce.Sum(dim=1).infer(big) == (1000, 4096, 2048)
    assert nb.ops.shape.Reshape((1000, -1)).infer(big) == (1000, 3 * 4096 * 2048)


def test_an_op_without_a_backward_cannot_be_made():
    from nnbook.ops.base import Op

    class Half(Op):  # a shape rule and a forward, but no backward
        def infer(self, x):
            return x.shape

        def forward(self, x):
            return x

    with pytest.raises(TypeError, match="abstract method backward"):
        Half()

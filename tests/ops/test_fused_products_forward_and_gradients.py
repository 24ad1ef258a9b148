"""The fused ops: ``addcmul``/``addcdiv`` (self + value * t1 * t2, or / t2) and the
products added to an input (``addmm``, ``addmv``, ``addr``, ``baddbmm``, ``addbmm``, with
beta and alpha), as functions, methods and in place, against numpy and by gradcheck on odd
non-square float64 shapes; ``tril_indices``/``triu_indices`` against ``tril``/``triu``; and
their errors.  (tests/ops/test_fused_products_match_torch.py compares them with PyTorch.)"""
import numpy as np
import pytest

import nnbook as nb
from nnbook.errors import ArgumentError, BackwardError, DTypeError, InputError, ShapeError

# (name, nnbook call, numpy reference, input shapes); inputs are float64 normal draws
FORWARD = [
    ("addcmul", lambda x, a, b: nb.addcmul(x, a, b, value=-0.7),
     lambda x, a, b: x - 0.7 * a * b, [(7, 1), (5,), (3, 1, 1)]),
    ("addcmul_method", lambda x, a, b: x.addcmul(a, b), lambda x, a, b: x + a * b,
     [(7, 5), (7, 5), (5,)]),
    ("addcdiv", lambda x, a, b: nb.addcdiv(x, a, b, value=2.5),
     lambda x, a, b: x + 2.5 * a / b, [(3, 7, 5), (7, 1), (5,)]),
    ("addmm", lambda x, a, b: nb.addmm(x, a, b, beta=0.5, alpha=-2),
     lambda x, a, b: 0.5 * x - 2 * a @ b, [(1, 5), (7, 3), (3, 5)]),
    ("addmm_0d", lambda x, a, b: x.addmm(a, b), lambda x, a, b: x + a @ b,
     [(), (7, 3), (3, 5)]),
    ("addmv", lambda x, a, v: x.addmv(a, v, beta=2, alpha=0.5),
     lambda x, a, v: 2 * x + 0.5 * a @ v, [(7,), (7, 3), (3,)]),
    ("addr", lambda x, u, v: nb.addr(x, u, v, alpha=3),
     lambda x, u, v: x + 3 * np.outer(u, v), [(7, 5), (7,), (5,)]),
    ("baddbmm", lambda x, a, b: nb.baddbmm(x, a, b, beta=-1, alpha=1.5),
     lambda x, a, b: -x + 1.5 * a @ b, [(5,), (2, 7, 3), (2, 3, 5)]),
    ("addbmm", lambda x, a, b: x.addbmm(a, b, alpha=0.5),
     lambda x, a, b: x + 0.5 * (a @ b).sum(0), [(7, 5), (4, 7, 3), (4, 3, 5)]),
    ("addmm_empty_inner", lambda x, a, b: nb.addmm(x, a, b, beta=3),
     lambda x, a, b: 3 * x + np.zeros((7, 5)), [(7, 5), (7, 0), (0, 5)]),
]


@pytest.mark.parametrize("name,fn,ref,shapes", FORWARD, ids=[f[0] for f in FORWARD])
def test_forward_matches_numpy(rng, name, fn, ref, shapes):
    arrays = [rng.standard_normal(s) for s in shapes]
    out = fn(*[nb.tensor(a) for a in arrays])
    expected = ref(*arrays)
    assert out.shape == expected.shape and out.dtype == nb.float64
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["addmm", "addmv", "addr", "baddbmm", "addbmm"])
def test_beta_zero_leaves_nan_in_the_input_out_and_its_gradient_is_zero(rng, name):
    shapes = {"addmm": [(7, 5), (7, 3), (3, 5)], "addmv": [(7,), (7, 3), (3,)],
              "addr": [(7, 5), (7,), (5,)], "baddbmm": [(2, 7, 5), (2, 7, 3), (2, 3, 5)],
              "addbmm": [(7, 5), (2, 7, 3), (2, 3, 5)]}[name]
    x = nb.tensor(np.full(shapes[0], np.nan), requires_grad=True)
    a, b = (nb.tensor(rng.standard_normal(s)) for s in shapes[1:])
    out = getattr(nb, name)(x, a, b, beta=0, alpha=2)
    full = getattr(nb, name)(nb.zeros(shapes[0], dtype=nb.float64), a, b, alpha=2)
    np.testing.assert_allclose(out.detach().numpy(), full.numpy(), rtol=1e-12)
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros(shapes[0]))
    y = nb.tensor(np.full(shapes[0], np.nan))
    getattr(y, name + "_")(a, b, beta=0)
    assert np.isfinite(y.numpy()).all()


def test_integers_stay_integers_and_a_fraction_of_value_is_dropped_as_in_pytorch():
    x = nb.tensor([1, 2, -3])
    assert x.addcmul(x, x, value=2.5).tolist() == (x + 2 * x * x).tolist()
    assert x.addcmul(x, x, value=-1.5).dtype == nb.int64
    m = nb.tensor([[1, 2], [3, 4]])
    assert nb.addmm(m, m, m, beta=2, alpha=-3).tolist() == (2 * m - 3 * (m @ m)).tolist()


GRADCHECKED = {
    "addcmul": ((7, 1), (5,), (3, 1, 1), lambda x, a, b: nb.addcmul(x, a, b, value=-0.7)),
    "addcdiv": ((7, 5), (7, 1), (5,), lambda x, a, b: x.addcdiv(a, b.exp(), value=1.3)),
    "addmm": ((1, 5), (7, 3), (3, 5), lambda x, a, b: nb.addmm(x, a, b, beta=0.5, alpha=-2)),
    "addmv": ((7,), (7, 3), (3,), lambda x, a, v: x.addmv(a, v, beta=2, alpha=0.5)),
    "addr": ((7, 5), (7,), (5,), lambda x, u, v: nb.addr(x, u, v, alpha=3)),
    "baddbmm": ((5,), (2, 7, 3), (2, 3, 5), lambda x, a, b: nb.baddbmm(x, a, b, beta=-1)),
    "addbmm": ((7, 5), (4, 7, 3), (4, 3, 5), lambda x, a, b: x.addbmm(a, b, alpha=0.5)),
}


@pytest.mark.parametrize("name", sorted(GRADCHECKED))
def test_fused_op_gradients_check(rng, name):
    *shapes, fn = GRADCHECKED[name]
    inputs = [nb.tensor(rng.standard_normal(s), requires_grad=True) for s in shapes]
    assert nb.autograd.gradcheck(fn, inputs)


IN_PLACE = {
    "addcmul_": ([(7, 5), (5,), (7, 1)], {"value": 0.5}),
    "addcdiv_": ([(7, 5), (7, 5), (5,)], {"value": -0.5}),
    "addmm_": ([(7, 5), (7, 3), (3, 5)], {"beta": 0.5, "alpha": 2}),
    "addmv_": ([(7,), (7, 3), (3,)], {"beta": 0.5, "alpha": 2}),
    "addr_": ([(7, 5), (7,), (5,)], {"beta": 0.5, "alpha": 2}),
    "baddbmm_": ([(2, 7, 5), (2, 7, 3), (2, 3, 5)], {"beta": 0.5, "alpha": 2}),
    "addbmm_": ([(7, 5), (4, 7, 3), (4, 3, 5)], {"beta": 0.5, "alpha": 2}),
}


@pytest.mark.parametrize("name", sorted(IN_PLACE))
def test_in_place_form_changes_the_tensor_and_bumps_its_version(rng, name):
    shapes, options = IN_PLACE[name]
    x, *others = [nb.tensor(rng.standard_normal(s)) for s in shapes]
    expected = getattr(nb, name[:-1])(x, *others, **options).numpy()
    before = x._version
    assert getattr(x, name)(*others, **options) is x
    assert x._version == before + 1
    np.testing.assert_allclose(x.numpy(), expected, rtol=1e-12)


def test_adam_lines_change_a_parameter_under_no_grad_and_count_as_changes(rng):
    p = nb.nn.Parameter(nb.tensor(rng.standard_normal((7, 5))))
    start = p.detach().numpy().copy()
    g, exp_avg_sq = nb.tensor(rng.standard_normal((7, 5))), nb.zeros(7, 5, dtype=nb.float64)
    with nb.no_grad():
        exp_avg_sq.mul_(0.999).addcmul_(g, g, value=0.001)
        p.addcdiv_(g, exp_avg_sq.sqrt().add_(1e-8), value=-0.01)
    assert p._version == 1 and p.requires_grad and p.is_leaf and p.grad_fn is None
    expected = start - 0.01 * g.numpy() / (np.sqrt(0.001 * g.numpy() ** 2) + 1e-8)
    np.testing.assert_allclose(p.detach().numpy(), expected, rtol=1e-12)


def test_in_place_on_a_leaf_that_requires_grad_is_refused_outside_no_grad():
    p = nb.ones(3, requires_grad=True)
    with pytest.raises(BackwardError, match="in-place addcdiv_ on a leaf tensor"):
        p.addcdiv_(nb.ones(3), nb.ones(3), value=-0.1)
    with pytest.raises(BackwardError, match="in-place addmm_ on a leaf tensor"):
        nb.ones(2, 2, requires_grad=True).addmm_(nb.ones(2, 3), nb.ones(3, 2))
    assert p._version == 0


def test_wrong_inputs_get_nnbook_errors_naming_the_op_and_both_shapes():
    with pytest.raises(ShapeError, match=r"addmm: mat1 and mat2 cannot be multiplied: got "
                                         r"mat1 \(7, 3\) and mat2 \(4, 5\)"):
        nb.addmm(nb.ones(7, 5), nb.ones(7, 3), nb.ones(4, 5))
    with pytest.raises(ShapeError, match=r"addmv: expects a 2-D mat and a 1-D vec, got "
                                         r"mat \(7, 3\) and vec \(3, 1\)"):
        nb.addmv(nb.ones(7), nb.ones(7, 3), nb.ones(3, 1))
    with pytest.raises(ShapeError, match=r"baddbmm: batch1 and batch2 cannot be multiplied"
                                         r".*\(2, 7, 3\) and batch2 \(3, 3, 5\)"):
        nb.baddbmm(nb.ones(5), nb.ones(2, 7, 3), nb.ones(3, 3, 5))
    with pytest.raises(ShapeError, match=r"addr: input \(7,\) does not broadcast to the "
                                         r"product's shape \(7, 5\)"):
        nb.addr(nb.ones(7), nb.ones(7), nb.ones(5))
    with pytest.raises(ShapeError, match=r"addmm: input \(1, 7, 5\) does not broadcast"):
        nb.addmm(nb.ones(1, 7, 5), nb.ones(7, 3), nb.ones(3, 5))
    with pytest.raises(DTypeError, match="addmm: needs input, mat1 and mat2 of one dtype"):
        nb.addmm(nb.ones(7, 5), nb.ones(7, 3), nb.ones(3, 5, dtype=nb.float64))
    with pytest.raises(ShapeError, match="addmm_ would change the shape"):
        nb.ones(1, 5).addmm_(nb.ones(7, 3), nb.ones(3, 5))
    with pytest.raises(ShapeError, match=r"addcmul: shapes \(7, 5\) and \(4,\) cannot be "
                                         r"broadcast"):
        nb.addcmul(nb.ones(7, 5), nb.ones(7, 5), nb.ones(4))
    with pytest.raises(DTypeError, match="addcdiv: divides tensor1 by tensor2, which are "
                                         "both integers"):
        nb.addcdiv(nb.ones(3), nb.tensor([1, 2, 3]), nb.tensor([1, 2, 3]))
    with pytest.raises(DTypeError, match="addcmul: takes numbers, got a bool tensor"):
        nb.addcmul(nb.tensor([True]), nb.tensor([True]), nb.tensor([True]))
    with pytest.raises(DTypeError, match="cannot be stored in this int64 tensor"):
        nb.tensor([1, 2]).addcmul_(nb.ones(2), nb.ones(2))
    with pytest.raises(ArgumentError, match="addcmul: value must be a number, got 'half'"):
        nb.ones(2).addcmul(nb.ones(2), nb.ones(2), value="half")
    with pytest.raises(ArgumentError, match="addcdiv: value must be a number, got None"):
        nb.ones(2).addcdiv_(nb.ones(2), nb.ones(2), value=None)
    with pytest.raises(ArgumentError, match="addmm: beta must be a number, got None"):
        nb.addmm(nb.ones(2, 2), nb.ones(2, 2), nb.ones(2, 2), beta=None)
    with pytest.raises(ArgumentError, match=r"baddbmm: alpha must be a number, got \[2\]"):
        nb.ones(1, 2, 2).baddbmm_(nb.ones(1, 2, 2), nb.ones(1, 2, 2), alpha=[2])


@pytest.mark.parametrize("call", [
    lambda: nb.addmm(nb.ones(2, 2), nb.ones(2, 2), [[1.0, 2.0], [3.0, 4.0]]),
    lambda: nb.ones(3).addmv(nb.ones(3, 2), (1.0, 2.0)),
    lambda: nb.ones(3, 2).addr(3.0, nb.ones(2)),
    lambda: nb.ones(2).addcmul(nb.ones(2), 3.0),
    lambda: nb.addcdiv(nb.ones(2), [1.0, 2.0], nb.ones(2)),
    lambda: nb.ones(2).addcdiv_(1, nb.ones(2)),
    lambda: nb.ones(2, 2).addmm_(nb.ones(2, 2), 1),
    lambda: nb.ones(1, 2).baddbmm(nb.ones(1, 1, 2), None),
])
def test_an_operand_that_is_not_a_tensor_gets_an_argument_error_as_torch(call):
    with pytest.raises(ArgumentError, match="must be a tensor, got"):
        call()


# -- tril_indices, triu_indices ------------------------------------------------------------


@pytest.mark.parametrize("row,col,offset", [(7, 5, 0), (5, 7, 2), (7, 5, -3), (0, 4, 0),
                                            (4, 0, 1), (3, 5, -9), (3, 5, 9)])
def test_triangle_indices_are_the_triangles_positions_in_reading_order(row, col, offset):
    for name, keep in (("tril_indices", np.tril), ("triu_indices", np.triu)):
        found = getattr(nb, name)(row, col, offset)
        positions = np.argwhere(keep(np.ones((row, col)), offset)).T  # row by row
        assert found.dtype == nb.int64 and found.shape == (2, positions.shape[1])
        np.testing.assert_array_equal(found.numpy(), positions)
        assert getattr(nb, name)(row, col, offset=offset, dtype=nb.int32).dtype == nb.int32


def test_triangle_indices_pick_what_tril_keeps(rng):
    x = nb.tensor(rng.standard_normal((7, 5)))
    rows, cols = nb.tril_indices(7, 5, -1)
    kept = x.tril(-1).numpy()
    assert (kept[rows.numpy(), cols.numpy()] == x.numpy()[rows.numpy(), cols.numpy()]).all()
    assert np.count_nonzero(kept) == rows.numel()


def test_triangle_indices_refuse_what_torch_refuses():
    with pytest.raises(InputError, match="tril_indices: row and col must not be negative"):
        nb.tril_indices(-1, 3)
    with pytest.raises(ArgumentError, match="triu_indices: row must be an int, got 3.0"):
        nb.triu_indices(3.0, 3)
    with pytest.raises(DTypeError, match="gives int64 or int32 indices, not float32"):
        nb.tril_indices(3, 3, dtype=nb.float32)

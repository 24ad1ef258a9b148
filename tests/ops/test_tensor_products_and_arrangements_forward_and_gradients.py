"""tensordot, kron, cross, block_diag, cartesian_prod, combinations and rot90: forward
against numpy and itertools, backward by gradcheck on odd non-square float64 shapes, and
their errors.  (tests/ops/test_tensor_products_and_arrangements_match_torch.py compares
them with PyTorch.)"""
import itertools

import numpy as np
import pytest

import nnbook as nb
from nnbook.errors import ArgumentError, DimError, DTypeError, InputError, ShapeError


def _block_diag(*blocks):
    """numpy's reference: each block a 2-D array, placed corner to corner."""
    blocks = [np.atleast_2d(b) for b in blocks]
    out = np.zeros((sum(b.shape[0] for b in blocks), sum(b.shape[1] for b in blocks)))
    row = col = 0
    for b in blocks:
        out[row:row + b.shape[0], col:col + b.shape[1]] = b
        row, col = row + b.shape[0], col + b.shape[1]
    return out


# (name, nnbook call, numpy reference, input shapes); inputs are float64 normal draws
FORWARD = [
    ("tensordot", lambda a, b: nb.tensordot(a, b), lambda a, b: np.tensordot(a, b),
     [(3, 4, 5), (4, 5, 2)]),
    ("tensordot_lists", lambda a, b: nb.tensordot(a, b, ([-1, 1], [0, 2])),
     lambda a, b: np.tensordot(a, b, ([2, 1], [0, 2])), [(3, 4, 5), (5, 2, 4)]),
    ("tensordot_tensor", lambda a, b: nb.tensordot(a, b, nb.tensor([[0], [1]])),
     lambda a, b: np.tensordot(a, b, ([0], [1])), [(3, 7), (5, 3)]),
    ("tensordot_outer", lambda a, b: nb.tensordot(a, b, 0),
     lambda a, b: np.multiply.outer(a, b), [(3, 2), (5,)]),
    ("kron", lambda a, b: nb.kron(a, b), np.kron, [(2, 3), (4, 5)]),
    ("kron_more_dims", lambda a, b: a.kron(b), np.kron, [(3,), (2, 4, 1)]),
    ("cross", lambda a, b: nb.cross(a, b, dim=-1), lambda a, b: np.cross(a, b),
     [(7, 3), (7, 3)]),
    ("cross_first_dim", lambda a, b: a.cross(b, 0), lambda a, b: np.cross(a, b, axis=0),
     [(3, 5), (3, 5)]),
    ("block_diag", lambda *t: nb.block_diag(*t), _block_diag, [(), (3,), (2, 4), (5, 1)]),
    ("cartesian_prod", lambda *t: nb.cartesian_prod(*t),
     lambda *v: np.array(list(itertools.product(*v))), [(3,), (2,), (4,)]),
    ("combinations", lambda a: nb.combinations(a, 3),
     lambda a: np.array(list(itertools.combinations(a, 3))), [(6,)]),
    ("combinations_with_replacement", lambda a: nb.combinations(a, with_replacement=True),
     lambda a: np.array(list(itertools.combinations_with_replacement(a, 2))), [(5,)]),
    *[(f"rot90_k{k}", lambda x, k=k: nb.rot90(x, k, [2, 0]),
       lambda x, k=k: np.rot90(x, k, (2, 0)), [(3, 4, 5)]) for k in range(-5, 6)],
    ("rot90_default", lambda x: x.rot90(), np.rot90, [(7, 5)]),
]


@pytest.mark.parametrize("name,fn,ref,shapes", FORWARD, ids=[f[0] for f in FORWARD])
def test_forward_matches_numpy(rng, name, fn, ref, shapes):
    arrays = [rng.standard_normal(s) for s in shapes]
    out = fn(*[nb.tensor(a) for a in arrays])
    expected = ref(*arrays)
    assert out.shape == expected.shape and out.dtype == nb.float64
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-12, atol=1e-12)


def test_integer_inputs_stay_integers():
    a, b = nb.tensor([[1, 2], [3, 4]]), nb.tensor([[0, 5], [6, 7]])
    assert nb.tensordot(a, b, 1).tolist() == (a @ b).tolist()
    assert nb.kron(a, b).tolist() == np.kron(a.numpy(), b.numpy()).tolist()
    assert nb.combinations(nb.tensor([4, 5, 6])).tolist() == [[4, 5], [4, 6], [5, 6]]
    assert nb.block_diag(a, b).dtype == nb.int64


def test_choosing_nothing_or_too_many_gives_empty_results():
    x = nb.ones(4)
    assert nb.combinations(x, 0).shape == (0,)
    assert nb.combinations(x, 5).shape == (0, 5)
    assert nb.combinations(nb.ones(0)).shape == (0, 2)
    assert nb.cartesian_prod(x, nb.ones(0)).shape == (0, 2)
    assert nb.block_diag().shape == (1, 0)
    assert nb.block_diag(nb.ones(0, 3), nb.ones(2, 0)).shape == (2, 3)


def test_cross_is_perpendicular_to_both(rng):
    a, b = nb.tensor(rng.standard_normal((7, 3))), nb.tensor(rng.standard_normal((7, 3)))
    c = a.cross(b, dim=1)
    np.testing.assert_allclose((c * a).sum(1).numpy(), 0, atol=1e-12)
    np.testing.assert_allclose((c * b).sum(1).numpy(), 0, atol=1e-12)


def test_four_quarter_turns_are_no_turn_and_rot90_gives_a_new_tensor(rng):
    x = nb.tensor(rng.standard_normal((7, 5)))
    turned = x
    for _ in range(4):
        turned = turned.rot90()
    np.testing.assert_array_equal(turned.numpy(), x.numpy())
    same = x.rot90(0)
    same.mul_(2)
    assert x._version == 0


GRADCHECKED = {
    "tensordot": ([(3, 4, 5), (5, 2, 4)], lambda a, b: nb.tensordot(a, b, ([2, -2], [0, 2]))),
    "kron": ([(2, 3), (4, 5, 1)], lambda a, b: a.kron(b)),
    "cross": ([(3, 5), (3, 1)], lambda a, b: nb.cross(a, b, dim=0)),
    "block_diag": ([(2, 3), (5,), (1, 2)], lambda *t: nb.block_diag(*t)),
    "cartesian_prod": ([(3,), (2,), (4,)], lambda *t: nb.cartesian_prod(*t)),
    "combinations": ([(5,)], lambda a: nb.combinations(a, 3, with_replacement=True)),
    "rot90": ([(3, 4, 5)], lambda x: x.rot90(-1, [2, 1])),
}


@pytest.mark.parametrize("name", sorted(GRADCHECKED))
def test_gradients_check(rng, name):
    shapes, fn = GRADCHECKED[name]
    inputs = [nb.tensor(rng.standard_normal(s), requires_grad=True) for s in shapes]
    assert nb.autograd.gradcheck(fn, inputs)


def test_wrong_inputs_get_nnbook_errors():
    a, b = nb.ones(3, 4, 5), nb.ones(4, 5, 2)
    with pytest.raises(ShapeError, match=r"tensordot sums a's dim 2 against b's dim 0, which "
                                         r"have sizes 5 and 4: shapes \(3, 4, 5\) and "
                                         r"\(4, 5, 2\)"):
        nb.tensordot(a, b, 1)
    with pytest.raises(InputError, match="dims=4 must be between 0 and the smaller"):
        nb.tensordot(a, b, 4)
    with pytest.raises(InputError, match="dims=-1 must be between 0"):
        nb.tensordot(a, b, -1)
    with pytest.raises(ArgumentError, match=r"dims must be an int or a pair of lists of dims, "
                                            r"got \(1, 0\)"):
        nb.tensordot(a, b, (1, 0))
    with pytest.raises(InputError, match="both lists need one length"):
        nb.tensordot(a, b, ([1, 2], [0]))
    with pytest.raises(InputError, match=r"dims names a dim of a twice: \[1, 1\]"):
        nb.tensordot(a, b, ([1, -2], [0, 1]))
    with pytest.raises(DimError, match="dim=3 is out of range"):
        nb.tensordot(a, b, ([3], [0]))
    with pytest.raises(DTypeError, match="tensordot needs both operands of one dtype"):
        nb.tensordot(a, b.double())
    with pytest.raises(ShapeError, match=r"cross needs size 3 along dim 1, got shapes "
                                         r"\(5, 4\) and \(5, 4\)"):
        nb.cross(nb.ones(5, 4), nb.ones(5, 4), dim=1)
    with pytest.raises(ShapeError, match="cross needs inputs with the same number of dim"):
        nb.cross(nb.ones(5, 3), nb.ones(3), dim=-1)
    with pytest.raises(ShapeError, match=r"the input \(5, 4\) has none"):
        nb.cross(nb.ones(5, 4), nb.ones(5, 4))
    with pytest.raises(DTypeError, match="cross needs both operands of one dtype"):
        nb.cross(nb.ones(3), nb.tensor([1, 2, 3]), dim=0)
    with pytest.raises(ShapeError, match=r"block 1 has shape \(2, 2, 2\)"):
        nb.block_diag(nb.ones(2), nb.ones(2, 2, 2))
    with pytest.raises(ArgumentError, match="block 0 is a list, not a tensor"):
        nb.block_diag([nb.ones(2)])
    with pytest.raises(ShapeError, match=r"cartesian_prod takes vectors \(1-D\); input 1 has "
                                         r"shape \(3, 1\)"):
        nb.cartesian_prod(nb.ones(2), nb.ones(3, 1))
    with pytest.raises(DTypeError, match="cartesian_prod needs vectors of one dtype"):
        nb.cartesian_prod(nb.ones(2), nb.tensor([1, 2]))
    with pytest.raises(InputError, match="cartesian_prod needs at least one vector"):
        nb.cartesian_prod()
    with pytest.raises(ShapeError, match=r"combinations takes a vector \(1-D\), got shape "
                                         r"\(2, 2\)"):
        nb.combinations(nb.ones(2, 2))
    with pytest.raises(InputError, match="r must be a whole number >= 0, got -1"):
        nb.combinations(nb.ones(3), -1)
    with pytest.raises(ShapeError, match="rot90 needs two different dims"):
        nb.rot90(nb.ones(3, 4), 1, [0, -2])
    with pytest.raises(ShapeError, match="rot90 turns in a plane of two dims"):
        nb.rot90(nb.ones(3, 4), 1, [0])
    with pytest.raises(ShapeError, match="rot90 needs at least 2 dimensions"):
        nb.ones(3).rot90()
    with pytest.raises(DimError, match="dim=5 is out of range"):
        nb.ones(3, 4).rot90(1, [0, 5])
    with pytest.raises(ArgumentError, match="k must be an int, got 1.0"):
        nb.ones(3, 4).rot90(1.0)


@pytest.mark.parametrize("call", [
    lambda: nb.tensordot(nb.ones(2), [1.0, 2.0], 1), lambda: nb.kron(nb.ones(2), 3),
    lambda: nb.ones(3).cross([1.0, 2.0, 3.0], 0), lambda: nb.combinations([1, 2, 3]),
    lambda: nb.cartesian_prod(nb.ones(2), [1.0]),
])
def test_an_operand_that_is_not_a_tensor_gets_an_argument_error_as_torch(call):
    with pytest.raises(ArgumentError, match="must be a tensor, got"):
        call()


def test_data_free_shape_inference_runs_through_the_new_names():
    class Net(nb.nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = nb.nn.Parameter(nb.randn(4096, 64))
            self.bias = nb.nn.Parameter(nb.zeros(64))

        def forward(self, x):
            h = nb.addmm(self.bias, x.flatten(0, 1), self.weight).reshape(x.shape[0], -1, 64)
            g = nb.tensordot(h, h, ([0, 1], [0, 1])).addcmul(h[0, :1], h[1, :1]).rot90()
            return nb.kron(nb.cross(g[:3], g[3:6], dim=0), nb.ones(2, 1))

    trace = nb.infer_shapes(Net(), (1000, 6, 4096))
    assert trace.error is None and trace.output_shape == (6, 64)

"""The fused ops against PyTorch: ``addcmul``/``addcdiv`` (self + value * t1 * t2, or / t2)
and the products added to an input (``addmm``, ``addmv``, ``addr``, ``baddbmm``, ``addbmm``
with beta and alpha), as functions, methods and in place; and ``tril_indices``/``triu_indices``.
Values, dtypes and gradients on odd non-square float64 shapes, and their errors."""
import numpy as np
import pytest
from against_torch import check, ints, normal, positive, value

import nnbook as nb
from nnbook.errors import ArgumentError, BackwardError, DTypeError, InputError, ShapeError

torch = pytest.importorskip("torch")

NAN = value(np.full((7, 5), np.nan))
CASES = {
    # addcmul, addcdiv: three operands that broadcast, value= scales the product
    "addcmul": ([normal(7, 1), normal(5), normal(3, 1, 1)],
                lambda m, x, a, b: m.addcmul(x, a, b, value=-0.7)),
    "addcmul_method_default": ([normal(7, 5), normal(7, 5), normal(5)],
                               lambda m, x, a, b: x.addcmul(a, b)),
    "addcmul_0d": ([normal(), normal(), normal()], lambda m, x, a, b: m.addcmul(x, a, b)),
    "addcmul_empty": ([normal(0, 5), normal(5), normal(0, 1)],
                      lambda m, x, a, b: m.addcmul(x, a, b, value=2)),
    "addcmul_ints": ([ints(-9, 9, 7, 5), ints(-9, 9, 5), ints(-9, 9, 7, 1)],
                     lambda m, x, a, b: (m.addcmul(x, a, b, value=3),
                                         x.addcmul(a, b, value=2.5),
                                         x.addcmul(a, b, value=-1.5))),
    "addcmul_int_and_float": ([ints(-9, 9, 7, 5), normal(5), normal(7, 1)],
                              lambda m, x, a, b: m.addcmul(x, a, b, value=0.5)),
    "addcdiv": ([normal(3, 7, 5), normal(7, 1), positive(5)],
                lambda m, x, a, b: m.addcdiv(x, a, b, value=-1.25)),
    "addcdiv_method": ([normal(5), normal(7, 5), positive(7, 5)],
                       lambda m, x, a, b: x.addcdiv(a, b)),
    "addcdiv_int_numerator": ([normal(7, 5), ints(-9, 9, 7, 5), positive(5)],
                              lambda m, x, a, b: m.addcdiv(x, a, b, value=2)),
    # products added to an input
    "addmm": ([normal(7, 5), normal(7, 3), normal(3, 5)],
              lambda m, x, a, b: m.addmm(x, a, b)),
    "addmm_beta_alpha_broadcast": ([normal(1, 5), normal(7, 3), normal(3, 5)],
                                   lambda m, x, a, b: x.addmm(a, b, beta=0.5, alpha=-2)),
    "addmm_0d_input": ([normal(), normal(7, 3), normal(3, 5)],
                       lambda m, x, a, b: m.addmm(x, a, b, beta=3)),
    "addmm_beta_0_ignores_nan": ([NAN, normal(7, 3), normal(3, 5)],
                                 lambda m, x, a, b: m.addmm(x, a, b, beta=0, alpha=1.5)),
    "addmm_empty_inner": ([normal(7, 5), normal(7, 0), normal(0, 5)],
                          lambda m, x, a, b: m.addmm(x, a, b, alpha=2)),
    "addmm_empty_rows": ([normal(5), normal(0, 3), normal(3, 5)],
                         lambda m, x, a, b: m.addmm(x, a, b)),
    "addmm_ints": ([ints(-9, 9, 7, 5), ints(-9, 9, 7, 3), ints(-9, 9, 3, 5)],
                   lambda m, x, a, b: (m.addmm(x, a, b, beta=2, alpha=-3),
                                       m.addmm(x, a, b, beta=0))),
    "addmv": ([normal(7), normal(7, 3), normal(3)],
              lambda m, x, a, v: m.addmv(x, a, v, beta=-0.5, alpha=2)),
    "addmv_broadcast": ([normal(1), normal(7, 3), normal(3)],
                        lambda m, x, a, v: x.addmv(a, v)),
    "addr": ([normal(7, 5), normal(7), normal(5)],
             lambda m, x, u, v: m.addr(x, u, v, beta=2, alpha=0.25)),
    "addr_broadcast": ([normal(5), normal(7), normal(5)], lambda m, x, u, v: x.addr(u, v)),
    "baddbmm": ([normal(2, 7, 5), normal(2, 7, 3), normal(2, 3, 5)],
                lambda m, x, a, b: m.baddbmm(x, a, b, beta=0.5, alpha=1.5)),
    "baddbmm_broadcast": ([normal(7, 1), normal(2, 7, 3), normal(2, 3, 5)],
                          lambda m, x, a, b: x.baddbmm(a, b)),
    "addbmm": ([normal(7, 5), normal(4, 7, 3), normal(4, 3, 5)],
               lambda m, x, a, b: m.addbmm(x, a, b, beta=-1, alpha=0.5)),
    "addbmm_broadcast": ([normal(5), normal(4, 7, 3), normal(4, 3, 5)],
                         lambda m, x, a, b: x.addbmm(a, b)),
    # in place, on a copy that is part of the graph
    "addcmul_": ([normal(7, 5), normal(5), normal(7, 1)],
                 lambda m, x, a, b: (x * 1).addcmul_(a, b, value=0.3)),
    "addcdiv_": ([normal(7, 5), normal(5), positive(7, 1)],
                 lambda m, x, a, b: (x * 1).addcdiv_(a, b, value=-0.3)),
    "addmm_": ([normal(7, 5), normal(7, 3), normal(3, 5)],
               lambda m, x, a, b: (x * 1).addmm_(a, b, beta=0.5, alpha=2)),
    "addmv_": ([normal(7), normal(7, 3), normal(3)],
               lambda m, x, a, v: (x * 1).addmv_(a, v, alpha=-1)),
    "addr_": ([normal(7, 5), normal(7), normal(5)],
              lambda m, x, u, v: (x * 1).addr_(u, v, beta=3)),
    "baddbmm_": ([normal(2, 7, 5), normal(2, 7, 3), normal(2, 3, 5)],
                 lambda m, x, a, b: (x * 1).baddbmm_(a, b, beta=0, alpha=2)),
    "addbmm_": ([normal(7, 5), normal(4, 7, 3), normal(4, 3, 5)],
                lambda m, x, a, b: (x * 1).addbmm_(a, b, beta=0.5)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_fused_op_matches_torch(rng, name):
    makers, fn = CASES[name]
    check(fn, makers, rng)


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


@pytest.mark.parametrize("name", ["addcmul_", "addcdiv_", "addmm_", "addmv_", "addr_",
                                  "baddbmm_", "addbmm_"])
def test_in_place_form_changes_the_tensor_and_bumps_its_version(rng, name):
    makers, fn = CASES[name]
    arrays = [make(rng) for make in makers]
    x, *others = [nb.tensor(a) for a in arrays]
    expected = getattr(nb, name[:-1])(x, *others, **({"value": 0.5} if "addc" in name
                                                        else {"beta": 0.5, "alpha": 2}))
    before = x._version
    assert getattr(x, name)(*others, **({"value": 0.5} if "addc" in name
                                        else {"beta": 0.5, "alpha": 2})) is x
    assert x._version == before + 1
    np.testing.assert_allclose(x.numpy(), expected.numpy(), rtol=1e-12)


def test_adam_written_from_scratch_runs_on_parameters_under_no_grad(rng):
    """The lines of Adam as students write it, in nnbook and PyTorch, step by step."""
    start, target = rng.standard_normal((7, 5)), rng.standard_normal((7, 5))
    results = []
    for m in (nb, torch):
        p = m.tensor(start, requires_grad=True)
        exp_avg, exp_avg_sq = m.zeros_like(p), m.zeros_like(p)
        lr, b1, b2, eps = 0.05, 0.9, 0.999, 1e-8
        for step in range(1, 6):
            loss = ((p - m.tensor(target)) ** 2).sum()
            loss.backward()
            with m.no_grad():
                g = p.grad
                exp_avg.mul_(b1).add_(g, alpha=1 - b1)
                exp_avg_sq.mul_(b2).addcmul_(g, g, value=1 - b2)
                denom = (exp_avg_sq / (1 - b2 ** step)).sqrt().add_(eps)
                version = p._version
                p.addcdiv_(exp_avg, denom, value=-lr / (1 - b1 ** step))
                assert p._version == version + 1
            p.grad = None
        assert p.requires_grad and p.is_leaf
        results.append(p.detach().numpy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-12, atol=1e-12)


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
                                            (4, 0, 1), (3, 5, -9), (3, 5, 9), (1, 1, 0)])
@pytest.mark.parametrize("name", ["tril_indices", "triu_indices"])
def test_triangle_indices_match_torch(name, row, col, offset):
    mine = getattr(nb, name)(row, col, offset)
    theirs = getattr(torch, name)(row, col, offset)
    assert mine.dtype == nb.int64 and mine.shape == tuple(theirs.shape)
    np.testing.assert_array_equal(mine.numpy(), theirs.numpy())
    as_int32 = getattr(nb, name)(row, col, offset=offset, dtype=nb.int32)
    assert as_int32.dtype == nb.int32
    np.testing.assert_array_equal(as_int32.numpy(), theirs.numpy())


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

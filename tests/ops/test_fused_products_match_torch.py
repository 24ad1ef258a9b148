"""The fused ops against PyTorch: ``addcmul``/``addcdiv`` (self + value * t1 * t2, or / t2)
and the products added to an input (``addmm``, ``addmv``, ``addr``, ``baddbmm``, ``addbmm``
with beta and alpha), as functions, methods and in place; Adam written from scratch with
them; and ``tril_indices``/``triu_indices``.  Values, dtypes and gradients on odd non-square
float64 shapes (tests/ops/test_fused_products_forward_and_gradients.py has the rest)."""
import numpy as np
import pytest
from against_torch import check, ints, normal, positive, value

import nnbook as nb

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

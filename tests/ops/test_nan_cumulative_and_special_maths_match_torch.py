"""The NaN-skipping reductions, the running max, min and log-sum-exp, differences, the
remainders and the special functions against PyTorch: values, dtypes, indices and
gradients (float64, odd non-square shapes, negative dims, 0-d and empty tensors)."""
import numpy as np
import pytest
from against_torch import bools, check, ints, normal, positive, unit, value

import nnbook as nb

torch = pytest.importorskip("torch")

NAN, INF = np.nan, np.inf
X = normal(7, 5)


def with_nans(*shape):
    """Normal values with about a third NaN, and one row (or element) all NaN."""
    def make(rng):
        a = rng.standard_normal(shape)
        a[rng.random(shape) < 0.35] = NAN
        a[(0,) * (len(shape) - 1)] = NAN
        return a
    return make


def with_ties(*shape):
    """Small whole numbers as floats: many ties for cummax and cummin."""
    return lambda rng: rng.integers(-3, 4, shape).astype(np.float64)


CASES = {
    # sums and means that skip NaN
    "nansum_all": ([with_nans(7, 5)], lambda m, x: m.nansum(x)),
    "nansum_dim": ([with_nans(3, 7, 5)], lambda m, x: (m.nansum(x, -1), x.nansum(dim=(0, 2)),
                                                       m.nansum(x, 1, keepdim=True))),
    "nansum_empty_dims": ([with_nans(7, 5)], lambda m, x: m.nansum(x, dim=())),
    "nansum_ints": ([ints(-9, 9, 7, 5)], lambda m, x: (m.nansum(x), x.nansum(0),
                                                       m.nansum(x, 1, dtype=m.float64))),
    "nansum_bools": ([bools(7, 5)], lambda m, x: m.nansum(x, -1)),
    "nansum_zero_dim": ([value(np.array(NAN))], lambda m, x: (m.nansum(x), m.nansum(x, 0))),
    "nansum_empty": ([normal(0, 5)], lambda m, x: (m.nansum(x), m.nansum(x, 0))),
    "nanmean_all": ([with_nans(7, 5)], lambda m, x: m.nanmean(x)),
    "nanmean_dim": ([with_nans(3, 7, 5)], lambda m, x: (m.nanmean(x, -1), x.nanmean((0, 2)),
                                                        m.nanmean(x, 1, keepdim=True))),
    "nanmean_all_nan_row": ([with_nans(4, 5)],
                            lambda m, x: m.nanmean(x.T.contiguous(), dim=0)),
    "nanmean_dtype": ([with_nans(7, 5)], lambda m, x: m.nanmean(x.float(), 0,
                                                                dtype=m.float64)),
    "nanmean_empty": ([normal(0, 5)], lambda m, x: (m.nanmean(x), m.nanmean(x, 0))),
    # differences
    "diff": ([X], lambda m, x: (m.diff(x), x.diff(dim=0), m.diff(x, n=3, dim=-2))),
    "diff_prepend_append": ([X, normal(2, 5), normal(7, 3)],
                            lambda m, x, p, a: (m.diff(x, dim=0, prepend=p),
                                                x.diff(append=a), m.diff(x, 2, 0, p, p))),
    "diff_n_zero_and_too_many": ([normal(4, 3)], lambda m, x: (m.diff(x, n=0), m.diff(x, 5))),
    "diff_ints_and_bools": ([ints(-9, 9, 7, 5), bools(7, 5)],
                            lambda m, i, b: (m.diff(i), i.diff(n=2, dim=0), m.diff(b),
                                             b.diff(n=2, dim=0))),
    "diff_promotes": ([ints(-9, 9, 7, 5), normal(7, 1)],
                      lambda m, i, p: (m.diff(i, prepend=p.float()),
                                       m.diff(i.to(m.int8), append=i[:, :2]))),
    # running max, min and log-sum-exp
    "cummax": ([normal(3, 7, 5)], lambda m, x: (m.cummax(x, 1), x.cummax(-1))),
    "cummin": ([normal(3, 7, 5)], lambda m, x: (m.cummin(x, 0), x.cummin(dim=-2))),
    "cummax_ties": ([with_ties(7, 5)], lambda m, x: (m.cummax(x, 0), m.cummin(x, -1))),
    "cummax_nans": ([with_nans(7, 5)], lambda m, x: (m.cummax(x, 0), m.cummin(x, 1))),
    "cummax_signed_zeros": ([value(np.array([-0.0, 0.0, -0.0, 0.0]))],
                            lambda m, x: (m.cummax(x, 0), m.cummin(x, 0))),
    "cummax_ints_bools": ([ints(-5, 5, 7, 5), bools(7, 5)],
                          lambda m, i, b: (m.cummax(i, 1), m.cummin(i, 0), m.cummax(b, 0),
                                           b.cummin(1))),
    "cummax_zero_dim_and_empty": ([value(np.array(2.5)), normal(0, 5)],
                                  lambda m, s, e: (m.cummax(s, 0), m.cummin(s, -1),
                                                   m.cummax(e, 0), e.cummin(1))),
    "logcumsumexp": ([normal(3, 7, 5)], lambda m, x: (m.logcumsumexp(x * 30, 1),
                                                      x.logcumsumexp(-1))),
    "logcumsumexp_large": ([normal(7, 5)], lambda m, x: m.logcumsumexp(x * 1000 + 800, 0)),
    "logcumsumexp_zero_dim_and_empty": ([value(np.array(0.5)), normal(0, 5)],
                                        lambda m, s, e: (m.logcumsumexp(s, 0),
                                                         m.logcumsumexp(e, 0))),
    "logcumsumexp_infinities": ([value(np.array([-INF, -INF, 3.0, 1.0, INF, 2.0]))],
                                lambda m, x: m.logcumsumexp(x, 0)),
    # remainders and quotients
    "fmod": ([X, positive(5)], lambda m, x, y: (m.fmod(x * 5, y), x.mul(5).fmod(-y),
                                                m.fmod(x * 5, 1.5), x.fmod(-2))),
    "fmod_ints": ([ints(-20, 20, 7, 5), value(np.array([-7, -3, 2, 5, 9]))],
                  lambda m, a, b: (m.fmod(a, b), a.fmod(-3), m.fmod(a, 2.5),
                                   m.fmod(a.to(m.uint8), 3))),
    "fmod_by_zero_floats": ([X], lambda m, x: (m.fmod(x, 0.0), m.remainder(x, 0.0),
                                               m.floor_divide(x, 0.0))),
    "remainder": ([X, positive(5)], lambda m, x, y: (m.remainder(x * 5, y),
                                                     x.remainder(-y), m.remainder(x, -1.25))),
    "remainder_number_first": ([positive(5)], lambda m, y: m.remainder(-3.5, y)),
    "remainder_ints": ([ints(-20, 20, 7, 5), value(np.array([-7, -3, 2, 5, 9]))],
                       lambda m, a, b: (m.remainder(a, b), m.remainder(17, b),
                                        a.remainder(-4), m.floor_divide(a, b),
                                        m.floor_divide(-17, b), a.floor_divide(3))),
    "floor_divide": ([X, positive(7, 1)], lambda m, x, y: (m.floor_divide(x * 5, y),
                                                           x.floor_divide(-0.75))),
    # special functions
    "xlogy": ([positive(7, 5), positive(5)], lambda m, x, y: (m.xlogy(x, y), x.xlogy(2.5),
                                                              m.xlogy(3, y))),
    "xlogy_zeros": ([value(np.array([0.0, 0.0, 1.0, 2.0, NAN, 0.0, 0.0])),
                     value(np.array([0.0, NAN, 0.0, 3.0, 1.0, -1.0, 1.0]))],
                    lambda m, x, y: m.xlogy(x, y)),
    "xlogy_ints": ([ints(0, 5, 7, 5), ints(0, 5, 5)], lambda m, x, y: m.xlogy(x, y)),
    "logaddexp": ([normal(7, 5), normal(5)], lambda m, a, b: (m.logaddexp(a * 50, b),
                                                              a.logaddexp2(b * 50))),
    "logaddexp_infinities": ([value(np.array([1.0, -INF, INF, INF, -INF, 1e308])),
                              value(np.array([2.0, -INF, INF, -INF, 3.0, 1e308]))],
                             lambda m, a, b: (m.logaddexp(a, b), m.logaddexp2(a, b))),
    "hypot": ([normal(7, 5), normal(7, 1)], lambda m, a, b: (m.hypot(a, b), a.hypot(b * 1e200))),
    "hypot_specials": ([value(np.array([3.0, 0.0, INF, NAN, 1e300])),
                        value(np.array([4.0, 0.0, NAN, INF, 1e300]))],
                       lambda m, a, b: m.hypot(a, b)),
    "erfc": ([X], lambda m, x: (m.erfc(x * 3), x.erfc())),
    "erfc_tails": ([value(np.array([-30.0, -6.0, 0.0, 6.0, 10.0, 27.0, INF, -INF, NAN]))],
                   lambda m, x: m.erfc(x)),
    "erfc_ints": ([ints(-3, 3, 7, 5)], lambda m, x: m.erfc(x)),
    "erfinv": ([unit(7, 5)], lambda m, x: (m.erfinv(x), x.erfinv())),
    "erfinv_ends": ([value(np.array([0.0, -0.0, 1.0, -1.0, 1.5, -2.0, NAN, 1 - 2**-53,
                                     -1 + 2**-53, 1e-300, 0.5]))],
                    lambda m, x: m.erfinv(x)),
    "erfinv_ints": ([ints(-1, 2, 7, 5)], lambda m, x: m.erfinv(x)),
    "nan_to_num": ([value(np.array([NAN, INF, -INF, 1.5, -0.0]))],
                   lambda m, x: (m.nan_to_num(x), x.nan_to_num(2.0, posinf=3, neginf=-4.5),
                                 m.nan_to_num(x.float(), nan=-1.0),
                                 m.nan_to_num(x.half(), posinf=1e30))),
    "nan_to_num_grad": ([with_nans(7, 5)], lambda m, x: m.nan_to_num(x / (x > 1))),
    "nan_to_num_ints": ([ints(-5, 5, 7, 5), bools(5)],
                        lambda m, i, b: (m.nan_to_num(i, nan=2.0), b.nan_to_num())),
}


# PyTorch has no backward for floor_divide and for a number % a tensor (nnbook gives 0 and
# -floor(a / b): nnbook/compat.py), so these compare values only
VALUES_ONLY = {"floor_divide", "fmod_by_zero_floats", "remainder_number_first"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_nan_cumulative_and_special_maths_match_torch(rng, name):
    makers, fn = CASES[name]
    check(fn, makers, rng, grads=name not in VALUES_ONLY)


def test_erfinv_is_within_two_units_in_the_last_place_of_torch(rng):
    x = np.concatenate([rng.uniform(-1, 1, 20000), 1 - np.logspace(-16, -1, 500),
                        -1 + np.logspace(-16, -1, 500), np.logspace(-300, -1, 500)])
    mine = nb.erfinv(nb.tensor(x)).numpy()
    theirs = torch.erfinv(torch.tensor(x)).numpy()
    ulps = np.abs(mine - theirs) / np.spacing(np.abs(theirs))
    assert ulps.max() <= 2
    assert np.all(nb.erf(nb.tensor(mine[np.abs(x) < 0.999])).numpy()
                  == pytest.approx(x[np.abs(x) < 0.999], rel=1e-15, abs=1e-300))


def test_in_place_forms_match_torch(rng):
    a = rng.standard_normal((7, 5)) * 5
    b = np.abs(rng.standard_normal(5)) + 0.5
    for name, args in [("fmod_", (b,)), ("remainder_", (b,)), ("floor_divide_", (b,)),
                       ("fmod_", (2.5,)), ("remainder_", (-1.5,)), ("floor_divide_", (3,)),
                       ("xlogy_", (b,)), ("hypot_", (b,)), ("erfc_", ()),
                       ("nan_to_num_", (1.0, 2.0, -2.0))]:
        mine, theirs = nb.tensor(a), torch.tensor(a)
        result = getattr(mine, name)(*[nb.tensor(v) if isinstance(v, np.ndarray) else v
                                       for v in args])
        getattr(theirs, name)(*[torch.tensor(v) if isinstance(v, np.ndarray) else v
                                for v in args])
        assert result is mine and mine._version == 1, name
        np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=1e-12, err_msg=name)
    u = rng.uniform(-0.9, 0.9, (7, 5))
    mine = nb.tensor(u).erfinv_()
    np.testing.assert_allclose(mine.numpy(), torch.tensor(u).erfinv_().numpy(), rtol=1e-14)
    ints_mine, ints_theirs = nb.tensor([-7, 3, 9]), torch.tensor([-7, 3, 9])
    ints_mine.fmod_(4), ints_theirs.fmod_(4)
    ints_mine.remainder_(3), ints_theirs.remainder_(3)
    assert ints_mine.tolist() == ints_theirs.tolist() and ints_mine.dtype == nb.int64
    with_nan = nb.tensor([np.nan, np.inf])
    assert nb.nan_to_num_(with_nan) is with_nan and with_nan[0].item() == 0


@pytest.mark.parametrize("name", ["erfc", "erfinv", "xlogy", "logaddexp", "logaddexp2",
                                  "hypot", "fmod", "nansum", "nanmean", "logcumsumexp",
                                  "cummax", "diff", "nan_to_num"])
def test_float32_stays_float32_as_in_torch(rng, name):
    def fn(m, x):
        if name in ("xlogy", "logaddexp", "logaddexp2", "hypot", "fmod"):
            return getattr(m, name)(x, x.flip(0) + 0.5)
        if name in ("logcumsumexp", "cummax"):
            return getattr(m, name)(x, 1)
        return getattr(m, name)(x * 0.9 if name == "erfinv" else x)
    check(fn, [lambda r: r.uniform(0.05, 1, (7, 5)).astype(np.float32)], rng, tol=1e-6)

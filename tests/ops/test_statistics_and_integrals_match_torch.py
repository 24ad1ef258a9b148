"""Quantiles, aminmax, msort, ravel, dist, renorm, the trapezoidal rule and vander against
PyTorch: values, shapes, dtypes and gradients (float64, odd non-square shapes, negative
dims, every interpolation, NaN)."""
import numpy as np
import pytest
from against_torch import check, ints, normal, positive, value

import nnbook as nb

torch = pytest.importorskip("torch")


def with_nans(*shape):
    def make(rng):
        a = rng.standard_normal(shape)
        a[rng.random(shape) < 0.3] = np.nan
        a[(0,) * (len(shape) - 1)] = np.nan  # a whole slice of NaN
        return a
    return make


def some_nans(*shape):
    """Normal values with about a quarter NaN, never a whole slice."""
    def make(rng):
        a = rng.standard_normal(shape)
        a[(rng.random(shape) < 0.25) & (np.arange(shape[-1]) > 1)] = np.nan
        return a
    return make


def with_ties(*shape):
    return lambda rng: rng.integers(-3, 4, shape).astype(np.float64)


Q = value(np.array([0.0, 0.1, 0.25, 0.5, 0.9, 1.0]))


def qs(m, q):
    return m.tensor(q.tolist(), dtype=m.float64)


CASES = {
    "quantile_number": ([normal(7, 5)], lambda m, x: (m.quantile(x, 0.3), x.quantile(0.75, 0),
                                                      m.quantile(x, 0.5, -1, True))),
    "quantile_tensor_q": ([normal(3, 7, 5), Q],
                          lambda m, x, q: (m.quantile(x, qs(m, q), dim=1),
                                           x.quantile(qs(m, q), -1, keepdim=True),
                                           m.quantile(x, qs(m, q)),
                                           m.quantile(x, qs(m, q), keepdim=True),
                                           m.quantile(x, qs(m, q)[2:3], 0))),
    "quantile_ties": ([with_ties(7, 5), Q], lambda m, x, q: m.quantile(x, qs(m, q), 0)),
    "quantile_zero_dim": ([value(np.array(1.5))],
                          lambda m, x: (m.quantile(x, 0.5), m.quantile(x, 0.2, 0, True))),
    "quantile_nans": ([with_nans(7, 5), Q],
                      lambda m, x, q: (m.quantile(x, qs(m, q), 1), m.quantile(x, 0.5))),
    "nanquantile": ([with_nans(7, 5), Q],
                    lambda m, x, q: (m.nanquantile(x, qs(m, q), 1), x.nanquantile(0.4, 0),
                                     m.nanquantile(x, 0.5), m.nanquantile(x, qs(m, q), -1,
                                                                          True))),
    "quantile_float32": ([normal(7, 5)], lambda m, x: m.quantile(x.float(), 0.3, 0)),
    "aminmax": ([normal(7, 5)], lambda m, x: (tuple(m.aminmax(x)), tuple(x.aminmax(dim=0)),
                                              tuple(m.aminmax(x, dim=-1, keepdim=True)),
                                              tuple(m.aminmax(x, keepdim=True)))),
    "aminmax_ties_and_ints": ([with_ties(7, 5), ints(-9, 9, 7, 5)],
                              lambda m, x, i: (tuple(m.aminmax(x, dim=1)),
                                               tuple(m.aminmax(i)), tuple(i.aminmax(dim=0)))),
    "nanmedian": ([some_nans(7, 5)], lambda m, x: (tuple(m.nanmedian(x, 1)),
                                                   tuple(x.nanmedian(0, keepdim=True)),
                                                   m.nanmedian(x), tuple(m.nanmedian(x, -1)))),
    # (which NaN's index an all-NaN slice gives is the sort's choice: values only there)
    "nanmedian_all_nan_slice": ([with_nans(7, 5)], lambda m, x: (m.nanmedian(x, 1).values,
                                                                 m.nanmedian(x))),
    "nanmedian_ints_zero_dim_empty": ([ints(-5, 5, 7, 5), value(np.array(2.5)), normal(0)],
                                      lambda m, i, s, e: (tuple(m.nanmedian(i, 0)),
                                                          m.nanmedian(i), tuple(s.nanmedian(0)),
                                                          m.nanmedian(s), m.nanmedian(e))),
    "unique_consecutive": ([with_ties(7, 5)],
                           lambda m, x: (m.unique_consecutive(x),
                                         m.unique_consecutive(x, return_inverse=True,
                                                              return_counts=True),
                                         x.unique_consecutive(return_counts=True, dim=0),
                                         m.unique_consecutive(x.round() * 0 + x[:, :1] > 0,
                                                              return_inverse=True, dim=-2))),
    "unique_consecutive_rows": ([value(np.array([[1, 2], [1, 2], [3, 4], [1, 2], [1, 2]]))],
                                lambda m, x: (m.unique_consecutive(x, return_inverse=True,
                                                                   return_counts=True, dim=0),
                                              m.unique_consecutive(x, return_counts=True,
                                                                   dim=1))),
    "unique_consecutive_zero_dim": ([value(np.array(4))],
                                    lambda m, x: m.unique_consecutive(x, return_inverse=True,
                                                                      return_counts=True)),
    "msort_ravel": ([normal(7, 5), ints(-9, 9, 3, 5)],
                    lambda m, x, i: (m.msort(x), x.msort(), m.msort(i), m.ravel(x), i.ravel(),
                                     x.t().ravel())),
    "dist": ([normal(7, 5), normal(5)], lambda m, a, b: (m.dist(a, b), a.dist(b, 1),
                                                         m.dist(a, b, 3.5),
                                                         m.dist(a, b, float("inf")))),
    "dist_zero": ([normal(7, 5), value(np.array([0.0, 1.0, 0.0, -2.0, 0.5]))],
                  lambda m, a, b: (m.dist(a * (a > 0), b, 0), a.dist(b, -float("inf")))),
    "renorm": ([normal(3, 7, 5)], lambda m, x: (m.renorm(x, 2, 0, 2.0), x.renorm(1, -1, 3.0),
                                                m.renorm(x, 3, 1, 1.5))),
    "trapezoid": ([normal(7, 5), positive(5), normal(7, 5)],
                  lambda m, y, x, xs: (m.trapezoid(y), m.trapezoid(y, dim=0),
                                       m.trapezoid(y, dx=0.5), m.trapezoid(y, x.cumsum(0)),
                                       m.trapezoid(y, xs, dim=0), m.trapz(y, x.cumsum(0)),
                                       m.trapz(y, dx=2.0, dim=-2))),
    "cumulative_trapezoid": ([normal(7, 5), positive(7), normal(7, 5)],
                             lambda m, y, x, xs: (m.cumulative_trapezoid(y),
                                                  m.cumulative_trapezoid(y, dx=0.25, dim=0),
                                                  m.cumulative_trapezoid(y, x.cumsum(0), dim=0),
                                                  m.cumulative_trapezoid(y, xs, dim=-1))),
    "trapezoid_ints_and_short": ([ints(-5, 5, 7, 5), normal(1, 5)],
                                 lambda m, i, y: (m.trapezoid(i), m.cumulative_trapezoid(i),
                                                  m.trapezoid(y, dim=0),
                                                  m.cumulative_trapezoid(y, dim=0))),
    "vander": ([normal(7), ints(-3, 4, 5)],
               lambda m, x, i: (m.vander(x), m.vander(x, N=3), m.vander(x, 4, True),
                                m.vander(i), m.vander(x, N=1), m.vander(x, N=0))),
    "vander_zeros": ([value(np.array([0.0, 1.5, 0.0, -2.0]))], lambda m, x: m.vander(x, 5)),
}


# Compared by value only: a quantile of a slice with a NaN is NaN, and its gradient goes to
# the NaN sorted last, which differs between sorts that order NaNs differently (nnbook's
# rule is tested in test_statistics_and_integrals.py), and so does nanmedian's of an
# all-NaN slice; PyTorch 2.13's vander has no working backward (it raises "modified by an
# inplace operation"); unique_consecutive's values carry no gradient in nnbook, as
# unique's (PyTorch records them but has no backward); PyTorch's backward of dist with
# p=0 raises "Expected a proper Tensor but got None".
VALUES_ONLY = {"quantile_nans", "vander", "vander_zeros", "nanmedian_all_nan_slice",
               "unique_consecutive", "dist_zero"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_statistics_and_integrals_match_torch(rng, name):
    makers, fn = CASES[name]
    check(fn, makers, rng, tol=1e-6 if name.endswith("float32") else 1e-12,
          grads=name not in VALUES_ONLY)


@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_every_interpolation_matches_torch(rng, interpolation):
    q = [0.0, 1 / 6, 0.25, 0.3, 0.5, 0.7, 0.875, 1.0]
    check(lambda m, x: (m.nanquantile(x, m.tensor(q, dtype=m.float64), dim=0,
                                      interpolation=interpolation),
                        m.nanquantile(x, 0.5, -1, interpolation=interpolation)),
          [with_nans(7, 5)], rng)
    check(lambda m, x: m.quantile(x, m.tensor(q, dtype=m.float64), dim=0,
                                  interpolation=interpolation), [with_nans(7, 5)], rng,
          grads=False)
    check(lambda m, x: m.quantile(x, m.tensor(q, dtype=m.float64), dim=-1,
                                  interpolation=interpolation), [with_ties(5, 7)], rng)


def test_renorm_in_place_matches_torch(rng):
    a = rng.standard_normal((7, 5))
    mine, theirs = nb.tensor(a), torch.tensor(a)
    assert mine.renorm_(2, 0, 1.0) is mine and mine._version == 1
    theirs.renorm_(2, 0, 1.0)
    np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=1e-14)

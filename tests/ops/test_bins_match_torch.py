"""Counting and binning against PyTorch: bincount, histc, histogram, isin, searchsorted and
bucketize give PyTorch's values, dtypes and shapes, and nnbook errors for what PyTorch
refuses.  None of them has a gradient, as in PyTorch."""
import numpy as np
import pytest
from against_torch import check, ints, normal, value

torch = pytest.importorskip("torch")


def sorted_rows(*shape):
    return lambda rng: np.sort(rng.integers(-20, 20, shape), axis=-1)


def on_edges(*shape):
    """Values that often sit exactly on bin edges (quarters between -2 and 3)."""
    return lambda rng: rng.integers(-8, 13, shape) / 4.0


CASES = {
    "bincount": ([ints(0, 9, 35)], lambda m, x: (m.bincount(x), x.bincount(minlength=15))),
    "bincount_weights": ([ints(0, 9, 35), normal(35)],
                         lambda m, x, w: (m.bincount(x, w), x.bincount(w.float(), 3),
                                          m.bincount(x, weights=(w * 5).long()))),
    "bincount_small_ints_and_empty": ([ints(0, 5, 13), value(np.zeros(0, np.int64))],
                                      lambda m, x, e: (m.bincount(x.to(m.uint8)),
                                                       m.bincount(x.int()), m.bincount(e),
                                                       m.bincount(e, minlength=4))),
    "histc": ([normal(7, 5)], lambda m, x: (m.histc(x), x.histc(bins=7),
                                            m.histc(x, 9, min=-1, max=0.5))),
    "histc_on_edges": ([on_edges(7, 5)], lambda m, x: (m.histc(x, 5, -2, 3), m.histc(x, 20),
                                                       m.histc(x.float(), 10, -2, 3))),
    "histc_one_value_and_empty": ([value(np.full(5, 2.5)), value(np.zeros((0, 3)))],
                                  lambda m, x, e: (m.histc(x, 4), m.histc(x, 3, 2.5, 2.5),
                                                   m.histc(e, 3))),
    "histc_nan_outside": ([value(np.array([1.0, np.nan, 2.0, 7.0, -1.0]))],
                          lambda m, x: m.histc(x, 4, min=0, max=3)),
    "histogram": ([normal(7, 5)], lambda m, x: (m.histogram(x), x.histogram(7),
                                                m.histogram(x, 5, range=(-1.0, 0.5)))),
    "histogram_on_edges": ([on_edges(7, 5)], lambda m, x: (m.histogram(x, 5, range=(-2, 3)),
                                                           m.histogram(x, 20))),
    "histogram_weight_density": ([normal(7, 5), normal(7, 5)],
                                 lambda m, x, w: (m.histogram(x, 6, weight=w.abs()),
                                                  m.histogram(x, 4, density=True),
                                                  x.histogram(3, weight=w.abs(),
                                                              density=True))),
    "histogram_edges": ([normal(7, 5), value(np.array([-2.0, -0.5, 0.0, 0.25, 1.0]))],
                        lambda m, x, edges: (m.histogram(x, edges),
                                             x.histogram(bins=edges, density=True))),
    "histogram_one_value_and_empty": ([value(np.full(5, 2.5)), value(np.zeros(0))],
                                      lambda m, x, e: (m.histogram(x, 4), m.histogram(e, 3))),
    "histogram_float32": ([normal(7, 5)], lambda m, x: m.histogram(x.float(), 6)),
    "isin": ([ints(0, 9, 7, 5), ints(0, 9, 4)],
             lambda m, x, t: (m.isin(x, t), m.isin(x, t, invert=True),
                              m.isin(elements=x, test_elements=t, assume_unique=False))),
    "isin_numbers_and_floats": ([ints(0, 9, 7, 5), value(np.array([1.0, 2.5, np.nan]))],
                                lambda m, x, t: (m.isin(x, 3), m.isin(4, x), m.isin(x, t),
                                                 m.isin(t, t))),
    "searchsorted": ([value(np.array([1, 3, 5, 7, 9])), ints(0, 11, 7, 5)],
                     lambda m, s, v: (m.searchsorted(s, v), m.searchsorted(s, v, right=True),
                                      m.searchsorted(s, v, side="right"),
                                      m.searchsorted(s, v, out_int32=True),
                                      m.searchsorted(s, 6), m.searchsorted(s, v.double()))),
    "searchsorted_rows": ([sorted_rows(3, 7, 5), ints(-25, 25, 3, 7, 4)],
                          lambda m, s, v: (m.searchsorted(s, v),
                                           m.searchsorted(s, v, side="right"))),
    "searchsorted_sorter": ([ints(-20, 20, 7, 5), ints(-25, 25, 7, 3)],
                            lambda m, s, v: m.searchsorted(s, v, sorter=s.argsort(dim=-1))),
    "searchsorted_empty": ([value(np.zeros(0)), normal(3)],
                           lambda m, s, v: m.searchsorted(s, v)),
    "bucketize": ([ints(0, 11, 7, 5), value(np.array([1, 3, 5, 7, 9]))],
                  lambda m, x, b: (m.bucketize(x, b), m.bucketize(x, b, right=True),
                                   m.bucketize(x, b, out_int32=True), m.bucketize(3, b),
                                   m.bucketize(x.double() + 0.5, b.double()))),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_bins_match_torch(rng, name):
    makers, fn = CASES[name]
    check(fn, makers, rng, grads=False)  # (PyTorch's histogram of a leaf "requires grad",
    # but its backward raises: nnbook/compat.py)

"""Reductions against PyTorch: values, dtypes, index results and gradients, with dim as an
int, a tuple, None, negative, with keepdim, and with numpy's axis=/keepdims= names."""
import numpy as np
import pytest
from against_torch import bools, check, ints, normal, positive, value

torch = pytest.importorskip("torch")

X, X3 = normal(7, 5), normal(3, 7, 5)
TIES = value(np.array([[1.0, 3.0, 3.0, -2.0], [2.0, 2.0, 0.0, 2.0], [5.0, 1.0, 1.0, 5.0]]))
CASES = {
    # sums and products
    "sum_axis_keepdims": ([X3], lambda m, x: x.sum(axis=(0, 2), keepdims=True)),
    "sum_int32_is_int64": ([lambda r: r.integers(-9, 9, (7, 5)).astype(np.int32)],
                           lambda m, x: m.sum(x, 1)),
    "sum_uint8_is_int64": ([lambda r: r.integers(0, 255, (7, 5)).astype(np.uint8)],
                           lambda m, x: x.sum()),
    "prod_all": ([positive(7, 5)], lambda m, x: m.prod(x)),
    "prod_dim": ([X3], lambda m, x: x.prod(1, keepdim=True)),
    "prod_with_zero": ([value(np.array([[2.0, 0.0, 3.0], [0.0, 0.0, 1.5], [1.0, 2.0, 4.0]]))],
                       lambda m, x: m.prod(x, dim=-1)),
    "prod_with_one_zero_all": ([value(np.array([[2.0, 0.0, 3.0], [1.0, 5.0, 1.5]]))],
                               lambda m, x: x.prod()),
    "prod_int": ([ints(-3, 4, 7, 5)], lambda m, x: m.prod(x, 0)),
    "cumsum": ([X3], lambda m, x: m.cumsum(x, dim=1)),
    "cumsum_int32": ([lambda r: r.integers(-9, 9, (7,)).astype(np.int32)],
                     lambda m, x: x.cumsum(0)),
    "cumsum_dtype": ([X], lambda m, x: x.cumsum(-1, dtype=m.float32), 2e-6),
    "cumprod": ([X3], lambda m, x: m.cumprod(x, -1)),
    "cumprod_zeros": ([value(np.array([[2.0, 0.0, 3.0, 4.0], [0.0, 1.5, 0.0, 2.0],
                                       [1.0, 2.0, -1.0, 0.0]]))], lambda m, x: x.cumprod(1)),
    # statistics
    "var_all": ([X], lambda m, x: m.var(x)),
    "var_dim_unbiased_false": ([X3], lambda m, x: x.var(1, False)),
    "var_dims_keepdim": ([X3], lambda m, x: m.var(x, (0, 2), keepdim=True)),
    "var_correction": ([X3], lambda m, x: x.var(dim=-1, correction=0)),
    "var_correction_2": ([X3], lambda m, x: x.var(dim=0, correction=2)),
    "var_unbiased_kw": ([X], lambda m, x: m.var(x, unbiased=False)),
    "var_one_element": ([normal(1, 5)], lambda m, x: x.var(0)),
    "std_all": ([X], lambda m, x: x.std()),
    "std_dim": ([X3], lambda m, x: m.std(x, dim=(1, 2), correction=0, keepdim=True)),
    "std_legacy_positional": ([X3], lambda m, x: x.std(2, True, True)),
    "std_mean": ([X3], lambda m, x: m.std_mean(x, dim=1)),
    "var_mean": ([X3], lambda m, x: m.var_mean(x, 0, correction=0)),
    "logsumexp": ([X3], lambda m, x: m.logsumexp(x * 50, dim=1)),
    "logsumexp_dims": ([X3], lambda m, x: x.logsumexp((0, 2), keepdim=True)),
    "logsumexp_infinity": ([value(np.array([[-np.inf, -np.inf], [np.inf, 1.0]]))],
                           lambda m, x: m.logsumexp(x, 1)),
    "logsumexp_int": ([ints(-5, 5, 7, 5)], lambda m, x: m.logsumexp(x, 0)),
    "norm_default": ([X3], lambda m, x: m.norm(x)),
    "norm_fro_dims": ([X3], lambda m, x: x.norm("fro", dim=(1, 2))),
    "norm_p1": ([X3], lambda m, x: x.norm(1, dim=1)),
    "norm_p3": ([X3], lambda m, x: m.norm(x, 3, dim=-1, keepdim=True)),
    "norm_p_half": ([X], lambda m, x: x.norm(0.5, dim=0)),
    "norm_inf": ([X3], lambda m, x: x.norm(float("inf"), dim=2)),
    "norm_minus_inf": ([X], lambda m, x: x.norm(-float("inf"))),
    "norm_inf_ties": ([TIES], lambda m, x: x.norm(float("inf"), dim=1)),
    "norm_zero": ([X], lambda m, x: x.norm(0)),
    "norm_at_zero": ([value(np.zeros((3, 4)))], lambda m, x: x.norm(dim=1)),
    "count_nonzero": ([ints(-1, 2, 3, 7, 5)], lambda m, x: m.count_nonzero(x, dim=(0, 2))),
    "count_nonzero_all": ([X], lambda m, x: (x > 0).count_nonzero()),
    # max, min and friends
    "min_all": ([X], lambda m, x: m.min(x)),
    "min_dim": ([X3], lambda m, x: x.min(dim=1)),
    "min_dim_keepdim": ([X3], lambda m, x: m.min(x, -1, keepdim=True)),
    "max_all_ties": ([TIES], lambda m, x: x.max()),
    "min_all_ties": ([TIES], lambda m, x: x.min()),
    "amax": ([X3], lambda m, x: m.amax(x, dim=(0, 2))),
    "amax_ties": ([TIES], lambda m, x: x.amax(1)),
    "amin_ties_keepdim": ([TIES], lambda m, x: m.amin(x, 0, keepdim=True)),
    "amax_all": ([X], lambda m, x: x.amax()),
    "argmax_keepdim_all": ([X3], lambda m, x: x.argmax(keepdim=True)),
    "argmin": ([X3], lambda m, x: m.argmin(x, dim=1)),
    "argmin_all": ([X3], lambda m, x: x.argmin()),
    "median_all_odd": ([X], lambda m, x: m.median(x)),
    "median_all_even": ([normal(3, 4)], lambda m, x: x.median()),
    "median_all_ties": ([TIES], lambda m, x: x.median()),
    "median_dim": ([normal(3, 6, 5)], lambda m, x: m.median(x, 1)),
    "median_dim_nan": ([value(np.array([[1.0, np.nan, 3.0], [2.0, 0.5, 1.0]]))],
                       lambda m, x: x.median(1)),
    "kthvalue": ([X3], lambda m, x: m.kthvalue(x, 3, dim=1, keepdim=True)),
    "mode": ([ints(0, 3, 4, 9)], lambda m, x: m.mode(x)),
    "mode_float_dim": ([lambda r: r.integers(0, 3, (7, 4)).astype(np.float64)],
                       lambda m, x: x.mode(0)),
    # logic
    "all_dims": ([bools(3, 7, 5)], lambda m, x: m.all(x, dim=(0, 2))),
    "any_keepdim": ([bools(3, 7, 5)], lambda m, x: x.any(1, keepdim=True)),
    "all_floats": ([ints(0, 3, 7, 5)], lambda m, x: m.all(x.double())),
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.filterwarnings("ignore:var\\(\\)")  # PyTorch warns of 0 degrees of freedom
def test_reduction_matches_torch(rng, name):
    makers, fn, *tol = CASES[name]
    check(fn, makers, rng, *tol)


def test_median_of_ints_has_no_gradient_and_keeps_the_dtype(rng):
    check(lambda m, x: (m.median(x), x.median(0)), [ints(-9, 9, 7, 5)], rng)

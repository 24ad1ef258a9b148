"""sum, mean, max and argmax over a dim agree with PyTorch, also on 0-d tensors, on ties,
and on a dim out of range (nnbook's DimError, an IndexError as PyTorch's)."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nnbook as nb

torch = pytest.importorskip("torch")

from like_pytorch import assert_same, outcome, same_failure  # noqa: E402

REDUCTIONS = {
    "sum": lambda x, dim, keepdim: x.sum(dim, keepdim=keepdim),
    "mean": lambda x, dim, keepdim: x.mean(dim, keepdim=keepdim),
    "max": lambda x, dim, keepdim: x.max(dim, keepdim=keepdim),
    "argmax": lambda x, dim, keepdim: x.argmax(dim, keepdim=keepdim),
}


def run_both(name, data, dim, keepdim, rng):
    """The reduction in both libraries: values, indices and gradients, or both refuse."""
    x, tx = nb.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    fn = REDUCTIONS[name]
    (out, error), (tout, terror) = outcome(lambda: fn(x, dim, keepdim)), \
        outcome(lambda: fn(tx, dim, keepdim))
    what = f"{name}(dim={dim}, keepdim={keepdim}) of shape {data.shape}"
    if same_failure(error, terror, what):
        assert isinstance(error, nb.DimError), f"{what}: {error!r}"
        return
    if isinstance(tout, tuple):
        assert_same(out.indices, tout.indices, f"{what}: indices")
        out, tout = out.values, tout.values
    assert_same(out, tout, what)
    if tout.requires_grad:
        upstream = rng.standard_normal(tout.shape)
        out.backward(nb.tensor(upstream))
        tout.backward(torch.tensor(upstream))
        assert_same(x.grad, tx.grad, f"{what}: gradient")


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
@pytest.mark.parametrize("dim", [0, -1, 1, -2])
@pytest.mark.parametrize("keepdim", [False, True])
def test_reducing_a_0d_tensor_over_its_dim_works_as_in_pytorch(name, dim, keepdim, rng):
    run_both(name, np.array(3.0), dim, keepdim, rng)  # dims 0 and -1 exist; 1 and -2 do not


def test_max_of_a_0d_tensor_over_dim_0_gives_itself_and_index_0():
    values, indices = nb.tensor(3.0).max(dim=0)
    assert values.item() == 3.0 and indices.item() == 0 and indices.dtype == nb.int64


def test_argmax_over_a_dim_out_of_range_is_a_dim_error():
    with pytest.raises(nb.DimError, match="dim=3 is out of range"):
        nb.zeros(2, 3).argmax(dim=3)


@settings(max_examples=100, deadline=None, derandomize=True)
@given(st.lists(st.integers(1, 5), min_size=1, max_size=4).map(tuple), st.data(),
       st.sampled_from(sorted(REDUCTIONS)), st.booleans(), st.integers(0, 2**32 - 1))
def test_reducing_over_a_dim_matches_pytorch_with_ties(shape, data, name, keepdim, seed):
    rng = np.random.default_rng(seed)
    ndim = len(shape)
    dim = data.draw(st.integers(-ndim - 1, ndim))  # one out of range at either end
    values = rng.integers(-2, 3, shape).astype(np.float64)  # few values: many ties
    run_both(name, values, dim, keepdim, rng)


@pytest.mark.parametrize("name", ["sum", "mean", "nansum", "nanmean", "var", "std", "norm",
                                  "amax", "amin", "count_nonzero", "all", "any"])
@pytest.mark.parametrize("dim", [(), []])
def test_an_empty_dim_tuple_reduces_as_in_pytorch(name, dim):
    # sum(dim=()) reduces every dim in PyTorch (all and any reduce none): the same here,
    # with the same gradients
    data = np.random.default_rng(3).standard_normal((2, 3, 5))
    for keepdim in ((None,) if name == "count_nonzero" else (False, True)):
        kwargs = {} if keepdim is None else {"keepdim": keepdim}
        x, tx = nb.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
        if name in ("all", "any", "count_nonzero"):
            x, tx = x.detach(), tx.detach()
        out, tout = getattr(x, name)(dim=dim, **kwargs), getattr(tx, name)(dim=dim, **kwargs)
        assert_same(out, tout, f"{name}(dim={dim!r}, {kwargs})")
        if tout.requires_grad:
            out.sum().backward()
            if name in ("var", "std"):  # PyTorch's gradient is inf here (docs/pytorch.md)
                tx = torch.tensor(data, requires_grad=True)
                tout = getattr(tx, name)(dim=None, **kwargs)
            tout.sum().backward()
            assert_same(x.grad, tx.grad, f"{name}(dim={dim!r}, {kwargs}): gradient")

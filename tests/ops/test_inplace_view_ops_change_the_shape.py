"""squeeze_, unsqueeze_, t_, transpose_, swapaxes_ and swapdims_: the tensor itself takes
the new shape over the same memory, as in PyTorch; one more version; gradients flow
through the change, also to nodes made before it and through views taken after it; a
leaf that requires grad, a bad dim, and a write through a view taken before the change
are refused, leaving the tensor as it was."""
import numpy as np
import pytest

import nnbook as nb
from nnbook.errors import BackwardError, DimError, ShapeError

CALLS = {
    "squeeze_all": lambda x: x.squeeze_(),
    "squeeze_dim": lambda x: x.squeeze_(-2),
    "squeeze_dims": lambda x: x.squeeze_((0, 2)),
    "squeeze_not_one": lambda x: x.squeeze_(1),
    "unsqueeze_": lambda x: x.unsqueeze_(1),
    "unsqueeze_end": lambda x: x.unsqueeze_(-1),
    "transpose_": lambda x: x.transpose_(1, -1),
    "swapaxes_": lambda x: x.swapaxes_(0, 3),
    "swapdims_": lambda x: x.swapdims_(-4, 1),
    "t_": lambda x: x.squeeze_().t_(),
}


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(CALLS))
def test_inplace_view_op_matches_torch_and_keeps_the_memory(rng, name):
    torch = pytest.importorskip("torch")
    data = rng.standard_normal((1, 7, 1, 5))
    mine, theirs = nb.tensor(data), torch.tensor(data)
    memory = mine.numpy()
    assert CALLS[name](mine) is mine
    CALLS[name](theirs)
    assert mine.shape == tuple(theirs.shape) and mine.stride() == theirs.stride()
    assert mine.is_contiguous() == theirs.is_contiguous()
    np.testing.assert_array_equal(mine.numpy(), theirs.numpy())
    assert mine._version == theirs._version
    assert np.shares_memory(mine.numpy(), memory)


@pytest.mark.torch
def test_vectors_and_numbers_match_torch():
    torch = pytest.importorskip("torch")
    for lib_call in (lambda m: m.arange(5.0).t_(), lambda m: m.tensor(3.0).t_(),
                     lambda m: m.tensor(3.0).unsqueeze_(0), lambda m: m.ones(1).squeeze_(0),
                     lambda m: m.zeros(0, 1).squeeze_(), lambda m: m.zeros(2, 0).t_()):
        assert lib_call(nb).shape == tuple(lib_call(torch).shape)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_gradients_flow_through_the_change_as_through_the_out_of_place_op(rng, name):
    data = rng.standard_normal((1, 7, 1, 5))
    x = nb.tensor(data, requires_grad=True)
    assert nb.gradcheck(lambda x: CALLS[name](x * 1.0), (x,))
    y = x * 2.0
    assert CALLS[name](y) is y and y.grad_fn is not None
    weights = nb.tensor(rng.standard_normal(y.shape))
    (y * weights).sum().backward()
    x2 = nb.tensor(data, requires_grad=True)
    z = _out_of_place(name, x2 * 2.0)
    assert z.shape == y.shape
    (z * weights).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), x2.grad.numpy(), rtol=1e-12)


def _out_of_place(name, x):
    return {"squeeze_all": lambda: x.squeeze(), "squeeze_dim": lambda: x.squeeze(-2),
            "squeeze_dims": lambda: x.squeeze((0, 2)), "squeeze_not_one": lambda: x.squeeze(1),
            "unsqueeze_": lambda: x.unsqueeze(1), "unsqueeze_end": lambda: x.unsqueeze(-1),
            "transpose_": lambda: x.transpose(1, -1), "swapaxes_": lambda: x.swapaxes(0, 3),
            "swapdims_": lambda: x.swapdims(-4, 1), "t_": lambda: x.squeeze().t()}[name]()




def test_a_change_then_writes_through_views_taken_after_it(rng):
    data = rng.standard_normal((7, 5))
    x = nb.tensor(data, requires_grad=True)
    h = x * 1.0
    h.t_()                   # (5, 7), a view of the same memory
    h[1].mul_(10.0)          # the row of h is column 1 of the original
    weights = rng.standard_normal((5, 7))
    (h * nb.tensor(weights)).sum().backward()
    expected = weights.T.copy()
    expected[:, 1] *= 10.0
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-12)
    values = data.T.copy()
    values[1] *= 10.0
    np.testing.assert_allclose(h.detach().numpy(), values, rtol=1e-12)


def test_a_view_taken_before_the_change_cannot_record_a_write(rng):
    data = rng.standard_normal((7, 5))
    x = nb.tensor(data, requires_grad=True)
    h = x * 1.0
    row = h[0]
    h.t_()
    with pytest.raises(BackwardError, match=r"view whose base changed its shape in place"):
        row.mul_(2.0)
    np.testing.assert_array_equal(h.detach().numpy(), data.T)  # nothing written
    with nb.no_grad():
        row.mul_(2.0)        # without recording there is no graph to get wrong
    assert (h.detach().numpy()[:, 0] == 2 * data[0]).all()


def test_a_leaf_that_requires_grad_is_refused_and_stays_as_it_was(rng):
    w = nb.tensor(rng.standard_normal((7, 1)), requires_grad=True)
    for act in (lambda w: w.unsqueeze_(0), lambda w: w.squeeze_(), lambda w: w.t_(),
                lambda w: w.transpose_(0, 1)):
        with pytest.raises(BackwardError, match=r"on a leaf tensor that requires grad"):
            act(w)
        assert w.shape == (7, 1) and w._version == 0
    with nb.no_grad():
        w.squeeze_()         # as PyTorch: allowed without recording
    assert w.shape == (7,) and w.is_leaf and w._version == 1


@pytest.mark.parametrize("act,cls", [
    (lambda x: x.unsqueeze_(4), DimError), (lambda x: x.squeeze_(3), DimError),
    (lambda x: x.transpose_(0, 3), DimError), (lambda x: x.swapaxes_(-4, 0), DimError),
    (lambda x: x.t_(), ShapeError),
])
def test_a_bad_dim_is_refused_and_the_tensor_keeps_its_shape(rng, act, cls):
    x = nb.tensor(rng.standard_normal((7, 1, 5)))
    with pytest.raises(cls):
        act(x)
    assert x.shape == (7, 1, 5) and x._version == 0 and x.stride() == (5, 5, 1)


def test_nodes_made_before_the_change_get_gradients_of_the_old_shape(rng):
    x = nb.tensor(rng.standard_normal((7, 5)), requires_grad=True)
    h = x * 1.0
    before = h.sin().sum() + h[2].sum() * 3.0  # sin keeps h; h[2] is a view node of h
    h.unsqueeze_(0).transpose_(0, 2)           # (5, 7, 1): no value changed
    (before + h.sum() * 2.0).backward()
    expected = np.cos(x.detach().numpy()) + 2.0
    expected[2] += 3.0
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-12)


def test_a_tensor_in_the_graph_keeps_its_history_when_changed_under_no_grad(rng):
    data = rng.standard_normal((7, 5))
    x = nb.tensor(data, requires_grad=True)
    h = x * 2.0
    with nb.no_grad():
        h.t_()               # h's history must still say how its (5, 7) came from x
    weights = rng.standard_normal((5, 7))
    (h * nb.tensor(weights)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * weights.T, rtol=1e-12)

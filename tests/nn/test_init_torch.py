"""nn.init and every layer's default initialisation against PyTorch's: the same
distributions and bounds (checked by statistics on large tensors, not exact values --
the two libraries draw different random numbers), and the deterministic fillers exactly.
(Oracle: skipped without torch locally, required in CI.)"""
import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import nnbook as nb  # noqa: E402
from nnbook.nn import init  # noqa: E402

tinit = torch.nn.init


def fill(fn, shape, *args, seed=0, **kwargs):
    """Values of nnbook's ``fn`` and of torch's on an empty tensor of ``shape``."""
    g = nb.Generator().manual_seed(seed)
    mine = getattr(init, fn)(nb.empty(*shape, dtype=nb.float64), *args, generator=g, **kwargs)
    tg = torch.Generator().manual_seed(seed)
    theirs = getattr(tinit, fn)(torch.empty(*shape, dtype=torch.float64), *args, generator=tg,
                                **kwargs)
    return mine.numpy(), theirs.numpy()


@pytest.mark.parametrize("name,param", [
    ("linear", None), ("conv2d", None), ("conv_transpose2d", None), ("sigmoid", None),
    ("tanh", None), ("relu", None), ("leaky_relu", None), ("leaky_relu", 0.3), ("selu", None)])
def test_calculate_gain(name, param):
    assert math.isclose(init.calculate_gain(name, param), tinit.calculate_gain(name, param))


def test_calculate_gain_refuses_an_unknown_name():
    with pytest.raises(ValueError, match="hint:"):
        init.calculate_gain("rleu")


@pytest.mark.parametrize("fn,shape,args,kwargs", [
    ("uniform_", (301, 203), (-0.3, 0.7), {}),
    ("normal_", (301, 203), (0.5, 2.0), {}),
    ("xavier_uniform_", (301, 23, 3), (), dict(gain=1.7)),
    ("xavier_normal_", (301, 203), (), {}),
    ("kaiming_uniform_", (301, 7, 3, 5), (), dict(a=math.sqrt(5))),
    ("kaiming_uniform_", (301, 203), (), dict(mode="fan_out", nonlinearity="relu")),
    ("kaiming_normal_", (301, 7, 3, 5), (), dict(nonlinearity="relu")),
    ("kaiming_normal_", (203, 301), (), dict(a=0.2, mode="fan_out")),
    ("trunc_normal_", (301, 203), (0.1, 0.5, -0.3, 0.4), {}),
    ("trunc_normal_", (301, 203), (), {}),
])
def test_random_fillers_have_pytorchs_distribution(fn, shape, args, kwargs):
    mine, theirs = fill(fn, shape, *args, **kwargs)
    assert mine.shape == theirs.shape
    # The same range...
    if "uniform" in fn or fn == "trunc_normal_":
        span = theirs.max() - theirs.min()
        assert abs(mine.max() - theirs.max()) < 0.01 * span
        assert abs(mine.min() - theirs.min()) < 0.01 * span
    # ...and the same mean and spread (61,000+ draws: within a few standard errors).
    assert abs(mine.mean() - theirs.mean()) < 0.03 * theirs.std()
    assert abs(mine.std() / theirs.std() - 1) < 0.02


def test_generator_makes_fillers_reproducible():
    a = init.kaiming_normal_(nb.empty(7, 5), generator=nb.Generator().manual_seed(4)).detach()
    b = init.kaiming_normal_(nb.empty(7, 5), generator=nb.Generator().manual_seed(4)).detach()
    c = init.kaiming_normal_(nb.empty(7, 5), generator=nb.Generator().manual_seed(5)).detach()
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert not np.array_equal(a.numpy(), c.numpy())
    nb.manual_seed(2)
    d = init.uniform_(nb.empty(3, 5)).numpy().copy()
    nb.manual_seed(2)
    np.testing.assert_array_equal(init.uniform_(nb.empty(3, 5)).numpy(), d)


@pytest.mark.parametrize("fn,shape,kwargs", [
    ("eye_", (5, 7), {}), ("eye_", (7, 5), {}),
    ("dirac_", (5, 3, 3, 3), {}), ("dirac_", (6, 3, 2, 5), dict(groups=2)),
    ("dirac_", (3, 5, 4), {}),
    ("constant_", (3, 5), dict(val=0.7)), ("ones_", (3, 5), {}), ("zeros_", (3, 5), {}),
])
def test_deterministic_fillers_equal_pytorchs(fn, shape, kwargs):
    start = np.random.default_rng(3).standard_normal(shape)  # overwritten entirely
    mine = getattr(init, fn)(nb.tensor(start.copy()), **kwargs)
    theirs = getattr(tinit, fn)(torch.tensor(start.copy()), **kwargs)
    np.testing.assert_array_equal(mine.numpy(), theirs.numpy())


@pytest.mark.parametrize("shape", [(5, 7), (7, 5), (5, 3, 3, 3)])
def test_orthogonal(shape):
    w = init.orthogonal_(nb.empty(*shape, dtype=nb.float64), gain=1.5,
                         generator=nb.Generator().manual_seed(1)).numpy()
    flat = w.reshape(shape[0], -1)
    small = flat @ flat.T if flat.shape[0] <= flat.shape[1] else flat.T @ flat
    np.testing.assert_allclose(small, 1.5 ** 2 * np.eye(len(small)), atol=1e-10)


def test_sparse_zeros_as_many_per_column_as_pytorch():
    mine, theirs = fill("sparse_", (301, 203), 0.3, std=0.05)
    np.testing.assert_array_equal((mine == 0).sum(0), (theirs == 0).sum(0))
    assert abs(mine[mine != 0].std() / theirs[theirs != 0].std() - 1) < 0.03


def test_in_place_and_outside_the_graph():
    w = nb.nn.Parameter(nb.zeros(3, 5))
    assert init.xavier_uniform_(w) is w
    assert w.requires_grad and w.grad_fn is None and w.is_leaf


@pytest.mark.parametrize("call", [
    lambda: init.eye_(nb.zeros(3, 4, 5)),
    lambda: init.dirac_(nb.zeros(5, 3)),
    lambda: init.dirac_(nb.zeros(5, 3, 3), groups=2),
    lambda: init.kaiming_uniform_(nb.zeros(5)),
    lambda: init.kaiming_uniform_(nb.zeros(5, 3), mode="fan"),
    lambda: init.sparse_(nb.zeros(5, 3), 1.5),
    lambda: init.trunc_normal_(nb.zeros(5, 3), a=1, b=-1),
    lambda: init.orthogonal_(nb.zeros(5)),
])
def test_bad_arguments_are_refused_with_a_hint(call):
    with pytest.raises(ValueError, match="hint:"):
        call()


def test_a_numpy_array_is_refused():
    with pytest.raises(TypeError, match="hint:"):
        init.normal_(np.zeros((3, 5)))


# -- every layer's default initialisation --------------------------------------------

@pytest.mark.parametrize("make,bound", [
    (lambda n: n.Linear(301, 203), 1 / math.sqrt(301)),
    (lambda n: n.Conv2d(12, 303, (3, 5), groups=3), 1 / math.sqrt(4 * 3 * 5)),
    (lambda n: n.Bilinear(23, 31, 201), 1 / math.sqrt(23)),
    (lambda n: n.LazyLinear(203), 1 / math.sqrt(301)),
])
def test_uniform_defaults_have_pytorchs_bounds(make, bound):
    nb.manual_seed(0)
    torch.manual_seed(0)
    layer, tlayer = make(nb.nn), make(torch.nn)
    if isinstance(layer, nb.nn.LazyLinear):
        layer(nb.zeros(2, 301))
        tlayer(torch.zeros(2, 301))
    for (name, p), tp in zip(layer.named_parameters(), tlayer.parameters()):
        mine, theirs = p.detach().numpy(), tp.detach().numpy()
        assert mine.shape == theirs.shape, name
        # U(-b, b) for weight and bias alike: torch's values and ours lie inside, and
        # reach close to b (the largest of n draws falls short by about b / n).
        for values in (mine, theirs):
            top = np.abs(values).max()
            assert top <= bound and top > bound * (1 - 10 / values.size), name
        if mine.size > 10000:  # the std of U(-b, b) is b / sqrt(3)
            assert abs(mine.std() / theirs.std() - 1) < 0.02, name


def test_embedding_draws_from_a_standard_normal_with_a_zero_padding_row():
    nb.manual_seed(1)
    torch.manual_seed(1)
    emb, temb = nb.nn.Embedding(301, 203, padding_idx=4), torch.nn.Embedding(301, 203,
                                                                            padding_idx=4)
    w, tw = emb.weight.detach().numpy(), temb.weight.detach().numpy()
    assert np.all(w[4] == 0) and np.all(tw[4] == 0)
    assert abs(w.mean()) < 0.01 and abs(w.std() / tw.std() - 1) < 0.02


@pytest.mark.parametrize("make", [
    lambda n: n.BatchNorm1d(7), lambda n: n.BatchNorm2d(5, momentum=None),
    lambda n: n.LayerNorm([3, 5]), lambda n: n.GroupNorm(3, 9), lambda n: n.PReLU(5),
    lambda n: n.LayerNorm(5, bias=False),
])
def test_constant_defaults_equal_pytorchs(make):
    layer, tlayer = make(nb.nn), make(torch.nn)
    mine, theirs = layer.state_dict(), tlayer.state_dict()
    assert list(mine) == list(theirs)
    for key in mine:
        np.testing.assert_array_equal(mine[key].numpy(), theirs[key].numpy(), err_msg=key)


def test_reset_parameters_draws_again():
    nb.manual_seed(0)
    layer = nb.nn.Linear(7, 5)
    before = layer.weight.detach().numpy().copy()
    layer.reset_parameters()
    assert not np.array_equal(before, layer.weight.detach().numpy())
    bn = nb.nn.BatchNorm1d(5)
    with nb.no_grad():
        bn.weight.mul_(3)
    bn.running_mean.add_(1)
    bn.reset_parameters()
    np.testing.assert_array_equal(bn.weight.detach().numpy(), np.ones(5))
    np.testing.assert_array_equal(bn.running_mean.numpy(), np.zeros(5))

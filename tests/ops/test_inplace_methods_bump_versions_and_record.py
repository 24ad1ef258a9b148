"""In-place methods (``exp_``, ``masked_fill_``, ``normal_``...): the same values as the
out-of-place form, one more version each, gradients through the change while recording,
and the refusals PyTorch makes (a leaf that requires grad, a result the dtype can't hold)."""
import numpy as np
import pytest

import nnbook as nb
from nnbook.errors import ArgumentError, BackwardError, DTypeError


def _c(*shape):
    """A constant operand of this shape, the same in every call."""
    return nb.tensor(np.linspace(-1.0, 2.0, int(np.prod(shape))).reshape(shape))


# (in-place call, the same out of place); inputs are positive (7, 5) float64
PAIRS = [
    (lambda x: x.exp_(), lambda x: x.exp()),
    (lambda x: x.log_(), lambda x: x.log()),
    (lambda x: x.sqrt_(), lambda x: x.sqrt()),
    (lambda x: x.rsqrt_(), lambda x: x.rsqrt()),
    (lambda x: x.square_(), lambda x: x.square()),
    (lambda x: x.reciprocal_(), lambda x: x.reciprocal()),
    (lambda x: x.abs_(), lambda x: x.abs()),
    (lambda x: x.neg_(), lambda x: x.neg()),
    (lambda x: x.sign_(), lambda x: x.sign()),
    (lambda x: x.sin_(), lambda x: x.sin()),
    (lambda x: x.cos_(), lambda x: x.cos()),
    (lambda x: x.tanh_(), lambda x: x.tanh()),
    (lambda x: x.sigmoid_(), lambda x: x.sigmoid()),
    (lambda x: x.relu_(), lambda x: x.relu()),
    (lambda x: x.floor_(), lambda x: x.floor()),
    (lambda x: x.ceil_(), lambda x: x.ceil()),
    (lambda x: x.trunc_(), lambda x: x.trunc()),
    (lambda x: x.round_(decimals=1), lambda x: x.round(decimals=1)),
    (lambda x: x.pow_(1.5), lambda x: x.pow(1.5)),
    (lambda x: x.clamp_min_(1.0), lambda x: x.clamp_min(1.0)),
    (lambda x: x.clamp_max_(1.0), lambda x: x.clamp_max(1.0)),
    (lambda x: x.lerp_(x * 3, 0.25), lambda x: x.lerp(x * 3, 0.25)),
    (lambda x: x.addcmul_(x * 3, _c(1, 5), value=-0.5),
     lambda x: x.addcmul(x * 3, _c(1, 5), value=-0.5)),
    (lambda x: x.addcdiv_(_c(7, 1), x + 1, value=2), lambda x: x.addcdiv(_c(7, 1), x + 1, value=2)),
    (lambda x: x.addmm_(_c(7, 3), _c(3, 5), beta=0.5, alpha=-1),
     lambda x: x.addmm(_c(7, 3), _c(3, 5), beta=0.5, alpha=-1)),
    (lambda x: x.addr_(_c(7), _c(5), beta=0), lambda x: x.addr(_c(7), _c(5), beta=0)),
    (lambda x: x.addbmm_(_c(2, 7, 3), _c(2, 3, 5)), lambda x: x.addbmm(_c(2, 7, 3), _c(2, 3, 5))),
    (lambda x: x.masked_fill_(x > 1, -2.0), lambda x: x.masked_fill(x > 1, -2.0)),
    (lambda x: x.tril_(), lambda x: x.tril()),
    (lambda x: x.triu_(diagonal=-2), lambda x: x.triu(diagonal=-2)),
    (lambda x: x.index_fill_(1, nb.tensor([3, 0]), 7.0),
     lambda x: x.index_fill(1, nb.tensor([3, 0]), 7.0)),
    (lambda x: x.scatter_(1, nb.tensor([[4], [2]] * 3 + [[1]]), (x * 2)[:, :1]),
     lambda x: x.scatter(1, nb.tensor([[4], [2]] * 3 + [[1]]), (x * 2)[:, :1])),
    (lambda x: x.scatter_add_(0, nb.tensor([[6, 0, 6, 1, 2]]), (x * 2)[:1]),
     lambda x: x.scatter_add(0, nb.tensor([[6, 0, 6, 1, 2]]), (x * 2)[:1])),
    *[(lambda x, r=r: x.scatter_reduce_(1, nb.tensor([[4, 4], [2, 0]] * 3 + [[1, 1]]),
                                        (x * 2)[:, :2], r, include_self=r != "sum"),
       lambda x, r=r: x.scatter_reduce(1, nb.tensor([[4, 4], [2, 0]] * 3 + [[1, 1]]),
                                       (x * 2)[:, :2], r, include_self=r != "sum"))
      for r in ("sum", "prod", "mean", "amax", "amin")],
    (lambda x: x.index_add_(0, nb.tensor([6, 0, 6]), (x * 3)[:3], alpha=0.5),
     lambda x: x.index_add(0, nb.tensor([6, 0, 6]), (x * 3)[:3], alpha=0.5)),
    (lambda x: x.index_copy_(1, nb.tensor([3, 0]), (x * 3)[:, :2]),
     lambda x: x.index_copy(1, nb.tensor([3, 0]), (x * 3)[:, :2])),
    (lambda x: x.index_put_((nb.tensor([1, 1, 4]), nb.tensor([0, 0, 3])), x.sum(0)[:3] * 2,
                            accumulate=True),
     lambda x: x.index_put((nb.tensor([1, 1, 4]), nb.tensor([0, 0, 3])), x.sum(0)[:3] * 2,
                           accumulate=True)),
    (lambda x: x.index_put_((x > 1,), x.sum()), lambda x: x.index_put((x > 1,), x.sum())),
    (lambda x: x.put_(nb.tensor([-1, 3, 3]), x.sum(1)[:3] * 2, accumulate=True),
     lambda x: x.put(nb.tensor([-1, 3, 3]), x.sum(1)[:3] * 2, accumulate=True)),
    (lambda x: x.put_(nb.tensor([[-1, 3], [0, 9]]), x.sum(1)[:4] * 2),
     lambda x: x.put(nb.tensor([[-1, 3], [0, 9]]), x.sum(1)[:4] * 2)),
    (lambda x: x.masked_scatter_(x > 1, x.flip(0) * 2),
     lambda x: x.masked_scatter(x > 1, x.flip(0) * 2)),
    (lambda x: x.fill_diagonal_(-1.0, wrap=True),
     lambda x: x.masked_fill(nb.tensor(np.eye(7, 5, dtype=bool) | np.eye(7, 5, -6, dtype=bool)),
                             -1.0)),
]


def _positive(rng):
    return np.abs(rng.standard_normal((7, 5))) + 0.3


@pytest.mark.parametrize("pair", range(len(PAIRS)))
def test_inplace_gives_the_out_of_place_values_and_one_more_version(rng, pair):
    in_place, out_of_place = PAIRS[pair]
    data = _positive(rng)
    x = nb.tensor(data)
    expected = out_of_place(nb.tensor(data)).numpy()
    before = x._version
    assert in_place(x) is x
    np.testing.assert_allclose(x.numpy(), expected, rtol=1e-12)
    assert x._version == before + 1


@pytest.mark.parametrize("pair", range(len(PAIRS)))
def test_inplace_records_the_same_gradient_as_out_of_place(rng, pair):
    in_place, out_of_place = PAIRS[pair]
    data, weights = _positive(rng), rng.standard_normal((7, 5))
    a, b = nb.tensor(data, requires_grad=True), nb.tensor(data, requires_grad=True)
    (in_place(a * 1.0) * nb.tensor(weights)).sum().backward()
    (out_of_place(b * 1.0) * nb.tensor(weights)).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-12)


def test_a_leaf_that_requires_grad_is_refused():
    w = nb.ones(3, requires_grad=True)
    with pytest.raises(BackwardError, match="in-place exp_ on a leaf tensor that requires grad"):
        w.exp_()
    with nb.no_grad():
        w.normal_().exp_()  # initialisation is what no_grad is for
    assert w._version == 2


def test_a_value_saved_for_backward_cannot_change_in_place(rng):
    x = nb.tensor(rng.standard_normal(5), requires_grad=True)
    h = x * 1.0
    y = h.sin()  # saves h
    h.abs_()
    with pytest.raises(BackwardError):
        y.sum().backward()


def test_a_change_through_a_view_is_recorded_and_still_stops_a_node_that_saved_the_base():
    x = nb.tensor([1.0, 2.0, 3.0, 4.0, 5.0], requires_grad=True)
    h = x * 1.0
    squared = h * h          # saves h
    row = h[1:4]             # a view: its node is in the graph the write goes through
    row.mul_(3.0)            # recorded: h's middle three values are tripled
    assert h._version == 1 and row._version == 1  # one counter for the memory
    (h * nb.tensor([1.0, 10.0, 100.0, 1000.0, 10000.0])).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [1.0, 30.0, 300.0, 3000.0, 10000.0])
    with pytest.raises(BackwardError, match=r"mul needs input 0.*changed in place"
                                             r"(?s:.*)version:    1 now"):
        squared.sum().backward()


def test_a_change_before_the_op_ran_is_no_change_for_it():
    x = nb.tensor([1.0, 2.0], requires_grad=True)
    h = x * 1.0
    with nb.no_grad():
        h.mul_(2.0)          # before sin saved h: sin sees the new values, rightly
    y = h.sin()
    with nb.no_grad():
        nb.zeros(3).add_(1.0)  # a change elsewhere, after sin saved h: still nothing of sin's
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.cos([2.0, 4.0]), rtol=1e-6)  # (as PyTorch)


def test_a_float_result_cannot_go_into_an_integer_tensor():
    with pytest.raises(DTypeError, match="cannot be stored in this int64 tensor"):
        nb.tensor([1, 2]).exp_()


def test_random_fills_follow_the_generator_and_the_distribution():
    g = nb.Generator().manual_seed(7)
    a = nb.empty(400, 300, dtype=nb.float64).normal_(2.0, 0.5, generator=g)
    b = nb.empty(400, 300, dtype=nb.float64).normal_(2.0, 0.5,
                                                    generator=nb.Generator().manual_seed(7))
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert abs(a.mean().item() - 2.0) < 0.01 and abs(a.std().item() - 0.5) < 0.01
    u = nb.empty(1000).uniform_(-3, -1)
    assert u.min().item() >= -3 and u.max().item() < -1 and u.dtype == nb.float32
    v = nb.empty(1000).uniform_(**{"from": 5, "to": 6})
    assert v.min().item() >= 5 and v.max().item() < 6
    e = nb.empty(10000, dtype=nb.float64).exponential_(4.0)
    assert e.min().item() > 0 and abs(e.mean().item() - 0.25) < 0.02
    coin = nb.empty(1000, dtype=nb.int64).bernoulli_(0.3)
    assert set(np.unique(coin.numpy())) <= {0, 1} and 200 < coin.sum().item() < 400
    r = nb.zeros(1000, dtype=nb.int64).random_(3, 9)
    assert set(np.unique(r.numpy())) == set(range(3, 9))
    assert set(np.unique(nb.zeros(1000).random_(4).numpy())) == {0, 1, 2, 3}


def test_random_fills_refuse_what_pytorch_refuses():
    with pytest.raises(DTypeError, match="normal_ draws floating point numbers"):
        nb.zeros(3, dtype=nb.int64).normal_()
    with pytest.raises(ArgumentError, match="uniform_ takes from and to"):
        nb.zeros(3).uniform_(0, 1, low=2)
    with pytest.raises(ArgumentError, match="generator= must be an nb.Generator"):
        nb.zeros(3).normal_(generator=np.random.default_rng(0))


def test_new_tensors_take_this_tensors_dtype(rng):
    x = nb.tensor(rng.standard_normal((2, 3)))  # float64
    for made, shape, fill in ((x.new_zeros(4, 5), (4, 5), 0), (x.new_ones((2,)), (2,), 1),
                              (x.new_full((3, 1), 2.5), (3, 1), 2.5),
                              (x.new_empty(size=(2, 2)), (2, 2), 0)):
        assert made.dtype == nb.float64 and made.shape == shape
        assert (made.numpy() == fill).all() and not made.requires_grad
    t = x.new_tensor([[1, 2]], requires_grad=True)
    assert t.dtype == nb.float64 and t.requires_grad and t.is_leaf
    assert x.new_zeros(2, dtype=nb.int32).dtype == nb.int32


REDUCTIONS_THAT_KEEP_THEIR_OUTPUT = {
    "max": lambda t: t.max(), "min": lambda t: t.min(), "amax": lambda t: t.amax(1),
    "amin": lambda t: t.amin(0), "std": lambda t: t.std(1), "norm": lambda t: t.norm(p=3, dim=0),
    "logsumexp": lambda t: t.logsumexp(1),
    "median": lambda t: t.median(),
}


@pytest.mark.parametrize("name", sorted(REDUCTIONS_THAT_KEEP_THEIR_OUTPUT))
def test_a_reduction_whose_backward_reads_its_output_refuses_a_change_to_it(name):
    """As PyTorch: these backwards read the result, so changing it in place would make the
    gradient wrong (it silently was); backward says so instead."""
    x = nb.tensor(np.random.default_rng(3).standard_normal((7, 5)), requires_grad=True)
    y = REDUCTIONS_THAT_KEEP_THEIR_OUTPUT[name](x)
    y.mul_(2)
    with pytest.raises(BackwardError, match=rf"{name} needs its output.*changed in place"):
        y.sum().backward()


def test_max_over_one_dim_reads_no_output_and_takes_the_change():
    x = nb.tensor(np.random.default_rng(4).standard_normal((7, 5)), requires_grad=True)
    values, indices = x.max(1)
    values.mul_(2)
    values.sum().backward()
    expected = np.zeros((7, 5))
    expected[np.arange(7), indices.numpy()] = 2
    np.testing.assert_array_equal(x.grad.numpy(), expected)


@pytest.mark.parametrize("equation,shape", [("ij->ji", (7, 5)), ("ii->i", (5, 5))])
def test_einsum_that_rearranges_one_operand_gives_a_new_tensor(equation, shape):
    x = nb.ones(*shape)
    y = nb.einsum(equation, x)
    y.mul_(2)
    np.testing.assert_array_equal(x.numpy(), np.ones(shape))

"""soft_margin, multilabel_soft_margin, multi_margin, multilabel_margin, hinge_embedding,
poisson_nll, gaussian_nll and triplet_margin_with_distance losses (and their layers):
values against plain numpy, gradcheck on odd, non-square float64 shapes, and the errors
of wrong targets, variances and arguments."""
import math
import warnings

import numpy as np
import pytest

import nnbook as nb
from nnbook import nn
from nnbook.errors import ArgumentError, DimError, DTypeError, InputError, ShapeError
from nnbook.nn import functional as F
from nnbook.nn.arguments import LegacyReductionWarning


def leaf(array):
    return nb.tensor(array, requires_grad=True)


def log1pexp(z):
    return np.logaddexp(0, z)


def labels_pm1(rng, shape):
    return rng.choice([-1.0, 1.0], shape)


def multilabel_targets(rng, n, classes):
    """Rows of class indices ended by -1 (one row repeats a class, one lists none)."""
    target = np.full((n, classes), -1, dtype=np.int64)
    for i in range(n):
        k = int(rng.integers(0, classes))
        target[i, :k] = rng.permutation(classes)[:k]
    target[0, :3], target[1, 0] = [2, 2, -1], -1
    return target


# ---------------------------------------------------------------------------
# Values against numpy
# ---------------------------------------------------------------------------

def test_soft_margin_loss_is_the_logistic_loss_of_the_signed_score(rng):
    x, y = rng.standard_normal((7, 5)) * 30, labels_pm1(rng, (7, 5))
    got = F.soft_margin_loss(nb.tensor(x), nb.tensor(y), reduction="none").numpy()
    np.testing.assert_allclose(got, log1pexp(-y * x), rtol=1e-12)
    assert np.isfinite(got).all()  # no overflow for scores of +-90
    np.testing.assert_allclose(F.soft_margin_loss(nb.tensor(x), nb.tensor(y)).item(),
                               log1pexp(-y * x).mean(), rtol=1e-12)


def test_integer_labels_of_one_and_minus_one_are_read_as_floats(rng):
    x, y = rng.standard_normal((7, 5)), labels_pm1(rng, (7, 5))
    as_ints = F.soft_margin_loss(nb.tensor(x), nb.tensor(y.astype(np.int64)))
    assert as_ints.dtype == nb.float64
    np.testing.assert_allclose(as_ints.item(), F.soft_margin_loss(nb.tensor(x),
                                                                  nb.tensor(y)).item())


def test_multilabel_soft_margin_loss_averages_the_classes_per_sample(rng):
    x, t, w = rng.standard_normal((7, 5)), (rng.random((7, 5)) > 0.5) * 1.0, rng.random(5)
    per_class = w * (t * log1pexp(-x) + (1 - t) * log1pexp(x))
    got = F.multilabel_soft_margin_loss(nb.tensor(x), nb.tensor(t), nb.tensor(w),
                                        reduction="none")
    assert got.shape == (7,)
    np.testing.assert_allclose(got.numpy(), per_class.mean(axis=1), rtol=1e-12)


@pytest.mark.parametrize("p", [1, 2])
def test_multi_margin_loss_sums_the_hinges_of_the_wrong_classes(rng, p):
    x, y, w = rng.standard_normal((7, 5)), rng.integers(0, 5, 7), rng.random(5)
    expected = np.zeros(7)
    for i in range(7):
        for j in range(5):
            if j != y[i]:
                expected[i] += w[y[i]] * max(0.0, 0.8 - x[i, y[i]] + x[i, j]) ** p / 5
    got = F.multi_margin_loss(nb.tensor(x), nb.tensor(y), p, 0.8, nb.tensor(w),
                              reduction="none")
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-12)
    mean = F.multi_margin_loss(nb.tensor(x), nb.tensor(y), p, 0.8, nb.tensor(w))
    np.testing.assert_allclose(mean.item(), expected.mean(), rtol=1e-12)  # over the samples


def test_multi_margin_loss_of_one_sample_is_0_d(rng):
    x = rng.standard_normal(5)
    one = F.multi_margin_loss(nb.tensor(x), nb.tensor(3), reduction="none")
    batch = F.multi_margin_loss(nb.tensor(x[None]), nb.tensor([3]), reduction="none")
    assert one.shape == () and batch.shape == (1,)
    np.testing.assert_allclose(one.item(), batch.numpy()[0])


def test_multilabel_margin_loss_pairs_each_listed_class_with_each_unlisted_one(rng):
    x, target = rng.standard_normal((7, 5)), multilabel_targets(rng, 7, 5)
    expected = np.zeros(7)
    for i in range(7):
        listed = []
        for c in target[i]:
            if c == -1:
                break
            listed.append(c)
        for j in listed:  # a class listed twice counts twice, as in PyTorch
            for k in set(range(5)) - set(listed):
                expected[i] += max(0.0, 1 - x[i, j] + x[i, k]) / 5
    got = F.multilabel_margin_loss(nb.tensor(x), nb.tensor(target), reduction="none")
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-12)
    assert expected[1] == 0  # a row that lists no class


def test_hinge_embedding_loss_reads_the_input_as_a_distance(rng):
    d, y = np.abs(rng.standard_normal((7, 5))), labels_pm1(rng, (7, 5))
    got = F.hinge_embedding_loss(nb.tensor(d), nb.tensor(y), margin=0.5, reduction="none")
    np.testing.assert_allclose(got.numpy(), np.where(y == 1, d, np.maximum(0, 0.5 - d)))


@pytest.mark.parametrize("log_input", [True, False])
def test_poisson_nll_loss_with_stirlings_term(rng, log_input):
    x = rng.standard_normal((7, 5)) if log_input else rng.random((7, 5)) + 0.1
    t = rng.poisson(2.0, (7, 5)).astype(np.float64)
    rate = np.exp(x) if log_input else x
    base = rate - t * (x if log_input else np.log(x + 1e-8))
    with np.errstate(divide="ignore", invalid="ignore"):
        stirling = np.where(t > 1, t * np.log(t) - t + 0.5 * np.log(2 * np.pi * t), 0)
    for full, expected in ((False, base), (True, base + stirling)):
        got = F.poisson_nll_loss(nb.tensor(x), nb.tensor(t), log_input, full, reduction="none")
        np.testing.assert_allclose(got.numpy(), expected, rtol=1e-12)


@pytest.mark.parametrize("var_shape", [(7, 5), (7,), (7, 1), (1, 5)])
def test_gaussian_nll_loss_takes_pytorchs_variance_shapes(rng, var_shape):
    mu, t = rng.standard_normal((7, 5)), rng.standard_normal((7, 5))
    var = rng.random(var_shape) + 0.1
    v = var[:, None] if var_shape == (7,) else var
    expected = 0.5 * (np.log(v) + (mu - t) ** 2 / v) + 0.5 * math.log(2 * math.pi)
    got = F.gaussian_nll_loss(nb.tensor(mu), nb.tensor(t), nb.tensor(var), full=True,
                              reduction="none")
    assert got.shape == (7, 5)
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-12)


def test_gaussian_nll_loss_keeps_var_at_eps_but_passes_the_gradient_through(rng):
    mu, t = rng.standard_normal(5), rng.standard_normal(5)
    var = leaf(np.array([0.0, 1e-9, 0.5, 2.0, 1e-7]))
    F.gaussian_nll_loss(nb.tensor(mu), nb.tensor(t), var, eps=1e-6, reduction="sum").backward()
    v = np.maximum(var.detach().numpy(), 1e-6)  # the clamped value, an identity for backward
    np.testing.assert_allclose(var.grad.numpy(), 0.5 * (1 / v - (mu - t) ** 2 / v ** 2))


def test_gaussian_nll_loss_takes_a_number_as_the_variance(rng):
    mu, t = nb.tensor(rng.standard_normal((7, 5))), nb.tensor(rng.standard_normal((7, 5)))
    np.testing.assert_allclose(F.gaussian_nll_loss(mu, t, 2.0).item(),
                               F.gaussian_nll_loss(mu, t, nb.full((7, 5), 2.0,
                                                                  dtype=nb.float64)).item())


def test_triplet_margin_with_distance_loss_uses_the_distance_it_is_given(rng):
    a, p, n = (rng.standard_normal((7, 5)) for _ in range(3))

    def manhattan(u, v):
        return (u - v).abs().sum(-1)

    got = F.triplet_margin_with_distance_loss(nb.tensor(a), nb.tensor(p), nb.tensor(n),
                                              distance_function=manhattan, margin=2.0,
                                              swap=True, reduction="none")
    d_pos, d_neg = np.abs(a - p).sum(-1), np.abs(a - n).sum(-1)
    d_neg = np.minimum(d_neg, np.abs(p - n).sum(-1))
    np.testing.assert_allclose(got.numpy(), np.maximum(0, 2.0 + d_pos - d_neg))
    default = F.triplet_margin_with_distance_loss(nb.tensor(a), nb.tensor(p), nb.tensor(n))
    np.testing.assert_allclose(default.item(), F.triplet_margin_loss(
        nb.tensor(a), nb.tensor(p), nb.tensor(n)).item(), rtol=1e-12)


# ---------------------------------------------------------------------------
# Gradients
# ---------------------------------------------------------------------------

SIGNS = np.array([[1.0, -1.0, -1.0, 1.0, -1.0]] * 7)


@pytest.mark.parametrize("name,fn,make", [
    ("soft_margin", lambda x, t: F.soft_margin_loss(x, t),
     lambda rng: [rng.standard_normal((7, 5)), rng.standard_normal((7, 5))]),
    ("multilabel_soft_margin", lambda x, t: F.multilabel_soft_margin_loss(
        x, t, weight=nb.tensor(np.arange(1.0, 6.0)), reduction="sum"),
     lambda rng: [rng.standard_normal((7, 5)), rng.random((7, 5))]),
    ("multi_margin_p1", lambda x: F.multi_margin_loss(
        x, nb.tensor([0, 4, 2, 1, 3, 0, 2]), margin=0.7, weight=nb.tensor(np.arange(1.0, 6.0))),
     lambda rng: [rng.standard_normal((7, 5))]),
    ("multi_margin_p2", lambda x: F.multi_margin_loss(x, nb.tensor([0, 4, 2, 1, 3, 0, 2]), p=2,
                                                      reduction="none"),
     lambda rng: [rng.standard_normal((7, 5))]),
    ("multi_margin_one_sample", lambda x: F.multi_margin_loss(x, nb.tensor(2), p=2),
     lambda rng: [rng.standard_normal(5)]),
    ("multilabel_margin", lambda x: F.multilabel_margin_loss(
        x, nb.tensor(multilabel_targets(np.random.default_rng(3), 7, 5)), reduction="none"),
     lambda rng: [rng.standard_normal((7, 5))]),
    ("hinge_embedding", lambda x: F.hinge_embedding_loss(x, nb.tensor(SIGNS), margin=1.5),
     lambda rng: [rng.standard_normal((7, 5))]),
    ("poisson_log_input_full", lambda x, t: F.poisson_nll_loss(x, t, full=True),
     lambda rng: [rng.standard_normal((7, 5)), rng.random((7, 5)) * 4 + 0.1]),
    ("poisson_rate", lambda x, t: F.poisson_nll_loss(x, t, log_input=False, reduction="sum"),
     lambda rng: [rng.random((7, 5)) + 0.5, rng.random((7, 5)) * 4]),
    ("gaussian_per_row", lambda m, t, v: F.gaussian_nll_loss(m, t, v, full=True),
     lambda rng: [rng.standard_normal((7, 5)), rng.standard_normal((7, 5)),
                  rng.random(7) + 0.5]),
    ("gaussian_shared_column", lambda m, t, v: F.gaussian_nll_loss(m, t, v, reduction="none"),
     lambda rng: [rng.standard_normal((7, 5)), rng.standard_normal((7, 5)),
                  rng.random((1, 5)) + 0.5]),
    ("triplet_with_distance", lambda a, p, n: F.triplet_margin_with_distance_loss(
        a, p, n, distance_function=lambda u, v: 1 - F.cosine_similarity(u, v), swap=True),
     lambda rng: [rng.standard_normal((7, 5)) for _ in range(3)]),
])
def test_gradcheck(rng, name, fn, make):
    assert nb.gradcheck(fn, tuple(leaf(a) for a in make(rng))), name


def test_reductions_scale_the_gradient(rng):
    x = rng.standard_normal((7, 5))
    target = nb.tensor(multilabel_targets(rng, 7, 5))
    grads = {}
    for reduction in ("sum", "mean"):
        xs = leaf(x)
        F.multilabel_margin_loss(xs, target, reduction=reduction).backward()
        grads[reduction] = xs.grad.numpy()
    np.testing.assert_allclose(grads["mean"] * 7, grads["sum"], rtol=1e-12)


# ---------------------------------------------------------------------------
# Layers
# ---------------------------------------------------------------------------

def test_the_layers_call_their_functions_with_their_settings(rng):
    x, y = nb.tensor(rng.standard_normal((7, 5))), nb.tensor(rng.integers(0, 5, 7))
    w = nb.tensor(rng.random(5))
    layer = nn.MultiMarginLoss(p=2, margin=0.5, weight=w, reduction="sum")
    assert list(layer.state_dict()) == ["weight"]
    assert repr(layer) == "MultiMarginLoss()"
    np.testing.assert_allclose(layer(x, y).item(), F.multi_margin_loss(
        x, y, 2, 0.5, w, reduction="sum").item())
    var = nb.tensor(rng.random(7) + 0.1)
    np.testing.assert_allclose(nn.GaussianNLLLoss(full=True, reduction="sum")(x, x * 2, var)
                               .item(), F.gaussian_nll_loss(x, x * 2, var, True,
                                                            reduction="sum").item())
    assert list(nn.SoftMarginLoss().state_dict()) == []


def test_the_old_size_average_and_reduce_flags_are_read_with_a_warning(rng):
    x, y = nb.tensor(rng.standard_normal((7, 5))), nb.tensor(labels_pm1(rng, (7, 5)))
    with pytest.warns(LegacyReductionWarning, match="reduction='sum'"):
        summed = F.soft_margin_loss(x, y, size_average=False)
    with pytest.warns(LegacyReductionWarning, match="reduction='none'"):
        layer = nn.HingeEmbeddingLoss(reduce=False)
    assert layer.reduction == "none"
    np.testing.assert_allclose(summed.item(), F.soft_margin_loss(x, y, reduction="sum").item())


def test_no_warning_without_the_old_flags(rng):
    x = nb.tensor(rng.standard_normal((7, 5)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nn.PoissonNLLLoss()(x, x.exp())


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------

X = nb.randn(7, 5, dtype=nb.float64)


@pytest.mark.parametrize("call,error,match", [
    (lambda: F.multi_margin_loss(X, nb.tensor([0, 1, 2, 3, 4, 5, 0])), DimError,
     r"(?s)target value 5 at position 5 is out of range for 5 classes"),
    (lambda: F.multi_margin_loss(X, nb.tensor([0, 1, -1, 3, 4, 0, 0])), DimError,
     r"target value -1 is negative"),
    (lambda: F.multi_margin_loss(X, nb.zeros(7, 5, dtype=nb.int64)), ShapeError,
     r"(?s)target of shape \(7,\).*one-hot.*argmax\(1\)"),
    (lambda: F.multi_margin_loss(X, nb.zeros(7)), DTypeError, r"(?s)integers.*target\.long"),
    (lambda: F.multi_margin_loss(nb.randn(2, 3, 4), nb.tensor([0, 1])), ShapeError,
     r"\(N, C\) or \(C,\), got \(2, 3, 4\)"),
    (lambda: F.multi_margin_loss(X, nb.zeros(7, dtype=nb.int64), p=3), InputError,
     r"p must be 1 or 2, got 3"),
    (lambda: F.multi_margin_loss(X, nb.zeros(7, dtype=nb.int64), weight=nb.ones(4)),
     ShapeError, r"one value per class: shape \(5,\)"),
    (lambda: nn.MultiMarginLoss(p=0), InputError, r"p must be 1 or 2, got 0"),
    (lambda: F.multilabel_margin_loss(X, nb.zeros(7, 5)), DTypeError,
     r"(?s)class indices as integers.*multilabel_soft_margin_loss"),
    (lambda: F.multilabel_margin_loss(X, nb.zeros(7, dtype=nb.int64)), ShapeError,
     r"(?s)input's shape \(7, 5\), got \(7,\).*multi_margin_loss"),
    (lambda: F.multilabel_margin_loss(X, nb.full((7, 5), 5)), DimError,
     r"target value 5 at position \(0, 0\) is out of range"),
    (lambda: F.multilabel_soft_margin_loss(X, nb.tensor([0, 1, 2, 3, 4, 0, 1])), ShapeError,
     r"(?s)got \(7,\).*F\.one_hot\(target, 5\)\.float\(\)"),
    (lambda: F.multilabel_soft_margin_loss(X, X, weight=nb.ones(4)), ShapeError,
     r"weight of shape \(4,\) does not broadcast"),
    (lambda: F.soft_margin_loss(X, nb.ones(7)), ShapeError,
     r"same shape, got \(7, 5\) and \(7,\)"),
    (lambda: F.soft_margin_loss(nb.ones(7, 5, dtype=nb.int64), X), DTypeError,
     r"floating point input, got int64"),
    (lambda: F.hinge_embedding_loss(X, [1, -1]), DTypeError,
     r"target must be an nnbook Tensor or a numpy array"),
    (lambda: F.poisson_nll_loss(X, X[:, :1]), ShapeError, r"input\.squeeze|same shape"),
    (lambda: F.soft_margin_loss(X, X, reduction="avg"), InputError, r"reduction='avg'"),
    (lambda: F.gaussian_nll_loss(X, X, -nb.ones(7)), InputError,
     r"var has negative entry/entries: the smallest is -1"),
    (lambda: F.gaussian_nll_loss(X, X, -1.0), InputError, r"var has negative entry"),
    (lambda: F.gaussian_nll_loss(X, X, nb.ones(5)), ShapeError,
     r"(?s)var is of incorrect size: \(5,\).*\(7, 5\).*\(7,\)"),
    (lambda: F.gaussian_nll_loss(X, X, nb.ones(1, 1)), ShapeError, r"var is of incorrect size"),
    (lambda: F.gaussian_nll_loss(nb.randn(7, 5, 3), nb.randn(7, 5, 3), nb.ones(7, 1, 1)),
     ShapeError, r"var is of incorrect size"),
    (lambda: F.triplet_margin_with_distance_loss(X, X, X, margin=0), InputError,
     r"margin must be greater than 0, got 0"),
    (lambda: nn.TripletMarginWithDistanceLoss(margin=-1.0), InputError,
     r"margin must be greater than 0"),
    (lambda: F.triplet_margin_with_distance_loss(X, X, X[0]), ShapeError,
     r"same number of dimensions, got anchor 2-D, positive 2-D, negative 1-D"),
    (lambda: F.triplet_margin_with_distance_loss(X, X, X, distance_function="cosine"),
     ArgumentError, r"distance_function must be a function of two tensors, got str"),
])
def test_wrong_inputs_get_nnbook_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_the_keyword_only_arguments_are_keyword_only():
    with pytest.raises(TypeError):
        nn.GaussianNLLLoss(True)  # noqa: FBT003 (PyTorch's signature: full is keyword-only)
    with pytest.raises(TypeError):
        F.triplet_margin_with_distance_loss(X, X, X, None)


def test_an_empty_batch_averages_to_nan_and_sums_to_zero():
    x, labels = nb.zeros(0, 5, dtype=nb.float64), nb.zeros(0, dtype=nb.int64)
    assert np.isnan(F.multi_margin_loss(x, labels).item())
    assert F.multi_margin_loss(x, labels, reduction="sum").item() == 0
    assert F.multilabel_margin_loss(x, labels.reshape(0, 5), reduction="none").shape == (0,)
    assert np.isnan(F.soft_margin_loss(x, x).item())


def test_the_default_distance_is_a_pairwise_distance_layer():
    layer = nn.TripletMarginWithDistanceLoss()
    assert isinstance(layer.distance_function, nn.PairwiseDistance)
    assert list(dict(layer.named_children())) == ["distance_function"]

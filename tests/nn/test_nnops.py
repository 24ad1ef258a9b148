"""The ops of nnbook/ops/{softmax,losses,class_targets,norm,dropout}.py through
nnbook/nn/functional.py: forward against numpy, backward by gradcheck.

Shapes are odd and non-square on purpose; gradients are checked in float64.
"""

import numpy as np
import pytest

import nnbook as nb
import nnbook.nn.functional as F
from nnbook.errors import DimError, DTypeError, InputError, ShapeError
from nnbook.ops.base import Spec
from nnbook.ops.dropout import Dropout
from nnbook.ops.losses import CrossEntropy, MseLoss, NllLoss
from nnbook.ops.norm import BatchNorm
from nnbook.ops.softmax import LogSoftmax, Softmax
from nnbook.tensor import apply


def t64(rng, *shape, requires_grad=True):
    return nb.tensor(rng.standard_normal(shape), requires_grad=requires_grad)


def labels(rng, high, *shape):
    return nb.tensor(rng.integers(0, high, size=shape))


# ---------------------------------------------------------------------------
# numpy references, written the long way
# ---------------------------------------------------------------------------

def ref_log_softmax(x, axis):
    m = x.max(axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


def ref_nll(logp, target, weight=None, ignore_index=-100, reduction="mean"):
    """Loop over every element: loss = -w[t] logp[n, t, ...]."""
    if logp.ndim == 1:
        logp, target = logp[None], np.asarray(target)[None]
        out = ref_nll(logp, target, weight, ignore_index, reduction)
        return out[0] if reduction == "none" else out
    classes = logp.shape[1]
    weight = np.ones(classes) if weight is None else weight
    losses = np.zeros(target.shape)
    total_w = 0.0
    for idx in np.ndindex(*target.shape):
        c = target[idx]
        if c == ignore_index:
            continue
        pos = (idx[0], c) + idx[1:]
        losses[idx] = -weight[c] * logp[pos]
        total_w += weight[c]
    if reduction == "none":
        return losses
    if reduction == "sum":
        return losses.sum()
    return losses.sum() / total_w


def ref_cross_entropy(x, target, weight=None, ignore_index=-100, reduction="mean",
                      label_smoothing=0.0):
    """Explicit target distributions q: loss_i = -sum_c q_ic log p_ic."""
    logp = ref_log_softmax(x, 1)
    classes = x.shape[1]
    weight = np.ones(classes) if weight is None else weight
    losses = np.zeros(target.shape)
    total_w = 0.0
    for idx in np.ndindex(*target.shape):
        c = target[idx]
        if c == ignore_index:
            continue
        q = np.full(classes, label_smoothing / classes)
        q[c] += 1 - label_smoothing
        row = logp[(idx[0], slice(None)) + idx[1:]]
        losses[idx] = -(q * weight * row).sum() + 0.0
        # PyTorch's smoothing term uses every class weight; its nll term uses w[c]
        total_w += weight[c]
    if reduction == "none":
        return losses
    if reduction == "sum":
        return losses.sum()
    return losses.sum() / total_w


def ref_batch_norm(x, mean, var, weight, bias, eps):
    shape = (1, -1) + (1,) * (x.ndim - 2)
    return (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps) * \
        weight.reshape(shape) + bias.reshape(shape)


def check_grad(fn, *inputs):
    assert nb.gradcheck(fn, inputs)


# ---------------------------------------------------------------------------
# Softmax and log-softmax
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("shape,dim", [((7, 5), 1), ((7, 5), 0), ((3, 5, 4, 3), 1),
                                       ((3, 5, 4, 3), -1), ((5,), 0)])
def test_softmax_and_log_softmax_forward(rng, shape, dim):
    x = t64(rng, *shape)
    ref = ref_log_softmax(x.detach().numpy(), dim)
    np.testing.assert_allclose(F.log_softmax(x, dim).detach().numpy(), ref, atol=1e-12)
    np.testing.assert_allclose(F.softmax(x, dim=dim).detach().numpy(), np.exp(ref), atol=1e-12)
    np.testing.assert_allclose(F.softmax(x, dim).detach().numpy().sum(axis=dim), 1.0)


@pytest.mark.parametrize("shape,dim", [((7, 5), 1), ((7, 5), 0), ((3, 5, 4, 3), 1),
                                       ((3, 5, 4, 3), -2)])
def test_softmax_and_log_softmax_backward(rng, shape, dim):
    check_grad(lambda x: F.softmax(x, dim), t64(rng, *shape))
    check_grad(lambda x: F.log_softmax(x, dim), t64(rng, *shape))


def test_softmax_is_stable_for_huge_scores():
    x = nb.tensor([[1000.0, 1001.0, 999.0], [-1000.0, -1000.0, -1000.0]])
    y = F.softmax(x, dim=1).detach().numpy()
    assert np.all(np.isfinite(y))
    np.testing.assert_allclose(y[1], 1 / 3, rtol=1e-6)
    np.testing.assert_allclose(
        F.log_softmax(x, 1).detach().numpy()[0], [-1.4076059, -0.4076059, -2.4076059], rtol=1e-5
    )


def test_softmax_keeps_float32_and_takes_a_dtype():
    x = nb.randn(4, 3)
    assert F.softmax(x, 1).dtype == np.float32
    assert F.log_softmax(x, 1, dtype=nb.float64).dtype == np.float64


def test_softmax_of_a_scalar_and_of_an_empty_tensor():
    assert F.softmax(nb.tensor(2.0), 0).item() == 1.0
    assert F.softmax(nb.zeros(0, 3), 1).shape == (0, 3)
    assert F.log_softmax(nb.zeros(3, 0), 1).shape == (3, 0)


def test_softmax_errors():
    x = nb.randn(7, 5)
    with pytest.raises(InputError, match=r"F.softmax: dim must be given(.|\n)*hint: .*dim=1"):
        F.softmax(x)
    with pytest.raises(InputError, match="F.log_softmax: dim must be given"):
        F.log_softmax(x)
    with pytest.raises(DimError, match=r"dim=2 is out of range(.|\n)*between -2 and 1"):
        F.softmax(x, 2)
    with pytest.raises(DTypeError, match=r"softmax: expects a floating point input, got int64"
                                         r"(.|\n)*hint: convert it first: input.float\(\)"):
        F.softmax(nb.tensor([1, 2, 3]), 0)


# ---------------------------------------------------------------------------
# nll_loss
# ---------------------------------------------------------------------------

NLL_CASES = [
    dict(),
    dict(reduction="sum"),
    dict(reduction="none"),
    dict(weight=np.array([0.5, 2.0, 1.0, 3.0, 0.25])),
    dict(weight=np.array([0.5, 2.0, 1.0, 3.0, 0.25]), ignore_index=2),
    dict(ignore_index=1, reduction="none"),
    dict(weight=np.array([0.5, 2.0, 1.0, 3.0, 0.25]), ignore_index=4, reduction="sum"),
]


@pytest.mark.parametrize("shape", [(7, 5), (3, 5, 4, 3), (5,)])
@pytest.mark.parametrize("kwargs", NLL_CASES)
def test_nll_loss_forward_and_backward(rng, shape, kwargs):
    x = t64(rng, *shape)
    target = labels(rng, 5, *((shape[:1] + shape[2:]) if len(shape) > 1 else ()))
    out = F.nll_loss(x, target, **kwargs)
    np.testing.assert_allclose(
        out.detach().numpy(),
        ref_nll(x.detach().numpy(), target.detach().numpy(), **kwargs),
        atol=1e-12,
    )
    assert out.shape == (target.shape if kwargs.get("reduction") == "none" else ())
    check_grad(lambda x: F.nll_loss(x, target, **kwargs), x)


def test_nll_loss_mean_divides_by_the_target_weights():
    logp = nb.tensor(np.log(np.array([[0.5, 0.5], [0.25, 0.75], [0.1, 0.9]])))
    target = nb.tensor([0, 1, 1])
    w = np.array([3.0, 1.0])
    expected = -(3 * np.log(0.5) + np.log(0.75) + np.log(0.9)) / (3 + 1 + 1)
    np.testing.assert_allclose(F.nll_loss(logp, target, weight=w).item(), expected)


def test_nll_loss_with_every_target_ignored_is_nan_with_zero_gradient(rng):
    x = t64(rng, 4, 3)
    target = nb.tensor([-100, -100, -100, -100])
    loss = F.nll_loss(x, target)
    assert np.isnan(loss.item())
    loss.backward()
    assert np.all(x.grad.numpy() == 0)
    assert F.nll_loss(x, target, reduction="sum").item() == 0


def test_nll_loss_accepts_numpy_targets_and_weights_and_any_integer_dtype(rng):
    x = t64(rng, 7, 5)
    target = rng.integers(0, 5, 7)
    a = F.nll_loss(x, target, weight=nb.tensor(np.arange(1.0, 6.0)))
    b = F.nll_loss(x, nb.tensor(target.astype(np.int32)), weight=np.arange(1.0, 6.0))
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy())


def test_nll_loss_target_errors(rng):
    x = t64(rng, 7, 5)
    with pytest.raises(DTypeError, match=r"nll_loss: target must hold class indices as integers,"
                                         r" got float64(.|\n)*hint: .*target.long\(\)"):
        F.nll_loss(x, nb.tensor(rng.integers(0, 5, 7).astype(np.float64)))
    with pytest.raises(DimError, match=r"target value 7 at position 3 is out of range for 5 "
                                       r"classes \(valid: 0 to 4\)(.|\n)*min 0   max 7"):
        F.nll_loss(x, nb.tensor([0, 1, 2, 7, 4, 0, 1]))
    with pytest.raises(IndexError, match=r"target value 5 at position 6(.|\n)*labels seem to "
                                         r"count from 1; use target - 1"):
        F.nll_loss(x, nb.tensor([1, 2, 3, 4, 1, 2, 5]))
    with pytest.raises(DimError, match=r"target value -1 at position 0(.|\n)*hint: negative "
                                       r"labels are only allowed as ignore_index \(now -100\)"):
        F.nll_loss(x, nb.tensor([-1, 2, 3, 4, 1, 2, 0]))
    with pytest.raises(ShapeError, match=r"input has 7 samples but target has 6(.|\n)*input "
                                         r"\(7, 5\)   target \(6,\)"):
        F.nll_loss(x, labels(rng, 5, 6))
    with pytest.raises(ShapeError, match=r"expects target of shape \(7,\)(.|\n)*looks one-hot"
                                         r"(.|\n)*target.argmax\(1\)"):
        F.nll_loss(x, labels(rng, 2, 7, 5))
    with pytest.raises(ShapeError, match=r"got \(7, 1\)(.|\n)*target.reshape\(7,\)"):
        F.nll_loss(x, labels(rng, 5, 7, 1))


def test_nll_loss_position_of_a_bad_label_in_a_spatial_target(rng):
    x = t64(rng, 3, 5, 4, 3)
    target = rng.integers(0, 5, (3, 4, 3))
    target[2, 1, 0] = 9
    with pytest.raises(DimError, match=r"target value 9 at position \(2, 1, 0\)(.|\n)*"
                                       r"at least 10 outputs"):
        F.nll_loss(x, target)


def test_nll_loss_argument_errors(rng):
    x = t64(rng, 7, 5)
    target = labels(rng, 5, 7)
    with pytest.raises(ShapeError, match=r"weight must hold one value per class: shape \(5,\),"
                                         r" got \(4,\)"):
        F.nll_loss(x, target, weight=np.ones(4))
    with pytest.raises(InputError, match=r"reduction='avg' is not one of 'none', 'mean', 'sum'"):
        F.nll_loss(x, target, reduction="avg")
    with pytest.raises(InputError, match=r"ignore_index must be an int, got 1.5"):
        F.nll_loss(x, target, ignore_index=1.5)
    with pytest.raises(ShapeError, match=r"got a scalar"):
        F.nll_loss(nb.tensor(1.0), nb.tensor(0))
    with pytest.raises(DTypeError, match=r"expects a floating point input, got int64"):
        F.nll_loss(labels(rng, 5, 7, 5), target)
    with pytest.raises(DTypeError, match=r"F.nll_loss: target must be an nnbook Tensor or a "
                                         r"numpy array, got a list(.|\n)*nb.tensor\(target\)"):
        F.nll_loss(x, [0, 1, 2, 3, 4, 0, 1])
    with pytest.raises(DTypeError, match=r"F.nll_loss: input must be an nnbook Tensor, got a "
                                         r"numpy array of shape \(7, 5\)"):
        F.nll_loss(x.detach().numpy(), target)


def test_nll_loss_legacy_size_average_and_reduce(rng):
    x, target = t64(rng, 7, 5), labels(rng, 5, 7)
    with pytest.warns(UserWarning, match="use reduction='sum'"):
        out = F.nll_loss(x, target, size_average=False)
    np.testing.assert_allclose(
        out.detach().numpy(), F.nll_loss(x, target, reduction="sum").detach().numpy()
    )
    with pytest.warns(UserWarning, match="use reduction='none'"):
        assert F.nll_loss(x, target, reduce=False).shape == (7,)


# ---------------------------------------------------------------------------
# cross_entropy
# ---------------------------------------------------------------------------

CE_CASES = NLL_CASES + [
    dict(label_smoothing=0.1),
    dict(label_smoothing=0.2, reduction="none", ignore_index=3),
    dict(label_smoothing=0.3, weight=np.array([0.5, 2.0, 1.0, 3.0, 0.25]), ignore_index=0),
    dict(label_smoothing=1.0, reduction="sum"),
]


@pytest.mark.parametrize("shape", [(7, 5), (3, 5, 4, 3)])
@pytest.mark.parametrize("kwargs", CE_CASES)
def test_cross_entropy_forward_and_backward(rng, shape, kwargs):
    x = t64(rng, *shape)
    target = labels(rng, 5, *(shape[:1] + shape[2:]))
    out = F.cross_entropy(x, target, **kwargs)
    np.testing.assert_allclose(
        out.detach().numpy(),
        ref_cross_entropy(x.detach().numpy(), target.detach().numpy(), **kwargs),
        atol=1e-12,
    )
    check_grad(lambda x: F.cross_entropy(x, target, **kwargs), x)


def test_cross_entropy_equals_nll_of_log_softmax_and_grad_is_p_minus_onehot(rng):
    x, target = t64(rng, 7, 5), labels(rng, 5, 7)
    fused = F.cross_entropy(x, target, reduction="sum")
    np.testing.assert_allclose(fused.detach().numpy(), F.nll_loss(F.log_softmax(x, 1), target,
                                                      reduction="sum").detach().numpy())
    fused.backward()
    onehot = np.eye(5)[target.detach().numpy()]
    np.testing.assert_allclose(
        x.grad.numpy(), np.exp(ref_log_softmax(x.detach().numpy(), 1)) - onehot, atol=1e-12
    )


def test_cross_entropy_single_sample(rng):
    x, target = t64(rng, 5), nb.tensor(3)
    out = F.cross_entropy(x, target, reduction="none")
    assert out.shape == ()
    np.testing.assert_allclose(out.item(), -ref_log_softmax(x.detach().numpy(), 0)[3])
    check_grad(lambda x: F.cross_entropy(x, target, label_smoothing=0.1), x)


@pytest.mark.parametrize("kwargs", [dict(), dict(reduction="none"), dict(reduction="sum"),
                                    dict(label_smoothing=0.2,
                                         weight=np.array([0.5, 2.0, 1.0, 3.0, 0.25]))])
def test_cross_entropy_with_class_probabilities(rng, kwargs):
    x = t64(rng, 3, 5, 4, 3)
    probs = nb.tensor(np.exp(ref_log_softmax(rng.standard_normal((3, 5, 4, 3)), 1)),
                      requires_grad=True)
    e = kwargs.get("label_smoothing", 0.0)
    w = kwargs.get("weight", np.ones(5)).reshape(1, 5, 1, 1)
    q = (probs.detach().numpy() * (1 - e) + e / 5) * w
    losses = -(q * ref_log_softmax(x.detach().numpy(), 1)).sum(1)
    reduction = kwargs.get("reduction", "mean")
    expected = {"none": losses, "sum": losses.sum(), "mean": losses.mean()}[reduction]
    np.testing.assert_allclose(
        F.cross_entropy(x, probs, **kwargs).detach().numpy(), expected, atol=1e-12
    )
    check_grad(lambda x, probs: F.cross_entropy(x, probs, **kwargs), x, probs)


def test_cross_entropy_errors(rng):
    x, target = t64(rng, 7, 5), labels(rng, 5, 7)
    with pytest.raises(InputError, match=r"label_smoothing=1.5 must be a number between 0.0 "
                                         r"and 1.0"):
        F.cross_entropy(x, target, label_smoothing=1.5)
    with pytest.raises(DTypeError, match=r"cross_entropy: target must hold class indices as "
                                         r"integers, got float32(.|\n)*target.long\(\) \(or, "
                                         r"for class probabilities, a float target of the "
                                         r"input's shape \(7, 5\)\)"):
        F.cross_entropy(x, nb.tensor([0.0, 1, 2, 3, 4, 0, 1]))
    with pytest.raises(InputError, match="ignore_index is not supported with class-probability"):
        F.cross_entropy(x, nb.tensor(np.full((7, 5), 0.2)), ignore_index=0)
    with pytest.raises(DimError, match="target value 5 at position 2"):
        F.cross_entropy(x, nb.tensor([0, 1, 5, 3, 4, 0, 1]))
    with pytest.raises(ShapeError, match="input has 7 samples but target has 8"):
        F.cross_entropy(x, labels(rng, 5, 8))
    with pytest.raises(ShapeError, match=r"expects target of shape \(3, 4\) for input of shape "
                                         r"\(3, 5, 4\), got \(3, 5\)"):
        F.cross_entropy(t64(rng, 3, 5, 4), labels(rng, 5, 3, 5))


# ---------------------------------------------------------------------------
# mse_loss
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(7, 5), (3, 5, 4, 3), ()])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_mse_loss_forward_and_backward(rng, shape, reduction):
    x, target = t64(rng, *shape), t64(rng, *shape)
    sq = (x.detach().numpy() - target.detach().numpy()) ** 2
    expected = {"none": sq, "sum": sq.sum(), "mean": sq.mean()}[reduction]
    np.testing.assert_allclose(
        F.mse_loss(x, target, reduction=reduction).detach().numpy(), expected
    )
    check_grad(lambda x, target: F.mse_loss(x, target, reduction=reduction), x, target)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_weighted_mse_loss(rng, reduction):
    x, target = t64(rng, 7, 5), t64(rng, 7, 5)
    w = nb.tensor(rng.random((7, 5)) + 0.1, requires_grad=True)
    wsq = w.detach().numpy() * (x.detach().numpy() - target.detach().numpy()) ** 2
    expected = {"none": wsq, "sum": wsq.sum(), "mean": wsq.sum() / w.detach().numpy().sum()}[
        reduction
    ]
    np.testing.assert_allclose(
        F.mse_loss(x, target, reduction=reduction, weight=w).detach().numpy(), expected
    )
    check_grad(lambda x, t, w: F.mse_loss(x, t, reduction=reduction, weight=w), x, target, w)


def test_mse_loss_accepts_a_numpy_target(rng):
    x, target = t64(rng, 7, 5), rng.standard_normal((7, 5))
    np.testing.assert_allclose(
        F.mse_loss(x, target).item(), ((x.detach().numpy() - target) ** 2).mean()
    )


def test_mse_loss_refuses_to_broadcast(rng):
    with pytest.raises(ShapeError, match=r"input and target must have the same shape, got "
                                         r"\(7, 1\) and \(7,\); broadcasting would compare "
                                         r"them as \(7, 7\)(.|\n)*input.squeeze\(-1\)"
                                         r"(.|\n)*PyTorch would broadcast"):
        F.mse_loss(t64(rng, 7, 1), t64(rng, 7))
    with pytest.raises(ShapeError, match=r"(.|\n)*target.squeeze\(-1\)"):
        F.mse_loss(t64(rng, 7), t64(rng, 7, 1))
    with pytest.raises(ShapeError, match=r"got \(7, 5\) and \(5, 7\)\.(.|\n)*"
                                         r"target.reshape\(7, 5\) if they line up\.$"):
        F.mse_loss(t64(rng, 7, 5), t64(rng, 5, 7))
    with pytest.raises(ShapeError, match=r"got \(7, 5\) and \(3,\)\.(.|\n)*same elements"):
        F.mse_loss(t64(rng, 7, 5), t64(rng, 3))


def test_mse_loss_other_errors(rng):
    with pytest.raises(DTypeError, match=r"expects a floating point target, got int64"
                                         r"(.|\n)*target.float\(\)"):
        F.mse_loss(t64(rng, 3), nb.tensor([1, 2, 3]))
    with pytest.raises(InputError, match="reduction='max' is not one of"):
        F.mse_loss(t64(rng, 3), t64(rng, 3), reduction="max")
    with pytest.raises(ShapeError, match=r"weight must have the input's shape \(3,\)"):
        F.mse_loss(t64(rng, 3), t64(rng, 3), weight=t64(rng, 1))


# ---------------------------------------------------------------------------
# batch_norm
# ---------------------------------------------------------------------------

BN_SHAPES = [(7, 5), (3, 5, 4), (3, 5, 4, 3)]


def bn_params(rng, channels):
    return (nb.tensor(rng.standard_normal(channels), requires_grad=True),
            nb.tensor(rng.standard_normal(channels), requires_grad=True))


@pytest.mark.parametrize("shape", BN_SHAPES)
def test_batch_norm_training_forward_and_running_stats(rng, shape):
    x = t64(rng, *shape)
    weight, bias = bn_params(rng, shape[1])
    rm, rv = nb.tensor(rng.standard_normal(shape[1])), nb.tensor(rng.random(shape[1]) + 0.5)
    rm0, rv0 = rm.detach().numpy().copy(), rv.detach().numpy().copy()
    out = F.batch_norm(x, rm, rv, weight, bias, training=True, momentum=0.3, eps=1e-3)
    axes = (0,) + tuple(range(2, x.ndim))
    mean, var = x.detach().numpy().mean(axis=axes), x.detach().numpy().var(axis=axes)
    n = x.detach().numpy().size // shape[1]
    np.testing.assert_allclose(
        out.detach().numpy(),
        ref_batch_norm(
            x.detach().numpy(), mean, var, weight.detach().numpy(), bias.detach().numpy(), 1e-3
        ),
        atol=1e-12,
    )
    np.testing.assert_allclose(rm.detach().numpy(), 0.7 * rm0 + 0.3 * mean)
    np.testing.assert_allclose(rv.detach().numpy(), 0.7 * rv0 + 0.3 * var * n / (n - 1))  # unbiased


@pytest.mark.parametrize("shape", BN_SHAPES)
def test_batch_norm_eval_uses_running_stats(rng, shape):
    x = t64(rng, *shape)
    weight, bias = bn_params(rng, shape[1])
    rm, rv = rng.standard_normal(shape[1]), rng.random(shape[1]) + 0.5
    before = rm.copy()
    out = F.batch_norm(x, rm, rv, weight, bias, training=False)
    np.testing.assert_allclose(
        out.detach().numpy(),
        ref_batch_norm(
            x.detach().numpy(), rm, rv, weight.detach().numpy(), bias.detach().numpy(), 1e-5
        ),
    )
    np.testing.assert_array_equal(rm, before)


@pytest.mark.parametrize("shape", BN_SHAPES)
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_backward(rng, shape, training):
    x = t64(rng, *shape)
    weight, bias = bn_params(rng, shape[1])
    rm, rv = rng.standard_normal(shape[1]), rng.random(shape[1]) + 0.5
    check_grad(lambda x, w, b: F.batch_norm(x, rm, rv, w, b, training=training), x, weight, bias)


def test_batch_norm_without_affine_parameters_or_running_stats(rng):
    x = t64(rng, 7, 5)
    out = F.batch_norm(x, None, None, training=True)
    np.testing.assert_allclose(out.detach().numpy().mean(0), 0, atol=1e-12)
    np.testing.assert_allclose(
        out.detach().numpy().var(0), 1 / (1 + 1e-5 / x.detach().numpy().var(0)), rtol=1e-9
    )
    check_grad(lambda x: F.batch_norm(x, None, None, training=True), x)
    weight, bias = bn_params(rng, 5)
    check_grad(lambda x, w: F.batch_norm(x, None, None, w, training=True), x, weight)
    check_grad(lambda x, b: F.batch_norm(x, None, None, bias=b, training=True), x, bias)


def test_batch_norm_cumulative_average_with_num_batches_tracked(rng):
    rm, rv, count = np.zeros(5), np.ones(5), np.array(0)
    batches = [rng.standard_normal((4, 5, 3)) for _ in range(3)]
    for b in batches:
        F.batch_norm_counted(nb.tensor(b), rm, rv, training=True, momentum=None,
                             num_batches_tracked=count)
    assert count == 3
    np.testing.assert_allclose(rm, np.mean([b.mean(axis=(0, 2)) for b in batches], axis=0))
    np.testing.assert_allclose(rv, np.mean([b.var(axis=(0, 2), ddof=1) for b in batches], axis=0))
    F.batch_norm_counted(nb.tensor(batches[0]), rm, rv, training=True, momentum=0.1,
                         num_batches_tracked=count)
    assert count == 4  # counted with a float momentum too, as PyTorch's modules do


def test_batch_norm_errors(rng):
    x = t64(rng, 7, 5)
    rm, rv = nb.zeros(5), nb.ones(5)
    with pytest.raises(ShapeError, match=r"expected more than 1 value per channel when training,"
                                         r" got input of shape \(1, 5\)(.|\n)*model.eval\(\)"):
        F.batch_norm(t64(rng, 1, 5), rm, rv, training=True)
    with pytest.raises(ShapeError, match="more than 1 value per channel"):
        F.batch_norm(t64(rng, 1, 5, 1, 1), None, None, training=True)
    F.batch_norm(t64(rng, 1, 5), rm, rv, training=False)  # one sample is fine in eval mode
    with pytest.raises(InputError, match="evaluation mode needs running_mean and running_var"):
        F.batch_norm(x, None, None, training=False)
    with pytest.raises(ShapeError, match=r"running_mean must hold one value per channel: shape "
                                         r"\(5,\), got \(4,\)(.|\n)*\(5 channels in dimension "
                                         r"1\)(.|\n)*BatchNorm for 5 channels"):
        F.batch_norm(x, nb.zeros(4), nb.ones(4))
    with pytest.raises(ShapeError, match=r"weight must hold one value per channel"):
        F.batch_norm(x, rm, rv, weight=t64(rng, 3))
    with pytest.raises(InputError, match="must be given together"):
        F.batch_norm(x, rm, None, training=True)
    with pytest.raises(InputError, match=r"momentum=None(.|\n)*num_batches_tracked"):
        F.batch_norm(x, rm, rv, training=True, momentum=None)
    with pytest.raises(InputError, match=r"momentum=None \(a cumulative average\) needs the "
                                         r"count of batches seen"):
        apply(BatchNorm(True, None, 1e-5, rm.detach().numpy(), rv.detach().numpy()), x)
    with pytest.raises(ShapeError, match=r"expects input \(N, C\), \(N, C, L\), \(N, C, H, W\) "
                                         r"or \(N, C, D, H, W\), got shape \(5,\)"):
        F.batch_norm(t64(rng, 5), rm, rv)
    with pytest.raises(DTypeError, match="expects a floating point input"):
        F.batch_norm(labels(rng, 3, 7, 5), rm, rv)
    with pytest.raises(InputError, match=r"eps=-1 must be a number >= 0"):
        F.batch_norm(x, rm, rv, eps=-1)


# ---------------------------------------------------------------------------
# dropout
# ---------------------------------------------------------------------------

def test_dropout_scales_the_kept_elements_and_zeroes_about_p():
    x = nb.ones(200, 50, dtype=nb.float64)
    y = F.dropout(x, p=0.3).detach().numpy()
    kept = y != 0
    np.testing.assert_allclose(y[kept], 1 / 0.7)
    assert abs(kept.mean() - 0.7) < 0.02


def test_dropout_is_repeatable_with_manual_seed_and_backward_uses_the_mask(rng):
    x = t64(rng, 7, 5)
    nb.manual_seed(3)
    a = F.dropout(x, 0.4)
    nb.manual_seed(3)
    b = F.dropout(x, 0.4)
    np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    a.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), (a.detach().numpy() != 0) / 0.6)

    def seeded(x):
        nb.manual_seed(7)
        return F.dropout(x, 0.4)
    check_grad(seeded, t64(rng, 3, 5, 4, 3))


def test_dropout_identity_in_eval_and_p_zero_and_zeros_for_p_one(rng):
    x = t64(rng, 7, 5)
    np.testing.assert_array_equal(
        F.dropout(x, 0.5, training=False).detach().numpy(), x.detach().numpy()
    )
    np.testing.assert_array_equal(F.dropout(x, 0.0).detach().numpy(), x.detach().numpy())
    y = F.dropout(x, 1.0)
    assert np.all(y.detach().numpy() == 0)
    y.sum().backward()
    assert np.all(x.grad.numpy() == 0)
    assert F.dropout(nb.ones(3, 4), 0.5).dtype == np.float32


def test_dropout_errors(rng):
    with pytest.raises(InputError, match=r"p=1.5 must be a probability between 0 and 1(.|\n)*"
                                         r"p=0.5 drops half"):
        F.dropout(t64(rng, 3), 1.5)
    with pytest.raises(InputError, match=r"p=-0.1 must be a probability"):
        F.dropout(t64(rng, 3), -0.1, training=False)  # checked in eval mode too, as PyTorch
    with pytest.raises(DTypeError, match="expects a floating point input"):
        F.dropout(nb.tensor([1, 2]), 0.5)


# ---------------------------------------------------------------------------
# The shape rule answers what the forward produces, also without data
# ---------------------------------------------------------------------------

SHAPE_CASES = [
    (lambda: Softmax(1), [(3, 5, 4, 3)]),
    (lambda: LogSoftmax(-1), [(7, 5)]),
    (lambda: NllLoss(reduction="none"), [(3, 5, 4, 3), ((3, 4, 3), np.int64)]),
    (lambda: NllLoss(), [(7, 5), ((7,), np.int64)]),
    (lambda: CrossEntropy(reduction="none"), [(5,), ((), np.int64)]),
    (lambda: CrossEntropy(reduction="none"), [(3, 5, 4), (3, 5, 4)]),
    (lambda: CrossEntropy(reduction="sum"), [(7, 5), ((7,), np.int64)]),
    (lambda: MseLoss("none"), [(7, 5), (7, 5)]),
    (lambda: MseLoss(), [(7, 5), (7, 5), (7, 5)]),
    (lambda: BatchNorm(True, 0.1, 1e-5, np.zeros(5), np.ones(5)), [(3, 5, 4, 3), (5,), (5,)]),
    (lambda: BatchNorm(False, 0.1, 1e-5, np.zeros(5), np.ones(5)), [(7, 5)]),
    (lambda: Dropout(np.random.default_rng(0), 0.5), [(3, 5, 4, 3)]),
]


@pytest.mark.parametrize("make,specs", SHAPE_CASES)
def test_shape_rule_matches_forward(rng, make, specs):
    specs = [s if isinstance(s[-1], type) else (s, np.float64) for s in specs]
    inferred = make().infer(*[Spec(shape, dtype) for shape, dtype in specs])
    tensors = [nb.tensor(rng.integers(0, 3, shape)) if np.dtype(dtype).kind == "i"
               else nb.tensor(rng.random(shape) + 0.1) for shape, dtype in specs]
    assert apply(make(), *tensors).shape == inferred


def test_shape_rule_reports_errors_without_data():
    with pytest.raises(ShapeError, match="input has 7 samples but target has 6"):
        CrossEntropy().infer(Spec((7, 5)), Spec((6,), np.int64))
    with pytest.raises(ShapeError, match="more than 1 value per channel"):
        BatchNorm(True).infer(Spec((1, 5)))


# ---------------------------------------------------------------------------
# The rest of nnbook.nn.functional
# ---------------------------------------------------------------------------

def test_linear_and_activations(rng):
    x, w, b = t64(rng, 7, 5), t64(rng, 3, 5), t64(rng, 3)
    np.testing.assert_allclose(
        F.linear(x, w, b).detach().numpy(),
        x.detach().numpy() @ w.detach().numpy().T + b.detach().numpy(),
    )
    np.testing.assert_allclose(
        F.linear(x, w).detach().numpy(), x.detach().numpy() @ w.detach().numpy().T
    )
    check_grad(lambda x, w, b: F.linear(x, w, b), x, w, b)
    np.testing.assert_allclose(F.relu(x).detach().numpy(), np.maximum(x.detach().numpy(), 0))
    np.testing.assert_allclose(
        F.relu(x, inplace=True).detach().numpy(), np.maximum(x.detach().numpy(), 0)
    )
    np.testing.assert_allclose(F.sigmoid(x).detach().numpy(), 1 / (1 + np.exp(-x.detach().numpy())))
    np.testing.assert_allclose(F.tanh(x).detach().numpy(), np.tanh(x.detach().numpy()))


def test_functions_refuse_non_tensor_inputs(rng):
    with pytest.raises(DTypeError, match=r"F.relu: input must be an nnbook Tensor, got a "
                                         r"numpy array of shape \(3,\)(.|\n)*nb.tensor\(input\)"):
        F.relu(np.ones(3))
    with pytest.raises(TypeError, match=r"F.linear: weight must be an nnbook Tensor, got a list"):
        F.linear(t64(rng, 2, 3), [[1.0, 2.0, 3.0]])


@pytest.mark.parametrize("pad,value", [((1, 2), 0.0), ((2, 1, 0, 3), -1.5),
                                       ((1, 1, 1, 1, 1, 1), 2)])
def test_constant_pad(rng, pad, value):
    x = t64(rng, 3, 5, 4, 3)
    widths = [(0, 0)] * 4
    for i in range(len(pad) // 2):
        widths[3 - i] = (pad[2 * i], pad[2 * i + 1])
    np.testing.assert_allclose(F.pad(x, pad, value=value).detach().numpy(),
                               np.pad(x.detach().numpy(), widths, constant_values=value))
    check_grad(lambda x: F.pad(x, pad, value=value), x)


@pytest.mark.parametrize("mode,np_mode", [("reflect", "reflect"), ("replicate", "edge"),
                                          ("circular", "wrap")])
@pytest.mark.parametrize("shape,pad", [((3, 5, 4, 3), (2, 1, 0, 3)), ((3, 5, 4), (3, 2)),
                                       ((5, 4, 3), (1, 2, 2, 1))])
def test_non_constant_pad(rng, mode, np_mode, shape, pad):
    x = t64(rng, *shape)
    widths = [(0, 0)] * len(shape)
    for i in range(len(pad) // 2):
        widths[len(shape) - 1 - i] = (pad[2 * i], pad[2 * i + 1])
    np.testing.assert_allclose(
        F.pad(x, pad, mode=mode).detach().numpy(), np.pad(x.detach().numpy(), widths, np_mode)
    )
    check_grad(lambda x: F.pad(x, pad, mode=mode), x)


def test_pad_errors(rng):
    x = t64(rng, 3, 5, 4, 3)
    with pytest.raises(InputError, match=r"mode='reflect' needs padding smaller than the "
                                         r"dimension: got \(3, 0\) for a dimension of size 3"):
        F.pad(x, (3, 0, 1, 1), mode="reflect")
    with pytest.raises(InputError, match=r"mode='symmetric' is not one of"):
        F.pad(x, (1, 1), mode="symmetric")
    with pytest.raises(InputError, match=r"pad=\(1, 1\) needs a 2-D or 3-D input, got 4-D"):
        F.pad(x, (1, 1), mode="replicate")
    with pytest.raises(InputError, match=r"pad must be a tuple of ints, got 1"):
        F.pad(x, 1)
    with pytest.raises(InputError, match="value=1 only applies to mode='constant'"):
        F.pad(x, (1, 1, 1, 1), mode="replicate", value=1)


def test_conv2d_same_padding_keeps_the_size(rng):
    pytest.importorskip("nnbook.ops.conv")
    x, w = t64(rng, 2, 3, 7, 5), t64(rng, 4, 3, 4, 3)  # even kernel height: one more at the end
    assert F.conv2d(x, w, padding="same").shape == (2, 4, 7, 5)
    assert F.conv2d(x, w, padding="valid").shape == (2, 4, 4, 3)
    with pytest.raises(InputError, match="padding='same' needs stride 1"):
        F.conv2d(x, w, stride=2, padding="same")


def test_functional_names_follow_pytorch():
    assert set(F.__all__) >= {"linear", "conv2d", "max_pool2d", "avg_pool2d",
                              "adaptive_avg_pool2d", "batch_norm", "relu", "sigmoid", "tanh",
                              "softmax", "log_softmax", "nll_loss", "cross_entropy", "mse_loss",
                              "dropout", "pad"}
    import inspect
    assert list(inspect.signature(F.cross_entropy).parameters) == [
        "input", "target", "weight", "size_average", "ignore_index", "reduce", "reduction",
        "label_smoothing"]
    assert list(inspect.signature(F.batch_norm).parameters) == [
        "input", "running_mean", "running_var", "weight", "bias", "training", "momentum", "eps"]

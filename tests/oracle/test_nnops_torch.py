"""nnbook.nn.functional against torch.nn.functional: values and gradients, random configurations."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
TF = torch.nn.functional

import nnbook as nb  # noqa: E402
import nnbook.nn.functional as F  # noqa: E402

SEEDS = range(12)


def pair(array, requires_grad=True):
    """The same float64 data as an nnbook tensor and a torch tensor."""
    return (nb.tensor(array, requires_grad=requires_grad),
            torch.tensor(array, requires_grad=requires_grad))


def close(ours, theirs, atol=1e-10):
    theirs = theirs.detach().numpy() if isinstance(theirs, torch.Tensor) else theirs
    ours = ours.detach().numpy() if isinstance(ours, nb.Tensor) else ours
    np.testing.assert_allclose(ours, theirs, rtol=1e-7, atol=atol)


def random_scores(rng):
    """(N, C), (N, C, L) or (N, C, H, W) with odd sizes, and class count C."""
    n, classes = int(rng.integers(1, 8)), int(rng.integers(2, 7))
    spatial = [tuple(), (int(rng.integers(1, 6)),),
               (int(rng.integers(1, 5)), int(rng.integers(1, 5)))][int(rng.integers(0, 3))]
    return (n, classes) + spatial, classes


def backward_both(ours, theirs, rng):
    g = rng.standard_normal(tuple(theirs.shape))
    ours.backward(nb.tensor(g))
    theirs.backward(torch.tensor(g))


# ---------------------------------------------------------------------------
# softmax / log_softmax
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
def test_softmax_and_log_softmax_match_torch(seed):
    rng = np.random.default_rng(seed)
    shape, _ = random_scores(rng)
    dim = int(rng.integers(-len(shape), len(shape)))
    data = rng.standard_normal(shape) * 5
    for ours_fn, torch_fn in ((F.softmax, TF.softmax), (F.log_softmax, TF.log_softmax)):
        (x, xt) = pair(data)
        y, yt = ours_fn(x, dim), torch_fn(xt, dim)
        close(y, yt)
        backward_both(y, yt, rng)
        close(x.grad, xt.grad)


# ---------------------------------------------------------------------------
# nll_loss / cross_entropy
# ---------------------------------------------------------------------------

def random_class_config(rng):
    shape, classes = random_scores(rng)
    target = rng.integers(0, classes, (shape[0],) + shape[2:])
    ignore_index = -100
    if rng.random() < 0.5:  # ignore one class that does occur
        ignore_index = int(target.flat[int(rng.integers(0, target.size))])
    weight = rng.random(classes) + 0.1 if rng.random() < 0.6 else None
    reduction = ["mean", "sum", "none"][int(rng.integers(0, 3))]
    return shape, classes, target, weight, ignore_index, reduction


@pytest.mark.parametrize("seed", SEEDS)
def test_nll_loss_matches_torch(seed):
    rng = np.random.default_rng(seed)
    shape, classes, target, weight, ignore_index, reduction = random_class_config(rng)
    x, xt = pair(rng.standard_normal(shape))
    kwargs = dict(ignore_index=ignore_index, reduction=reduction)
    y = F.nll_loss(x, nb.tensor(target), weight=weight, **kwargs)
    yt = TF.nll_loss(xt, torch.tensor(target),
                     weight=None if weight is None else torch.tensor(weight), **kwargs)
    close(y, yt)
    backward_both(y, yt, rng)
    close(x.grad, xt.grad)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("label_smoothing", [0.0, 0.15])
def test_cross_entropy_matches_torch(seed, label_smoothing):
    rng = np.random.default_rng(seed)
    shape, classes, target, weight, ignore_index, reduction = random_class_config(rng)
    x, xt = pair(rng.standard_normal(shape) * 3)
    kwargs = dict(ignore_index=ignore_index, reduction=reduction, label_smoothing=label_smoothing)
    y = F.cross_entropy(x, nb.tensor(target), weight=weight, **kwargs)
    yt = TF.cross_entropy(xt, torch.tensor(target),
                          weight=None if weight is None else torch.tensor(weight), **kwargs)
    close(y, yt)
    backward_both(y, yt, rng)
    close(x.grad, xt.grad)


@pytest.mark.parametrize("seed", SEEDS)
def test_cross_entropy_with_probability_targets_matches_torch(seed):
    rng = np.random.default_rng(seed)
    shape, classes = random_scores(rng)
    probs = rng.random(shape)
    probs /= probs.sum(axis=1, keepdims=True)
    x, xt = pair(rng.standard_normal(shape))
    p, pt = pair(probs)
    weight = rng.random(classes) + 0.1 if seed % 2 else None
    kwargs = dict(reduction=["mean", "sum", "none"][seed % 3], label_smoothing=0.1 * (seed % 4))
    y = F.cross_entropy(x, p, weight=weight, **kwargs)
    yt = TF.cross_entropy(xt, pt, weight=None if weight is None else torch.tensor(weight),
                          **kwargs)
    close(y, yt)
    backward_both(y, yt, rng)
    close(x.grad, xt.grad)
    close(p.grad, pt.grad)


def test_single_sample_and_all_ignored_match_torch():
    rng = np.random.default_rng(0)
    x, xt = pair(rng.standard_normal(6))
    y, yt = F.cross_entropy(x, nb.tensor(4)), TF.cross_entropy(xt, torch.tensor(4))
    close(y, yt)
    y.backward()
    yt.backward()
    close(x.grad, xt.grad)
    x, xt = pair(rng.standard_normal((4, 3)))
    target = np.full(4, 2)
    for fn, tfn in ((F.nll_loss, TF.nll_loss), (F.cross_entropy, TF.cross_entropy)):
        x.grad, xt.grad = None, None
        y, yt = fn(x, nb.tensor(target), ignore_index=2), tfn(xt, torch.tensor(target),
                                                              ignore_index=2)
        assert np.isnan(y.item()) and np.isnan(yt.item())
        y.backward()
        yt.backward()
        close(x.grad, xt.grad)


def test_float32_losses_stay_float32_and_match_torch():
    rng = np.random.default_rng(5)
    data, target = rng.standard_normal((9, 7)).astype(np.float32), rng.integers(0, 7, 9)
    y = F.cross_entropy(nb.tensor(data), nb.tensor(target), label_smoothing=0.1)
    assert y.dtype == np.float32
    close(y, TF.cross_entropy(torch.tensor(data), torch.tensor(target), label_smoothing=0.1),
          atol=1e-6)


# ---------------------------------------------------------------------------
# mse_loss
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
def test_mse_loss_matches_torch(seed):
    rng = np.random.default_rng(seed)
    shape, _ = random_scores(rng)
    x, xt = pair(rng.standard_normal(shape))
    t, tt = pair(rng.standard_normal(shape))
    reduction = ["mean", "sum", "none"][seed % 3]
    if seed % 2:
        w, wt = pair(rng.random(shape) + 0.1)
        y = F.mse_loss(x, t, reduction=reduction, weight=w)
        yt = TF.mse_loss(xt, tt, reduction=reduction, weight=wt)
    else:
        y, yt = F.mse_loss(x, t, reduction=reduction), TF.mse_loss(xt, tt, reduction=reduction)
    close(y, yt)
    backward_both(y, yt, rng)
    close(x.grad, xt.grad)
    close(t.grad, tt.grad)
    if seed % 2:
        close(w.grad, wt.grad)


# ---------------------------------------------------------------------------
# batch_norm
# ---------------------------------------------------------------------------

BN_SHAPES = [(7, 5), (3, 5, 4), (3, 5, 4, 3), (2, 3, 1, 1)]


@pytest.mark.parametrize("shape", BN_SHAPES)
@pytest.mark.parametrize("momentum", [0.1, 0.35])
def test_batch_norm_running_stats_and_eval_match_torch(shape, momentum):
    rng = np.random.default_rng(sum(shape))
    channels = shape[1]
    rm, rv = nb.zeros(channels, dtype=nb.float64), nb.ones(channels, dtype=nb.float64)
    rmt, rvt = torch.zeros(channels, dtype=torch.float64), torch.ones(channels, dtype=torch.float64)
    w, wt = pair(rng.standard_normal(channels))
    b, bt = pair(rng.standard_normal(channels))
    for _step in range(4):  # training steps: outputs, gradients and running statistics
        x, xt = pair(rng.standard_normal(shape) * 2 + 1)
        w.grad = b.grad = wt.grad = bt.grad = None
        y = F.batch_norm(x, rm, rv, w, b, training=True, momentum=momentum, eps=1e-4)
        yt = TF.batch_norm(xt, rmt, rvt, wt, bt, training=True, momentum=momentum, eps=1e-4)
        close(y, yt)
        backward_both(y, yt, rng)
        close(x.grad, xt.grad)
        close(w.grad, wt.grad)
        close(b.grad, bt.grad)
        close(rm, rmt)
        close(rv, rvt)
    x, xt = pair(rng.standard_normal(shape))
    w.grad = b.grad = wt.grad = bt.grad = None
    y = F.batch_norm(x, rm, rv, w, b, training=False, eps=1e-4)
    yt = TF.batch_norm(xt, rmt, rvt, wt, bt, training=False, eps=1e-4)
    close(y, yt)
    backward_both(y, yt, rng)
    close(x.grad, xt.grad)
    close(w.grad, wt.grad)
    close(b.grad, bt.grad)


def test_batch_norm_cumulative_average_matches_torch_module():
    rng = np.random.default_rng(3)
    module = torch.nn.BatchNorm2d(5, momentum=None).double()
    rm, rv, count = np.zeros(5), np.ones(5), np.array(0, dtype=np.int64)
    for _ in range(5):
        data = rng.standard_normal((3, 5, 4, 3))
        y = F.batch_norm_counted(nb.tensor(data), rm, rv, training=True, momentum=None,
                                 num_batches_tracked=count)
        yt = module(torch.tensor(data))
        close(y, yt)
    close(rm, module.running_mean)
    close(rv, module.running_var)
    assert int(count) == int(module.num_batches_tracked)


def test_batch_norm_without_parameters_or_running_stats_matches_torch():
    rng = np.random.default_rng(4)
    x, xt = pair(rng.standard_normal((6, 3, 5)))
    b, bt = pair(rng.standard_normal(3))
    y = F.batch_norm(x, None, None, bias=b, training=True)
    yt = TF.batch_norm(xt, None, None, bias=bt, training=True)
    close(y, yt)
    backward_both(y, yt, rng)
    close(x.grad, xt.grad)
    close(b.grad, bt.grad)


# ---------------------------------------------------------------------------
# dropout and pad
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("p", [0.0, 0.25, 0.8, 1.0])
def test_dropout_follows_torch_scaling(p):
    data = np.random.default_rng(0).random((40, 30)) + 0.5
    y = F.dropout(nb.tensor(data), p).detach().numpy()
    yt = TF.dropout(torch.tensor(data), p).numpy()
    for out in (y, yt):  # every element is 0 or x / (1 - p), in both libraries
        kept = out != 0
        if p < 1:
            np.testing.assert_allclose(out[kept], data[kept] / (1 - p))
        else:
            assert not kept.any()
    np.testing.assert_array_equal(F.dropout(nb.tensor(data), p, training=False).detach().numpy(),
                                  TF.dropout(torch.tensor(data), p, training=False).numpy())


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
@pytest.mark.parametrize("shape,pad", [((2, 3, 5, 4), (1, 2, 3, 0)), ((2, 3, 5), (2, 3)),
                                       ((3, 5, 4), (0, 2, 1, 1))])
def test_pad_matches_torch(mode, shape, pad):
    rng = np.random.default_rng(len(shape))
    x, xt = pair(rng.standard_normal(shape))
    y, yt = F.pad(x, pad, mode=mode), TF.pad(xt, pad, mode=mode)
    close(y, yt)
    backward_both(y, yt, rng)
    close(x.grad, xt.grad)


def test_linear_matches_torch():
    rng = np.random.default_rng(2)
    x, xt = pair(rng.standard_normal((3, 7, 5)))
    w, wt = pair(rng.standard_normal((4, 5)))
    b, bt = pair(rng.standard_normal(4))
    y, yt = F.linear(x, w, b), TF.linear(xt, wt, bt)
    close(y, yt)
    backward_both(y, yt, rng)
    for ours, theirs in ((x, xt), (w, wt), (b, bt)):
        close(ours.grad, theirs.grad)


# ---------------------------------------------------------------------------
# Wrappers over the convolution and pooling ops (skipped until those exist)
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs,kernel", [
    (dict(stride=2, padding=1), (3, 2)),
    (dict(padding="same", dilation=(2, 1)), (4, 3)),
    (dict(padding="same"), (4, 2)),  # odd total padding: one more at the bottom and right
    (dict(groups=3, padding=(1, 0)), (3, 3)),
])
@pytest.mark.filterwarnings("ignore:Using padding='same' with even kernel lengths:UserWarning")
def test_conv2d_wrapper_matches_torch(kwargs, kernel):
    pytest.importorskip("nnbook.ops.conv")
    rng = np.random.default_rng(1)
    groups = kwargs.get("groups", 1)
    x, xt = pair(rng.standard_normal((2, 6, 9, 7)))
    w, wt = pair(rng.standard_normal((6, 6 // groups) + kernel))
    b, bt = pair(rng.standard_normal(6))
    y, yt = F.conv2d(x, w, b, **kwargs), TF.conv2d(xt, wt, bt, **kwargs)
    close(y, yt)
    backward_both(y, yt, rng)
    for ours, theirs in ((x, xt), (w, wt), (b, bt)):
        close(ours.grad, theirs.grad)


@pytest.mark.parametrize("name,kwargs", [
    ("max_pool2d", dict(kernel_size=3, stride=2, padding=1)),
    ("max_pool2d", dict(kernel_size=(2, 3), ceil_mode=True)),
    ("avg_pool2d", dict(kernel_size=3, stride=(2, 1), padding=1, count_include_pad=False)),
    ("avg_pool2d", dict(kernel_size=2)),
    ("adaptive_avg_pool2d", dict(output_size=(3, None))),
    ("adaptive_avg_pool2d", dict(output_size=2)),
])
def test_pool_wrappers_match_torch(name, kwargs):
    pytest.importorskip("nnbook.ops.pool")
    rng = np.random.default_rng(2)
    x, xt = pair(rng.standard_normal((2, 3, 9, 7)))
    y, yt = getattr(F, name)(x, **kwargs), getattr(TF, name)(xt, **kwargs)
    close(y, yt)
    backward_both(y, yt, rng)
    close(x.grad, xt.grad)

"""nn.Unfold/Fold, nn.InstanceNorm1d/2d, the padding layers and nn.PixelShuffle/Unshuffle
(and their functions) against PyTorch in float64 on odd, non-square shapes: outputs, every
gradient, state_dict keys and buffers, reprs.  (The oracle: required in CI, skipped
without torch locally.)"""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
tF = torch.nn.functional

from like_pytorch import agree, both, outcome, same_failure  # noqa: E402

import nnbook as nb  # noqa: E402
from nnbook import nn  # noqa: E402
from nnbook.errors import InputError, NnbookError  # noqa: E402
from nnbook.nn import functional as F  # noqa: E402


def same_layer(ours, theirs):
    """Same repr and state_dict keys; PyTorch's layer gets our weights."""
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    theirs.load_state_dict({k: torch.tensor(v.numpy()) for k, v in ours.state_dict().items()})


FOLD_CASES = [
    dict(kernel_size=(3, 2), stride=(2, 1)),
    dict(kernel_size=(3, 2), dilation=(1, 2), padding=(2, 1), stride=(2, 1)),
    dict(kernel_size=2, stride=2),
    dict(kernel_size=(1, 3), padding=1),
]


@pytest.mark.parametrize("kw", FOLD_CASES)
@pytest.mark.parametrize("batched", [True, False])
def test_unfold_and_fold_like_pytorch(rng, kw, batched):
    shape = (2, 3, 7, 5) if batched else (3, 7, 5)
    (x,), (xt,) = both(rng, shape)
    ours, theirs = nn.Unfold(**kw), torch.nn.Unfold(**kw)
    same_layer(ours, theirs)
    agree(ours(x), theirs(xt), rng, [x], [xt])
    cols_shape = tuple(theirs(xt).shape)
    (c,), (ct,) = both(rng, cols_shape)
    ours, theirs = nn.Fold((7, 5), **kw), torch.nn.Fold((7, 5), **kw)
    same_layer(ours, theirs)
    agree(ours(c), theirs(ct), rng, [c], [ct])


NORM_CASES = [  # (layer, input shape, keyword arguments)
    ("InstanceNorm1d", (2, 3, 7), {}),
    ("InstanceNorm1d", (3, 5), dict(affine=True)),
    ("InstanceNorm2d", (2, 3, 7, 5), dict(affine=True, track_running_stats=True)),
    ("InstanceNorm2d", (3, 7, 5), dict(track_running_stats=True, momentum=0.3)),
    ("InstanceNorm2d", (2, 3, 5, 4), dict(affine=True, bias=False, eps=1e-3)),
    ("InstanceNorm1d", (2, 3, 9), dict(track_running_stats=True, momentum=None)),
]


@pytest.mark.parametrize("name,shape,kw", NORM_CASES)
def test_instance_norm_layers_like_pytorch(rng, name, shape, kw):
    ours = getattr(nn, name)(3, dtype=nb.float64, **kw)
    theirs = getattr(torch.nn, name)(3, dtype=torch.float64, **kw)
    if ours.weight is not None:  # weights other than 1 and 0, loaded across
        ours.weight.data[...] = rng.standard_normal(3)
        if ours.bias is not None:
            ours.bias.data[...] = rng.standard_normal(3)
    same_layer(ours, theirs)
    params = [p for p in (ours.weight, ours.bias) if p is not None]
    tparams = [p for p in (theirs.weight, theirs.bias) if p is not None]
    for _ in range(2):  # two training steps move the running statistics twice
        (x,), (xt,) = both(rng, shape)
        for p, tp in zip(params, tparams):
            p.grad, tp.grad = None, None
        agree(ours(x), theirs(xt), rng, [x, *params], [xt, *tparams])
    for key, value in theirs.state_dict().items():
        np.testing.assert_allclose(ours.state_dict()[key].numpy(), value.numpy(),
                                   rtol=1e-12, atol=1e-14, err_msg=key)
    ours.eval()
    theirs.eval()
    (x,), (xt,) = both(rng, shape)
    agree(ours(x), theirs(xt), rng, [x], [xt])


@pytest.mark.parametrize("use_input_stats", [True, False])
def test_instance_norm_function_like_pytorch(rng, use_input_stats):
    (x, w, b), (xt, wt, bt) = both(rng, (2, 3, 5, 4), (3,), (3,))
    mean, var = rng.standard_normal(3), rng.random(3) + 0.5
    rm, rv = nb.tensor(mean.copy()), nb.tensor(var.copy())
    rmt, rvt = torch.tensor(mean.copy()), torch.tensor(var.copy())
    agree(F.instance_norm(x, rm, rv, w, b, use_input_stats, 0.2, 1e-4),
          tF.instance_norm(xt, rmt, rvt, wt, bt, use_input_stats, 0.2, 1e-4),
          rng, [x, w, b], [xt, wt, bt])
    np.testing.assert_allclose(rm.numpy(), rmt.numpy(), rtol=1e-12)
    np.testing.assert_allclose(rv.numpy(), rvt.numpy(), rtol=1e-12)


def test_instance_norm_of_one_position_fails_like_pytorch():
    with pytest.raises(NnbookError, match="more than 1 position per channel"):
        nn.InstanceNorm1d(3)(nb.randn(2, 3, 1))
    with pytest.raises(ValueError):
        torch.nn.InstanceNorm1d(3)(torch.randn(2, 3, 1))


PAD_LAYERS = [  # (name, padding, extra arguments, input shapes PyTorch takes)
    ("ZeroPad1d", 2, (), [(9,), (3, 9), (2, 3, 9)]),
    ("ZeroPad2d", (1, 2, -1, 3), (), [(7, 5), (3, 7, 5), (2, 3, 7, 5)]),
    ("ConstantPad1d", (3, -2), (1.5,), [(3, 9), (2, 2, 3, 9)]),
    ("ConstantPad2d", 2, (-0.5,), [(2, 3, 7, 5)]),
    ("ReflectionPad1d", (3, 1), (), [(3, 9), (2, 3, 9)]),
    ("ReflectionPad2d", (1, 3, 2, -1), (), [(3, 7, 5), (2, 3, 7, 5)]),
    ("ReplicationPad1d", (4, 0), (), [(3, 9), (2, 3, 9)]),
    ("ReplicationPad2d", 3, (), [(3, 7, 5), (2, 3, 7, 5)]),
    ("CircularPad1d", (2, 5), (), [(3, 9), (2, 3, 9)]),
    ("CircularPad1d", (-3, 2), (), [(3, 9)]),  # a negative padding crops, then wraps
    ("ReflectionPad1d", (-2, 4), (), [(2, 3, 9)]),
    ("CircularPad2d", (1, -2, 4, 2), (), [(3, 7, 5), (2, 3, 7, 5)]),
]


@pytest.mark.parametrize("name,padding,extra,shapes", PAD_LAYERS)
def test_padding_layers_like_pytorch(rng, name, padding, extra, shapes):
    ours = getattr(nn, name)(padding, *extra)
    theirs = getattr(torch.nn, name)(padding, *extra)
    same_layer(ours, theirs)
    assert ours.padding == theirs.padding
    for shape in shapes:
        (x,), (xt,) = both(rng, shape)
        agree(ours(x), theirs(xt), rng, [x], [xt])


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("pad", [(3, -2), (5, -2), (-2, 3), (-2, 4), (4, 0), (5, 0), (6, 0),
                                 (-1, -1), (-3, -2), (-5, 1)])
def test_negative_and_wide_paddings_of_each_mode_like_pytorch(rng, mode, pad):
    x = rng.standard_normal((2, 3, 5))
    ours, nb_error = outcome(lambda: F.pad(nb.tensor(x), pad, mode))
    left = 5 - max(-pad[0], 0) - max(-pad[1], 0)  # what cropping leaves
    if mode == "circular" and sum(pad) > -5 and max(pad) > left:
        # PyTorch wraps more than what is left: memory it never wrote (nnbook/compat.py)
        assert isinstance(nb_error, InputError), nb_error
        return
    theirs, torch_error = outcome(lambda: tF.pad(torch.tensor(x), pad, mode))
    if not same_failure(nb_error, torch_error, f"{mode} {pad}"):
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("name", ["ReflectionPad2d", "ReplicationPad1d", "CircularPad2d"])
def test_padding_layers_refuse_what_pytorch_refuses(name):
    shape = (2, 2, 3, 7, 5) if name.endswith("2d") else (2, 2, 3, 9)
    with pytest.raises(NnbookError):
        getattr(nn, name)(1)(nb.randn(*shape))
    with pytest.raises((NotImplementedError, ValueError, RuntimeError)):
        getattr(torch.nn, name)(1)(torch.randn(*shape))


@pytest.mark.parametrize("shape,r", [((2, 12, 3, 5), 2), ((18, 4, 3), 3), ((2, 2, 8, 7, 5), 2)])
def test_pixel_shuffle_and_unshuffle_like_pytorch(rng, shape, r):
    ours, theirs = nn.PixelShuffle(r), torch.nn.PixelShuffle(r)
    same_layer(ours, theirs)
    (x,), (xt,) = both(rng, shape)
    agree(ours(x), theirs(xt), rng, [x], [xt])
    up = tuple(theirs(xt).shape)
    ours, theirs = nn.PixelUnshuffle(r), torch.nn.PixelUnshuffle(r)
    same_layer(ours, theirs)
    (y,), (yt,) = both(rng, up)
    agree(ours(y), theirs(yt), rng, [y], [yt])
    np.testing.assert_array_equal(F.pixel_unshuffle(F.pixel_shuffle(x, r), r).detach().numpy(),
                                  x.detach().numpy())

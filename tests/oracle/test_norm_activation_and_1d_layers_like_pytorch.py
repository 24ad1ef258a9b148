"""nn.RMSNorm, nn.GLU, nn.Hardshrink/Softshrink, nn.LocalResponseNorm, nn.Softmax2d,
nn.AdaptiveAvgPool1d/AdaptiveMaxPool1d and nn.ConvTranspose1d (and their functions) against
PyTorch in float64 on odd shapes: outputs, every gradient, state_dict keys with weights
loaded across, reprs.  (The oracle: required in CI, skipped without torch locally.)"""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

from like_pytorch import agree, both  # noqa: E402

tF = torch.nn.functional

import nnbook as nb  # noqa: E402
from nnbook import nn  # noqa: E402
from nnbook.errors import NnbookError  # noqa: E402
from nnbook.nn import functional as F  # noqa: E402


def same_layer(ours, theirs, rng=None):
    """Same repr and state_dict keys; our weights (random ones, with ``rng``) go across."""
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    if rng is not None:
        for p in ours.parameters():
            p.data[...] = rng.standard_normal(p.shape)
    theirs.load_state_dict({k: torch.tensor(v.numpy()) for k, v in ours.state_dict().items()})


@pytest.mark.parametrize("normalized_shape,shape,kw", [
    (5, (3, 7, 5), {}),
    ((7, 5), (3, 7, 5), dict(eps=1e-3)),
    ([5], (2, 3, 5), dict(elementwise_affine=False)),
])
def test_rms_norm_layer_like_pytorch(rng, normalized_shape, shape, kw):
    ours = nn.RMSNorm(normalized_shape, dtype=nb.float64, **kw)
    theirs = torch.nn.RMSNorm(normalized_shape, dtype=torch.float64, **kw)
    same_layer(ours, theirs, rng)
    (x,), (xt,) = both(rng, shape)
    agree(ours(x), theirs(xt), rng, [x, *ours.parameters()], [xt, *theirs.parameters()])


def test_rms_norm_takes_the_dtypes_epsilon_like_pytorch(rng):
    # tiny values, where eps decides the result: float32's epsilon, not float64's
    x = rng.standard_normal((3, 4)).astype(np.float32) * 1e-4
    ours = F.rms_norm(nb.tensor(x), (4,)).numpy()
    theirs = tF.rms_norm(torch.tensor(x), (4,)).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-5)
    assert not np.allclose(ours, F.rms_norm(nb.tensor(x), (4,), eps=0.0).numpy(), rtol=1e-3)


@pytest.mark.parametrize("dim,shape", [(-1, (3, 7, 6)), (1, (3, 4, 5)), (0, (8,))])
def test_glu_like_pytorch(rng, dim, shape):
    ours, theirs = nn.GLU(dim), torch.nn.GLU(dim)
    same_layer(ours, theirs)
    (x,), (xt,) = both(rng, shape)
    agree(ours(x), theirs(xt), rng, [x], [xt])


def test_glu_of_an_odd_dimension_is_refused_like_pytorch():
    with pytest.raises(NnbookError, match="expects dimension 1 to have an even size"):
        F.glu(nb.randn(3, 5), 1)
    with pytest.raises(RuntimeError):
        tF.glu(torch.randn(3, 5), 1)


@pytest.mark.parametrize("name", ["Hardshrink", "Softshrink"])
@pytest.mark.parametrize("lambd", [0.5, 0.25, 0.0])
def test_shrinks_like_pytorch_also_at_the_kinks(rng, name, lambd):
    ours, theirs = getattr(nn, name)(lambd), getattr(torch.nn, name)(lambd)
    same_layer(ours, theirs)
    values = np.concatenate([rng.standard_normal(31), [lambd, -lambd, 0.0]])
    x, xt = nb.tensor(values, requires_grad=True), torch.tensor(values, requires_grad=True)
    agree(ours(x), theirs(xt), rng, [x], [xt])


@pytest.mark.parametrize("size,shape,kw", [
    (3, (2, 7, 5), {}),
    (4, (2, 7, 5, 3), dict(alpha=0.3, beta=0.6, k=2.0)),
    (1, (2, 5, 3, 4), dict(alpha=1.0)),
    (6, (1, 4, 2, 3, 2), dict(beta=1.5)),
])
def test_local_response_norm_like_pytorch(rng, size, shape, kw):
    ours, theirs = nn.LocalResponseNorm(size, **kw), torch.nn.LocalResponseNorm(size, **kw)
    same_layer(ours, theirs)
    (x,), (xt,) = both(rng, shape)
    agree(ours(x), theirs(xt), rng, [x], [xt])


@pytest.mark.parametrize("shape", [(2, 5, 3, 4), (5, 3, 4)])
def test_softmax2d_like_pytorch(rng, shape):
    ours, theirs = nn.Softmax2d(), torch.nn.Softmax2d()
    same_layer(ours, theirs)
    (x,), (xt,) = both(rng, shape)
    agree(ours(x), theirs(xt), rng, [x], [xt])
    with pytest.raises(NnbookError, match="expects a 3-D input"):
        ours(nb.randn(3, 4))


@pytest.mark.parametrize("out,shape", [(4, (2, 3, 9)), (5, (3, 7)), (1, (2, 3, 5)), (7, (2, 2, 7))])
def test_adaptive_pools_1d_like_pytorch(rng, out, shape):
    ours, theirs = nn.AdaptiveAvgPool1d(out), torch.nn.AdaptiveAvgPool1d(out)
    same_layer(ours, theirs)
    (x,), (xt,) = both(rng, shape)
    agree(ours(x), theirs(xt), rng, [x], [xt])
    ours, theirs = nn.AdaptiveMaxPool1d(out, True), torch.nn.AdaptiveMaxPool1d(out, True)
    same_layer(ours, theirs)
    (x,), (xt,) = both(rng, shape)
    (y, indices), (yt, indices_t) = ours(x), theirs(xt)
    np.testing.assert_array_equal(indices.numpy(), indices_t.numpy())
    assert indices.dtype == nb.int64
    agree(y, yt, rng, [x], [xt])


@pytest.mark.parametrize("kw", [
    dict(),
    dict(stride=2, padding=1, output_padding=1),
    dict(stride=3, dilation=2, groups=2, bias=False),
    dict(stride=(2,), padding=(2,), dilation=(3,), output_padding=(2,)),
])
@pytest.mark.parametrize("batched", [True, False])
def test_conv_transpose1d_layer_like_pytorch(rng, kw, batched):
    ours = nn.ConvTranspose1d(4, 6, 3, dtype=nb.float64, **kw)
    theirs = torch.nn.ConvTranspose1d(4, 6, 3, dtype=torch.float64, **kw)
    same_layer(ours, theirs)
    bound = 1 / np.sqrt(ours.weight.shape[1] * 3)  # PyTorch's fan_in: C_out / groups · k
    assert np.abs(ours.weight.detach().numpy()).max() <= bound
    (x,), (xt,) = both(rng, (2, 4, 9) if batched else (4, 9))
    agree(ours(x), theirs(xt), rng, [x, *ours.parameters()], [xt, *theirs.parameters()])


def test_conv_transpose1d_function_like_pytorch(rng):
    (x, w, b), (xt, wt, bt) = both(rng, (2, 4, 7), (4, 3, 2), (6,))
    kw = dict(stride=2, padding=1, output_padding=1, groups=2, dilation=2)
    agree(F.conv_transpose1d(x, w, b, **kw), tF.conv_transpose1d(xt, wt, bt, **kw), rng,
          [x, w, b], [xt, wt, bt])


# the new functions PyTorch writes in Python (its others are builtins without a signature)
NEW_FUNCTIONS = ["unfold", "fold", "instance_norm", "gumbel_softmax", "rms_norm", "glu",
                 "local_response_norm"]
NEW_LAYERS = ["Unfold", "Fold", "InstanceNorm1d", "InstanceNorm2d", "ZeroPad1d", "ZeroPad2d",
              "ConstantPad1d", "ConstantPad2d", "ReflectionPad1d", "ReflectionPad2d",
              "ReplicationPad1d", "ReplicationPad2d", "CircularPad1d", "CircularPad2d",
              "PixelShuffle", "PixelUnshuffle", "RMSNorm", "GLU", "Hardshrink", "Softshrink",
              "LocalResponseNorm", "AdaptiveAvgPool1d", "AdaptiveMaxPool1d", "ConvTranspose1d"]


def parameters(fn):
    import inspect
    return [(p.name, p.default, p.kind) for p in inspect.signature(fn).parameters.values()]


@pytest.mark.parametrize("name", NEW_FUNCTIONS)
def test_functions_take_pytorchs_arguments_and_defaults(name):
    assert parameters(getattr(F, name)) == parameters(getattr(tF, name))
    assert name in F.__all__


@pytest.mark.parametrize("name", NEW_LAYERS)
def test_layers_take_pytorchs_arguments_and_defaults(name):
    assert parameters(getattr(nn, name).__init__) == parameters(getattr(torch.nn, name).__init__)
    assert name in nn.__all__

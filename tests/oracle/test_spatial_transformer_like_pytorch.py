"""F.affine_grid and F.grid_sample (every mode, padding and align_corners), F.lp_pool1d/2d/3d,
F.pdist, F.channel_shuffle and F.rrelu, with their layers, against PyTorch in float64: a
7×5 image read at a 4×6 grid with points outside [-1, 1] and exactly on the borders,
outputs and the gradients to the image, the grid and theta; warnings, reprs, signatures
and the builtin class of each error.  (The oracle: required in CI, skipped without torch
locally.)"""
import inspect
import math
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
tF = torch.nn.functional

from like_pytorch import assert_same, outcome, same_failure  # noqa: E402

import nnbook as nb  # noqa: E402
from nnbook import nn  # noqa: E402
from nnbook.nn import functional as F  # noqa: E402

MODES = ["bilinear", "nearest", "bicubic"]
PADDINGS = ["zeros", "border", "reflection"]


def run_both(fn_nb, fn_torch, arrays, rng, grads=None):
    """Outputs and the gradients of sum(out * r) to each array (those in ``grads``)."""
    grads = range(len(arrays)) if grads is None else grads
    ours = [nb.tensor(a, requires_grad=i in grads) for i, a in enumerate(arrays)]
    theirs = [torch.tensor(a, requires_grad=i in grads) for i, a in enumerate(arrays)]
    y, ty = fn_nb(*ours), fn_torch(*theirs)
    assert_same(y, ty, "output")
    r = rng.standard_normal(tuple(ty.shape)).astype(arrays[0].dtype)
    y.backward(nb.tensor(r))
    ty.backward(torch.tensor(r))
    for i in grads:
        assert_same(ours[i].grad, theirs[i].grad, f"gradient {i}", tol=1e-10)


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("padding", PADDINGS)
@pytest.mark.parametrize("mode", MODES)
def test_grid_sample_like_pytorch(rng, mode, padding, align_corners):
    x = rng.standard_normal((2, 3, 7, 5))
    grid = rng.uniform(-2.5, 2.5, (2, 4, 6, 2))
    kwargs = dict(mode=mode, padding_mode=padding, align_corners=align_corners)
    run_both(lambda a, g: F.grid_sample(a, g, **kwargs),
             lambda a, g: tF.grid_sample(a, g, **kwargs), [x, grid], rng)


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("padding", PADDINGS)
@pytest.mark.parametrize("mode", MODES)
def test_points_on_the_borders_halfway_and_far_away_like_pytorch(rng, mode, padding,
                                                                  align_corners):
    """Where PyTorch's conventions decide: a point exactly on a border pixel (the clip's
    slope there is 0), halfway between two pixels (nearest rounds to even), mirrored
    several times, or a million image widths away."""
    if align_corners:  # pixel centres at -1 + k / 2 (width 5) and -1 + k / 3 (height 7)
        special = [-1.0, 1.0, -1.5, 1.5, 0.0, -3.0, 3.0, -5.0, -0.75, -0.25, 0.25, 0.75]
    else:
        special = [-0.8, 0.8, -1.0, 1.0, -1.2, 1.2, -1.4, 1.4, -3.0, 3.0, -0.6, -0.2, 0.6]
    special += [1e6, -1e6]
    along_x = [[s, 0.37 * (k % 5 - 2) + 0.02] for k, s in enumerate(special)]
    along_y = [[0.1 * k - 0.3, s] for k, s in enumerate(special)]
    grid = np.array([[along_x + along_y]])
    x = np.arange(35.0).reshape(1, 1, 7, 5) ** 1.5
    kwargs = dict(mode=mode, padding_mode=padding, align_corners=align_corners)
    run_both(lambda a, g: F.grid_sample(a, g, **kwargs),
             lambda a, g: tF.grid_sample(a, g, **kwargs), [x, grid], rng)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shapes", [((0, 3, 7, 5), (0, 4, 6, 2)), ((2, 0, 7, 5), (2, 4, 6, 2)),
                                    ((2, 3, 7, 5), (2, 0, 6, 2)), ((2, 3, 1, 1), (2, 4, 6, 2))])
def test_empty_batches_channels_grids_and_one_pixel_images_like_pytorch(rng, shapes, mode):
    x, grid = rng.standard_normal(shapes[0]), rng.uniform(-1.5, 1.5, shapes[1])
    for padding in PADDINGS:
        run_both(lambda a, g, padding=padding: F.grid_sample(a, g, mode, padding, False),
                 lambda a, g, padding=padding: tF.grid_sample(a, g, mode, padding, False),
                 [x, grid], rng)


@pytest.mark.parametrize("mode", MODES)
def test_grid_sample_in_float32_like_pytorch_within_its_rounding(rng, mode):
    x = rng.standard_normal((2, 3, 7, 5)).astype(np.float32)
    grid = rng.uniform(-1.5, 1.5, (2, 4, 6, 2)).astype(np.float32)
    y = F.grid_sample(nb.tensor(x), nb.tensor(grid), mode, "reflection", False)
    ty = tF.grid_sample(torch.tensor(x), torch.tensor(grid), mode, "reflection", False)
    assert_same(y, ty, "float32 output", tol=1e-5)


@pytest.mark.parametrize("size", [(2, 3, 4, 6), (2, 3, 1, 6), (2, 1, 3, 4, 5),
                                  (2, 1, 1, 4, 5)])
@pytest.mark.parametrize("align_corners", [False, True])
def test_affine_grid_like_pytorch(rng, size, align_corners):
    k = len(size) - 2
    theta = rng.standard_normal((2, k, k + 1))
    with warnings.catch_warnings(record=True) as ours_warned:
        warnings.simplefilter("always")
        grid = F.affine_grid(nb.tensor(theta), size, align_corners)
    with warnings.catch_warnings(record=True) as theirs_warned:
        warnings.simplefilter("always")
        tF.affine_grid(torch.tensor(theta), size, align_corners)
    assert [type(w.message) for w in ours_warned] == [w.category for w in theirs_warned]
    assert grid.dtype == nb.float64
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (compared above)
        run_both(lambda t: F.affine_grid(t, size, align_corners),
                 lambda t: tF.affine_grid(t, size, align_corners), [theta], rng)


def test_a_transformer_step_like_pytorch(rng):
    """theta -> affine_grid -> grid_sample: the gradient reaches theta through the grid."""
    x = rng.standard_normal((2, 3, 7, 5))
    theta = rng.normal(0, 0.4, (2, 2, 3)) + np.eye(2, 3)
    run_both(lambda a, t: F.grid_sample(a, F.affine_grid(t, (2, 3, 4, 6), False),
                                        align_corners=False),
             lambda a, t: tF.grid_sample(a, tF.affine_grid(t, (2, 3, 4, 6), False),
                                         align_corners=False), [x, theta], rng)


def test_leaving_align_corners_out_warns_in_both(rng):
    x, theta = rng.standard_normal((2, 3, 7, 5)), np.tile(np.eye(2, 3), (2, 1, 1))
    for lib, functional in ((nb, F), (torch, tF)):
        with pytest.warns(UserWarning):
            grid = functional.affine_grid(lib.tensor(theta), (2, 3, 4, 6))
        with pytest.warns(UserWarning):
            functional.grid_sample(lib.tensor(x), grid)


@pytest.mark.parametrize("p", [2, 1, 1.5, 3, -1, math.inf, -math.inf])
@pytest.mark.parametrize("kwargs", [dict(kernel_size=3), dict(kernel_size=2, stride=1),
                                    dict(kernel_size=(3, 2), stride=(2, 1), ceil_mode=True)])
def test_lp_pool2d_like_pytorch(rng, p, kwargs):
    x = rng.standard_normal((2, 3, 7, 5))
    x[0, 0, :3, :3] = 0  # a window of zeros: its gradient is 0 in both
    run_both(lambda a: F.lp_pool2d(a, p, **kwargs), lambda a: tF.lp_pool2d(a, p, **kwargs),
             [x], rng)


@pytest.mark.parametrize("p", [2, 1.5, math.inf])
def test_lp_pool1d_and_the_layers_like_pytorch(rng, p):
    x = rng.standard_normal((2, 3, 9))
    run_both(lambda a: F.lp_pool1d(a, p, 3, 2, True), lambda a: tF.lp_pool1d(a, p, 3, 2, True),
             [x], rng)
    for ours, theirs, shape in ((nn.LPPool1d(p, 3), torch.nn.LPPool1d(p, 3), (2, 3, 9)),
                                (nn.LPPool2d(p, (3, 2), 1), torch.nn.LPPool2d(p, (3, 2), 1),
                                 (2, 3, 7, 5))):
        assert repr(ours) == repr(theirs)
        run_both(ours, theirs, [np.abs(rng.standard_normal(shape))], rng)


@pytest.mark.parametrize("p", [2, 1.5, math.inf])
@pytest.mark.parametrize("kwargs", [dict(kernel_size=2), dict(kernel_size=(3, 2, 1),
                                    stride=(1, 2, 3), ceil_mode=True)])
def test_lp_pool3d_and_its_layer_like_pytorch(rng, p, kwargs):
    x = np.abs(rng.standard_normal((2, 3, 5, 7, 4)))
    run_both(lambda a: F.lp_pool3d(a, p, **kwargs), lambda a: tF.lp_pool3d(a, p, **kwargs),
             [x], rng)
    ours, theirs = nn.LPPool3d(p, **kwargs), torch.nn.LPPool3d(p, **kwargs)
    assert repr(ours) == repr(theirs)
    run_both(ours, theirs, [x[0]], rng)  # one volume (C, D, H, W)


@pytest.mark.parametrize("p", [2, 1, 0.5, 3, 0, math.inf])
def test_pdist_like_pytorch(rng, p):
    x = rng.standard_normal((6, 4))
    x[3] = x[1]  # a distance of 0
    run_both(lambda a: nb.pdist(a, p), lambda a: torch.pdist(a, p), [x], rng)
    run_both(lambda a: F.pdist(a, p), lambda a: tF.pdist(a, p), [x[:1]], rng)


@pytest.mark.parametrize("shape,groups", [((2, 6, 3, 2), 3), ((2, 6, 5), 2), ((6, 3, 2), 3),
                                          ((2, 6, 3, 2, 1), 6), ((0, 6, 2), 3)])
def test_channel_shuffle_and_its_layer_like_pytorch(rng, shape, groups):
    x = rng.standard_normal(shape)
    run_both(lambda a: F.channel_shuffle(a, groups),
             lambda a: tF.channel_shuffle(a, groups), [x], rng)
    ours, theirs = nn.ChannelShuffle(groups), torch.nn.ChannelShuffle(groups)
    assert repr(ours) == repr(theirs) and list(ours.state_dict()) == []
    assert_same(ours(nb.tensor(x)), theirs(torch.tensor(x)), "layer")


def test_rrelu_outside_training_and_its_layer_in_eval_mode_like_pytorch(rng):
    x = rng.standard_normal((7, 5))
    x[0, 0] = 0.0  # the slope at 0: the negative side's in both
    run_both(lambda a: F.rrelu(a, 0.1, 0.3), lambda a: tF.rrelu(a, 0.1, 0.3), [x], rng)
    ours, theirs = nn.RReLU(0.1, 0.3).eval(), torch.nn.RReLU(0.1, 0.3).eval()
    assert repr(ours) == repr(theirs)
    run_both(ours, theirs, [x], rng)


def test_rrelu_while_training_draws_other_slopes_from_the_same_range(rng):
    """A listed difference: the slopes come from each library's own generator."""
    x = rng.standard_normal((50, 40))
    for lib, functional in ((nb, F), (torch, tF)):
        y = functional.rrelu(lib.tensor(x), 0.1, 0.3, training=True).numpy()
        slopes = y[x < 0] / x[x < 0]
        assert slopes.min() >= 0.1 and slopes.max() <= 0.3
        assert abs(slopes.mean() - 0.2) < 0.01  # uniform on [0.1, 0.3]
        np.testing.assert_array_equal(y[x > 0], x[x > 0])


NEW_FUNCTIONS = ["affine_grid", "grid_sample", "lp_pool1d", "lp_pool2d", "lp_pool3d",
                 "rrelu"]
NEW_LAYERS = ["ChannelShuffle", "LPPool1d", "LPPool2d", "LPPool3d", "RReLU"]


def parameters(fn):
    return [(p.name, p.default) for p in inspect.signature(fn).parameters.values()]


@pytest.mark.parametrize("name", NEW_FUNCTIONS)
def test_functions_take_pytorchs_arguments_and_defaults(name):
    assert parameters(getattr(F, name)) == parameters(getattr(tF, name))
    assert name in F.__all__


@pytest.mark.parametrize("name", NEW_LAYERS)
def test_layers_take_pytorchs_arguments_and_defaults(name):
    assert parameters(getattr(nn, name).__init__) == parameters(getattr(torch.nn, name).__init__)
    assert name in nn.__all__


MISTAKES = {  # name: a call given (library, its functional, an image, a grid)
    "grid channels-first": lambda lib, f, x, g: f.grid_sample(x, g.permute(0, 3, 1, 2),
                                                               align_corners=False),
    "grid of another batch": lambda lib, f, x, g: f.grid_sample(x, g[:1], align_corners=False),
    "grid of another dtype": lambda lib, f, x, g: f.grid_sample(x, g.float(),
                                                                align_corners=False),
    "one image without a batch": lambda lib, f, x, g: f.grid_sample(x[0], g[0],
                                                                    align_corners=False),
    "an empty image": lambda lib, f, x, g: f.grid_sample(x[:, :, :0], g, align_corners=False),
    "mode 'linear'": lambda lib, f, x, g: f.grid_sample(x, g, "linear", align_corners=False),
    "padding 'reflect'": lambda lib, f, x, g: f.grid_sample(x, g, padding_mode="reflect",
                                                            align_corners=False),
    "align_corners=1": lambda lib, f, x, g: f.grid_sample(x, g, align_corners=1),
    "theta flat": lambda lib, f, x, g: f.affine_grid(lib.zeros(2, 6, dtype=lib.float64),
                                                     (2, 3, 4, 6), False),
    "theta of integers": lambda lib, f, x, g: f.affine_grid(lib.zeros(2, 2, 3,
                                                                      dtype=lib.int64),
                                                            (2, 3, 4, 6), False),
    "theta for a volume": lambda lib, f, x, g: f.affine_grid(lib.zeros(2, 2, 3),
                                                             (2, 3, 4, 5, 6), False),
    "size without channels": lambda lib, f, x, g: f.affine_grid(lib.zeros(2, 2, 3),
                                                                (2, 4, 6), False),
    "size of zero": lambda lib, f, x, g: f.affine_grid(lib.zeros(2, 2, 3), (2, 3, 0, 6), False),
    "size of floats": lambda lib, f, x, g: f.affine_grid(lib.zeros(2, 2, 3), (2, 3, 4.0, 6),
                                                         False),
    "pdist of a batch": lambda lib, f, x, g: f.pdist(x),
    "pdist with p=-1": lambda lib, f, x, g: f.pdist(x[0, 0], -1),
    "channel_shuffle of 3 channels in 2 groups": lambda lib, f, x, g: f.channel_shuffle(x, 2),
    "channel_shuffle of 0 groups": lambda lib, f, x, g: f.channel_shuffle(x, 0),
    "channel_shuffle of a matrix": lambda lib, f, x, g: f.channel_shuffle(x[0, 0], 1),
    "channel_shuffle of 1.5 groups": lambda lib, f, x, g: f.channel_shuffle(x, 1.5),
    "rrelu lower > upper": lambda lib, f, x, g: f.rrelu(x, 0.5, 0.1),
    "lp_pool2d window too big": lambda lib, f, x, g: f.lp_pool2d(x, 2, 9),
    "lp_pool1d kernel_size (3,)": lambda lib, f, x, g: f.lp_pool1d(x[0], 2, (3,)),
}


@pytest.mark.parametrize("name", sorted(MISTAKES))
def test_mistakes_raise_where_pytorch_raises_with_its_builtin_class(rng, name):
    x, g = rng.standard_normal((2, 3, 7, 5)), rng.uniform(-1, 1, (2, 4, 6, 2))
    _, nb_error = outcome(lambda: MISTAKES[name](nb, F, nb.tensor(x), nb.tensor(g)))
    _, torch_error = outcome(lambda: MISTAKES[name](torch, tF, torch.tensor(x),
                                                    torch.tensor(g)))
    assert same_failure(nb_error, torch_error, name)

"""Models and helpers several test files share."""
import base64
import re

import nnbook as nb
from nnbook import nn

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def shown(widget):
    """What a widget's Output shows: (text/plain, PNG bytes)."""
    (output,) = widget.output.outputs
    assert output["output_type"] == "display_data"
    data = output["data"]
    return data["text/plain"], base64.b64decode(data["image/png"])


FLOAT = re.compile(r"-?\d+\.\d*(?:e[-+]?\d+)?|-?\d+e[-+]?\d+")


def split_floats(text):
    """(text with each decimal number replaced by '#', those numbers as floats).

    Shown numbers can differ in their last digits from one CPU (BLAS kernel) to another:
    compare the text exactly and the numbers with a tolerance.
    """
    return FLOAT.sub("#", text), [float(m) for m in FLOAT.findall(text)]


def xception_block(depth_multiplier=1):
    """The Xception block of the swapped height and width (Lua torch) built with nnbook's layers."""
    c = 64 * depth_multiplier
    return nn.Sequential(
        nn.Conv2d(3, 64, 3, 2, 1), nn.BatchNorm2d(64), nn.ReLU(),
        nn.Sum(nn.Conv2d(64, 512, 1, stride=2),
               nn.Sequential(nn.DepthwiseConv2d(64, 3, depth_multiplier, padding=1),
                             nn.Conv2d(c, 512, 1), nn.BatchNorm2d(512), nn.MaxPool2d(3, 2, 1))),
        nn.ReLU(), nn.GlobalAvgPool2d(), nn.Reshape(512), nn.Linear(512, 3),
        nn.LogSoftmax(dim=1))


class Cell(nn.Module):
    """The layer built in forward, after the fix: conv1 and conv2 built in __init__.

    ``keep_w``: also store w and w2 as the buggy cell did, and never use them."""

    def __init__(self, keep_w=False):
        super().__init__()
        self.conv1 = nn.Conv2d(6, 6, 3, padding=1)
        self.conv2 = nn.Conv2d(6, 3, 1)
        if keep_w:
            self.w = nn.Parameter(nb.randn(6, 6, 3, 3))
            self.w2 = nn.Parameter(nb.randn(3, 6, 1, 1))

    def forward(self, x):
        return self.conv2(self.conv1(x))


def changed_in_place_is_caught_or_harmless(fn, arrays):
    """Run ``fn(*tensors)`` on ``arrays`` (float ones as non-leaf tensors), then again
    changing one float input, or the output, in place after it: the backward must refuse
    (BackwardError) or give the gradients of the unchanged run, never other numbers.
    Returns how the case went for each change: 'refused' or 'same'."""
    import numpy as np

    from nnbook.errors import BackwardError

    floats = [i for i, a in enumerate(arrays) if a.dtype.kind == "f"]

    def run(change):
        leaves = [nb.tensor(a, requires_grad=a.dtype.kind == "f") for a in arrays]
        inputs = [t * 1 if t.requires_grad else t for t in leaves]
        out = fn(*inputs)
        if change == "output":
            out.add_(1.0)
        elif change is not None:
            inputs[change].add_(1.0)
        out.backward(nb.ones(*out.shape, dtype=out.dtype))
        return [leaves[i].grad.numpy().copy() for i in floats]

    expected = run(None)
    outcomes = {}
    for change in floats + ["output"]:
        try:
            got = run(change)
        except BackwardError:
            outcomes[change] = "refused"
            continue
        for g, e in zip(got, expected):
            np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-12,
                                       err_msg=f"a wrong gradient after changing {change!r}")
        outcomes[change] = "same"
    return outcomes


def _layer_functions():
    import nnbook.nn.functional as F

    def gumbel_softmax(x):  # the same noise on every call, so that runs compare
        nb.manual_seed(0)
        return F.gumbel_softmax(x, tau=0.5, hard=True, dim=1)

    def rrelu(x):  # the same slopes on every call
        nb.manual_seed(0)
        return F.rrelu(x, 0.1, 0.3, training=True)

    return {
        "exp": (lambda x: x.exp(), [(7, 5)]),
        "tanh": (lambda x: x.tanh(), [(7, 5)]),
        "sigmoid": (lambda x: x.sigmoid(), [(7, 5)]),
        "sqrt": (lambda x: (x * x + 1).sqrt(), [(7, 5)]),
        "relu": (F.relu, [(2, 3, 7, 5)]),
        "gelu": (F.gelu, [(7, 5)]),
        "silu": (F.silu, [(7, 5)]),
        "leaky_relu": (lambda x: F.leaky_relu(x, 0.1), [(7, 5)]),
        "elu": (F.elu, [(7, 5)]),
        "softplus": (F.softplus, [(7, 5)]),
        "linear": (F.linear, [(3, 7, 5), (4, 5), (4,)]),
        "matmul": (lambda a, b: a @ b, [(3, 7, 5), (5, 4)]),
        "conv2d": (lambda x, w, b: F.conv2d(x, w, b, padding=1),
                   [(2, 3, 7, 5), (4, 3, 3, 3), (4,)]),
        "conv2d_depthwise": (lambda x, w: F.conv2d(x, w, padding=1, groups=3),
                             [(2, 3, 7, 5), (3, 1, 3, 3)]),
        "conv2d_pointwise": (lambda x, w: F.conv2d(x, w), [(2, 3, 7, 5), (4, 3, 1, 1)]),
        "conv1d": (lambda x, w: F.conv1d(x, w, stride=2), [(2, 3, 9), (4, 3, 3)]),
        "conv_transpose2d": (lambda x, w: F.conv_transpose2d(x, w, stride=2),
                             [(2, 3, 7, 5), (3, 2, 3, 3)]),
        "max_pool2d": (lambda x: F.max_pool2d(x, 2), [(2, 3, 7, 5)]),
        "max_pool2d_overlapping": (lambda x: F.max_pool2d(x, 3, 2, 1), [(2, 3, 7, 5)]),
        "avg_pool2d": (lambda x: F.avg_pool2d(x, 2), [(2, 3, 7, 5)]),
        "adaptive_avg_pool2d": (lambda x: F.adaptive_avg_pool2d(x, (3, 2)), [(2, 3, 7, 5)]),
        "adaptive_max_pool2d": (lambda x: F.adaptive_max_pool2d(x, (3, 2)), [(2, 3, 7, 5)]),
        "batch_norm": (lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True),
                       [(4, 3, 7, 5), (3,), (3,)]),
        "layer_norm": (lambda x, w, b: F.layer_norm(x, (5,), w, b), [(3, 7, 5), (5,), (5,)]),
        "group_norm": (lambda x: F.group_norm(x, 1), [(2, 3, 7, 5)]),
        "embedding": (lambda w: F.embedding(nb.tensor([[0, 3], [6, 3]]), w), [(7, 5)]),
        "interpolate": (lambda x: F.interpolate(x, scale_factor=2, mode="bilinear"),
                        [(2, 3, 7, 5)]),
        "attention": (lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
                      [(2, 3, 7, 4), (2, 3, 7, 4), (2, 3, 7, 5)]),
        "cosine_similarity": (lambda a, b: F.cosine_similarity(a, b), [(7, 5), (7, 5)]),
        "normalize": (lambda x: F.normalize(x, dim=1), [(7, 5)]),
        "lstm": (lambda x: nb.nn.LSTM(5, 4, dtype=nb.float64)(x)[0], [(7, 3, 5)]),
        "gru": (lambda x: nb.nn.GRU(5, 4, dtype=nb.float64)(x)[0], [(7, 3, 5)]),
        "unfold": (lambda x: F.unfold(x, (3, 2), stride=(2, 1)), [(2, 3, 7, 5)]),
        "fold": (lambda c: F.fold(c, (7, 5), (3, 2), stride=(2, 1)), [(2, 18, 12)]),
        "instance_norm": (lambda x, w, b: F.instance_norm(x, weight=w, bias=b),
                          [(2, 3, 7, 5), (3,), (3,)]),
        "pad_reflect": (lambda x: F.pad(x, (1, 2, 2, 1), mode="reflect"), [(2, 3, 7, 5)]),
        "pad_circular": (lambda x: F.pad(x, (1, -2, 2, 1), mode="circular"), [(2, 3, 7, 5)]),
        "pixel_shuffle": (lambda x: F.pixel_shuffle(x, 2), [(2, 12, 3, 5)]),
        "pixel_unshuffle": (lambda x: F.pixel_unshuffle(x, 2), [(2, 3, 6, 4)]),
        "gumbel_softmax": (gumbel_softmax, [(7, 5)]),
        "rms_norm": (lambda x, w: F.rms_norm(x, (5,), w), [(3, 7, 5), (5,)]),
        "glu": (lambda x: F.glu(x, 1), [(3, 6, 5)]),
        "hardshrink": (lambda x: F.hardshrink(x, 0.3), [(7, 5)]),
        "softshrink": (lambda x: F.softshrink(x, 0.3), [(7, 5)]),
        "local_response_norm": (lambda x: F.local_response_norm(x, 3), [(2, 5, 3, 4)]),
        "adaptive_avg_pool1d": (lambda x: F.adaptive_avg_pool1d(x, 4), [(2, 3, 7)]),
        "adaptive_max_pool1d": (lambda x: F.adaptive_max_pool1d(x, 4), [(2, 3, 7)]),
        "conv_transpose1d": (lambda x, w, b: F.conv_transpose1d(x, w, b, stride=2, groups=2),
                             [(2, 4, 7), (4, 3, 3), (6,)]),
        "max_pool2d_then_unpool": (
            lambda x: F.max_unpool2d(*F.max_pool2d(x, (3, 2), (3, 1), return_indices=True),
                                     (3, 2), (3, 1), output_size=(7, 5)), [(2, 3, 7, 5)]),
        "max_pool1d_then_unpool": (
            lambda x: F.max_unpool1d(*F.max_pool1d(x, 3, 2, 1, return_indices=True), 3, 2, 1),
            [(2, 3, 11)]),
        "interpolate_bicubic": (lambda x: F.interpolate(x, size=(9, 4), mode="bicubic"),
                                [(2, 3, 7, 5)]),
        "interpolate_area": (lambda x: F.interpolate(x, size=(3, 4), mode="area"),
                             [(2, 3, 7, 5)]),
        "soft_margin_loss": (lambda x, t: F.soft_margin_loss(x, t, reduction="none"),
                             [(7, 5), (7, 5)]),
        "multilabel_soft_margin_loss": (lambda x, t: F.multilabel_soft_margin_loss(x, t.sigmoid()),
                                        [(7, 5), (7, 5)]),
        "multi_margin_loss": (lambda x: F.multi_margin_loss(x, nb.tensor([0, 4, 2, 1, 3, 0, 2]),
                                                            p=2, reduction="none"), [(7, 5)]),
        "multilabel_margin_loss": (lambda x: F.multilabel_margin_loss(
            x, nb.tensor([[3, 0, -1, 2, 1]] * 7)), [(7, 5)]),
        "hinge_embedding_loss": (lambda x: F.hinge_embedding_loss(
            x, nb.tensor([1.0, -1.0, -1.0, 1.0, -1.0]).expand(7, 5), margin=0.5), [(7, 5)]),
        "poisson_nll_loss": (lambda x, t: F.poisson_nll_loss(x, t * t, full=True), [(7, 5)] * 2),
        "gaussian_nll_loss": (lambda x, t, v: F.gaussian_nll_loss(x, t, v * v, reduction="sum"),
                              [(7, 5), (7, 5), (7,)]),
        "embedding_bag": (lambda w: F.embedding_bag(
            nb.tensor([1, 4, 1, 6, 0, 2, 4]), w, nb.tensor([0, 3, 3]), padding_idx=2), [(7, 5)]),
        "embedding_bag_max": (lambda w: F.embedding_bag(nb.tensor([[0, 3], [6, 3]]), w,
                                                        mode="max"), [(7, 5)]),
        "embedding_bag_weighted": (lambda w, p: F.embedding_bag(
            nb.tensor([[0, 3, 5], [6, 3, 3]]), w, mode="sum", per_sample_weights=p),
                                   [(7, 5), (2, 3)]),
        "triplet_margin_with_distance_loss": (
            lambda a, p, n: F.triplet_margin_with_distance_loss(a, p, n, swap=True), [(7, 5)] * 3),
        "ctc_loss": (lambda lp: F.ctc_loss(lp, nb.tensor([[2, 2, 3], [4, 1, 0]]), (7, 5), (3, 2),
                                           reduction="none"), [(7, 2, 5)]),
        "adaptive_log_softmax": (lambda x: nb.nn.AdaptiveLogSoftmaxWithLoss(
            5, 9, [3, 6], div_value=2.0, dtype=nb.float64)(x, nb.tensor([0, 4, 8, 2, 6, 7, 1]))
            .output, [(7, 5)]),
        "affine_grid": (lambda t: F.affine_grid(t, (2, 3, 4, 6), align_corners=False),
                        [(2, 2, 3)]),
        "grid_sample": (lambda x, g: F.grid_sample(x, g, align_corners=False),
                        [(2, 3, 7, 5), (2, 4, 6, 2)]),
        "grid_sample_bicubic_reflection": (lambda x, g: F.grid_sample(
            x, g, "bicubic", "reflection", align_corners=True), [(2, 3, 7, 5), (2, 4, 6, 2)]),
        "grid_sample_nearest_border": (lambda x, g: F.grid_sample(
            x, g, "nearest", "border", align_corners=False), [(2, 3, 7, 5), (2, 4, 6, 2)]),
        "lp_pool2d": (lambda x: F.lp_pool2d(x, 2, (3, 2), stride=(2, 1)), [(2, 3, 7, 5)]),
        "lp_pool1d": (lambda x: F.lp_pool1d(x, 2, 3, stride=2), [(2, 3, 9)]),
        "lp_pool3d": (lambda x: F.lp_pool3d(x, 2, (3, 2, 1), stride=(2, 1, 2)),
                      [(2, 3, 5, 7, 4)]),
        "pdist": (F.pdist, [(7, 5)]),
        "channel_shuffle": (lambda x: F.channel_shuffle(x, 3), [(2, 6, 3, 5)]),
        "rrelu": (rrelu, [(7, 5)]),
        # volumes (N, C, D, H, W): depth, height and width all different
        "conv3d": (lambda x, w, b: F.conv3d(x, w, b, stride=(2, 1, 1), padding=(1, 0, 1),
                                            dilation=(1, 2, 1), groups=3),
                   [(2, 3, 5, 7, 4), (6, 1, 3, 2, 1), (6,)]),
        "conv_transpose3d": (lambda x, w, b: F.conv_transpose3d(x, w, b, stride=(2, 1, 1),
                                                                output_padding=(1, 0, 0),
                                                                groups=3),
                             [(2, 3, 5, 7, 4), (3, 2, 3, 2, 1), (6,)]),
        "max_pool3d": (lambda x: F.max_pool3d(x, (3, 2, 1), (2, 1, 1), (1, 1, 0)),
                       [(2, 3, 5, 7, 4)]),
        "avg_pool3d": (lambda x: F.avg_pool3d(x, (3, 2, 2), padding=1, count_include_pad=False),
                       [(2, 3, 5, 7, 4)]),
        "adaptive_avg_pool3d": (lambda x: F.adaptive_avg_pool3d(x, (2, 3, 3)),
                                [(2, 3, 5, 7, 4)]),
        "adaptive_max_pool3d": (lambda x: F.adaptive_max_pool3d(x, (2, 3, 3)),
                                [(2, 3, 5, 7, 4)]),
        "interpolate_trilinear": (lambda x: F.interpolate(x, size=(4, 9, 3), mode="trilinear"),
                                  [(2, 3, 5, 7, 4)]),
        "pad_reflect_3d": (lambda x: F.pad(x, (1, 0, 2, 1, 1, 2), mode="reflect"),
                           [(2, 3, 5, 7, 4)]),
    }


# name: (function of the tensors, their shapes), on odd, non-square shapes: the layers'
# functions, each run by its kernel (and by its reference under nb.reference_ops())
LAYER_FUNCTIONS = _layer_functions()

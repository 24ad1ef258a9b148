"""A value an op's backward reads, changed in place after the op ran, must never give a
wrong gradient: the backward refuses (BackwardError, naming the op and the value) or
reads its own copy.  Checked here for the layers' functions, kernels included (the ops
of the two protocol files in tests/ops are checked there), on odd, non-square shapes."""
import numpy as np
import pytest
from shared import changed_in_place_is_caught_or_harmless

import nnbook as nb
import nnbook.nn.functional as F

rng = np.random.default_rng(0)
CASES = {  # name: (function of the tensors, their shapes)
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
    "conv2d": (lambda x, w, b: F.conv2d(x, w, b, padding=1), [(2, 3, 7, 5), (4, 3, 3, 3), (4,)]),
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
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_value_changed_in_place_after_the_op_never_gives_a_wrong_gradient(name):
    fn, shapes = CASES[name]

    def seeded(*tensors):  # the layers' weights come from the global generator
        nb.manual_seed(0)
        return fn(*tensors)

    arrays = [rng.standard_normal(shape) for shape in shapes]
    changed_in_place_is_caught_or_harmless(seeded, arrays)

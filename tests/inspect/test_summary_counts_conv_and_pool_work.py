"""nb.summary's mult-adds for Conv1d, ConvTranspose1d/2d and the pools, against formulas
worked out by hand on odd sizes (nnbook/inspect/cost.py says the conventions: a
convolution's multiply-adds per output, a transposed one's per input, a pool's one
comparison or addition per window element)."""
import math

import pytest

import nnbook as nb
from nnbook import nn


def mult_adds(layer, shape):
    table = nb.summary(layer, shape)
    assert len(table.rows) == 1
    return table.rows[0].mult_adds


def test_conv1d_does_c_in_over_groups_times_k_per_output():
    # (2, 6, 11) -> (2, 4, L_out), L_out = floor((11 + 2·1 − 2·(3 − 1) − 1) / 2) + 1 = 5
    layer = nn.Conv1d(6, 4, 3, stride=2, padding=1, dilation=2, groups=2)
    assert mult_adds(layer, (2, 6, 11)) == (2 * 4 * 5) * (6 // 2) * 3


def test_conv_transpose2d_does_c_out_over_groups_times_kh_kw_per_input():
    layer = nn.ConvTranspose2d(4, 6, (3, 2), stride=2, padding=1, groups=2)
    assert mult_adds(layer, (2, 4, 7, 5)) == (2 * 4 * 7 * 5) * (6 // 2) * 3 * 2


def test_conv_transpose1d_does_c_out_over_groups_times_k_per_input():
    layer = nn.ConvTranspose1d(3, 5, 4, stride=3, output_padding=1)
    assert mult_adds(layer, (2, 3, 9)) == (2 * 3 * 9) * 5 * 4


@pytest.mark.parametrize("layer,shape,out_hw,window", [
    (nn.MaxPool2d(3, 2, 1), (2, 3, 7, 5), (4, 3), 9),               # (7+2−3)//2+1, (5+2−3)//2+1
    (nn.MaxPool2d((3, 2), (2, 1), dilation=(1, 2), ceil_mode=True), (2, 3, 7, 5), (3, 3), 6),
    (nn.AvgPool2d((2, 3), 2), (2, 3, 7, 5), (3, 2), 6),
    (nn.AvgPool2d(3, 2, 1, ceil_mode=True), (1, 5, 9, 6), (5, 4), 9),
    (nn.MaxPool1d(3, 2), (2, 3, 11), (5,), 3),
    (nn.AvgPool1d(4, 3, padding=2), (2, 3, 11), (4,), 4),          # (11+4−4)//3+1
])
def test_window_pools_do_one_comparison_or_addition_per_window_element(
        layer, shape, out_hw, window):
    assert mult_adds(layer, shape) == shape[0] * shape[1] * math.prod(out_hw) * window


def test_adaptive_pools_count_the_elements_of_their_overlapping_windows():
    # 7 rows to 3: windows [0, 3), [2, 5), [4, 7) -> 3 + 3 + 3 = 9 rows
    # 5 columns to 2: windows [0, 3), [2, 5) -> 3 + 3 = 6 columns
    for layer in (nn.AdaptiveAvgPool2d((3, 2)), nn.AdaptiveMaxPool2d((3, 2))):
        assert mult_adds(layer, (2, 4, 7, 5)) == 2 * 4 * 9 * 6
    # None keeps the width: 5 one-column windows
    assert mult_adds(nn.AdaptiveAvgPool2d((3, None)), (2, 4, 7, 5)) == 2 * 4 * 9 * 5
    # 11 to 4: [0, 3), [2, 6), [5, 9), [8, 11) -> 3 + 4 + 4 + 3 = 14
    for layer in (nn.AdaptiveAvgPool1d(4), nn.AdaptiveMaxPool1d(4)):
        assert mult_adds(layer, (2, 3, 11)) == 2 * 3 * 14
    assert mult_adds(nn.AdaptiveAvgPool2d(1), (2, 4, 7, 5)) == 2 * 4 * 7 * 5  # global pooling


def test_bilinear_does_in1_times_in2_per_output():
    class Both(nn.Module):  # summary feeds one input; a Bilinear layer takes two
        def __init__(self):
            super().__init__()
            self.bilinear = nn.Bilinear(5, 5, 7)

        def forward(self, x):
            return self.bilinear(x, x)

    table = nb.summary(Both(), (3, 4, 5))
    assert [row.mult_adds for row in table.rows] == [(3 * 4 * 7) * 5 * 5]


def test_embedding_bag_adds_each_looked_up_row_once():
    # 3 bags of 4 indices, rows of 6 values: 3 · 4 · 6 additions
    assert mult_adds(nn.EmbeddingBag(10, 6, mode="sum"), (3, 4)) == 3 * 4 * 6


def test_the_fused_products_count_k_per_output_element():
    class Fused(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(nb.randn(5, 7))

        def forward(self, x):  # (3, 5) @ (5, 7) plus a (7,) shift: 5 per output element
            return nb.addmm(nb.zeros(7), x, self.w)

    assert mult_adds(Fused(), (3, 5)) == 3 * 7 * 5

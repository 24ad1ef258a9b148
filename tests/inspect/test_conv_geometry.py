"""The receptive-field arithmetic behind ConvArithmetic, checked against a real conv2d."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nnbook as nb
from nnbook.errors import InputError, ShapeError
from nnbook.inspect.conv_geometry import (
    conv_geometry,
    group_connections,
    receptive_field,
    tap_formulas,
)
from nnbook.nn import functional as F

# (in_hw, kernel_hw, stride, padding, dilation): non-square everything
CASES = [
    ((7, 5), (3, 2), (2, 1), (1, 0), (1, 2)),
    ((6, 9), (2, 3), (1, 2), (0, 2), (2, 1)),
    ((5, 4), (1, 1), (2, 3), (1, 1), (1, 1)),
    ((4, 7), (3, 3), 1, "same", (1, 2)),   # odd 'same' total: the extra zero at the end
    ((3, 8), (3, 4), (3, 1), (2, 1), (1, 1)),
]


def taps_by_conv(in_hw, kernel_hw, stride, padding, dilation):
    """For every output pixel: what each kernel tap reads, measured with one-hot weights.

    The input holds 1, 2, 3, … so a read value names its pixel; 0 is a padding zero.
    """
    h, w = in_hw
    x = nb.tensor(np.arange(1, h * w + 1, dtype=np.float64).reshape(1, 1, h, w))
    reads = {}
    for i in range(kernel_hw[0]):
        for j in range(kernel_hw[1]):
            weight = np.zeros((1, 1) + tuple(kernel_hw))
            weight[0, 0, i, j] = 1.0
            y = F.conv2d(x, nb.tensor(weight), stride=stride, padding=padding,
                         dilation=dilation).numpy()[0, 0]
            for pos in np.ndindex(y.shape):
                reads.setdefault(pos, []).append(int(y[pos]))
    return reads


def decode(value, width):
    return None if value == 0 else divmod(value - 1, width)


@pytest.mark.parametrize("in_hw, kernel_hw, stride, padding, dilation", CASES)
def test_every_tap_reads_the_pixel_a_one_hot_weight_picks_out(in_hw, kernel_hw, stride,
                                                               padding, dilation):
    reads = taps_by_conv(in_hw, kernel_hw, stride, padding, dilation)
    geometry = conv_geometry(in_hw, kernel_hw, stride, padding, dilation)
    assert set(reads) == set(np.ndindex(geometry.out_hw))
    for pos, values in reads.items():
        taps = receptive_field(in_hw, kernel_hw, stride, padding, dilation, pos)
        assert [(t.kernel_row, t.kernel_col) for t in taps] == \
            [(i, j) for i in range(kernel_hw[0]) for j in range(kernel_hw[1])]
        expected = [None if t.padding else (t.row, t.col) for t in taps]
        assert [decode(v, in_hw[1]) for v in values] == expected, pos
        for t in taps:  # padding taps lie outside the input, the others inside
            inside = 0 <= t.row < in_hw[0] and 0 <= t.col < in_hw[1]
            assert t.padding is not inside


def test_the_gradient_of_one_output_pixel_lights_up_exactly_its_receptive_field():
    in_hw, kernel_hw, stride, padding, dilation = (7, 5), (3, 2), (2, 1), (1, 0), (1, 2)
    for pos in [(0, 0), (2, 1), (3, 2)]:
        x = nb.tensor(np.zeros((1, 1) + in_hw), requires_grad=True)
        y = F.conv2d(x, nb.tensor(np.ones((1, 1) + kernel_hw)), stride=stride,
                     padding=padding, dilation=dilation)
        y[0, 0, pos[0], pos[1]].backward()
        seen = {tuple(p) for p in np.argwhere(x.grad.numpy()[0, 0] != 0)}
        taps = receptive_field(in_hw, kernel_hw, stride, padding, dilation, pos)
        assert seen == {(t.row, t.col) for t in taps if not t.padding}


def test_the_default_view_of_conv_arithmetic():
    taps = receptive_field((7, 5), (3, 2), (2, 1), (1, 0), (1, 2), (0, 0))
    assert [(t.row, t.col, t.padding) for t in taps] == [
        (-1, 0, True), (-1, 2, True), (0, 0, False), (0, 2, False), (1, 0, False),
        (1, 2, False)]


@settings(max_examples=25, deadline=None)
@given(h=st.integers(1, 7), w=st.integers(1, 7), kh=st.integers(1, 3), kw=st.integers(1, 3),
       sh=st.integers(1, 3), sw=st.integers(1, 3), ph=st.integers(0, 2), pw=st.integers(0, 2),
       dh=st.integers(1, 2), dw=st.integers(1, 2))
def test_receptive_field_agrees_with_conv2d_on_random_settings(h, w, kh, kw, sh, sw, ph, pw,
                                                                dh, dw):
    args = ((h, w), (kh, kw), (sh, sw), (ph, pw), (dh, dw))
    geometry = conv_geometry(*args)
    if not geometry.ok:  # the same setting must fail in the real conv2d, the same way
        with pytest.raises(ShapeError) as info:
            taps_by_conv(*args)
        assert str(info.value).splitlines()[0] == str(geometry.error).splitlines()[0]
        return
    reads = taps_by_conv(*args)
    assert set(reads) == set(np.ndindex(geometry.out_hw))
    for pos, values in reads.items():
        taps = receptive_field(*args, pos)
        assert [decode(v, w) for v in values] == \
            [None if t.padding else (t.row, t.col) for t in taps]


def test_group_connections_match_which_outputs_a_one_hot_input_channel_reaches():
    for c_in, c_out, groups in [(4, 6, 2), (6, 6, 6), (3, 6, 3), (4, 2, 1), (6, 9, 3)]:
        connections = group_connections(c_in, c_out, groups)
        assert [o for o, _ in connections] == list(range(c_out))
        weight = nb.tensor(np.ones((c_out, c_in // groups, 1, 1)))
        for c in range(c_in):
            x = np.zeros((1, c_in, 2, 3))
            x[0, c] = 1.0
            y = F.conv2d(nb.tensor(x), weight, groups=groups).numpy()
            reached = {o for o in range(c_out) if y[0, o].any()}
            assert reached == {o for o, inputs in connections if c in inputs}


def test_depthwise_and_full_connections():
    assert group_connections(3, 6, 3) == [(0, range(0, 1)), (1, range(0, 1)), (2, range(1, 2)),
                                          (3, range(1, 2)), (4, range(2, 3)), (5, range(2, 3))]
    assert all(r == range(0, 4) for _, r in group_connections(4, 5, 1))


def test_geometry_record_has_the_ops_formulas_padding_and_sizes():
    g = conv_geometry((7, 5), (3, 2), (2, 1), (1, 0), (1, 2), in_channels=4, out_channels=6,
                      groups=2)
    assert g.ok and g.out_hw == (4, 3) and g.pads == ((1, 1), (0, 0))
    assert g.padded_hw == (9, 5)
    assert g.weight_shape == (6, 2, 3, 2) and g.params == 6 * 2 * 3 * 2 + 6
    assert g.formula == ("H_out = floor((7 + 2·1 − 1·(3 − 1) − 1) / 2) + 1 = 4",
                         "W_out = floor((5 + 2·0 − 2·(2 − 1) − 1) / 1) + 1 = 3")
    assert tap_formulas(g, (1, 2)) == ("row = 2·1 + 1·i − 1 = 1, 2, 3  (i = 0..2)",
                                       "col = 1·2 + 2·j − 0 = 2, 4  (j = 0..1)")
    assert tap_formulas(g, (0, 0))[0] == "row = 2·0 + 1·i − 1 = −1, 0, 1  (i = 0..2)"
    same = conv_geometry((4, 7), (2, 3), 1, "same", 1)
    assert same.pads == ((0, 1), (1, 1)) and same.out_hw == (4, 7)


@pytest.mark.parametrize("kwargs, first_line", [
    (dict(in_hw=(2, 5), kernel_hw=(5, 2)),
     "conv2d: the kernel spans 5 pixels in height but the padded input has only 2 "
     "(2 + 0 padding), so no output pixel fits."),
    (dict(in_hw=(7, 5), kernel_hw=(3, 3), dilation=(1, 3)),
     "conv2d: the kernel spans 7 pixels in width but the padded input has only 5 "
     "(5 + 0 padding), so no output pixel fits."),
    (dict(in_hw=(7, 5), kernel_hw=3, in_channels=4, out_channels=6, groups=3),
     "conv2d: groups=3 must divide in_channels (4)."),
    (dict(in_hw=(7, 5), kernel_hw=3, in_channels=4, out_channels=6, groups=4),
     "conv2d: groups=4 must divide out_channels (6)."),
    (dict(in_hw=(7, 5), kernel_hw=3, in_channels=2, out_channels=2, groups=4),
     "conv2d: groups=4 must divide out_channels (2)."),
    (dict(in_hw=(7, 5), kernel_hw=3, stride=(0, 1)), "conv2d: stride must be at least 1, "
     "got stride=(0, 1)."),
])
def test_impossible_settings_are_kept_as_the_ops_own_error(kwargs, first_line):
    g = conv_geometry(**kwargs)
    assert not g.ok and isinstance(g.error, ShapeError)
    assert str(g.error).splitlines()[0] == first_line
    assert "hint: " in str(g.error)
    # the real conv2d on one unbatched sample says the same
    c_in, c_out, groups = (kwargs.get(k, 1) for k in ("in_channels", "out_channels", "groups"))
    kernel = kwargs["kernel_hw"]
    kernel = kernel if isinstance(kernel, tuple) else (kernel, kernel)
    x = nb.zeros(c_in, *kwargs["in_hw"])
    w = nb.zeros(c_out, max(c_in // groups, 1), *kernel)
    with pytest.raises(ShapeError) as info:
        F.conv2d(x, w, stride=kwargs.get("stride", 1), dilation=kwargs.get("dilation", 1),
                 groups=groups)
    assert str(info.value).splitlines()[0] == first_line


def test_functions_raise_what_the_record_keeps():
    with pytest.raises(ShapeError, match="groups=3 must divide in_channels"):
        group_connections(4, 6, 3)
    with pytest.raises(ShapeError, match="kernel spans 5 pixels in height"):
        receptive_field((2, 5), (5, 2), 1, 0, 1, (0, 0))
    with pytest.raises(InputError, match=r"output pixel \(4, 0\) does not exist: the output "
                       r"is 4×3.\n  hint: use a row in 0..3 and a column in 0..2."):
        receptive_field((7, 5), (3, 2), (2, 1), (1, 0), (1, 2), (4, 0))
    with pytest.raises(ShapeError, match="groups=3"):
        tap_formulas(conv_geometry((7, 5), 3, in_channels=4, out_channels=6, groups=3), (0, 0))

"""The layer built in forward, translated from MindSpore: two Conv2d layers built inside forward.

There, the second conv silently reused the first one's cached weight, the error
was an opaque primitive shape check, and the optimizer held ``w, w2``, which the
model never used.  Here each of those is caught and explained."""
import warnings

import numpy as np
import pytest

import nnbook as nb
from nnbook import nn
from nnbook.errors import NnbookError
from nnbook.optim import UnusedParameterWarning

# The seed's shapes were x (16, 512, 4, 4), w (512, 512, 3, 3), w2 (3, 512, 1, 1);
# these are smaller for speed, and not square.


def data():
    nb.manual_seed(0)
    x = nb.randn(4, 6, 5, 3)
    w = nn.Parameter(nb.randn(6, 6, 3, 3))
    w2 = nn.Parameter(nb.randn(3, 6, 1, 1))
    return x, w, w2


class CustomWithLossCell(nn.Module):
    """The seed's cell: the layers are built inside forward (MindSpore's construct)."""

    def __init__(self, x, w, w2):
        super().__init__()
        self.x = x
        self.w = w
        self.w2 = w2

    def forward(self):
        out = nn.Conv2d(in_channels=self.x.shape[1], out_channels=self.w.shape[0],
                        kernel_size=self.w.shape[-1], padding=1)(self.x)
        out2 = nn.Conv2d(in_channels=out.shape[1], out_channels=self.w2.shape[0],
                         kernel_size=self.w2.shape[-1])(out)
        return out2


class CustomWithLossCellV2(nn.Module):
    """The seed's fix: the layers built once in __init__ and called in forward."""

    def __init__(self, x, w, w2):
        super().__init__()
        self.x = x
        self.w = w
        self.w2 = w2
        self.conv1 = nn.Conv2d(in_channels=self.x.shape[1], out_channels=self.w.shape[0],
                               kernel_size=self.w.shape[-1], padding=1)
        self.conv2 = nn.Conv2d(in_channels=self.w.shape[0], out_channels=self.w2.shape[0],
                               kernel_size=self.w2.shape[-1])

    def forward(self):
        out = self.conv1(self.x)
        out2 = self.conv2(out)
        return out2


def test_building_conv2d_inside_forward_stops_with_an_explanation():
    x, w, w2 = data()
    qloss = CustomWithLossCell(x, w, w2)
    nb.optim.Adam([w, w2], lr=0.01)
    with pytest.raises(nn.BuildInForwardError) as info:
        qloss()
    error = info.value
    assert isinstance(error, NnbookError) and isinstance(error, RuntimeError)
    text = str(error)
    lines = text.splitlines()
    # where: the running module, by class (it is the outermost, so it has no path)
    assert lines[0] == ("CustomWithLossCell: Conv2d(in_channels=6, out_channels=6, "
                        "kernel_size=3, padding=1) was built while "
                        "CustomWithLossCell.forward() was running.")
    assert "inside:   CustomWithLossCell.forward()" in text
    # why it is a bug
    assert "new on every call" in text and "untrained" in text
    assert "neither the optimizer nor state_dict() ever sees them" in text
    assert "another layer's cached weights" in text
    # the user's source line
    assert "test_layer_built_in_forward.py, line" in text
    assert "out = nn.Conv2d(in_channels=self.x.shape[1], out_channels=self.w.shape[0]," in text
    # the fix, and the opt-out
    assert ("hint: build it once in __init__ (self.conv2d = Conv2d(in_channels=6, "
            "out_channels=6, kernel_size=3, padding=1)) and only call it in forward().") in text
    assert "nb.nn.allow_build_in_forward()" in text


def test_the_guard_names_a_nested_module_by_path():
    x, w, w2 = data()
    cell = CustomWithLossCell(x, w, w2)

    class Wrapper(nn.Module):
        def __init__(self):
            super().__init__()
            self.loss_cell = cell

        def forward(self):
            return self.loss_cell()

    with pytest.raises(nn.BuildInForwardError,
                       match=r"^loss_cell \(CustomWithLossCell\): Conv2d\("):
        Wrapper()()


def test_with_the_opt_out_the_layers_run_but_learn_nothing():
    x, w, w2 = data()
    qloss = CustomWithLossCell(x, w, w2)
    with nn.allow_build_in_forward():
        first, second = qloss(), qloss()
    assert first.shape == (4, 3, 5, 3)
    assert not np.allclose(
        first.detach().numpy(), second.detach().numpy()
    )  # new random weights on every call
    assert [n for n, _ in qloss.named_parameters()] == ["w", "w2"]  # the convs are invisible


def test_the_fixed_cell_has_distinct_names_and_trains():
    x, w, w2 = data()
    model = CustomWithLossCellV2(x, w, w2)
    assert [n for n, _ in model.named_parameters()] == [
        "w", "w2", "conv1.weight", "conv1.bias", "conv2.weight", "conv2.bias"]
    assert model.conv1.weight.path == "conv1.weight"
    assert model.conv2.weight.path == "conv2.weight"
    assert model.conv1.weight is not model.conv2.weight
    target = nb.randn(4, 3, 5, 3)
    layers = [model.conv1.weight, model.conv1.bias, model.conv2.weight, model.conv2.bias]
    opt = nb.optim.SGD(layers, lr=0.05)
    losses = []
    for _ in range(5):
        opt.zero_grad()
        loss = ((model() - target) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert all(b < a for a, b in zip(losses, losses[1:])), losses


def test_the_optimizer_names_w_and_w2_which_the_model_never_uses():
    x, w, w2 = data()
    model = CustomWithLossCellV2(x, w, w2)
    optimizer = nb.optim.Adam([w, w2], lr=0.01)  # as in the seed: only w and w2
    before = (w.detach().numpy().copy(), w2.detach().numpy().copy())
    with pytest.warns(UnusedParameterWarning) as record:
        optimizer.zero_grad()
        model().sum().backward()
        optimizer.step()
    assert len(record) == 1
    text = str(record[0].message)
    assert ("none of its 2 parameter(s) received a gradient from the last backward, "
            "although other parameters of CustomWithLossCellV2 did") in text
    assert "\n  w (6, 6, 3, 3)\n  w2 (3, 6, 1, 1)\n" in text
    assert "probably not used in the forward pass" in text
    assert record[0].filename == __file__
    np.testing.assert_array_equal(w.detach().numpy(), before[0])  # nothing pretended to learn
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # once per parameter, not every step
        for _ in range(2):
            optimizer.zero_grad()
            model().sum().backward()
            optimizer.step()

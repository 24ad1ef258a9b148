"""The swapped height and width: the Xception block from Lua torch whose depthwise backward
failed on a non-square input.  In nnbook it trains, matches PyTorch, passes gradcheck, and
a mismatch inside it names the layer's path."""
import contextlib

import numpy as np
import pytest

import nnbook as nb
from nnbook import nn
from nnbook.errors import ShapeError


def xception(channels=64, width=512, classes=3, multiplier=1, dtype=None):
    """The seed's model, written as naturally as in PyTorch."""
    model = nn.Sequential(
        nn.Conv2d(3, channels, 3, 2, 1),
        nn.BatchNorm2d(channels),
        nn.ReLU(),
        nn.Sum(
            nn.Conv2d(channels, width, 1, stride=2),
            nn.Sequential(
                nn.DepthwiseConv2d(channels, 3, depth_multiplier=multiplier, padding=1),
                nn.Conv2d(channels * multiplier, width, 1),
                nn.BatchNorm2d(width),
                nn.MaxPool2d(3, 2, 1),
            ),
        ),
        nn.ReLU(),
        nn.GlobalAvgPool2d(),
        nn.Reshape(width),
        nn.Linear(width, classes),
        nn.LogSoftmax(dim=1),
    )
    return model.to(dtype) if dtype is not None else model


def test_shapes_through_the_block_on_a_non_square_input():
    nb.manual_seed(2)
    model = xception()
    x = nb.randn(10, 3, 16, 8)
    assert model[:4](x).shape == (10, 512, 4, 2)
    out = model(x)
    assert out.shape == (10, 3)
    loss = nn.NLLLoss()(out, nb.randint(0, 3, (10,)))
    loss.backward()  # the step that failed in Lua torch
    assert model[3][1][0].weight.grad.shape == (64, 1, 3, 3)


def test_trains_and_round_trips_through_a_checkpoint(tmp_path):
    nb.manual_seed(0)
    model = xception(channels=8, width=16)
    x, y = nb.randn(10, 3, 16, 8), nb.randint(0, 3, (10,))
    opt = nb.optim.Adam(model.parameters(), lr=0.01)
    losses = []
    for _ in range(8):
        opt.zero_grad()
        loss = nn.NLLLoss()(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0]
    nb.save(model.state_dict(), tmp_path / "xception.npz")
    again = xception(channels=8, width=16)
    again.load_state_dict(nb.load(tmp_path / "xception.npz"))
    model.eval(), again.eval()
    np.testing.assert_array_equal(again(x).detach().numpy(), model(x).detach().numpy())


def test_a_wrong_width_inside_the_sum_names_the_path_and_the_layer_before():
    model = xception(channels=8, width=16)
    model[3][1][1] = nn.Conv2d(6, 16, 1)  # expects 6 channels, the depthwise conv gives 8
    with pytest.raises(ShapeError) as info:
        model(nb.randn(2, 3, 16, 8))
    text = str(info.value)
    assert text.startswith("3.1.1 (Conv2d): expects input with 6 channels, got 8.")
    assert "input (2, 8, 8, 4)   weight (16, 6, 1, 1)   groups=1" in text
    assert ("hint: 3.1.0 (DepthwiseConv2d) outputs 8 channels; use Conv2d(8, 16, 1) here, "
            "or make 3.1.0 (DepthwiseConv2d) output 6 channels.") in text


def test_branches_of_different_shapes_are_named():
    model = xception(channels=8, width=16)
    model[3][0] = nn.Conv2d(8, 16, 1)  # no stride: 8x4 against the other branch's 4x2
    with pytest.raises(ShapeError, match=r"^3 \(Sum\): the branches of Sum give different "
                       r"shapes: 3.0 \(Conv2d\) gives \(2, 16, 8, 4\), 3.1 \(Sequential\) "
                       r"gives \(2, 16, 4, 2\)"):
        model(nb.randn(2, 3, 16, 8))


def test_forward_and_every_gradient_match_pytorch():
    torch = pytest.importorskip("torch")
    tnn = torch.nn

    class Sum(tnn.Module):  # Lua's ConcatTable + CAddTable, children named 0, 1 as ours
        def __init__(self, *branches):
            super().__init__()
            for i, branch in enumerate(branches):
                self.add_module(str(i), branch)

        def forward(self, x):
            return sum(branch(x) for branch in self.children())

    reference = tnn.Sequential(
        tnn.Conv2d(3, 64, 3, 2, 1), tnn.BatchNorm2d(64), tnn.ReLU(),
        Sum(tnn.Conv2d(64, 512, 1, stride=2),
            tnn.Sequential(tnn.Conv2d(64, 64, 3, padding=1, groups=64), tnn.Conv2d(64, 512, 1),
                           tnn.BatchNorm2d(512), tnn.MaxPool2d(3, 2, 1))),
        tnn.ReLU(), tnn.AdaptiveAvgPool2d(1), tnn.Flatten(), tnn.Linear(512, 3),
        tnn.LogSoftmax(dim=1))
    nb.manual_seed(7)
    model = xception()
    assert list(model.state_dict()) == list(reference.state_dict())
    reference.load_state_dict({k: torch.tensor(v.detach().numpy().copy())
                               for k, v in model.state_dict().items()})
    rng = np.random.default_rng(0)
    x = rng.standard_normal((10, 3, 16, 8)).astype(np.float32)
    y = rng.integers(0, 3, 10)

    out = model(nb.tensor(x))
    loss = nn.NLLLoss()(out, nb.tensor(y))
    loss.backward()
    out_t = reference(torch.tensor(x))
    loss_t = tnn.NLLLoss()(out_t, torch.tensor(y))
    loss_t.backward()

    np.testing.assert_allclose(out.detach().numpy(), out_t.detach().numpy(), rtol=1e-4, atol=1e-5)
    assert loss.item() == pytest.approx(loss_t.item(), rel=1e-5)
    torch_params = dict(reference.named_parameters())
    names = [name for name, _ in model.named_parameters()]
    assert names == list(torch_params)
    # Biases just before a BatchNorm have a gradient of exactly zero in theory (the
    # normalisation removes any constant), so the tolerance is set by the largest gradient.
    scale = max(np.abs(p.grad.numpy()).max() for p in torch_params.values())
    for name, p in model.named_parameters():
        np.testing.assert_allclose(p.grad.numpy(), torch_params[name].grad.numpy(), rtol=1e-3,
                                   atol=1e-5 * scale, err_msg=name)
    torch_buffers = dict(reference.named_buffers())
    for name, buf in model.named_buffers():
        np.testing.assert_allclose(buf.detach().numpy(), torch_buffers[name].numpy(), rtol=1e-5,
                                   atol=1e-6, err_msg=name)


@contextlib.contextmanager
def parameters_replaced(model, tensors):
    """Run ``model`` with ``tensors`` in place of its parameters (gradcheck hands the
    function float64 copies, and the model has to compute with those)."""
    slots = [(module, name) for module in model.modules()
             for name, p in module._parameters.items() if p is not None]
    saved = [module.__dict__[name] for module, name in slots]
    try:
        for (module, name), t in zip(slots, tensors):
            module.__dict__[name] = t  # attribute lookup finds the instance dict first
        yield
    finally:
        for (module, name), p in zip(slots, saved):
            module.__dict__[name] = p


def test_gradcheck_on_a_small_float64_version_with_depth_multiplier_2():
    nb.manual_seed(3)
    model = xception(channels=2, width=3, classes=3, multiplier=2, dtype=np.float64)
    x = nb.randn(2, 3, 9, 5, dtype=np.float64, requires_grad=True)
    target = nb.tensor([2, 0])
    params = [p for _, p in model.named_parameters()]

    def loss_of(x, *weights):
        with parameters_replaced(model, weights):
            return nn.NLLLoss()(model(x), target)

    assert model[:4](x).shape == (2, 3, 3, 2)
    assert nb.gradcheck(loss_of, (x, *params))

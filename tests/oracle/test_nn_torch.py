"""Every layer, loss and optimizer against PyTorch: outputs, gradients, running statistics,
trajectories, state_dict keys.  (The oracle: required in CI, skipped without torch locally.)"""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
tnn = torch.nn

import nnbook as nb  # noqa: E402
from nnbook import nn  # noqa: E402


def to_torch(model, torch_model):
    """Copy nnbook's parameters and buffers into the torch model (the keys must agree)."""
    state = {k: torch.tensor(np.array(v.detach().numpy())) for k, v in model.state_dict().items()}
    torch_model.load_state_dict(state, strict=True)
    return torch_model


def compare(model, torch_model, x, *, target=None, rtol=1e-5, atol=1e-6, train=True):
    """Forward and backward of sum(out * r) in both; outputs and every gradient must agree."""
    model.train(train)
    torch_model.train(train)
    model.zero_grad()
    torch_model.zero_grad()
    xb = nb.tensor(x, requires_grad=True)
    xt = torch.tensor(x, requires_grad=True)
    out_b = model(xb) if target is None else model(xb, nb.tensor(target))
    out_t = torch_model(xt) if target is None else torch_model(xt, torch.tensor(target))
    np.testing.assert_allclose(out_b.detach().numpy(), out_t.detach().numpy(), rtol=rtol, atol=atol)
    r = np.random.default_rng(1).standard_normal(out_b.shape).astype(x.dtype)
    (out_b * nb.tensor(r)).sum().backward()
    (out_t * torch.tensor(r)).sum().backward()
    np.testing.assert_allclose(xb.grad.numpy(), xt.grad.numpy(), rtol=rtol, atol=atol)
    grads_t = dict(torch_model.named_parameters())
    for name, p in model.named_parameters():
        np.testing.assert_allclose(p.grad.numpy(), grads_t[name].grad.numpy(), rtol=rtol,
                                   atol=atol, err_msg=name)
    for name, buf in model.named_buffers():
        np.testing.assert_allclose(
            buf.detach().numpy(),
            dict(torch_model.named_buffers())[name].numpy(),
            rtol=rtol,
            atol=atol,
            err_msg=name,
        )
    return out_b


def randn(*shape, seed=0, dtype=np.float32):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("bias", [True, False])
def test_linear(bias):
    layer = nn.Linear(7, 3, bias=bias)
    compare(layer, to_torch(layer, tnn.Linear(7, 3, bias=bias)), randn(5, 7))
    compare(layer, to_torch(layer, tnn.Linear(7, 3, bias=bias)), randn(2, 4, 7))


@pytest.mark.parametrize("args", [
    dict(in_channels=3, out_channels=5, kernel_size=(3, 2)),
    dict(in_channels=4, out_channels=6, kernel_size=3, stride=(2, 1), padding=(1, 2)),
    dict(in_channels=4, out_channels=6, kernel_size=(2, 3), dilation=(2, 1), groups=2),
    dict(in_channels=3, out_channels=2, kernel_size=1, stride=2, bias=False),
    dict(in_channels=2, out_channels=3, kernel_size=3, padding=(1, 2), padding_mode="reflect"),
    dict(in_channels=2, out_channels=4, kernel_size=(2, 3), padding=1, stride=(1, 2),
         groups=2, padding_mode="circular"),
    dict(in_channels=2, out_channels=3, kernel_size=3, padding="same", dilation=(1, 2)),
    dict(in_channels=2, out_channels=3, kernel_size=(4, 3), padding="same",
         padding_mode="reflect"),  # 'same' with an even kernel: the odd pixel at the end
    dict(in_channels=2, out_channels=3, kernel_size=(2, 3), padding="same", dilation=(3, 2),
         padding_mode="replicate"),
])
def test_conv2d(args):
    layer = nn.Conv2d(**args)
    torch_layer = to_torch(layer, tnn.Conv2d(**args))
    compare(layer, torch_layer, randn(2, args["in_channels"], 9, 7), rtol=1e-4, atol=1e-5)
    assert repr(layer) == repr(torch_layer)


@pytest.mark.parametrize("make, tmake", [
    (lambda: nn.Linear(3, 4, bias=False), lambda: tnn.Linear(3, 4, bias=False)),
    (lambda: nn.BatchNorm2d(5, momentum=None), lambda: tnn.BatchNorm2d(5, momentum=None)),
    (lambda: nn.BatchNorm1d(5, affine=False), lambda: tnn.BatchNorm1d(5, affine=False)),
    (lambda: nn.MaxPool2d(3, 2, 1), lambda: tnn.MaxPool2d(3, 2, 1)),
    (lambda: nn.AvgPool2d((3, 2)), lambda: tnn.AvgPool2d((3, 2))),
    (lambda: nn.AdaptiveAvgPool2d((2, 3)), lambda: tnn.AdaptiveAvgPool2d((2, 3))),
    (lambda: nn.Dropout(0.2), lambda: tnn.Dropout(0.2)),
    (lambda: nn.Softmax(dim=1), lambda: tnn.Softmax(dim=1)),
    (lambda: nn.Flatten(), lambda: tnn.Flatten()),
])
def test_reprs_match_pytorchs(make, tmake):
    assert repr(make()) == repr(tmake())


@pytest.mark.parametrize("multiplier, stride", [(1, 1), (2, (2, 1))])
def test_depthwise_conv2d_is_pytorchs_grouped_conv(multiplier, stride):
    layer = nn.DepthwiseConv2d(4, (3, 2), depth_multiplier=multiplier, stride=stride,
                               padding=1)
    assert layer.weight.shape == (4 * multiplier, 1, 3, 2)
    torch_layer = tnn.Conv2d(4, 4 * multiplier, (3, 2), stride=stride, padding=1, groups=4)
    compare(layer, to_torch(layer, torch_layer), randn(3, 4, 9, 5), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("cls, tcls, shape", [
    (nn.BatchNorm2d, tnn.BatchNorm2d, (4, 3, 5, 2)),
    (nn.BatchNorm1d, tnn.BatchNorm1d, (6, 3)),
    (nn.BatchNorm1d, tnn.BatchNorm1d, (4, 3, 5)),
])
@pytest.mark.parametrize("kwargs", [{}, dict(momentum=None), dict(affine=False, eps=1e-3),
                                    dict(track_running_stats=False, momentum=0.3),
                                    dict(bias=False)])
def test_batch_norm_train_then_eval(cls, tcls, shape, kwargs):
    layer = cls(3, **kwargs)
    torch_layer = to_torch(layer, tcls(3, **kwargs))
    if layer.weight is not None:
        with nb.no_grad():
            layer.weight.data[...] = randn(3, seed=5) + 1
            if layer.bias is not None:
                layer.bias.data[...] = randn(3, seed=6)
        to_torch(layer, torch_layer)
    for step in range(3):  # running statistics after several batches
        compare(layer, torch_layer, randn(*shape, seed=10 + step) * 2 + 1)
    compare(layer, torch_layer, randn(*shape, seed=20), train=False)


@pytest.mark.parametrize("make, tmake", [
    (lambda: nn.ReLU(), lambda: tnn.ReLU()),
    (lambda: nn.Sigmoid(), lambda: tnn.Sigmoid()),
    (lambda: nn.Tanh(), lambda: tnn.Tanh()),
    (lambda: nn.Softmax(dim=1), lambda: tnn.Softmax(dim=1)),
    (lambda: nn.LogSoftmax(dim=-1), lambda: tnn.LogSoftmax(dim=-1)),
    (lambda: nn.Flatten(), lambda: tnn.Flatten()),
    (lambda: nn.Flatten(0, 2), lambda: tnn.Flatten(0, 2)),
    (lambda: nn.Identity(), lambda: tnn.Identity()),
    (lambda: nn.MaxPool2d(3, 2, 1), lambda: tnn.MaxPool2d(3, 2, 1)),
    (lambda: nn.MaxPool2d((2, 3), (1, 2), dilation=(2, 1), ceil_mode=True),
     lambda: tnn.MaxPool2d((2, 3), (1, 2), dilation=(2, 1), ceil_mode=True)),
    (lambda: nn.AvgPool2d(2), lambda: tnn.AvgPool2d(2)),
    (lambda: nn.AvgPool2d((3, 2), 1, padding=1, count_include_pad=False),
     lambda: tnn.AvgPool2d((3, 2), 1, padding=1, count_include_pad=False)),
    (lambda: nn.AdaptiveAvgPool2d((2, 3)), lambda: tnn.AdaptiveAvgPool2d((2, 3))),
    (lambda: nn.GlobalAvgPool2d(), lambda: tnn.AdaptiveAvgPool2d(1)),
    (lambda: nn.Dropout(0.3), lambda: tnn.Dropout(0.3)),  # compared in eval mode below
])
def test_parameterless_layers(make, tmake):
    x = randn(3, 4, 7, 5)
    compare(make(), tmake(), x, train=False)
    if not isinstance(make(), nn.Dropout):
        compare(make(), tmake(), x, train=True)


def test_reshape_matches_torch_view():
    x = randn(10, 512, 1, 1)
    out = nn.Reshape(512)(nb.tensor(x))
    np.testing.assert_array_equal(out.detach().numpy(), torch.tensor(x).view(10, 512).numpy())
    out = nn.Reshape(4, -1)(nb.tensor(randn(3, 8, 2)))
    assert out.shape == (3, 4, 4)


@pytest.mark.parametrize("make, tmake, target", [
    (lambda: nn.NLLLoss(), lambda: tnn.NLLLoss(), np.array([0, 3, 1, 3, 2])),
    (lambda: nn.NLLLoss(weight=nb.tensor([1.0, 2.0, 0.5, 3.0]), reduction="sum"),
     lambda: tnn.NLLLoss(weight=torch.tensor([1.0, 2.0, 0.5, 3.0]), reduction="sum"),
     np.array([0, 3, 1, 3, 2])),
    (lambda: nn.CrossEntropyLoss(ignore_index=1), lambda: tnn.CrossEntropyLoss(ignore_index=1),
     np.array([0, 3, 1, 3, 2])),
    (lambda: nn.CrossEntropyLoss(reduction="none", label_smoothing=0.1),
     lambda: tnn.CrossEntropyLoss(reduction="none", label_smoothing=0.1),
     np.array([0, 3, 1, 3, 2])),
    (lambda: nn.MSELoss(), lambda: tnn.MSELoss(), randn(5, 4, seed=9)),
])
def test_losses(make, tmake, target):
    x = randn(5, 4)
    if isinstance(make(), nn.NLLLoss):
        x = np.log(np.exp(x) / np.exp(x).sum(1, keepdims=True)).astype(np.float32)
    compare(make(), tmake(), x, target=target)


def test_init_follows_pytorchs_bounds():
    nb.manual_seed(0)
    conv = nn.Conv2d(6, 300, (3, 2))
    fan_in = 6 * 3 * 2
    bound = 1 / np.sqrt(fan_in)  # kaiming_uniform_(a=sqrt(5)) gives 1/sqrt(fan_in)
    w = conv.weight.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.98 * bound
    assert abs(w.std() - bound / np.sqrt(3)) < 0.01 * bound  # the std of U(-b, b)
    assert np.abs(conv.bias.detach().numpy()).max() <= bound
    torch_conv = tnn.Conv2d(6, 300, (3, 2))
    assert np.isclose(torch_conv.weight.detach().abs().max().item(), bound, rtol=0.02)
    nb.manual_seed(0)
    np.testing.assert_array_equal(
        nn.Conv2d(6, 300, (3, 2)).weight.detach().numpy(), w
    )  # reproducible


def _copy(model):
    """The same nnbook architecture in PyTorch (for the shared state_dict test)."""
    class Sum(tnn.Module):
        def __init__(self, *branches):
            super().__init__()
            for i, b in enumerate(branches):
                self.add_module(str(i), b)

    layers = []
    for m in model:
        layers.append({
            nn.Conv2d: lambda m: tnn.Conv2d(m.in_channels, m.out_channels, m.kernel_size),
            nn.BatchNorm2d: lambda m: tnn.BatchNorm2d(m.num_features),
            nn.ReLU: lambda m: tnn.ReLU(),
            nn.Sum: lambda m: Sum(*_copy(m)),
            nn.Flatten: lambda m: tnn.Flatten(),
            nn.Linear: lambda m: tnn.Linear(m.in_features, m.out_features),
        }[type(m)](m))
    return layers


def test_state_dict_keys_equal_pytorchs():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU())
            self.heads = nn.ModuleList([nn.Linear(4, 2), nn.Linear(4, 3)])
            self.scale = nn.Parameter(nb.ones(1))

    class TNet(tnn.Module):
        def __init__(self):
            super().__init__()
            self.features = tnn.Sequential(tnn.Conv2d(3, 4, 3), tnn.BatchNorm2d(4), tnn.ReLU())
            self.heads = tnn.ModuleList([tnn.Linear(4, 2), tnn.Linear(4, 3)])
            self.scale = tnn.Parameter(torch.ones(1))

    model, tmodel = Net(), TNet()
    assert list(model.state_dict()) == list(tmodel.state_dict())
    assert [n for n, _ in model.named_parameters()] == [n for n, _ in tmodel.named_parameters()]
    assert [n for n, _ in model.named_modules()] == [n for n, _ in tmodel.named_modules()]
    to_torch(model, tmodel)  # strict: every key and shape fits
    assert repr(model.features) == repr(tmodel.features)


# -- optimizers: trajectories over several steps -----------------------------------------

def _trajectory(make_nb, make_torch, steps=6):
    rng = np.random.default_rng(0)
    w0, x, y = randn(4, 3, seed=1), randn(8, 3, seed=2), randn(8, 4, seed=3)
    pb = nn.Parameter(w0.copy())
    pt = torch.tensor(w0.copy(), requires_grad=True)
    ob, ot = make_nb([pb]), make_torch([pt])
    for _ in range(steps):
        noise = rng.standard_normal(4).astype(np.float32)
        ob.zero_grad()
        ot.zero_grad()
        loss_b = (((nb.tensor(x) @ pb.T) - nb.tensor(y + noise)) ** 2).mean()
        loss_t = (((torch.tensor(x) @ pt.T) - torch.tensor(y + noise)) ** 2).mean()
        loss_b.backward()
        loss_t.backward()
        ob.step()
        ot.step()
        np.testing.assert_allclose(pb.detach().numpy(), pt.detach().numpy(), rtol=1e-5, atol=1e-6)
    return ob, ot


@pytest.mark.parametrize("kwargs", [
    dict(lr=0.1),
    dict(lr=0.05, momentum=0.9),
    dict(lr=0.05, momentum=0.9, dampening=0.3, weight_decay=0.01),
    dict(lr=0.05, momentum=0.8, nesterov=True, weight_decay=0.1),
])
def test_sgd_trajectory(kwargs):
    _trajectory(lambda p: nb.optim.SGD(p, **kwargs), lambda p: torch.optim.SGD(p, **kwargs))


@pytest.mark.parametrize("kwargs", [
    dict(),
    dict(lr=0.05, betas=(0.8, 0.95), eps=1e-6),
    dict(lr=0.02, weight_decay=0.1),
    dict(lr=0.02, amsgrad=True),
])
def test_adam_trajectory_and_state(kwargs):
    ob, ot = _trajectory(lambda p: nb.optim.Adam(p, **kwargs),
                         lambda p: torch.optim.Adam(p, **kwargs))
    sb, st = ob.state_dict(), ot.state_dict()
    assert set(sb["state"][0]) == set(st["state"][0])
    np.testing.assert_allclose(sb["state"][0]["exp_avg_sq"].detach().numpy(),
                               st["state"][0]["exp_avg_sq"].numpy(), rtol=1e-5, atol=1e-9)
    assert float(sb["state"][0]["step"]) == float(st["state"][0]["step"])
    assert set(sb["param_groups"][0]) <= set(st["param_groups"][0])

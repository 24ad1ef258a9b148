"""Layers without PyTorch: construction checks, error messages with paths and hints,
containers, dropout, initialisation.  (Values against PyTorch: oracle/test_nn_torch.py.)"""
import numpy as np
import pytest

import nnbook as nb
from nnbook import nn
from nnbook.errors import InputError, NnbookError, ShapeError

# -- errors name the layer's path and what fed it -----------------------------------------

def test_conv_channel_mismatch_names_path_values_and_the_layer_before():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU(),
                                          nn.Conv2d(16, 32, 3))

        def forward(self, x):
            return self.features(x)

    with pytest.raises(ShapeError) as info:
        Net()(nb.randn(2, 3, 11, 9))
    assert str(info.value).splitlines() == [
        "features.2 (Conv2d): expects input with 16 channels, got 8.",
        "  input (2, 8, 9, 7)   weight (32, 16, 3, 3)   groups=1",
        info.value.args[0].splitlines()[2],  # the user's line
        "  hint: features.1 (ReLU) outputs 8 channels; use Conv2d(8, 32, 3) here, or make "
        "features.0 (Conv2d) output 16 channels.",
    ]
    assert "test_layers.py, line" in str(info.value)


def test_mismatch_hint_keeps_strides_and_padding_and_stops_at_flatten():
    model = nn.Sequential(nn.Conv2d(3, 4, 3, stride=(2, 1), padding=1), nn.Conv2d(5, 6, 3,
                                                                                  stride=2))
    with pytest.raises(ShapeError, match=r"use Conv2d\(4, 6, 3, stride=2\) here, or make "
                       r"0 \(Conv2d\) output 5 channels"):
        model(nb.randn(1, 3, 8, 6))
    model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.Flatten(), nn.Linear(10, 2))
    with pytest.raises(ShapeError, match=r"1 \(Flatten\) outputs 36 features; use "
                       r"Linear\(36, 2\) here, or make 1 \(Flatten\) output 10 features"):
        model(nb.randn(2, 3, 5, 5))


def test_first_layer_mismatch_talks_about_the_input():
    with pytest.raises(ShapeError, match=r"the model's input has 1 channels; use "
                       r"Conv2d\(1, 4, 3\) here, or feed data with 3 channels"):
        nn.Sequential(nn.Conv2d(3, 4, 3))(nb.randn(2, 1, 6, 5))


def test_inside_a_user_module_the_previous_layer_is_not_guessed():
    class Two(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(4, 6)
            self.b = nn.Linear(5, 2)

        def forward(self, x):
            return self.b(self.a(x))

    with pytest.raises(ShapeError, match=r"^b \(Linear\): expects input with 5 features in "
                       r"its last dimension, got 6[\s\S]*hint: the layer before it outputs "
                       r"6 features; use Linear\(6, 2\) here"):
        Two()(nb.randn(3, 4))


def test_batch_norm_errors():
    with pytest.raises(ShapeError, match=r"^0 \(BatchNorm2d\): expects a 4-D input"):
        nn.Sequential(nn.BatchNorm2d(3))(nb.randn(2, 3))
    with pytest.raises(ShapeError, match=r"expects input with 4 channels, got 3[\s\S]*"
                       r"use BatchNorm2d\(3\) here"):
        nn.Sequential(nn.Conv2d(2, 3, 1), nn.BatchNorm2d(4))(nb.randn(2, 2, 3, 5))


def test_reshape_per_sample_and_its_error():
    assert nn.Reshape(512)(nb.randn(10, 512, 1, 1)).shape == (10, 512)
    assert nn.Reshape((2, 3))(nb.randn(4, 6)).shape == (4, 2, 3)
    with pytest.raises(ShapeError, match=r"cannot reshape each sample of \(512, 2, 1\) \(1024 "
                       r"values\) into \(512,\) \(512 values\)[\s\S]*use Reshape\(1024\) or "
                       r"Flatten\(\)"):
        nn.Reshape(512)(nb.randn(10, 512, 2, 1))
    with pytest.raises(InputError, match="positive ints"):
        nn.Reshape(0)


@pytest.mark.parametrize("make, match", [
    (lambda: nn.Conv2d(3, 4, 0), "kernel_size must be an int >= 1"),
    (lambda: nn.Conv2d(3, 4, (3, 3, 3)), "kernel_size must be"),
    (lambda: nn.Conv2d(3.0, 4, 3), "in_channels must be an int"),
    (lambda: nn.Conv2d(3, 4, 3, groups=2), r"groups=2 must divide in_channels \(3\)"),
    (lambda: nn.Conv2d(4, 4, 3, stride=2, padding="same"), "padding='same' needs stride 1"),
    (lambda: nn.Linear(-1, 3), "in_features must be an int >= 0"),
    (lambda: nn.Dropout(1.5), "probability between 0 and 1"),
    (lambda: nn.Softmax(), r"Softmax needs dim[\s\S]*Softmax\(dim=1\)"),
    (lambda: nn.LogSoftmax(), r"LogSoftmax needs dim"),
    (lambda: nn.NLLLoss(reduction="avg"), "reduction must be 'mean', 'sum' or 'none'"),
    (lambda: nn.Sequential(nn.ReLU), r"did you forget the parentheses: ReLU\(...\)"),
    (lambda: nn.Sum(), "needs at least one branch"),
    (lambda: nn.Linear(2, 3, device="cuda"), "CPU only"),
    (lambda: nn.Conv2d(2, 3, 3, padding_mode="mirror"), "padding_mode must be one of"),
])
def test_construction_errors(make, match):
    with pytest.raises(NnbookError, match=match):
        make()


# -- the layers themselves -----------------------------------------------------------------

def test_depthwise_conv_weight_layout_and_repr():
    layer = nn.DepthwiseConv2d(4, (3, 1), depth_multiplier=3, padding=(1, 0), bias=False)
    assert layer.weight.shape == (12, 1, 3, 1)
    assert layer.groups == 4 and layer.out_channels == 12 and layer.channels == 4
    assert layer(nb.randn(2, 4, 5, 7)).shape == (2, 12, 5, 7)
    assert repr(layer) == ("DepthwiseConv2d(4, kernel_size=(3, 1), stride=(1, 1), "
                           "depth_multiplier=3, padding=(1, 0), bias=False)")


def test_conv_same_padding_and_unbatched_input():
    layer = nn.Conv2d(2, 3, (3, 2), padding="same")
    assert layer(nb.randn(1, 2, 5, 4)).shape == (1, 3, 5, 4)
    assert nn.Conv2d(2, 3, 3)(nb.randn(2, 6, 5)).shape == (3, 4, 3)


def test_global_avg_pool_keeps_two_trailing_ones():
    x = nb.randn(3, 5, 4, 2)
    out = nn.GlobalAvgPool2d()(x)
    assert out.shape == (3, 5, 1, 1)
    np.testing.assert_allclose(
        out.detach().numpy()[:, :, 0, 0], x.detach().numpy().mean(axis=(2, 3)), rtol=1e-6, atol=1e-6
    )  # float32 means of 8 values near 0: rounding


def test_sum_and_concat():
    x = nb.randn(2, 3, 4, 5)
    s = nn.Sum(nn.Identity(), nn.ReLU(), nn.Identity())
    np.testing.assert_allclose(
        s(x).detach().numpy(), 2 * x.detach().numpy() + np.maximum(x.detach().numpy(), 0), rtol=1e-6
    )
    c = nn.Concat(nn.Identity(), nn.Conv2d(3, 2, 1))
    assert c(x).shape == (2, 5, 4, 5) and repr(c).startswith("Concat(\n  dim=1\n  (0)")
    assert nn.Concat(nn.Identity(), nn.Identity(), dim=-1)(x).shape == (2, 3, 4, 10)
    bad = nn.Sequential(nn.Identity(), nn.Concat(nn.Identity(), nn.MaxPool2d(2)))
    with pytest.raises(ShapeError, match=r"^1 \(Concat\): the branches of Concat give "
                       r"different shapes: 1.0 \(Identity\) gives \(2, 3, 4, 5\), "
                       r"1.1 \(MaxPool2d\) gives \(2, 3, 2, 2\)"):
        bad(x)


def test_sequential_and_module_list_behave_like_lists():
    seq = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    assert len(seq) == 3 and isinstance(seq[-1], nn.Linear)
    assert [type(m).__name__ for m in seq] == ["Linear", "ReLU", "Linear"]
    head = seq[1:]
    assert isinstance(head, nn.Sequential) and [n for n, _ in head.named_children()] == ["1", "2"]
    seq.append(nn.Tanh())
    assert seq(nb.randn(5, 3)).shape == (5, 2)
    del seq[1]
    assert [n for n, _ in seq.named_children()] == ["0", "1", "2"]
    assert seq[0].weight.path == "0.weight"
    with pytest.raises(NnbookError, match="index 7 is out of range"):
        seq[7]
    layers = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])
    layers.insert(1, nn.Linear(2, 5))
    assert [m.out_features for m in layers] == [2, 5, 2, 2]
    assert [n for n, _ in layers.named_parameters()][2:4] == ["1.weight", "1.bias"]
    with pytest.raises(NnbookError, match="a ModuleList only holds layers"):
        layers(nb.randn(2, 2))
    assert not isinstance(layers, nn.Sequential)


def test_dropout_scales_in_training_and_passes_through_in_eval():
    layer = nn.Dropout(0.25)
    x = nb.ones(400, 50)
    nb.manual_seed(4)
    out = layer(x).detach().numpy()
    kept = out != 0
    assert set(np.unique(out)) == {0.0, np.float32(1 / 0.75)}
    assert abs(kept.mean() - 0.75) < 0.01
    nb.manual_seed(4)
    np.testing.assert_array_equal(layer(x).detach().numpy(), out)  # the seed makes it reproducible
    layer.eval()
    assert layer(x) is x or np.array_equal(layer(x).detach().numpy(), x.detach().numpy())


def test_batch_norm_buffers_and_eval_uses_running_statistics():
    layer = nn.BatchNorm1d(3, momentum=0.5)
    x = nb.tensor(np.arange(12, dtype=np.float32).reshape(4, 3))
    layer(x)
    np.testing.assert_allclose(layer.running_mean.detach().numpy(), 0.5 * np.array([4.5, 5.5, 6.5]))
    assert int(layer.num_batches_tracked.detach().numpy()) == 1
    layer.eval()
    out = layer(x)
    expected = (x.detach().numpy() - layer.running_mean.detach().numpy()) / np.sqrt(
        layer.running_var.detach().numpy() + 1e-5
    )
    np.testing.assert_allclose(out.detach().numpy(), expected, rtol=1e-5)
    assert int(layer.num_batches_tracked.detach().numpy()) == 1  # eval counts nothing
    assert [n for n, _ in layer.named_buffers()] == ["running_mean", "running_var",
                                                     "num_batches_tracked"]
    assert repr(layer) == ("BatchNorm1d(3, eps=1e-05, momentum=0.5, affine=True, bias=True, "
                           "track_running_stats=True)")


def test_losses_take_pytorch_arguments():
    logits = nb.randn(5, 4, requires_grad=True)
    target = nb.tensor([0, 3, 1, 3, 2])
    loss = nn.CrossEntropyLoss(weight=[1.0, 2.0, 1.0, 0.5])(logits, target)
    loss.backward()
    assert loss.shape == () and logits.grad.shape == (5, 4)
    assert "weight" in nn.NLLLoss(weight=nb.ones(4)).state_dict()
    assert nn.MSELoss(reduction="none")(nb.ones(2, 3), nb.zeros(2, 3)).shape == (2, 3)
    assert repr(nn.MSELoss(reduction="sum")) == "MSELoss()"  # as PyTorch prints a loss


def test_legacy_loss_flags_become_reduction_with_a_warning():
    from nnbook.nn.functional import LegacyReductionWarning

    with pytest.warns(LegacyReductionWarning, match="use reduction='sum'"):
        loss = nn.MSELoss(size_average=False)
    assert loss.reduction == "sum"
    with pytest.warns(LegacyReductionWarning, match="use reduction='none'"):
        assert nn.NLLLoss(reduce=False).reduction == "none"


def test_init_is_reproducible_and_pytorch_shaped():
    nb.manual_seed(11)
    a = nn.Linear(20, 7)
    nb.manual_seed(11)
    b = nn.Linear(20, 7)
    np.testing.assert_array_equal(a.weight.detach().numpy(), b.weight.detach().numpy())
    np.testing.assert_array_equal(a.bias.detach().numpy(), b.bias.detach().numpy())
    assert np.abs(a.weight.detach().numpy()).max() <= 1 / np.sqrt(20)
    assert a.weight.dtype == np.float32
    w = nb.zeros(50, 40)
    nn.init.xavier_uniform_(w)
    assert np.abs(w.detach().numpy()).max() <= np.sqrt(6 / 90)
    nn.init.kaiming_normal_(w, nonlinearity="relu")
    assert abs(w.detach().numpy().std() - np.sqrt(2 / 40)) < 0.02
    with pytest.raises(InputError, match="at least 2 dimensions"):
        nn.init.kaiming_uniform_(nb.zeros(3))


def test_sum_branches_that_round_differently_get_a_rounding_hint(rng):
    x = nb.tensor(rng.standard_normal((2, 3, 9, 5)).astype(np.float32))
    # both halve the size; the 1x1 conv rounds up (5x3), MaxPool2d(2, 2) down (4x2)
    unit = nn.Sum(nn.Conv2d(3, 3, 1, stride=2), nn.MaxPool2d(2, 2))
    with pytest.raises(nb.errors.ShapeError) as caught:
        unit(x)
    text = str(caught.value)
    assert "(2, 3, 5, 3)" in text and "(2, 3, 4, 2)" in text
    assert "one rounds up and the other down" in text and "MaxPool2d(3, 2, 1)" in text
    assert "in total" not in text
    assert nn.Sum(nn.Conv2d(3, 3, 1, stride=2), nn.MaxPool2d(3, 2, 1))(x).shape == (2, 3, 5, 3)
    assert nn.Sum(nn.Conv2d(3, 3, 1, stride=2),
                  nn.MaxPool2d(2, 2, ceil_mode=True))(x).shape == (2, 3, 5, 3)


def test_sum_branches_with_different_strides_get_the_stride_hint(rng):
    x = nb.tensor(rng.standard_normal((2, 3, 9, 5)).astype(np.float32))
    with pytest.raises(nb.errors.ShapeError) as caught:
        nn.Sum(nn.Conv2d(3, 3, 1), nn.MaxPool2d(2, 2))(x)
    assert "the stride the other branch has in total" in str(caught.value)
    assert "rounds up" not in str(caught.value)

"""Lines that look like mistakes but PyTorch accepts: nnbook accepts them too.

The catalogue beside this file refuses what PyTorch refuses; these are its other edge,
so that a student's working PyTorch code keeps working here.
"""
import numpy as np
import pytest

import nnbook as nb
from nnbook import nn


def test_a_seed_given_as_text_is_read_as_a_number():
    """PyTorch takes anything int() takes: manual_seed('42') is manual_seed(42)."""
    nb.manual_seed("42")
    a = nb.randn(3)
    nb.manual_seed(42)
    assert np.array_equal(a.numpy(), nb.randn(3).numpy())


def test_the_max_over_dim_0_of_a_0_d_tensor_is_the_tensor_itself():
    values, indices = nb.tensor(3.0).max(dim=0)
    assert values.item() == 3.0 and indices.item() == 0


@pytest.mark.parametrize("device", ["cpu", nb.device("cpu"), "cpu:0"], ids=str)
def test_moving_to_the_cpu_changes_nothing(device):
    x = nb.randn(2, 3)
    assert x.to(device) is x and x.cpu() is x
    model = nn.Linear(3, 2)
    weight = model.weight
    assert model.to(device) is model and model.cpu() is model and model.weight is weight


def test_a_device_and_a_dtype_together():
    model = nn.Linear(3, 2)
    assert model.to(nb.device("cpu"), nb.float64).weight.dtype == nb.float64
    assert model.to(device="cpu", dtype=nb.float32).weight.dtype == nb.float32
    x = nb.randn(2, 3)
    assert x.to("cpu", nb.float64).dtype == nb.float64


def test_sgd_without_a_learning_rate_uses_pytorchs_default():
    """PyTorch's SGD has lr=1e-3 by default."""
    w = nb.ones(3, requires_grad=True)
    opt = nb.optim.SGD([w])
    assert opt.param_groups[0]["lr"] == 1e-3
    (w * 2).sum().backward()
    opt.step()
    np.testing.assert_allclose(w.detach().numpy(), 1 - 2e-3, rtol=1e-6)


def test_addmm_broadcasts_its_input_and_beta_0_ignores_nan_in_it():
    """PyTorch's addmm adds a bias row (or a number) to every row, and with beta=0 never
    reads the input, so NaN in an uninitialised buffer does no harm."""
    x, w = nb.ones(5, 4), nb.ones(4, 3)
    assert nb.addmm(nb.zeros(3), x, w).shape == (5, 3)
    assert nb.addmm(nb.tensor(1.0), x, w).shape == (5, 3)
    out = nb.full((5, 3), float("nan")).addmm_(x, w, beta=0)
    assert np.isfinite(out.numpy()).all()


def test_addcmul_and_addcdiv_take_a_value_of_a_0_d_tensor_and_integer_tensors():
    """PyTorch reads value=torch.tensor(2.0) as 2.0, and keeps integers integers."""
    x = nb.ones(3)
    np.testing.assert_allclose(x.addcmul(x, x, value=nb.tensor(2.0)).numpy(), 3.0)
    assert nb.addcmul(nb.tensor([1, 2]), nb.tensor([1, 2]), nb.tensor([3, 3])).dtype == nb.int64


def test_labels_of_1_and_minus_1_and_counts_may_be_integers():
    """PyTorch promotes integer targets: SoftMarginLoss(scores, long labels), Poisson counts."""
    scores = nb.randn(5, 3)
    labels = nb.tensor([[1, -1, 1]] * 5)
    assert nn.SoftMarginLoss()(scores, labels).dtype == nb.float32
    assert nn.HingeEmbeddingLoss()(scores.abs(), labels).dtype == nb.float32
    assert nn.PoissonNLLLoss()(scores, nb.tensor([[0, 2, 5]] * 5)).dtype == nb.float32


def test_a_variance_per_sample_or_a_single_number():
    """GaussianNLLLoss takes var of the input's shape, one dimension fewer, size 1 in one
    dimension, or a float."""
    mean, target = nb.randn(5, 3), nb.randn(5, 3)
    for var in (nb.ones(5, 3), nb.ones(5), nb.ones(5, 1), nb.ones(1, 3), 0.5):
        assert nn.GaussianNLLLoss()(mean, target, var).shape == ()


def test_bags_with_the_last_offset_and_empty_bags():
    """EmbeddingBag: include_last_offset=True with the input's length last; empty bags."""
    bag = nn.EmbeddingBag(10, 4, mode="sum", include_last_offset=True)
    out = bag(nb.tensor([1, 2, 3]), nb.tensor([0, 0, 3, 3]))
    assert out.shape == (3, 4) and not out.detach().numpy()[[0, 2]].any()


def test_one_volume_without_its_batch_dimension_goes_through_the_3d_layers():
    """PyTorch's 3-D layers take (C, D, H, W) as one sample, as the 2-D ones take (C, H, W)."""
    model = nn.Sequential(nn.Conv3d(3, 4, 3, padding=1), nn.InstanceNorm3d(4),
                          nn.ConstantPad3d(1, 0.5), nn.AvgPool3d(2), nn.AdaptiveMaxPool3d(2))
    assert model(nb.randn(3, 5, 7, 4)).shape == (4, 2, 2, 2)

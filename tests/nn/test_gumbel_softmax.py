"""F.gumbel_softmax: its draws differ from PyTorch's, so what is tested is what does not
depend on them -- the soft sample's formula and gradient given the noise (against PyTorch),
the frequencies of the hard samples, one-hots, the straight-through gradient, repeatability
under nb.manual_seed, and errors."""
import numpy as np
import pytest

import nnbook as nb
from nnbook.errors import DimError, DTypeError
from nnbook.nn import functional as F
from nnbook.random import numpy_generator


def test_the_frequencies_of_hard_samples_are_the_softmax_of_the_logits(rng):
    logits = rng.standard_normal(5)
    draws = 20000
    samples = F.gumbel_softmax(nb.tensor(np.tile(logits, (draws, 1))), tau=0.7, hard=True)
    freq = samples.numpy().sum(axis=0) / draws
    p = np.exp(logits) / np.exp(logits).sum()
    # each frequency within 5 binomial standard deviations of its probability
    assert np.all(np.abs(freq - p) < 5 * np.sqrt(p * (1 - p) / draws)), (freq, p)


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_soft_samples_are_distributions_along_dim(rng, dim):
    y = F.gumbel_softmax(nb.tensor(rng.standard_normal((3, 7, 5))), tau=0.5, dim=dim).numpy()
    assert y.shape == (3, 7, 5) and np.all(y >= 0)
    np.testing.assert_allclose(y.sum(axis=dim), 1.0, rtol=1e-12)


def test_hard_samples_are_one_hot_at_the_soft_samples_largest_entry(rng):
    logits = nb.tensor(rng.standard_normal((7, 5)))
    nb.manual_seed(3)
    soft = F.gumbel_softmax(logits, tau=0.5, dim=0).numpy()
    nb.manual_seed(3)
    hard = F.gumbel_softmax(logits, tau=0.5, hard=True, dim=0).numpy()
    assert set(np.unique(hard)) == {0.0, 1.0}
    np.testing.assert_array_equal(hard.sum(axis=0), 1.0)
    np.testing.assert_array_equal(hard.argmax(axis=0), soft.argmax(axis=0))


def test_hard_samples_pass_the_soft_samples_gradient_straight_through(rng):
    x = rng.standard_normal((7, 5))
    r = nb.tensor(rng.standard_normal((7, 5)))
    grads = []
    for hard in (False, True):
        logits = nb.tensor(x, requires_grad=True)
        nb.manual_seed(11)  # the same noise for both
        (F.gumbel_softmax(logits, tau=0.3, hard=hard) * r).sum().backward()
        grads.append(logits.grad.numpy())
    assert np.abs(grads[0]).max() > 0
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-12, atol=1e-15)


def test_the_same_seed_gives_the_same_sample_and_another_seed_another(rng):
    logits = nb.tensor(rng.standard_normal((7, 5)))
    nb.manual_seed(5)
    a = F.gumbel_softmax(logits).numpy()
    nb.manual_seed(5)
    b = F.gumbel_softmax(logits).numpy()
    c = F.gumbel_softmax(logits).numpy()
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, c)


def test_a_small_tau_makes_the_soft_sample_nearly_one_hot(rng):
    logits = nb.tensor(rng.standard_normal((50, 5)))
    y = F.gumbel_softmax(logits, tau=0.01).numpy()
    assert np.mean(y.max(axis=1) > 0.99) > 0.9


def test_given_the_noise_the_soft_sample_and_its_gradient_are_pytorchs(rng):
    torch = pytest.importorskip("torch")
    x, r = rng.standard_normal((3, 7, 5)), rng.standard_normal((3, 7, 5))
    nb.manual_seed(2)
    gumbels = -np.log(numpy_generator().exponential(size=x.shape))  # the draw nnbook makes
    nb.manual_seed(2)
    logits = nb.tensor(x, requires_grad=True)
    y = F.gumbel_softmax(logits, tau=0.6, dim=1)
    (y * nb.tensor(r)).sum().backward()
    tlogits = torch.tensor(x, requires_grad=True)
    ty = torch.softmax((tlogits + torch.tensor(gumbels)) / 0.6, dim=1)
    (ty * torch.tensor(r)).sum().backward()
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(logits.grad.numpy(), tlogits.grad.numpy(), rtol=1e-10,
                               atol=1e-14)


def test_shape_inference_draws_nothing():
    class Sampler(nb.nn.Module):
        def forward(self, x):
            return F.gumbel_softmax(x, hard=True)

    state = nb.get_rng_state()
    trace = nb.infer_shapes(Sampler(), (4, 3))
    assert trace.output_shape == (4, 3)
    np.testing.assert_array_equal(nb.get_rng_state().numpy(), state.numpy())


def test_wrong_inputs_get_nnbook_errors():
    with pytest.raises(DTypeError, match="gumbel_softmax: expects floating point logits"):
        F.gumbel_softmax(nb.tensor([[1, 2]]))
    with pytest.raises(DimError, match="dim=2 is out of range"):
        F.gumbel_softmax(nb.randn(3, 4), dim=2)

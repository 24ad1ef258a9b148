"""Weight and spectral normalisation without PyTorch, both ways nn.utils offers them
(parametrizations, and the older forward pre-hooks): the weight is g * v / ||v|| with the
norm over the right dims; sigma follows the power iteration written out in numpy (u, then
v, for the parametrization; v, then u, for the hook) in training mode and stays put in
eval mode; the result has spectral norm 1; gradients pass gradcheck; removing leaves a
plain parameter with the normalised value."""
import warnings

import numpy as np
import pytest

import nnbook as nb
from nnbook import nn
from nnbook.autograd import gradcheck
from nnbook.errors import DimError, InputError
from nnbook.nn.utils import parametrizations as PZ
from nnbook.nn.utils import parametrize as P
from nnbook.nn.utils.norm_hooks import NormHookError


def layer_with(rng, make):
    layer = make().double()
    with nb.no_grad():
        for p in layer.parameters():
            p.copy_(nb.tensor(rng.standard_normal(p.shape)))
    return layer


def unit(x):
    return x / max(np.linalg.norm(x), 1e-12)


def as_matrix(w, dim):
    return np.moveaxis(w, dim, 0).reshape(w.shape[dim], -1)


# -- weight_norm -----------------------------------------------------------------------

@pytest.mark.parametrize("make, dim, g_shape", [
    (lambda: nn.Linear(5, 7), 0, (7, 1)),
    (lambda: nn.Linear(5, 7), 1, (1, 5)),
    (lambda: nn.Linear(5, 7), None, ()),
    (lambda: nn.Conv2d(3, 4, (3, 2)), 0, (4, 1, 1, 1)),
    (lambda: nn.Conv2d(3, 4, (3, 2)), -2, (1, 1, 3, 1)),
])
def test_weight_norm_stores_lengths_and_directions(make, dim, g_shape, rng):
    layer = layer_with(rng, make)
    w = layer.weight.detach().numpy().copy()
    PZ.weight_norm(layer, dim=dim)
    assert list(layer.state_dict()) == ["bias", "parametrizations.weight.original0",
                                        "parametrizations.weight.original1"]
    g = layer.parametrizations.weight.original0.detach().numpy().copy()
    v = layer.parametrizations.weight.original1.detach().numpy().copy()
    axes = tuple(range(w.ndim)) if dim is None else \
        tuple(a for a in range(w.ndim) if a != dim % w.ndim)
    assert g.shape == g_shape
    np.testing.assert_allclose(g, np.sqrt((w * w).sum(axes, keepdims=dim is not None)))
    np.testing.assert_array_equal(v, w)
    with nb.no_grad():  # a new length and direction give w = g v / ||v||
        layer.parametrizations.weight.original0.mul_(3.0)
        layer.parametrizations.weight.original1.add_(0.5)
    v = v + 0.5
    expected = 3 * g * v / np.sqrt((v * v).sum(axes, keepdims=True))
    np.testing.assert_allclose(layer.weight.detach().numpy(), expected, rtol=1e-12)


def test_weight_norm_gradients_pass_gradcheck(rng):
    g = nb.tensor(rng.uniform(0.5, 2.0, (7, 1)), requires_grad=True)
    v = nb.tensor(rng.standard_normal((7, 5)), requires_grad=True)
    assert gradcheck(lambda g, v: PZ.weight_norm_from(v, g, 0), (g, v))
    assert gradcheck(lambda v: PZ.weight_norm_from(v, g.detach()[:1, :1].reshape(()), -1), (v,))


def test_the_old_weight_norm_warns_and_recomputes_before_every_call(rng):
    layer = layer_with(rng, lambda: nn.Linear(5, 7))
    with pytest.warns(FutureWarning, match="parametrizations.weight_norm"):
        nn.utils.weight_norm(layer)
    assert list(layer.state_dict()) == ["bias", "weight_g", "weight_v"]
    with nb.no_grad():
        layer.weight_g.mul_(2.0)
    before = layer.weight.detach().numpy().copy()
    layer(nb.randn(3, 5, dtype=nb.float64))
    np.testing.assert_allclose(layer.weight.detach().numpy(), 2 * before)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        with pytest.raises(NormHookError, match="already has weight_norm"):
            nn.utils.weight_norm(layer)
    nn.utils.remove_weight_norm(layer)
    assert list(layer.state_dict()) == ["bias", "weight"]
    assert isinstance(layer.weight, nn.Parameter)
    np.testing.assert_allclose(layer.weight.detach().numpy(), 2 * before)


# -- spectral_norm, as a parametrization -------------------------------------------------

def load_unit_vectors(rng, u, v):
    with nb.no_grad():
        u.copy_(nb.tensor(unit(rng.standard_normal(u.shape))))
        v.copy_(nb.tensor(unit(rng.standard_normal(v.shape))))
    return u.numpy().copy(), v.numpy().copy()


@pytest.mark.parametrize("make, dim", [(lambda: nn.Linear(5, 7), 0),
                                       (lambda: nn.Conv2d(3, 4, (3, 2)), 0),
                                       (lambda: nn.ConvTranspose2d(3, 4, (3, 2)), 1)])
def test_one_power_step_in_training_moves_u_then_v(make, dim, rng):
    layer = PZ.spectral_norm(layer_with(rng, make))
    norm = layer.parametrizations.weight[0]
    W = as_matrix(layer.parametrizations.weight.original.detach().numpy(), dim)
    u, v = load_unit_vectors(rng, norm._u, norm._v)
    weight = layer.weight.detach().numpy()
    u = unit(W @ v)
    v = unit(W.T @ u)
    np.testing.assert_allclose(norm._u.numpy(), u, rtol=1e-12)
    np.testing.assert_allclose(norm._v.numpy(), v, rtol=1e-12)
    sigma = u @ W @ v
    np.testing.assert_allclose(as_matrix(weight, dim), W / sigma, rtol=1e-12)


def test_in_eval_mode_u_and_v_stay_and_sigma_uses_them(rng):
    layer = PZ.spectral_norm(layer_with(rng, lambda: nn.Linear(5, 7))).eval()
    norm = layer.parametrizations.weight[0]
    u, v = load_unit_vectors(rng, norm._u, norm._v)
    W = layer.parametrizations.weight.original.detach().numpy()
    np.testing.assert_allclose(layer.weight.detach().numpy(), W / (u @ W @ v), rtol=1e-12)
    np.testing.assert_array_equal(norm._u.numpy(), u)
    np.testing.assert_array_equal(norm._v.numpy(), v)


def test_after_power_iterations_the_largest_singular_value_is_one(rng):
    layer = PZ.spectral_norm(layer_with(rng, lambda: nn.Conv2d(3, 4, (3, 2))),
                             n_power_iterations=3)
    for _ in range(10):
        weight = layer.weight
    singular = np.linalg.svd(as_matrix(weight.detach().numpy(), 0), compute_uv=False)
    np.testing.assert_allclose(singular[0], 1.0, rtol=1e-6)
    assert list(layer.state_dict()) == ["bias", "parametrizations.weight.original",
                                        "parametrizations.weight.0._u",
                                        "parametrizations.weight.0._v"]


def test_spectral_norm_gradients_pass_gradcheck(rng):
    norm = PZ._SpectralNorm(nb.tensor(rng.standard_normal((7, 5))), dim=0).eval()
    w = nb.tensor(rng.standard_normal((7, 5)), requires_grad=True)
    assert gradcheck(norm, (w,))
    vector = PZ._SpectralNorm(nb.tensor(rng.standard_normal(7)))
    b = nb.tensor(rng.standard_normal(7), requires_grad=True)
    np.testing.assert_allclose(vector(b).detach().numpy(), unit(b.detach().numpy()))
    assert gradcheck(vector, (b,))


def test_shape_inference_moves_no_power_step(rng):
    layer = PZ.spectral_norm(layer_with(rng, lambda: nn.Linear(5, 7)))
    norm = layer.parametrizations.weight[0]
    u = norm._u.numpy().copy()
    nb.summary(layer, (3, 5))
    np.testing.assert_array_equal(norm._u.numpy(), u)


def test_spectral_norm_arguments_are_checked(rng):
    with pytest.raises(InputError, match="n_power_iterations must be a positive int, got 0"):
        PZ.spectral_norm(nn.Linear(5, 7), n_power_iterations=0)
    with pytest.raises(DimError, match="dim=2 is out of range"):
        PZ.spectral_norm(nn.Linear(5, 7), dim=2)
    with pytest.raises(InputError, match="no parameter or buffer named 'wieght'"):
        PZ.spectral_norm(nn.Linear(5, 7), name="wieght")
    layer = nn.Linear(5, 7)
    PZ.spectral_norm(layer)
    PZ.spectral_norm(layer)  # stacked, as PyTorch allows
    assert len(layer.parametrizations.weight) == 2
    P.remove_parametrizations(layer, "weight")
    assert type(layer) is nn.Linear


# -- spectral_norm, the forward pre-hook -----------------------------------------------

def test_the_old_spectral_norm_steps_v_then_u_before_each_training_call(rng):
    layer = layer_with(rng, lambda: nn.Conv2d(3, 4, (3, 2)))
    weight = layer.weight
    nn.utils.spectral_norm(layer)
    assert list(layer.state_dict()) == ["bias", "weight_orig", "weight_u", "weight_v"]
    assert layer.weight_orig is weight
    np.testing.assert_array_equal(layer.weight.detach().numpy(), weight.detach().numpy())
    u, v = load_unit_vectors(rng, layer.weight_u, layer.weight_v)
    W = as_matrix(weight.detach().numpy(), 0)
    layer(nb.randn(2, 3, 6, 5, dtype=nb.float64))
    v = unit(W.T @ u)
    u = unit(W @ v)
    np.testing.assert_allclose(layer.weight_u.numpy(), u, rtol=1e-12)
    np.testing.assert_allclose(layer.weight_v.numpy(), v, rtol=1e-12)
    np.testing.assert_allclose(as_matrix(layer.weight.detach().numpy(), 0), W / (u @ W @ v),
                               rtol=1e-12)
    layer.eval()(nb.randn(2, 3, 6, 5, dtype=nb.float64))
    np.testing.assert_array_equal(layer.weight_u.numpy(), u)
    with pytest.raises(NormHookError, match="already has spectral_norm"):
        nn.utils.spectral_norm(layer)
    nn.utils.remove_spectral_norm(layer)
    assert list(layer.state_dict()) == ["bias", "weight"]
    np.testing.assert_allclose(as_matrix(layer.weight.detach().numpy(), 0), W / (u @ W @ v),
                               rtol=1e-12)


def test_removing_a_norm_that_is_not_there_is_refused():
    with pytest.raises(InputError, match="no spectral_norm on 'weight'"):
        nn.utils.remove_spectral_norm(nn.Linear(5, 7))
    with pytest.raises(InputError, match="no weight_norm on 'weight'"):
        nn.utils.remove_weight_norm(nn.Linear(5, 7))


def test_a_refused_parametrization_on_top_leaves_u_and_v_where_they_were(rng):
    class FirstRows(nn.Module):
        def forward(self, X):
            return X[:2]

    layer = PZ.spectral_norm(layer_with(rng, lambda: nn.Linear(5, 7)))
    norm = layer.parametrizations.weight[0]
    u, v = norm._u.numpy().copy(), norm._v.numpy().copy()
    with pytest.raises(nb.ShapeError, match=r"would change the shape of module\.weight"):
        P.register_parametrization(layer, "weight", FirstRows())  # its check ran a power step
    np.testing.assert_array_equal(norm._u.numpy(), u)
    np.testing.assert_array_equal(norm._v.numpy(), v)
    assert len(layer.parametrizations.weight) == 1

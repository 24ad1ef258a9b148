"""nn.utils (gradient clipping, parameters as a vector) and F's distances, normalize and
one_hot against PyTorch, gradients in float64.  (Oracle: skipped without torch locally,
required in CI.)"""
import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import nnbook as nb  # noqa: E402
from nnbook.nn import functional as F  # noqa: E402

TF = torch.nn.functional
SHAPES = [(7, 5), (5,), (3, 2, 3)]


def param_pairs(seed, scale=3.0):
    """The same parameters and gradients in nnbook and torch (float64)."""
    rng = np.random.default_rng(seed)
    mine, theirs = [], []
    for shape in SHAPES:
        value, grad = rng.standard_normal(shape), rng.standard_normal(shape) * scale
        p, tp = nb.nn.Parameter(nb.tensor(value)), torch.nn.Parameter(torch.tensor(value))
        p.grad, tp.grad = nb.tensor(grad.copy()), torch.tensor(grad.copy())
        mine.append(p)
        theirs.append(tp)
    return mine, theirs


def assert_grads_equal(mine, theirs):
    for p, tp in zip(mine, theirs):
        np.testing.assert_allclose(p.grad.numpy(), tp.grad.numpy(), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("max_norm", [1.5, 1e4])
@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3, math.inf, 0.5])
def test_clip_grad_norm(max_norm, norm_type):
    mine, theirs = param_pairs(0)
    total = nb.nn.utils.clip_grad_norm_(mine, max_norm, norm_type)
    ttotal = torch.nn.utils.clip_grad_norm_(theirs, max_norm, norm_type)
    assert math.isclose(total.item(), ttotal.item(), rel_tol=1e-12)
    assert_grads_equal(mine, theirs)


def test_clip_grad_norm_skips_parameters_without_gradients():
    mine, theirs = param_pairs(1)
    mine[1].grad, theirs[1].grad = None, None
    total = nb.nn.utils.clip_grad_norm_(iter(mine), 0.7)  # a generator, as parameters() is
    ttotal = torch.nn.utils.clip_grad_norm_(iter(theirs), 0.7)
    assert math.isclose(total.item(), ttotal.item(), rel_tol=1e-12)
    assert_grads_equal([mine[0], mine[2]], [theirs[0], theirs[2]])
    assert nb.nn.utils.clip_grad_norm_([nb.nn.Parameter(nb.zeros(3))], 1.0).item() == 0.0


def test_clip_grad_norm_of_one_tensor_and_a_model():
    model = nb.nn.Linear(7, 3)
    model(nb.randn(5, 7)).sum().backward()
    before = model.weight.grad.numpy().copy()
    total = nb.nn.utils.clip_grad_norm_(model.weight, 0.1)
    np.testing.assert_allclose(total.item(), np.linalg.norm(before), rtol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(model.weight.grad.numpy()), 0.1, rtol=1e-4)


def test_error_if_nonfinite_like_pytorch_and_nothing_changes():
    mine, theirs = param_pairs(2)
    mine[0].grad.numpy()[0, 0] = np.inf
    theirs[0].grad[0, 0] = math.inf
    before = [p.grad.numpy().copy() for p in mine]
    with pytest.raises(RuntimeError, match="hint:"):
        nb.nn.utils.clip_grad_norm_(mine, 1.0, error_if_nonfinite=True)
    with pytest.raises(RuntimeError):
        torch.nn.utils.clip_grad_norm_(theirs, 1.0, error_if_nonfinite=True)
    for p, b in zip(mine, before):
        np.testing.assert_array_equal(p.grad.numpy(), b)
    # without the check both scale by max_norm / inf = 0 (and inf * 0 = nan)
    total = nb.nn.utils.clip_grad_norm_(mine, 1.0)
    ttotal = torch.nn.utils.clip_grad_norm_(theirs, 1.0)
    assert total.item() == ttotal.item() == math.inf
    for p, tp in zip(mine, theirs):
        np.testing.assert_array_equal(p.grad.numpy(), tp.grad.numpy())


def test_clip_grad_value():
    mine, theirs = param_pairs(3)
    assert nb.nn.utils.clip_grad_value_(mine, 1.3) is None
    torch.nn.utils.clip_grad_value_(theirs, 1.3)
    assert_grads_equal(mine, theirs)
    with pytest.raises(ValueError, match="hint:"):
        nb.nn.utils.clip_grad_value_(mine, -1)


def test_clipping_refuses_what_is_not_parameters():
    with pytest.raises(TypeError, match="hint:"):
        nb.nn.utils.clip_grad_norm_(nb.nn.Linear(3, 2), 1.0)  # the model, not its parameters
    with pytest.raises(TypeError, match="hint:"):
        nb.nn.utils.clip_grad_norm_([np.zeros(3)], 1.0)


def test_parameters_to_vector_and_back():
    mine, theirs = param_pairs(4)
    vec = nb.nn.utils.parameters_to_vector(mine)
    tvec = torch.nn.utils.parameters_to_vector(theirs)
    np.testing.assert_array_equal(vec.detach().numpy(), tvec.detach().numpy())
    # it stays in the graph: the gradient of sum(vec * r) is r, reshaped
    r = np.random.default_rng(5).standard_normal(vec.shape)
    for p in mine:
        p.grad = None
    (vec * nb.tensor(r)).sum().backward()
    np.testing.assert_array_equal(np.concatenate([p.grad.numpy().ravel() for p in mine]), r)
    new = np.random.default_rng(6).standard_normal(vec.shape)
    nb.nn.utils.vector_to_parameters(nb.tensor(new), mine)
    torch.nn.utils.vector_to_parameters(torch.tensor(new), theirs)
    for p, tp in zip(mine, theirs):
        np.testing.assert_array_equal(p.detach().numpy(), tp.detach().numpy())


def test_vector_of_the_wrong_length_changes_nothing():
    mine, _ = param_pairs(7)
    before = [p.detach().numpy().copy() for p in mine]
    with pytest.raises(ValueError, match="hint:"):
        nb.nn.utils.vector_to_parameters(nb.zeros(44), mine)
    for p, b in zip(mine, before):
        np.testing.assert_array_equal(p.detach().numpy(), b)


# -- functional ----------------------------------------------------------------------

def check(fn, tfn, arrays, **kwargs):
    """Output and input gradients of sum(out * r), float64, nnbook vs torch."""
    xs = [nb.tensor(a, requires_grad=True) for a in arrays]
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    out, tout = fn(*xs, **kwargs), tfn(*ts, **kwargs)
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-10,
                               atol=1e-12)
    r = np.random.default_rng(9).standard_normal(tuple(out.shape))
    (out * nb.tensor(r)).sum().backward()
    (tout * torch.tensor(r)).sum().backward()
    for x, t in zip(xs, ts):
        np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-9, atol=1e-12)


def arrays(*shapes, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s) for s in shapes]


@pytest.mark.parametrize("kwargs", [{}, dict(p=1.0, dim=0), dict(p=3.0, dim=-1),
                                    dict(dim=2, eps=0.5)])
def test_normalize(kwargs):
    check(F.normalize, TF.normalize, arrays((5, 7, 3)), **kwargs)


@pytest.mark.parametrize("shapes,kwargs", [
    (((5, 7), (5, 7)), {}), (((5, 7, 3), (1, 7, 3)), dict(dim=1)),
    (((7, 5), (7, 5)), dict(dim=0, eps=1e-3)),
])
def test_cosine_similarity(shapes, kwargs):
    check(F.cosine_similarity, TF.cosine_similarity, arrays(*shapes), **kwargs)


@pytest.mark.parametrize("kwargs", [{}, dict(p=1.0), dict(p=3.0, keepdim=True),
                                    dict(eps=0.1)])
def test_pairwise_distance(kwargs):
    check(F.pairwise_distance, TF.pairwise_distance, arrays((7, 5), (7, 5), seed=1),
          **kwargs)


@pytest.mark.parametrize("num_classes", [-1, 9])
def test_one_hot(num_classes):
    labels = np.random.default_rng(2).integers(0, 7, (5, 3))
    mine = F.one_hot(nb.tensor(labels), num_classes)
    theirs = TF.one_hot(torch.tensor(labels), num_classes)
    assert mine.dtype == nb.int64
    np.testing.assert_array_equal(mine.numpy(), theirs.numpy())
    with pytest.raises(ValueError, match="hint:"):
        F.one_hot(nb.tensor(labels), 3)

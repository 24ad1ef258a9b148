"""The margin and likelihood losses (soft_margin, multilabel_soft_margin, multi_margin,
multilabel_margin, hinge_embedding, poisson_nll, gaussian_nll,
triplet_margin_with_distance) and their layers against PyTorch in float64 on odd shapes:
values and every gradient for each reduction, the layers' reprs, state_dict keys and
signatures, and errors where PyTorch raises.  (The oracle: required in CI, skipped
without torch locally.)"""
import inspect

import numpy as np
import pytest

torch = pytest.importorskip("torch")
tF = torch.nn.functional

import nnbook as nb  # noqa: E402
from nnbook import nn  # noqa: E402
from nnbook.errors import NnbookError  # noqa: E402
from nnbook.nn import functional as F  # noqa: E402

REDUCTIONS = ["none", "mean", "sum"]


def agree(ours, theirs, arrays, differentiable, rng, reduction, tol=1e-10):
    """ours(*tensors, reduction=...) against theirs: the value, then the gradients of
    sum(out * r) for a random r, for every input marked differentiable."""
    b = [nb.tensor(a, requires_grad=d) for a, d in zip(arrays, differentiable)]
    t = [torch.tensor(a, requires_grad=d) for a, d in zip(arrays, differentiable)]
    y, yt = ours(*b, reduction=reduction), theirs(*t, reduction=reduction)
    assert y.shape == tuple(yt.shape) and y.dtype == nb.float64
    np.testing.assert_allclose(y.detach().numpy(), yt.detach().numpy(), rtol=tol, atol=tol)
    r = rng.standard_normal(y.shape)
    y.backward(nb.tensor(r))
    yt.backward(torch.tensor(r))
    for ours_t, theirs_t, d in zip(b, t, differentiable):
        if d:
            np.testing.assert_allclose(ours_t.grad.numpy(), theirs_t.grad.numpy(), rtol=tol,
                                       atol=tol)


def multilabel_targets(rng, n, classes):
    target = np.full((n, classes), -1, dtype=np.int64)
    for i in range(n):
        k = int(rng.integers(0, classes + 1))
        target[i, :k] = rng.permutation(classes)[:k]
    target[0, :3] = [2, 2, -1]  # a class listed twice counts twice
    return target


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_soft_margin_and_hinge_embedding_like_pytorch(rng, reduction):
    x, y = rng.standard_normal((7, 5)) * 3, rng.choice([-1.0, 1.0], (7, 5))
    # PyTorch's soft_margin_loss gives the target no gradient
    agree(F.soft_margin_loss, tF.soft_margin_loss, [x, y], [True, False], rng, reduction)
    y[0, :2] = [0.0, 2.0]  # neither 1 nor -1: PyTorch adds both terms
    agree(lambda a, b, **k: F.hinge_embedding_loss(a, b, 0.4, **k),
          lambda a, b, **k: tF.hinge_embedding_loss(a, b, 0.4, **k), [x, y], [True, False],
          rng, reduction)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", [(7, 5), (5,), (3, 4, 5)])
def test_multilabel_soft_margin_like_pytorch(rng, reduction, shape):
    x, t, w = rng.standard_normal(shape), rng.random(shape), rng.random(shape[-1])
    agree(lambda a, b, **k: F.multilabel_soft_margin_loss(a, b, nb.tensor(w), **k),
          lambda a, b, **k: tF.multilabel_soft_margin_loss(a, b, torch.tensor(w), **k),
          [x, t], [True, True], rng, reduction)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("p,margin,weighted", [(1, 1.0, False), (2, 0.6, True),
                                               (1, -0.3, True)])
def test_multi_margin_like_pytorch(rng, reduction, p, margin, weighted):
    w = rng.random(5) if weighted else None
    kw = dict(p=p, margin=margin)
    for x, y in ((rng.standard_normal((7, 5)), rng.integers(0, 5, 7)),
                 (rng.standard_normal(5), np.int64(3)), (rng.standard_normal(()), np.int64(0))):
        ww = None if w is None or x.ndim == 0 else w
        agree(lambda a, b, ww=ww, **k: F.multi_margin_loss(
                  a, b, weight=None if ww is None else nb.tensor(ww), **kw, **k),
              lambda a, b, ww=ww, **k: tF.multi_margin_loss(
                  a, b, weight=None if ww is None else torch.tensor(ww), **kw, **k),
              [x, y], [True, False], rng, reduction)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_multilabel_margin_like_pytorch(rng, reduction):
    x, target = rng.standard_normal((7, 5)), multilabel_targets(rng, 7, 5)
    agree(F.multilabel_margin_loss, tF.multilabel_margin_loss, [x, target], [True, False],
          rng, reduction)
    agree(F.multilabel_margin_loss, tF.multilabel_margin_loss, [x[3], target[3]],
          [True, False], rng, reduction)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("log_input,full", [(True, False), (True, True), (False, False),
                                            (False, True)])
def test_poisson_nll_like_pytorch(rng, reduction, log_input, full):
    x = rng.standard_normal((7, 5)) if log_input else rng.random((7, 5)) + 0.05
    counts = rng.poisson(2.0, (7, 5)).astype(np.float64)
    counts[0, 0] = 0.0
    # with full=True PyTorch's gradient for a target of 0 is nan (0 * log 0 in its
    # backward); nnbook's is finite, so only the input's gradient is compared there
    agree(lambda a, b, **k: F.poisson_nll_loss(a, b, log_input, full, eps=1e-6, **k),
          lambda a, b, **k: tF.poisson_nll_loss(a, b, log_input, full, eps=1e-6, **k),
          [x, counts], [True, not full], rng, reduction)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("var_shape", [(7, 5), (7,), (7, 1), (1, 5), "number"])
def test_gaussian_nll_like_pytorch(rng, reduction, var_shape):
    mu, t = rng.standard_normal((7, 5)), rng.standard_normal((7, 5))
    if var_shape == "number":
        for full in (False, True):
            y = F.gaussian_nll_loss(nb.tensor(mu), nb.tensor(t), 0.7, full, reduction=reduction)
            yt = tF.gaussian_nll_loss(torch.tensor(mu), torch.tensor(t), 0.7, full,
                                      reduction=reduction)
            np.testing.assert_allclose(y.numpy(), yt.numpy(), rtol=1e-12)
        return
    var = rng.random(var_shape) + 0.05
    var.reshape(-1)[0] = 1e-9  # below eps: clamped for the value only
    for full in (False, True):
        agree(lambda a, b, c, full=full, **k: F.gaussian_nll_loss(a, b, c, full, eps=1e-5, **k),
              lambda a, b, c, full=full, **k: tF.gaussian_nll_loss(a, b, c, full, eps=1e-5,
                                                                   **k),
              [mu, t, var], [True, True, True], rng, reduction)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_triplet_margin_with_distance_like_pytorch(rng, reduction):
    a, p, n = (rng.standard_normal((7, 5)) for _ in range(3))
    agree(lambda *x, **k: F.triplet_margin_with_distance_loss(*x, swap=True, **k),
          lambda *x, **k: tF.triplet_margin_with_distance_loss(*x, swap=True, **k),
          [a, p, n], [True] * 3, rng, reduction)
    agree(lambda *x, **k: F.triplet_margin_with_distance_loss(
              *x, distance_function=lambda u, v: 1 - F.cosine_similarity(u, v), margin=0.4,
              **k),
          lambda *x, **k: tF.triplet_margin_with_distance_loss(
              *x, distance_function=lambda u, v: 1 - tF.cosine_similarity(u, v), margin=0.4,
              **k), [a, p, n], [True] * 3, rng, reduction)


# ---------------------------------------------------------------------------
# Layers: the same results, reprs, state_dict keys and signatures
# ---------------------------------------------------------------------------

def test_the_layers_give_their_functions_results_like_pytorch(rng):
    x, y = rng.standard_normal((7, 5)), rng.integers(0, 5, 7)
    w = rng.random(5)
    pairs = [
        (nn.MultiMarginLoss(2, 0.5, nb.tensor(w), reduction="sum"),
         torch.nn.MultiMarginLoss(2, 0.5, torch.tensor(w), reduction="sum"), [x, y]),
        (nn.MultiLabelSoftMarginLoss(nb.tensor(w)),
         torch.nn.MultiLabelSoftMarginLoss(torch.tensor(w)), [x, rng.random((7, 5))]),
        (nn.MultiLabelMarginLoss(), torch.nn.MultiLabelMarginLoss(),
         [x, multilabel_targets(rng, 7, 5)]),
        (nn.SoftMarginLoss(reduction="none"), torch.nn.SoftMarginLoss(reduction="none"),
         [x, np.sign(rng.standard_normal((7, 5)))]),
        (nn.HingeEmbeddingLoss(0.3), torch.nn.HingeEmbeddingLoss(0.3),
         [x, np.sign(rng.standard_normal((7, 5)))]),
        (nn.PoissonNLLLoss(False, True, eps=1e-4), torch.nn.PoissonNLLLoss(False, True, eps=1e-4),
         [np.abs(x), rng.poisson(3.0, (7, 5)).astype(np.float64)]),
        (nn.GaussianNLLLoss(full=True), torch.nn.GaussianNLLLoss(full=True),
         [x, x[::-1].copy(), rng.random(7) + 0.1]),
        (nn.TripletMarginWithDistanceLoss(margin=2.0, swap=True),
         torch.nn.TripletMarginWithDistanceLoss(margin=2.0, swap=True),
         [x, x[::-1].copy(), x * 2]),
    ]
    for ours, theirs, arrays in pairs:
        assert repr(ours) == repr(theirs)
        assert list(ours.state_dict()) == list(theirs.state_dict())
        got = ours(*[nb.tensor(a) for a in arrays]).numpy()
        np.testing.assert_allclose(got, theirs(*[torch.tensor(a) for a in arrays]).numpy(),
                                   rtol=1e-10, atol=1e-12)


FUNCTIONS = ["soft_margin_loss", "multilabel_soft_margin_loss", "multi_margin_loss",
             "multilabel_margin_loss", "hinge_embedding_loss", "poisson_nll_loss",
             "gaussian_nll_loss", "triplet_margin_with_distance_loss"]
LAYERS = ["SoftMarginLoss", "MultiLabelSoftMarginLoss", "MultiMarginLoss",
          "MultiLabelMarginLoss", "HingeEmbeddingLoss", "PoissonNLLLoss", "GaussianNLLLoss",
          "TripletMarginWithDistanceLoss"]


def parameters(fn):
    return [(p.name, p.default, p.kind) for p in inspect.signature(fn).parameters.values()]


@pytest.mark.parametrize("name", FUNCTIONS)
def test_functions_take_pytorchs_arguments_and_defaults(name):
    assert parameters(getattr(F, name)) == parameters(getattr(tF, name))
    assert name in F.__all__


@pytest.mark.parametrize("name", LAYERS)
def test_layers_take_pytorchs_arguments_and_defaults(name):
    ours, theirs = getattr(nn, name), getattr(torch.nn, name)
    assert parameters(ours.__init__) == parameters(theirs.__init__)
    assert [p[0] for p in parameters(ours.forward)] == [p[0] for p in parameters(theirs.forward)]
    assert name in nn.__all__


# ---------------------------------------------------------------------------
# Errors where PyTorch raises
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("call", [
    lambda F, t: F.multi_margin_loss(t(np.zeros((7, 5))), t(np.arange(7)), reduction="none"),
    lambda F, t: F.multi_margin_loss(t(np.zeros((7, 5))), t(np.zeros(7, np.int64)), p=3),
    lambda F, t: F.multi_margin_loss(t(np.zeros((2, 3, 5))), t(np.zeros(2, np.int64))),
    lambda F, t: F.multilabel_margin_loss(t(np.zeros((7, 5))), t(np.full((7, 5), 5))),
    lambda F, t: F.gaussian_nll_loss(t(np.zeros((7, 5))), t(np.zeros((7, 5))),
                                     t(-np.ones(7))),
    lambda F, t: F.gaussian_nll_loss(t(np.zeros((7, 5))), t(np.zeros((7, 5))), -1.0),
    lambda F, t: F.gaussian_nll_loss(t(np.zeros((7, 5))), t(np.zeros((7, 5))),
                                     t(np.ones(5))),
    lambda F, t: F.gaussian_nll_loss(t(np.zeros((7, 5, 3))), t(np.zeros((7, 5, 3))),
                                     t(np.ones((7, 1, 1)))),
    lambda F, t: F.triplet_margin_with_distance_loss(t(np.zeros((7, 5))), t(np.zeros((7, 5))),
                                                     t(np.zeros(5))),
    lambda F, t: F.triplet_margin_with_distance_loss(t(np.zeros((7, 5))), t(np.zeros((7, 5))),
                                                     t(np.zeros((7, 5))), margin=0.0),
    lambda F, t: F.soft_margin_loss(t(np.zeros((7, 5))), t(np.zeros((7, 5))), reduction="avg"),
])
def test_refused_where_pytorch_refuses(call):
    with pytest.raises(Exception) as theirs:
        call(tF, torch.tensor)
    with pytest.raises(NnbookError) as ours:
        call(F, nb.tensor)
    # the builtin class PyTorch's error has (a RuntimeError of PyTorch is a shape or value
    # error here: nnbook's errors are ValueErrors, IndexErrors or TypeErrors)
    if not isinstance(theirs.value, RuntimeError):
        assert isinstance(ours.value, type(theirs.value))


ELEMENTWISE = {
    "soft_margin_loss": lambda m, x, t, r: m.soft_margin_loss(x, t, reduction=r),
    "hinge_embedding_loss": lambda m, x, t, r: m.hinge_embedding_loss(x, t, reduction=r),
    "poisson_nll_loss": lambda m, x, t, r: m.poisson_nll_loss(x, t, full=True, reduction=r),
    "gaussian_nll_loss": lambda m, x, t, r: m.gaussian_nll_loss(x, t, x * 0 + 1.5, reduction=r),
    "multilabel_soft_margin_loss": lambda m, x, t, r: m.multilabel_soft_margin_loss(
        x, t, reduction=r),
}


@pytest.mark.parametrize("name", sorted(ELEMENTWISE))
@pytest.mark.parametrize("shape", [(), (0,), (0, 5), (7, 0)])
def test_0_d_and_empty_inputs_like_pytorch(rng, name, shape):
    x, t = rng.random(shape) + 0.5, rng.random(shape) * 3
    for reduction in REDUCTIONS:
        fn = ELEMENTWISE[name]
        try:
            theirs = fn(tF, torch.tensor(x), torch.tensor(t), reduction)
        except IndexError:  # a 0-d input has no class dimension
            with pytest.raises(IndexError):
                fn(F, nb.tensor(x), nb.tensor(t), reduction)
            continue
        ours = fn(F, nb.tensor(x), nb.tensor(t), reduction)
        assert ours.shape == tuple(theirs.shape)
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)  # nan alike


@pytest.mark.parametrize("reduction", ["none"])  # PyTorch's empty 'mean' and 'sum' are
def test_an_empty_batch_of_margins_like_pytorch(reduction):  # uninitialised memory
    x, labels = np.zeros((0, 5)), np.zeros(0, dtype=np.int64)
    for ours, theirs in (
            (F.multi_margin_loss(nb.tensor(x), nb.tensor(labels), reduction=reduction),
             tF.multi_margin_loss(torch.tensor(x), torch.tensor(labels), reduction=reduction)),
            (F.multilabel_margin_loss(nb.tensor(x), nb.tensor(labels.reshape(0, 5)),
                                      reduction=reduction),
             tF.multilabel_margin_loss(torch.tensor(x), torch.tensor(labels.reshape(0, 5)),
                                       reduction=reduction))):
        assert ours.shape == tuple(theirs.shape)
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("name", sorted(ELEMENTWISE))
def test_inf_and_nan_inputs_like_pytorch(name):
    x = np.array([[np.inf, 1.0, -np.inf, np.nan, 0.5]] * 2)
    t = np.array([[1.0, -1.0, -1.0, 1.0, np.inf], [0.0, 5.0, 1.0, 2.0, 1.0]])
    ours = ELEMENTWISE[name](F, nb.tensor(x), nb.tensor(t), "none")
    theirs = ELEMENTWISE[name](tF, torch.tensor(x), torch.tensor(t), "none")
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)  # inf, nan alike

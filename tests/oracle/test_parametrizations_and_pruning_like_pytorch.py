"""Parametrizations, weight and spectral normalisation (both ways) and pruning against
PyTorch, in float64: the same state_dict keys in the same order, and with the values loaded
across the same outputs, gradients, spectral-norm buffers after the same power steps, and
masks for the deterministic pruning methods; errors of PyTorch's builtin classes.
(Oracle: skipped without torch locally, required in CI.)"""
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
prune = pytest.importorskip("torch.nn.utils.prune")

import nnbook as nb  # noqa: E402

TP, NP = prune, nb.nn.utils.prune
TZ, NZ = torch.nn.utils.parametrizations, nb.nn.utils.parametrizations
TR, NR = torch.nn.utils.parametrize, nb.nn.utils.parametrize

LAYERS = {
    "linear": (lambda nn: nn.Linear(5, 7), (3, 5)),
    "conv": (lambda nn: nn.Conv2d(3, 4, (3, 2)), (2, 3, 6, 5)),
    "conv_transpose": (lambda nn: nn.ConvTranspose2d(3, 4, (3, 2)), (2, 3, 4, 5)),
}


def pair(kind, rng, apply=None, load_after=True):
    """The same layer in both libraries (float64, the same random weights), ``apply`` done
    to each (a function of (module, library)), then (``load_after``) torch's state dict
    loaded into nnbook's: random parts, such as spectral norm's u and v, then agree."""
    make, shape = LAYERS[kind]
    theirs, mine = make(torch.nn).double(), make(nb.nn).double()
    with torch.no_grad():
        for p in theirs.parameters():
            p.copy_(torch.tensor(rng.standard_normal(tuple(p.shape))))
    load(mine, theirs)
    if apply is not None:
        apply(theirs, "torch")
        apply(mine, "nnbook")
    if load_after:
        load(mine, theirs)
    return theirs, mine, rng.standard_normal(shape)


def load(mine, theirs):
    state = theirs.state_dict()
    assert list(mine.state_dict()) == list(state)
    mine.load_state_dict({k: nb.tensor(v.numpy()) for k, v in state.items()})


def assert_same_state(mine, theirs):
    state = theirs.state_dict()
    assert list(mine.state_dict()) == list(state)
    for key, value in mine.state_dict().items():
        np.testing.assert_allclose(value.numpy(), state[key].numpy(), rtol=1e-10, atol=1e-12,
                                   err_msg=key)


def run_both(theirs, mine, x, grad_out_rng):
    """Outputs and the gradients of every parameter after a backward of a random grad."""
    yt, ym = theirs(torch.tensor(x)), mine(nb.tensor(x))
    np.testing.assert_allclose(ym.detach().numpy(), yt.detach().numpy(), rtol=1e-10,
                               atol=1e-12)
    grad = grad_out_rng.standard_normal(tuple(yt.shape))
    yt.backward(torch.tensor(grad))
    ym.backward(nb.tensor(grad))
    tgrads = dict(theirs.named_parameters())
    for name, p in mine.named_parameters():
        np.testing.assert_allclose(p.grad.numpy(), tgrads[name].grad.numpy(), rtol=1e-9,
                                   atol=1e-12, err_msg=name)


class Doubled:
    """A parametrization class for either library (made per library by ``made``)."""

    @staticmethod
    def made(nn):
        class Twice(nn.Module):
            def forward(self, X):
                return X * 2

            def right_inverse(self, A):
                return A / 2

        class Split(nn.Module):
            def forward(self, a, b):
                return a + b * b

            def right_inverse(self, A):
                return A - 1, A * 0 + 1

        return Twice, Split


@pytest.mark.parametrize("kind", ["linear", "conv"])
def test_parametrizations_of_ones_own_like_pytorch(kind, rng):
    def apply(module, library):
        lib = torch if library == "torch" else nb
        Twice, Split = Doubled.made(lib.nn)
        reg = (TR if library == "torch" else NR).register_parametrization
        reg(module, "weight", Split())
        reg(module, "weight", Twice())
        reg(module, "bias", Twice())

    theirs, mine, x = pair(kind, rng, apply)
    assert type(mine).__name__ == type(theirs).__name__
    assert [n for n, _ in mine.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    run_both(theirs, mine, x, rng)
    value = rng.standard_normal(tuple(theirs.bias.shape))
    theirs.bias, mine.bias = torch.tensor(value), nb.tensor(value)
    TR.remove_parametrizations(theirs, "weight")
    NR.remove_parametrizations(mine, "weight")
    TR.remove_parametrizations(theirs, "bias", leave_parametrized=False)
    NR.remove_parametrizations(mine, "bias", leave_parametrized=False)
    assert type(mine).__name__ == type(theirs).__name__
    assert_same_state(mine, theirs)


@pytest.mark.parametrize("kind", ["linear", "conv", "conv_transpose"])
@pytest.mark.parametrize("dim", [0, 1, None, -2])
def test_weight_norm_like_pytorch(kind, dim, rng):
    theirs, mine, x = pair(kind, rng, lambda m, lib: (TZ if lib == "torch" else NZ)
                           .weight_norm(m, dim=dim))
    run_both(theirs, mine, x, rng)
    TR.remove_parametrizations(theirs, "weight")
    NR.remove_parametrizations(mine, "weight")
    assert_same_state(mine, theirs)


@pytest.mark.parametrize("kind", ["linear", "conv", "conv_transpose"])
def test_the_old_weight_norm_like_pytorch(kind, rng):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        theirs, mine, x = pair(kind, rng, lambda m, lib: (torch if lib == "torch" else nb)
                               .nn.utils.weight_norm(m, dim=1))
    run_both(theirs, mine, x, rng)
    torch.nn.utils.remove_weight_norm(theirs)
    nb.nn.utils.remove_weight_norm(mine)
    assert_same_state(mine, theirs)


@pytest.mark.parametrize("kind", ["linear", "conv", "conv_transpose"])
@pytest.mark.parametrize("iterations, eps", [(1, 1e-12), (3, 1e-4)])
def test_spectral_norm_like_pytorch(kind, iterations, eps, rng):
    theirs, mine, x = pair(kind, rng, lambda m, lib: (TZ if lib == "torch" else NZ)
                           .spectral_norm(m, n_power_iterations=iterations, eps=eps))
    for training in (True, True, False):  # u and v move in training mode only
        theirs.train(training)
        mine.train(training)
        run_both(theirs, mine, x, rng)
        assert_same_state(mine, theirs)
    TR.remove_parametrizations(theirs, "weight")
    NR.remove_parametrizations(mine, "weight")
    assert_same_state(mine, theirs)


@pytest.mark.parametrize("kind", ["linear", "conv", "conv_transpose"])
def test_the_old_spectral_norm_like_pytorch(kind, rng):
    theirs, mine, x = pair(kind, rng, lambda m, lib: (torch if lib == "torch" else nb)
                           .nn.utils.spectral_norm(m, n_power_iterations=2))
    np.testing.assert_allclose(mine.weight.detach().numpy(), theirs.weight.detach().numpy())
    for training in (True, True, False):
        theirs.train(training)
        mine.train(training)
        run_both(theirs, mine, x, rng)
        assert_same_state(mine, theirs)
    torch.nn.utils.remove_spectral_norm(theirs)
    nb.nn.utils.remove_spectral_norm(mine)
    assert_same_state(mine, theirs)


PRUNINGS = [
    lambda p, m: p.l1_unstructured(m, "weight", amount=0.3),
    lambda p, m: p.l1_unstructured(m, "weight", amount=5),
    lambda p, m: p.ln_structured(m, "weight", amount=0.5, n=2, dim=0),
    lambda p, m: p.ln_structured(m, "weight", amount=1, n=1, dim=-1),
    lambda p, m: p.ln_structured(m, "weight", amount=2, n=float("inf"), dim=1),
    lambda p, m: p.l1_unstructured(m, "bias", amount=0.5),
    lambda p, m: p.identity(m, "bias"),
]


@pytest.mark.parametrize("kind", ["linear", "conv"])
@pytest.mark.parametrize("first", range(len(PRUNINGS)))
@pytest.mark.parametrize("second", range(len(PRUNINGS)))
def test_pruning_twice_like_pytorch(kind, first, second, rng):
    theirs, mine, x = pair(kind, rng, lambda m, lib: PRUNINGS[first](
        TP if lib == "torch" else NP, m), load_after=False)
    try:
        PRUNINGS[second](TP, theirs)
    except Exception as error:  # too many slices for what is left: refused alike
        before = {k: v.numpy().copy() for k, v in mine.state_dict().items()}
        with pytest.raises(type(error)):
            PRUNINGS[second](NP, mine)
        for key, value in mine.state_dict().items():
            np.testing.assert_array_equal(value.numpy(), before[key])
        return
    PRUNINGS[second](NP, mine)
    assert_same_state(mine, theirs)  # the masks were computed by each library
    run_both(theirs, mine, x, rng)
    for name in ("weight", "bias"):
        if hasattr(theirs, name + "_mask"):
            TP.remove(theirs, name)
            NP.remove(mine, name)
    assert_same_state(mine, theirs)
    assert [n for n, _ in mine.named_parameters()] == [n for n, _ in theirs.named_parameters()]


def test_global_pruning_and_custom_masks_like_pytorch(rng):
    def apply(model, library):
        lib = TP if library == "torch" else NP
        lib.l1_unstructured(model[2], "weight", amount=3)
        mask = np.ones((4, 3, 3, 2))
        mask[1, 2] = 0
        lib.custom_from_mask(model[0], "weight", mask=(torch.tensor if library == "torch"
                                                         else nb.tensor)(mask))
        params = [(model[0], "weight"), (model[0], "bias"), (model[2], "weight")]
        scores = {(model[0], "bias"): model[0].bias.detach() * 10}
        lib.global_unstructured(params, lib.L1Unstructured, importance_scores=scores,
                                amount=0.3)

    def make(nn):
        return nn.Sequential(nn.Conv2d(3, 4, (3, 2)), nn.Flatten(), nn.Linear(32, 7))

    LAYERS["model"] = (make, (2, 3, 6, 3))
    try:
        theirs, mine, x = pair("model", rng, apply, load_after=False)
    finally:
        del LAYERS["model"]
    assert_same_state(mine, theirs)
    run_both(theirs, mine, x, rng)


@pytest.mark.parametrize("call", [
    lambda lib, m: lib.nn.utils.prune.l1_unstructured(m, "weight", amount="a"),
    lambda lib, m: lib.nn.utils.prune.l1_unstructured(m, "weight", amount=1.2),
    lambda lib, m: lib.nn.utils.prune.l1_unstructured(m, "weight", amount=36),
    lambda lib, m: lib.nn.utils.prune.ln_structured(m, "weight", amount=1, n=2, dim=2),
    lambda lib, m: lib.nn.utils.prune.ln_structured(m, "bias", amount=1, n=2, dim=0),
    lambda lib, m: lib.nn.utils.prune.remove(m, "weight"),
    lambda lib, m: lib.nn.utils.prune.global_unstructured([(m, "weight")],
                                                          lib.nn.utils.prune.LnStructured,
                                                          amount=1, n=2, dim=0),
    lambda lib, m: lib.nn.utils.parametrizations.spectral_norm(m, n_power_iterations=0),
    lambda lib, m: lib.nn.utils.parametrizations.spectral_norm(m, dim=2),
    lambda lib, m: lib.nn.utils.parametrizations.spectral_norm(m, name="none"),
    lambda lib, m: lib.nn.utils.parametrizations.weight_norm(m, dim=2),
    lambda lib, m: lib.nn.utils.parametrize.register_parametrization(m, "none", lib.nn.ReLU()),
    lambda lib, m: lib.nn.utils.parametrize.remove_parametrizations(m, "weight"),
    lambda lib, m: lib.nn.utils.remove_spectral_norm(m),
    lambda lib, m: lib.nn.utils.remove_weight_norm(m),
])
def test_mistakes_raise_the_builtin_class_pytorch_raises(call):
    with pytest.raises(Exception) as theirs:
        call(torch, torch.nn.Linear(5, 7))
    with pytest.raises(nb.NnbookError) as mine:
        call(nb, nb.nn.Linear(5, 7))
    assert isinstance(mine.value, type(theirs.value)), (type(mine.value), type(theirs.value))

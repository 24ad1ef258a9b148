"""Mistakes with parametrizations (nn.utils.parametrize), weight and spectral
normalisation, and pruning (nn.utils.prune).

See catalogue.py for what every entry is checked for (the error class and its builtin, the
four parts of the message, the user's line, and parameters, buffers and flags unchanged).
"""
import pickle

import pytest
from catalogue import check, mistake

import nnbook as nb
from nnbook import nn
from nnbook.errors import (
    ArgumentError,
    CheckpointError,
    DimError,
    InputError,
    MissingRuleError,
    ShapeError,
)
from nnbook.nn.module import ModuleAttributeError
from nnbook.nn.utils import parametrizations, parametrize, prune
from nnbook.nn.utils.norm_hooks import NormHookError


class FirstRows(nn.Module):
    """Keeps two rows: a parametrization that changes the shape."""

    def forward(self, X):
        return X[:2]


class Doubled(nn.Module):
    def forward(self, X):
        return X * 2

    def right_inverse(self, A):
        return A / 2


class Clipped(nn.Module):
    """No right_inverse: the weight cannot be assigned."""

    def forward(self, X):
        return X.clamp(-1, 1)


def parametrized(parametrization):
    return lambda: parametrize.register_parametrization(nn.Linear(5, 7), "weight",
                                                        parametrization)


def mlp():
    return nn.Sequential(nn.Linear(6, 12), nn.ReLU(), nn.Linear(12, 3))


def pruned():
    return prune.l1_unstructured(nn.Linear(5, 7), "weight", amount=0.2)


def spectral():
    return nn.utils.spectral_norm(nn.Linear(5, 7))


PARAMETRIZE = [
    mistake("a parametrization that changes the weight's shape", lambda: nn.Linear(5, 7),
            lambda m: parametrize.register_parametrization(m, "weight", FirstRows()),
            ShapeError, "nn.utils.parametrize.register_parametrization",
            r"registering FirstRows would change the shape of the tensor: \(7, 5\) -> \(2, 5\)",
            r"unsafe=True"),
    mistake("a function where a parametrization Module goes", lambda: nn.Linear(5, 7),
            lambda m: parametrize.register_parametrization(m, "weight", lambda X: X.triu()),
            ArgumentError, "nn.utils.parametrize.register_parametrization",
            r"must be an nn.Module, got function", r"class Symmetric\(nn.Module\)"),
    mistake("a misspelt tensor name", lambda: nn.Linear(5, 7),
            lambda m: parametrize.register_parametrization(m, "wieght", Doubled()),
            InputError, "nn.utils.parametrize.register_parametrization",
            r"no parameter, buffer or parametrized tensor named 'wieght'.*weight, bias",
            r"did you mean 'weight'"),
    mistake("a Parameter assigned to a parametrized weight", parametrized(Doubled()),
            lambda m: setattr(m, "weight", nn.Parameter(nb.ones(7, 5))),
            ModuleAttributeError, "parametrizations.weight (ParametrizationList)",
            r"cannot assign a Parameter to weight", r"remove_parametrizations"),
    mistake("a weight assigned through a parametrization without right_inverse",
            parametrized(Clipped()), lambda m: setattr(m, "weight", nb.zeros(7, 5)),
            MissingRuleError, "parametrizations.weight (ParametrizationList)",
            r"Clipped has no right_inverse", r"define right_inverse\(self, value\) in Clipped"),
    mistake("a weight of another shape assigned", parametrized(Doubled()),
            lambda m: setattr(m, "weight", nb.zeros(5, 7)),
            ShapeError, "parametrizations.weight (ParametrizationList)",
            r"shape \(5, 7\) for original, which has shape \(7, 5\)", r"shape"),
    mistake("removing a parametrization that is not there", lambda: nn.Linear(5, 7),
            lambda m: parametrize.remove_parametrizations(m, "weight"),
            InputError, "nn.utils.parametrize.remove_parametrizations",
            r"no parametrization on 'weight'", r"register_parametrization"),
    mistake("a parametrized model pickled (as PyTorch, refused)", parametrized(Doubled()),
            lambda m: pickle.dumps(nn.Sequential(m, nn.ReLU())),
            MissingRuleError, "pickle", r"ParametrizedLinear\) cannot be pickled",
            r"state_dict\(\).*deepcopy"),
]

NORMS = [
    mistake("weight_norm over a dim the weight does not have", lambda: nn.Linear(5, 7),
            lambda m: parametrizations.weight_norm(m, dim=2),
            DimError, "nn.utils.parametrizations.weight_norm",
            r"dim=2 is out of range for a weight with 2 dimensions", r"dim=0"),
    mistake("spectral_norm with no power iterations", lambda: nn.Linear(5, 7),
            lambda m: parametrizations.spectral_norm(m, n_power_iterations=0),
            InputError, "nn.utils.parametrizations.spectral_norm",
            r"n_power_iterations must be a positive int, got 0", r"n_power_iterations=1"),
    mistake("spectral_norm on a layer without weight", lambda: nn.ReLU(),
            lambda m: parametrizations.spectral_norm(m),
            InputError, "nn.utils.parametrizations.spectral_norm",
            r"ReLU has no parameter or buffer named 'weight'", r"on the layer itself"),
    mistake("the old spectral_norm put on twice", spectral,
            lambda m: nn.utils.spectral_norm(m),
            NormHookError, "nn.utils.spectral_norm",
            r"Linear.weight already has spectral_norm", r"remove_spectral_norm"),
    mistake("the old spectral_norm on a parameter the layer does not have",
            lambda: nn.Linear(5, 7, bias=False), lambda m: nn.utils.spectral_norm(m, "bias"),
            ModuleAttributeError, "nn.utils.spectral_norm",
            r"no parameter 'bias' to normalise.*its parameters: weight", r"layer that owns"),
    mistake("removing a weight_norm that is not there", lambda: nn.Linear(5, 7),
            lambda m: nn.utils.remove_weight_norm(m),
            InputError, "nn.utils.remove_weight_norm", r"no weight_norm on 'weight'",
            r"weight_norm\(module, 'weight'\)"),
]

def pruned_and_plain_state():
    """A model pruned after training started, and the state dict of one that was not."""
    plain = nn.Sequential(nn.Linear(5, 7), nn.ReLU(), nn.Linear(7, 3))
    pruned = nn.Sequential(nn.Linear(5, 7), nn.ReLU(), nn.Linear(7, 3))
    prune.l1_unstructured(pruned[0], "weight", amount=0.3)
    return pruned, plain.state_dict()


PRUNE = [
    mistake("pruning more entries than the weight has", lambda: nn.Linear(5, 7),
            lambda m: prune.l1_unstructured(m, "weight", amount=40),
            InputError, "nn.utils.prune.l1_unstructured",
            r"amount=40 is more than the 35 entries", r"at most 35.*fraction"),
    mistake("a percentage where a fraction goes", lambda: nn.Linear(5, 7),
            lambda m: prune.l1_unstructured(m, "weight", amount=30.0),
            InputError, "nn.utils.prune.l1_unstructured",
            r"amount=30.0 is neither a fraction in \[0, 1\] nor a count", r"amount=0.3"),
    mistake("a parameter's path given to a model", mlp,
            lambda m: prune.l1_unstructured(m, "0.weight", amount=0.2),
            ModuleAttributeError, "nn.utils.prune.l1_unstructured",
            r"Sequential has no parameter '0.weight' to prune", r"model.fc1"),
    mistake("structured pruning of a bias", lambda: nn.Linear(5, 7),
            lambda m: prune.ln_structured(m, "bias", amount=1, n=2, dim=0),
            InputError, "nn.utils.prune.ln_structured",
            r"2 or more dims, got shape \(7,\)", r"l1_unstructured"),
    mistake("structured pruning along a dim the weight does not have", lambda: nn.Linear(5, 7),
            lambda m: prune.random_structured(m, "weight", amount=1, dim=2),
            DimError, "nn.utils.prune.random_structured",
            r"dim=2 is out of range for shape \(7, 5\)", r"dim=0"),
    mistake("importance scores of the transposed shape",
            lambda: (nn.Linear(5, 7), nb.rand(5, 7)),
            lambda ms: prune.l1_unstructured(ms[0], "weight", 3, importance_scores=ms[1]),
            ShapeError, "nn.utils.prune.l1_unstructured",
            r"importance_scores has shape \(5, 7\), but weight has shape \(7, 5\)",
            r"one value per entry"),
    mistake("pruning the weight again past what is left", pruned,
            lambda m: prune.l1_unstructured(m, "weight", amount=30),
            InputError, "nn.utils.prune.l1_unstructured",
            r"amount=30 is more than the 28 entries", r"at most 28"),
    mistake("removing pruning that was never applied", lambda: nn.Linear(5, 7),
            lambda m: prune.remove(m, "weight"),
            InputError, "nn.utils.prune.remove", r"Linear.weight is not pruned",
            r"prune.is_pruned"),
    mistake("global pruning with a structured method", mlp,
            lambda m: prune.global_unstructured([(m[0], "weight"), (m[2], "weight")],
                                                prune.LnStructured, amount=1, n=2, dim=0),
            ArgumentError, "nn.utils.prune.global_unstructured",
            r"unstructured method, got LnStructured", r"prune.L1Unstructured"),
    mistake("global pruning given the modules without names", mlp,
            lambda m: prune.global_unstructured([m[0], m[2]], prune.L1Unstructured,
                                                amount=0.2),
            ArgumentError, "nn.utils.prune.global_unstructured",
            r"\(module, name\) pairs", r"\(model.fc1, 'weight'\)"),
    mistake("a plain model's checkpoint loaded into the pruned model", pruned_and_plain_state,
            lambda ms: ms[0].load_state_dict(ms[1]),
            CheckpointError, "Sequential.load_state_dict",
            r"missing from the checkpoint: 0\.weight_orig.*not in the model: 0\.weight",
            r"before pruning or normalising.*prune\.remove"),
]


@pytest.mark.parametrize("m", PARAMETRIZE + NORMS + PRUNE)
def test_mistake(m, tmp_path):
    check(m, tmp_path)

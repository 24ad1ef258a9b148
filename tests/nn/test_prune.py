"""nn.utils.prune without PyTorch: the masks chosen (smallest |w|, slices of smallest norm,
random ones of the right count, one threshold across layers), how a second pruning sees only
what the first left, the weight_orig / weight_mask / pre-hook layout, gradients that skip
pruned entries, remove() making it permanent, and the checks of amount and dims."""
import numpy as np
import pytest

import nnbook as nb
from nnbook import nn
from nnbook.errors import ArgumentError, DimError, InputError, ShapeError
from nnbook.nn.module import ModuleAttributeError
from nnbook.nn.utils import prune


def layer_with(rng, make):
    layer = make().double()
    with nb.no_grad():
        for p in layer.parameters():
            p.copy_(nb.tensor(rng.standard_normal(p.shape)))  # no ties among |w|
    return layer


def smallest(values, count):
    """A mask of 1s with 0 at the ``count`` entries of smallest |value|."""
    mask = np.ones(values.size)
    mask[np.argsort(np.abs(values).reshape(-1))[:count]] = 0
    return mask.reshape(values.shape)


def test_l1_unstructured_zeroes_the_smallest_and_keeps_the_parameter_as_weight_orig(rng):
    layer = layer_with(rng, lambda: nn.Linear(5, 7))
    weight = layer.weight
    w = weight.detach().numpy().copy()
    prune.l1_unstructured(layer, "weight", amount=0.3)  # round(0.3 * 35) = 10
    assert list(layer.state_dict()) == ["bias", "weight_orig", "weight_mask"]
    assert [n for n, _ in layer.named_parameters()] == ["bias", "weight_orig"]
    assert layer.weight_orig is weight and not isinstance(layer.weight, nn.Parameter)
    np.testing.assert_array_equal(layer.weight_mask.numpy(), smallest(w, 10))
    np.testing.assert_array_equal(layer.weight.detach().numpy(), w * smallest(w, 10))
    assert prune.is_pruned(nn.Sequential(layer)) and not prune.is_pruned(nn.Linear(2, 3))


def test_a_fraction_is_rounded_half_to_even_and_a_count_is_taken_as_it_is(rng):
    layer = layer_with(rng, lambda: nn.Linear(5, 7))
    prune.l1_unstructured(layer, "bias", amount=0.35)  # 0.35 * 7 = 2.45 -> 2
    assert layer.bias_mask.sum().item() == 5
    other = layer_with(rng, lambda: nn.Linear(5, 4))
    prune.l1_unstructured(other, "bias", amount=0.375)  # 1.5 -> 2 (half to even)
    prune.l1_unstructured(other, "weight", amount=0.35)  # 7.0 -> 7
    assert other.bias_mask.sum().item() == 2 and other.weight_mask.sum().item() == 13
    prune.l1_unstructured(other, "weight", amount=3)
    assert other.weight_mask.sum().item() == 10


def test_pruning_again_chooses_among_what_is_left(rng):
    layer = layer_with(rng, lambda: nn.Linear(5, 7))
    w = layer.weight.detach().numpy().copy()
    prune.l1_unstructured(layer, "weight", amount=4)
    history = prune.L1Unstructured.apply(layer, "weight", amount=0.5)  # 16 of the 31 left
    np.testing.assert_array_equal(layer.weight_mask.numpy(), smallest(w, 20))
    assert isinstance(history, prune.PruningContainer)
    assert [type(m).__name__ for m in history] == ["L1Unstructured", "L1Unstructured"]


def test_ln_structured_zeroes_the_slices_of_smallest_norm(rng):
    layer = layer_with(rng, lambda: nn.Conv2d(3, 4, (3, 2)))
    w = layer.weight.detach().numpy().copy()
    prune.ln_structured(layer, "weight", amount=0.5, n=2, dim=0)  # two of four filters
    norms = np.sqrt((w * w).sum((1, 2, 3)))
    kept = np.ones(4)
    kept[np.argsort(norms)[:2]] = 0
    np.testing.assert_array_equal(layer.weight_mask.numpy(),
                                  np.broadcast_to(kept[:, None, None, None], w.shape))
    prune.ln_structured(layer, "weight", amount=1, n=1, dim=1)  # the input channel of
    pruned = layer.weight_mask.numpy()                            # smallest L1 norm left
    l1 = np.abs(w * pruned).sum((0, 2, 3))
    assert (pruned[:, np.argmin(l1)] == 0).all()
    assert pruned.sum() == 2 * 2 * 3 * 2


def test_structured_pruning_after_unstructured_counts_the_slices_still_in_use(rng):
    layer = layer_with(rng, lambda: nn.Linear(5, 7))
    mask = np.ones((7, 5))
    mask[2] = 0  # row 2 gone entirely, one more entry gone in row 4
    mask[4, 1] = 0
    prune.custom_from_mask(layer, "weight", mask=nb.tensor(mask))
    prune.random_structured(layer, "weight", amount=2, dim=0)  # two of the six rows left
    rows_left = layer.weight_mask.numpy().sum(1) > 0
    assert rows_left.sum() == 4 and not rows_left[2]
    assert layer.weight_mask.numpy()[4, 1] == 0


def test_gradients_skip_the_pruned_entries_and_remove_makes_it_permanent(rng):
    layer = layer_with(rng, lambda: nn.Linear(5, 7))
    weight = layer.weight
    prune.l1_unstructured(layer, "weight", amount=0.4)
    mask = layer.weight_mask.numpy().copy()
    x = nb.tensor(rng.standard_normal((3, 5)))
    grad_out = rng.standard_normal((3, 7))
    layer(x).backward(nb.tensor(grad_out))
    np.testing.assert_allclose(weight.grad.numpy(), (grad_out.T @ x.numpy()) * mask)
    with nb.no_grad():  # a step changes weight_orig; the next call masks it again
        weight.add_(1.0)
    layer(x)
    np.testing.assert_array_equal(layer.weight.detach().numpy() == 0, mask == 0)
    prune.remove(layer, "weight")
    assert layer.weight is weight and list(layer.state_dict()) == ["bias", "weight"]
    np.testing.assert_array_equal(weight.detach().numpy() == 0, mask == 0)
    assert not prune.is_pruned(layer)


def test_global_pruning_uses_one_threshold_across_layers(rng):
    model = nn.Sequential(layer_with(rng, lambda: nn.Linear(5, 7)),
                          layer_with(rng, lambda: nn.Linear(7, 3)))
    with nb.no_grad():
        model[1].weight.mul_(0.1)  # the small layer loses more
    pairs = [(model[0], "weight"), (model[1], "weight")]
    values = np.concatenate([m.weight.detach().numpy().reshape(-1) for m, _ in pairs])
    prune.global_unstructured(pairs, prune.L1Unstructured, amount=0.4)
    expected = smallest(values, round(0.4 * values.size))
    got = np.concatenate([m.weight_mask.numpy().reshape(-1) for m, _ in pairs])
    np.testing.assert_array_equal(got, expected)
    assert (1 - model[1].weight_mask.numpy()).mean() > (1 - model[0].weight_mask.numpy()).mean()


def test_importance_scores_choose_instead_of_the_values(rng):
    layer = layer_with(rng, lambda: nn.Linear(5, 7))
    scores = rng.standard_normal((7, 5))
    prune.l1_unstructured(layer, "weight", amount=6, importance_scores=nb.tensor(scores))
    np.testing.assert_array_equal(layer.weight_mask.numpy(), smallest(scores, 6))


def test_random_pruning_prunes_the_count_and_repeats_with_the_seed(rng):
    masks = []
    for _ in range(2):
        nb.manual_seed(11)
        layer = layer_with(rng, lambda: nn.Conv2d(3, 4, (3, 2)))
        prune.random_unstructured(layer, "weight", amount=0.25)
        prune.random_structured(layer, "weight", amount=1, dim=0)
        masks.append(layer.weight_mask.numpy())
    np.testing.assert_array_equal(masks[0], masks[1])
    assert (masks[0].reshape(4, -1).sum(1) == 0).sum() == 1  # one filter gone
    assert masks[0].sum() <= 72 - 18 and masks[0].sum() >= 72 - 18 - 18


def test_identity_and_a_pruning_method_of_ones_own(rng):
    class EveryOther(prune.BasePruningMethod):
        PRUNING_TYPE = "unstructured"

        def compute_mask(self, t, default_mask):
            mask = default_mask.clone()
            mask.view(-1)[::2] = 0
            return mask

    layer = layer_with(rng, lambda: nn.Linear(5, 7))
    prune.identity(layer, "bias")
    np.testing.assert_array_equal(layer.bias_mask.numpy(), np.ones(7))
    EveryOther.apply(layer, "bias")
    np.testing.assert_array_equal(layer.bias_mask.numpy(), [0, 1, 0, 1, 0, 1, 0])
    pruned = EveryOther().prune(nb.ones(4, dtype=nb.float64))
    np.testing.assert_array_equal(pruned.numpy(), [0, 1, 0, 1])


def test_shape_inference_leaves_the_pruned_weight_alone(rng):
    layer = layer_with(rng, lambda: nn.Linear(5, 7))
    prune.l1_unstructured(layer, "weight", amount=0.5)
    weight = layer.weight
    nb.infer_shapes(nn.Sequential(layer), (3, 5))
    assert layer.weight is weight


@pytest.mark.parametrize("call, error, words", [
    (lambda m: prune.l1_unstructured(m, "weight", amount="half"), ArgumentError,
     "amount must be an int"),
    (lambda m: prune.l1_unstructured(m, "weight", amount=1.5), InputError,
     r"amount=1.5 is neither a fraction in \[0, 1\] nor a count"),
    (lambda m: prune.l1_unstructured(m, "weight", amount=-2), InputError, "amount=-2"),
    (lambda m: prune.l1_unstructured(m, "weight", amount=36), InputError,
     "more than the 35 entries"),
    (lambda m: prune.ln_structured(m, "weight", amount=8, n=2, dim=0), InputError,
     "more than the 7 slices"),
    (lambda m: prune.ln_structured(m, "bias", amount=1, n=2, dim=0), InputError,
     "2 or more dims"),
    (lambda m: prune.random_structured(m, "weight", amount=1, dim=2), DimError,
     r"dim=2 is out of range for shape \(7, 5\)"),
    (lambda m: prune.l1_unstructured(m, "wieght", amount=1), ModuleAttributeError,
     "no parameter 'wieght' to prune"),
    (lambda m: prune.l1_unstructured(m, "weight", 1, importance_scores=nb.ones(5, 7)),
     ShapeError, r"importance_scores has shape \(5, 7\), but weight has shape \(7, 5\)"),
    (lambda m: prune.custom_from_mask(m, "weight", mask=nb.ones(7)), ShapeError,
     r"mask has shape \(7,\)"),
    (lambda m: prune.remove(m, "weight"), InputError, "is not pruned"),
    (lambda m: prune.global_unstructured([(m, "weight")], prune.RandomStructured, amount=1),
     ArgumentError, "takes an unstructured method"),
    (lambda m: prune.global_unstructured([m], prune.L1Unstructured, amount=1),
     ArgumentError, r"\(module, name\) pairs"),
])
def test_mistakes_are_refused_before_anything_changes(call, error, words, rng):
    layer = layer_with(rng, lambda: nn.Linear(5, 7))
    prune.l1_unstructured(layer, "bias", amount=1)
    state = {k: v.numpy().copy() for k, v in layer.state_dict().items()}
    with pytest.raises(error, match=words):
        call(layer)
    assert list(layer.state_dict()) == list(state)
    for key, value in layer.state_dict().items():
        np.testing.assert_array_equal(value.numpy(), state[key])

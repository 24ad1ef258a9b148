"""nn.AdaptiveLogSoftmaxWithLoss without PyTorch: PyTorch's parameter names and sizes, a
log_prob that is a distribution over all the classes built from the head and the clusters
by hand, forward's output as log_prob at the target, predict as log_prob's argmax (also
where the head prefers a cluster), gradcheck in float64, and its errors."""
import numpy as np
import pytest

import nnbook as nb
from nnbook import nn
from nnbook.errors import ArgumentError, DimError, DTypeError, InputError, ShapeError

IN, CLASSES, CUTOFFS = 13, 23, [4, 9, 15]  # shortlist 0-3, clusters 4-8, 9-14, 15-22


def model(**kwargs):
    kwargs.setdefault("div_value", 2.0)
    return nn.AdaptiveLogSoftmaxWithLoss(IN, CLASSES, CUTOFFS, dtype=nb.float64, **kwargs)


def log_softmax(x):
    return x - np.logaddexp.reduce(x, axis=-1, keepdims=True)


def by_hand(m, x):
    """log p(c | x) for every class, from the weights with numpy."""
    head = x @ m.head.weight.detach().numpy().T
    if m.head.bias is not None:
        head = head + m.head.bias.detach().numpy()
    head = log_softmax(head)
    parts = [head[:, :CUTOFFS[0]]]
    for i, projection in enumerate(m.tail):
        w1, w2 = (linear.weight.detach().numpy() for linear in projection)
        parts.append(log_softmax(x @ w1.T @ w2.T) + head[:, CUTOFFS[0] + i, None])
    return np.concatenate(parts, axis=1)


def test_parameters_have_pytorchs_names_and_sizes():
    m = model(head_bias=True)
    shapes = {name: p.shape for name, p in m.named_parameters()}
    # the head: 4 shortlist classes and 3 cluster tokens; cluster i projects to
    # 13 // 2**(i + 1) features, then to its classes
    assert shapes == {"head.weight": (7, 13), "head.bias": (7,),
                      "tail.0.0.weight": (6, 13), "tail.0.1.weight": (5, 6),
                      "tail.1.0.weight": (3, 13), "tail.1.1.weight": (6, 3),
                      "tail.2.0.weight": (1, 13), "tail.2.1.weight": (8, 1)}
    assert (m.shortlist_size, m.n_clusters, m.head_size, m.cutoffs) == (4, 3, 7, [4, 9, 15, 23])
    assert "head.bias" not in dict(model().named_parameters())


def test_log_prob_is_a_distribution_over_every_class_made_of_head_and_clusters(rng):
    m, x = model(head_bias=True), rng.standard_normal((11, IN))
    got = m.log_prob(nb.tensor(x)).detach().numpy()
    assert got.shape == (11, CLASSES)
    np.testing.assert_allclose(got, by_hand(m, x), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(np.logaddexp.reduce(got, axis=1), 0, atol=1e-12)


def test_forward_gives_the_log_prob_of_each_target_and_minus_its_mean(rng):
    m, x = model(), rng.standard_normal((11, IN))
    target = np.array([0, 3, 4, 8, 9, 14, 15, 22, 2, 20, 6])  # every cluster, both ends
    result = m(nb.tensor(x), nb.tensor(target))
    output, loss = result  # a namedtuple, as PyTorch's
    assert type(result).__name__ == "_ASMoutput" and result.output is output
    want = by_hand(m, x)[np.arange(11), target]
    np.testing.assert_allclose(output.detach().numpy(), want, rtol=1e-12)
    np.testing.assert_allclose(loss.item(), -want.mean(), rtol=1e-12)


def test_a_cluster_without_rows_costs_nothing_and_one_sample_needs_no_batch(rng):
    m, x = model(), rng.standard_normal((3, IN))
    output, _ = m(nb.tensor(x), nb.tensor([1, 2, 17]))  # nothing in clusters 0 and 1
    np.testing.assert_allclose(output.detach().numpy(),
                               by_hand(m, x)[np.arange(3), [1, 2, 17]], rtol=1e-12)
    one, loss = m(nb.tensor(x[2]), nb.tensor(17))
    assert one.shape == () and loss.shape == ()
    np.testing.assert_allclose(one.item(), output.detach().numpy()[2], rtol=1e-12)


def test_predict_is_the_argmax_of_log_prob_also_where_the_head_prefers_a_cluster(rng):
    m, x = model(head_bias=True), rng.standard_normal((11, IN))
    with nb.no_grad():
        m.head.bias[4:] = 3.0 * rng.standard_normal(3)  # the cluster tokens win some rows
        m.head.bias[:4] = 0.0
    head_best = (x @ m.head.weight.detach().numpy().T + m.head.bias.detach().numpy()).argmax(1)
    assert (head_best >= 4).any() and (head_best < 4).any()
    got = m.predict(nb.tensor(x))
    assert got.dtype == nb.int64 and not got.requires_grad
    np.testing.assert_array_equal(got.numpy(), by_hand(m, x).argmax(1))


def test_gradcheck_of_the_input_and_every_weight(rng):
    m = model(head_bias=True)
    x = nb.tensor(rng.standard_normal((7, IN)), requires_grad=True)
    target = nb.tensor([0, 5, 10, 16, 22, 3, 12])

    def loss(x, *weights):  # gradcheck moves the weights themselves, which m reads
        output, loss = m(x, target)
        return output * 0.5 + loss

    assert nb.gradcheck(loss, [x, *m.parameters()])


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("cutoffs,error,match", [
    ([4, 9, 23], InputError, r"each from 1 to n_classes - 1 = 22; got \[4, 9, 23\](?s:.*)"
     r"leave n_classes out.*cutoffs=\[4, 9\]"),
    ([9, 4], InputError, r"unique ints in increasing order.*got \[9, 4\]"),
    ([0, 4], InputError, r"from 1 to n_classes - 1"),
    ([4, 4, 9], InputError, r"unique ints"),
    ([], InputError, r"cutoffs must hold at least one class index, got \[\]"),
    ([4.0, 9], ArgumentError, r"cutoffs and n_classes must be ints"),
])
def test_bad_cutoffs_are_refused_when_the_layer_is_built(cutoffs, error, match):
    with pytest.raises(error, match=f"(?s)^AdaptiveLogSoftmaxWithLoss: .*{match}"):
        nn.AdaptiveLogSoftmaxWithLoss(IN, CLASSES, cutoffs)


@pytest.mark.parametrize("input_shape,target,error,match", [
    ((5, IN), [0, 1, 2, 3, 23], DimError, r"target values should be in \[0, 22\], but values "
     r"in \[0, 23\] were found"),
    ((5, IN), [0, 1, -1, 3, 4], DimError, r"values in \[-1, 4\]"),
    ((5, IN), [0, 1, 2], ShapeError, r"same size in the batch dimension"),
    ((5, 2, IN), [[0, 1]] * 5, ShapeError, r"0-D or 1-D target.*got 2-D(?s:.*)reshape\(-1"),
    ((5, IN), [0.0, 1, 2, 3, 4], DTypeError, r"class indices as integers, got float"),
    ((5, 3, IN), [0, 1, 2, 3, 4], ShapeError, r"a 1-D target expects a 2-D input"),
    ((5, IN), 3, ShapeError, r"a 0-D target expects a 1-D input"),
])
def test_wrong_targets_raise_nnbook_errors_naming_the_layer(input_shape, target, error, match):
    with pytest.raises(error, match=f"(?s)^AdaptiveLogSoftmaxWithLoss: .*{match}") as caught:
        model()(nb.zeros(*input_shape, dtype=nb.float64), nb.tensor(target))
    assert type(caught.value) is error


@pytest.mark.parametrize("method", ["log_prob", "predict"])
def test_log_prob_and_predict_want_a_batch(method):
    with pytest.raises(DimError, match=rf"^AdaptiveLogSoftmaxWithLoss\.{method}: {method} "
                       r"expects a 2-D input \(N, 13\), got \(13,\)"):
        getattr(model(), method)(nb.zeros(IN, dtype=nb.float64))


def test_a_cluster_projected_to_no_features_still_gives_a_distribution(rng):
    # 6 // 4**2 = 0 features for the second cluster: its classes are equally likely
    asm = nn.AdaptiveLogSoftmaxWithLoss(6, 11, [3, 7]).double()
    x = nb.tensor(rng.standard_normal((4, 6)))
    out = asm(x, nb.tensor([0, 4, 8, 10]))
    full = asm.log_prob(x).detach().numpy()
    np.testing.assert_allclose(np.exp(full).sum(1), 1.0)
    np.testing.assert_allclose(out.output.detach().numpy(), full[range(4), [0, 4, 8, 10]])

"""Batch norm's running statistics: the op changes nothing it is given, F.batch_norm writes
the new values through the tensors (their version counters move), and nothing moves when the
forward fails or only shapes are inferred."""
import numpy as np
import pytest

import nnbook as nb
import nnbook.nn.functional as F
from nnbook import nn
from nnbook.errors import BackwardError, ShapeError
from nnbook.ops.norm import BatchNorm
from nnbook.tensor import apply


def batch(seed, shape=(3, 5, 4, 7)):
    return np.random.default_rng(seed).standard_normal(shape)


def test_the_op_leaves_its_arrays_alone_and_returns_the_new_statistics():
    x = batch(1)
    rm, rv, count = np.zeros(5), np.ones(5), np.array(2)
    op = BatchNorm(True, None, 1e-5, rm, rv, count)
    apply(op, nb.tensor(x))
    assert (rm == 0).all() and (rv == 1).all() and count == 2
    new_mean, new_var = op.running_update
    m = 1 / 3  # cumulative average: this batch is the third
    np.testing.assert_allclose(new_mean, m * x.mean(axis=(0, 2, 3)))
    np.testing.assert_allclose(new_var, (1 - m) + m * x.var(axis=(0, 2, 3), ddof=1))


def test_batch_norm_writes_through_the_tensors_and_moves_their_versions():
    rm, rv = nb.zeros(5, dtype=np.float64), nb.ones(5, dtype=np.float64)
    view = rm.data  # shares memory and the version counter
    F.batch_norm(nb.tensor(batch(2)), rm, rv, training=True, momentum=0.25)
    assert rm._version == 1 and rv._version == 1 and view._version == 1
    np.testing.assert_allclose(view.numpy(), 0.25 * batch(2).mean(axis=(0, 2, 3)))


def test_a_graph_that_saved_a_running_statistic_notices_the_update():
    layer = nn.BatchNorm1d(5).double()
    scale = nb.tensor(np.ones(5), requires_grad=True)
    saved = (scale * layer.running_var).sum()  # mul saves running_var for its backward
    layer(nb.tensor(batch(3, (7, 5))))
    with pytest.raises(BackwardError, match="changed in place"):
        saved.backward()


def test_the_layer_counts_batches_and_keeps_pytorch_values():
    layer = nn.BatchNorm2d(5, momentum=None).double()
    for seed in range(3):
        layer(nb.tensor(batch(seed)))
    assert int(layer.num_batches_tracked) == 3
    assert layer.num_batches_tracked._version == 3
    mean = np.mean([batch(s).mean(axis=(0, 2, 3)) for s in range(3)], axis=0)
    np.testing.assert_allclose(layer.running_mean.numpy(), mean)


def test_a_failing_forward_leaves_the_statistics_unchanged():
    layer = nn.BatchNorm1d(5)
    before = {k: v.numpy().copy() for k, v in layer.state_dict().items()}
    with pytest.raises(ShapeError, match="more than 1 value per channel"):
        layer(nb.randn(1, 5))
    for key, value in layer.state_dict().items():
        np.testing.assert_array_equal(value.numpy(), before[key])
        assert value._version == 0


def test_shape_inference_and_eval_mode_change_no_statistic():
    model = nn.Sequential(nn.Conv2d(3, 5, 3), nn.BatchNorm2d(5))
    nb.infer_shapes(model, (2, 3, 9, 7))
    model.eval()
    model(nb.randn(2, 3, 9, 7))
    assert all(b._version == 0 for b in model.buffers())
    assert int(model[1].num_batches_tracked) == 0


def test_a_recording_lists_only_the_ops_of_the_model():
    model = nn.Sequential(nn.Linear(4, 5), nn.BatchNorm1d(5))
    with nb.inspect.record(model) as rec:
        model(nb.randn(7, 4))
    assert [node.op for node in rec.graph] == ["linear", "batch_norm"]

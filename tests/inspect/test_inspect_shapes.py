"""Data-free shape inference and the summary table (the swapped height and width)."""
import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from shared import xception_block  # noqa: E402

import nnbook as nb
from nnbook import nn
from nnbook.errors import ShapeError


def real_shapes(model, x):
    """(path, class, output shape) of every leaf module call in a real forward."""
    with nb.inspect.record(model) as rec:
        model(x)
    return [(c.path, c.layer, c.output_shape) for c in rec.calls
            if c.layer not in ("Sequential", "Sum")]


def test_xception_block_shapes_match_a_real_forward():
    nb.manual_seed(0)
    model = xception_block()
    trace = nb.infer_shapes(model, (10, 3, 16, 8))
    assert trace.ok and trace.output_shape == (10, 3)
    layers = [(s.path, s.layer, s.output_shape) for s in trace.steps if s.kind == "layer"]
    assert layers == real_shapes(model, nb.randn(10, 3, 16, 8))
    add = next(s for s in trace.steps if s.kind == "op")
    assert (add.path, add.name, add.output_shape) == ("3", "3 (Sum: add)", (10, 512, 4, 2))
    assert add.input_shapes == ((10, 512, 4, 2), (10, 512, 4, 2))
    assert [s.output_shape for s in trace.steps][-1] == (10, 3)


def test_xception_block_formulas_have_the_numbers_filled_in():
    trace = nb.infer_shapes(xception_block(), (10, 3, 16, 8))
    first = trace.steps[0]
    assert first.formula == ("H_out = floor((16 + 2·1 − 1·(3 − 1) − 1) / 2) + 1 = 8",
                             "W_out = floor((8 + 2·1 − 1·(3 − 1) − 1) / 2) + 1 = 4")
    pool = next(s for s in trace.steps if s.layer == "MaxPool2d")
    assert pool.formula[1] == "W_out = floor((4 + 2·1 − 1·(3 − 1) − 1) / 2) + 1 = 2"
    assert "H_out = floor((16 + 2·1" in str(trace)


def test_broken_variant_reports_the_exact_path_and_keeps_the_steps_before():
    model = xception_block()
    model[3][1][1] = nn.Conv2d(32, 512, 1)  # expects 32 channels, gets 64
    trace = nb.infer_shapes(model, (10, 3, 16, 8))
    assert not trace.ok and isinstance(trace.error, ShapeError)
    assert [s.path for s in trace.steps] == ["0", "1", "2", "3.0", "3.1.0", "3.1.1"]
    failing = trace.steps[-1]
    assert failing.failed and failing.output_shape is None
    assert failing.input_shapes == ((10, 64, 8, 4),)
    text = str(trace.error)
    assert text.startswith("3.1.1 (Conv2d): expects input with 32 channels, got 64.")
    assert "3.1.0 (DepthwiseConv2d) outputs 64 channels" in text
    with pytest.raises(ShapeError, match=r"3\.1\.1 \(Conv2d\)"):
        trace.raise_error()


def test_huge_input_needs_no_memory():
    model = xception_block()
    tracemalloc.start()
    try:
        trace = nb.infer_shapes(model, (1000, 3, 4096, 2048))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert trace.output_shape == (1000, 3)
    assert peak < 50e6  # a real forward would need ~200 GB; shapes alone need next to none


def test_shape_inference_changes_nothing_in_the_model():
    nb.manual_seed(1)
    model = xception_block()
    before = {k: v.detach().numpy().copy() for k, v in model.state_dict().items()}
    nb.infer_shapes(model, (10, 3, 16, 8))
    for k, v in model.state_dict().items():
        np.testing.assert_array_equal(v.detach().numpy(), before[k], err_msg=k)
    assert model.training


def test_user_written_forward_is_followed():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 8, (3, 2), stride=(2, 1))
            self.fc = nn.Linear(8 * 3 * 4, 5)

        def forward(self, x):
            h = self.conv(x).relu()
            return self.fc(h.flatten(1)) * 2

    trace = nb.infer_shapes(Net(), (4, 3, 7, 5))
    assert trace.ok and trace.output_shape == (4, 5)
    assert [s.name for s in trace.steps] == ["conv (Conv2d)", "Net: relu", "Net: reshape",
                                             "fc (Linear)", "Net: mul"]
    assert trace.steps[0].output_shape == (4, 8, 3, 4)


def test_wrong_linear_in_user_model_names_the_layer():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 8, 3)
            self.fc = nn.Linear(100, 5)

        def forward(self, x):
            return self.fc(self.conv(x).flatten(1))

    trace = nb.infer_shapes(Net(), (2, 3, 7, 5))
    assert trace.steps[-1].path == "fc" and trace.steps[-1].failed
    assert "fc (Linear)" in str(trace.error) and "got 120" in str(trace.error)


def test_several_inputs_and_a_bad_input_shape():
    class Two(nn.Module):
        def forward(self, a, b):
            return a @ b

    assert nb.infer_shapes(Two(), [(7, 5), (5, 3)]).output_shape == (7, 3)
    with pytest.raises(nb.InputError, match="input_shape must be a tuple of sizes"):
        nb.infer_shapes(Two(), "7x5")


def test_summary_counts_shared_parameters_once():
    shared = nn.Linear(6, 6)
    model = nn.Sequential(shared, nn.ReLU(), shared, nn.Linear(6, 2, bias=False))
    table = nb.summary(model, (3, 6))
    assert table.total_params == sum(p.numel() for p in model.parameters()) == 42 + 12
    assert [r.params for r in table.rows] == [42, 0, 0, 12]
    assert sum(r.params for r in table.rows) == table.total_params
    assert table.rows[0].mult_adds == 3 * 6 * 6
    text = str(table)
    assert "total params: 54" in text and "Linear" in text
    assert "<table>" in table._repr_html_()


def test_summary_of_the_xception_block_and_of_a_failing_model():
    table = nb.summary(xception_block(), (10, 3, 16, 8))
    assert table.total_params == sum(p.numel() for p in xception_block().parameters())
    assert table.param_bytes == table.total_params * 4
    conv = table.rows[0]
    assert conv.mult_adds == 10 * 64 * 8 * 4 * 3 * 3 * 3
    broken = xception_block()
    broken[7] = nn.Linear(256, 3)
    failed = nb.summary(broken, (10, 3, 16, 8))
    assert failed.rows[-1].output_shape is None and failed.error is not None
    assert "7 (Linear)" in str(failed) and "FAILED" in str(failed)


CONV_CONFIGS = st.fixed_dictionaries({
    "n": st.integers(1, 3), "groups": st.sampled_from([1, 2, 3]),
    "cin_per_group": st.integers(1, 3), "cout_per_group": st.integers(1, 3),
    "h": st.integers(1, 12), "w": st.integers(1, 12),
    "kh": st.integers(1, 4), "kw": st.integers(1, 4),
    "stride": st.tuples(st.integers(1, 3), st.integers(1, 3)),
    "padding": st.tuples(st.integers(0, 2), st.integers(0, 2)),
    "dilation": st.tuples(st.integers(1, 2), st.integers(1, 2)),
    "pool": st.sampled_from(["max", "avg", "none"]), "pk": st.integers(1, 3),
})


@settings(max_examples=80, deadline=None)
@given(cfg=CONV_CONFIGS)
def test_infer_shapes_agrees_with_a_real_forward(cfg):
    g = cfg["groups"]
    layers = [nn.Conv2d(g * cfg["cin_per_group"], g * cfg["cout_per_group"],
                        (cfg["kh"], cfg["kw"]), stride=cfg["stride"], padding=cfg["padding"],
                        dilation=cfg["dilation"], groups=g)]
    if cfg["pool"] == "max":
        layers.append(nn.MaxPool2d(cfg["pk"], padding=cfg["pk"] // 2))
    elif cfg["pool"] == "avg":
        layers.append(nn.AvgPool2d((cfg["pk"], 1), stride=(1, 2)))
    model = nn.Sequential(*layers)
    shape = (cfg["n"], g * cfg["cin_per_group"], cfg["h"], cfg["w"])
    trace = nb.infer_shapes(model, shape)  # never raises
    try:
        real = model(nb.randn(*shape)).shape
    except ShapeError as err:
        assert not trace.ok and str(trace.error).splitlines()[0] == str(err).splitlines()[0]
        return
    assert trace.ok and trace.output_shape == real


def test_a_container_error_points_at_the_layer_before_the_container():
    model = xception_block()
    model[3][1][3] = nn.MaxPool2d(2, 2)  # fine on 16x8 ...
    trace = nb.infer_shapes(model, (10, 3, 18, 10))  # ... but the Sum's branches differ here
    assert trace.steps[-1].path == "3" and trace.steps[-1].failed
    text = str(trace.error)
    assert "3.1.0" not in text.split("comes from")[-1]  # not a layer inside the Sum
    assert "step 3, 2 (ReLU)" in text                 # steps count from 1


def test_a_double_model_is_traced_in_float64():
    trace = nb.infer_shapes(xception_block().double(), (2, 3, 9, 5))
    assert trace.ok and trace.output_shape == (2, 3)


def test_a_model_that_starts_with_an_embedding_is_walked_on_token_indices():
    model = nn.Sequential(nn.Embedding(20, 4), nn.Flatten(), nn.Linear(12, 5))
    trace = nb.infer_shapes(model, (7, 3))
    assert trace.error is None and trace.output_shape == (7, 5)
    table = nb.summary(model, (7, 3))
    assert table.input_bytes == 7 * 3 * 8              # int64 indices
    assert table.activation_bytes == (7 * 3 * 4 + 7 * 12 + 7 * 5) * 4  # float32 outputs


class HeadBeforeEmbedding(nn.Module):
    """The head is registered first, but the embedding is what reads the input."""

    def __init__(self):
        super().__init__()
        self.head = nn.Linear(6, 5)
        self.embed = nn.Embedding(20, 6)

    def forward(self, tokens):
        return self.head(self.embed(tokens))


def test_an_embedding_called_first_but_registered_later_reads_token_indices():
    trace = nb.infer_shapes(HeadBeforeEmbedding(), (7, 3))
    assert trace.ok and trace.output_shape == (7, 3, 5) and trace.input_dtype == "int64"
    assert nb.summary(HeadBeforeEmbedding(), (7, 3)).input_bytes == 7 * 3 * 8
    # a dtype asked for is used as it is: floats into the embedding name it and the fix
    trace = nb.infer_shapes(HeadBeforeEmbedding(), (7, 3), dtype=nb.float32)
    assert [s.path for s in trace.steps] == ["embed"] and trace.steps[0].failed
    assert "expects integer indices" in str(trace.error) and ".long()" in str(trace.error)

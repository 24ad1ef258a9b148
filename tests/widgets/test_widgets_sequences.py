"""AttentionViewer, TimeGradientFlow and ShapeStepper on sequence layers, headless: move
every control, read what the view shows, feed them training steps, give them bad input."""
import base64
import io

import numpy as np
import pytest

pytest.importorskip("ipywidgets")
pytest.importorskip("matplotlib")

from matplotlib.image import imread  # noqa: E402
from shared import PNG_MAGIC, shown, split_floats  # noqa: E402

import nnbook as nb  # noqa: E402
from nnbook import nn  # noqa: E402
from nnbook.errors import InputError, NnbookError, ShapeError  # noqa: E402
from nnbook.widgets import AttentionViewer, ShapeStepper, TimeGradientFlow  # noqa: E402

TOKENS = "the cat sat on a warm mat".split()   # 7 tokens, 'the' and 'a' both articles


def png_size(png: bytes) -> tuple:
    """(width, height) in pixels."""
    assert png.startswith(PNG_MAGIC)
    height, width = imread(io.BytesIO(png), format="png").shape[:2]
    return width, height


def check_fallback(widget):
    bundle = widget._repr_mimebundle_()
    png = base64.b64decode(bundle["image/png"])
    assert png_size(png)[0] >= 1200
    assert bundle["text/plain"] == widget.describe()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert len(repr(widget)) < 220 and "base64" not in repr(widget)


def encoder(seed=0, heads=3, embed=12):
    nb.manual_seed(seed)
    layer = nn.TransformerEncoderLayer(embed, heads, dim_feedforward=10, dropout=0.0,
                                       batch_first=True)
    return nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)


def inputs(seed, *shape):
    rng = np.random.default_rng(seed)
    return nb.tensor(rng.standard_normal(shape).astype(np.float32))


# -- AttentionViewer ------------------------------------------------------------------------

@pytest.fixture()
def viewer():
    model = encoder(seed=1)
    return AttentionViewer(model, TOKENS, inputs(11, 2, 7, 12))


def test_viewer_names_layer_heads_query_and_its_top_keys_from_the_weights(viewer):
    with nb.inspect.record_attention() as rec:
        viewer.model(viewer.x)
    weights = rec.maps[0].weights          # what the viewer must show: layer 0, sample 0
    text, png = shown(viewer)
    lines = text.splitlines()
    assert lines[0] == ("AttentionViewer: layers.0.self_attn, 3 heads, sample 0 of 2; "
                        "query 0 'the' attends to")
    assert len(lines) == 4                 # all heads: one line each
    for head, line in enumerate(lines[1:]):
        order = np.argsort(-weights[0, head, 0], kind="stable")[:3]
        expected = ", ".join(f"{j} {TOKENS[j]!r} #" for j in order)
        pattern, numbers = split_floats(line)
        assert pattern == f"  head {head}: {expected}"
        np.testing.assert_allclose(numbers, weights[0, head, 0, order], atol=0.006)
    assert png_size(png)[0] >= 1200
    check_fallback(viewer)
    caption = viewer.caption.value
    assert "orange frame" in caption and "darker blue" in caption and "sums to 1" in caption


def test_viewer_controls_change_what_is_drawn(viewer):
    with nb.inspect.record_attention() as rec:
        viewer.model(viewer.x)
    seen = {shown(viewer)[1]}
    viewer.head_dropdown.value = 2
    text, png = shown(viewer)
    assert text.splitlines()[1:] and [line.split(":")[0] for line in
                                      text.splitlines()[1:]] == ["  head 2"]
    assert len(viewer.figure.axes) == 2     # one heatmap and the colour bar
    seen.add(png)
    viewer.query_slider.value = 4
    text, png = shown(viewer)
    assert "query 4 'a' attends to" in text and viewer.query_label.value == "4: 'a'"
    top = np.argmax(rec.maps[0].weights[0, 2, 4])
    assert text.splitlines()[1].startswith(f"  head 2: {top} {TOKENS[top]!r}")
    seen.add(png)
    viewer.layer_dropdown.value = 1
    assert shown(viewer)[0].startswith("AttentionViewer: layers.1.self_attn")
    seen.add(shown(viewer)[1])
    viewer.sample_slider.value = 1
    text, png = shown(viewer)
    assert "sample 1 of 2" in text
    np.testing.assert_allclose(viewer.weights(2), rec.maps[1].weights[1, 2])
    seen.add(png)
    viewer.head_dropdown.value = "all"
    assert len(viewer.figure.axes) == 4
    seen.add(shown(viewer)[1])
    assert len(seen) == 6                   # every control drew something new


def test_viewer_follows_training_one_update_per_step():
    model = encoder(seed=2)
    x = inputs(12, 1, 7, 12)
    viewer = AttentionViewer(model, TOKENS, x, redraw_interval=0.0)
    before = viewer.weights(0).copy()
    optimizer = nb.optim.SGD(model.parameters(), lr=0.5)
    for _ in range(3):
        optimizer.zero_grad()
        model(x).pow(2).sum().backward()
        optimizer.step()
        viewer.update()
    assert (viewer.step_slider.max, viewer.step_slider.value) == (3, 3)
    assert "step 3 (4 of 4 recorded)" in shown(viewer)[0]
    assert not np.allclose(viewer.weights(0), before)
    viewer.step_slider.value = 0            # back to before training
    np.testing.assert_allclose(viewer.weights(0), before)
    assert "step 0 (1 of 4 recorded)" in shown(viewer)[0]


def test_viewer_takes_a_record_and_cross_attention_labels():
    nb.manual_seed(3)
    mha = nn.MultiheadAttention(10, 2, batch_first=True)
    query, memory = inputs(13, 1, 3, 10), inputs(14, 1, 5, 10)
    with nb.inspect.record_attention(mha) as rec:
        mha(query, memory, memory)
    viewer = AttentionViewer(rec, ["A", "B", "C"], key_tokens=list("vwxyz"), head=1,
                             query=2)
    text = viewer.describe()
    assert text.startswith("AttentionViewer: (model), 2 heads; query 2 'C' attends to")
    top = np.argsort(-rec.maps[0].weights[0, 1, 2], kind="stable")[0]
    assert text.splitlines()[1].startswith(f"  head 1: {top} {'vwxyz'[top]!r}")
    check_fallback(viewer)


def test_viewer_bad_inputs_are_nnbook_errors_with_hints(viewer):
    first = viewer.model
    model = encoder(seed=4)
    x = inputs(15, 1, 7, 12)
    cases = [
        (lambda: AttentionViewer(model, TOKENS), InputError, "needs the input x"),
        (lambda: AttentionViewer(model, TOKENS[:5], x), ShapeError, "5 tokens"),
        (lambda: AttentionViewer(model, "the cat", x), InputError, "list of labels"),
        (lambda: AttentionViewer(model, TOKENS, x, head=3), InputError, "head must be"),
        (lambda: AttentionViewer(model, TOKENS, x, query=7), InputError, "query must be"),
        (lambda: AttentionViewer(model, TOKENS, x, layer="decoder"), InputError,
         "no attention layer"),
        (lambda: AttentionViewer(nn.Linear(12, 3), TOKENS, x), InputError,
         "no nn.MultiheadAttention ran"),
        (lambda: AttentionViewer(np.zeros((1, 3, 7, 7)), TOKENS), InputError,
         "AttentionRecord or a model"),
        (lambda: viewer.update(encoder(seed=5, heads=2)), InputError, "other attention"),
    ]
    for make, kind, what in cases:
        with pytest.raises(kind) as info:
            make()
        assert isinstance(info.value, NnbookError)
        assert what in str(info.value) and "hint:" in str(info.value)
    assert len(viewer.steps) == 1           # the refused update left the viewer as it was
    assert viewer.model is first


# -- TimeGradientFlow -------------------------------------------------------------------------

def rnn_and_input(seed=0):
    nb.manual_seed(seed)
    return nn.RNN(4, 6, num_layers=2), inputs(seed + 20, 13, 3, 4)


def test_time_flow_text_gives_the_norms_at_both_ends_per_layer():
    rnn, x = rnn_and_input(1)
    flow = TimeGradientFlow(rnn, x)
    trace = nb.inspect.gradients_over_time(rnn, x)
    text, png = shown(flow)
    lines = text.splitlines()
    assert lines[0] == ("TimeGradientFlow: RNN, 13 time steps, loss: the last step's "
                        "output, summed")
    for name, line in zip(("layer 0", "layer 1"), lines[1:]):
        series = trace.norms[name]
        pattern, numbers = split_floats(line.split(";")[0])
        assert pattern == f"  {name}: |dL/dh_t| from # (t=0) to # (t=12), first/last #"
        np.testing.assert_allclose(numbers, [series[0], series[-1], series[0] / series[-1]],
                                   rtol=6e-3)
    assert series[0] < 1e-2 * series[-1]    # this small RNN's gradient does fade back in time
    assert png_size(png)[0] >= 1200
    check_fallback(flow)


def test_time_flow_names_the_vanishing_steps_with_the_threshold():
    rnn, x = rnn_and_input(2)
    trace = nb.inspect.gradients_over_time(rnn, x)
    series = trace.norms["layer 0"]
    low = float(np.sort(series)[3]) * 1.0001       # the four smallest are below it
    flow = TimeGradientFlow(trace=trace, thresholds=(low, 1e3))
    assert flow.zones("layer 0")[0] == sorted(np.argsort(series)[:4].tolist())
    assert "vanishing (< " in flow.describe().splitlines()[1]
    assert "vanishing at t=" in flow.caption.value


def test_time_flow_follows_training_and_shows_clipping():
    rnn, x = rnn_and_input(3)
    flow = TimeGradientFlow(rnn, x, clip=0.5, redraw_interval=0.0)
    assert "total norm not known" in flow.describe()
    optimizer = nb.optim.SGD(rnn.parameters(), lr=0.05)
    totals = []
    for _ in range(3):
        optimizer.zero_grad()
        out, _ = rnn(x)
        out[-1].sum().backward()
        totals.append(float(nn.utils.clip_grad_norm_(rnn.parameters(), 0.5)))
        flow.record(total_norm=totals[-1])
        optimizer.step()
    assert (flow.step_slider.max, flow.step_slider.value) == (3, 3)
    text, clipped_png = shown(flow)
    assert text.splitlines()[0].startswith("TimeGradientFlow: step 3 (4 of 4 recorded)")
    pattern, numbers = split_floats(text.splitlines()[-1])
    assert pattern == "  clipping at #: total norm #, every gradient times #"
    factor = min(1.0, 0.5 / totals[-1])
    np.testing.assert_allclose(numbers, [0.5, totals[-1], factor], rtol=6e-3)
    assert flow.factor() == pytest.approx(factor)
    assert len(flow.figure.axes) == 2       # per time step, and total norm per training step
    flow.clip_checkbox.value = False
    assert flow.factor() == 1.0 and shown(flow)[1] != clipped_png
    flow.step_slider.value = 1
    assert shown(flow)[0].startswith("TimeGradientFlow: step 1 (2 of 4 recorded)")


def test_time_flow_record_without_total_norm_reads_the_gradients():
    rnn, x = rnn_and_input(4)
    flow = TimeGradientFlow(rnn, x, clip=1.0)
    out, _ = rnn(x)
    out[-1].sum().backward()
    expected = float(nn.utils.get_total_norm([p.grad for p in rnn.parameters()]))
    flow.record()
    assert flow.current()[2] == pytest.approx(expected, rel=1e-5)


def test_time_flow_bad_inputs_are_nnbook_errors_with_hints():
    rnn, x = rnn_and_input(5)
    flow = TimeGradientFlow(rnn, x)
    other = nb.inspect.gradients_over_time(nn.LSTM(4, 6), x)
    cases = [
        (lambda: TimeGradientFlow(rnn), "needs a model and its input x"),
        (lambda: TimeGradientFlow(trace={"layer 0": [1.0]}), "must be a TimeGradients"),
        (lambda: TimeGradientFlow(rnn, x, thresholds=(1.0, 0.1)), "0 < low < high"),
        (lambda: TimeGradientFlow(rnn, x, clip=-1), "positive max_norm"),
        (lambda: TimeGradientFlow(nn.Linear(4, 2), x), "needs a loss_fn"),
        (lambda: flow.record(other.norms), "must be a TimeGradients"),
        (lambda: TimeGradientFlow(trace=other).record(), "needs the model and x"),
    ]
    for make, what in cases:
        with pytest.raises(InputError) as info:
            make()
        assert what in str(info.value) and "hint:" in str(info.value)
    bidirectional = nb.inspect.gradients_over_time(nn.RNN(4, 6, bidirectional=True), x)
    with pytest.raises(InputError, match="other recurrent layers"):
        flow.record(bidirectional)
    assert len(flow.traces) == 1


# -- ShapeStepper on sequence layers ------------------------------------------------------------

def test_stepper_walks_multihead_attention_inside_a_transformer_block():
    nb.manual_seed(6)
    block = nn.TransformerEncoderLayer(12, 3, dim_feedforward=10, batch_first=True)
    stepper = ShapeStepper(block, (2, 7, 12))
    names = [s.layer for s in stepper.trace.steps]
    assert names[:11] == ["query projection", "key projection", "value projection",
                          "split heads (query)", "split heads (key)", "split heads (value)",
                          "scores", "softmax", "weighted sum", "merge heads",
                          "output projection"]
    assert names[11:] == ["Dropout", "add", "LayerNorm", "Linear", "relu", "Dropout", "Linear",
                          "Dropout", "add", "LayerNorm"]
    stepper.slider.value = 3
    text, png = shown(stepper)
    assert text == ("ShapeStepper: step 4 of 21, self_attn (MultiheadAttention: split heads "
                    "(query)) (2, 7, 12) -> (2, 3, 7, 4)")
    assert "(N, L, E) -&gt; (N, L, h, d) -&gt; (N, h, L, d),  d = E/h" in stepper.caption.value
    assert "= (2, 7, 12) -&gt; (2, 7, 3, 4) -&gt; (2, 3, 7, 4),  4 = 12/3" in \
        stepper.caption.value
    stepper.slider.value = 6
    assert shown(stepper)[0].endswith("scores) (2, 3, 7, 4) (2, 3, 4, 7) -> (2, 3, 7, 7)")
    drawn = {t.get_text() for ax in stepper.figure.axes for t in ax.texts}
    assert {"h=3", "L=7", "S=7", "d=4"} <= drawn and "C=3" not in drawn
    stepper.slider.value = 0
    assert "<code>in_proj_weight[0:12]</code></td><td>(12, 12)" in stepper.caption.value
    assert png.startswith(PNG_MAGIC)


def test_stepper_shows_the_mask_step_and_an_attention_shapes_record():
    nb.manual_seed(7)
    mha = nn.MultiheadAttention(10, 2)
    record = nb.inspect.attention_shapes(mha, (5, 3, 10), (4, 3, 10), mask="attn_mask")
    stepper = ShapeStepper(record)
    assert [s.output_shape for s in stepper.trace.steps] == [s.shape for s in record.steps]
    assert stepper.trace.output_shape == (5, 3, 10)
    mask = [s.layer for s in stepper.trace.steps].index("mask (attn_mask)")
    stepper.slider.value = mask
    assert shown(stepper)[0].endswith(
        "MultiheadAttention: mask (attn_mask) (3, 2, 5, 4) -> (3, 2, 5, 4)")
    # traced on a model: the masks it was called with
    block = nn.TransformerEncoderLayer(10, 2, dim_feedforward=6)
    traced = ShapeStepper(_Masked(block), (5, 3, 10))
    assert "mask (attn_mask)" in [s.layer for s in traced.trace.steps]


class _Masked(nn.Module):
    def __init__(self, block):
        super().__init__()
        self.block = block

    def forward(self, x):
        return self.block(x, src_mask=nn.Transformer.generate_square_subsequent_mask(x.shape[0]))


def test_stepper_walks_an_lstm_one_time_step_layer_by_layer():
    nb.manual_seed(8)
    model = nn.LSTM(5, 8, num_layers=2, batch_first=True)
    stepper = ShapeStepper(model, (3, 9, 5))
    rows = [(s.layer, s.input_shapes, s.output_shape) for s in stepper.trace.steps]
    assert rows == [
        ("time step t", ((3, 9, 5),), (3, 5)),
        ("layer 0: gates", ((3, 5), (3, 8)), (3, 32)),
        ("layer 0: c_t", ((3, 32), (3, 8)), (3, 8)),
        ("layer 0: h_t", ((3, 32), (3, 8)), (3, 8)),
        ("layer 1: gates", ((3, 8), (3, 8)), (3, 32)),
        ("layer 1: c_t", ((3, 32), (3, 8)), (3, 8)),
        ("layer 1: h_t", ((3, 32), (3, 8)), (3, 8)),
        ("output over time", ((3, 8),), (3, 9, 8)),
        ("final h_n", ((3, 8),), (2, 3, 8)),
        ("final c_n", ((3, 8),), (2, 3, 8)),
    ]
    out, (h, c) = model(inputs(30, 3, 9, 5))     # the shapes the layer really returns
    assert (out.shape, h.shape, c.shape) == ((3, 9, 8), (2, 3, 8), (2, 3, 8))
    stepper.slider.value = 1
    assert "W_ih^T (5, 4·8)" in stepper.caption.value
    assert "<code>weight_ih_l0</code></td><td>(32, 5)" in stepper.caption.value
    assert ShapeStepper(model, (3, 9, 5), expand=False).trace.steps[0].layer == "LSTM"


def test_stepper_expansion_keeps_bidirectional_gru_shapes_of_the_real_layer():
    nb.manual_seed(9)
    model = nn.GRU(4, 6, bidirectional=True)
    stepper = ShapeStepper(nn.Sequential(model), (7, 2, 4))
    steps = {s.layer: s for s in stepper.trace.steps}
    out, h = model(inputs(31, 7, 2, 4))
    assert steps["output over time"].output_shape == out.shape == (7, 2, 12)
    assert steps["final h_n"].output_shape == h.shape == (2, 2, 6)
    assert steps["layer 0: gates (each direction)"].output_shape == (2, 18)
    assert stepper.trace.steps[0].name == "0 (GRU: time step t)"


def test_stepper_without_an_input_shape_or_with_one_too_many_is_refused():
    mha = nn.MultiheadAttention(10, 2)
    with pytest.raises(InputError, match="needs the input shape"):
        ShapeStepper(mha)
    record = nb.inspect.attention_shapes(mha, (5, 3, 10))
    with pytest.raises(InputError, match="takes no input_shape"):
        ShapeStepper(record, (5, 3, 10))


def test_stepper_on_a_failing_attention_layer_still_shows_the_failure():
    mha = nn.MultiheadAttention(10, 2, batch_first=True)
    stepper = ShapeStepper(mha, [(3, 5, 10), (3, 4, 10), (3, 6, 10)], step=-1)
    assert stepper.step.failed and stepper.trace.error is not None
    assert "FAILED" in shown(stepper)[0]


def test_viewer_labels_each_layer_of_a_transformer_with_the_list_of_its_lengths():
    nb.manual_seed(10)
    model = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
                           dim_feedforward=12, dropout=0.0, batch_first=True)
    target, source = ["I", "am", "small"], ["ich", "bin", "ein", "kleiner", "Hund"]
    viewer = AttentionViewer(model, target, (inputs(32, 1, 5, 8), inputs(33, 1, 3, 8)),
                             key_tokens=source, head=0, query=4)
    seen = []
    for _, index in viewer.layer_dropdown.options:
        viewer.layer_dropdown.value = index
        seen.append((viewer.current_map.path, viewer.query_labels, viewer.key_labels,
                     viewer.query_slider.max))
    assert seen == [("encoder.layers.0.self_attn", source, source, 4),
                    ("decoder.layers.0.self_attn", target, target, 2),
                    ("decoder.layers.0.multihead_attn", target, source, 2)]
    assert viewer.query_slider.value == 2       # query 4 does not exist in the decoder
    assert shown(viewer)[0].startswith("AttentionViewer: decoder.layers.0.multihead_attn, "
                                       "2 heads; query 2 'small' attends to")

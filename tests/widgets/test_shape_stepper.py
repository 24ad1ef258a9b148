"""ShapeStepper on models that read token indices (an nn.Embedding first): the walk, the
text fallback, the PNG and the stepping; and such a model that does not fit together, whose
text names the failing layer's path and the reason."""
import pytest

pytest.importorskip("ipywidgets")
pytest.importorskip("matplotlib")

from shared import PNG_MAGIC, shown  # noqa: E402

from nnbook import nn  # noqa: E402
from nnbook.widgets import ShapeStepper  # noqa: E402


def bigram_mlp(in_features=30):
    """Three characters of context, 10 numbers each, one score per next character."""
    return nn.Sequential(nn.Embedding(27, 10), nn.Flatten(), nn.Linear(in_features, 27))


class TinyTransformer(nn.Module):
    def __init__(self, vocab=20, embed=12):
        super().__init__()
        self.embed = nn.Embedding(vocab, embed)
        layer = nn.TransformerEncoderLayer(embed, 3, dim_feedforward=16, dropout=0.0,
                                           batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=1, enable_nested_tensor=False)
        self.head = nn.Linear(embed, vocab)

    def forward(self, tokens):
        return self.head(self.encoder(self.embed(tokens)))


class CharLSTM(nn.Module):
    """The head is registered before the embedding, as code often has it: the embedding is
    still what reads the input."""

    def __init__(self, head_in=16, lstm_in=8):
        super().__init__()
        self.head = nn.Linear(head_in, 20)
        self.embed = nn.Embedding(20, 8)
        self.lstm = nn.LSTM(lstm_in, 16, batch_first=True)

    def forward(self, tokens):
        out, _ = self.lstm(self.embed(tokens))
        return self.head(out)


def walk(stepper):
    """(text, PNG) of every step, moved through with the next button."""
    seen = [shown(stepper)]
    while not stepper.next_button.disabled:
        stepper.next_button.click()
        seen.append(shown(stepper))
    return seen


def test_an_embedding_mlp_is_walked_on_token_indices():
    stepper = ShapeStepper(bigram_mlp(), (5, 3))
    assert stepper.trace.ok and stepper.trace.input_dtype == "int64"
    seen = walk(stepper)
    assert [text for text, _ in seen] == [
        "ShapeStepper: step 1 of 3, 0 (Embedding) (5, 3) -> (5, 3, 10)",
        "ShapeStepper: step 2 of 3, 1 (Flatten) (5, 3, 10) -> (5, 30)",
        "ShapeStepper: step 3 of 3, 2 (Linear) (5, 30) -> (5, 27)"]
    pngs = [png for _, png in seen]
    assert all(png.startswith(PNG_MAGIC) for png in pngs) and len(set(pngs)) == 3
    stepper.slider.value = 0
    caption = stepper.caption.value
    assert "= (5, 3) -&gt; (5, 3, 10), rows of (27, 10)" in caption   # the lookup's formula
    assert "<code>weight</code></td><td>(27, 10)</td>" in caption and ">270<" in caption


def test_a_transformer_with_an_embedding_in_front_steps_through_its_attention():
    stepper = ShapeStepper(TinyTransformer(), (2, 7))
    texts = [text for text, _ in walk(stepper)]
    assert len(texts) == len(stepper.trace.steps) == stepper.slider.max + 1
    assert texts[0] == "ShapeStepper: step 1 of 23, embed (Embedding) (2, 7) -> (2, 7, 12)"
    assert texts[7] == ("ShapeStepper: step 8 of 23, encoder.layers.0.self_attn "
                        "(MultiheadAttention: scores) (2, 3, 7, 4) (2, 3, 4, 7) -> (2, 3, 7, 7)")
    assert texts[-1] == "ShapeStepper: step 23 of 23, head (Linear) (2, 7, 12) -> (2, 7, 20)"
    assert stepper.slider.value == 22 and stepper.previous_button.disabled is False


def test_an_lstm_with_an_embedding_registered_after_its_head():
    stepper = ShapeStepper(CharLSTM(), (3, 9))
    assert stepper.trace.ok and stepper.trace.input_dtype == "int64"
    texts = [text for text, _ in walk(stepper)]
    assert texts[0] == "ShapeStepper: step 1 of 9, embed (Embedding) (3, 9) -> (3, 9, 8)"
    assert texts[2] == ("ShapeStepper: step 3 of 9, lstm (LSTM: layer 0: gates) (3, 8) (3, 16) "
                        "-> (3, 64)")
    assert texts[-1] == "ShapeStepper: step 9 of 9, head (Linear) (3, 9, 16) -> (3, 9, 20)"


@pytest.mark.parametrize("make, shape, start, failing, reason", [
    (lambda: bigram_mlp(in_features=20), (5, 3), "0 (Embedding) (5, 3) -> (5, 3, 10)",
     "2 (Linear)", "expects input with 20 features in its last dimension, got 30."),
    (lambda: CharLSTM(head_in=15), (3, 9), "embed (Embedding) (3, 9) -> (3, 9, 8)",
     "head (Linear)", "expects input with 15 features in its last dimension, got 16."),
    (lambda: CharLSTM(lstm_in=7), (3, 9), "embed (Embedding) (3, 9) -> (3, 9, 8)",
     "lstm (LSTM)", "expects input with 7 features in its last dimension, got 8."),
], ids=["Linear after Flatten", "Linear after the LSTM", "LSTM after the embedding"])
def test_a_model_that_does_not_fit_names_the_failing_layer_and_why(make, shape, start,
                                                                   failing, reason):
    stepper = ShapeStepper(make(), shape)
    total = len(stepper.trace.steps)
    assert stepper.describe().splitlines() == [
        f"ShapeStepper: step 1 of {total} (fails at step {total}, {failing}), {start}",
        f"  the model fails at {failing}: {reason}"]
    stepper.slider.value = total - 1          # the failing step itself
    text, png = shown(stepper)
    assert text.startswith(f"ShapeStepper: step {total} of {total}, {failing} (")
    assert text.endswith(f"-> FAILED: {reason}") and png.startswith(PNG_MAGIC)
    assert "hint:" in stepper.caption.value


def test_token_indices_are_labelled_as_positions_not_features():
    """A (B, T) batch of indices into an Embedding is T tokens a row, not F features."""
    import matplotlib.pyplot as plt
    from matplotlib.text import Annotation

    from nnbook.widgets.draw import draw_step

    for expand in (True, False):
        stepper = ShapeStepper(CharLSTM(), (3, 9), expand=expand)
        assert stepper.names[0] == [("T",), None]
        fig, ax = plt.subplots()
        draw_step(ax, stepper.trace.steps[0], names=stepper.names[0])
        labels = [a.get_text() for a in ax.findobj(Annotation)]
        plt.close(fig)
        assert "T=9" in labels and "F=9" not in labels
    # a feature vector further on keeps its F
    linear = ShapeStepper(bigram_mlp(), (5, 3))
    assert linear.names[2] is None

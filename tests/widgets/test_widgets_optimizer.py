"""OptimizerPlayground, headless: the path it draws is what nnbook's optimizers do, every
control redraws, a diverging path is said to diverge."""
import base64

import numpy as np
import pytest

pytest.importorskip("ipywidgets")
pytest.importorskip("matplotlib")

from projector import png_size  # noqa: E402
from shared import PNG_MAGIC, shown, split_floats  # noqa: E402

import nnbook as nb  # noqa: E402
from nnbook.widgets import OptimizerPlayground  # noqa: E402
from nnbook.widgets.optimizer_playground import GRADIENTS, SURFACES, optimizer_path  # noqa: E402


@pytest.mark.parametrize("surface", sorted(SURFACES))
def test_the_written_out_gradients_are_autograds(surface):
    rng = np.random.default_rng(11)
    f = SURFACES[surface][0]
    for x0, y0 in rng.uniform(-2, 2, size=(7, 2)):
        p = nb.tensor(np.array([x0, y0]), requires_grad=True)
        f(p[0], p[1]).backward()
        np.testing.assert_allclose(GRADIENTS[surface](x0, y0), p.grad.numpy(), rtol=1e-12)


def test_plain_sgd_on_the_bowl_is_gradient_descent_by_hand():
    lr, steps = 0.07, 23
    path = optimizer_path("bowl", "SGD", lr, 0.0, steps)
    assert path.shape == (steps + 1, 2)
    # f = (x² + 20 y²) / 2: each step multiplies x by (1 - lr) and y by (1 - 20 lr)
    x0, y0 = SURFACES["bowl"][1]
    k = np.arange(steps + 1)
    np.testing.assert_allclose(path[:, 0], x0 * (1 - lr) ** k, rtol=1e-10)
    np.testing.assert_allclose(path[:, 1], y0 * (1 - 20 * lr) ** k, rtol=1e-10, atol=1e-12)


def test_momentum_is_the_heavy_ball_recursion():
    lr, beta, steps = 0.0007, 0.8, 17
    path = optimizer_path("rosenbrock", "SGD", lr, beta, steps)
    p, buf = np.array(SURFACES["rosenbrock"][1]), None
    for _ in range(steps):
        x, y = p
        g = np.array([-2 * (1 - x) - 400 * x * (y - x * x), 200 * (y - x * x)])
        buf = g if buf is None else beta * buf + g          # PyTorch's first step: buf = g
        p = p - lr * buf
    assert path.shape == (steps + 1, 2)
    np.testing.assert_allclose(path[-1], p, rtol=1e-9)


def test_the_widget_shows_its_path_and_every_control_redraws():
    playground = OptimizerPlayground()
    text, png = shown(playground)
    assert png.startswith(PNG_MAGIC) and text == playground.describe()
    head, numbers = split_floats(text)
    assert head.splitlines() == ["OptimizerPlayground: SGD, lr #, momentum # on the narrow bowl",
                                 "  after 50 steps: at (#, #), loss #"]
    assert numbers[-1] < 0.1 and not playground.diverged
    assert "lr 0.07," in text                        # the slider's round value, as given
    assert len(playground.png()) > 0 and "base64" not in repr(playground)
    bundle = playground._repr_mimebundle_()
    assert base64.b64decode(bundle["image/png"]).startswith(PNG_MAGIC)
    assert bundle["text/plain"] == playground.describe()
    # each control changes what is shown
    seen = {playground.describe()}
    playground.optimizer_dropdown.value = "Adam"
    playground.momentum_slider.value = 0.9
    playground.steps_slider.value = 120
    playground.surface_dropdown.value = "rosenbrock"
    playground.lr_slider.value = 0.02
    for name in ("SGD (Nesterov)", "RMSprop", "AdamW"):
        playground.optimizer_dropdown.value = name
        seen.add(shown(playground)[0])
    assert len(seen) == 4 and all("Rosenbrock's valley" in t for t in seen - {text})
    fig = playground.figure
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert labels[0] == "path of AdamW (120 steps)" and "contours: equal loss" in labels
    assert png_size(shown(playground)[1])[0] >= 1200    # wide enough for a projector


def test_a_learning_rate_too_large_diverges_and_says_so():
    playground = OptimizerPlayground(lr=0.2, steps=40)   # 1 - 20 lr = -3: |y| triples
    assert playground.diverged
    assert "diverged after" in playground.describe().splitlines()[1]
    labels = [t.get_text() for t in playground.figure.axes[0].get_legend().get_texts()]
    assert any(label.startswith("diverged") for label in labels)
    assert np.all(np.isfinite(optimizer_path("bowl", "SGD", 0.2, 0.0, 40)))


def test_unknown_surface_or_optimizer_is_refused_with_the_choices():
    with pytest.raises(ValueError, match="rosenbrock") as info:
        OptimizerPlayground("saddle")
    assert "hint:" in str(info.value)
    with pytest.raises(ValueError, match="Adam"):
        OptimizerPlayground(optimizer="LBFGS")
    with pytest.raises(ValueError, match="learning rate"):
        OptimizerPlayground(lr=-0.1)


def test_a_learning_rate_off_the_slider_joins_it():
    playground = OptimizerPlayground(lr=0.09)
    labels = [label for label, _ in playground.lr_slider.options]
    assert "0.09" in labels and "0.07" in labels and "0.1" in labels
    assert playground.describe().startswith("OptimizerPlayground: SGD, lr 0.09, momentum")

"""OptimizerPlayground: one optimizer's path across a 2-D loss surface, on its contour plot.

    OptimizerPlayground()                                   # SGD on the long, narrow bowl
    OptimizerPlayground("rosenbrock", "Adam", lr=0.05, steps=200)

Pick the optimizer, the learning rate, the momentum (beta1 for Adam and AdamW) and the
number of steps; the path is recomputed with nnbook's own optimizers (``nb.optim``) on a
two-element parameter, so what you see is what ``optimizer.step()`` does.  A path whose
loss overflows stops there and the picture says "diverged".
"""
from __future__ import annotations

import math

import ipywidgets as widgets
import numpy as np

from .. import optim
from ..creation import tensor
from ..errors import InputError, message
from ._base import PROJECTOR_IN, NnbookWidget
from .palette import GRADIENT_COLOR, PROBLEM_COLOR, TEXT_COLOR

FONT = 13


def _bowl(x, y):
    """A long, narrow bowl: curvature 1 along x, 20 along y (condition number 20)."""
    return 0.5 * (x * x + 20 * y * y)


def _rosenbrock(x, y):
    """Rosenbrock's curved valley; its minimum is at (1, 1)."""
    return (1 - x) ** 2 + 100 * (y - x * x) ** 2


# The gradients, written out: a redraw runs hundreds of optimizer steps, and skipping the
# graph makes each step about six times cheaper (a test compares them with autograd's).
GRADIENTS = {
    "bowl": lambda x, y: (x, 20 * y),
    "rosenbrock": lambda x, y: (-2 * (1 - x) - 400 * x * (y - x * x), 200 * (y - x * x)),
}

# name -> (function of x and y, start, minimum, x range, y range)
SURFACES = {
    "bowl": (_bowl, (-4.5, 1.5), (0.0, 0.0), (-5.0, 5.0), (-2.0, 2.0)),
    "rosenbrock": (_rosenbrock, (-1.5, 2.0), (1.0, 1.0), (-2.0, 2.0), (-1.0, 3.0)),
}
TITLES = {"bowl": "the narrow bowl", "rosenbrock": "Rosenbrock's valley"}
OPTIMIZERS = ("SGD", "SGD (Nesterov)", "RMSprop", "Adam", "AdamW")


def make_optimizer(name: str, params, lr: float, momentum: float):
    """The nnbook optimizer called ``name``; ``momentum`` is beta1 for Adam and AdamW."""
    if name == "SGD":
        return optim.SGD(params, lr=lr, momentum=momentum)
    if name == "SGD (Nesterov)":
        return optim.SGD(params, lr=lr, momentum=momentum, nesterov=momentum > 0)
    if name == "RMSprop":
        return optim.RMSprop(params, lr=lr, momentum=momentum)
    if name == "Adam":
        return optim.Adam(params, lr=lr, betas=(momentum, 0.999))
    if name == "AdamW":
        return optim.AdamW(params, lr=lr, betas=(momentum, 0.999), weight_decay=0.01)
    raise InputError(message(f"there is no optimizer called {name!r} here.",
                                where="OptimizerPlayground", line=None,
                                hint=f"choose one of {', '.join(OPTIMIZERS)}."))


def optimizer_path(surface: str, name: str, lr: float, momentum: float, steps: int):
    """The points an optimizer visits from the surface's start: an array (n + 1, 2), with
    fewer rows than ``steps + 1`` if the loss stopped being finite (it diverged)."""
    f, start = SURFACES[surface][:2]
    gradient = GRADIENTS[surface]
    p = tensor(np.array(start, dtype=np.float64), requires_grad=True)
    opt = make_optimizer(name, [p], lr, momentum)
    points = [np.array(start, dtype=np.float64)]
    for _ in range(steps):
        p.grad = tensor(np.array(gradient(*points[-1]), dtype=np.float64))  # what backward gives
        opt.step()
        point = p.detach().numpy().copy()
        if not np.all(np.isfinite(point)) or not math.isfinite(f(*point)) or \
                np.abs(point).max() > 1e6:
            break
        points.append(point)
    return np.array(points)


class OptimizerPlayground(NnbookWidget):
    """Choose an optimizer, its learning rate and momentum; watch its path on the contours."""

    figsize = (PROJECTOR_IN, 5.8)  # 1200 px wide: 12-pt text reads on a projector

    def __init__(self, surface: str = "bowl", optimizer: str = "SGD", lr: float = 0.07,
                 momentum: float = 0.0, steps: int = 50):
        if not isinstance(lr, (int, float)) or not 0 < lr <= 10:
            raise InputError(message(f"lr={lr!r}: a learning rate here is a number in (0, 10].",
                                     where="OptimizerPlayground", line=None,
                                     hint="try lr=0.01, or move the slider."))
        super().__init__()
        if surface not in SURFACES:
            raise InputError(message(f"there is no surface called {surface!r}.",
                                        where="OptimizerPlayground", line=None,
                                        hint=f"choose one of {', '.join(SURFACES)}."))
        if optimizer not in OPTIMIZERS:
            make_optimizer(optimizer, [], lr, momentum)  # raises the error that names them
        style = {"description_width": "initial"}
        self.surface_dropdown = widgets.Dropdown(options=[(TITLES[k], k) for k in SURFACES],
                                                 value=surface,
                                                 description="surface", style=style)
        self.optimizer_dropdown = widgets.Dropdown(options=list(OPTIMIZERS), value=optimizer,
                                                   description="optimizer", style=style)
        # round learning rates (1, 2, 3, 5, 7 per decade), so that the readout says what
        # the optimizer gets; a value given that is not among them joins them
        rates = sorted({round(m * 10.0 ** e, 6) for e in range(-4, 1) for m in (1, 2, 3, 5, 7)
                        if m * 10.0 ** e <= 3} | {float(lr)})
        self.lr_slider = widgets.SelectionSlider(options=[(f"{r:g}", r) for r in rates],
                                                 value=float(lr), description="learning rate",
                                                 style=style)
        self.momentum_slider = widgets.FloatSlider(value=momentum, min=0.0, max=0.99,
                                                   step=0.01, description="momentum / beta1",
                                                   style=style)
        self.steps_slider = widgets.IntSlider(value=steps, min=1, max=500,
                                              description="steps", style=style)
        for control in (self.surface_dropdown, self.optimizer_dropdown, self.lr_slider,
                        self.momentum_slider, self.steps_slider):
            control.observe(lambda _: self.redraw(), names="value")
        self._setup([widgets.HBox([self.surface_dropdown, self.optimizer_dropdown]),
                     widgets.HBox([self.lr_slider, self.momentum_slider, self.steps_slider])])

    # -- the path -----------------------------------------------------------------------
    @property
    def path(self) -> np.ndarray:
        return optimizer_path(self.surface_dropdown.value, self.optimizer_dropdown.value,
                              self.lr_slider.value, self.momentum_slider.value,
                              self.steps_slider.value)

    def redraw(self) -> None:
        self._path = self.path
        super().redraw()

    @property
    def diverged(self) -> bool:
        return len(self._path) < self.steps_slider.value + 1

    def final_loss(self) -> float:
        f = SURFACES[self.surface_dropdown.value][0]
        return float(f(*self._path[-1]))

    # -- the view -----------------------------------------------------------------------
    def _title(self) -> str:
        return (f"{self.optimizer_dropdown.value}, lr {self.lr_slider.value:g}, "
                f"momentum {self.momentum_slider.value:.2f}")

    def describe(self) -> str:
        head = f"OptimizerPlayground: {self._title()} on {TITLES[self.surface_dropdown.value]}"
        if self.diverged:
            return f"{head}\n  diverged after {len(self._path) - 1} of " \
                   f"{self.steps_slider.value} steps"
        x, y = self._path[-1]
        return (f"{head}\n  after {self.steps_slider.value} steps: at ({x:.3g}, {y:.3g}), "
                f"loss {self.final_loss():.3g}")

    def draw(self, fig) -> None:
        name = self.surface_dropdown.value
        f, start, minimum, (x0, x1), (y0, y1) = SURFACES[name]
        ax = fig.add_axes([0.07, 0.12, 0.9, 0.78])
        xs, ys = np.meshgrid(np.linspace(x0, x1, 241), np.linspace(y0, y1, 161))
        levels = np.quantile(f(xs, ys), np.linspace(0.0, 0.9, 14) ** 2)
        ax.contour(xs, ys, f(xs, ys), levels=np.unique(levels), colors="#9e9e9e",
                   linewidths=1.0)
        path = self._path
        ax.plot(path[:, 0], path[:, 1], "-o", color=GRADIENT_COLOR, markersize=4,
                linewidth=2, label=f"path of {self.optimizer_dropdown.value} "
                f"({len(path) - 1} steps)")
        ax.plot(*start, "s", color=TEXT_COLOR, markersize=10, label="start")
        ax.plot(*minimum, "*", color="#2e7d32", markersize=18, label="minimum")
        ax.plot([], [], color="#9e9e9e", label="contours: equal loss")
        if self.diverged:
            ax.plot(*path[-1], "X", color=PROBLEM_COLOR, markersize=14,
                    label="diverged: the next step left every bound")
        ax.set_xlim(x0, x1)
        ax.set_ylim(y0, y1)
        ax.set_xlabel("x", fontsize=FONT)
        ax.set_ylabel("y", fontsize=FONT)
        ax.tick_params(labelsize=FONT - 1)
        ax.set_title(f"{self._title()} on {TITLES[name]}", fontsize=FONT + 2, loc="left")
        ax.legend(fontsize=FONT - 1, loc="upper right", framealpha=0.9)


__all__ = ["OptimizerPlayground", "optimizer_path", "make_optimizer", "SURFACES",
           "OPTIMIZERS"]

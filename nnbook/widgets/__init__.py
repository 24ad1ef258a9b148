"""Notebook widgets that draw nnbook's inspection records (needs the ``widgets`` extra).

    from nnbook.widgets import ShapeStepper
    ShapeStepper(model, (10, 3, 16, 8))

Each widget is an ipywidgets box holding controls and an image of the current view; it
also shows as a short text and a PNG where there is no live front end (a terminal,
GitHub, a committed notebook opened without running).
"""
try:
    import ipywidgets  # noqa: F401
    import matplotlib  # noqa: F401
except ImportError as err:  # pragma: no cover - exercised in a venv without the extra
    raise ImportError(
        f"nnbook.widgets needs the 'widgets' extra ({err.name} is missing): "
        'pip install "nnbook[widgets]" (or, in this repository, pip install -e ".[widgets]"; '
        "python3 dev.py lab sets it all up)."
    ) from err

from ._base import NnbookWidget, figure_png  # noqa: E402

__all__ = ["NnbookWidget", "figure_png"]
from .conv_arithmetic import ConvArithmetic  # noqa: E402
from .shape_stepper import ShapeStepper  # noqa: E402

__all__ += ["ShapeStepper", "ConvArithmetic"]
from .backward_stepper import BackwardStepper  # noqa: E402
from .gradient_flow import GradientFlow  # noqa: E402
from .parameter_explorer import ParameterExplorer  # noqa: E402

__all__ += ["ParameterExplorer", "GradientFlow", "BackwardStepper"]
from .optimizer_playground import OptimizerPlayground  # noqa: E402

__all__ += ["OptimizerPlayground"]
from .attention_viewer import AttentionViewer  # noqa: E402
from .time_gradient_flow import TimeGradientFlow  # noqa: E402

__all__ += ["AttentionViewer", "TimeGradientFlow"]

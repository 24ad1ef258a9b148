"""Drawing functions the widgets use: records and a matplotlib ``Axes`` in, artists out.

They know nothing of widgets, so they also draw into any figure of your own::

    from matplotlib.figure import Figure
    from nnbook.widgets.draw import draw_step
    ax = Figure(figsize=(8, 3)).add_subplot()
    draw_step(ax, nb.infer_shapes(model, (10, 3, 16, 8)).steps[0])
"""
from .conv import conv_title, draw_conv_grid, draw_conv_text, draw_group_diagram
from .shapes import (
    draw_missing_tensor,
    draw_step,
    draw_step_text,
    draw_tensor_box,
    draw_text_lines,
    error_blocks,
    split_error,
    tensor_extent,
)

__all__ = ["conv_title", "draw_conv_grid", "draw_conv_text", "draw_group_diagram",
           "draw_missing_tensor", "draw_step", "draw_step_text", "draw_tensor_box",
           "draw_text_lines", "error_blocks", "split_error", "tensor_extent"]

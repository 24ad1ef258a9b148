"""Inspection: what a model does, as plain records the widgets draw.

* :func:`infer_shapes` and :func:`summary` -- shapes, formulas and sizes without data;
* :func:`record` -- module calls, the op graph and backward steps of a real pass;
* :func:`trace_backward` -- a loss's backward, node by node, without touching ``.grad``;
* :class:`GradientHistory` and :func:`gradient_stats` -- gradient statistics per parameter;
* :func:`parameter_report` -- what a model and its optimizer hold, and what looks wrong;
* :func:`conv_geometry`, :func:`receptive_field` -- convolution arithmetic as data;
* :func:`gradients_over_time` -- the gradient reaching each step of a recurrent layer;
* :func:`attention_shapes` -- each step of multi-head attention with its shape rule;
* :func:`record_attention` -- the attention weights of every attention layer in a pass.
"""
from .attention import (
    AttentionMap,
    AttentionRecord,
    AttentionShapes,
    AttentionShapeStep,
    attention_shapes,
    record_attention,
)
from .conv_geometry import conv_geometry, group_connections, receptive_field
from .params import ParameterReport, parameter_report
from .records import (
    BackwardStep,
    BackwardTrace,
    GradientHistory,
    GradStats,
    ModuleCall,
    OpNode,
    Recording,
    gradient_stats,
    record,
    trace_backward,
)
from .shapes import ShapeStep, ShapeTrace, infer_shapes
from .summary import Summary, SummaryRow, summary
from .time_gradients import TimeGradients, gradients_over_time

__all__ = ["AttentionMap", "AttentionRecord", "AttentionShapeStep", "AttentionShapes",
           "BackwardStep", "BackwardTrace", "GradStats", "GradientHistory", "ModuleCall",
           "OpNode", "ParameterReport", "Recording", "ShapeStep", "ShapeTrace", "Summary",
           "SummaryRow", "TimeGradients", "attention_shapes", "conv_geometry",
           "gradient_stats", "gradients_over_time", "group_connections", "infer_shapes",
           "parameter_report", "receptive_field", "record", "record_attention", "summary",
           "trace_backward"]

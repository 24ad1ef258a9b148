"""Reverse-mode automatic differentiation: the engine and custom backward rules."""
from .custom import (TEACHING_MAX_ELEMENTS, is_teaching, set_teaching_mode,
                     teaching_mode)
from .anomaly import detect_anomaly
from .engine import run_backward, topological_order
from .function import Function, FunctionCtx

__all__ = ["detect_anomaly", "Function", "FunctionCtx", "TEACHING_MAX_ELEMENTS", "is_teaching", "run_backward",
           "set_teaching_mode", "teaching_mode", "topological_order"]

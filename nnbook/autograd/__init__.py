"""Reverse-mode automatic differentiation: the engine (and, later, custom Functions)."""
from .engine import run_backward, topological_order

__all__ = ["run_backward", "topological_order"]

"""Ops on numpy arrays: each one a shape rule, a forward and a backward side by side."""
from .base import Op, Spec

__all__ = ["Op", "Spec"]

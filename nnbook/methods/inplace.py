"""In-place methods (the ones whose names end in ``_``), all through ``Tensor._write``.

``_write`` adds one to the tensor's version counter (so a backward that saved the old
values refuses to run on the new ones) and, while recording, makes the tensor the output
of the op, so gradients flow through the change.  ``add_``, ``mul_``, ``fill_``,
``clamp_`` and the other first ones are in nnbook/tensor.py.

The random fills (``normal_``, ``uniform_``...) draw from ``generator`` or the default
generator; like PyTorch, they are meant for ``with nb.no_grad():`` (initialisation).
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import ArgumentError, DTypeError, ShapeError, message
from ..ops import elementwise as ew
from ..ops import explog, floats, indexing, linalg, rounding, selection, special, ternary, trig
from ..random import numpy_generator
from .maths import _order
from .operands import numpy_dim, require_tensors


class InPlace:
    """Tensor methods that change the tensor itself."""

    __slots__ = ()

    # -- elementwise functions -----------------------------------------------------------------
    def exp_(self):
        return self._write(ew.Exp(), name="exp_")

    def log_(self):
        return self._write(ew.Log(), name="log_")

    def sqrt_(self):
        return self._write(ew.Sqrt(), name="sqrt_")

    def rsqrt_(self):
        return self._write(explog.Rsqrt(), name="rsqrt_")

    def square_(self):
        return self._write(explog.Square(), name="square_")

    def reciprocal_(self):
        return self._write(explog.Reciprocal(), name="reciprocal_")

    def abs_(self):
        return self._write(ew.Abs(), name="abs_")

    def neg_(self):
        return self._write(ew.Neg(), name="neg_")

    def sign_(self):
        return self._write(rounding.Sign(), name="sign_")

    def sin_(self):
        return self._write(trig.Sin(), name="sin_")

    def cos_(self):
        return self._write(trig.Cos(), name="cos_")

    def tanh_(self):
        return self._write(ew.Tanh(), name="tanh_")

    def sigmoid_(self):
        return self._write(ew.Sigmoid(), name="sigmoid_")

    def relu_(self):
        return self._write(ew.Relu(), name="relu_")

    def floor_(self):
        return self._write(rounding.Floor(), name="floor_")

    def ceil_(self):
        return self._write(rounding.Ceil(), name="ceil_")

    def trunc_(self):
        return self._write(rounding.Trunc(), name="trunc_")

    def round_(self, *, decimals=0):
        return self._write(rounding.Round(decimals), name="round_")

    def pow_(self, exponent):
        return self._write(ew.Pow(), exponent, name="pow_")

    def clamp_min_(self, min):
        return self._write(ew.Clamp(min, None), name="clamp_min_")

    def clamp_max_(self, max):
        return self._write(ew.Clamp(None, max), name="clamp_max_")

    def lerp_(self, end, weight):
        return self._write(ternary.Lerp(), end, weight, name="lerp_")

    def logit_(self, eps=None):
        return self._write(explog.Logit(eps), name="logit_")

    def lgamma_(self):
        return self._write(special.Lgamma(), name="lgamma_")

    def digamma_(self):
        return self._write(special.Digamma(), name="digamma_")

    def polygamma_(self, n):
        return self._write(special.Polygamma(_order(n, where="Tensor.polygamma_")),
                           name="polygamma_")

    def i0_(self):
        return self._write(special.BesselI(0), name="i0_")

    def sinc_(self):
        return self._write(special.Sinc(), name="sinc_")

    def mvlgamma_(self, p):
        if self._array.dtype.kind != "f":
            raise DTypeError(message(
                f"mvlgamma_: the result is floating point, which cannot be stored in this "
                f"{self.dtype.name} tensor.", where="Tensor.mvlgamma_",
                hint="convert first (x = x.float()), or use y = x.mvlgamma(p)."))
        return self.copy_(self.mvlgamma(p))

    def deg2rad_(self):
        return self._write(ew.Mul(), math.pi / 180, name="deg2rad_")

    def rad2deg_(self):
        return self._write(ew.Mul(), 180 / math.pi, name="rad2deg_")

    def float_power_(self, exponent):
        """self ** exponent in float64: self must be float64 already (as in PyTorch)."""
        if self._array.dtype != np.float64:
            raise DTypeError(message(
                f"float_power_ computes in float64, which cannot be stored in this "
                f"{self.dtype.name} tensor (as in PyTorch).", where="Tensor.float_power_",
                hint="use the out-of-place form: y = x.float_power(e), or x = x.double() "
                "first."))
        return self.pow_(exponent.double() if self._is_tensor(exponent) else exponent)

    def heaviside_(self, values):
        require_tensors(self, "Tensor.heaviside_", values=values)
        return self._write(floats.Heaviside(), values, name="heaviside_")

    def copysign_(self, other):
        return self._write(floats.Copysign(), other, name="copysign_")

    def ldexp_(self, other):
        return self._write(floats.Ldexp(), other, name="ldexp_")

    def nextafter_(self, other):
        return self._write(floats.Nextafter(), other, name="nextafter_")

    def gcd_(self, other):
        return self._write(floats.WholeNumbers("gcd"), other, name="gcd_")

    def lcm_(self, other):
        return self._write(floats.WholeNumbers("lcm"), other, name="lcm_")

    def bitwise_left_shift_(self, other):
        return self._write(floats.WholeNumbers("bitwise_left_shift"), other, name="<<=")

    def bitwise_right_shift_(self, other):
        return self._write(floats.WholeNumbers("bitwise_right_shift"), other, name=">>=")

    __ilshift__, __irshift__ = bitwise_left_shift_, bitwise_right_shift_

    def erfc_(self):
        return self._write(explog.Erfc(), name="erfc_")

    def erfinv_(self):
        return self._write(explog.Erfinv(), name="erfinv_")

    def xlogy_(self, other):
        return self._write(explog.Xlogy(), other, name="xlogy_")

    def hypot_(self, other):
        return self._write(trig.Hypot(), other, name="hypot_")

    def fmod_(self, other):
        return self._write(ew.Fmod(), other, name="fmod_")

    def remainder_(self, other):
        return self._write(ew.Remainder(), other, name="remainder_")

    def floor_divide_(self, other):
        return self._write(ew.FloorDiv(), other, name="floor_divide_")

    def nan_to_num_(self, nan=0.0, posinf=None, neginf=None):
        return self._write(ew.NanToNum(nan, posinf, neginf), name="nan_to_num_")
    def addcmul_(self, tensor1, tensor2, *, value=1):
        """self += value * tensor1 * tensor2 (Adam: ``v.mul_(b2).addcmul_(g, g, value=1 - b2)``)."""
        value = value.item() if self._is_tensor(value) else value
        require_tensors(self, "addcmul_", tensor1=tensor1, tensor2=tensor2)
        return self._write(ternary.Addcmul(value), tensor1, tensor2, name="addcmul_")

    def addcdiv_(self, tensor1, tensor2, *, value=1):
        """self += value * tensor1 / tensor2 (Adam: ``p.addcdiv_(m, denom, value=-lr)``)."""
        value = value.item() if self._is_tensor(value) else value
        require_tensors(self, "addcdiv_", tensor1=tensor1, tensor2=tensor2)
        return self._write(ternary.Addcdiv(value), tensor1, tensor2, name="addcdiv_")

    # -- by index and by mask ------------------------------------------------------------------
    def tril_(self, diagonal=0):
        return self._write(linalg.Tril(diagonal), name="tril_")

    def triu_(self, diagonal=0):
        return self._write(linalg.Triu(diagonal), name="triu_")

    # -- fused products: self = beta * self + alpha * product (methods/linalg.py) ----------
    def addmm_(self, mat1, mat2, *, beta=1, alpha=1):
        require_tensors(self, "addmm_", mat1=mat1, mat2=mat2)
        return self._write(linalg.Addmm(beta, alpha), mat1, mat2, name="addmm_")

    def addmv_(self, mat, vec, *, beta=1, alpha=1):
        require_tensors(self, "addmv_", mat=mat, vec=vec)
        return self._write(linalg.Addmv(beta, alpha), mat, vec, name="addmv_")

    def addr_(self, vec1, vec2, *, beta=1, alpha=1):
        require_tensors(self, "addr_", vec1=vec1, vec2=vec2)
        return self._write(linalg.Addr(beta, alpha), vec1, vec2, name="addr_")

    def baddbmm_(self, batch1, batch2, *, beta=1, alpha=1):
        require_tensors(self, "baddbmm_", batch1=batch1, batch2=batch2)
        return self._write(linalg.Baddbmm(beta, alpha), batch1, batch2, name="baddbmm_")

    def addbmm_(self, batch1, batch2, *, beta=1, alpha=1):
        require_tensors(self, "addbmm_", batch1=batch1, batch2=batch2)
        return self._write(linalg.Addbmm(beta, alpha), batch1, batch2, name="addbmm_")

    def masked_fill_(self, mask, value):
        if self._is_tensor(value):
            return self._write(selection.MaskedFill(), mask, value.to(self.dtype),
                               name="masked_fill_")
        return self._write(selection.MaskedFill(value), mask, name="masked_fill_")

    @numpy_dim
    def index_fill_(self, dim, index, value):
        """Set the slices at ``index`` along ``dim`` to ``value``."""
        d = self._dim(dim, "index_fill_")
        key = (slice(None),) * d + (np.asarray(index).reshape(-1),)
        return self._write(indexing.IndexPut(key), value, name="index_fill_")

    @numpy_dim
    def index_fill(self, dim, index, value):
        return self.clone().index_fill_(dim, index, value)

    @numpy_dim
    def scatter_(self, dim, index, src=None, *, value=None, reduce=None):
        if reduce is not None:
            return self.scatter(dim, index, src, value=value, reduce=reduce)  # its message
        return self._write(selection.Scatter(dim), index, self._source(src, value),
                           name="scatter_")

    @numpy_dim
    def scatter_add_(self, dim, index, src):
        return self._write(selection.ScatterAdd(dim), index, self._source(src, None),
                           name="scatter_add_")

    @numpy_dim
    def scatter_reduce_(self, dim, index, src, reduce, *, include_self=True):
        if self.ndim == 0:
            return self._write_whole("scatter_reduce_", lambda x: x.scatter_reduce(
                dim, index, src, reduce, include_self=include_self))
        return self._write(selection.ScatterReduce(dim, reduce, include_self), index, src,
                           name="scatter_reduce_")

    @numpy_dim
    def index_add_(self, dim, index, source, *, alpha=1):
        if self.ndim == 0:
            return self._write_whole("index_add_", lambda x: x.index_add(dim, index, source,
                                                                         alpha=alpha))
        return self._write(selection.IndexAdd(dim, alpha), index, source, name="index_add_")

    @numpy_dim
    def index_copy_(self, dim, index, source):
        if self.ndim == 0:
            return self._write_whole("index_copy_", lambda x: x.index_copy(dim, index, source))
        return self._write(selection.IndexCopy(dim), index, source, name="index_copy_")

    def index_put_(self, indices, values, accumulate=False):
        op = self._index_put(indices, values, accumulate, "index_put_")
        return self._write(op, values, name="index_put_")

    def put_(self, index, source, accumulate=False):
        return self._write(selection.Put(accumulate), index, source, name="put_")

    def masked_scatter_(self, mask, source):
        return self._write(selection.MaskedScatter(), mask, source, name="masked_scatter_")

    def fill_diagonal_(self, fill_value, wrap=False):
        """Set the main diagonal (all indices equal) to ``fill_value``; a tall matrix with
        ``wrap=True`` starts the diagonal again after each N+1 rows, as numpy's does."""
        if self.ndim < 2 or (self.ndim > 2 and len(set(self.shape)) > 1):
            raise ShapeError(message(
                f"fill_diagonal_ needs a matrix, or a tensor whose dims are all the same "
                f"size, got shape {tuple(self.shape)}.", where="Tensor.fill_diagonal_",
                hint="for a batch of matrices: x.diagonal(dim1=-2, dim2=-1).fill_(v) "
                "(a view), or x * (1 - eye) + v * eye."))
        on_diagonal = np.zeros(self.shape, dtype=bool)
        np.fill_diagonal(on_diagonal, True, wrap=wrap)
        return self._write(selection.MaskedFill(fill_value), self._new(on_diagonal),
                           name="fill_diagonal_")

    def _write_whole(self, name, compute):
        """An in-place change of a 0-d tensor: ``compute`` works it out of place on a copy
        (whose views the write leaves alone), and the result is copied in."""
        return self._write(ew.CopyFrom(), compute(self.clone()), name=name)

    # -- random fills --------------------------------------------------------------------------
    def _fill_with(self, name, draw, generator, floats_only=True):
        if floats_only and self._array.dtype.kind != "f":
            raise DTypeError(message(
                f"{name} draws floating point numbers; this tensor is {self.dtype.name}.",
                where=f"Tensor.{name}", hint="use random_() for integers, or x.float() first."))
        values = np.asarray(draw(numpy_generator(generator), self.shape))
        return self._write(ew.Fill(values.astype(self._array.dtype)), name=name)

    def normal_(self, mean=0.0, std=1.0, *, generator=None):
        return self._fill_with("normal_", lambda rng, shape: rng.normal(mean, std, shape),
                               generator)

    def uniform_(self, *bounds, generator=None, **named):
        """Uniform in [from, to): ``uniform_(a, b)`` or ``uniform_(**{'from': a, 'to': b})``
        (``from`` is a Python keyword)."""
        low, high = _bounds("uniform_", bounds, named, 0.0, 1.0)
        return self._fill_with("uniform_", lambda rng, shape: rng.uniform(low, high, shape),
                               generator)

    def exponential_(self, lambd=1.0, *, generator=None):
        return self._fill_with("exponential_",
                               lambda rng, shape: rng.exponential(1 / lambd, shape), generator)

    def bernoulli_(self, p=0.5, *, generator=None):
        p = p._array if self._is_tensor(p) else p
        return self._fill_with("bernoulli_", lambda rng, shape: rng.random(shape) < p,
                               generator, floats_only=False)

    def random_(self, *bounds, generator=None, **named):
        """Whole numbers in [from, to): ``random_(to)``, ``random_(from, to)``; without
        ``to``, up to the largest whole number the dtype holds exactly."""
        low, high = (0, bounds[0]) if len(bounds) == 1 else \
            _bounds("random_", bounds, named, 0, None)
        if high is None:
            dtype = self._array.dtype
            high = 2 ** (np.finfo(dtype).nmant + 1) + 1 if dtype.kind == "f" else \
                (2 if dtype.kind == "b" else int(np.iinfo(dtype).max) + 1)
        return self._fill_with("random_", lambda rng, shape: rng.integers(low, high, shape),
                               generator, floats_only=False)


def _bounds(name, given, named, low, high) -> tuple:
    """(from, to) given by position or by the names PyTorch uses."""
    unknown = set(named) - {"from", "to"}
    if unknown or len(given) + len(named) > 2:
        raise ArgumentError(message(
            f"{name} takes from and to, got {len(given)} value(s) and {sorted(named)}.",
            where=f"Tensor.{name}", hint=f"e.g. x.{name}(0, 10)."))
    low = given[0] if given else named.get("from", low)
    high = given[1] if len(given) > 1 else named.get("to", high)
    return low, high

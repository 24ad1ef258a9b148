"""Matrix products: ``a @ b`` (batched, broadcasting), the fused ``linear``, and the
products added to an input (``addmm``, ``addmv``, ``addr``, ``baddbmm``, ``addbmm``)."""
from __future__ import annotations

import math

import numpy as np

from ..errors import DTypeError, fmt_shape
from .base import Op, broadcast_shape, normalize_dim
from .ternary import number, scalar


class Matmul(Op):
    """torch.matmul semantics: 1-D operands are promoted to a row/column and dropped after."""

    name = "matmul"

    def infer(self, a, b):
        if a.ndim == 0 or b.ndim == 0:
            self.fail(
                f"both operands need at least 1 dimension, got shapes "
                f"{fmt_shape(a.shape)} and {fmt_shape(b.shape)}.",
                hint="for a product with a scalar use *, not @.",
            )
        if a.dtype != b.dtype:
            self.fail(f"both operands need the same dtype, got {np.dtype(a.dtype).name} and "
                      f"{np.dtype(b.dtype).name}.", cls=DTypeError,
                      hint="convert one of them: x.float() or x.double().")
        sa = (1,) + a.shape if a.ndim == 1 else a.shape
        sb = b.shape + (1,) if b.ndim == 1 else b.shape
        if sa[-1] != sb[-2]:
            self.fail(
                f"inner dimensions differ: {fmt_shape(a.shape)} @ {fmt_shape(b.shape)} "
                f"needs a's last size ({sa[-1]}) to equal b's "
                f"{'only' if b.ndim == 1 else 'second-to-last'} size ({sb[-2]}).",
                hint="(n, k) @ (k, m) -> (n, m); transpose one operand if its axes are "
                "the other way round (w.T or x.transpose(-1, -2)).",
            )
        batch = broadcast_shape(self, _Shape(sa[:-2]), _Shape(sb[:-2]))
        out = tuple(batch) + (sa[-2], sb[-1])
        if a.ndim == 1:
            out = out[:-2] + out[-1:]
        if b.ndim == 1:
            out = out[:-1]
        return out

    def forward(self, a, b):
        self.a, self.b = a, b  # both: their shapes are needed even where the values are not
        return np.matmul(a, b)

    def backward(self, grad_out):  # C = A B;  dA = dC B^T,  dB = A^T dC
        # Work with 1-D operands promoted to a row (a) or a column (b), as forward did.
        a = self.a[None, :] if self.a.ndim == 1 else self.a
        b = self.b[:, None] if self.b.ndim == 1 else self.b
        batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        g = grad_out.reshape(batch + (a.shape[-2], b.shape[-1]))
        need_a, need_b = self.needs_input_grad
        grad_a = np.matmul(g, np.swapaxes(b, -1, -2)) if need_a else None
        grad_b = np.matmul(np.swapaxes(a, -1, -2), g) if need_b else None
        if grad_a is not None and self.a.ndim == 1:
            grad_a = grad_a.reshape(grad_a.shape[:-2] + grad_a.shape[-1:])
        if grad_b is not None and self.b.ndim == 1:
            grad_b = grad_b[..., 0]
        # Batch axes that broadcasting added are summed away by the engine.
        return grad_a, grad_b


def features_hint(shape, in_features: int, out_features: int) -> str | None:
    """The hint for a Linear layer given more than (N, features): flatten first.

    A Linear layer acts on the last dimension only, so (N, C, H, W) into Linear(C*H*W, k)
    fails on W; the fix is to flatten each sample, not a Linear(W, k).
    """
    per_sample, total = math.prod(shape[1:]), math.prod(shape)
    flatten = (f"flatten each sample first: nn.Flatten() before this layer (or "
               f"x.flatten(1) in forward) gives (N, {per_sample})")
    if len(shape) > 2 and per_sample == in_features:
        return (f"a Linear layer acts on the last dimension only; {flatten}, which "
                f"Linear({in_features}, {out_features}) takes.")
    if len(shape) >= 2 and total == in_features:
        return (f"the input {fmt_shape(shape)} holds {total} values: if it is one sample, it "
                "lacks its batch dimension; make it a batch of one where it enters the model "
                "(x.unsqueeze(0)), or here with x.reshape(1, -1).")
    if len(shape) > 2:
        return (f"a Linear layer acts on the last dimension only; {flatten}, so use "
                f"Linear({per_sample}, {out_features}) after it.")
    return None


class _Shape:
    __slots__ = ("shape",)

    def __init__(self, shape):
        self.shape = tuple(shape)


class Linear(Op):
    """y = x W^T + b, one node: the layer PyTorch's ``F.linear`` computes."""

    name = "linear"

    def infer(self, x, weight, bias=None):
        if weight.ndim != 2:
            self.fail(f"weight must be 2-D (out_features, in_features), got shape "
                      f"{fmt_shape(weight.shape)}.")
        if x.ndim == 0:
            self.fail("input needs at least 1 dimension (features), got a scalar.")
        if x.dtype != weight.dtype or (bias is not None and bias.dtype != weight.dtype):
            got = np.dtype(x.dtype).name
            want = np.dtype(weight.dtype).name
            self.fail(f"expects a {want} input (its weight is {want}), got {got}.",
                      values=f"input {fmt_shape(x.shape)} {got}   weight "
                      f"{fmt_shape(weight.shape)} {want}", cls=DTypeError,
                      hint=f"convert the input: x.{'double' if want == 'float64' else 'float'}"
                      f"() (or the model: model.{'float' if got == 'float32' else 'double'}()).")
        out_f, in_f = weight.shape
        if x.shape[-1] != in_f:
            self.fail(
                f"expects input with {in_f} features in its last dimension, got "
                f"{x.shape[-1]}.",
                values=f"input {fmt_shape(x.shape)}   weight {fmt_shape(weight.shape)}",
                hint=features_hint(x.shape, in_f, out_f) or self._transposed_hint(x, weight)
                or f"the layer before outputs {x.shape[-1]} features; use "
                f"Linear({x.shape[-1]}, {out_f}) or flatten/reshape the input so its last "
                f"dimension is {in_f}.",
            )
        if bias is not None and bias.shape != (out_f,):
            self.fail(f"bias must have shape ({out_f},), got {fmt_shape(bias.shape)}.")
        return x.shape[:-1] + (out_f,)

    @staticmethod
    def _transposed_hint(x, weight):
        if weight.shape[0] == x.shape[-1]:  # (in_features, out_features): the other way round
            return (f"the weight {fmt_shape(weight.shape)} looks transposed: linear takes "
                    "weight (out_features, in_features), as Linear stores it; pass weight.T.")
        return None

    def forward(self, x, weight, bias=None):
        need = self.needs_input_grad  # grad_x needs the weight, grad_w needs x
        self.x = x if len(need) > 1 and need[1] else None
        self.weight = weight
        self.x_shape = x.shape
        # (B, T, in) as one (B·T, in) matrix: one GEMM, twice as fast as B small ones (rows
        # counted, not -1: numpy cannot infer -1 beside a dimension of 0 features)
        rows = math.prod(x.shape[:-1])
        out = (x.reshape(rows, x.shape[-1]) @ weight.T).reshape(x.shape[:-1] + weight.shape[:1])
        if bias is not None:
            out += bias
        return out

    def backward(self, grad_out):  # y = x W^T + b;  dx = dy W,  dW = dy^T x,  db = sum dy
        need = self.needs_input_grad
        rows = math.prod(self.x_shape[:-1])
        g2 = grad_out.reshape(rows, grad_out.shape[-1])
        grad_x = (g2 @ self.weight).reshape(self.x_shape) if need[0] else None
        grad_w = g2.T @ self.x.reshape(rows, self.x_shape[-1]) if need[1] else None
        grad_b = g2.sum(0) if len(need) > 2 and need[2] else None
        return (grad_x, grad_w, grad_b)[:len(need)]


# ---------------------------------------------------------------------------
# Parts of matrices: triangles and diagonals
# ---------------------------------------------------------------------------

class Tril(Op):
    """The lower triangle of the last two dims, zeros above it; ``diagonal`` shifts the
    edge (0: the main diagonal stays, 1: one more above it, -1: one less)."""

    name = "tril"
    upper = False

    def __init__(self, diagonal=0):
        self.diagonal = int(diagonal)

    def infer(self, x):
        if x.ndim < 2:
            self.fail(f"expects a tensor of at least 2 dimensions (matrices), got shape "
                      f"{fmt_shape(x.shape)}.", hint="reshape a vector into a matrix first.")
        return x.shape

    def _keep(self, a):
        return np.triu(a, self.diagonal) if self.upper else np.tril(a, self.diagonal)

    def forward(self, x):
        return self._keep(x)

    def backward(self, grad_out):  # kept elements pass their gradient, the zeroed ones get 0
        return (self._keep(grad_out),)


class Triu(Tril):
    """The upper triangle of the last two dims, zeros below it."""

    name = "triu"
    upper = True


def diagonal_positions(rows: int, cols: int, offset: int) -> tuple:
    """(row indices, column indices) of the ``offset`` diagonal of a rows x cols matrix."""
    n = max(0, min(rows - max(-offset, 0), cols - max(offset, 0)))
    steps = np.arange(n)
    return steps + max(-offset, 0), steps + max(offset, 0)


class Diagonal(Op):
    """The ``offset`` diagonal of the matrices in dims (dim1, dim2), as a last dim (a copy)."""

    name = "diagonal"

    def __init__(self, offset=0, dim1=0, dim2=1):
        self.offset, self.dim1, self.dim2 = int(offset), dim1, dim2

    def _axes(self, x):
        axes = (normalize_dim(self, self.dim1, x.ndim, "dim1"),
                normalize_dim(self, self.dim2, x.ndim, "dim2"))
        if x.ndim < 2 or axes[0] == axes[1]:
            self.fail(f"needs two different dims of a tensor with at least 2, got "
                      f"dim1={self.dim1}, dim2={self.dim2} for shape {fmt_shape(x.shape)}.",
                      hint="the diagonal runs along two dims, e.g. dim1=-2, dim2=-1.")
        return axes

    def infer(self, x):
        a, b = self._axes(x)
        n = len(diagonal_positions(x.shape[a], x.shape[b], self.offset)[0])
        return tuple(s for i, s in enumerate(x.shape) if i not in (a, b)) + (n,)

    def forward(self, x):
        self.in_shape, self.axes = x.shape, self._axes(x)
        return np.diagonal(x, self.offset, *self.axes).copy()

    def backward(self, grad_out):  # y_i = x_(i, i+offset): each diagonal element gets its own
        grad = np.zeros(self.in_shape, dtype=grad_out.dtype)
        matrices = np.moveaxis(grad, self.axes, (-2, -1))  # a view of grad
        rows, cols = diagonal_positions(*matrices.shape[-2:], self.offset)
        matrices[..., rows, cols] = grad_out
        return (grad,)


class DiagMatrix(Op):
    """A square matrix with the vector x on its ``offset`` diagonal, zeros elsewhere."""

    name = "diag"

    def __init__(self, offset=0):
        self.offset = int(offset)

    def infer(self, x):
        if x.ndim != 1:
            self.fail(f"expects a vector, got shape {fmt_shape(x.shape)}.",
                      hint="a matrix's diagonal is x.diagonal() (or x.diag() for a 2-D x).")
        n = x.shape[0] + abs(self.offset)
        return (n, n)

    def forward(self, x):
        return np.diag(x, self.offset)

    def backward(self, grad_out):  # y_(i, i+offset) = x_i: read the gradient off the diagonal
        return (np.diagonal(grad_out, self.offset).copy(),)


# ---------------------------------------------------------------------------
# Fused products: beta * input + alpha * (a product of two tensors)
# ---------------------------------------------------------------------------

class Addmm(Op):
    """y = beta * x + alpha * (a @ b): a product added to x, scaled, in one op.

    The product is named by einsum subscripts (a, b -> product), so one class serves the
    five fused products: the subclasses change only ``subscripts``.  x broadcasts to the
    product's shape; with beta = 0 it is not read at all (NaN in it stays out), as PyTorch.
    """

    name = "addmm"
    subscripts = ("ij", "jk", "ik")          # (n, m) @ (m, p) -> (n, p)
    names = ("mat1", "mat2")

    def __init__(self, beta=1, alpha=1):
        self.beta, self.alpha = number(self, beta, "beta"), number(self, alpha, "alpha")

    def _sizes(self, a, b) -> dict:
        """{letter: size} of the product's axes; fails on wrong dims or sizes that differ."""
        (sa, sb, _), (na, nb) = self.subscripts, self.names
        both = f"{na} {fmt_shape(a.shape)} and {nb} {fmt_shape(b.shape)}"
        if (a.ndim, b.ndim) != (len(sa), len(sb)):
            self.fail(f"expects a {len(sa)}-D {na} and a {len(sb)}-D {nb}, got {both}.",
                      hint=f"{self.name} multiplies {_kinds[len(sa)]} by {_kinds[len(sb)]}; "
                      "reshape the operands, or use a @ b, which broadcasts.")
        sizes = dict(zip(sa, a.shape))
        for letter, size in zip(sb, b.shape):
            if sizes.setdefault(letter, size) != size:
                rule = (f"{self.name} computes '{sa},{sb}->{self.subscripts[2]}' (einsum "
                        "letters): the sizes of a shared letter must agree")
                turned = b.ndim >= 2 and a.shape[-1] == b.shape[-1] != b.shape[-2]
                self.fail(f"{na} and {nb} cannot be multiplied: got {both}.",
                          hint=f"{nb} looks stored the other way round (as a Linear weight "
                          f"is, (out, in)): pass {nb}.transpose(-1, -2)." if turned
                          else rule + ".")
        return sizes

    def infer(self, x, a, b):
        if not (x.dtype == a.dtype == b.dtype):
            self.fail(f"needs input, {self.names[0]} and {self.names[1]} of one dtype, got "
                      f"{np.dtype(x.dtype).name}, {np.dtype(a.dtype).name} and "
                      f"{np.dtype(b.dtype).name}.", cls=DTypeError,
                      hint="convert them first: t.to(mat1.dtype).")
        sizes = self._sizes(a, b)
        out = tuple(sizes[letter] for letter in self.subscripts[2])
        if len(x.shape) > len(out) or any(
                s not in (1, o) for s, o in zip(reversed(x.shape), reversed(out))):
            self.fail(f"input {fmt_shape(x.shape)} does not broadcast to the product's shape "
                      f"{fmt_shape(out)} ({self.names[0]} {fmt_shape(a.shape)}, "
                      f"{self.names[1]} {fmt_shape(b.shape)}).",
                      hint="the input is added to the product: its sizes, matched from the "
                      "right, must equal the product's or be 1.")
        return out

    def _product(self, a, b):
        sa, sb, so = self.subscripts
        return np.einsum(f"{sa},{sb}->{so}", a, b, optimize=True)

    def forward(self, x, a, b):
        need = self.needs_input_grad
        self.a = a if need[2] else None
        self.b = b if need[1] else None
        product = self._product(a, b)
        beta, alpha = scalar(self.beta, product.dtype), scalar(self.alpha, product.dtype)
        if self.beta == 0:  # x is ignored, NaN and all
            return np.broadcast_to(alpha * product, product.shape).copy()
        return beta * x + alpha * product

    def backward(self, grad_out):
        # y = beta x + alpha sum_j a_.j b_j.;  dx = beta dy,  da = alpha dy b^T,  db = alpha a^T dy
        # (in einsum: the gradient of one factor multiplies dy by the other factor).
        sa, sb, so = self.subscripts
        need = self.needs_input_grad
        grad_x = grad_out * self.beta if need[0] else None
        grad_a = self.alpha * np.einsum(f"{so},{sb}->{sa}", grad_out, self.b,
                                        optimize=True) if need[1] else None
        grad_b = self.alpha * np.einsum(f"{sa},{so}->{sb}", self.a, grad_out,
                                        optimize=True) if need[2] else None
        return grad_x, grad_a, grad_b


_kinds = {1: "a vector", 2: "a matrix", 3: "a batch of matrices"}


class Addmv(Addmm):
    """y = beta * x + alpha * (mat @ vec)."""

    name = "addmv"
    subscripts, names = ("ij", "j", "i"), ("mat", "vec")


class Addr(Addmm):
    """y = beta * x + alpha * outer(vec1, vec2)."""

    name = "addr"
    subscripts, names = ("i", "j", "ij"), ("vec1", "vec2")


class Baddbmm(Addmm):
    """y = beta * x + alpha * (batch1 @ batch2), matrix by matrix: (b, n, m) @ (b, m, p)."""

    name = "baddbmm"
    subscripts, names = ("bij", "bjk", "bik"), ("batch1", "batch2")


class Addbmm(Addmm):
    """y = beta * x + alpha * sum over the batch of (batch1[i] @ batch2[i])."""

    name = "addbmm"
    subscripts, names = ("bij", "bjk", "ik"), ("batch1", "batch2")

"""Mistakes with tensors: making them, their dtypes and devices, indexing, shapes and autograd.

Each entry: the state a student has (setup), the line that goes wrong (act), the nnbook
error, where it says it happened, what it says was expected and came, and where its hint
points.  ``catalogue.check`` also requires the user's line and an unchanged state.
"""
import pytest
from catalogue import check, mistake

import nnbook as nb
from nnbook.errors import (
    ArgumentError,
    BackwardError,
    ContractError,
    DimError,
    DTypeError,
    GradcheckError,
    InputError,
    MissingNameError,
    ShapeError,
    SignatureError,
)


def leaf():
    """A float32 leaf that requires grad, (3, 5)."""
    return nb.randn(3, 5, requires_grad=True)


def graph():
    """x (a leaf) and y = x * 2 (a result in the graph)."""
    x = leaf()
    return x, x * 2


def after_one_backward():
    """x and loss = sum(exp(x) * x), whose backward has run once (x.grad is set)."""
    x = leaf()
    loss = (x.exp() * x).sum()
    loss.backward()
    return x, loss


def saved_output_changed():
    """y = sigmoid(x) keeps its output for backward; the student then changes y in place."""
    x = leaf()
    y = x.sigmoid()
    with nb.no_grad():
        y.add_(1)
    return x, y


class OneGradientForTwo(nb.autograd.Function):
    """z = 2x + y, whose backward forgets y's gradient."""

    @staticmethod
    def forward(ctx, x, y):
        return 2 * x + y

    @staticmethod
    def backward(ctx, dout):
        return 2 * dout


class FixedButWrong(nb.autograd.Function):
    """z = 2x + y, whose backward returns 2 dout for y too."""

    @staticmethod
    def forward(ctx, x, y):
        return 2 * x + y

    @staticmethod
    def backward(ctx, dout):
        return 2 * dout, 2 * dout


class ForwardWithoutCtx(nb.autograd.Function):
    @staticmethod
    def forward(x):
        return 2 * x

    @staticmethod
    def backward(ctx, dout):
        return 2 * dout


def pair():
    return nb.randn(3, 5, requires_grad=True), nb.randn(3, 5, requires_grad=True)


def pair64():
    return nb.randn(3, 5, dtype=nb.float64, requires_grad=True), \
        nb.randn(3, 5, dtype=nb.float64, requires_grad=True)


def bprop_without_dout():
    class AddTwice(nb.nn.Module):
        def forward(self, x, y):
            return 2 * x + y

        def bprop(self, x, y, out):  # the backward rule without dout
            return 2 * x, 2 * y


CREATION = [
    mistake("zeros of a negative size", None, lambda: nb.zeros(-1),
            ShapeError, "nb.zeros", r"at least 0, got -1", r"negative number of elements"),
    mistake("randn of a float size", None, lambda: nb.randn(2.5),
            ArgumentError, "nb.randn", r"whole numbers, got 2\.5", r"int\(\)"),
    mistake("ones with a float in the size tuple", None, lambda: nb.ones((3, 4.0)),
            ArgumentError, "nb.ones", r"whole numbers, got 4\.0", r"nb\.zeros\(2, 3\)"),
    mistake("zeros larger than memory", None, lambda: nb.zeros(10**6, 10**6),
            InputError, "nb.zeros", r"\(1000000, 1000000\) would need 3\.6 TB",
            r"batch and a feature size swapped.*smaller or work in chunks"),
    mistake("randn larger than memory", None, lambda: nb.randn(10**5, 10**5, 10**2),
            InputError, "nb.randn", r"\(100000, 100000, 100\) would need 3\.6 TB",
            r"smaller or work in chunks"),
    mistake("size given twice", None, lambda: nb.zeros(2, 3, size=(2, 3)),
            ArgumentError, "nb.zeros", r"give the size once", r"nb\.zeros\(2, 3\)"),
    mistake("ragged nested list", None, lambda: nb.tensor([[1.0, 2.0], [3.0]]),
            ShapeError, "nb.tensor", r"ragged", r"same length"),
    mistake("text as data", None, lambda: nb.tensor(["cat", "dog"]),
            DTypeError, "nb.tensor", r"from list data \(numpy sees dtype <U3\)",
            r"text must be turned into numbers first"),
    mistake("a dtype name that does not exist", None,
            lambda: nb.tensor([1.0], dtype="float33"),
            DTypeError, "nb.tensor", r"'float33' is not a dtype", r"nb\.float32"),
    mistake("bfloat16, which numpy lacks", None, lambda: nb.ones(2, 3, dtype=nb.bfloat16),
            DTypeError, "nb.ones", r"no bfloat16", r"nb\.float32"),
    mistake("randn of integers", None, lambda: nb.randn(3, dtype=nb.int64),
            DTypeError, "nb.randn", r"floating point.*int64", r"nb\.randint"),
    mistake("a tensor on the GPU", None, lambda: nb.tensor([1.0], device="cuda"),
            InputError, "nb.tensor", r"CPU only.*'cuda'", r"cuda\.is_available\(\)"),
    mistake("an unknown device", None, lambda: nb.zeros(2, device="gpu"),
            InputError, "nb.zeros", r"unknown device type 'gpu'", r"'cpu'"),
    mistake("arange with step 0", None, lambda: nb.arange(0, 10, 0),
            InputError, "nb.arange", r"step must not be 0", r"step=1"),
    mistake("randint with low above high", None, lambda: nb.randint(5, 2, (3,)),
            InputError, "nb.randint", r"low < high, got low=5, high=2", r"high is excluded"),
    mistake("randint without a size", None, lambda: nb.randint(10),
            ArgumentError, "nb.randint", r"needs a size", r"\(3, 4\)"),
    mistake("a seed that is not a number", None, lambda: nb.manual_seed("forty-two"),
            ArgumentError, "nb.manual_seed", r"whole number, got 'forty-two'",
            r"manual_seed\(0\)"),
    mistake("zeros_like of a list", None, lambda: nb.zeros_like([1.0, 2.0]),
            ArgumentError, "nb.zeros_like", r"needs a tensor, got list", r"zeros_like\(x\)"),
    mistake("from_numpy of a list", None, lambda: nb.from_numpy([1.0, 2.0]),
            ArgumentError, "nb.from_numpy", r"needs a numpy array, got list", r"nb\.tensor"),
    mistake("stack of different shapes", lambda: (nb.randn(2, 3), nb.randn(3, 2)),
            lambda ab: nb.stack(ab),
            ShapeError, "nb.stack", r"one shape, got \(2, 3\), \(3, 2\)",
            r"nb\.cat"),
    mistake("cat of different widths", lambda: (nb.randn(2, 3), nb.randn(2, 4)),
            lambda ab: nb.cat(ab, dim=0),
            ShapeError, "cat", r"\(2, 4\).*\(2, 3\).*except dim 0", r"nb\.cat\(tensors, dim=1\)"),
    mistake("cat of nothing", None, lambda: nb.cat([]),
            InputError, "nb.cat", r"at least one tensor", r"nb\.cat\(\[a, b\]"),
    mistake("normal with a negative std", None, lambda: nb.normal(0.0, -1.0, size=(3,)),
            InputError, "nb.normal", r"std must be at least 0", r"never negative"),
    mistake("bernoulli of a probability above 1", lambda: nb.tensor([0.5, 1.5]),
            lambda p: nb.bernoulli(p),
            InputError, "nb.bernoulli", r"between 0 and 1", r"sigmoid"),
    mistake("multinomial of zero weights", lambda: nb.zeros(4),
            lambda w: nb.multinomial(w, 1),
            InputError, "nb.multinomial", r"positive sum", r"nothing to draw"),
    mistake("legacy constructor with a dtype", None, lambda: nb.Tensor(2, 3, dtype=nb.float64),
            ArgumentError, "nb.Tensor", r"keyword argument\(s\) dtype", r"nb\.tensor\(data"),
    mistake("full with a text fill value", None, lambda: nb.full((2, 3), "zero"),
            ArgumentError, "nb.full", r"fill_value must be a number, got str 'zero'",
            r"nb\.full\(\(2, 3\), 0\.5\)"),
    mistake("default dtype of integers", None, lambda: nb.set_default_dtype(nb.int64),
            DTypeError, "nb.set_default_dtype", r"floating point, got int64", r"nb\.float64"),
]

CONVERSION = [
    mistake("item of many elements", lambda: nb.randn(3, 5), lambda x: x.item(),
            InputError, "Tensor.item", r"one element.*\(3, 5\) \(15 elements\)",
            r"reduce it first \(x\.sum\(\), x\.mean\(\)\) or index one element: x\[0\]"),
    mistake("float() of many elements", lambda: nb.randn(7), lambda x: float(x),
            InputError, "Tensor.item", r"one element.*\(7,\)",
            r"x\.mean\(\)\) or index one element"),
    mistake("if on a tensor of many elements", lambda: nb.randn(3, 5),
            lambda x: bool(x > 0),
            InputError, "bool(tensor)", r"truth value of a tensor with 15 elements",
            r"\.all\(\).*\.any\(\)"),
    mistake("len of a 0-d tensor", lambda: nb.tensor(3.0), lambda x: len(x),
            InputError, "len", r"0-d tensor", r"x\.item\(\)"),
    mistake("a format spec on many elements", lambda: nb.randn(3), lambda x: f"{x:.3f}",
            ArgumentError, "format", r"'\.3f' needs a tensor with one element.*\(3,\)",
            r"x\.mean\(\)"),
    mistake("numpy() of a tensor that requires grad", leaf, lambda x: x.numpy(),
            InputError, "Tensor.numpy", r"requires grad", r"x\.detach\(\)\.numpy\(\)"),
    mistake("a float tensor as an index", lambda: (nb.randn(5), nb.tensor(2.0)),
            lambda xi: xi[0][xi[1]],
            InputError, "index", r"indices must be integers or booleans, got float32",
            r"idx\.long\(\)"),
    mistake("to() a device that is not the CPU", lambda: nb.randn(3, 5),
            lambda x: x.to("cuda"),
            InputError, "Tensor.to", r"CPU only.*'cuda'", r"cuda\.is_available\(\)"),
    mistake("cuda()", lambda: nb.randn(3, 5), lambda x: x.cuda(),
            InputError, "Tensor.cuda", r"CPU only", r"cuda\.is_available\(\)"),
    mistake("to() a dtype name that does not exist", lambda: nb.randn(3),
            lambda x: x.to("float33"),
            InputError, "Tensor.to", r"unknown device type 'float33'",
            r"string names a device.*x\.to\(nb\.float64\)"),
    mistake("integers that require grad", None, lambda: nb.tensor([1, 2], requires_grad=True),
            DTypeError, "nb.tensor", r"only floating point.*int64",
            r"nb\.tensor\(data, dtype=nb\.float32\)"),
    mistake("requires_grad_ on integers", lambda: nb.arange(5), lambda x: x.requires_grad_(),
            DTypeError, "Tensor.requires_grad_", r"only floating point.*int64", r"x\.float\(\)"),
    mistake("switching off requires_grad on a result", graph,
            lambda xy: setattr(xy[1], "requires_grad", False),
            BackwardError, "Tensor.requires_grad", r"only.*on a leaf.*made by mul",
            r"x\.detach\(\)"),
]

SHAPES = [
    mistake("size of a dim that does not exist", lambda: nb.zeros(3, 5),
            lambda x: x.size(5),
            DimError, "Tensor.size", r"dim=5 is out of range.*2 dimension", r"between -2 and 1"),
    mistake("argmax over dim 3 of a matrix", lambda: nb.zeros(3, 5),
            lambda x: x.argmax(dim=3),
            DimError, "Tensor.argmax", r"dim=3 is out of range", r"between -2 and 1"),
    mistake("sum over dim 2 of a matrix", lambda: nb.randn(3, 5), lambda x: x.sum(dim=2),
            DimError, "sum", r"dim=2 is out of range for a tensor with 2",
            r"between -2 and 1"),
    mistake("mean over the same dim twice", lambda: nb.randn(3, 5),
            lambda x: x.mean(dim=(0, 0)),
            DimError, "mean", r"dim 0 appears more than once in dim=\(0, 0\)",
            r"name each dimension once"),
    mistake("transpose with a dim out of range", lambda: nb.randn(3, 5),
            lambda x: x.transpose(0, 3),
            DimError, "Tensor.transpose", r"dim=3 is out of range", r"between -2 and 1"),
    mistake("permute with too few dims", lambda: nb.randn(2, 3, 5),
            lambda x: x.permute(0, 1),
            ShapeError, "permute", r"\(0, 1\) are not a permutation of the 3 dimensions",
            r"name every dimension once"),
    mistake("permute with a repeated dim", lambda: nb.randn(2, 3, 5),
            lambda x: x.permute(0, 0, 1),
            ShapeError, "permute", r"\(0, 0, 1\) are not a permutation",
            r"name every dimension once"),
    mistake("view into the wrong number of elements", lambda: nb.randn(3, 5),
            lambda x: x.view(4, 4),
            ShapeError, "reshape", r"cannot reshape \(3, 5\) \(15 elements\) into \(4, 4\)",
            r"use -1 for the one size"),
    mistake("reshape with two -1s", lambda: nb.randn(3, 5), lambda x: x.reshape(-1, -1),
            ShapeError, "reshape", r"\(-1, -1\).*at most one -1",
            r"x\.reshape\(3, -1\)"),
    mistake("squeeze a dim that does not exist", lambda: nb.randn(3, 5),
            lambda x: x.squeeze(3),
            DimError, "Tensor.squeeze", r"dim=3 is out of range", r"between -2 and 1"),
    mistake("unsqueeze beyond the end", lambda: nb.randn(3, 5), lambda x: x.unsqueeze(5),
            DimError, "Tensor.unsqueeze", r"dim=5 is out of range", r"between -3 and 2"),
    mistake("flatten with start after end", lambda: nb.randn(2, 3, 5),
            lambda x: x.flatten(2, 1),
            InputError, "Tensor.flatten", r"start_dim \(2\) comes after end_dim \(1\)",
            r"start_dim <= end_dim"),
    mistake("t() of a 3-D tensor", lambda: nb.randn(2, 3, 5), lambda x: x.t(),
            ShapeError, "Tensor.t", r"at most 2 dimensions, this one has 3",
            r"transpose\(dim0, dim1\)"),
    mistake("expand a size that is not 1", lambda: nb.randn(3, 5),
            lambda x: x.expand(4, 5),
            ShapeError, "expand", r"cannot expand \(3, 5\) to \(4, 5\)",
            r"x\.repeat\(\.\.\.\)"),
    mistake("matmul with mismatched inner sizes", lambda: (nb.randn(3, 5), nb.randn(3, 5)),
            lambda ab: ab[0] @ ab[1],
            ShapeError, "matmul", r"\(3, 5\) @ \(3, 5\).*\(5\).*\(3\)",
            r"w\.T or x\.transpose\(-1, -2\)"),
    mistake("matmul with a scalar", lambda: (nb.randn(3, 5), nb.tensor(2.0)),
            lambda ab: ab[0] @ ab[1],
            ShapeError, "matmul", r"at least 1 dimension.*\(\)", r"use \*"),
    mistake("matmul of float32 and float64", lambda: (nb.randn(3, 5), nb.randn(5, 2).double()),
            lambda ab: ab[0] @ ab[1],
            DTypeError, "matmul", r"same dtype, got float32 and float64", r"\.float\(\)"),
    mistake("addmm with a Linear weight as it is stored",
            lambda: (nb.nn.Linear(4, 3), nb.randn(5, 4)),
            lambda fx: nb.addmm(fx[0].bias, fx[1], fx[0].weight),
            ShapeError, "addmm", r"mat1 and mat2 cannot be multiplied: got mat1 \(5, 4\) and "
            r"mat2 \(3, 4\)", r"mat2\.transpose\(-1, -2\)"),
    mistake("baddbmm with batches of different sizes",
            lambda: (nb.zeros(2, 7, 5), nb.randn(2, 7, 3), nb.randn(4, 3, 5)),
            lambda t: t[0].baddbmm(t[1], t[2]),
            ShapeError, "baddbmm", r"batch1 \(2, 7, 3\) and batch2 \(4, 3, 5\)",
            r"the sizes of a shared letter must agree"),
    mistake("adding shapes that do not broadcast", lambda: (nb.randn(3, 5), nb.randn(3)),
            lambda ab: ab[0] + ab[1],
            ShapeError, "add", r"\(3, 5\) and \(3,\) cannot be broadcast", r"unsqueeze"),
    mistake("comparing shapes that do not broadcast", lambda: (nb.randn(2, 3), nb.randn(4)),
            lambda ab: ab[0] < ab[1],
            ShapeError, "lt", r"\(2, 3\) and \(4,\) cannot be broadcast", r"unsqueeze"),
    mistake("addcdiv of two integer tensors", lambda: (nb.zeros(3), nb.tensor([1, 2, 3])),
            lambda xy: nb.addcdiv(xy[0], xy[1], xy[1]),
            DTypeError, "addcdiv", r"both integers \(int64 and int64\)", r"t2\.float\(\)"),
    mistake("integers to a negative power", lambda: nb.tensor([1, 2, 3]),
            lambda x: x ** -1,
            DTypeError, "pow", r"negative integer powers", r"x\.float\(\) \*\* -1"),
]

INDEXING = [
    mistake("reading an index out of range", lambda: nb.zeros(3), lambda x: x[5],
            DimError, "index", r"index 5 is out of bounds.*size 3", r"count from 0"),
    mistake("writing an index out of range", lambda: nb.zeros(3),
            lambda x: x.__setitem__(5, 1.0),
            DimError, "index_put", r"index 5 is out of bounds.*size 3", r"count from 0"),
    mistake("too many indices", lambda: nb.zeros(3, 5), lambda x: x[0, 1, 2],
            DimError, "index", r"too many indices.*\(3, 5\): 3 dimensions indexed, it has 2",
            r"one index per dimension"),
    mistake("a list index out of range", lambda: nb.zeros(3, 5), lambda x: x[[0, 7]],
            DimError, "index", r"7 is out of bounds.*size 3", r"count from 0"),
    mistake("a mask of the wrong shape", lambda: (nb.zeros(3, 5), nb.ones(5, dtype=nb.bool)),
            lambda xm: xm[0][xm[1]],
            DimError, "index", r"boolean index did not match.*size of axis is 3",
            r"a mask must have the shape of the dimensions"),
    mistake("a float as an index", lambda: nb.zeros(3, 5), lambda x: x[1.5],
            ArgumentError, "index", r"1\.5", r"int"),
    mistake("a text index", lambda: nb.zeros(3, 5), lambda x: x["row"],
            ArgumentError, "index", r"'row'", r"int"),
    mistake("index_add with source laid out along the other dim", lambda: nb.zeros(3, 5),
            lambda x: x.index_add_(0, nb.tensor([0, 2]), nb.ones(5, 2)),
            ShapeError, "index_add", r"source has shape \(5, 2\), but needs \(2, 5\)",
            r"source\[\.\.\., i, \.\.\.\] \(along dim 0\) goes to position index\[i\]"),
    mistake("scatter_reduce with numpy's name for a maximum", lambda: nb.zeros(3, 5),
            lambda x: x.scatter_reduce_(0, nb.tensor([[1]]), nb.ones(1, 1), "maximum"),
            InputError, "scatter_reduce", r"reduce must be one of .*got 'maximum'",
            r"reduce='amax'"),
    mistake("take at a position past the end", lambda: nb.zeros(3, 5),
            lambda x: x.take(nb.tensor([15])),
            DimError, "take", r"index 15 is out of range for a tensor of 15 elements",
            r"from -15 to 14"),
    mistake("windows larger than the signal", lambda: nb.zeros(2, 5),
            lambda x: x.unfold(1, 8, 1),
            ShapeError, "unfold", r"windows of size 8 do not fit in dim 1 of size 5",
            r"size of at most 5"),
    mistake("hsplit into pieces that don't divide the columns", lambda: nb.zeros(3, 5),
            lambda x: x.hsplit(2),
            InputError, "Tensor.hsplit", r"splits dim 1 of size 5 into 2 equal pieces",
            r"x\.tensor_split\(2, 1\)"),
    mistake("writing a row of the wrong length", lambda: nb.zeros(3, 5),
            lambda x: x.__setitem__(0, nb.ones(7)),
            ShapeError, "index_put", r"shape \(7,\) cannot fill the indexed part of shape \(5,\)",
            r"broadcast to the shape x\[key\] has, \(5,\)"),
]

IN_PLACE = [
    mistake("+= with a larger shape", lambda: (nb.zeros(3), nb.ones(2, 3)),
            lambda ab: ab[0].__iadd__(ab[1]),
            ShapeError, "+=", r"change the shape \(3,\) to \(2, 3\)", r"y = x \+ z"),
    mistake("+= of floats into integers", lambda: nb.arange(5), lambda x: x.__iadd__(1.5),
            DTypeError, "+=", r"float32.*cannot be stored in this int64", r"x\.float\(\)"),
    mistake("+= on a leaf that requires grad", leaf, lambda x: x.__iadd__(1.0),
            BackwardError, "+=", r"in-place \+= on a leaf tensor that requires grad",
            r"nb\.no_grad\(\).*x = x\.clone\(\)"),
    mistake("zero_() on a parameter outside no_grad", lambda: nb.nn.Linear(5, 3),
            lambda fc: fc.weight.zero_(),
            BackwardError, "zero_", r"leaf tensor that requires grad", r"nb\.no_grad\(\)"),
    mistake("Adam's addcdiv_ on a parameter outside no_grad", lambda: nb.nn.Linear(5, 3),
            lambda fc: fc.weight.addcdiv_(fc.weight, fc.weight.abs() + 1, value=-0.01),
            BackwardError, "addcdiv_", r"in-place addcdiv_ on a leaf tensor that requires grad",
            r"nb\.no_grad\(\)"),
    mistake("unsqueeze_ on a leaf that requires grad", leaf, lambda x: x.unsqueeze_(0),
            BackwardError, "unsqueeze_", r"in-place unsqueeze_ on a leaf tensor that requires",
            r"x = x\.clone\(\)"),
    mistake("writing into unfolded windows", lambda: nb.zeros(7).unfold(0, 3, 2),
            lambda x: x.mul_(2.0),
            InputError, "mul_", r"read-only.*windows from unfold\(\)", r"x\.clone\(\)"),
    mistake("writing into an expanded view", lambda: nb.zeros(1, 5).expand(3, 5),
            lambda x: x.add_(1.0),
            InputError, "add_", r"read-only", r"x\.clone\(\)"),
]

ARITHMETIC = [
    mistake("two conditions joined by & without brackets", lambda: nb.randn(3, 5),
            lambda x: x > 0 & x < 1,
            DTypeError, "bitwise_and", r"integer or bool tensors, not float32.*the number 0",
            r"\(x > 0\) & \(x < 1\).*binds tighter"),
    mistake("& between two float tensors", lambda: nb.randn(3, 5), lambda x: x & x,
            DTypeError, "bitwise_and", r"integer or bool tensors, not float32.*tensor of float32",
            r"\(x > 0\) & \(x < 1\)"),
    mistake("~ of a float tensor", lambda: nb.randn(3, 5), lambda x: ~x,
            DTypeError, "bitwise_not", r"integer or bool tensor, not float32",
            r"~\(x > 0\)"),
    mistake("add with a fractional alpha on integers", lambda: nb.arange(5),
            lambda x: nb.add(x, x, alpha=0.5),
            InputError, "nb.add", r"alpha=0\.5 cannot scale int64", r"x\.float\(\)"),
    mistake("div with an unknown rounding mode", lambda: nb.arange(5),
            lambda x: x.div(2, rounding_mode="round"),
            InputError, "Tensor.div", r"None, 'trunc' or 'floor', got 'round'",
            r"'trunc' rounds toward zero"),
    mistake("add with out=", lambda: nb.arange(5), lambda x: nb.add(x, 1, out=x),
            InputError, "nb.add", r"out= is not supported", r"y = nb\.add\(a, b\)"),
    mistake("cat with out= (which would otherwise keep its old values)",
            lambda: nb.randn(3, 5), lambda x: nb.cat([x, x], out=nb.zeros(6, 5)),
            InputError, "nb.cat", r"out= is not supported", r"y\.copy_\(nb\.cat\(\.\.\.\)\)"),
    mistake("matmul with out=, as in the quickstart's tensor lesson", lambda: nb.randn(3, 5),
            lambda x: nb.matmul(x, x.T, out=nb.zeros(3, 3)),
            InputError, "nb.matmul", r"out= is not supported", r"y = nb\.matmul\(a, b\)"),
    mistake("zeros with out=", lambda: nb.randn(3, 5), lambda x: nb.zeros(3, 5, out=x),
            InputError, "nb.zeros", r"out= is not supported", r"y = nb\.zeros\(\.\.\.\)"),
]

AUTOGRAD = [
    mistake("jacobian of inputs given as a list", lambda: (nb.randn(3), nb.randn(3)),
            lambda xy: nb.autograd.functional.jacobian(lambda a, b: a * b, list(xy)),
            ArgumentError, "nb.autograd.functional.jacobian",
            r"inputs must be a tensor or a tuple of tensors, got a list",
            r"\(x, y\), not \[x, y\]"),
    mistake("vjp of a vector without v", lambda: nb.randn(3),
            lambda x: nb.autograd.functional.vjp(lambda t: t * 2, x),
            InputError, "nb.autograd.functional.vjp",
            r"v can only be left out when the function returns one tensor with one element",
            r"pass v, one tensor of each output's shape"),
    mistake("backward of a non-scalar", graph, lambda xy: xy[1].backward(),
            BackwardError, "Tensor.backward", r"one element.*\(3, 5\)",
            r"y\.sum\(\)\.backward\(\)"),
    mistake("backward of a loss without a graph", lambda: nb.randn(3, 5),
            lambda x: (x * 2).sum().backward(),
            BackwardError, "Tensor.backward", r"does not require grad",
            r"requires_grad=True"),
    mistake("backward of a loss made under no_grad", leaf,
            lambda x: nb.no_grad()(lambda: (x * 2).sum())().backward(),
            BackwardError, "Tensor.backward", r"does not require grad", r"nb\.no_grad\(\)"),
    mistake("backward of a comparison count", leaf, lambda x: (x > 0).sum().backward(),
            BackwardError, "Tensor.backward", r"does not require grad", r"requires_grad=True"),
    mistake("backward with a gradient of the wrong shape", graph,
            lambda xy: xy[1].backward(nb.ones(5, 3)),
            BackwardError, "Tensor.backward", r"\(5, 3\).*\(3, 5\)", r"own shape"),
    mistake("backward twice", after_one_backward, lambda xl: xl[1].backward(),
            BackwardError, "backward", r"saved values were freed by an earlier backward",
            r"retain_graph=True"),
    mistake("a value changed after it was saved", saved_output_changed,
            lambda xy: xy[1].sum().backward(),
            BackwardError, "backward", r"sigmoid needs its output.*changed in place",
            r"call backward\(\) before optimizer\.step\(\).*x = x\.clone\(\)"),
    mistake("retain_grad on a tensor outside the graph", lambda: nb.randn(3),
            lambda x: x.retain_grad(),
            BackwardError, "Tensor.retain_grad", r"does not require grad", r"in the graph"),
    mistake("a hook on a tensor outside the graph", lambda: nb.randn(3),
            lambda x: x.register_hook(print),
            BackwardError, "Tensor.register_hook", r"does not require grad", r"in the graph"),
    mistake("second derivatives with create_graph", graph,
            lambda xy: xy[1].sum().backward(create_graph=True),
            BackwardError, "Tensor.backward", r"create_graph=True", r"first derivatives"),
    mistake("grad of an input the output does not use",
            lambda: (leaf(), nb.randn(2, requires_grad=True)),
            lambda xz: nb.autograd.grad((xz[0] * 2).sum(), [xz[1]]),
            BackwardError, "nb.autograd.grad", r"input 0 was not used to compute the outputs",
            r"allow_unused=True"),
]

CUSTOM_BACKWARD = [
    mistake("the backward rule without dout", None, bprop_without_dout,
            SignatureError, "defining AddTwice", r"AddTwice\.bprop is missing 'dout'.*expected  "
            r"bprop\(self, x, y, out, dout\)", r"bprop\(self, x, y, out, dout\)"),
    mistake("one gradient for two inputs", pair,
            lambda xy: OneGradientForTwo.apply(*xy).sum().backward(),
            ContractError, "OneGradientForTwo.backward", r"returned 1 gradient\(s\) but the "
            r"forward took 2 input\(s\) \(x, y\)", r"one gradient per input",
            also=OneGradientForTwo.backward),
    mistake("a backward rule gradcheck finds wrong", pair64,
            lambda xy: nb.gradcheck(FixedButWrong.apply, xy),
            GradcheckError, "gradcheck of FixedButWrong.apply", r"gradient for input 'y' is "
            r"wrong.*2 times the right one", r"derivative of the forward, term by term"),
    mistake("a forward without ctx", leaf, lambda x: ForwardWithoutCtx.apply(x),
            SignatureError, "ForwardWithoutCtx.forward", r"forward\(x\) has no ctx",
            r"def forward\(ctx, x\)", also=ForwardWithoutCtx.forward),
    mistake("apply with one input too many", pair, lambda xy: FixedButWrong.apply(*xy, xy[0]),
            ArgumentError, "FixedButWrong.apply", r"called with 3 input\(s\), but "
            r"FixedButWrong\.forward\(ctx, x, y\) takes 2 after ctx \(x, y\)",
            r"FixedButWrong\.apply\(x, y\)"),
]

NAMES = [
    mistake("a method name misspelt", leaf, lambda x: x.unsqeeze(0),
            MissingNameError, "Tensor.unsqeeze", r"has no attribute",
            r"did you mean 'unsqueeze'"),
    mistake("a function name misspelt", None, lambda: nb.sofmax(nb.ones(3), dim=0),
            MissingNameError, "nb.sofmax", r"has no attribute", r"did you mean 'softmax'"),
    mistake("a layer looked for in nn.functional's place", None, lambda: nb.nn.relu(nb.ones(3)),
            MissingNameError, "nn.relu", r"has no attribute", r"nn\.functional\.relu"),
]

MISTAKES = (CREATION + CONVERSION + SHAPES + INDEXING + IN_PLACE + ARITHMETIC + AUTOGRAD
            + CUSTOM_BACKWARD + NAMES)


@pytest.mark.parametrize("m", MISTAKES)
def test_mistake(m, tmp_path):
    check(m, tmp_path)




def test_a_max_pair_or_a_list_in_arithmetic_is_refused_as_in_pytorch():
    import nnbook as nb
    from nnbook.errors import ArgumentError

    x = nb.ones(2, 3)
    with pytest.raises(ArgumentError, match=r"\.values") as info:
        x - x.max(dim=-1, keepdim=True)
    assert isinstance(info.value, TypeError) and "hint:" in str(info.value)
    with pytest.raises(ArgumentError, match=r"nb\.tensor"):
        x + [1.0, 2.0, 3.0]
    with pytest.raises(ArgumentError):
        (1.0, 2.0, 3.0) * x

"""``with nb.reference_ops():`` builds the reference ops; outside it, their kernels.

A kernel stands in for its reference op everywhere (the same name, picture and shape
rule); the switch decides which class an op is built as, and the graph keeps the op
it was built with.
"""
import numpy as np
import pytest

import nnbook as nb
from nnbook.kernels.conv import Conv2dKernel
from nnbook.kernels.elementwise import ReluKernel
from nnbook.kernels.pool import AvgPool2dKernel, MaxPool2dKernel
from nnbook.nn import functional as F
from nnbook.ops.conv import Conv2d
from nnbook.ops.elementwise import Relu
from nnbook.ops.pool import AvgPool2d, MaxPool2d

CASES = [  # (a call through the public API, the reference op, its kernel)
    (lambda x: F.conv2d(x, nb.randn(4, 3, 3, 2, dtype=nb.float64), padding=1), Conv2d,
     Conv2dKernel),
    (lambda x: F.max_pool2d(x, 3, 2, 1), MaxPool2d, MaxPool2dKernel),
    (lambda x: F.avg_pool2d(x, 2), AvgPool2d, AvgPool2dKernel),
    (lambda x: F.relu(x), Relu, ReluKernel),
]


@pytest.mark.parametrize("call,reference,kernel", CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_the_switch_decides_which_class_is_built(rng, call, reference, kernel):
    x = nb.tensor(rng.standard_normal((2, 3, 7, 5)), requires_grad=True)
    with nb.reference_ops():
        built_there = type(call(x).grad_fn)
    built_here = type(call(x).grad_fn)
    assert built_there is reference and built_here is kernel


@pytest.mark.parametrize("call,reference,kernel", CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_a_kernel_looks_like_its_reference(rng, call, reference, kernel):
    y = call(nb.tensor(rng.standard_normal((2, 3, 7, 5)), requires_grad=True))
    op = y.grad_fn
    assert isinstance(op, reference) and op.name == reference.name
    assert repr(op) == f"<{reference.__name__}Backward0>"


def test_the_switch_comes_back_on_after_an_error():
    with pytest.raises(ValueError), nb.reference_ops():
        raise ValueError("inside")
    assert type(F.relu(nb.tensor([1.0], requires_grad=True)).grad_fn) is ReluKernel


def test_a_graph_built_with_kernels_backpropagates_under_reference_ops(rng):
    """The switch picks the class at construction; backward uses the op it built."""
    x = nb.tensor(rng.standard_normal((2, 3, 9, 7)), requires_grad=True)
    w = nb.tensor(rng.standard_normal((4, 3, 3, 2)), requires_grad=True)
    y = F.max_pool2d(F.relu(F.conv2d(x, w, padding=1)), 2)
    with nb.reference_ops():
        y.sum().backward()
        grads = x.grad.numpy().copy(), w.grad.numpy().copy()
        x.grad = w.grad = None
        F.max_pool2d(F.relu(F.conv2d(x, w, padding=1)), 2).sum().backward()
    np.testing.assert_allclose(grads[0], x.grad.numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(grads[1], w.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_kernel_code_loads_with_the_first_op_of_its_family():
    """`import nnbook` stays light: a family's kernels are imported when its first op is
    built, and the op built is the kernel.  (The elementwise family's ops are the
    tensor's arithmetic, loaded with nnbook, so its small kernel module loads at once.)"""
    import subprocess
    import sys

    script = (
        "import sys, nnbook as nb\n"
        "loaded = lambda: sorted(m for m in sys.modules if m.startswith('nnbook.kernels.')"
        " and m.split('.')[-1] in ('conv', 'pool', 'norm', 'elementwise'))\n"
        "print(loaded())\n"
        "x = nb.randn(1, 2, 5, 3, requires_grad=True)\n"
        "y = nb.nn.functional.conv2d(x, nb.randn(4, 2, 3, 1))\n"
        "print(loaded(), type(y.grad_fn).__name__)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    before, after = done.stdout.splitlines()
    assert before == "['nnbook.kernels.elementwise']"
    assert "'nnbook.kernels.conv'" in after and after.endswith("Conv2dKernel")


@pytest.mark.parametrize("first", ["nb.nn.Conv1d(3, 4, 3)", "nb.nn.MaxPool1d(2)",
                                   "nb.nn.AvgPool1d(2)"])
def test_a_one_dimensional_layer_may_be_the_first_op_of_its_family(first):
    """Conv1d and the 1-D pools subclass the 2-D ops, in another module: built first in a
    fresh session they load their family's kernels too (they raised KeyError)."""
    import subprocess
    import sys

    script = ("import nnbook as nb\n"
              f"y = {first}(nb.randn(2, 3, 9, requires_grad=True))\n"
              "y.sum().backward()\n"
              "print(tuple(y.shape))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() in ("(2, 4, 7)", "(2, 3, 4)")

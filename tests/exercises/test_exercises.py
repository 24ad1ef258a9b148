"""nnbook.exercises: every check passes on the reference solutions and fails, in plain
words, on the wrong answers students typically write."""
import json
import math
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from planted_rules import depthwise_rule

import nnbook as nb
from nnbook import nn
from nnbook.exercises import (
    EXERCISES,
    FAIL,
    PASS,
    SKIP,
    UNFINISHED,
    CheckResult,
    check,
    check_bprop,
    check_function,
    check_layer,
    check_solutions,
    check_values,
)
from nnbook.exercises import _solutions as solutions

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "notebooks" / "13_exercises.ipynb"


def failing_lines(result: CheckResult) -> list[str]:
    return [line.text for line in result.lines if line.mark == FAIL]


def assert_fails(result: CheckResult, *phrases: str, next_step: str = ""):
    text = str(result)
    assert result.status == "failed" and not result.passed, text
    for phrase in phrases:
        assert phrase in text, f"{phrase!r} not in\n{text}"
    assert next_step in (result.next_step or ""), text


# --------------------------------------------------------------------------
# The reference solutions pass, and they are right
# --------------------------------------------------------------------------

@pytest.mark.parametrize("exercise", list(EXERCISES))
def test_every_check_passes_on_the_reference_solution(exercise):
    result = check(exercise, solutions.SOLUTIONS[exercise])
    assert result.passed, str(result)
    assert result.next_step is None
    assert all(line.mark in (PASS, SKIP) for line in result.lines)
    assert str(result).splitlines()[0].endswith("checks pass")


def test_check_solutions_summarises_all_exercises():
    summary = check_solutions()
    assert summary.passed and len(summary.results) == len(EXERCISES) == 5
    text = str(summary)
    assert text.count(PASS) == 5 and FAIL not in text
    assert "Exercise 5 (a depthwise convolution backward): all 6 checks pass" in text
    assert text == str(check_solutions())  # deterministic: strict nbval compares it
    assert summary._repr_html_() == check_solutions()._repr_html_()


def test_reference_depthwise_agrees_with_conv2d_and_swish_with_autograd():
    rng = np.random.default_rng(0)
    x = nb.tensor(rng.standard_normal((2, 3, 9, 4)), requires_grad=True)
    w = nb.tensor(rng.standard_normal((3, 1, 2, 3)), requires_grad=True)
    y = solutions.DepthwiseConv.apply(x, w)
    np.testing.assert_allclose(
        y.detach().numpy(), nn.functional.conv2d(x, w, groups=3).detach().numpy(), rtol=1e-12
    )
    assert nb.gradcheck(solutions.DepthwiseConv.apply, (x, w))
    z = nb.tensor(rng.standard_normal((4, 3)), requires_grad=True)
    assert nb.gradcheck(solutions.Swish.apply, (z,))
    assert nb.gradcheck(solutions.Softplus.apply, (z,))
    assert nb.gradcheck(solutions.XYPlusY(), (z, nb.tensor(rng.standard_normal((4, 3)),
                                                           requires_grad=True)))


def test_reference_linear_matches_nn_linear_init_and_output():
    nb.manual_seed(3)
    mine = solutions.MyLinear(7, 5)
    bound = 1 / math.sqrt(7)
    assert [n for n, _ in mine.named_parameters()] == ["weight", "bias"]
    assert (
        np.abs(mine.weight.detach().numpy()).max() <= bound
        and np.abs(mine.bias.detach().numpy()).max() <= bound
    )
    ref = nn.Linear(7, 5)
    ref.load_state_dict(mine.state_dict())
    x = nb.randn(3, 7)
    # float32 sums of 7 products, maybe in another order: a few units of float32 rounding
    np.testing.assert_allclose(
        mine(x).detach().numpy(), ref(x).detach().numpy(), rtol=1e-5, atol=1e-6
    )
    assert solutions.MyLinear(7, 5, bias=False).bias is None


# --------------------------------------------------------------------------
# The unfilled skeletons: "not finished yet", never an error
# --------------------------------------------------------------------------

class SwishSkeleton(solutions.Swish):
    """What the notebook hands out: the forward written, the backward left to the student."""

    @staticmethod
    def backward(ctx, grad_output):
        raise NotImplementedError("your turn")


class XYPlusYSkeleton(nn.Module):
    def forward(self, x, y):
        return x * y + y

    def bprop(self, x, y, out, dout):
        raise NotImplementedError("your turn")


class SoftplusSkeleton(nb.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        raise NotImplementedError("your turn")

    @staticmethod
    def backward(ctx, grad_output):
        raise NotImplementedError("your turn")


class LinearSkeleton(nn.Module):
    def __init__(self, in_features, out_features, bias=True):
        super().__init__()
        raise NotImplementedError("your turn")

    def forward(self, x):
        raise NotImplementedError("your turn")


class DepthwiseSkeleton(solutions.DepthwiseConv):
    @staticmethod
    def backward(ctx, grad_output):
        raise NotImplementedError("your turn")


SKELETONS = {"swish": (SwishSkeleton, "backward"), "bprop": (XYPlusYSkeleton, "bprop"),
             "softplus": (SoftplusSkeleton, "forward"),
             "linear": (LinearSkeleton, "LinearSkeleton(7, 5)"),
             "depthwise": (DepthwiseSkeleton, "backward")}


@pytest.mark.parametrize("exercise", list(SKELETONS))
def test_unfilled_skeleton_says_not_finished_and_what_to_do(exercise):
    skeleton, part = SKELETONS[exercise]
    result = check(exercise, skeleton)
    text = str(result)
    assert result.status == "todo" and not result.passed and not result
    assert "not finished yet" in text.splitlines()[0]
    assert (
        f"{UNFINISHED} {part} is not written yet (it raises NotImplementedError: your turn)" in text
    )
    assert result.next_step == EXERCISES[exercise].todo_hint
    assert FAIL not in text


def test_skeleton_result_shows_what_already_works():
    text = str(check("swish", SwishSkeleton))
    assert text.splitlines() == [
        "Exercise 1 (Swish): not finished yet (3 checks pass so far)",
        f"  {PASS} SwishSkeleton is an nb.autograd.Function",
        f"  {PASS} forward runs on x (3, 5) and returns a Tensor of shape (3, 5)",
        f"  {PASS} forward matches the reference solution",
        f"  {UNFINISHED} backward is not written yet (it raises NotImplementedError: your turn)",
        f"  {SKIP} the gradients are compared once it runs",
        "next step: " + EXERCISES["swish"].todo_hint,
    ]


# --------------------------------------------------------------------------
# Exercise 1: the typical wrong backward rules for Swish
# --------------------------------------------------------------------------

def swish_rule(body):
    class Wrong(SwishSkeleton):
        @staticmethod
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            s = x.sigmoid()
            return body(x, s, grad_output)
    return Wrong


def test_swish_missing_dout():
    result = check("swish", swish_rule(lambda x, s, g: s + x * s * (1 - s)))
    assert_fails(result, "the gradient for 'x' does not scale with grad_output: doubling "
                 "grad_output left it unchanged", "numerical", "yours",
                 next_step="multiply by grad_output (the chain rule)")
    assert len(failing_lines(result)) == 1


def test_swish_returning_x_instead_of_dout_times_something():
    assert_fails(check("swish", swish_rule(lambda x, s, g: x)),
                 "the gradient for 'x' is 'x' itself, and does not scale with grad_output",
                 next_step="return grad_output * (d out / d x)")


def test_swish_wrong_sign():
    assert_fails(check("swish", swish_rule(lambda x, s, g: -g * (s + x * s * (1 - s)))),
                 "the gradient for 'x' has the wrong sign everywhere",
                 next_step="look for a minus sign")


def test_swish_factor_off():
    assert_fails(check("swish", swish_rule(lambda x, s, g: 2 * g * (s + x * s * (1 - s)))),
                 "the gradient for 'x' is 2 times the right one: a constant factor is off",
                 next_step="look for a constant too many or too few")


def test_swish_wrong_maths():
    # sigmoid's derivative where swish's belongs: no pattern to name, only the numbers
    result = check("swish", swish_rule(lambda x, s, g: g * s * (1 - s)))
    assert_fails(result, "the gradient for 'x' differs from numerical derivatives",
                 "at element [", "of 'x' (3, 5): numerical",
                 next_step="work out d out / d x by hand at the element shown")


def test_swish_wrong_shape_is_caught_by_the_contract():
    result = check("swish", swish_rule(lambda x, s, g: (g * (s + x * s * (1 - s))).T))
    assert_fails(result, "backward breaks the contract: the gradient for 'x' has shape (5, 3), "
                 "but 'x' has shape (3, 5)", next_step="in another order")
    assert f"{SKIP} the gradients are compared once it runs" in str(result)


def test_swish_with_an_extra_size_1_axis_is_named():
    result = check("swish", swish_rule(lambda x, s, g: (g * (s + x * s * (1 - s)))[..., None]))
    assert_fails(result, "backward breaks the contract", "(a missing or extra size-1 axis)")


def test_swish_forgetting_save_for_backward_is_named():
    class Forgot(solutions.Swish):
        @staticmethod
        def forward(ctx, x):
            return x * x.sigmoid()  # nothing saved
    assert_fails(check("swish", Forgot), "backward raised",
                 next_step="a forgotten save_for_backward")


def test_swish_returning_none():
    assert_fails(check("swish", swish_rule(lambda x, s, g: None)),
                 "no gradient reached 'x', but the output depends on it",
                 next_step="backward returned None for 'x'")


def test_swish_error_inside_backward_names_the_students_line():
    result = check("swish", swish_rule(lambda x, s, g: g * s + g.reshape(5, 3)))
    assert_fails(result, "backward raised ShapeError", "cannot be broadcast",
                 "test_exercises.py, line")


def test_swish_numpy_error_inside_backward():
    def body(x, s, g):
        return nb.tensor(np.ones((3, 5)) + np.ones((5, 3)))
    assert_fails(check("swish", swish_rule(body)), "backward raised ValueError",
                 "test_exercises.py, line", next_step="print the shapes")


def test_swish_wrong_forward_stops_before_backward():
    class Wrong(solutions.Swish):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x.tanh()
    result = check("swish", Wrong)
    assert_fails(result, "forward differs from the reference solution", "yours", "expected",
                 next_step="go through forward again")
    assert f"{SKIP} backward is checked once the forward works" in str(result)


def test_swish_given_something_that_is_not_a_function_class():
    assert_fails(check("swish", solutions.Swish.apply),
                 "is not a subclass of nb.autograd.Function",
                 next_step="pass the class itself")


# --------------------------------------------------------------------------
# Exercise 2: bprop
# --------------------------------------------------------------------------

def bprop_rule(body):
    class Wrong(XYPlusYSkeleton):
        def bprop(self, x, y, out, dout):
            return body(x, y, dout)
    return Wrong


def test_bprop_without_dout_is_explained():
    result = check("bprop", bprop_rule(lambda x, y, d: (y, x + 1)))
    assert_fails(result, "the gradient for 'x' does not scale with dout",
                 "the gradient for 'y' does not scale with dout", next_step="multiply by dout")
    assert len(failing_lines(result)) == 2


def test_bprop_one_gradient_wrong_the_other_right():
    result = check("bprop", bprop_rule(lambda x, y, d: (d * y, d * x)))  # forgot the + y term
    assert_fails(result, f"{PASS} the gradient for 'x' matches numerical derivatives",
                 f"{FAIL} the gradient for 'y' misses the term through add: a missing term "
                 "of the sum rule")


def test_bprop_too_few_gradients():
    assert_fails(check("bprop", bprop_rule(lambda x, y, d: d * y)),
                 "bprop breaks the contract: returned 1 gradient(s) but the forward took 2 "
                 "input(s) (x, y)", next_step="return one gradient per input")


def test_bprop_missing_entirely():
    class NoRule(nn.Module):
        def forward(self, x, y):
            return x * y + y
    result = check("bprop", NoRule)
    assert_fails(result, "NoRule has no bprop method", next_step="add def bprop(self, x, ..., "
                 "out, dout)")
    assert str(result).splitlines()[0].endswith(": the check fails")


def test_bprop_accepts_an_instance():
    assert check("bprop", solutions.XYPlusY()).passed


# --------------------------------------------------------------------------
# Exercise 3: Softplus, stable
# --------------------------------------------------------------------------

class SoftplusNaive(nb.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return (1 + x.exp()).log()

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * x.exp() / (1 + x.exp())


def test_softplus_unstable_forward():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's overflow warnings stay inside the check
        result = check("softplus", SoftplusNaive)
    assert_fails(result, "forward is wrong far from zero: softplus(1000) gave inf, not 1000",
                 next_step="max(x, 0) + log(1 + exp(-|x|))")
    assert f"{SKIP} backward is checked once the forward works" in str(result)


def test_softplus_stable_forward_but_unstable_backward():
    class HalfWay(SoftplusNaive):
        forward = solutions.Softplus.forward
    result = check("softplus", HalfWay)
    assert_fails(result, f"{PASS} forward stays finite and right for x = -1000 ... 1000",
                 f"{PASS} the gradient for 'x' matches numerical derivatives",
                 "the gradient is wrong far from zero: at x = 1000 it is nan, not 1",
                 next_step="inf / inf = nan")


def test_softplus_forgotten_abs():
    class NoAbs(solutions.Softplus):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.relu() + (1 + (-x).exp()).log()
    assert_fails(check("softplus", NoAbs), "forward differs from the reference solution")


# --------------------------------------------------------------------------
# Exercise 4: Linear from scratch
# --------------------------------------------------------------------------

def uniform(*shape, fan_in):
    bound = 1 / math.sqrt(fan_in)
    return nb.rand(*shape) * (2 * bound) - bound


def test_linear_plain_tensor_attribute_is_not_registered():
    class Plain(nn.Module):
        def __init__(self, i, o, bias=True):
            super().__init__()
            self.weight = uniform(o, i, fan_in=i)
            self.bias = uniform(o, fan_in=i)

        def forward(self, x):
            return x @ self.weight.T + self.bias
    result = check("linear", Plain)
    assert_fails(result, "self.weight is a plain Tensor, not an nb.nn.Parameter: the layer "
                 "does not register it", next_step="wrap it: self.weight = nb.nn.Parameter(...)")
    assert f"{SKIP} the forward and the gradients are checked once these pass" in str(result)


def test_linear_numpy_array_attribute():
    class Arrays(nn.Module):
        def __init__(self, i, o, bias=True):
            super().__init__()
            self.weight = np.zeros((o, i))

        def forward(self, x):
            return x
    assert_fails(check("linear", Arrays), "self.weight is a plain numpy array")


def test_linear_parameters_in_a_plain_list():
    class Listed(nn.Module):
        def __init__(self, i, o, bias=True):
            super().__init__()
            self.params = [nn.Parameter(uniform(o, i, fan_in=i)),
                           nn.Parameter(uniform(o, fan_in=i))]

        def forward(self, x):
            return x @ self.params[0].T + self.params[1]
    assert_fails(check("linear", Listed), "self.params is a plain list holding 2 tensors: the "
                 "layer cannot see inside it", next_step="give each parameter its own attribute")


def test_linear_other_names():
    class Named(nn.Module):
        def __init__(self, i, o, bias=True):
            super().__init__()
            self.W = nn.Parameter(uniform(o, i, fan_in=i))
            self.b = nn.Parameter(uniform(o, fan_in=i))

        def forward(self, x):
            return x @ self.W.T + self.b
    assert_fails(check("linear", Named), "the parameters are named ['W', 'b']; Linear names "
                 "them ['weight', 'bias']", next_step="use PyTorch's names")


def test_linear_weight_transposed():
    class Transposed(nn.Module):
        def __init__(self, i, o, bias=True):
            super().__init__()
            self.weight = nn.Parameter(uniform(i, o, fan_in=i))
            self.bias = nn.Parameter(uniform(o, fan_in=i))

        def forward(self, x):
            return x @ self.weight + self.bias
    assert_fails(check("linear", Transposed), "'weight' has shape (7, 5), but Linear's has "
                 "(5, 7): the same sizes in another order",
                 next_step="create 'weight' with shape (5, 7)")


def test_linear_init_outside_pytorch_bounds_and_all_zero_bias():
    class Randn(solutions.MyLinear):
        def __init__(self, i, o, bias=True):
            super().__init__(i, o, bias)
            self.weight = nn.Parameter(nb.randn(o, i))
    assert_fails(check("linear", Randn), "'weight' starts with values up to",
                 "beyond PyTorch's bound 1/sqrt(in_features) = 0.378",
                 next_step="nb.rand(...) * 2 * bound - bound")

    class ZeroBias(solutions.MyLinear):
        def __init__(self, i, o, bias=True):
            super().__init__(i, o, bias)
            if bias:
                self.bias = nn.Parameter(nb.zeros(o))
    assert_fails(check("linear", ZeroBias), "'bias' starts as all zeros")


def test_linear_without_the_bias_option():
    class NoOption(nn.Module):
        def __init__(self, i, o):
            super().__init__()
            self.weight = nn.Parameter(uniform(o, i, fan_in=i))
            self.bias = nn.Parameter(uniform(o, fan_in=i))

        def forward(self, x):
            return x @ self.weight.T + self.bias
    assert_fails(check("linear", NoOption), "NoOption(7, 5, bias=False) raised TypeError",
                 next_step="give NoOption(7, 5, bias=False) the arguments the task asks for")

    class IgnoresIt(NoOption):
        def __init__(self, i, o, bias=True):
            super().__init__(i, o)
    assert_fails(check("linear", IgnoresIt), "IgnoresIt(7, 5, bias=False) has parameters "
                 "['weight', 'bias'], not just ['weight']", next_step="self.bias = None")


def test_linear_forward_through_numpy_gets_no_gradients():
    class Numpy(solutions.MyLinear):
        def forward(self, x):
            y = x.detach().numpy() @ self.weight.detach().numpy().T
            return nb.tensor(y if self.bias is None else y + self.bias.detach().numpy())
    result = check("linear", Numpy)
    assert_fails(result, f"{PASS} forward matches Linear with your parameters copied in",
                 "no gradient reached 'x'", "no gradient reached 'weight'",
                 "no gradient reached 'bias'", next_step="not numpy, not .data")


def test_linear_detached_bias():
    class Detached(solutions.MyLinear):
        def forward(self, x):
            y = x @ self.weight.T
            return y if self.bias is None else y + self.bias.detach()
    result = check("linear", Detached)
    assert failing_lines(result) == ["no gradient reached 'bias', but the output depends on it"]
    assert "'bias' got no gradient" in result.next_step


def test_linear_without_super_init():
    class Early(nn.Module):
        def __init__(self, i, o, bias=True):
            self.weight = nn.Parameter(uniform(o, i, fan_in=i))
    assert_fails(check("linear", Early), "raised ModuleAttributeError",
                 "came before super().__init__()", next_step="call super().__init__() first")

    class Never(nn.Module):
        def __init__(self, i, o, bias=True):
            pass
    assert_fails(check("linear", Never), "Never.__init__ does not call super().__init__()")


def test_check_layer_leaves_the_generator_and_the_students_layer_alone():
    nb.manual_seed(11)
    before = nb.default_generator.numpy.bit_generator.state
    layer, reference = solutions.MyLinear(7, 5), nn.Linear(7, 5)
    dtype = layer.weight.dtype
    after_build = nb.default_generator.numpy.bit_generator.state
    assert check_layer(layer, input_shape=(3, 7), reference=reference).passed
    assert check("linear", solutions.MyLinear).passed
    assert nb.default_generator.numpy.bit_generator.state == after_build != before
    assert layer.weight.dtype == dtype  # checked on a float64 copy


# --------------------------------------------------------------------------
# Exercise 5: depthwise convolution backward
# --------------------------------------------------------------------------

def test_depthwise_height_width_swap_on_a_non_square_input():
    result = check("depthwise", depthwise_rule(swap_hw=True))
    assert_fails(result, "backward breaks the contract: the gradient for 'x' has shape "
                 "(2, 3, 5, 7), but 'x' has shape (2, 3, 7, 5)",
                 next_step="are height and width swapped?")


def test_depthwise_flipped_kernel():
    result = check("depthwise", depthwise_rule(flip_kernel=True))
    assert failing_lines(result) == ["the gradient for 'x' differs from numerical derivatives"]
    assert f"{PASS} the gradient for 'weight' matches numerical derivatives" in str(result)


def test_depthwise_weight_gradient_not_summed_over_the_batch():
    assert_fails(check("depthwise", depthwise_rule(per_sample_weight=True)),
                 "backward raised ValueError", next_step="print the shapes")


def test_depthwise_forward_is_compared_with_conv2d():
    text = str(check("depthwise", DepthwiseSkeleton))
    assert f"{PASS} forward matches nb.nn.functional.conv2d(x, weight, groups=3)" in text
    assert "x (2, 3, 7, 5), weight (3, 1, 3, 2)" in text


# --------------------------------------------------------------------------
# The generic checks, for a student's own code
# --------------------------------------------------------------------------

class Cube(nb.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 3 * x ** 2


def test_check_function_with_and_without_expected_values():
    x = nb.randn(3, 4)
    assert check_function(Cube, x, expected=lambda x: x ** 3).passed
    result = check_function(Cube, x)
    assert result.passed
    assert f"{SKIP} forward not compared with expected values (none given)" in str(result)
    assert str(result).startswith("check_function(Cube): all 4 checks pass")
    assert_fails(check_function(Cube, x, expected=lambda x: x ** 2), "forward differs from "
                 "the expected values")


def test_check_function_non_tensor_arguments_and_no_tensor_at_all():
    class Scale(nb.autograd.Function):
        @staticmethod
        def forward(ctx, x, factor):
            ctx.factor = factor
            return x * factor

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output * ctx.factor, None
    assert check_function(Scale, nb.randn(5, 3), 2.5).passed
    assert_fails(check_function(Scale, 1.0, 2.5), "none of the inputs is a floating point "
                 "tensor")


def test_check_function_reports_a_broken_expected_function():
    assert_fails(check_function(Cube, nb.randn(3, 4), expected=lambda x: x.cube()),
                 "expected(...) raised MissingNameError: Tensor.cube")


def test_check_values_on_a_plain_function_with_a_mask_argument():
    rng = np.random.default_rng(11)
    q, k, v = (nb.tensor(rng.standard_normal(s)) for s in [(3, 5, 4), (3, 7, 4), (3, 7, 2)])
    mask = nb.tensor(rng.random((5, 7)) < 0.6)

    def by_hand(q, k, v, mask):
        scores = (q @ k.transpose(-2, -1) / 2.0).masked_fill(~mask, float("-inf"))
        return scores.softmax(dim=-1) @ v

    def reference(q, k, v, m):
        return nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=m)
    result = check_values(by_hand, q, k, v, mask, expected=reference)
    assert result.passed, str(result)
    assert "by_hand runs on q (3, 5, 4), k (3, 7, 4), v (3, 7, 2)" in str(result)
    assert q.dtype == nb.float64 and mask.dtype == nb.bool  # inputs are left as they were

    def unscaled(q, k, v, mask):
        return (q @ k.transpose(-2, -1)).masked_fill(~mask, float("-inf")).softmax(-1) @ v
    assert_fails(check_values(unscaled, q, k, v, mask, expected=reference),
                 "unscaled differs from the expected values")

    def unfinished(q, k, v, mask):
        raise NotImplementedError("the scores first")
    result = check_values(unfinished, q, k, v, mask, expected=reference)
    assert result.status != "passed" and UNFINISHED in str(result)
    assert "the scores first" in str(result)

    def wrong_shape(q, k, v, mask):
        return q
    assert_fails(check_values(wrong_shape, q, k, v, mask, expected=reference),
                 "returns shape (3, 5, 4); the expected values has shape (3, 5, 2)")
    assert_fails(check_values(by_hand(q, k, v, mask), q, expected=reference), "is not a function")


def test_check_bprop_generic():
    class Square(nn.Module):
        def forward(self, x):
            return x * x

        def bprop(self, x, out, dout):
            return 2 * x * dout
    assert check_bprop(Square, nb.randn(4, 3)).passed
    assert check_bprop(Square(), nb.randn(4, 3), expected=lambda x: x * x).passed
    assert_fails(check_bprop(nn.Linear(3, 2), nb.randn(4, 3)), "Linear has no bprop method")


def test_check_layer_on_parameter_free_layers():
    class Swish(nn.Module):
        def forward(self, x):
            return x * x.sigmoid()

    class LeakyReLU(nn.Module):
        def __init__(self, negative_slope=0.01):
            super().__init__()
            self.negative_slope = negative_slope

        def forward(self, x):
            return x.relu() - self.negative_slope * (-x).relu()

    def leaky(x):
        return np.where(x.numpy() > 0, x.numpy(), 0.1 * x.numpy())
    result = check_layer(Swish, input_shape=(3, 5), expected=lambda x: x * x.sigmoid())
    assert result.passed and f"{PASS} has no parameters" in str(result)
    assert check_layer(LeakyReLU, 0.1, input_shape=(3, 5), expected=leaky).passed
    assert check_layer(LeakyReLU(0.1), input_shape=(2, 3, 5)).passed
    assert_fails(check_layer(LeakyReLU, 0.2, input_shape=(3, 5), expected=leaky),
                 "forward differs from the expected values")
    assert_fails(check_layer(Cube, input_shape=(3, 5)), "Cube is not an nb.nn.Module")


def test_check_layer_with_nn_linear_itself():
    result = check_layer(nn.Linear, 7, 5, input_shape=(3, 7), reference=nn.Linear)
    assert result.passed and str(result).startswith("check_layer(Linear(7, 5)): all 8 checks")


def test_unknown_exercise():
    with pytest.raises(nb.InputError, match=r"(?s)there is no exercise 'swsh'.*swish, bprop"):
        check("swsh", SwishSkeleton)


# --------------------------------------------------------------------------
# Results read the same every time, and leave no trace
# --------------------------------------------------------------------------

def test_text_and_html_are_deterministic_and_escaped():
    wrong = swish_rule(lambda x, s, g: s)
    first, second = check("swish", wrong), check("swish", wrong)
    assert str(first) == str(second) == repr(first)
    html = first._repr_html_()
    assert html == second._repr_html_()
    assert "&#x27;x&#x27;" in html and "<b>next step:</b>" in html and FAIL in html


def test_checks_leave_teaching_mode_and_warnings_alone():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no TeachingWarning, no numpy RuntimeWarning escapes
        check("swish", swish_rule(lambda x, s, g: s))
        check("softplus", SoftplusNaive)
    assert nb.autograd.is_teaching()


def test_import_nnbook_does_not_load_the_exercises():
    code = "import json, sys, nnbook; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, check=True)
    loaded = json.loads(out.stdout)
    assert "nnbook.exercises" not in loaded and "nnbook.exercises._solutions" not in loaded


# --------------------------------------------------------------------------
# The notebook shows skeletons, never the solutions
# --------------------------------------------------------------------------

def notebook_cells() -> list[str]:
    cells = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    return ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]


def notebook_code() -> str:
    return "\n".join(notebook_cells())


def run_notebook_checks(fill_in: bool) -> dict:
    """Run the notebook's code in plain Python; with ``fill_in`` each skeleton class is
    replaced by the reference solution of the same name, as a student's finished work."""
    namespace, results = {}, {}
    for source in notebook_cells():
        if source.startswith("check("):
            exercise = source.split('"')[1]
            results[exercise] = eval(compile(source, "<cell>", "eval"), namespace)
            continue
        exec(compile(source, "<cell>", "exec"), namespace)
        if fill_in and 'raise NotImplementedError("your turn")' in source:
            name = source.split("class ", 1)[1].split("(", 1)[0]
            namespace[name] = getattr(solutions, name)
    return results


def test_notebook_holds_skeletons_and_no_solution():
    code = notebook_code()
    for exercise in EXERCISES:
        assert f'check("{exercise}", ' in code
    assert code.count('raise NotImplementedError("your turn")') >= 5
    for giveaway in ("s + x * s * (1 - s)", "dout * (x + 1)", "grad_output * x.sigmoid()",
                     "(-x.abs()).exp()", "grad_w[", "exercises._solutions",
                     "import _solutions"):
        assert giveaway not in code, f"the notebook shows a solution: {giveaway!r}"


def test_notebook_as_committed_shows_every_exercise_unfinished():
    results = run_notebook_checks(fill_in=False)
    assert list(results) == list(EXERCISES)
    assert all(r.status == "todo" for r in results.values())


def test_notebook_with_the_skeletons_filled_in_passes_every_check():
    results = run_notebook_checks(fill_in=True)
    assert list(results) == list(EXERCISES)
    for result in results.values():
        assert result.passed, str(result)


# --------------------------------------------------------------------------
# Mistakes recognised by name, and the numbers at the failing element
# --------------------------------------------------------------------------

class _MulAddSwapped(nb.autograd.Function):
    # z = x * y + 2y: dz/dx = y, dz/dy = x + 2 -- returned the wrong way round
    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_backward(x, y)
        return x * y + 2 * y

    @staticmethod
    def backward(ctx, grad_output):
        x, y = ctx.saved_tensors
        return grad_output * (x + 2), grad_output * y


def test_gradients_returned_in_swapped_order_are_named(rng):
    x = nb.tensor(rng.standard_normal((3, 5)))
    y = nb.tensor(rng.standard_normal((3, 5)))
    result = check_function(_MulAddSwapped, x, y)
    assert_fails(result, "the gradients for 'x' and 'y' are swapped",
                 "the gradients for 'y' and 'x' are swapped",
                 next_step="return the gradients in the order of the forward's inputs")
    assert len(failing_lines(result)) == 2


def test_a_maths_slip_shows_the_input_dout_and_the_expected_local_derivative():
    result = check("swish", swish_rule(lambda x, s, g: 2 * g * (s + x * s * (1 - s))))
    (line,) = [line for line in result.lines if line.mark == FAIL]
    detail = line.detail
    numbers = re.search(r"at element \[(\d+)(?:, (\d+))*\].*numerical (\S+), yours (\S+)",
                        detail)
    there = re.search(r"there: x = (\S+), grad_output = (\S+), so d out / d x should be "
                      r"(\S+) \(numerical gradient / grad_output\)", detail)
    assert numbers and there, detail
    x, dout, local = (float(v.rstrip(",")) for v in there.groups())
    # the local derivative of swish at that x, from the formula (4 significant digits shown)
    s = 1 / (1 + math.exp(-x))
    assert local == pytest.approx(s + x * s * (1 - s), rel=2e-3, abs=1e-3)
    assert float(numbers.group(3)) == pytest.approx(local * dout, rel=5e-3, abs=1e-3)

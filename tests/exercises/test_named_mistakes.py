"""nnbook.exercises names three more mistakes by what went wrong: a term of the product
rule left out, `=` where `+=` belongs, and parameters registered in another order. Each
planted mistake is recognised by name; the right answer is not flagged."""
import re

import numpy as np
import pytest
from planted_rules import depthwise_rule

import nnbook as nb
from nnbook import nn
from nnbook.exercises import FAIL, check, check_bprop, check_function, check_layer
from nnbook.exercises import _solutions as solutions

PRODUCT = "a missing product-rule term"
SUM_RULE = "a missing term of the sum rule"
OVERWRITE = "`=` where `+=` belongs"
ORDER = "registered in another order"


def failing(result) -> list:
    return [line for line in result.lines if line.mark == FAIL]


def x_and_y(rng, shape=(3, 5)):
    return nb.tensor(rng.standard_normal(shape)), nb.tensor(rng.standard_normal(shape))


# --------------------------------------------------------------------------
# A missing product-rule term
# --------------------------------------------------------------------------

def xyx(grad_x):
    """f = x * y * x, whose backward for x is grad_x(x, y, g); for y always right."""
    class XYX(nb.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_backward(x, y)
            return x * y * x

        @staticmethod
        def backward(ctx, grad_output):
            x, y = ctx.saved_tensors
            return grad_x(x, y, grad_output), grad_output * x * x
    return XYX


def test_x_y_x_with_one_of_the_two_terms_is_named(rng):
    x, y = x_and_y(rng)
    result = check_function(xyx(lambda x, y, g: g * y * x), x, y)  # one term of 2xy
    (line,) = failing(result)
    assert PRODUCT in line.text and "the gradient for 'x' misses the term through the" in \
        line.text, str(result)
    assert "'x' enters the forward in 2 places, through the 1st mul and through the 2nd mul" \
        in line.text
    assert "by the product rule" in result.next_step
    assert "the terms there: through the 1st mul" in line.detail
    assert "constant factor" not in str(result)  # half the right one, but that is not the news


def test_x_y_x_right_rule_is_not_flagged(rng):
    x, y = x_and_y(rng)
    result = check_function(xyx(lambda x, y, g: 2 * g * x * y), x, y)
    assert result.passed, str(result)


def x_sin_x(rule):
    class XSinX(nb.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x.sin()

        @staticmethod
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            return grad_output * rule(x)
    return XSinX


@pytest.mark.parametrize("rule, dropped", [
    (lambda x: x.sin(), "through sin"),            # d/dx x sin x without x cos x
    (lambda x: x * x.cos(), "through mul"),        # ... without sin x
])
def test_x_sin_x_names_the_term_left_out(rng, rule, dropped):
    x = nb.tensor(rng.standard_normal((4, 3)))
    result = check_function(x_sin_x(rule), x)
    (line,) = failing(result)
    assert f"misses the term {dropped}: {PRODUCT}" in line.text, str(result)


def test_x_sin_x_right_rule_and_an_unrelated_slip(rng):
    x = nb.tensor(rng.standard_normal((4, 3)))
    assert check_function(x_sin_x(lambda x: x.sin() + x * x.cos()), x).passed
    slip = check_function(x_sin_x(lambda x: x.cos() + x * x.sin()), x)  # not a dropped term
    (line,) = failing(slip)
    assert "misses the term" not in line.text and "differs from numerical" in line.text


def test_swish_without_the_second_product_rule_term_is_named():
    class OnlySigmoid(solutions.Swish):
        @staticmethod
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            return grad_output * x.sigmoid()
    (line,) = failing(check("swish", OnlySigmoid))
    assert f"the gradient for 'x' misses the term through sigmoid: {PRODUCT}" in line.text


def test_a_bprop_module_is_split_into_terms_too(rng):
    class XTanhX(nn.Module):
        def forward(self, x):
            return x * x.tanh()

        def bprop(self, x, out, dout):
            return dout * x.tanh()            # the term through tanh is missing
    (line,) = failing(check_bprop(XTanhX, nb.tensor(rng.standard_normal((5, 3)))))
    assert f"misses the term through tanh: {PRODUCT}" in line.text


def test_the_terms_shown_add_up_to_the_numerical_gradient(rng):
    x = nb.tensor(rng.standard_normal((4, 3)))
    (line,) = failing(check_function(x_sin_x(lambda x: x.sin()), x))
    numerical = float(re.search(r"numerical (\S+),", line.detail).group(1))
    terms = [float(v) for v in re.findall(r"through \w+ (-?[\d.e+-]+)", line.detail)]
    assert len(terms) == 2 and sum(terms) == pytest.approx(numerical, rel=2e-3, abs=2e-3)


# --------------------------------------------------------------------------
# `=` where `+=` belongs
# --------------------------------------------------------------------------

def a_plus_a(grad):
    class APlusA(nb.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a + a

        @staticmethod
        def backward(ctx, grad_output):
            return grad(grad_output)
    return APlusA


def test_a_plus_a_with_only_one_of_its_two_contributions(rng):
    a = nb.tensor(rng.standard_normal((3, 5)))
    result = check_function(a_plus_a(lambda g: g), a)      # gradient 1, not 2
    (line,) = failing(result)
    assert f"misses the term through the 1st input of add: {SUM_RULE}" in line.text, \
        str(result)
    assert "'a' enters the forward in 2 places, through the 1st input of add and through " \
        "the 2nd input of add" in line.text
    assert "+=, never =" in result.next_step
    assert check_function(a_plus_a(lambda g: 2 * g), a).passed


def add_bias(accumulate):
    """out = x + b, b shared by every row; backward sums the rows in a loop."""
    class AddBias(nb.autograd.Function):
        @staticmethod
        def forward(ctx, x, b):
            return x + b

        @staticmethod
        def backward(ctx, grad_output):
            g = grad_output.numpy()
            grad_b = np.zeros(g.shape[1:])
            for row in g:
                if accumulate:
                    grad_b += row
                else:
                    grad_b = row                    # the mistake: the last row wins
            return grad_output, nb.tensor(grad_b)
    return AddBias


def test_a_bias_gradient_overwritten_in_a_loop_is_named(rng):
    x, b = nb.tensor(rng.standard_normal((7, 5))), nb.tensor(rng.standard_normal(5))
    result = check_function(add_bias(accumulate=False), x, b)
    (line,) = failing(result)
    assert f"the gradient for 'b' keeps only one of the contributions that should add up: " \
           f"{OVERWRITE} (5 elements of 'b' are read by several output elements" in line.text
    assert "the contributions there, from 7 output elements" in line.detail
    assert "grad_b[...] += ..." in result.next_step
    assert check_function(add_bias(accumulate=True), x, b).passed


def test_depthwise_with_overlapping_windows_overwritten_is_named():
    result = check("depthwise", depthwise_rule(overwrite=True))
    (line,) = failing(result)
    assert "the gradient for 'x' keeps only one of the contributions" in line.text
    assert OVERWRITE in line.text, str(result)
    assert check("depthwise", depthwise_rule()).passed


# (a flipped kernel, a sum of the wrong contributions, stays unnamed:
# tests/exercises/test_exercises.py::test_depthwise_flipped_kernel)


# --------------------------------------------------------------------------
# Parameters registered in another order
# --------------------------------------------------------------------------

class BiasFirst(solutions.MyLinear):
    def __init__(self, in_features, out_features, bias=True):
        nn.Module.__init__(self)
        bound = 1 / np.sqrt(in_features)
        self.bias = nn.Parameter(nb.rand(out_features) * (2 * bound) - bound) if bias else None
        self.weight = nn.Parameter(nb.rand(out_features, in_features) * (2 * bound) - bound)


def test_linear_with_bias_registered_before_weight_names_both_orders():
    result = check("linear", BiasFirst)
    (line,) = failing(result)
    assert f"the parameters are {ORDER}: Linear has ['weight', 'bias'], yours ['bias', " \
           "'weight']" in line.text, str(result)
    assert "'bias' comes where Linear has 'weight'" in line.text
    assert "in Linear's order (weight, bias)" in result.next_step
    assert "by position" in result.next_step


class TwoLayers(nn.Module):
    def __init__(self, backwards=False):
        super().__init__()
        if backwards:          # the same attributes, defined the other way round
            self.fc2 = nn.Linear(5, 3)
            self.fc1 = nn.Linear(7, 5)
        else:
            self.fc1 = nn.Linear(7, 5)
            self.fc2 = nn.Linear(5, 3)

    def forward(self, x):
        return self.fc2(self.fc1(x).relu())


def test_submodules_defined_in_another_order_are_named():
    result = check_layer(TwoLayers(backwards=True), input_shape=(4, 7), reference=TwoLayers())
    (line,) = failing(result)
    assert ORDER in line.text and "yours ['fc2.weight', 'fc2.bias', 'fc1.weight', " \
        "'fc1.bias']" in line.text, str(result)
    assert check_layer(TwoLayers(), input_shape=(4, 7), reference=TwoLayers()).passed


def test_buffers_in_another_order_show_in_the_state_dict_keys():
    class Norm(nn.Module):
        def __init__(self, swap):
            super().__init__()
            self.weight = nn.Parameter(nb.ones(5))
            first, second = ("var", "mean") if swap else ("mean", "var")
            self.register_buffer(f"running_{first}", nb.zeros(5))
            self.register_buffer(f"running_{second}", nb.ones(5))

        def forward(self, x):
            return (x - self.running_mean) / (self.running_var + 1).sqrt() * self.weight
    result = check_layer(Norm(swap=True), input_shape=(4, 5), reference=Norm(swap=False))
    (line,) = failing(result)
    assert f"the state_dict keys are {ORDER}" in line.text, str(result)
    assert check_layer(Norm(swap=False), input_shape=(4, 5), reference=Norm(swap=False)).passed


def test_other_names_are_still_called_other_names():
    class Named(solutions.MyLinear):
        def __init__(self, i, o, bias=True):
            nn.Module.__init__(self)
            self.W = nn.Parameter(nb.rand(o, i) * 0.2 - 0.1)
            self.b = nn.Parameter(nb.rand(o) * 0.2 - 0.1)
    text = str(check("linear", Named))
    assert "the parameters are named ['W', 'b']" in text and ORDER not in text


# --------------------------------------------------------------------------
# A maths slip shows the inputs, dout and the local derivative expected there
# --------------------------------------------------------------------------

def test_a_slip_in_a_two_input_bprop_shows_both_inputs_and_dout():
    class Slip(solutions.XYPlusY):
        def bprop(self, x, y, out, dout):
            return dout * y, 2 * dout * (x + 1)            # dz/dy is x + 1, not 2 (x + 1)
    (line,) = failing(check("bprop", Slip))
    there = re.search(r"there: x = (\S+), y = (\S+), dout = (\S+), so d out / d y should be "
                      r"(\S+) \(numerical gradient / dout\)", line.detail)
    assert there, line.detail
    x, _, dout, local = (float(v.rstrip(",")) for v in there.groups())
    assert local == pytest.approx(x + 1, rel=2e-3, abs=2e-3)  # dz/dy = x + 1 at that x

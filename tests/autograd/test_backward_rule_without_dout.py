"""The backward rule without dout, retold in nnbook: a Module's bprop(self, x, y, out, dout).

The original: MindSpore refused ``bprop(self, x, y, out)`` with a message that was
hard to act on; the "fixed" rule ``return 2 * x, 2 * y`` for ``2x + y`` was still
wrong and nothing noticed.  Here the first is refused at the class definition with
the expected signature, and the second is caught by teaching mode and gradcheck.
"""
import warnings
from pathlib import Path

import numpy as np
import pytest

import nnbook as nb
from nnbook import nn
from nnbook.errors import ContractError, NnbookError, SignatureError, TeachingWarning


def pair(seed=0, shape=(3, 2)):
    rng = np.random.default_rng(seed)
    return (nb.tensor(rng.standard_normal(shape), requires_grad=True),
            nb.tensor(rng.standard_normal(shape), requires_grad=True))


def test_bprop_without_dout_is_refused_at_definition():
    with pytest.raises(SignatureError) as info:
        class MulAdd(nn.Module):
            def forward(self, x, y):
                return 2 * x + y

            def bprop(self, x, y, out):
                return 2 * x, 2 * y
    err = info.value
    assert isinstance(err, TypeError) and isinstance(err, NnbookError)
    text = str(err)
    assert "MulAdd.bprop is missing 'dout'" in text
    assert "expected  bprop(self, x, y, out, dout)" in text
    assert "got       bprop(self, x, y, out)" in text
    # one line on each of the three kinds of argument
    assert "the forward inputs (x, y)" in text and "- out: what the forward returned" in text
    assert "- dout: the gradient of the loss with respect to out" in text
    source = Path(__file__).read_text().splitlines()
    line = source.index("            def bprop(self, x, y, out):") + 1  # the definition above
    assert f"test_backward_rule_without_dout.py, line {line}: def bprop(self, x, y, out):" in text


def test_bprop_with_too_many_arguments_is_refused():
    with pytest.raises(SignatureError, match=r"has 5 parameter\(s\) after self.*needs 4"):
        class Extra(nn.Module):
            def forward(self, x, y):
                return x + y

            def bprop(self, x, y, z, out, dout):
                return dout, dout


class FixedButWrong(nn.Module):
    """The seed's "fixed" rule: the signature is right, the maths is not."""

    def forward(self, x, y):
        return 2 * x + y

    def bprop(self, x, y, out, dout):
        return 2 * x, 2 * y


class MulAdd(nn.Module):
    """The right rule for z = 2x + y: dz/dx = 2, dz/dy = 1, each times dout."""

    def forward(self, x, y):
        return 2 * x + y

    def bprop(self, x, y, out, dout):
        return 2 * dout, dout


def test_wrong_rule_caught_by_teaching_mode_without_asking():
    class Wrong(FixedButWrong):  # a fresh class: teaching mode checks each rule once
        pass
    x, y = pair()
    with pytest.warns(TeachingWarning) as record:
        Wrong()(x, y).sum().backward()
    text = str(record[0].message)
    assert "Wrong.bprop" in text and "'x' disagrees with numerical derivatives" in text
    assert "does not scale with dout" in text
    assert "did you return 2 * x instead of something times dout?" in text
    assert "test_backward_rule_without_dout.py" in text  # the rule's own line


def test_wrong_rule_caught_by_gradcheck():
    with nb.autograd.teaching_mode(False):
        with pytest.raises(nb.GradcheckError) as info:
            nb.gradcheck(FixedButWrong(), pair(1))
    text = str(info.value)
    assert "gradcheck of FixedButWrong" in text and "input 'x'" in text
    assert "does not scale with dout" in text
    assert [c.name for c in info.value.report.failures()] == ["x", "y"]


def test_right_rule_passes_and_drives_backward_through_a_larger_graph():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # teaching mode stays quiet for a right rule
        assert nb.gradcheck(MulAdd(), pair(2))
        nb.manual_seed(0)
        lin = nn.Linear(2, 4).double()
        muladd = MulAdd()
        x, y = pair(3)
        loss = lin(muladd(x.tanh(), y * y)).sigmoid().sum()
        loss.backward()
    x2, y2 = (nb.tensor(t.detach().numpy(), requires_grad=True) for t in (x, y))
    lin2 = nn.Linear(2, 4).double()
    lin2.load_state_dict(lin.state_dict())
    lin2(2 * x2.tanh() + y2 * y2).sigmoid().sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), x2.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(y.grad.numpy(), y2.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(lin.weight.grad.numpy(), lin2.weight.grad.numpy(), rtol=1e-12)


def test_integer_inputs_asking_for_gradients_are_refused():
    # The seed called the cell on Tensor(1, int32) and asked for gradients.
    with pytest.raises(nb.DTypeError, match="only floating point tensors can require gradients"):
        MulAdd()(nb.tensor(1, dtype=nb.int32, requires_grad=True), nb.tensor(2, dtype=nb.int32))


def test_bprop_contract_errors_name_the_rule_and_the_input():
    class OneGrad(nn.Module):
        def forward(self, x, y):
            return x * y

        def bprop(self, x, y, out, dout):
            return dout * y
    with pytest.raises(ContractError, match=r"OneGrad.bprop: returned 1 gradient\(s\) but the "
                                            r"forward took 2 input\(s\) \(x, y\)"):
        OneGrad()(*pair()).sum().backward()


def test_bprop_error_names_the_layer_path_and_forward_line():
    class Transposed(nn.Module):
        def forward(self, x):
            return x * 2

        def bprop(self, x, out, dout):
            return dout.T * 2
    model = nn.Sequential(nn.Identity(), Transposed())
    x = nb.tensor(np.ones((3, 2)), requires_grad=True)
    with nb.autograd.teaching_mode(False):
        y = model(x)
        with pytest.raises(ContractError) as info:
            y.sum().backward()
    text = str(info.value)
    assert "gradient for 'x' has shape (2, 3), but 'x' has shape (3, 2)" in text
    assert "in layer 1 (Transposed)" in text and "y = model(x)" in text

"""nnbook.autograd.Function: signature checks, runtime contracts, teaching mode."""
import warnings

import numpy as np
import pytest

import nnbook as nb
from nnbook.autograd import Function
from nnbook.errors import ContractError, NnbookError, SignatureError, TeachingWarning


def leaf(*shape, seed=0):
    return nb.tensor(np.random.default_rng(seed).standard_normal(shape), requires_grad=True)


class MulAdd(Function):
    """z = 2x + y with the right rule."""

    @staticmethod
    def forward(ctx, x, y):
        return 2 * x + y

    @staticmethod
    def backward(ctx, dout):  # dz/dx = 2, dz/dy = 1
        return 2 * dout, dout


def test_right_rule_drives_backward_through_a_larger_graph():
    x, y, w = leaf(7, 5), leaf(7, 5, seed=1), leaf(5, 3, seed=2)
    loss = (MulAdd.apply(x.tanh(), y) @ w).sigmoid().sum()
    loss.backward()
    x2, y2, w2 = (nb.tensor(t.detach().numpy(), requires_grad=True) for t in (x, y, w))
    ((2 * x2.tanh() + y2) @ w2).sigmoid().sum().backward()
    for a, b in ((x, x2), (y, y2), (w, w2)):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-12)
    assert nb.gradcheck(MulAdd.apply, (leaf(3, 4), leaf(3, 4, seed=1)))


def test_backward_without_gradients_is_refused_at_definition():
    with pytest.raises(SignatureError) as info:
        class Broken(Function):
            @staticmethod
            def forward(ctx, x, y):
                return x * y

            @staticmethod
            def backward(ctx):
                return None, None
    text = str(info.value)
    assert isinstance(info.value, TypeError) and isinstance(info.value, NnbookError)
    assert "Broken.backward is missing the output gradients" in text
    assert "expected  backward(ctx, grad_output)" in text and "got       backward(ctx)" in text
    assert "- ctx:" in text and "- grad_output:" in text and "(x, y)" in text
    assert "test_function.py, line" in text


class FixedButWrong(Function):
    """The backward rule without dout, "fixed": returns 2*x, 2*y for 2x + y."""

    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_backward(x, y)
        return 2 * x + y

    @staticmethod
    def backward(ctx, dout):
        x, y = ctx.saved_tensors
        return 2 * x, 2 * y


def test_wrong_maths_is_caught_by_gradcheck_with_a_diagnosis():
    with nb.autograd.teaching_mode(False):
        with pytest.raises(nb.GradcheckError) as info:
            nb.gradcheck(FixedButWrong.apply, (leaf(3, 2), leaf(3, 2, seed=1)))
    text = str(info.value)
    assert "gradcheck of FixedButWrong.apply" in text and "input 'x'" in text
    assert "does not scale with dout" in text
    assert "did you return 2 * x instead of something times dout?" in text
    report = info.value.report
    assert [c.name for c in report.failures()] == ["x", "y"]
    assert "WRONG" in str(report) and "<table>" in report._repr_html_()


def test_wrong_maths_is_caught_by_teaching_mode_once():
    class Wrong(FixedButWrong):
        pass
    x, y = leaf(3, 2), leaf(3, 2, seed=1)
    with pytest.warns(TeachingWarning, match=r"Wrong.backward.*'x' disagrees") as record:
        MulAddLoss = (Wrong.apply(x, y) * 3).sum()
        MulAddLoss.backward()
    text = str(record[0].message)
    assert "does not scale with dout" in text and "test_function.py" in text
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # later calls pay nothing and say nothing
        Wrong.apply(x, y).sum().backward()


def test_teaching_mode_skips_large_inputs_and_can_be_switched_off():
    class Wrong(FixedButWrong):
        pass
    big = nb.autograd.TEACHING_MAX_ELEMENTS
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Wrong.apply(leaf(big, 2), leaf(big, 2)).sum().backward()  # too big: not checked
        with nb.autograd.teaching_mode(False):
            Wrong.apply(leaf(2, 2), leaf(2, 2)).sum().backward()

    class Quiet(FixedButWrong):
        teaching = False
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Quiet.apply(leaf(2, 2), leaf(2, 2)).sum().backward()


def test_right_rule_passes_teaching_mode_silently():
    class Right(MulAdd):
        pass
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Right.apply(leaf(3, 2), leaf(3, 2)).sum().backward()


class TwoGradsForOne(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 3

    @staticmethod
    def backward(ctx, dout):
        return dout * 3, dout


def test_wrong_number_of_gradients():
    with pytest.raises(ContractError, match=r"TwoGradsForOne.backward: returned 2 gradient\(s\) "
                                            r"but the forward took 1 input\(s\) \(x\)"):
        TwoGradsForOne.apply(leaf(3)).sum().backward()


class IntGrad(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 3

    @staticmethod
    def backward(ctx, dout):
        return nb.tensor(np.ones(dout.shape, dtype=np.int64))


def test_integer_gradient_is_refused():
    with pytest.raises(ContractError, match=r"gradient for 'x' is int64, not floating point"):
        IntGrad.apply(leaf(4)).sum().backward()


def test_broadcast_gradient_is_summed_and_wrong_shape_refused():
    class Bias(Function):
        @staticmethod
        def forward(ctx, x, b):
            return x + b

        @staticmethod
        def backward(ctx, dout):
            return dout, dout  # (7, 5) for b of shape (5,): sums over the broadcast axis
    x, b = leaf(7, 5), leaf(5)
    Bias.apply(x, b).sum().backward()
    np.testing.assert_allclose(b.grad.numpy(), np.full(5, 7.0))

    class Wrong(Function):
        @staticmethod
        def forward(ctx, x):
            return x.sum(0)

        @staticmethod
        def backward(ctx, dout):
            return dout  # shape (5,) for an input of (7, 5)
    with pytest.raises(ContractError, match=r"gradient for 'x' has shape \(5,\), but 'x' has "
                                            r"shape \(7, 5\)"):
        Wrong.apply(leaf(7, 5)).backward(nb.ones(5, dtype=nb.float64))


def test_none_for_a_non_differentiable_input_and_saved_tensors():
    class Scale(Function):
        @staticmethod
        def forward(ctx, x, factor, index):
            ctx.save_for_backward(x)
            ctx.factor = factor
            return x * factor + index.float()

        @staticmethod
        def backward(ctx, dout):
            (x,) = ctx.saved_tensors
            assert ctx.needs_input_grad == (True, False, False)
            return dout * ctx.factor, None, None
    x = leaf(4, 3)
    Scale.apply(x, 2.5, nb.tensor([[1, 2, 3]])).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full((4, 3), 2.5))

    class GradForNumber(Scale):
        @staticmethod
        def backward(ctx, dout):
            return dout, dout.sum(), None
    with pytest.raises(ContractError, match=r"gradient for 'factor', which is not a tensor"):
        GradForNumber.apply(leaf(4, 3), 2.5, nb.tensor([[1, 2, 3]])).sum().backward()


def test_integer_inputs_cannot_ask_for_gradients():
    with pytest.raises(nb.DTypeError, match="floating point"):
        MulAdd.apply(nb.tensor(1, dtype=nb.int32, requires_grad=True), nb.tensor(2.0))


def test_several_outputs():
    class SplitHalves(Function):
        @staticmethod
        def forward(ctx, x):
            return x[:2] * 2, x[2:].exp()

        @staticmethod
        def backward(ctx, d_first, d_second):
            raise AssertionError("replaced below")

    class Halves(SplitHalves):
        @staticmethod
        def backward(ctx, d_first, d_second):
            out = nb.zeros(5, 3, dtype=nb.float64)
            out.data[:2] = d_first.detach().numpy() * 2
            out.data[2:] = d_second.detach().numpy() * ctx.e
            return out

        @staticmethod
        def forward(ctx, x):
            ctx.e = x.detach().numpy()[2:].copy()
            ctx.e = np.exp(ctx.e)
            return x[:2] * 2, x[2:].exp()
    x = leaf(5, 3)
    a, b = Halves.apply(x)
    assert a.shape == (2, 3) and b.shape == (3, 3)
    assert nb.gradcheck(lambda x: Halves.apply(x)[1] * Halves.apply(x)[0].sum(), (x,))


class DepthwiseSwapped(Function):
    """A hand-written depthwise 3x3 convolution (stride 1, padding 1) whose backward
    mixes up height and width -- the swapped height and width -- visible only on
    non-square inputs."""

    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        n, c, h, wd = x.shape
        xp = np.pad(x.detach().numpy(), ((0, 0), (0, 0), (1, 1), (1, 1)))
        out = np.zeros(x.shape)
        for i in range(3):
            for j in range(3):
                out += (
                    xp[:, :, i : i + h, j : j + wd]
                    * w.detach().numpy()[:, 0, i, j][None, :, None, None]
                )
        return nb.tensor(out)

    @staticmethod
    def backward(ctx, dout):
        x, w = ctx.saved_tensors
        n, c, h, wd = x.shape
        g = np.pad(dout.detach().numpy(), ((0, 0), (0, 0), (1, 1), (1, 1)))
        grad_x = np.zeros((n, c, wd, h))  # the bug: (W, H) instead of (H, W)
        grad_w = np.zeros(w.shape)
        return nb.tensor(grad_x), nb.tensor(grad_w + 0 * g.sum())


def test_height_width_swap_in_hand_written_depthwise_backward_is_caught():
    x = leaf(2, 3, 8, 4)  # non-square: 8 x 4
    w = leaf(3, 1, 3, 3, seed=1)
    with nb.autograd.teaching_mode(False):
        y = DepthwiseSwapped.apply(x, w)
        with pytest.raises(ContractError) as info:
            y.sum().backward()
    text = str(info.value)
    assert "DepthwiseSwapped.backward" in text
    assert "gradient for 'x' has shape (2, 3, 4, 8), but 'x' has shape (2, 3, 8, 4)" in text
    assert "height and width" in text


class SavedExp(Function):
    """exp, whose backward reads the output it saved."""

    @staticmethod
    def forward(ctx, x):
        y = x.exp()
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, dout):
        (y,) = ctx.saved_tensors
        return dout * y


class SavedSquare(Function):
    """x², whose backward reads the input it saved."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, dout):
        (x,) = ctx.saved_tensors
        return 2 * x * dout


def test_a_saved_output_changed_in_place_is_refused_not_used():
    """As PyTorch: the rule would read the changed values and give a wrong gradient (which
    teaching mode then blamed on the rule)."""
    x = nb.tensor(np.random.default_rng(5).standard_normal((7, 5)), requires_grad=True)
    y = SavedExp.apply(x)
    y.mul_(2)
    with pytest.raises(nb.errors.BackwardError, match=r"(?s)SavedExp\.backward: saved tensor "
                       r"0 \(7, 5\) was changed in place.*version when saved: 0, now: 1"
                       r".*y = y\.clone\(\)"):
        y.sum().backward()


def test_a_saved_input_changed_in_place_is_refused_and_an_unsaved_one_is_not():
    x = nb.tensor(np.random.default_rng(6).standard_normal((7, 5)), requires_grad=True)
    h = x * 1
    y = SavedSquare.apply(h)
    h.add_(1)
    with pytest.raises(nb.errors.BackwardError, match=r"saved tensor 0 \(7, 5\) was changed"):
        y.sum().backward()
    h = x * 1
    y = SavedSquare.apply(h)
    y.mul_(3)               # the output: not saved, so the gradient stays right
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 6 * x.detach().numpy())


def test_a_bprop_given_an_output_changed_in_place_is_refused():
    class ExpB(nb.nn.Module):
        def forward(self, x):
            return x.exp()

        def bprop(self, x, out, dout):
            return (out * dout,)

    x = nb.tensor(np.random.default_rng(7).standard_normal((7, 5)), requires_grad=True)
    y = ExpB()(x * 1)
    y.mul_(2)
    with pytest.raises(nb.errors.BackwardError, match=r"ExpB\.bprop needs its output.*changed"):
        y.sum().backward()

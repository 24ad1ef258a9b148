"""PyTorch-style custom ops: subclass Function, write forward and backward, call apply.

    class MulAdd(nb.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):            # z = 2x + y
            return 2 * x + y

        @staticmethod
        def backward(ctx, dout):           # dz/dx = 2, dz/dy = 1
            return 2 * dout, dout

    z = MulAdd.apply(x, y)

``forward`` runs with gradient recording off and gets the arguments as given;
``backward`` gets one gradient per output and returns one gradient per forward
argument (None for those that need none).  See :mod:`nnbook.autograd.custom`
for the contract nnbook checks.
"""
from __future__ import annotations

import inspect

from ..errors import ArgumentError, BackwardError, SignatureError, fmt_shape, message
from ..tensor import Tensor
from .custom import definition_site, positional_names, run_custom


class FunctionCtx:
    """What forward leaves for backward: saved tensors and which inputs need gradients."""

    def __init__(self, needs_input_grad, name="Function"):
        self.needs_input_grad = needs_input_grad
        self._saved, self._versions, self._name = (), (), name

    def save_for_backward(self, *tensors):
        self._saved = tensors
        self._versions = tuple(t._version if isinstance(t, Tensor) else None for t in tensors)

    @property
    def saved_tensors(self):
        """The saved tensors, refused if one was changed in place since it was saved (its
        values are no longer those the forward computed with, so the gradient would be
        wrong): as PyTorch does."""
        for index, (t, then) in enumerate(zip(self._saved, self._versions)):
            if then is not None and t._version != then:
                raise BackwardError(message(
                    f"saved tensor {index} {fmt_shape(t.shape)} was changed in place after "
                    "ctx.save_for_backward saved it, so the gradient would be wrong.",
                    where=f"{self._name}.backward",
                    values=f"version when saved: {then}, now: {t._version}",
                    hint="change a copy instead (y = y.clone() before the in-place "
                    "operation), or call backward() before the change."))
        return self._saved


class Function:
    """Base class for custom ops with a hand-written backward (PyTorch's API)."""

    teaching = True  # set False on a subclass to skip teaching mode's check for it

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        _check_function_signatures(cls)

    @staticmethod
    def forward(ctx, *args):
        raise SignatureError(message(
            "this Function subclass has no forward: define @staticmethod forward(ctx, ...).",
            where="Function", hint="forward computes the output from the inputs; backward "
            "(ctx, grad_output) returns one gradient per input."))

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise SignatureError(message(
            "this Function subclass has no backward: define @staticmethod "
            "backward(ctx, grad_output).", where="Function",
            hint="return one gradient per forward input, each built from grad_output."))

    @classmethod
    def apply(cls, *args):
        needs = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        ctx = FunctionCtx(needs, cls.__name__)
        try:
            return run_custom(
                cls, f"{cls.__name__}.backward", _argument_names(cls, len(args)), args,
                forward=lambda *a: cls.forward(ctx, *a),
                recompute=lambda *a: cls.forward(FunctionCtx(needs), *a),
                rule=lambda out, douts: cls.backward(ctx, *douts),
                forward_def=cls.forward, rule_def=cls.backward,
                teach=getattr(cls, "teaching", True))
        except TypeError:
            _check_apply(cls, ctx, args)  # a call that cannot fit forward: say why
            raise


def _check_apply(cls, ctx, args) -> None:
    """Raise an nnbook error if ``forward(ctx, *args)`` cannot bind (so the TypeError came
    from that call, not from inside forward); return if it can."""
    forward = _func(cls.forward)
    signature = inspect.signature(forward)
    try:
        signature.bind(ctx, *args)
        return
    except TypeError as err:
        problem = str(err)
    names, _ = positional_names(forward, skip_first=True)
    try:  # the inputs alone fit, and the first parameter is not called ctx
        signature.bind(*args)
        fits_without_ctx = next(iter(signature.parameters), None) != "ctx"
    except TypeError:
        fits_without_ctx = False
    if fits_without_ctx:
        params = ", ".join(map(str, signature.parameters.values()))
        raise SignatureError(message(
            f"{cls.__name__}.forward{signature} has no ctx: apply passes ctx first, then the "
            "inputs.", where=f"{cls.__name__}.forward", line=definition_site(forward),
            hint=f"write @staticmethod def forward(ctx, {params}): ctx carries what backward "
            "needs (ctx.save_for_backward(...)).")) from None
    raise ArgumentError(message(
        f"was called with {len(args)} input(s), but {cls.__name__}.forward{signature} takes "
        f"{len(names)} after ctx ({', '.join(names)}).", where=f"{cls.__name__}.apply",
        values=f"Python: {problem}", hint=f"call {cls.__name__}.apply({', '.join(names)}): "
        "apply passes ctx itself.")) from None


def _argument_names(cls, n: int) -> list[str]:
    names, _ = positional_names(cls.forward)
    return [names[i] if i < len(names) else f"input {i}" for i in range(n)]


def _check_function_signatures(cls) -> None:
    """At class definition: backward must take ctx and the output gradients."""
    backward = cls.__dict__.get("backward")
    forward = cls.__dict__.get("forward")
    if forward is not None:
        params = list(inspect.signature(_func(forward)).parameters)
        if not params:
            raise SignatureError(message(
                f"{cls.__name__}.forward takes no arguments; it needs ctx first.",
                where=f"defining {cls.__name__}", line=definition_site(_func(forward)),
                hint="write @staticmethod def forward(ctx, x, ...): ctx carries saved "
                "tensors to backward."))
    if backward is None:
        return
    func = _func(backward)
    inputs, _ = positional_names(_func(forward) if forward else cls.forward)
    params = list(inspect.signature(func).parameters.values())
    has_var = any(p.kind == p.VAR_POSITIONAL for p in params)
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if has_var or len(positional) >= 2:
        return
    expected = "backward(ctx, grad_output)"
    got = f"backward({', '.join(str(p) for p in params)})"
    raise SignatureError(message(
        f"{cls.__name__}.backward is missing the output gradients: it must take ctx and "
        "then one gradient per output of forward.",
        where=f"defining {cls.__name__}",
        values=f"expected  {expected}   (one grad_output per forward output)\n"
        f"got       {got}\n"
        "  - ctx: the object forward saved tensors on (ctx.saved_tensors);\n"
        "  - grad_output: the gradient of the loss with respect to forward's output, "
        "arriving from the layers after this one;\n"
        f"  - return: one gradient per forward input ({', '.join(inputs) or '...'}), "
        "each built from grad_output.",
        line=definition_site(func),
        hint=f"write @staticmethod def {expected}: and return "
        f"{', '.join('grad_output * (...)' for _ in inputs) or 'the input gradients'}.",
    ))


def _func(f):
    return f.__func__ if isinstance(f, (staticmethod, classmethod)) else f


__all__ = ["Function", "FunctionCtx"]

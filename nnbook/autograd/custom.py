"""Custom backward rules, written by users: checked when defined and when they run.

Two ways in, one machinery:

* ``nnbook.autograd.Function`` -- PyTorch style, ``backward(ctx, *grad_outputs)``;
* ``Module.bprop(self, *inputs, out, dout)`` -- MindSpore style, on a whole module.

Both become a :class:`CustomRule` node in the graph.  When the engine reaches it,
the user's rule runs and what it returns is checked against the contract:

* one gradient per forward input, ``None`` where no gradient is needed (a ``None``
  for an input that needs one counts as zeros, as in PyTorch);
* each gradient has its input's shape, or a shape that sums to it over broadcast
  axes (numpy's rules: e.g. ``(7, 5)`` for an input of shape ``(5,)`` or ``(1, 5)``);
* each gradient is floating point.

Teaching mode (on by default) also compares the rule with numerical derivatives
the first time it runs on inputs of at most ``TEACHING_MAX_ELEMENTS`` elements in
all, and warns with a :class:`~nnbook.errors.TeachingWarning` if they disagree.
Later calls of that rule pay nothing.
"""
from __future__ import annotations

import contextlib
import inspect

import numpy as np

from .. import context
from ..errors import (
    ContractError,
    InputError,
    SignatureError,
    TeachingWarning,
    describe_frame,
    fmt_shape,
    message,
    user_site,
    warn_from_user_code,
)
from ..ops.base import Op
from ..tensor import Tensor, _wrap, apply
from .engine import unbroadcast
from .numerical import diagnose, numerical_vjp

TEACHING_MAX_ELEMENTS = 64
_teaching = True
_checked: set = set()  # rules (classes) teaching mode has already compared


def set_teaching_mode(enabled: bool) -> None:
    """Switch teaching mode on or off for every custom rule."""
    global _teaching
    _teaching = bool(enabled)


def is_teaching() -> bool:
    return _teaching


@contextlib.contextmanager
def teaching_mode(enabled: bool = True):
    """``with nb.autograd.teaching_mode(False):`` -- switch it for a block only."""
    global _teaching
    previous, _teaching = _teaching, bool(enabled)
    try:
        yield
    finally:
        _teaching = previous


# --------------------------------------------------------------------------
# Checks at definition
# --------------------------------------------------------------------------

ARGUMENT_ROLES = (
    "  - the forward inputs ({inputs}): the values the forward was called with;\n"
    "  - out: what the forward returned;\n"
    "  - dout: the gradient of the loss with respect to out, arriving from the layers "
    "after this one -- every gradient you return must be built from it (chain rule).")


def definition_site(func) -> str:
    """'file.py, line 12: def bprop(self, x, y, out):' -- the def line, not a decorator."""
    import linecache

    func = getattr(func, "__func__", func)
    code = getattr(inspect.unwrap(func), "__code__", None)
    if code is None:
        return "an unknown place"
    line = code.co_firstlineno
    for offset in range(10):  # skip decorators above the def
        text = linecache.getline(code.co_filename, line + offset).lstrip()
        if text.startswith(("def ", "async def ")):
            line += offset
            break
    return describe_frame(code.co_filename, line)


def positional_names(func, skip_first=True) -> tuple[list[str], bool]:
    """Names of the positional parameters (without self/ctx), and whether *args is there."""
    params = list(inspect.signature(func).parameters.values())
    if skip_first and params and params[0].kind in (params[0].POSITIONAL_ONLY,
                                                    params[0].POSITIONAL_OR_KEYWORD):
        params = params[1:]
    names = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    varargs = any(p.kind == p.VAR_POSITIONAL for p in params)
    return names, varargs


def check_bprop_signature(cls) -> None:
    """Refuse a Module subclass whose ``bprop`` isn't ``bprop(self, *inputs, out, dout)``."""
    bprop = cls.__dict__.get("bprop")
    if bprop is None:
        return
    forward_names, forward_var = positional_names(cls.forward)
    params = list(inspect.signature(bprop).parameters.values())[1:]  # drop self
    names = [p.name for p in params]
    kinds = {p.name: p.kind for p in params}
    if forward_var:
        ok = "out" in names and "dout" in names and \
            any(p.kind == p.VAR_POSITIONAL for p in params)
        expected = "bprop(self, *inputs, out, dout)"
    else:
        ok = len(names) == len(forward_names) + 2 and \
            not any(k == inspect.Parameter.VAR_POSITIONAL for k in kinds.values())
        expected = "bprop(self, " + ", ".join(forward_names + ["out", "dout"]) + ")"
    if ok:
        return
    got = f"bprop(self{''.join(', ' + str(p) for p in params)})"
    missing = [n for n in ("out", "dout") if n not in names]
    if missing and len(names) < len(forward_names) + 2:
        what = (f"{cls.__name__}.bprop is missing {' and '.join(repr(m) for m in missing)}: a "
                "bprop takes the forward's inputs, then out, then dout.")
    else:
        what = (f"{cls.__name__}.bprop has {len(names)} parameter(s) after self, but its "
                f"forward takes {len(forward_names)} input(s), so it needs "
                f"{len(forward_names) + 2}: the inputs, then out, then dout.")
    raise SignatureError(message(
        what,
        where=f"defining {cls.__name__}",
        values=f"expected  {expected}\ngot       {got}\n"
        + ARGUMENT_ROLES.format(inputs=", ".join(forward_names) or "*inputs"),
        line=definition_site(bprop),
        hint=f"write it as {expected} and return one gradient per input, e.g. "
        f"({', '.join('dout * ...' for _ in forward_names) or '...'}).",
    ))


# --------------------------------------------------------------------------
# Running a forward whose backward is a custom rule
# --------------------------------------------------------------------------

def run_custom(key, name, arg_names, args, forward, recompute, rule, forward_def,
               rule_def, teach=True, reads_output=False):
    """Run ``forward(*args)`` unrecorded and link its output(s) to one CustomRule node.

    ``rule(outs, douts)`` computes the input gradients (``outs`` and ``douts`` are
    lists of Tensors, one per output); ``recompute(*args)`` runs the forward again
    for teaching mode.  ``forward_def`` and ``rule_def`` are the user's functions,
    named in messages (their lines are looked up only when a message needs them).
    ``reads_output``: the rule is given the output (bprop's ``out``), so a change to it
    in place is refused.  Returns what the forward returned, now in the graph.
    """
    with context.no_grad():
        result = forward(*args)
    outputs = list(result) if isinstance(result, (tuple, list)) else [result]
    for o in outputs:
        if not isinstance(o, Tensor):
            raise InputError(message(
                f"{name.split('.')[0]}'s forward returned a {type(o).__name__}; it must "
                "return a Tensor (or a tuple of Tensors).",
                where=name, line=definition_site(forward_def),
                hint="build the result with nnbook operations on the input tensors."))
    if not (context.grad_enabled and any(isinstance(a, Tensor) and a.requires_grad
                                         for a in args)):
        return result

    def again(*arrays):
        it = iter(arrays)
        fresh = [_wrap(next(it)) if isinstance(a, Tensor) else a for a in args]
        with context.no_grad():
            out = recompute(*fresh)
        return [o._array for o in (out if isinstance(out, (tuple, list)) else [out])]

    node = CustomRule(name, key, arg_names, args, [o._array for o in outputs],
                      lambda douts: rule(outputs, douts), again, teach=teach, rule_def=rule_def)
    node.site = user_site(1)  # a custom rule is worth its line: its messages show it
    if len(outputs) == 1:
        node.keeps_output = reads_output
    packed = apply(node, *[a for a in args if isinstance(a, Tensor)])
    if len(outputs) == 1:
        # The result holds the forward's output array itself: one memory, one version
        # count, so a change to either is seen where the other was saved.
        packed._counter = outputs[0]._counter
        if reads_output:
            node.output_counter = packed._counter
        return packed
    parts, start = [], 0
    for o in outputs:
        parts.append(packed[start:start + o._array.size].reshape(o.shape))
        start += o._array.size
    return tuple(parts)


def run_bprop(module, args):
    """Call ``module`` whose class defines ``bprop(self, *inputs, out, dout)``."""
    cls = type(module)
    names, _ = positional_names(cls.forward)
    arg_names = [names[i] if i < len(names) else f"input {i}" for i in range(len(args))]

    def rule(outs, douts):
        out = outs[0] if len(outs) == 1 else tuple(outs)
        dout = douts[0] if len(douts) == 1 else tuple(douts)
        return module.bprop(*args, out, dout)

    return run_custom(cls, f"{cls.__name__}.bprop", arg_names, args,
                      forward=module.forward, recompute=module.forward, rule=rule,
                      forward_def=cls.forward, rule_def=cls.bprop,
                      teach=getattr(cls, "teaching", True), reads_output=True)


# --------------------------------------------------------------------------
# The node in the graph
# --------------------------------------------------------------------------

class CustomRule(Op):
    """A graph node whose backward is a user's rule.

    ``run_rule(grad_outputs)`` calls the user's code with the output gradients
    (as Tensors) and returns what it returned; ``recompute(*arrays)`` runs the
    forward again on plain arrays (for teaching mode).  Several outputs are
    packed into one flat array so the engine still sees one output per node.
    """

    describes_itself = True  # its errors name the rule, the layer and the forward's line
    name = "custom rule"

    def __init__(self, rule_name, rule_key, arg_names, args, out_arrays, run_rule,
                 recompute, teach=True, rule_def=None):
        self.name = rule_name
        self.rule_def = rule_def            # the user's rule, named in messages
        self.rule_key = rule_key
        self.arg_names = arg_names          # a name for each forward argument
        self.args = args                    # the forward arguments (Tensors or not)
        self.out_shapes = [a.shape for a in out_arrays]
        self.packed = out_arrays[0] if len(out_arrays) == 1 else \
            np.concatenate([a.reshape(-1) for a in out_arrays])
        self.run_rule = run_rule
        self.recompute = recompute
        self.teach = teach
        self.tensor_positions = [i for i, a in enumerate(args) if _is_tensor(a)]
        small = sum(args[i]._array.size for i in self.tensor_positions) <= TEACHING_MAX_ELEMENTS
        checking = teach and small and _teaching and rule_key not in _checked
        self.teach_inputs = ([args[i]._array.copy() for i in self.tensor_positions]
                             if checking else None)

    def infer(self, *inputs):
        return self.packed.shape

    def forward(self, *arrays):
        return self.packed

    def unpack(self, flat):
        if len(self.out_shapes) == 1:
            return [flat]
        parts, start = [], 0
        for shape in self.out_shapes:
            n = int(np.prod(shape))
            parts.append(flat[start:start + n].reshape(shape))
            start += n
        return parts

    def input_names(self, count: int) -> list[str]:
        """The forward's own names for its tensor inputs ('x', 'y')."""
        return [self.arg_names[i] for i in self.tensor_positions][:count]

    def release(self):
        name = self.name
        super().release()
        self.name = name

    @property
    def site_text(self):
        """'file.py, line 12: def bprop(...)' of the rule, looked up when a message needs it."""
        return definition_site(self.rule_def) if self.rule_def is not None else None

    def backward(self, grad_out):
        douts = self.unpack(grad_out)
        returned = self.run_rule([_wrap(d) for d in douts])
        grads = self.check(returned)
        if self.teach_inputs is not None and _teaching and self.rule_key not in _checked:
            _checked.add(self.rule_key)
            self.compare_with_numbers(douts, grads)
        return tuple(grads[i] for i in self.tensor_positions)

    # -- the contract ----------------------------------------------------------
    def fail(self, what, values=None, hint=None, cls=ContractError):
        site = self.site_text
        line = f"{site} (the rule)" if site else False
        if self.__dict__.get("site"):
            values = (values + "\n" if values else "") + \
                f"forward ran at {describe_frame(*self.site)}"
        if self.layer:
            values = (values + "\n" if values else "") + \
                f"in layer {context.layer_name(*self.layer)}"
        raise cls(message(what, where=self.name, values=values, hint=hint, line=line))

    def check(self, returned) -> list:
        """One gradient per argument, right shape, floating: returns arrays or None."""
        n = len(self.args)
        if not isinstance(returned, (tuple, list)):
            returned = (returned,)
        if len(returned) != n:
            self.fail(
                f"returned {len(returned)} gradient(s) but the forward took {n} input(s) "
                f"({', '.join(self.arg_names)}).",
                hint="return one gradient per input, in the order of the forward's "
                "arguments; use None for an input that needs no gradient.")
        grads = []
        for arg, name, g in zip(self.args, self.arg_names, returned):
            if g is None:
                grads.append(None)
                continue
            if not _is_tensor(arg):
                self.fail(f"returned a gradient for '{name}', which is not a tensor "
                          f"({type(arg).__name__}).",
                          hint=f"return None in the place of '{name}'.")
            grads.append(self.check_one(arg, name, g))
        return grads

    def check_one(self, arg, name, g):
        data = g._array if _is_tensor(g) else g
        if isinstance(data, np.generic):
            data = np.asarray(data)
        if not isinstance(data, np.ndarray):
            if isinstance(data, (int, float)) and not isinstance(data, bool):
                data = np.asarray(data, dtype=arg.dtype)
            else:
                self.fail(f"returned a {type(g).__name__} as the gradient of '{name}'.",
                          hint="return an nnbook Tensor (or None).")
        if data.dtype.kind != "f":
            self.fail(
                f"the gradient for '{name}' is {data.dtype.name}, not floating point.",
                values=f"input '{name}' {fmt_shape(arg.shape)} {arg.dtype.name}",
                hint="gradients are real numbers: build them from dout (which is "
                "floating point), or convert with .float().")
        if data.shape != arg.shape:
            fitted = unbroadcast(data, arg.shape)
            if fitted is None:
                self.fail(
                    f"the gradient for '{name}' has shape {fmt_shape(data.shape)}, but "
                    f"'{name}' has shape {fmt_shape(arg.shape)}.",
                    values=f"expected {fmt_shape(arg.shape)} (or a shape that sums to it "
                    f"over broadcast axes)\ngot      {fmt_shape(data.shape)}",
                    hint=_shape_hint(data.shape, arg.shape))
            data = fitted
        return data.astype(arg.dtype, copy=False)

    # -- teaching mode ---------------------------------------------------------------
    def compare_with_numbers(self, douts, grads):
        """Warn if the rule's gradients differ from central differences on these inputs."""
        inputs = [x.astype(np.float64) for x in self.teach_inputs]
        douts64 = [d.astype(np.float64) for d in douts]

        def loss_value():
            outs = self.recompute(*inputs)
            return sum(float(np.sum(np.asarray(o, dtype=np.float64) * d))
                       for o, d in zip(outs, douts64))
        try:
            doubled = self.check(self.run_rule([_tensor(2 * d) for d in douts]))
        except Exception:  # the rule already passed once; a second call is only a probe
            doubled = [None] * len(self.args)
        for pos, x in zip(self.tensor_positions, inputs):
            arg, name, g = self.args[pos], self.arg_names[pos], grads[pos]
            if not arg.requires_grad:
                continue
            analytical = np.zeros(arg.shape) if g is None else g.astype(np.float64)
            numerical = numerical_vjp(loss_value, x, 1e-6)
            err = np.abs(analytical - numerical)
            if not np.any(err > 1e-4 + 1e-2 * np.abs(numerical)):
                continue
            worst = np.unravel_index(int(np.argmax(err)), err.shape) if err.ndim else ()
            idx = ", ".join(str(int(i)) for i in worst)
            d2 = doubled[pos]
            why = diagnose(analytical, numerical, x, name,
                           None if d2 is None else d2.astype(np.float64))
            warn_from_user_code(TeachingWarning(message(
                f"the gradient this rule returned for '{name}' disagrees with numerical "
                f"derivatives (teaching mode checks a rule once, on its first small call).",
                where=self.name,
                line=f"{self.site_text} (the rule)" if self.rule_def is not None else False,
                values=f"at element [{idx}] of '{name}' {fmt_shape(arg.shape)}: numerical "
                f"{float(numerical[worst]):.6g}, your rule {float(analytical[worst]):.6g}"
                + (f"\n{why}" if why else ""),
                hint="check the rule against the derivative of the forward, term by term; "
                "nb.gradcheck gives the full report. Switch this check off with "
                "nb.autograd.set_teaching_mode(False) or teaching = False on the class.",
            )))
            return


def _shape_hint(got, want) -> str:
    if len(got) == len(want) and sorted(got) == sorted(want) and got != want:
        swapped = [i for i, (a, b) in enumerate(zip(got, want)) if a != b]
        axes = "height and width" if len(want) == 4 and swapped == [2, 3] else \
            "two axes (a transpose?)"
        return (f"{fmt_shape(got)} holds the same sizes as {fmt_shape(want)} in another "
                f"order: are {axes} swapped?")
    return "a gradient has the shape of the input it belongs to, not of the output."


def _is_tensor(x) -> bool:
    return isinstance(x, Tensor)


def _tensor(array):
    return _wrap(array)

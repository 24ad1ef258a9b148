"""How much gradient reaches each time step of a recurrent layer: vanishing and exploding
gradients as data.

    trace = nb.inspect.gradients_over_time(rnn, x)     # loss: the last step's output
    trace.norms["layer 0"]                             # |dL/dh_t| for t = 0 .. T-1

Backpropagation through time multiplies dL/dh_t by dh_t/dh_{t-1} once per step it goes
back.  For a tanh RNN that factor is W_hh^T diag(1 - h_t^2): with small weights it shrinks
the gradient at every step, so the first steps get almost none (the network cannot learn
what they said).  An LSTM's memory passes back through c_t = f c_{t-1} + ..., a factor f
per step, which the forget gate can hold near 1.

The layer runs its step-by-step loop (each h_t a tensor of the graph), the gradients are
computed as nb.autograd.grad would, and no ``.grad`` of the model is touched.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import context
from ..errors import InputError, message
from ..tensor import Tensor, gradients
from .shapes import check_model


@dataclass(frozen=True)
class TimeGradients:
    """The norm of dL/dh_t per recurrent layer and direction, in time order.

    ``norms`` maps a name ('layer 0', 'layer 1 reverse', prefixed by the module's path
    inside a bigger model: 'encoder: layer 0') to a tuple of floats, one per time step:
    the Frobenius norm over the batch and the hidden units.
    """

    model: str
    loss: str
    norms: dict

    def ratio(self, name: str | None = None) -> float:
        """|dL/dh_0| / |dL/dh_{T-1}|: far below 1 when the gradient vanishes over time."""
        values = self.norms[name if name is not None else next(iter(self.norms))]
        return values[0] / values[-1] if values[-1] else float("inf")

    def __str__(self):
        lines = [f"gradient norm per time step, {self.model}, loss: {self.loss}"]
        for name, values in self.norms.items():
            lines.append(f"  {name}: " + " ".join(f"{v:.3g}" for v in values))
        return "\n".join(lines)


class _StepCollector(context.Observer):
    """Keeps each h_t the recurrent layers compute, by module and layer-and-direction."""

    def __init__(self, paths: dict):
        self.paths = paths
        self.states: dict = {}   # name -> {t: h_t}

    def recurrent_step(self, module, index, t, h):
        directions = 2 if getattr(module, "bidirectional", False) else 1
        name = f"layer {index // directions}" + (" reverse" if index % directions else "")
        path = self.paths.get(id(module), "")
        self.states.setdefault(f"{path}: {name}" if path else name, {})[t] = h


def _last_step_loss(model, output):
    """The default loss: the sum of a recurrent layer's output at its last step (for a
    packed batch, at each sequence's own last step)."""
    from ..nn.utils.rnn import PackedSequence, pad_packed_sequence

    out = output[0] if isinstance(output, tuple) else output
    if isinstance(out, PackedSequence):
        padded, lengths = pad_packed_sequence(out)             # (T, B, D·H)
        return padded[np.asarray(lengths) - 1, np.arange(len(lengths))].sum()
    time_dim = 1 if getattr(model, "batch_first", False) and out.ndim == 3 else 0
    return out.select(time_dim, -1).sum()


def gradients_over_time(model, input, loss_fn=None, hx=None) -> TimeGradients:
    """Run ``model(input)`` (or ``model(input, hx)``), take ``loss_fn(output)`` and record
    |dL/dh_t| for every step of every recurrent layer inside.

    Without ``loss_fn``, the model must be a recurrent layer and the loss is the sum of its
    output at the last step: the gradient then starts at the end and travels back in time.
    """
    check_model(model, "nb.inspect.gradients_over_time")
    from ..nn.layers.recurrent import RNNBase  # the layers load only when inspected

    if loss_fn is None and not isinstance(model, RNNBase):
        raise InputError(message(
            f"needs a loss_fn for a {type(model).__name__}: it knows where the time steps "
            "are only for an RNN, LSTM or GRU itself.", where="nb.inspect.gradients_over_time",
            hint="pass loss_fn=lambda out: criterion(out, target), a function of the model's "
            "output that returns a scalar."))
    paths = {id(m): p for p, m in model.named_modules()}
    collector = _StepCollector(paths)
    with context.enable_grad(), context.watching(collector):
        output = model(input) if hx is None else model(input, hx)
    loss = (loss_fn or (lambda out: _last_step_loss(model, out)))(output)
    if not isinstance(loss, Tensor) or loss.numel() != 1:
        raise InputError(message(
            "loss_fn must return a scalar tensor.", where="nb.inspect.gradients_over_time",
            hint="reduce the loss to one number, e.g. with .sum() or .mean()."))
    if not collector.states:
        raise InputError(message(
            f"{type(model).__name__} ran no recurrent layer (nn.RNN, nn.LSTM, nn.GRU).",
            where="nb.inspect.gradients_over_time",
            hint="pass a model with a recurrent layer inside; a cell called in a loop of "
            "your own can be followed with h.retain_grad() instead."))
    kept = [h for steps in collector.states.values() for h in steps.values()]
    found = gradients([loss], [None], retain_graph=False, capture=kept,
                      where="nb.inspect.gradients_over_time")
    norms = {}
    for name, steps in collector.states.items():
        norms[name] = tuple(
            float(np.linalg.norm(found[id(h)][1])) if id(h) in found and
            found[id(h)][1] is not None else 0.0 for _, h in sorted(steps.items()))
    loss_text = "the last step's output, summed" if loss_fn is None else \
        getattr(loss_fn, "__name__", "loss_fn")
    return TimeGradients(type(model).__name__, loss_text, norms)

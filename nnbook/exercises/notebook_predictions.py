"""The predictions the notebooks ask for, each with the computation that answers it.

Every truth is computed by running nnbook: on the numbers the notebook's text gives (a
neuron's weights, the matrix G), or on what the notebook hands over (its model, its model
builder, its data), so that the answer follows the notebook's code.
"""
from __future__ import annotations

import math

import numpy as np

from .. import nn
from ..context import no_grad
from ..creation import tensor
from ..inspect import GradientHistory, infer_shapes
from ..inspect.flow import zone_of
from ..nn import functional as F
from .harness import _seeded
from .predictions import Prediction, Unreadable, as_array, as_bool, as_mapping, as_number, near

# -- 03_autograd ------------------------------------------------------------------------------


def _neuron_gradient(local=None, factor=2.0):
    """dL/db for sigmoid((w . x) + b) against t (section 1's w, b, x, t). ``local``
    replaces the sigmoid's local derivative y (1 - y), to compute a slip's answer."""
    w = tensor([0.5, 0.25], dtype=np.float64)
    b = tensor(-0.5, dtype=np.float64, requires_grad=True)
    x, t = tensor([1.0, 2.0], dtype=np.float64), tensor(1.0, dtype=np.float64)
    y = ((w * x).sum() + b).sigmoid()
    if local is None:
        ((y - t) ** 2).backward()
        return b.grad.item()
    y = y.item()
    return factor * (y - t.item()) * local(y)


def _judge_neuron(answer, right):
    mine = as_number(answer)
    if near(mine, right):
        return None
    slips = [
        (_neuron_gradient(lambda y: 1.0), "that is dL/dy = 2 (y - t): the sigmoid's local "
         "derivative y (1 - y) is still to be multiplied in"),
        (_neuron_gradient(lambda y: 1 - y * y), "that uses tanh's local derivative 1 - y²; the "
         "sigmoid's is y (1 - y)"),
        (_neuron_gradient(lambda y: y * (1 - y), factor=1.0), "the 2 of the square (y - t)² "
         "is missing: dL/dy = 2 (y - t)"),
        (-right, "the sign is the wrong way round: y < t, so increasing b lowers the loss"),
        (2 * right, "that is dL/dw₂ = x₂ · dL/db; b's input is 1"),
    ]
    why = next((text for value, text in slips if near(mine, value)), "go through the chain "
               "rule once more: dL/db = 2 (y - t) · y (1 - y) · 1")
    return (f"you predicted {mine:.4g}; autograd gives dL/db = {right:.4f}",
            f"{why}. With y = σ(0.5) = {1 / (1 + math.exp(-0.5)):.4f}.")


# section 5's G: the gradient each sample sends back, L = sum(G * out)
_G = [[1.0, 0.0, 2.0], [0.0, 1.0, 2.0], [1.0, 1.0, 2.0], [0.0, 0.0, 2.0]]


def _bias_rows_gradient():
    X = tensor(np.zeros((4, 3)))  # the values of X do not enter the gradient
    bias_rows = tensor(np.zeros((4, 1)), requires_grad=True)
    ((X + bias_rows) * tensor(_G, dtype=np.float64)).sum().backward()
    return bias_rows.grad.numpy()


def _judge_bias_rows(answer, right):
    mine, G = as_array(answer), np.array(_G)
    if mine.shape == right.shape and np.allclose(mine, right):
        return None
    shown = f"bias_rows.grad is {right.ravel().tolist()} as a column, shape {right.shape}"
    if mine.size == right.size and np.allclose(mine.ravel(), right.ravel()):
        why = (f"the numbers are right, the shape {mine.shape} is not: a gradient has its "
               f"tensor's shape, here (4, 1)")
    elif mine.shape == (3,) and np.allclose(mine, G.sum(axis=0)):
        why = ("that is the sum over the rows, section 5's (3,) bias; a (4, 1) bias is "
               "stretched across the 3 columns, so sum each row of G")
    elif mine.shape == G.shape and np.allclose(mine, G):
        why = "that is G itself: every stretched copy sends its share back, so add them up"
    else:
        why = "the gradient of a broadcast tensor is G summed along the axis it was stretched"
    return f"you predicted {mine.tolist()}; {shown}", why + "."


def _slope_runs():
    """lr -> (the slope after section 8's 12 steps, the factor by which one step
    multiplies the distance to 2)."""
    xs, ys = tensor([1.0, 2.0, 3.0], dtype=np.float64), tensor([2.0, 4.0, 6.0], dtype=np.float64)
    runs = {}
    for lr in (0.15, 0.25):
        slope = tensor(0.0, dtype=np.float64, requires_grad=True)
        path = [0.0]
        for _ in range(12):
            slope.grad = None
            ((slope * xs - ys) ** 2).mean().backward()
            with no_grad():
                slope -= lr * slope.grad
            path.append(slope.item())
        runs[lr] = (path[-1], (path[1] - 2) / (path[0] - 2))
    return runs


def _judge_slope(answer, runs):
    mine = as_mapping(answer, list(runs), "{0.15: True or False, 0.25: True or False}")
    wrong = [lr for lr, (end, _) in runs.items()
             if as_bool(mine[lr], f"lr = {lr}") != (abs(end - 2) < 0.01)]
    if not wrong:
        return None
    lines = [f"lr = {lr}: each step multiplies the distance to 2 by {factor:.2f}, "
             f"so after 12 steps the slope is {end:.4g}" for lr, (end, factor) in runs.items()]
    return (f"not for lr = {', '.join(str(lr) for lr in wrong)}",
            "\n".join(lines) + "\na factor between -1 and 1 shrinks the distance (a negative "
            "one jumps past 2 at every step); beyond -1 every jump is larger than the last.")


# -- 04_modules_and_names ---------------------------------------------------------------------

def _judge_names(answer, right):
    if not isinstance(answer, (list, tuple)) or not all(isinstance(n, str) for n in answer):
        raise Unreadable("a list of names (strings) belongs here")
    mine = list(answer)
    if mine == right:
        return None
    if sorted(mine) == sorted(right):
        return (f"the right names in another order: named_parameters() gives {right}",
                "it lists parameters in the order the layers were assigned, depth first.")
    notes = []
    missing, extra = [n for n in right if n not in mine], [n for n in mine if n not in right]
    if any(n.startswith("1.0.") for n in extra):
        notes.append("the ReLU (1.0) has no parameters, so it gives no names")
    if any(n.count(".") == 1 and n.startswith("1.") for n in extra):
        notes.append("the Linear inside the inner Sequential is item 1 of item 1: 1.1")
    if any(n.endswith((".weight", ".bias")) and n.startswith("2.") for n in extra):
        notes.append("Neuron named its own parameters w and b")
    return (f"named_parameters() gives {right}; missing from yours: {missing or 'none'}, "
            f"not in it: {extra or 'none'}",
            "; ".join(notes or ["each name is the path of attributes (list items by number) "
                                "down to the parameter"]) + ".")


# -- 05_custom_backward -------------------------------------------------------------------------

class _SwappedRule(nn.Module):
    # z = 2x + y, with the two gradients returned the wrong way round
    teaching = False

    def forward(self, x, y):
        return 2 * x + y

    def bprop(self, x, y, out, dout):
        return dout, 2 * dout


def _swapped_factors():
    """input -> (the rule's gradient) / (the right one), measured on random inputs."""
    rng = np.random.default_rng(5)
    a, b = (tensor(rng.standard_normal((3, 2)), requires_grad=True) for _ in range(2))
    _SwappedRule()(a, b).sum().backward()
    a2, b2 = (tensor(t.detach().numpy(), requires_grad=True) for t in (a, b))
    (2 * a2 + b2).sum().backward()  # nnbook's own rules: the right gradients
    return {"x": float(np.mean(a.grad.numpy() / a2.grad.numpy())),
            "y": float(np.mean(b.grad.numpy() / b2.grad.numpy()))}


def _judge_swapped(answer, right):
    mine = as_mapping(answer, list(right), '{"x": factor, "y": factor}')
    mine = {k: as_number(v) for k, v in mine.items()}
    if all(near(mine[k], right[k], 1e-6, 1e-9) for k in right):
        return None
    upside = all(near(mine[k], 1 / right[k], 1e-6, 1e-9) for k in right)
    why = ("the factor is the rule's gradient divided by the right one, not the other way "
           "round" if upside else
           "both are wrong: the rule returns dout for x (the right one is 2 dout) and 2 dout "
           "for y (the right one is dout)")
    shown = ", ".join(f"{k}: {v:g}" for k, v in right.items())
    return f"gradcheck finds {{{shown}}}", why + "."


# -- 07_shapes_and_convolution -----------------------------------------------------------------

_SHAPES = {"16x8": (10, 3, 16, 8), "18x10": (10, 3, 18, 10)}


def _with_pool(build, pool):
    """build() with its one MaxPool2d replaced by ``pool``."""
    model = build()
    path = next(p for p, m in model.named_modules() if isinstance(m, nn.MaxPool2d))
    *parents, last = path.split(".")
    parent = model
    for part in parents:
        parent = parent[int(part)] if part.isdigit() else getattr(parent, part)
    parent[int(last)] = pool
    return model


def _pool_fits(build):
    """input -> (fits, the first line of the error) with MaxPool2d(2, 2) as the pool."""
    model = _with_pool(build, nn.MaxPool2d(2, 2))
    found = {}
    for key, shape in _SHAPES.items():
        trace = infer_shapes(model, shape)
        found[key] = (trace.ok, "" if trace.ok else str(trace.error).split("\n")[0])
    return found


def _judge_pool(answer, found):
    mine = as_mapping(answer, list(found), '{"16x8": True or False, "18x10": True or False}')
    wrong = [k for k, (fits, _) in found.items() if as_bool(mine[k], k) != fits]
    if not wrong:
        return None
    lines = [f"{k}: " + ("fits" if fits else f"does not fit: {error}")
             for k, (fits, error) in found.items()]
    return (f"not for {', '.join(wrong)}",
            "\n".join(lines) + "\nthe skip path (1×1, stride 2) rounds H / 2 up, MaxPool2d(2, 2) "
            "rounds it down: they agree only when the size before them is even.")


def _keeping_padding():
    """(height, width) padding that keeps a 9×5 input at 9×5 through a 3×3 kernel with
    dilation 2, found by trying paddings with nb.infer_shapes."""
    return tuple(min(p for p in range(10) if _conv_out((p, p))[axis] == (9, 5)[axis])
                 for axis in (0, 1))


def _conv_out(padding):
    conv = nn.Conv2d(1, 1, 3, dilation=2, padding=padding)
    return infer_shapes(conv, (1, 1, 9, 5)).output_shape[2:]


def _judge_padding(answer, right):
    if isinstance(answer, (int, np.integer)) and not isinstance(answer, bool):
        answer = (answer, answer)
    if not (isinstance(answer, (tuple, list)) and len(answer) == 2 and
            all(isinstance(p, (int, np.integer)) and p >= 0 for p in answer)):
        raise Unreadable("a padding (height, width) of whole numbers belongs here, e.g. (1, 1)")
    mine = tuple(int(p) for p in answer)
    if mine == right:
        return None
    out = _conv_out(mine)
    return (f"padding {mine} gives {out[0]}×{out[1]}, not 9×5",
            f"output = floor((H + 2p - d (k - 1) - 1) / s) + 1; with k = 3, d = 2, s = 1 it "
            f"keeps H when 2p = d (k - 1) = 4, so the padding is {right}.")


# -- 08_gradient_flow ----------------------------------------------------------------------------

def _first_step_norms(make_mlp, x, y, activation, **kwargs):
    """Linear weights' gradient norms after one backward, first layer first, as the
    notebook's cells measure them (nb.manual_seed(0) before building)."""
    with _seeded(0):
        model = make_mlp(activation, **kwargs)
    F.cross_entropy(model(x), y).backward()
    return [float(np.linalg.norm(p.grad.numpy())) for _, p in model.named_parameters()
            if len(p.shape) == 2]


def _depth_ratios(make_mlp, x, y):
    ratios = {}
    for depth in (4, 12):
        norms = _first_step_norms(make_mlp, x, y, nn.Sigmoid, depth=depth)
        ratios[depth] = norms[0] / norms[-1]
    return ratios


def _judge_ratios(answer, right):
    mine = as_mapping(answer, list(right), "{4: ratio, 12: ratio}")
    mine = {k: as_number(v) for k, v in mine.items()}
    off = [k for k in right if not (mine[k] > 0 and abs(math.log10(mine[k] / right[k])) <= 1)]
    if not off:
        return None
    lines = [f"{d} hidden layers: {r:.1e}, about {r ** (1 / (d - 1)):.2f} per layer "
             f"over {d - 1} steps" for d, r in right.items()]
    return (f"more than a factor of 10 away for depth {', '.join(map(str, off))}",
            "\n".join(lines) + "\nevery extra layer multiplies the gradient by another factor "
            "of about 0.15: it vanishes exponentially with depth.")


def _tanh_run(make_mlp, train):
    """The notebook's tanh network with the default initialisation, trained as it is:
    does a first-step gradient reach the vanishing zone, does the loss at least halve?"""
    with _seeded(0):
        model = make_mlp(nn.Tanh, init=None)
        history = GradientHistory(model)
        curve = train(model, history)
    norms = [s.norm for s in history.stats[0] if len(s.shape) == 2]
    return {"vanishes": any(zone_of(n) == "vanishing" for n in norms),
            "learns": curve[-1] <= curve[0] / 2,
            "norms": (min(norms), max(norms)), "loss": (curve[0], curve[-1])}


def _judge_tanh(answer, run):
    mine = as_mapping(answer, ["vanishes", "learns"], '{"vanishes": ..., "learns": ...}')
    mine = {k: as_bool(v, k) for k, v in mine.items()}
    wrong = [k for k in ("vanishes", "learns") if mine[k] != run[k]]
    if not wrong:
        return None
    (low, high), (first, last) = run["norms"], run["loss"]
    return (f"not quite: {' and '.join(wrong)}",
            f"the first step's gradient norms lie between {low:.0e} and {high:.0e} (the "
            "vanishing zone of nb.inspect's pictures is below 1e-5): tanh's slope near 0 is 1, "
            f"four times the sigmoid's best. But the loss only goes from {first:.2f} to "
            f"{last:.2f}: every layer still multiplies the gradient by the default weights' "
            "scale, about 0.58, so the network learns very slowly.")


# -- 09_training_a_cnn --------------------------------------------------------------------------

def _one_round_size(make_cnn):
    """in_features of the Linear layer once the second Conv2d, ReLU and MaxPool2d are gone."""
    layers = list(make_cnn())
    second = [i for i, m in enumerate(layers) if isinstance(m, nn.Conv2d)][1]
    kept = layers[:second] + layers[second + 3:-1]  # up to the Flatten, without the Linear
    out = infer_shapes(nn.Sequential(*kept), (1, 1, 8, 8)).output_shape
    return int(out[1])


def _judge_size(answer, right):
    mine = as_number(answer)
    if mine == right:
        return None
    return (f"the Flatten now gives {right} numbers, not {mine:g}",
            f"after one round of Conv2d(1, 8, 3, padding=1) and MaxPool2d(2) the image is 8 "
            f"feature maps of 4×4: 8 · 4 · 4 = {right}.")


def _failing_layer(make_cnn):
    trace = infer_shapes(make_cnn(), (1, 1, 12, 12))
    return (None, "") if trace.ok else (trace.steps[-1].path, str(trace.error).split("\n")[0])


def _judge_layer(answer, right):
    path, error = right
    if path is None:
        return ("your make_cnn already fits a 12×12 input",
                "this question is about the notebook's make_cnn, as it was before any change.")
    if str(answer) == path:
        return None
    return (f"the first layer that no longer fits is {path}", f"{error}")


PREDICTIONS = {p.id: p for p in (
    Prediction("sigmoid-neuron", "03_autograd", 1, "a sigmoid neuron",
               "dL/db, a number such as -0.25", (), _neuron_gradient, _judge_neuron,
               lambda v: f"dL/db = {v:.4f}, as autograd finds"),
    Prediction("broadcast-rows", "03_autograd", 2, "broadcasting the other way",
               "bias_rows.grad, as nested lists such as [[1], [2], [3], [4]]", (),
               _bias_rows_gradient, _judge_bias_rows,
               lambda v: f"bias_rows.grad is G summed along each row: {v.ravel().tolist()}, "
               "shape (4, 1)"),
    Prediction("too-large-step", "03_autograd", 3, "too large a step",
               "{0.15: True or False, 0.25: True or False}, whether the slope still reaches 2", (),
               _slope_runs, _judge_slope,
               lambda runs: "; ".join(f"lr = {lr}: the slope ends at {end:.4g}"
                                      for lr, (end, _) in runs.items())),
    Prediction("module-names", "04_modules_and_names", 1, "predict the names",
               "the list of names, such as ['0.weight', ...]", ("quiz",),
               lambda model: [n for n, _ in model.named_parameters()], _judge_names,
               lambda names: f"named_parameters() gives {names}"),
    Prediction("swapped-gradients", "05_custom_backward", 1, "swap the two gradients",
               '{"x": factor, "y": factor}, each the rule\'s gradient divided by the right '
               "one (1 where it is right)", (), _swapped_factors, _judge_swapped,
               lambda f: "gradcheck calls both wrong: " +
               ", ".join(f"'{k}' {v:g} times the right one" for k, v in f.items())),
    Prediction("pool-fits", "07_shapes_and_convolution", 1, "a different pooling",
               '{"16x8": True or False, "18x10": True or False}, whether the model still fits '
               "together with MaxPool2d(2, 2)", ("xception_model",), _pool_fits, _judge_pool,
               lambda found: "; ".join(f"{k}: {'fits' if fits else 'does not fit'}"
                                       for k, (fits, _) in found.items())),
    Prediction("keep-the-size", "07_shapes_and_convolution", 2, "keep the size",
               "the padding (height, width), such as (1, 1)", (), _keeping_padding,
               _judge_padding, lambda p: f"padding {p} keeps 9×5"),
    Prediction("deeper-and-shallower", "08_gradient_flow", 1, "deeper and shallower",
               "{4: ratio, 12: ratio}, each the first layer's gradient norm divided by the "
               "last one's", ("make_mlp", "x", "y"), _depth_ratios, _judge_ratios,
               lambda r: "the right order of magnitude: " +
               ", ".join(f"{d} hidden layers {v:.1e}" for d, v in r.items())),
    Prediction("tanh", "08_gradient_flow", 2, "tanh",
               '{"vanishes": True or False, "learns": True or False} (vanishes: a gradient of '
               "the first step in the vanishing zone; learns: the loss at least halves in the "
               "100 steps)", ("make_mlp", "train"), _tanh_run, _judge_tanh,
               lambda run: f"gradients {run['norms'][0]:.0e} to {run['norms'][1]:.0e}, loss "
               f"{run['loss'][0]:.2f} -> {run['loss'][1]:.2f}"),
    Prediction("one-round", "09_training_a_cnn", 2, "one round of convolution",
               "the Linear layer's new input size, a whole number", ("make_cnn",),
               _one_round_size, _judge_size,
               lambda n: f"Linear({n}, 10): the Flatten gives {n} numbers"),
    Prediction("bigger-canvas", "09_training_a_cnn", 4, "a 12×12 canvas",
               "the path of the layer, as nb.summary numbers it, such as '3'", ("make_cnn",),
               _failing_layer, _judge_layer,
               lambda found: f"layer {found[0]} must change: {found[1]}"),
)}

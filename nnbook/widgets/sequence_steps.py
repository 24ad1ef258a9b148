"""Shape steps for sequence layers, as ShapeStepper walks them.

``nb.infer_shapes`` sees a MultiheadAttention as the ops it runs (index, linear, reshape,
permute, ...) and a recurrent layer as one step.  For teaching, both read better as the
steps of their maths:

* attention: the steps of :func:`nnbook.inspect.attention_shapes` (projections, head split,
  scores, mask, softmax, weighted sum, merge, output projection), each with its formula;
* RNN / LSTM / GRU: one time step t (x_t, the gates, c_t and h_t, layer by layer), the
  outputs stacked over time, and the final states.

Each is a plain :class:`nnbook.inspect.ShapeStep` (kind 'op'), so every drawing of shape
steps works on them; ``names`` gives the dims of each 4-D tensor ('h', 'L', 'S') for the
drawing, inputs first, then the output.
"""
from __future__ import annotations

from dataclasses import replace

from ..errors import NnbookError, fmt_shape
from ..inspect.attention import AttentionShapes, attention_shapes
from ..inspect.shapes import ShapeStep, ShapeTrace, infer_shapes

ATTENTION = "MultiheadAttention"
BOX = ("C", "H", "W")


# -- attention ---------------------------------------------------------------------------------

def _attention_inputs(name: str, sizes: dict, query_shape: tuple) -> tuple:
    """(input shapes, dim names of inputs + output) of one attention step."""
    n, length, source, e, h, d = (sizes[k] for k in ("N", "L", "S", "E", "h", "d"))
    hld, hsd, hds, hls = ("h", "L", "d"), ("h", "S", "d"), ("h", "d", "S"), ("h", "L", "S")
    table = {
        "batch first": ((tuple(query_shape),), ()),
        "query projection": (((n, length, e),), ()),
        "key projection": (((n, source, sizes["E_k"]),), ()),
        "value projection": (((n, source, sizes["E_v"]),), ()),
        "split heads (query)": (((n, length, e),), (None, hld)),
        "split heads (key)": (((n, source, e),), (None, hsd)),
        "split heads (value)": (((n, source, e),), (None, hsd)),
        "scores": (((n, h, length, d), (n, h, d, source)), (hld, hds, hls)),
        "softmax": (((n, h, length, source),), (hls, hls)),
        "weighted sum": (((n, h, length, source), (n, h, source, d)), (hls, hsd, hld)),
        "merge heads": (((n, h, length, d),), (hld, None)),
        "output projection": (((n, length, e),), ()),
        "time first": (((n, length, e),), ()),
        "weights returned": (((n, h, length, source),), (hls, hls)),
    }
    if name.startswith("mask"):
        return ((n, h, length, source),), (hls, hls)
    return table[name]


def attention_steps(shapes: AttentionShapes, query_shape: tuple, path: str = "",
                    first_index: int = 0, depth: int = 0) -> tuple:
    """The steps of an AttentionShapes record as ShapeSteps, and their dim names."""
    steps, names = [], []
    for k, s in enumerate(shapes.steps):
        inputs, dims = _attention_inputs(s.name, shapes.sizes, query_shape)
        formula = (s.formula,) if s.numbers == s.formula else (s.formula, f"= {s.numbers}")
        steps.append(ShapeStep(index=first_index + k, path=path, layer=s.name,
                               input_shapes=inputs, output_shape=tuple(s.shape),
                               formula=formula, depth=depth, kind="op", container=ATTENTION))
        names.append(tuple(dim or BOX for dim in dims) if dims else None)
    return steps, names


def trace_of_attention(shapes: AttentionShapes, query_shape=None) -> tuple:
    """A ShapeTrace walking one AttentionShapes record, and its dim names."""
    sizes = shapes.sizes
    if query_shape is None:  # what the first step takes: (N, L, E) or (L, N, E)
        first = shapes.steps[0]
        query_shape = ((sizes["L"], sizes["N"], sizes["E"]) if first.name == "batch first"
                       else (sizes["N"], sizes["L"], sizes["E"]))
    steps, names = attention_steps(shapes, query_shape)
    output = [s for s in steps if s.layer != "weights returned"][-1].output_shape
    trace = ShapeTrace(model=shapes.layer, input_shapes=(tuple(query_shape),),
                       steps=tuple(steps), output_shape=output)
    return trace, names


# -- recurrent layers ------------------------------------------------------------------------------

def _layer_steps(add, module, layer, lead, n_in, sizes) -> None:
    """The steps of one recurrent layer at time t: its gates, its cell, its h_t."""
    size, out, gates, kind, each = sizes
    h_prev = lead + (out,)
    g = f"{gates}·{size}" if gates > 1 else f"{size}"
    weights = (f"x_t {fmt_shape(lead + (n_in,))} @ W_ih^T ({n_in}, {g}) + h_{{t-1}} "
               f"{fmt_shape(h_prev)} @ W_hh^T ({out}, {g}) + biases")
    if kind == "RNN":
        add(f"layer {layer}: h_t{each}", [lead + (n_in,), h_prev], lead + (size,),
            f"h_t = {module.nonlinearity}({weights})", f"-> h_t {fmt_shape(lead + (size,))}")
    else:
        add(f"layer {layer}: gates{each}", [lead + (n_in,), h_prev],
            lead + (gates * size,), weights,
            f"-> gates {fmt_shape(lead + (gates * size,))}: "
            + ("i, f, g, o" if kind == "LSTM" else "r, z, n") + f", each {size} wide")
        if kind == "LSTM":
            c = lead + (size,)
            add(f"layer {layer}: c_t{each}", [lead + (gates * size,), c], c,
                "c_t = sigmoid(f)·c_{t-1} + sigmoid(i)·tanh(g)",
                f"-> c_t {fmt_shape(c)}: the cell's memory")
            add(f"layer {layer}: h_t{each}", [lead + (gates * size,), c], lead + (out,),
                "h_t = sigmoid(o)·tanh(c_t)" + (f" @ W_hr^T ({size}, {out})"
                                                if module.proj_size else ""),
                f"-> h_t {fmt_shape(lead + (out,))}")
        else:
            add(f"layer {layer}: h_t{each}", [lead + (gates * size,), h_prev],
                lead + (size,), "n = tanh(x-part of n + r·(h-part of n))",
                f"h_t = (1 - z)·n + z·h_{{t-1}} -> {fmt_shape(lead + (size,))}")


def recurrent_steps(module, step: ShapeStep) -> tuple:
    """One time step of an RNN / LSTM / GRU, then the stacked output and the final states."""
    x = tuple(step.input_shapes[0])
    batched = len(x) == 3
    if module.batch_first and batched:
        lead, steps_count, features = (x[0],), x[1], x[2]
    else:
        lead, steps_count, features = ((x[1],) if batched else ()), x[0], x[-1]
    size, out = module.hidden_size, module.proj_size or module.hidden_size
    dirs = 2 if module.bidirectional else 1
    gates = {"LSTM": 4, "GRU": 3}.get(module.mode, 1)
    kind = module.mode if module.mode in ("LSTM", "GRU") else "RNN"
    each = " (each direction)" if dirs == 2 else ""
    made = []

    def add(layer, inputs, output, *formula):
        made.append((layer, tuple(inputs), tuple(output), tuple(formula)))

    pick = "input[:, t]" if module.batch_first and batched else "input[t]"
    add("time step t", [x], lead + (features,), step.formula[0] if step.formula else "",
        f"x_t = {pick} for t = 0 .. {steps_count - 1}, the same shapes at every t")
    n_in = features
    for layer in range(module.num_layers):
        _layer_steps(add, module, layer, lead, n_in, (size, out, gates, kind, each))
        n_in = dirs * out
    stacked = ((x[0], x[1], dirs * out) if batched else (x[0], dirs * out))
    order = ("(B, T, dirs·H)" if module.batch_first else "(T, B, dirs·H)") if batched \
        else "(T, dirs·H)"
    both = ", both directions side by side" if dirs == 2 else ""
    add("output over time", [lead + (dirs * out,)], stacked,
        f"output = the last layer's h_t for every t{both}",
        f"{order} = {fmt_shape(stacked)}")
    states = (module.num_layers * dirs,) + lead
    add("final h_n", [lead + (out,)], states + (out,),
        "h_n = h at the last step, of every layer and direction",
        f"(num_layers·dirs, {'B, ' if batched else ''}H) = {fmt_shape(states + (out,))}")
    if kind == "LSTM":
        add("final c_n", [lead + (size,)], states + (size,),
            "c_n = c at the last step, of every layer and direction",
            f"(num_layers·dirs, {'B, ' if batched else ''}H) = {fmt_shape(states + (size,))}")
    return [ShapeStep(index=0, path=step.path, layer=layer, input_shapes=inputs,
                      output_shape=output, formula=formula, depth=step.depth, kind="op",
                      container=step.layer)
            for layer, inputs, output, formula in made]


# -- a whole model ---------------------------------------------------------------------------------

def _attention_calls(model, input_shape) -> tuple:
    """infer_shapes, and for each MultiheadAttention call: (path, shapes of q k v, options)."""
    from ..nn.layers.attention import MultiheadAttention

    calls, handles = [], []

    def watch(path):
        def hook(module, args, kwargs):
            names = ("query", "key", "value")
            tensors = list(args[:3]) + [kwargs.get(n) for n in names[len(args[:3]):]]
            mask = [m for m in ("attn_mask", "key_padding_mask") if kwargs.get(m) is not None]
            calls.append((path, tuple(tuple(t.shape) for t in tensors if t is not None), {
                "mask": "both" if len(mask) == 2 else (mask[0] if mask else None),
                "need_weights": kwargs.get("need_weights", True),
                "average_attn_weights": kwargs.get("average_attn_weights", True)}))
        return hook

    for path, module in model.named_modules():
        if isinstance(module, MultiheadAttention):
            handles.append(module.register_forward_pre_hook(watch(path), with_kwargs=True))
    try:
        trace = infer_shapes(model, input_shape)
    finally:  # the model is left as it came, whatever happened
        for handle in handles:
            handle.remove()
    return trace, calls


def _inside(step: ShapeStep, path: str) -> bool:
    """Does ``step`` belong to the attention layer at ``path``?"""
    if step.failed:
        return False
    if step.path == path and step.container == ATTENTION:
        return True
    return step.path.startswith(path + ".") if path else step.kind == "layer" and \
        step.path != ""


def expand_trace(model, input_shape) -> tuple:
    """A ShapeTrace of ``model`` with attention and recurrent layers expanded into their
    steps, and the dim names of each step (None: the usual C, H, W)."""
    from ..nn.layers.recurrent import RNNBase

    trace, calls = _attention_calls(model, input_shape)
    modules = dict(model.named_modules())
    steps, names, i = [], [], 0
    call_iter = iter(calls)
    source = list(trace.steps)
    while i < len(source):
        step = source[i]
        module = modules.get(step.path)
        if step.container == ATTENTION and not step.failed:
            path, shapes, options = next(call_iter, (None, None, None))
            if path is None or path != step.path:
                return trace, [None] * len(trace.steps)   # not what we expected: as traced
            j = i
            while j < len(source) and _inside(source[j], path):
                j += 1
            try:
                record = attention_shapes(modules[path], *shapes, **options)
            except NnbookError:  # the layer fails on these shapes: show its ops as traced
                steps += source[i:j]
                names += [None] * (j - i)
                i = j
                continue
            more, dims = attention_steps(record, shapes[0], path, depth=step.depth)
            steps += more
            names += dims
            i = j
            continue
        # a layer that read a packed batch says so in its formula; its steps have no one
        # shape (b_t rows at step t), so it stays one step, with that formula
        packed = bool(step.formula) and step.formula[0].startswith("input packed")
        if isinstance(module, RNNBase) and step.kind == "layer" and not step.failed \
                and not packed:
            more = recurrent_steps(module, step)
            steps += more
            names += [None] * len(more)
        else:
            steps.append(step)
            names.append(None)
        i += 1
    steps = [replace(s, index=k) for k, s in enumerate(steps)]
    expanded = replace(trace, steps=tuple(steps))
    return expanded, names


# -- the parameters an expanded step uses ----------------------------------------------------------

def step_parameters(model, step: ShapeStep):
    """[(name, shape, count, trainable), ...] an expanded sequence step uses, or None when
    ``step`` is not one (then the layer's own parameters are listed)."""
    if step.kind != "op" or not step.container:
        return None
    try:
        module = model.get_submodule(step.path)
    except Exception:  # a model changed after tracing: show none rather than fail
        return []
    if step.container == ATTENTION:
        return _attention_parameters(module, step.layer)
    if step.container in ("RNN", "LSTM", "GRU") and step.layer.startswith("layer "):
        layer = step.layer.split(":")[0].split()[1]
        if ": gates" in step.layer or step.container == "RNN":
            names = ("weight_ih", "weight_hh", "bias_ih", "bias_hh")
        elif ": h_t" in step.layer and getattr(module, "proj_size", 0):
            names = ("weight_hr",)
        else:
            return []
        suffixes = ("", "_reverse") if module.bidirectional else ("",)
        return [_row(f"{n}_l{layer}{s}", getattr(module, f"{n}_l{layer}{s}"))
                for s in suffixes for n in names
                if getattr(module, f"{n}_l{layer}{s}", None) is not None]
    return None


def _row(name, p, rows=None):
    shape = tuple(p.shape) if rows is None else (rows[1] - rows[0],) + tuple(p.shape[1:])
    count = 1
    for s in shape:
        count *= s
    label = name if rows is None else f"{name}[{rows[0]}:{rows[1]}]"
    return label, shape, count, p.requires_grad


def _attention_parameters(mha, name: str) -> list:
    e = mha.embed_dim
    if name == "output projection":
        return [_row(f"out_proj.{n}", p) for n, p in mha.out_proj.named_parameters()]
    which = {"query projection": 0, "key projection": 1, "value projection": 2}.get(name)
    if which is None:
        return []
    rows = (which * e, (which + 1) * e)
    found = []
    if mha.in_proj_weight is not None:
        found.append(_row("in_proj_weight", mha.in_proj_weight, rows))
    else:
        attr = ("q", "k", "v")[which] + "_proj_weight"
        found.append(_row(attr, getattr(mha, attr)))
    if mha.in_proj_bias is not None:
        found.append(_row("in_proj_bias", mha.in_proj_bias, rows))
    return found

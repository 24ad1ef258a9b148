"""nnbook and PyTorch: the one table of every deliberate difference.

``docs/pytorch.md`` is rendered from this module (by ``tools/pytorch_doc.py``) and a
test renders it again and compares, so the page cannot drift from the code.  A new
difference goes here, with what PyTorch does, what nnbook does and why.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Difference:
    area: str
    pytorch: str
    nnbook: str
    why: str


PORTING = """\
import nnbook as torch
import nnbook.nn as nn
import nnbook.nn.functional as F
import nnbook.optim as optim
from nnbook.utils.data import DataLoader, Dataset, TensorDataset"""

RUNS_UNCHANGED = [
    "making tensors (`tensor`, `zeros`, `randn`, `arange`...), their dtypes and PyTorch's "
    "type promotion, indexing, broadcasting, and the tensor methods and functions of the "
    "same name",
    "autograd: `requires_grad`, `backward()`, `.grad`, `no_grad()`, `detach()`, `.data`, "
    "hooks, `retain_grad()`, `autograd.grad`, custom `autograd.Function`s and `gradcheck`",
    "`nn.Module` (parameters and buffers registered by assignment, the same `state_dict` "
    "keys, `train()`/`eval()`, `to()`), the layers, losses and `nn.init` functions nnbook has, "
    "with PyTorch's arguments, defaults and initialisation",
    "the optimizers nnbook has, with PyTorch's update rules, parameter groups and state dicts",
    "data loading: `Dataset`, `TensorDataset`, `random_split`, `DataLoader` (batching, "
    "shuffling, samplers, `collate_fn`, `default_collate`'s rules)",
    "the device line (`device = 'cuda' if torch.cuda.is_available() else 'cpu'`), "
    "`torch.backends.mps.is_available()`, `torch.accelerator`, and the lines of an AMP or "
    "`torch.compile` script: they run here on the CPU, in float32",
]

DIFFERENCES = [
    # -- tensors -----------------------------------------------------------------------
    Difference("tensors", "`torch.empty`, `empty_like` and the legacy `torch.Tensor(2, 3)` "
               "return uninitialised memory", "they return zeros",
               "a forgotten fill shows as zeros, not as random noise that changes between runs"),
    Difference("tensors", "`torch.manual_seed(0)` then `torch.randn(3)` gives PyTorch's "
               "numbers", "the same seed gives other numbers (numpy's PCG64 generator), the "
               "same on every machine", "nnbook draws with numpy; compare results, not "
               "random draws"),
    Difference("tensors", "`str(torch.float32)` is `'torch.float32'`; a tensor prints "
               "`dtype=torch.float64`", "`str(nb.float32)` is `'float32'`, `repr` is "
               "`nnbook.float32`; a tensor prints `dtype=nnbook.float64`",
               "messages read shorter; the repr still says which library"),
    Difference("tensors", "`x.shape` and `x.size()` are a `torch.Size`, printed "
               "`torch.Size([2, 3])`", "they are plain tuples, printed `(2, 3)`; "
               "`nb.Size` exists for code that builds one, so `x.shape.numel()` must be "
               "`x.numel()`", "shapes read as in nnbook's messages, and reading a shape costs "
               "nothing in every op"),
    Difference("tensors", "`np.asarray(t)` raises for a tensor that requires grad",
               "`np.asarray(t)` works (a parameter plots directly); `t.numpy()` still raises "
               "as in PyTorch", "numpy and matplotlib code can read parameters; `.numpy()` "
               "keeps PyTorch's guard"),
    Difference("tensors", "`f'{t:.3f}'` formats a 0-d tensor, other tensors raise a bare "
               "TypeError", "the same, and a 0-d Parameter formats too; the error says "
               "how to format one element", "a loss or a parameter prints in an f-string"),
    Difference("tensors", "`torch.bfloat16` tensors exist", "the name exists (and "
               "`nb.finfo(nb.bfloat16)`), but a bfloat16 tensor raises DTypeError",
               "numpy has no bfloat16"),
    Difference("tensors", "shape mistakes raise `RuntimeError`", "they raise "
               "`nb.ShapeError`, a `ValueError` (every nnbook error is an `nb.NnbookError` "
               "and the builtin a Python user would catch)", "`except ValueError` catches a "
               "wrong shape; `except RuntimeError` written for PyTorch does not"),
    # -- autograd ----------------------------------------------------------------------
    Difference("autograd", "`backward(create_graph=True)` records the backward for second "
               "derivatives", "it raises BackwardError: no second derivatives",
               "backward rules compute with numpy and record no graph, so a student reads "
               "each one on one screen"),
    Difference("autograd", "after an in-place write through one view of a recorded tensor, "
               "another view of it taken before the write gets a new history",
               "using that older view in backward raises a version error; take the view "
               "again after the write", "nnbook updates the history of the view written "
               "through and of its base only"),
    Difference("autograd", "a version-counter error names the op; "
               "`set_detect_anomaly(True)` adds the forward traceback",
               "the error names the op and its saved tensor; under `nb.detect_anomaly()` it "
               "also shows the user's line that made the op", "ops record (file, line) only "
               "while observed, which keeps every op cheap"),
    Difference("autograd", "`torch.inference_mode()` makes inference tensors that autograd "
               "refuses later", "`nb.inference_mode()` is `no_grad()`: tensors made inside "
               "are ordinary", "there is no faster mode to switch to"),
    # -- layers and losses -------------------------------------------------------------
    Difference("layers and losses", "`F.mse_loss` broadcasts input (N, 1) against target "
               "(N,) with only a warning", "shapes must match: a ShapeError says which "
               "dimension to squeeze", "broadcasting there compares every prediction with "
               "every target, a silent wrong loss"),
    Difference("layers and losses", "`inplace=True` (`F.relu`, `nn.ReLU`, `F.dropout`) "
               "changes the input", "it is accepted and a new tensor is returned; use the "
               "returned value", "an in-place change would invalidate saved values students "
               "want to inspect"),
    Difference("layers and losses", "pooling takes integer tensors", "pooling needs "
               "floating point; a DTypeError says so", "pooled integers cannot take "
               "gradients, and are a sign of forgotten `.float()`"),
    Difference("layers and losses", "a max-pool window holding NaN passes the gradient to "
               "the last NaN", "the output is NaN and the gradient is dropped",
               "no element of a NaN window is the maximum"),
    Difference("layers and losses", "errors of `F.conv1d`, `F.max_pool1d` and "
               "`F.avg_pool1d` show the signal's shape", "past the check of the number of "
               "dimensions, they show it with a row of height 1: (N, C, 1, L)",
               "the 1-D ops are the 2-D ones on a one-row image, so they share one set of "
               "checks"),
    Difference("layers and losses", "`ConvTranspose2d.forward(x, output_size=...)` picks "
               "the output padding", "output_size is refused with an InputError; give the "
               "layer output_padding", "one way to choose the output size keeps the layer's "
               "arguments the whole story"),
    Difference("layers and losses", "a pooling window that holds only padding is not "
               "checked", "it is refused with a ShapeError naming the output pixel",
               "such a window has no input to take the maximum or mean of"),
    Difference("layers and losses", "building a layer or a Parameter inside `forward` is "
               "allowed", "it raises BuildInForwardError naming the layer and the line "
               "(`nb.nn.allow_build_in_forward()` allows it on purpose)", "a layer built in "
               "forward gets new, untrained weights on every call that the optimizer never "
               "sees"),
    Difference("layers and losses", "layers kept in a plain list or dict, or a tensor with "
               "`requires_grad=True` that is not a Parameter, are silently not registered",
               "the same, with a HiddenModuleWarning that says how to register them",
               "their parameters would be missing from `parameters()` and never trained"),
    # -- optimizers ----------------------------------------------------------------------
    Difference("optimizers", "`step()` skips parameters without a gradient silently",
               "it also warns once, naming them (UnusedParameterWarning)", "a parameter that "
               "never gets a gradient is usually not used in forward"),
    Difference("optimizers", "`lr=inf` and a negative `dampening` are accepted; a gradient "
               "of the wrong shape is refused when assigned", "both are refused; `step()` "
               "checks every gradient's shape and dtype before it changes any parameter",
               "a step updates all parameters or none"),
    # -- saving ------------------------------------------------------------------------
    Difference("saving", "`torch.save` pickles any object (a whole model too); "
               "`torch.load` unpickles", "`nb.save` writes state dicts (nested dicts of "
               "tensors, numbers and strings) to an `.npz` file, never a pickle; `nb.load` "
               "refuses PyTorch's pickled checkpoints", "loading a pickle can run any code; "
               "an `.npz` holds only numbers"),
    # -- devices and speed -------------------------------------------------------------
    Difference("devices and speed", "`.to('cuda')`, `.cuda()`, `device='cuda'` move to a GPU",
               "they raise an InputError that shows the portable device line; `'cpu'` and "
               "`nb.device('cpu')` work", "nnbook computes with numpy, on the CPU"),
    Difference("devices and speed", "`torch.autocast` runs ops in float16 / bfloat16; "
               "`GradScaler` scales the loss", "autocast changes nothing (a one-time note "
               "when asked for half precision); GradScaler is switched off and passes "
               "through, as PyTorch switches it off without a GPU", "every op runs in its "
               "inputs' own dtype, float32 by default, where gradients do not underflow"),
    Difference("devices and speed", "`torch.compile(model)` compiles", "`nb.compile(model)` "
               "returns the model unchanged, with a one-time note", "there is no compiler; "
               "tutorial code calls it unconditionally"),
    Difference("devices and speed", "distributed training, TorchScript, ONNX, sparse and "
               "quantised tensors, `torch.func`, `torch.hub`", "the modules import, and "
               "calling what they hold raises UnsupportedError naming what to do instead "
               "(see below)", "one process, dense float tensors, no downloads"),
    Difference("devices and speed", "ops run multi-threaded in C++", "ops are numpy; "
               "convolutions use threads, elementwise ops one core", "the code stays "
               "readable; nnbook is slower, most for tiny tensors and big convolutions"),
    # -- data loading ------------------------------------------------------------------
    Difference("data loading", "`num_workers=2` loads batches in worker processes; "
               "`pin_memory=True` pins them for the GPU", "the loader runs in this process "
               "(a one-time note) and gives the same batches; `pin_memory` does nothing; "
               "`worker_init_fn` is never called", "one process is simpler to follow and "
               "to debug"),
    Difference("data loading", "`shuffle=True` orders come from PyTorch's generator, and "
               "each epoch draws a base seed from the global generator", "orders come from "
               "nnbook's generator (`generator=` or `nb.manual_seed`), reproducible but not "
               "PyTorch's; iterating a loader draws nothing else", "the same generator as "
               "everything else in nnbook"),
    Difference("data loading", "a dataset without `__len__` or `__getitem__` fails when the "
               "loop starts; stacking samples of different shapes says only the sizes",
               "the DataLoader checks the dataset when it is built (and names a misspelt "
               "method); collation errors name the samples and their dataset indices",
               "mistakes show on the line that made them"),
]

EXTRAS = [
    ("nb.nn.DepthwiseConv2d", "a depthwise convolution with PyTorch's grouped weight layout"),
    ("nb.nn.GlobalAvgPool2d, nb.nn.Reshape, nb.nn.Sum, nb.nn.Concat",
     "small layers from Lua torch: global pooling, a per-sample reshape, branches added "
     "or concatenated"),
    ("Module.bprop(self, *inputs, out, dout)", "a module's own backward rule, checked when "
     "defined and when run"),
    ("nb.infer_shapes, nb.summary", "shapes, parameters and multiply-adds of every layer, "
     "without data"),
    ("nb.gradcheck_report, nb.inspect, nb.widgets", "records and widgets that show what a "
     "model computed"),
    ("nb.utils.progress(iterable)", "a plain text progress bar for a long loop"),
    ("nb.reference_ops()", "runs the readable reference ops instead of the faster kernels"),
]

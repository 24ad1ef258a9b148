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
    "`nn.utils`: `clip_grad_norm_`, the packed sequences of `rnn`, `parametrize` and "
    "`parametrizations` (`weight_norm`, `spectral_norm`), the older `weight_norm` and "
    "`spectral_norm` hooks and `prune`, with PyTorch's `state_dict` keys",
    "`torch.distributions`' Normal, Bernoulli, Categorical, OneHotCategorical, Uniform, "
    "Exponential, Laplace, MultivariateNormal, Independent, Beta, Gamma, Chi2, Dirichlet, "
    "Poisson, Binomial, Geometric, LogNormal, StudentT, Cauchy, Gumbel and HalfNormal "
    "(`sample`, `rsample`, `log_prob`, `entropy`, the moments, `cdf`/`icdf`, `expand`, "
    "checked arguments) and `kl_divergence` between two of a family",
    "data loading: `Dataset`, `TensorDataset`, `random_split`, `DataLoader` (batching, "
    "shuffling, samplers, `collate_fn`, `default_collate`'s rules)",
    "the device line (`device = 'cuda' if torch.cuda.is_available() else 'cpu'`), "
    "`torch.backends.mps.is_available()`, `torch.accelerator`, and the lines of an AMP or "
    "`torch.compile` script: they run here on the CPU, in float32",
]

DIFFERENCES = [
    # -- errors --------------------------------------------------------------------------
    Difference("errors", "shape mistakes raise `RuntimeError`; so do a dtype or a value an op "
               "cannot take (`bool - bool`, `int_tensor ** -1`, a clamp bound out of the "
               "dtype's range), or `NotImplementedError` (`bool // bool`)",
               "`nb.ShapeError` (a `ValueError`), `nb.DTypeError` (a `TypeError`) for a dtype, "
               "`nb.InputError` (a `ValueError`) for a value; indexing errors are `nb.DimError` "
               "(an `IndexError`) and `InputError`, as in PyTorch. Every nnbook error is an "
               "`nb.NnbookError`", "each says where, what came, the values and a hint, and is "
               "the builtin a Python user would catch; `except RuntimeError` written for "
               "PyTorch does not catch them"),
    Difference("errors", "`int_tensor // 0`, `int_tensor % 0` and `int_tensor.fmod(0)` raise a "
               "RuntimeError whose "
               "text is \"ZeroDivisionError\"", "they raise InputError (a `ValueError`), not "
               "a `ZeroDivisionError`", "no nnbook error class derives from ZeroDivisionError"),
    Difference("errors", "`torch.linalg` raises `torch.linalg.LinAlgError` (a RuntimeError) "
               "for a singular matrix (`inv`, `solve`) or one that is not positive definite "
               "(`cholesky`), and a RuntimeError for a matrix that is not square",
               "`nb.InputError` (a `ValueError`) for a singular or not positive definite "
               "matrix, `nb.ShapeError` (a `ValueError`) for one that is not square; "
               "`nb.linalg.LinAlgError` is `nb.InputError`, so `except "
               "torch.linalg.LinAlgError` ported still catches the first two",
               "each says which op, what came and what to use instead (`lstsq`, `pinv`, "
               "`eigvalsh`)"),
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
    Difference("tensors", "every argument can be given by its documented name, also sizes "
               "given as several numbers: `x.view(size=(4, 3))`, `x.permute(dims=(1, 0))`, "
               "`torch.reshape(x, shape=...)`, `x.expand(size=...)`, `x.repeat(repeats=...)`, "
               "`torch.flip(x, dims=...)`, `torch.dot(x, tensor=y)`", "those take their "
               "sizes (and `dot` its second vector) by position only; every other argument, "
               "`input=` included, has PyTorch's name", "sizes are written as numbers in "
               "lessons; the keyword forms are rare"),
    # -- maths -------------------------------------------------------------------------
    Difference("tensors", "`stride()`, `storage_offset()` and `is_contiguous()` describe the "
               "tensor's storage; `x[1].detach().storage_offset()` is that of `x[1]`",
               "they describe the numpy array behind the tensor: views (slicing, `t()`, "
               "`permute`, `expand`, `unfold`...) have PyTorch's strides and offsets, but "
               "`storage_offset()` counts from the tensor a view was taken from, so it is 0 "
               "after `.detach()` or `.data`, and a few ops' results that are contiguous in "
               "PyTorch may not be here", "nnbook's tensors are numpy arrays; the layout of "
               "views, which lessons show, is the same"),
    Difference("maths", "`a // b` on floats is recorded, but its backward raises "
               "\"derivative for floor_divide is not implemented\"", "both inputs get the "
               "gradient 0", "floor(a / b) is a staircase, flat almost everywhere; 0 is its "
               "derivative, and what PyTorch gives for `torch.floor(a / b)`"),
    Difference("maths", "the backward of `2.0 % x` raises \"derivative for remainder is not "
               "implemented\"", "x gets the gradient -floor(2.0 / x), the rule of "
               "`tensor % tensor`", "one rule for one op, whichever side the number is on"),
    Difference("maths", "a float16 tensor `*` or `/` a Python float keeps the number in "
               "float32 (`float16 * 70000.0` can be finite, `0 * 1e10` is 0); `+ - // %` and "
               "comparisons convert it to float16 first", "every op converts the number to "
               "the tensor's dtype first (so those give inf and NaN); numbers within "
               "float16's range differ by one rounding at most", "one conversion rule for "
               "every op; PyTorch's differs from kernel to kernel"),
    Difference("maths", "`x ** 0.5` is sqrt(x) and `x ** -0.5` is 1 / sqrt(x) only for a "
               "Python-number exponent", "any one-element exponent 0.5 and any 0-d exponent "
               "-0.5 are taken so (numpy's rule): with such a tensor exponent `(-inf) ** "
               "0.5` is NaN, not inf, and `(-0.0) ** 0.5` is -0.0, not 0.0 (`** -0.5`: NaN "
               "for 0.0, -inf for inf); Python-number exponents agree", "numpy chooses sqrt "
               "by the exponent's size, and the ops see arrays only"),
    Difference("maths", "the sign of `maximum(0.0, -0.0)` and `minimum(0.0, -0.0)` depends on "
               "the tensor's length (vectorised and scalar loops differ)", "the second "
               "operand on such a tie, always (numpy's rule)", "PyTorch has no one rule to "
               "follow here"),
    Difference("maths", "`x % y` where x / y overflows (`1e30 % 1e-30` in float32) is NaN "
               "or exact depending on the element's place", "the exact remainder (fmod "
               "moved into y's sign)", "as for maximum: nnbook keeps the exact answer"),
    Difference("maths", "`float_tensor + 2**70` raises OverflowError (a Python int beyond "
               "int64)", "the number is converted to the tensor's float dtype; with an "
               "integer tensor both refuse (nnbook: InputError)", "the number fits the "
               "float dtype, so there is nothing to refuse"),
    Difference("maths", "`einsum` of one operand that only rearranges it (`'ij->ji'`, "
               "`'ii->i'`) returns a view: writing into the result changes the operand",
               "it returns a new tensor", "nnbook's views are those of slicing and reshaping, "
               "whose writes autograd follows"),
    Difference("maths", "`lerp` and `einsum` refuse operands of different float dtypes",
               "they promote them (float32 with float64 gives float64), as `+` does",
               "one promotion rule for every op"),
    Difference("maths", "`var`/`std` with no degrees of freedom left (one element, "
               "`correction=1`) warn and give NaN", "they give NaN without a warning",
               "the NaN already says it; a warning in every such step floods a notebook"),
    Difference("maths", "the order of equal values from `sort` (unless `stable=True`) and "
               "`topk` is unspecified", "`sort` is always stable and `topk` takes the first "
               "of equal values", "the same input gives the same indices everywhere"),
    Difference("maths", "`histogram` of a tensor that requires grad, and `bincount` with "
               "such weights, give results that require grad, whose backward raises "
               "\"derivative ... is not implemented\"", "their results never require grad "
               "(nor do `histc`'s, as in PyTorch)", "counts are flat in the values: a "
               "gradient that fails later is worse than none"),
    Difference("maths", "`searchsorted` and `bucketize` on a sorted sequence that ends in "
               "NaN give positions that depend on the steps of the binary search "
               "(`searchsorted([1., nan], 1.)` is 2)", "NaN counts as the largest value, "
               "as `sort` places it: numbers go before the NaN, a NaN after every number "
               "(numpy's rule)", "one order for sorting and searching"),
    Difference("maths", "`var(dim=())` and `std(dim=())` reduce every dim (as `sum(dim=())` "
               "does) but their gradient is inf or NaN everywhere",
               "the same values, and the gradient of the variance over every element",
               "a gradient that is wrong for a correct program is a bug to leave out"),
    Difference("maths", "`unique(sorted=False)` may keep another order; `unique` and "
               "`unique_consecutive` of a tensor that requires grad record an op whose "
               "backward cannot run",
               "`unique` always sorts, and neither result ever requires grad",
               "one order to explain; a gradient that fails later is worse than none"),
    Difference("maths", "`x.diagonal()` is a view: writing into it changes x",
               "it returns a copy; write a diagonal with `x[range(n), range(n)] = v`",
               "every view needs a rule for writing back through it in autograd; nnbook's "
               "views are those of slicing and reshaping"),
    Difference("maths", "`view` refuses a tensor whose memory is not in its order (after "
               "`transpose` or `permute`): use `reshape` or `.contiguous().view(...)`",
               "`view` works there too, like `reshape` (it copies when it has to)",
               "numpy reshapes any array; code written for PyTorch, with `.contiguous()` "
               "or `reshape`, runs the same"),
    Difference("maths", "`x.unfold(dim, size, step)` is a view that can be written into "
               "when its windows do not overlap (`step >= size`)", "it is a read-only view "
               "(numpy's `sliding_window_view`): an in-place change of the windows raises "
               "InputError; clone it first", "overlapping windows share elements, and one "
               "rule for all windows is easier to learn than two"),
    Difference("maths", "`scatter_reduce(..., 'amax' or 'amin', include_self=False)` counts "
               "the input's own value among the ties for the gradient at a position "
               "written to, and then drops its share",
               "the input's value there takes no part (it is not in the result), so the "
               "values sent there share the whole gradient", "the gradient of what was "
               "computed; the two differ only where the input's value equals the result"),
    Difference("maths", "`erf` runs vectorised in C++", "`erf` is Python's exact `math.erf`, "
               "element by element: right to the last digit, and slow on large tensors",
               "numpy has no erf"),
    Difference("maths", "`scatter(reduce='add')` (deprecated) computes",
               "it is refused with an InputError that names the alternative (`scatter_add`)",
               "`scatter_add` says what it does"),
    Difference("maths", "`torch.linalg.inv_ex(A)` returns `info > 0` for a singular A "
               "(unless `check_errors=True`)", "`nb.linalg.inv_ex` raises the InputError "
               "of `inv`; `info` is always 0", "an inverse full of inf is never what a "
               "student wants to continue with"),
    Difference("maths", "`torch.linalg.svd`, `eigh` and `qr` run one LAPACK call and "
               "`lstsq` calls its `driver`", "each factor is its own op (U, S and Vh: three "
               "SVDs), and `lstsq` computes its solution from the pseudo-inverse whatever "
               "the driver (which still decides what else it returns)", "each op's backward "
               "is one derivative, readable on its own; the answers agree to rounding"),
    Difference("maths", "`cov` warns when the degrees of freedom are <= 0",
               "`cov` gives the same inf or NaN without a warning", "the result says it"),
    Difference("maths", "`out=` writes a result into an existing tensor", "`nb.add`, `sub`, "
               "`mul`, `div`, `true_divide`, `matmul`, `cat`, `stack`, `hstack`, `vstack`, "
               "`zeros`, `ones`, `empty`, `full`, `rand` and `randn` refuse `out=` "
               "(InputError); use the returned tensor", "results are new tensors, so the "
               "graph stays easy to follow; ignoring `out=` would leave the tensor given with "
               "its old values"),
    Difference("maths", "`heaviside` and `nextafter` are recorded, but their backward raises "
               "\"derivative for aten::heaviside is not implemented\"", "both inputs get the "
               "gradient 0", "both are flat between their jumps, like `floor`, whose "
               "gradient is 0 in PyTorch too"),
    Difference("maths", "`polygamma(1, x)` (trigamma) is finite at the poles x = -1, -2, ... "
               "and good to about 1e-10 relative; `polygamma(n, inf)` is NaN for n >= 2",
               "`polygamma(n, x)` is +-inf at every pole (the sign of (-1)**(n+1)), 0 at inf, "
               "NaN at -inf, and right to a few units in the last place (so the gradient of "
               "`digamma` differs from PyTorch's in the tenth digit)", "the limits are the "
               "values; nnbook's sum of (x + k)**-(n+1) serves every n and every x alike"),
    Difference("maths", "the gradient of `ldexp(x, e)` with a negative integer tensor `e` "
               "is 0 (2**e taken in integers)", "x gets 2**e", "x * 2**e is linear in x"),
    # -- autograd ----------------------------------------------------------------------
    Difference("autograd", "`backward(create_graph=True)` records the backward for second "
               "derivatives", "it raises BackwardError: no second derivatives",
               "backward rules compute with numpy and record no graph, so a student reads "
               "each one on one screen"),
    Difference("autograd", "`torch.autograd.functional` has `jacobian`, `vjp` and `jvp` "
               "(also with `create_graph=True`), and `hessian`, `vhp` and `hvp`; `jvp` uses a "
               "double backward", "`nb.autograd.functional.jacobian`, `vjp` and `jvp` give "
               "PyTorch's numbers, shapes and nesting, one backward per output element for "
               "a Jacobian (`vectorize` changes nothing); `create_graph=True` raises "
               "BackwardError, and `hessian`, `vhp`, `hvp` raise UnsupportedError",
               "they need second derivatives, which nnbook does not record (see "
               "`create_graph=True` above)"),
    Difference("autograd", "a view whose base is changed in place after the view was taken "
               "gets its history regenerated, so its backward still runs (also where only "
               "shapes are needed); another view of a recorded tensor written through "
               "does too", "using such an older view in backward raises a version error; "
               "take the view again after the write", "nnbook updates the history of the "
               "view written through and of its base only"),
    Difference("autograd", "after `x.unsqueeze_(0)` (or `squeeze_`, `t_`, `transpose_`, "
               "`swapaxes_`, `swapdims_`), a view of x taken before can still be written "
               "into while recording; and a backward through an op that saved x before the "
               "change raises a version error", "the write through the older view raises "
               "BackwardError (take the view again); the backward runs, with the right "
               "gradient, since no value changed", "a view keeps the rule that made it from "
               "its base, which no longer fits the base's new shape; the values the op "
               "saved are still the values it used"),
    Difference("autograd", "a version-counter error names the op; "
               "`set_detect_anomaly(True)` adds the forward traceback",
               "the error names the op and its saved tensor; under `nb.detect_anomaly()` it "
               "also shows the user's line that made the op", "ops record (file, line) only "
               "while observed, which keeps every op cheap"),
    Difference("autograd", "a second `backward()` through the same graph raises only where "
               "a node saved tensors (`(a * b).sum()`); through `a + b` or `x.sum()` it runs "
               "again", "the same for nodes that saved nothing (`a + b`); a node that kept "
               "anything for its backward, even only its arguments or a shape (`x.sum()`, "
               "`x.reshape(...)`), raises as if it had saved a tensor", "a node frees "
               "everything it kept after its backward; telling tensors from arguments would "
               "cost every node a look through what it kept"),
    Difference("autograd", "`torch.inference_mode()` makes inference tensors that autograd "
               "refuses later", "`nb.inference_mode()` is `no_grad()`: tensors made inside "
               "are ordinary", "there is no faster mode to switch to"),
    # -- layers and losses -------------------------------------------------------------
    Difference("layers and losses", "`F.mse_loss` broadcasts input (N, 1) against target "
               "(N,) with only a warning", "shapes must match: a ShapeError says which "
               "dimension to squeeze", "broadcasting there compares every prediction with "
               "every target, a silent wrong loss"),
    Difference("layers and losses", "`F.soft_margin_loss`, `hinge_embedding_loss`, "
               "`poisson_nll_loss`, `gaussian_nll_loss` and `multilabel_soft_margin_loss` "
               "(and their layers) broadcast an input and a target of different shapes",
               "input and target must have one shape, as for `mse_loss`; a ShapeError says "
               "which dimension to squeeze (`gaussian_nll_loss`'s `var` keeps PyTorch's "
               "shapes)", "broadcasting there compares every prediction with every target, a "
               "silent wrong loss"),
    Difference("layers and losses", "`F.poisson_nll_loss(..., full=True)` gives a target of 0 "
               "that requires grad a gradient of nan; `F.soft_margin_loss` refuses a target "
               "that requires grad; `multi_margin_loss` and `multilabel_margin_loss` of an "
               "empty batch with reduction='mean' or 'sum' return an arbitrary number; "
               "`gaussian_nll_loss` refuses an int `var`",
               "the target's gradient is 0 there (Stirling's term is 0 for targets <= 1); "
               "the soft margin target gets its gradient; the empty mean is nan and the empty "
               "sum 0, as for the other losses; an int `var` is read as a float",
               "each is the value the formula gives"),
    Difference("layers and losses", "`F.embedding_bag` (and `nn.EmbeddingBag`) reads "
               "decreasing offsets into arbitrary bags; with `include_last_offset=True` it runs "
               "the last bag to the input's end whatever the last offset says (and crashes "
               "on a single offset); a 2-D input of empty bags (B, 0) raises; a 'max' bag "
               "is NaN only where the NaN comes first",
               "decreasing offsets, and a last offset that is not the input's length, are "
               "refused with an InputError; (B, 0) gives B zero vectors, as empty bags do; "
               "a 'max' bag holding a NaN is NaN, and the NaN's row gets the gradient",
               "offsets are the starts of the bags: anything else is a mistake to point at"),
    Difference("layers and losses", "`F.embedding_bag(..., scale_grad_by_freq=True)` on the "
               "CPU divides each row's gradient by the count of another row",
               "each row's gradient is divided by how often that row occurs in the input, as "
               "`F.embedding` does", "the documented rule"),
    Difference("layers and losses", "`F.ctc_loss` (and `nn.CTCLoss`) gives `log_probs` the "
               "gradient exp(log_probs) - gamma, gamma being each class' share of the "
               "alignments at each frame: the gradient of the loss of log_softmax(log_probs), "
               "right only when `log_probs` already are log-probabilities and are not "
               "differentiated themselves",
               "`log_probs` get -gamma, the derivative of the loss computed (gradcheck "
               "agrees); logits before a `log_softmax` get softmax - gamma in both libraries",
               "a gradient that disagrees with its forward cannot be taught; a model that "
               "ends in log_softmax, the documented use, trains the same"),
    Difference("layers and losses", "`F.ctc_loss` computes with a target that holds the "
               "blank (as if it were a label), and reads past `log_probs` for a label outside "
               "0 to C - 1", "a label equal to `blank` raises InputError (with the hint for "
               "labels that count from 0), one outside 0 to C - 1 a DimError; the padding "
               "after each target length is still not read", "the blank means 'no label': "
               "in a target it is a mistake in the labels, and a label beyond C has no "
               "probability to read"),
    Difference("layers and losses", "`inplace=True` (`F.relu`, `nn.ReLU`, `F.dropout`) "
               "changes the input", "it is accepted and a new tensor is returned; use the "
               "returned value", "an in-place change would invalidate saved values students "
               "want to inspect"),
    Difference("layers and losses", "a float32 `nn.LSTM` (oneDNN on the CPU) refuses a "
               "backward after its output was changed in place; in float64, and for "
               "`nn.RNN` and `nn.GRU`, the change is allowed and the gradients are right",
               "allowed for all three in every dtype, with the right gradients", "the "
               "sequence ops keep their own copy of what their backward reads; an error "
               "that depends on the dtype would be hard to explain"),
    Difference("layers and losses", "a max-pool window made of padding only (a dilated "
               "kernel that steps over every input pixel, with padding and ceil_mode) gives "
               "-inf, and its backward passes the gradient to an input pixel the window "
               "never covered", "the pool is refused with a ShapeError naming the output "
               "pixel", "such a window comes from a mistake in the layer's arguments, and "
               "its -inf would spread through the layers after it"),
    Difference("layers and losses", "`F.interpolate` and `nn.Upsample` also take "
               "`antialias=True` (a smoothing filter when shrinking with 'bilinear' or "
               "'bicubic')", "'nearest', 'nearest-exact', 'area', 'linear', 'bilinear', "
               "'bicubic' and 'trilinear' without it; `antialias=True` is refused with an "
               "InputError that points to mode='area'", "the filter is one more weight "
               "matrix to explain, and 'area' shrinks an image smoothly"),
    Difference("layers and losses", "`pack_padded_sequence` takes a length longer than "
               "the padded sequences (on the CPU it packs rows past the batch's end, and "
               "batch_sizes no longer add up to the data) and fractional or boolean lengths "
               "(cut to integers)", "an InputError for a length longer than the padded "
               "sequences, a DTypeError for fractional or boolean lengths", "such lengths "
               "come from a mistake (the wrong dim read as time, another batch's lengths), "
               "and the packed batch would silently hold other numbers"),
    Difference("layers and losses", "`F.pad(x, pad, mode='circular')` (and `CircularPad`) "
               "with a negative padding on one side and, on the other, more padding than "
               "the cropping leaves returns values from memory it never wrote, or raises, "
               "depending on the input's shape", "an InputError: circular padding wraps "
               "around once at most, what the cropping leaves", "a result that depends on "
               "stray memory cannot be taught or tested"),
    Difference("layers and losses", "`nn.InstanceNorm1d/2d/3d` with `affine=False` and no "
               "running statistics given another number of channels than `num_features` "
               "warns and normalises anyway", "a ShapeError, as for every other channel "
               "mismatch", "the layer was built for other data: a sign of a mistake in the "
               "model, which a warning lets through"),
    Difference("layers and losses", "pooling takes integer tensors", "pooling needs "
               "floating point; a DTypeError says so", "pooled integers cannot take "
               "gradients, and are a sign of forgotten `.float()`"),
    Difference("layers and losses", "a max-pool window holding NaN passes the gradient to "
               "the last NaN", "the output is NaN and the gradient is dropped "
               "(`return_indices=True` gives the last NaN's place, as PyTorch)",
               "no element of a NaN window is the maximum"),
    Difference("layers and losses", "a max-pool window whose every element is -inf passes "
               "the gradient to its first element inside the input", "the gradient of such "
               "a window is dropped when its first tap is in the padding (and goes to its "
               "first element otherwise)", "padding counts as -inf, so a window of -inf has "
               "its maximum at its first tap; no pass is spent on so rare an input"),
    Difference("layers and losses", "errors of `F.conv1d`, `F.conv_transpose1d`, "
               "`F.max_pool1d`, `F.avg_pool1d`, `F.max_unpool1d` and the adaptive 1-D pools "
               "show the signal's "
               "shape", "past the check of the number of "
               "dimensions, they show it with a row of height 1: (N, C, 1, L)",
               "the 1-D ops are the 2-D ones on a one-row image, so they share one set of "
               "checks"),
    Difference("layers and losses", "a convolution or pooling layer built with a size of the "
               "wrong length (`nn.Conv3d(3, 8, (3, 3))`, `nn.MaxPool2d((3, 3, 3))`) is built, "
               "and fails when it is called", "an InputError when the layer is built: the "
               "kernel_size, stride, padding or dilation of a 3-D layer takes an int or a "
               "(d, h, w) triple, of a 2-D layer an int or an (h, w) pair", "the mistake is "
               "named on the line that makes it"),
    Difference("layers and losses", "`ConvTranspose1d/2d/3d.forward(x, output_size=...)` picks "
               "the output padding", "output_size is refused with an InputError; give the "
               "layer output_padding", "one way to choose the output size keeps the layer's "
               "arguments the whole story"),
    Difference("layers and losses", "`F.interpolate` with a scale_factor that keeps the "
               "size (1.05 on 7 pixels): the backward of 'bicubic', and of 'nearest' on "
               "signals and volumes (along each axis that keeps its size), copies the "
               "gradient straight through, though the forward moved the "
               "pixels", "the backward is the forward's derivative (gradcheck agrees)",
               "a gradient that disagrees with its forward cannot be taught"),
    Difference("layers and losses", "`F.grid_sample` also reads volumes: a 5-D input "
               "(N, C, D, H, W) at a grid (N, D_out, H_out, W_out, 3)", "a ShapeError: "
               "`F.grid_sample` reads images (N, C, H, W); `F.affine_grid` makes a volume's "
               "grid all the same", "each sampled dimension is one more axis of taps to "
               "explain; the lessons' spatial transformers move images"),
    Difference("layers and losses", "`F.grid_sample` at a grid point that is NaN gives NaN, "
               "0 or a value read from elsewhere, by mode and padding ('bicubic': NaN; "
               "'reflection': a pixel's value; 'border' has crashed)", "'bilinear' gives NaN, "
               "'nearest' and 'bicubic' give 0 (the point reads no pixel)", "PyTorch's "
               "answer there is not defined; nnbook's never reads outside the image"),
    Difference("layers and losses", "`F.rrelu(x, training=True)` and `nn.RReLU` in training "
               "mode draw their slopes from PyTorch's generator", "from nnbook's "
               "(`nb.manual_seed` repeats them): other slopes from the same range; in eval "
               "mode both use the mean slope", "nnbook draws with numpy"),
    Difference("layers and losses", "`nn.ChannelShuffle(0)`, `nn.RReLU(lower=0.5, "
               "upper=0.1)` and `nn.LPPool2d(0, 3)` are built, and fail when called; "
               "`F.lp_pool1d/2d` with `norm_type=0` raise a ZeroDivisionError", "the layers "
               "are refused when built, and the functions raise, with an InputError (a "
               "ValueError)", "a layer that can only fail is a mistake to point at where it "
               "is made"),
    Difference("layers and losses", "`F.max_unpool1d/2d` (and `nn.MaxUnpool1d/2d`) given "
               "one place twice (overlapping pooling windows that found the same maximum) "
               "writes the last value there, and its backward gives that place's gradient to "
               "every value sent there", "the same output; only the value written (the last "
               "one, row-major) gets the gradient, the others 0", "the values overwritten are "
               "not in the output, so their true gradient is 0 (gradcheck agrees)"),
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
    Difference("layers and losses", "`nn.utils.vector_to_parameters(vec, params)` makes "
               "each parameter a view of `vec` and does not check its length", "it copies "
               "the values into the parameters in place, and a vector of the wrong length "
               "is refused before any parameter changes", "optimizers keep pointing at the "
               "same parameters, and nothing is left half-written"),
    Difference("layers and losses", "in eval mode without gradients, `TransformerEncoder`, "
               "`TransformerEncoderLayer` and self-attention `MultiheadAttention` take a fast "
               "path: with a `src_key_padding_mask` the encoder's outputs at padded positions "
               "are zeros, and a query whose keys are all masked gives NaN (with gradients "
               "on, PyTorch gives it zeros before the output projection)", "one path always, "
               "the one PyTorch takes with gradients on: padded positions hold what the "
               "layers compute for them, a fully masked query gets zeros with "
               "`need_weights=False` (and NaN with `need_weights=True`, whose plain softmax "
               "PyTorch uses on both paths); `enable_nested_tensor` "
               "is accepted and ignored", "the same model gives the same numbers with and "
               "without `no_grad()`; every other position agrees with PyTorch's either way"),
    Difference("layers and losses", "`prune.random_unstructured` and "
               "`prune.random_structured` choose with PyTorch's generator, and `spectral_norm` "
               "(both kinds) starts its vectors u and v from it", "they draw from nnbook's "
               "generator (`nb.manual_seed`): the same number of entries or slices pruned, "
               "others chosen; other starting u and v. The deterministic methods "
               "(`l1_unstructured`, `ln_structured`, `global_unstructured`, "
               "`custom_from_mask`) choose as PyTorch does, and a state dict loaded across "
               "gives the same sigma", "nnbook draws with numpy; compare masks and sigmas "
               "with weights and buffers loaded across"),
    Difference("layers and losses", "assigning a parametrized tensor a value of another shape "
               "(`layer.weight = t`) stores it, and the layer fails at its next call; pruning "
               "again with an amount larger than what is left raises after taking the pruning "
               "hook off (the mask is no longer applied)", "both are refused before anything "
               "changes: a ShapeError unless the parametrization was registered with "
               "`unsafe=True`, and an InputError", "a failed call leaves the model as it was"),
    Difference("layers and losses", "a Parameter assigned to a parametrized tensor and the old "
               "`spectral_norm` on a parameter the layer lacks raise KeyError (ValueError for "
               "the bias of a layer built with `bias=False`, TypeError when pruning it); a "
               "parametrization that is not a Module raises AttributeError; "
               "`importance_scores` or a custom mask of another shape raise AssertionError",
               "ModuleAttributeError (an AttributeError) for a parameter that is not there or "
               "a Parameter assigned, ArgumentError (a TypeError) and ShapeError (a "
               "ValueError), with hints; the other mistakes of `nn.utils.parametrize`, "
               "`parametrizations`, `weight_norm`, `spectral_norm` and `prune` raise nnbook "
               "errors of PyTorch's classes", "each says which tensor, what came and what to "
               "write instead"),
    Difference("layers and losses", "`module._forward_pre_hooks` (private) maps hook ids to "
               "hooks; the pruning tutorial finds a tensor's `PruningContainer` there", "it "
               "exists once a hook is registered and maps ids to (hook, flags) pairs; "
               "`prune.L1Unstructured.apply(layer, 'weight', amount=0.2)` (any method's "
               "`apply`) returns the container with the pruning history",
               "nnbook keeps each hook's flags beside it"),
    Difference("layers and losses", "a state dict with the old `weight_g` and `weight_v` keys "
               "loads into a layer with `parametrizations.weight_norm` (the keys are renamed "
               "on the way); the old `spectral_norm` converts checkpoints of before PyTorch "
               "1.0", "such a state dict is refused as any with other keys (a CheckpointError "
               "listing them); rename `weight_g` to `parametrizations.weight.original0` and "
               "`weight_v` to `parametrizations.weight.original1`", "nnbook has no hooks that "
               "rewrite a state dict while it loads; the rename is one line"),
    # -- optimizers ----------------------------------------------------------------------
    Difference("optimizers", "`step()` skips parameters without a gradient silently",
               "it also warns once, naming them (UnusedParameterWarning)", "a parameter that "
               "never gets a gradient is usually not used in forward"),
    Difference("optimizers", "settings that can only be mistakes are accepted: `lr`, "
               "`weight_decay` or `eps` of inf or NaN, `eps=0`, a negative `dampening`, a "
               "flag such as `nesterov` that is not a bool, a number given as a string",
               "they are refused when the optimizer is built, as are `momentum >= 1` and "
               "RMSprop's `alpha > 1`; `lr` must be a number, not a Tensor", "`eps=0` gives "
               "0 / 0 = NaN wherever the gradients are zero; the others never train"),
    Difference("optimizers", "a gradient of the wrong shape or dtype is refused when "
               "assigned to `p.grad`", "`p.grad` is a plain attribute; `step()` checks every "
               "gradient before it changes any parameter", "a step updates all parameters "
               "or none"),
    Difference("optimizers", "`foreach` and `fused` choose among implementations; "
               "`capturable` and `differentiable` change how a step runs",
               "`foreach` and `fused` are accepted and change nothing (there is one "
               "implementation); `capturable=True` and `differentiable=True` are refused; "
               "none of them is kept in `param_groups`", "nnbook runs on the CPU and never "
               "records an update in the graph"),
    Difference("optimizers", "a parameter group keeps any key given to it", "it accepts only "
               "the optimizer's settings and the keys schedulers add (`initial_lr`, "
               "`max_lr`, `min_lr`, `max_momentum`, `base_momentum`)", "a misspelt setting "
               "is an error rather than a silently unused key"),
    Difference("optimizers", "`optimizer.state_dict()` shares its tensors with the optimizer "
               "and loads into any optimizer", "its tensors are copies and it holds `'kind': "
               "'Adam'`; loading into another kind is refused, and the whole dict is checked "
               "before anything changes", "a saved state cannot change under you, and a "
               "wrong file changes nothing"),
    Difference("optimizers", "Adagrad fills `sum` from the constructor's "
               "`initial_accumulator_value` for every group", "each group's own "
               "`initial_accumulator_value` is used", "a setting given to a group applies "
               "to that group"),
    Difference("optimizers", "an update changes `optimizer.state[p]` tensors in place, "
               "counting a version each time", "`state[p]` holds Tensors as in PyTorch; the "
               "update writes their memory directly and their version counters do not "
               "move (the parameters' do)", "each update reads as the maths of its "
               "docstring, on plain arrays"),
    # -- schedulers --------------------------------------------------------------------
    Difference("schedulers", "`gamma <= 0`, `step_size`, `T_max` or `total_iters` below 1, a "
               "`step_size` that is not a whole number (`StepLR(opt, 2.5)`), a "
               "lambda that is not a function, `ConstantLR(factor=0)`, a `OneCycleLR` phase "
               "without steps or `ReduceLROnPlateau(factor <= 0)` are accepted or fail later",
               "they are refused when the scheduler is built (a whole float such as "
               "`StepLR(opt, 1.0)` is taken); a rate a schedule computes "
               "must be a finite number >= 0 (a lambda returning -0.1 or None is refused at "
               "that step)", "the mistake shows on the line that made it, not as a NaN "
               "epochs later"),
    Difference("schedulers", "a scheduler around something that is not an optimizer raises "
               "TypeError; resuming with `last_epoch >= 0` on groups without `'initial_lr'` "
               "raises KeyError", "ArgumentError (a TypeError) and InputError (a ValueError), "
               "with hints", "every nnbook error has the four parts"),
    Difference("schedulers", "`scheduler.step()` before `optimizer.step()`, `step(epoch)` and "
               "`get_lr()` outside `step()` give a UserWarning", "a SchedulerWarning (a "
               "UserWarning) that points at your line; CosineAnnealingWarmRestarts warns "
               "about the order too", "the warning names the line to change"),
    Difference("schedulers", "`state_dict()` keeps entries that are None, and a lambda that "
               "is a callable object as its `__dict__` in a list with None for plain "
               "functions", "entries that are None are left out, and such a lambda is "
               "saved as {group: its attributes}; both layouts load, after every entry is "
               "checked", "`nb.save` stores numbers and strings, never pickled objects"),
    Difference("schedulers", "`OneCycleLR(pct_start=...)` wants a float", "any number in "
               "[0, 1] (`pct_start=0` or `1` too)", "an int that is a valid fraction is "
               "not a mistake"),
    # -- distributions -----------------------------------------------------------------
    Difference("distributions", "`Normal(mu, sigma).sample()`, `rsample()` and the draws of "
               "every `torch.distributions` class come from PyTorch's generator",
               "they come from nnbook's generator (`nb.manual_seed`), so the numbers differ; "
               "`log_prob`, `entropy`, `cdf`, `icdf`, the moments and `kl_divergence` of "
               "given values are PyTorch's, gradients included", "nnbook draws with numpy; "
               "a VAE or REINFORCE run compares by statistics, or with noise fixed by hand "
               "(`mu + std * eps`)"),
    Difference("distributions", "`torch.distributions` has about forty families, transforms "
               "and `TransformedDistribution`", "`nb.distributions` has Normal, Bernoulli, "
               "Categorical, OneHotCategorical, Uniform, Exponential, Laplace, "
               "MultivariateNormal, Independent, Beta, Gamma, Chi2, Dirichlet, Poisson, "
               "Binomial, Geometric, LogNormal, StudentT, Cauchy, Gumbel and HalfNormal, with "
               "`kl_divergence` for the pairs of the same family; another pair raises "
               "MissingRuleError (a NotImplementedError, as PyTorch's)", "the families the "
               "VAE, policy-gradient, reinforcement-learning and Bayesian lessons use"),
    Difference("distributions", "LogNormal, HalfNormal and Gumbel are "
               "`TransformedDistribution`s, with `base_dist` and `transforms`", "each is a "
               "class of its own that computes its formulas directly (the same values); it "
               "has no `base_dist` or `transforms`", "one screen per family, with the "
               "formulas in view; nnbook has no transforms"),
    Difference("distributions", "`rsample()` of Gamma, Chi2, Beta, Dirichlet (and StudentT's "
               "gradient for `df`) differentiates the draws with approximations (series, "
               "saddle points, fitted rational functions), within about 1e-4 of the true "
               "derivative", "the same implicit-reparameterisation gradient, -(dF/da) / p(x), "
               "computed exactly (to about 1e-12) from a series and a continued fraction "
               "differentiated term by term; so these gradients differ from PyTorch's in "
               "their fourth or fifth digit", "a gradient a student checks by finite "
               "differences should pass"),
    Difference("distributions", "`Gamma(a, r).cdf(x)` (and Chi2's) has no gradient for "
               "the concentration: backward raises NotImplementedError (\"the derivative for "
               "'igamma: input' is not implemented\")", "it has one, the same dP/da that "
               "gives a gamma draw its gradient", "nnbook computes it anyway"),
    Difference("distributions", "`Gumbel(loc, scale).cdf(x)` raises ValueError where the "
               "cdf rounds to 0 or 1 (its uniform base distribution refuses the value), and "
               "`icdf(0)`, `icdf(1)` are finite", "the cdf exp(-exp(-z)), 0 and 1 included; "
               "`icdf(0)` is -inf and `icdf(1)` inf", "nnbook writes the Gumbel's own "
               "formulas, not a chain of transforms of a uniform"),
    Difference("distributions", "a parameter outside its constraint raises ValueError "
               "(\"Expected parameter scale ... to satisfy the constraint GreaterThan...\")",
               "InputError (a ValueError) naming the parameter, the constraint in words "
               "(`must be > 0`), the wrong values and a fix (`log_std.exp()`); a value "
               "outside the support in `log_prob` likewise", "every nnbook error has the "
               "four parts"),
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
               "(see below); `distributed.is_available()` and `is_initialized()` answer "
               "False (PyTorch's Linux CPU build: available), so code that checks takes its "
               "one-process path", "one process, dense float tensors, no downloads"),
    Difference("devices and speed", "`nn.DataParallel(x)` without a GPU accepts anything "
               "as `x` and fails when called if `x` cannot be called", "a DataParallel of "
               "something that cannot be called is refused at once (an ArgumentError, a "
               "TypeError as PyTorch's later one)", "the mistake is named where it is made"),
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

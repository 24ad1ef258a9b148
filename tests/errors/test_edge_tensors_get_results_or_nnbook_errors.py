"""Tensor methods given edge tensors (a single number, empty tensors, integers, booleans)
answer with a result (and a backward that runs) or an nnbook error, never numpy's own
error or warning."""
import itertools

import numpy as np
import pytest

import nnbook as nb
from nnbook.errors import NnbookError

SHAPES = [(), (0,), (3,), (0, 5), (7, 5), (2, 0, 3), (3, 1, 4)]
DTYPES = [np.float32, np.int64, np.bool_]

ALONG_A_DIM = ["sum", "mean", "prod", "cumsum", "cumprod", "argmax", "argmin", "max", "min",
               "amax", "amin", "logsumexp", "var", "std", "norm", "median", "mode", "flip",
               "squeeze", "all", "any", "count_nonzero", "sort", "argsort", "unbind",
               "softmax", "log_softmax", "unsqueeze"]
NO_ARGUMENT = ["exp", "log", "sqrt", "abs", "neg", "sigmoid", "tanh", "relu", "floor",
               "round", "sign", "t", "flatten", "clone", "float", "long", "bool", "tolist",
               "item", "nonzero", "unique", "isnan", "trace", "tril", "triu", "diag"]
OTHERS = {
    "topk": lambda x: x.topk(2), "kthvalue": lambda x: x.kthvalue(1),
    "roll": lambda x: x.roll(1), "transpose": lambda x: x.transpose(0, 1),
    "permute": lambda x: x.permute(*reversed(range(x.ndim))), "view": lambda x: x.view(-1, 1),
    "expand": lambda x: x.expand(2, *x.shape), "repeat": lambda x: x.repeat(*(2,) * x.ndim),
    "split": lambda x: x.split(2), "chunk": lambda x: x.chunk(2), "narrow": lambda x:
    x.narrow(0, 0, 1), "cat": lambda x: nb.cat([x, x]), "stack": lambda x: nb.stack([x, x]),
    "where": lambda x: nb.where(x > 0, x, 0 * x), "clamp": lambda x: x.clamp(-1, 1),
    "matmul": lambda x: x @ x.T if x.ndim == 2 else x @ x, "index": lambda x: x[0],
    "mask": lambda x: x[x > 0], "gather": lambda x: x.gather(0, nb.zeros(*x.shape,
                                                                       dtype=nb.int64)),
    "scatter_add": lambda x: x.scatter_add(0, nb.zeros(*x.shape, dtype=nb.int64), x),
    "index_select": lambda x: x.index_select(0, nb.tensor([0])), "pow": lambda x: x ** 2,
    "divide by 0": lambda x: x / 0, "pad": lambda x: nb.nn.functional.pad(x, (1, 1)),
    "outer": lambda x: nb.outer(x, x), "einsum": lambda x: nb.einsum("...->", x),
    "mse_loss": lambda x: nb.nn.functional.mse_loss(x, x * 0),
    "masked_fill": lambda x: x.masked_fill(x > 0, 1.0), "movedim": lambda x: x.movedim(0, -1),
    "lerp": lambda x: x.lerp(x * 0, 0.5),
    "addcmul": lambda x: x.addcmul(x, x, value=0.5), "addcdiv": lambda x: x.addcdiv(x, x + 1),
    "addcmul_": lambda x: (x * 1).addcmul_(x, x), "addmv": lambda x: nb.addmv(x, x, x),
    "addmm": lambda x: nb.addmm(x, x, x.T if x.ndim == 2 else x, beta=0),
    "addr": lambda x: x.addr(x, x), "baddbmm": lambda x: x.baddbmm(x, x.transpose(-1, -2)),
    "addbmm": lambda x: x.addbmm(x, x), "kron": lambda x: nb.kron(x, x),
    "cross": lambda x: x.cross(x, dim=-1), "rot90": lambda x: x.rot90(1, (0, -1)),
    "tensordot": lambda x: nb.tensordot(x, x, 1), "block_diag": lambda x: nb.block_diag(x, x),
    "cartesian_prod": lambda x: nb.cartesian_prod(x, x), "combinations": nb.combinations,
    "scatter_reduce": lambda x: x.scatter_reduce(0, nb.zeros(*x.shape, dtype=nb.int64), x,
                                                 "amax", include_self=False),
    "scatter_reduce_mean": lambda x: x.scatter_reduce(-1, nb.zeros(*x.shape, dtype=nb.int64),
                                                      x, "mean"),
    "index_add": lambda x: x.index_add(0, nb.tensor([0]), x[:1] if x.ndim else x),
    "index_copy": lambda x: x.index_copy(-1, nb.tensor([0]), x[..., :1] if x.ndim else x),
    "index_put": lambda x: x.index_put((nb.tensor([0]),), x[0] if x.ndim else x,
                                       accumulate=True),
    "take": lambda x: x.take(nb.tensor([0, -1])), "put": lambda x: x.put(
        nb.tensor([0]), x.reshape(-1)[:1], accumulate=True),
    "masked_scatter": lambda x: x.masked_scatter(x != 0, x.reshape(-1)),
    "unfold": lambda x: x.unfold(0, 1, 2), "tensor_split": lambda x: x.tensor_split(2),
    "hsplit": lambda x: x.hsplit([1]), "stride": lambda x: (x.stride(), x.stride(0)),
    "storage_offset": lambda x: x[..., 1:].storage_offset(),
    "fill_diagonal_": lambda x: x.clone().fill_diagonal_(1),
    "unsqueeze_": lambda x: x.clone().unsqueeze_(0).squeeze_(-1).t_(),
    # matrix functions (nnbook/linalg.py, methods/linalg.py)
    "det": lambda x: x.det(), "slogdet": lambda x: x.slogdet(), "logdet": lambda x: x.logdet(),
    "inverse": lambda x: x.inverse(), "pinverse": lambda x: x.pinverse(),
    "matrix_power": lambda x: x.matrix_power(2), "svd": lambda x: x.svd(),
    "cov": lambda x: x.cov(), "corrcoef": lambda x: x.corrcoef(),
    "norm nuc": lambda x: x.norm("nuc"),
    "linalg.norm": lambda x: nb.linalg.norm(x), "matrix_norms": lambda x: [
        nb.linalg.matrix_norm(x, o) for o in ("fro", "nuc", 2, -2, 1, -1)],
    "linalg.cholesky": lambda x: nb.linalg.cholesky(x), "linalg.qr": lambda x: nb.linalg.qr(x),
    "linalg.eigh": lambda x: nb.linalg.eigh(x), "linalg.svd": lambda x: nb.linalg.svd(x),
    "linalg.solve": lambda x: nb.linalg.solve(x, x), "linalg.lstsq": lambda x:
    nb.linalg.lstsq(x, x), "linalg.matrix_rank": lambda x: nb.linalg.matrix_rank(x),
    "linalg.vecdot": lambda x: nb.linalg.vecdot(x, x),
    "linalg.multi_dot": lambda x: nb.linalg.multi_dot([x, x]),
}


def calls():
    """(name, function of the tensor) for every method and argument tried."""
    for name in ALONG_A_DIM:
        yield name, lambda x, name=name: getattr(x, name)()
        for dim in (0, -1, 2, 5):
            yield f"{name}({dim})", lambda x, name=name, dim=dim: getattr(x, name)(dim)
    for name in NO_ARGUMENT:
        yield name, lambda x, name=name: getattr(x, name)()
    yield from OTHERS.items()


def answers_cleanly(name, fn, x) -> None:
    """``fn(x)`` and backward through it: fine, or an nnbook error (not a backward rule's
    failure), or Python's TypeError for a required argument left out."""
    try:
        out = fn(x)
        for o in out if isinstance(out, (tuple, list)) else [out]:
            if isinstance(o, nb.Tensor) and o.requires_grad:
                o.sum().backward()
    except NnbookError as error:
        assert "failed:" not in str(error).splitlines()[0], (name, str(error))
    except TypeError as error:  # a required argument left out: Python's own message
        assert "required positional argument" in str(error), (name, repr(error))


@pytest.mark.parametrize("shape,dtype", list(itertools.product(SHAPES, DTYPES)),
                         ids=lambda v: str(v) if isinstance(v, tuple) else np.dtype(v).name)
def test_every_method_answers_an_edge_tensor_cleanly(shape, dtype):
    values = np.random.default_rng(0).standard_normal(shape) * 3
    for name, fn in calls():
        x = nb.tensor(values.astype(dtype), requires_grad=dtype == np.float32)
        answers_cleanly(name, fn, x)

"""The first tensor lesson: attributes (``shape``, ``size()``, ``size(1)``, ``dtype``,
``ndim``, ``dim()``, ``numel()``), ``torch.Size`` compared with a tuple, indexing and
slicing (``t[0]``, ``t[:, 0]``, ``t[..., -1]``, ``t[1:, ::2]``), assignment into a slice
(``t[:, 1] = 0``), ``t.T`` and ``t @ t.T``, ``t * t``, in-place ``add_`` and ``mul_``,
``view(-1, n)`` and ``t.sum().item()``.

Compared: every attribute, every value and dtype.
"""
import numpy as np

TOLERANCE = dict(rtol=1e-6, atol=1e-7)


def run(torch, nn, F, optim, data):
    data_ = [[1, 2, 3, 4, 5], [6, 7, 8, 9, 10], [11, 12, 13, 14, 15]]
    x_data = torch.tensor(data_)
    x_ones = torch.ones_like(x_data)
    x_rand = torch.rand_like(x_data, dtype=torch.float)
    t = torch.tensor(np.arange(21, dtype=np.float32).reshape(3, 7) / 4)

    attributes = {
        "shape": list(t.shape), "size": list(t.size()), "size_1": t.size(1),
        "shape_is_tuple": t.shape == (3, 7), "dtype": str(t.dtype).split(".")[-1],
        "int_dtype": str(x_data.dtype).split(".")[-1], "ndim": t.ndim, "dim": t.dim(),
        "numel": t.numel(), "rand_like": [list(x_rand.shape), str(x_rand.dtype)[-7:]],
    }
    rows = {"first_row": t[0], "first_column": t[:, 0], "last_column": t[..., -1],
            "strided": t[1:, ::2], "ones": x_ones}

    t[:, 1] = 0
    products = {"zeroed_column": t.clone(), "gram": t @ t.T, "square": t * t,
                "matmul_method": t.matmul(t.T)}
    t.add_(5)
    t.mul_(2)
    return {**attributes, **rows, **products, "in_place": t, "flat": t.view(-1, 3),
            "total": t.sum().item(), "int_total": x_data.sum().item()}

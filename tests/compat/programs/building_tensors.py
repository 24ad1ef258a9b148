"""Making and combining tensors: ``torch.linspace``, ``torch.arange``, ``torch.sin``,
``x.pow(3)``, ``torch.cat`` along both dims, ``torch.stack``, ``unsqueeze``, ``view``,
``permute``, ``reshape(-1)``, ``torch.ones_like``, ``torch.eye`` and ``torch.full``.

Compared: every value, dtype and shape made.
"""
import numpy as np

TOLERANCE = dict(rtol=1e-6, atol=1e-7)


def run(torch, nn, F, optim, data):
    x = torch.linspace(-2, 2, steps=9)
    s = torch.sin(x)
    c = x.pow(3)
    pair = torch.stack([s, c])             # (2, 9)
    columns = torch.stack((s, c), dim=1)   # (9, 2)
    long_row = torch.cat([s, c])           # (18,)
    wide = torch.cat((pair, pair * 2), 1)  # (2, 18)
    tall = torch.cat([pair, columns.T], dim=0)

    a = torch.arange(12)
    grid = a.view(3, 4)
    moved = grid.unsqueeze(0).permute(2, 0, 1)
    floats = torch.arange(0, 1, 0.25)
    shape_info = [list(t.shape) for t in (pair, columns, long_row, wide, tall, moved)]

    return {"x": x, "pair": pair, "columns": columns, "long_row": long_row, "wide": wide,
            "tall": tall, "grid": grid, "moved": moved, "flat": moved.reshape(-1),
            "floats": floats, "ones": torch.ones_like(grid), "eye": torch.eye(3, 4),
            "full": torch.full((2, 3), 7.5), "shapes": shape_info,
            "dtypes": [str(t.dtype).split(".")[-1] for t in (x, a, floats, grid.float())],
            "from_numpy": torch.from_numpy(np.arange(6, dtype=np.int32)).reshape(2, 3)}

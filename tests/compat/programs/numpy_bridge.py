"""Moving data between numpy and tensors: ``torch.from_numpy`` (which shares the array's
memory), ``t.numpy()`` (which shares the tensor's), ``torch.tensor(array)`` (a copy),
``torch.as_tensor``, float64 arrays turned into float32 with ``.float()``, a ``Dataset``
that converts numpy rows in ``__getitem__``, and ``np.asarray(t)`` on a result.

Compared: what each conversion sees after the array or the tensor is changed in place,
the dtypes made, and the mean of a DataLoader's batches.
"""
import numpy as np

TOLERANCE = dict(rtol=1e-6, atol=1e-7)


def run(torch, nn, F, optim, data):
    rng = np.random.default_rng(41)
    array = rng.standard_normal((5, 3))

    shared = torch.from_numpy(array)
    copied = torch.tensor(array)
    converted = torch.as_tensor(array, dtype=torch.float32)
    array[0, 0] = 100.0  # seen through from_numpy only
    view = shared.numpy()
    shared[1, :] = -1.0  # the tensor's memory is the array's: both see it

    class Rows(data.Dataset):
        def __init__(self, features, labels):
            self.features, self.labels = features, labels

        def __len__(self):
            return len(self.features)

        def __getitem__(self, i):
            return torch.from_numpy(self.features[i]).float(), int(self.labels[i])

    features = rng.uniform(-1, 1, (11, 4))
    labels = rng.integers(0, 3, 11)
    loader = data.DataLoader(Rows(features, labels), batch_size=4)
    batch_means, batch_labels, dtypes = [], [], []
    for xb, yb in loader:
        batch_means.append(xb.mean().item())
        batch_labels.append(yb.tolist())
        dtypes.append(str(xb.dtype).split(".")[-1] + " " + str(yb.dtype).split(".")[-1])

    return {
        "shared": shared, "copied": copied, "converted": converted,
        "array": array, "view_is_array": bool(np.shares_memory(view, array)),
        "float64_in": str(torch.from_numpy(features).dtype).split(".")[-1],
        "as_numpy": np.asarray(copied.float() * 2),
        "batch_means": batch_means, "batch_labels": batch_labels, "dtypes": dtypes,
    }

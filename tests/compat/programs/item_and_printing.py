"""Printing progress: ``loss.item()``, f-strings such as ``f"{loss:.4f}"`` on a 0-d tensor
and ``f"{loss.item():>7f}"``, ``tolist()``, ``int(t)``, ``float(t)`` and ``len(t)``.

Compared: each printed line (the words exactly; numbers within a unit of their last digit)
and the converted values with their Python types.
"""
import numpy as np

TOLERANCE = dict(rtol=1e-6, atol=1e-7)


def run(torch, nn, F, optim, data):
    rng = np.random.default_rng(2)
    pred = torch.tensor(rng.standard_normal((6, 4)), dtype=torch.float32)
    target = torch.tensor(rng.integers(0, 4, 6))
    loss = F.cross_entropy(pred, target)
    correct = (pred.argmax(dim=1) == target).sum()

    lines = [f"loss {loss:.4f}", f"loss: {loss.item():>7f}",
             f"epoch {3:2d}: train loss {loss.item():.3f}, correct {correct.item()}/6",
             f"accuracy {100 * correct.item() / 6:.1f}%"]
    return {"lines": lines, "item": loss.item(), "item_type": type(loss.item()).__name__,
            "int": int(correct), "float": float(loss), "list": target.tolist(),
            "nested": pred[:2, :2].tolist(), "len": len(pred),
            "correct_type": type(correct.item()).__name__}

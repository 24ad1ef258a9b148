"""The bigram model as a one-layer net: inputs encoded by ``F.one_hot(xs,
num_classes=27).float()``, logits ``xenc @ W``, softmax written out (``exp``, ``sum(1,
keepdims=True)``), the loss ``-probs[torch.arange(num), ys].log().mean()`` plus a weight
penalty, and gradient descent by hand (``W.grad = None``, ``W.data += -lr * W.grad``).

W starts from numpy's draws (``torch.randn(..., generator=g)`` would differ between the
libraries). Compared: the one-hot encoding, the loss every 20 steps and the final W.
"""
import numpy as np

TOLERANCE = dict(rtol=2e-4, atol=1e-5)

SYLLABLES = ["ar", "be", "cy", "dor", "el", "fi", "gan", "ho", "is", "jun", "ko", "lu"]


def run(torch, nn, F, optim, data):
    rng = np.random.default_rng(19)
    names = ["".join(rng.choice(SYLLABLES, rng.integers(1, 4))) for _ in range(120)]
    chars = sorted(set("".join(names)))
    stoi = {s: i + 1 for i, s in enumerate(chars)}
    stoi["."] = 0

    xs, ys = [], []
    for w in names:
        chs = ["."] + list(w) + ["."]
        for ch1, ch2 in zip(chs, chs[1:]):
            xs.append(stoi[ch1])
            ys.append(stoi[ch2])
    xs = torch.tensor(xs)
    ys = torch.tensor(ys)
    num = xs.nelement()

    W = torch.tensor(rng.standard_normal((27, 27)), dtype=torch.float32, requires_grad=True)
    xenc = F.one_hot(xs, num_classes=27).float()

    losses = []
    for k in range(100):
        logits = xenc @ W  # log-counts
        counts = logits.exp()
        probs = counts / counts.sum(1, keepdims=True)
        loss = -probs[torch.arange(num), ys].log().mean() + 0.01 * (W ** 2).mean()
        if k % 20 == 0:
            losses.append(loss.item())
        W.grad = None
        loss.backward()
        W.data += -10 * W.grad

    return {"first_rows": xenc[:3], "losses": losses, "W": W}

"""A character-level MLP in the makemore style: a context of 3 characters, an embedding table
looked up as ``C[X]``, ``emb.view(-1, 6)``, ``torch.tanh``, ``F.cross_entropy``, parameters
listed with ``p.requires_grad = True``, minibatches and a learning rate decayed by hand.

The minibatch indices come from numpy up front; ``torch.randint(0, n, (32,), generator=g)``
is called too, and only its range, shape and dtype are compared (its draws differ).
Compared: the loss every 25 steps, the full-data loss at the end, and the embedding table.
"""
import numpy as np

TOLERANCE = dict(rtol=5e-4, atol=2e-5)

SYLLABLES = ["na", "ri", "tho", "ell", "mu", "sa", "ko", "div", "ane", "le"]


def run(torch, nn, F, optim, data):
    rng = np.random.default_rng(23)
    words = ["".join(rng.choice(SYLLABLES, rng.integers(1, 4))) for _ in range(200)]
    chars = sorted(set("".join(words)))
    stoi = {s: i + 1 for i, s in enumerate(chars)}
    stoi["."] = 0
    vocab_size = len(stoi)

    block_size = 3
    X, Y = [], []
    for w in words:
        context = [0] * block_size
        for ch in w + ".":
            ix = stoi[ch]
            X.append(context)
            Y.append(ix)
            context = context[1:] + [ix]
    X = torch.tensor(X)
    Y = torch.tensor(Y)

    g = torch.Generator().manual_seed(2147483647)
    probe = torch.randint(0, X.shape[0], (32,), generator=g)
    randint_ok = [list(probe.shape), str(probe.dtype).split(".")[-1],
                  bool((probe >= 0).all() and (probe < X.shape[0]).all())]

    C = torch.tensor(rng.standard_normal((vocab_size, 2)), dtype=torch.float32)
    W1 = torch.tensor(rng.standard_normal((6, 40)) * 0.3, dtype=torch.float32)
    b1 = torch.tensor(rng.standard_normal(40) * 0.01, dtype=torch.float32)
    W2 = torch.tensor(rng.standard_normal((40, vocab_size)) * 0.1, dtype=torch.float32)
    b2 = torch.zeros(vocab_size)
    parameters = [C, W1, b1, W2, b2]
    for p in parameters:
        p.requires_grad = True
    count = sum(p.nelement() for p in parameters)

    batches = rng.integers(0, X.shape[0], (300, 32))
    losses = []
    for i in range(300):
        ix = torch.tensor(batches[i])
        emb = C[X[ix]]  # (32, 3, 2)
        h = torch.tanh(emb.view(-1, 6) @ W1 + b1)  # (32, 40)
        logits = h @ W2 + b2  # (32, vocab_size)
        loss = F.cross_entropy(logits, Y[ix])
        for p in parameters:
            p.grad = None
        loss.backward()
        lr = 0.1 if i < 200 else 0.01
        for p in parameters:
            p.data += -lr * p.grad
        if i % 25 == 0:
            losses.append(loss.item())

    emb = C[X]
    h = torch.tanh(emb.view(-1, 6) @ W1 + b1)
    full_loss = F.cross_entropy(h @ W2 + b2, Y)
    return {"randint": randint_ok, "count": count, "losses": losses,
            "full_loss": full_loss.item(), "C": C}

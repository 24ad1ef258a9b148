"""A makemore-style MLP written with modules: ``nn.Embedding`` for the character table, a
context of four characters flattened with ``.view(B, -1)``, ``nn.Linear`` and ``nn.Tanh``,
trained with ``optim.SGD`` on minibatches, then sampled greedily (``argmax``) from a
context of dots.

PyTorch's initial weights are copied into nnbook's model. Compared: the number of
parameters, the loss every 20 steps, the full-data loss, the embedding's gradient and the
greedy sample.
"""
import numpy as np

TOLERANCE = dict(rtol=5e-4, atol=2e-5)

NAMES = ["ada", "bo", "cleo", "dan", "eli", "fay", "gus", "hal", "ivo", "jo", "kai", "lea"]
BLOCK = 4


def model(torch, nn):
    class CharMLP(nn.Module):
        def __init__(self, vocab=27, dim=5, hidden=37):
            super().__init__()
            self.emb = nn.Embedding(vocab, dim)
            self.hidden = nn.Sequential(nn.Linear(BLOCK * dim, hidden), nn.Tanh())
            self.out = nn.Linear(hidden, vocab)

        def forward(self, idx):
            x = self.emb(idx)  # (B, BLOCK, dim)
            return self.out(self.hidden(x.view(x.shape[0], -1)))
    return CharMLP()


def run(torch, nn, F, optim, data, model):
    stoi = {c: i + 1 for i, c in enumerate("abcdefghijklmnopqrstuvwxyz")}
    stoi["."] = 0
    itos = {i: c for c, i in stoi.items()}
    xs, ys = [], []
    for name in NAMES:
        context = [0] * BLOCK
        for ch in name + ".":
            xs.append(context)
            ys.append(stoi[ch])
            context = context[1:] + [stoi[ch]]
    X, Y = torch.tensor(xs), torch.tensor(ys)

    rng = np.random.default_rng(53)
    optimizer = optim.SGD(model.parameters(), lr=0.2)
    losses = []
    for step in range(120):
        ix = torch.tensor(rng.integers(0, len(X), 16))
        loss = F.cross_entropy(model(X[ix]), Y[ix])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 20 == 0:
            losses.append(loss.item())
    emb_grad = model.emb.weight.grad

    model.eval()
    with torch.no_grad():
        full = F.cross_entropy(model(X), Y).item()
        context, sample = [0] * BLOCK, []
        for _ in range(6):
            ix = model(torch.tensor([context])).argmax(dim=1).item()
            sample.append(itos[ix])
            context = context[1:] + [ix]
    return {"count": sum(p.numel() for p in model.parameters()), "losses": losses,
            "full_loss": full, "emb_grad": emb_grad, "sample": "".join(sample)}

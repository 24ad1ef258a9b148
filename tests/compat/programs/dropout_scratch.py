"""Dropout from scratch: ``mask = (torch.rand(X.shape) > dropout).float()`` and
``mask * X / (1.0 - dropout)``, with the two ends handled separately, inside a net's
``forward`` that applies it only while training.

The masks come from the libraries' own generators, so they differ. Compared: the ends
(dropout 0 gives X, dropout 1 gives zeros), that every kept value is X / (1 - p), the kept
fraction of a large tensor (about 1 - p), and the net's output in eval mode.
"""
import numpy as np

TOLERANCE = dict(rtol=1e-6, atol=1e-6)
TOLERANCE_FOR = {"kept_fraction": dict(rtol=0, atol=0.01)}  # 40 000 draws: sd 0.0025


def run(torch, nn, F, optim, data):
    def dropout_layer(X, dropout):
        assert 0 <= dropout <= 1
        if dropout == 1:  # every element dropped
            return torch.zeros_like(X)
        if dropout == 0:  # every element kept
            return X
        mask = (torch.rand(X.shape) > dropout).float()
        return mask * X / (1.0 - dropout)

    rng = np.random.default_rng(12)
    X = torch.tensor(rng.uniform(1, 2, (200, 200)), dtype=torch.float32)
    out = dropout_layer(X, 0.3)
    kept = out != 0
    scaled_right = bool(torch.allclose(out[kept], X[kept] / 0.7))

    class Net(nn.Module):
        def __init__(self, W1, W2, p):
            super().__init__()
            self.lin1 = nn.Linear(W1.shape[1], W1.shape[0])
            self.lin2 = nn.Linear(W2.shape[1], W2.shape[0])
            with torch.no_grad():
                self.lin1.weight.copy_(torch.tensor(W1))
                self.lin2.weight.copy_(torch.tensor(W2))
                self.lin1.bias.zero_()
                self.lin2.bias.zero_()
            self.p = p

        def forward(self, X):
            H = torch.relu(self.lin1(X))
            if self.training:
                H = dropout_layer(H, self.p)
            return self.lin2(H)

    net = Net(rng.standard_normal((9, 5)).astype(np.float32),
              rng.standard_normal((2, 9)).astype(np.float32), 0.5)
    inputs = torch.tensor(rng.standard_normal((7, 5)), dtype=torch.float32)
    train_out = net(inputs)
    net.eval()
    eval_out = net(inputs)

    return {"p0": dropout_layer(X[:3, :4], 0.0), "p1": dropout_layer(X[:3, :4], 1.0),
            "scaled_right": scaled_right, "kept_fraction": kept.float().mean().item(),
            "train_shape": list(train_out.shape), "eval_out": eval_out}

"""Batch normalisation written as an ``nn.Module`` of our own (``nn.Parameter`` for gamma and
beta, ``register_buffer`` for the running statistics, ``self.training`` choosing the path),
put in a small CNN beside a twin CNN that uses ``nn.BatchNorm2d``; both trained together
with the same weights on the same batches.

The running variance is updated with the unbiased batch variance, as ``nn.BatchNorm2d``
does. Compared: both nets' losses, our running mean and variance against the layer's, the
eval-mode outputs of both, and the gradients of gamma and the layer's weight.
"""
import numpy as np

TOLERANCE = dict(rtol=2e-4, atol=2e-6)


def run(torch, nn, F, optim, data):
    class OurBatchNorm2d(nn.Module):
        def __init__(self, channels, eps=1e-5, momentum=0.1):
            super().__init__()
            self.eps, self.momentum = eps, momentum
            self.gamma = nn.Parameter(torch.ones(channels))
            self.beta = nn.Parameter(torch.zeros(channels))
            self.register_buffer("moving_mean", torch.zeros(channels))
            self.register_buffer("moving_var", torch.ones(channels))

        def forward(self, X):
            if self.training:
                mean = X.mean(dim=(0, 2, 3))
                var = X.var(dim=(0, 2, 3), unbiased=False)
                n = X.numel() / X.shape[1]
                with torch.no_grad():
                    m = self.momentum
                    self.moving_mean.mul_(1 - m).add_(m * mean)
                    self.moving_var.mul_(1 - m).add_(m * var * n / (n - 1))
            else:
                mean, var = self.moving_mean, self.moving_var
            X_hat = (X - mean[None, :, None, None]) / torch.sqrt(var[None, :, None, None]
                                                                 + self.eps)
            return self.gamma.view(1, -1, 1, 1) * X_hat + self.beta.view(1, -1, 1, 1)

    def net(norm):
        return nn.Sequential(nn.Conv2d(2, 4, 3), norm, nn.ReLU(), nn.Flatten(),
                             nn.Linear(4 * 5 * 3, 3))

    rng = np.random.default_rng(52)
    ours, theirs = net(OurBatchNorm2d(4)), net(nn.BatchNorm2d(4))
    with torch.no_grad():
        for (name, p), q in zip(ours.named_parameters(), theirs.parameters()):
            if name.startswith("0.") or name.startswith("4."):
                p.copy_(torch.tensor(rng.normal(0, 0.4, tuple(p.shape)), dtype=torch.float32))
            q.copy_(p)
    opt_ours = optim.SGD(ours.parameters(), lr=0.1)
    opt_theirs = optim.SGD(theirs.parameters(), lr=0.1)
    losses = []
    for _ in range(4):
        X = torch.tensor(rng.normal(1, 2, (5, 2, 7, 5)), dtype=torch.float32)
        y = torch.tensor(rng.integers(0, 3, 5))
        pair = []
        for model, opt in ((ours, opt_ours), (theirs, opt_theirs)):
            opt.zero_grad()
            loss = F.cross_entropy(model(X), y)
            loss.backward()
            opt.step()
            pair.append(loss.item())
        losses.append(pair)
    gamma_grad, weight_grad = ours[1].gamma.grad, theirs[1].weight.grad

    ours.eval()
    theirs.eval()
    X = torch.tensor(rng.normal(1, 2, (3, 2, 7, 5)), dtype=torch.float32)
    with torch.no_grad():
        out_ours, out_theirs = ours(X), theirs(X)
    return {"losses": losses, "moving_mean": ours[1].moving_mean,
            "running_mean": theirs[1].running_mean, "moving_var": ours[1].moving_var,
            "running_var": theirs[1].running_var,
            "same_eval": bool(torch.allclose(out_ours, out_theirs, atol=1e-5)),
            "eval_ours": out_ours, "eval_theirs": out_theirs,
            "gamma_grad": gamma_grad, "weight_grad": weight_grad,
            "buffers": [name for name, _ in ours.named_buffers()]}

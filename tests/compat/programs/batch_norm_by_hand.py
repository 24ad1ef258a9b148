"""Batch normalisation written out: ``X.mean(dim=(0, 2, 3), keepdim=True)`` and the biased
variance for the batch, running statistics updated by ``momentum``, the eval path using
them, learnable ``gamma`` and ``beta``; checked against ``nn.BatchNorm2d`` and
``nn.BatchNorm1d`` on the same data.

Compared: outputs in training and eval mode, the running mean and variance after three
batches, the layers' running statistics (PyTorch's keeps the unbiased variance), and the
gradients of gamma and beta.
"""
import numpy as np

TOLERANCE = dict(rtol=1e-5, atol=1e-6)


def run(torch, nn, F, optim, data):
    def batch_norm(X, gamma, beta, moving_mean, moving_var, eps, momentum, training):
        if not training:
            X_hat = (X - moving_mean) / torch.sqrt(moving_var + eps)
        else:
            if len(X.shape) == 2:
                mean = X.mean(dim=0)
                var = ((X - mean) ** 2).mean(dim=0)
            else:
                mean = X.mean(dim=(0, 2, 3), keepdim=True)
                var = ((X - mean) ** 2).mean(dim=(0, 2, 3), keepdim=True)
            X_hat = (X - mean) / torch.sqrt(var + eps)
            moving_mean = (1.0 - momentum) * moving_mean + momentum * mean
            moving_var = (1.0 - momentum) * moving_var + momentum * var
        return gamma * X_hat + beta, moving_mean.data, moving_var.data

    rng = np.random.default_rng(31)
    batches = [torch.tensor(rng.standard_normal((6, 3, 5, 7)) * 2 + 1, dtype=torch.float32)
               for _ in range(3)]
    shape = (1, 3, 1, 1)
    gamma = torch.ones(shape, requires_grad=True)
    beta = torch.zeros(shape, requires_grad=True)
    moving_mean, moving_var = torch.zeros(shape), torch.ones(shape)
    layer = nn.BatchNorm2d(3, momentum=0.1)

    outs, layer_outs = [], []
    for X in batches:
        Y, moving_mean, moving_var = batch_norm(X, gamma, beta, moving_mean, moving_var,
                                                eps=1e-5, momentum=0.1, training=True)
        outs.append(Y)
        layer_outs.append(layer(X))
    weights = torch.tensor(rng.standard_normal((6, 3, 5, 7)), dtype=torch.float32)
    (outs[-1] * weights).sum().backward()

    eval_out, _, _ = batch_norm(batches[0], gamma, beta, moving_mean, moving_var,
                                eps=1e-5, momentum=0.1, training=False)
    layer.eval()
    with torch.no_grad():
        layer_eval = layer(batches[0])

    flat = torch.tensor(rng.standard_normal((11, 4)), dtype=torch.float32)
    Y1, _, _ = batch_norm(flat, torch.ones(4), torch.zeros(4), torch.zeros(4), torch.ones(4),
                          1e-5, 0.1, True)
    return {"train_out": outs[-1], "matches_layer": torch.allclose(outs[-1], layer_outs[-1],
                                                                   atol=1e-5),
            "moving_mean": moving_mean, "moving_var": moving_var,
            "layer_running_mean": layer.running_mean, "layer_running_var": layer.running_var,
            "eval_out": eval_out, "layer_eval": layer_eval,
            "gamma_grad": gamma.grad, "beta_grad": beta.grad,
            "flat": Y1, "flat_layer": nn.BatchNorm1d(4)(flat)}

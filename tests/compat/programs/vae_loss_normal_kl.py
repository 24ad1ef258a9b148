"""A VAE's loss, as tutorials write it with ``torch.distributions``: the encoder gives
``mu`` and ``log_var``, ``q = Normal(mu, (0.5 * log_var).exp())``, the code is
``z = q.rsample()``, the reconstruction term is ``-Independent(Bernoulli(logits=...),
1).log_prob(x)`` and the regulariser ``kl_divergence(q, Normal(0, 1))``; a few Adam steps.

The noise of ``rsample`` comes from each library's own generator, so the training steps
use the reparameterisation written with fixed noise (``mu + std * eps``, eps from numpy)
and ``rsample`` is checked for what does not depend on its draws. Compared: the KL and
reconstruction terms, the loss and the weights after the steps, the gradients that
``rsample`` passes to mu and log_var's sum (ones, and the noise itself), log_prob and
entropy of q, and the shapes of draws.
"""
import numpy as np

TOLERANCE = dict(rtol=2e-5, atol=2e-6)


def run(torch, nn, F, optim, data):
    D = torch.distributions
    rng = np.random.default_rng(7)
    x = torch.tensor((rng.random((16, 12)) < 0.3).astype(np.float32))
    eps = torch.tensor(rng.standard_normal((16, 3)).astype(np.float32))

    class VAE(nn.Module):
        def __init__(self):
            super().__init__()
            self.enc = nn.Linear(12, 8)
            self.mu = nn.Linear(8, 3)
            self.log_var = nn.Linear(8, 3)
            self.dec = nn.Linear(3, 12)
            with torch.no_grad():
                for layer in (self.enc, self.mu, self.log_var, self.dec):
                    w = rng.standard_normal(tuple(layer.weight.shape)) * 0.3
                    layer.weight.copy_(torch.tensor(w.astype(np.float32)))
                    layer.bias.zero_()

        def encode(self, x):
            h = torch.tanh(self.enc(x))
            return self.mu(h), self.log_var(h)

    model = VAE()
    opt = optim.Adam(model.parameters(), lr=0.01)
    prior = D.Normal(torch.zeros(3), torch.ones(3))
    losses = []
    for _ in range(5):
        mu, log_var = model.encode(x)
        q = D.Normal(mu, (0.5 * log_var).exp())
        z = mu + q.stddev * eps  # rsample with fixed noise
        recon = -D.Independent(D.Bernoulli(logits=model.dec(z)), 1).log_prob(x)
        kl = D.kl_divergence(q, prior).sum(-1)
        loss = (recon + kl).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())

    mu, log_var = model.encode(x)
    q = D.Normal(mu, (0.5 * log_var).exp())
    mu_leaf = mu.detach().requires_grad_()
    log_var_leaf = log_var.detach().requires_grad_()
    q_leaf = D.Normal(mu_leaf, (0.5 * log_var_leaf).exp())
    z = q_leaf.rsample()
    z.sum().backward()
    noise = (z - mu_leaf) / q_leaf.scale  # what rsample drew
    noise_grad_ok = bool(torch.allclose(log_var_leaf.grad, 0.5 * q_leaf.scale * noise,
                                        atol=1e-6))
    draws = q.sample((10,))

    return {"losses": losses, "kl": D.kl_divergence(q, prior).sum(-1),
            "log_prob": q.log_prob(mu + 0.5), "entropy": q.entropy(),
            "mu_grad": mu_leaf.grad, "noise_grad_ok": noise_grad_ok,
            "draw_shape": list(draws.shape), "draw_grad": draws.requires_grad,
            "dec_weight": model.dec.weight}

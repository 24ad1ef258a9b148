"""Adam written from scratch, as courses write it: the moments updated in place with
``mul_``, ``add_`` and ``addcmul_``, the step taken with ``addcdiv_`` under
``torch.no_grad()``, on a two-layer net whose layers are ``torch.addmm(bias, x, weight)``;
beside it the same net trained by ``optim.Adam``.

Compared: the losses every 20 steps of both runs, the final parameters of both and the
second moments of the one written by hand.
"""
import numpy as np

TOLERANCE = dict(rtol=1e-4, atol=1e-5)


def run(torch, nn, F, optim, data):
    rng = np.random.default_rng(0)
    x = torch.tensor(rng.standard_normal((64, 5)), dtype=torch.float32)
    y = torch.tensor(np.sin(rng.standard_normal((64, 1))), dtype=torch.float32)
    start = [rng.standard_normal(shape) * 0.3 for shape in [(5, 16), (16,), (16, 1), (1,)]]

    def fresh():
        return [torch.tensor(p, dtype=torch.float32, requires_grad=True) for p in start]

    def net(params, x):
        w1, b1, w2, b2 = params
        hidden = torch.addmm(b1, x, w1).tanh()
        return torch.addmm(b2, hidden, w2)

    lr, (beta1, beta2), eps = 0.01, (0.9, 0.999), 1e-8

    by_hand = fresh()
    exp_avg = [torch.zeros_like(p) for p in by_hand]
    exp_avg_sq = [torch.zeros_like(p) for p in by_hand]
    losses = []
    for step in range(1, 101):
        loss = F.mse_loss(net(by_hand, x), y)
        for p in by_hand:
            p.grad = None
        loss.backward()
        with torch.no_grad():
            for p, m, v in zip(by_hand, exp_avg, exp_avg_sq):
                m.mul_(beta1).add_(p.grad, alpha=1 - beta1)
                v.mul_(beta2).addcmul_(p.grad, p.grad, value=1 - beta2)
                denom = (v / (1 - beta2 ** step)).sqrt().add_(eps)
                p.addcdiv_(m, denom, value=-lr / (1 - beta1 ** step))
        if step % 20 == 0:
            losses.append(loss.item())

    with_adam = fresh()
    optimizer = optim.Adam(with_adam, lr=lr, betas=(beta1, beta2), eps=eps)
    adam_losses = []
    for step in range(1, 101):
        optimizer.zero_grad()
        loss = F.mse_loss(net(with_adam, x), y)
        loss.backward()
        optimizer.step()
        if step % 20 == 0:
            adam_losses.append(loss.item())

    return {"losses": losses, "adam_losses": adam_losses, "by_hand": by_hand,
            "with_adam": with_adam, "exp_avg_sq": exp_avg_sq}

"""A custom ``torch.autograd.Function`` for a clipped activation (ReLU capped at 1), with
``ctx.save_for_backward`` and a mask in backward, used in a two-layer net trained by hand.

Compared: the activation's gradient on points on both sides of each kink against
``clamp(0, 1)``'s, the loss every 40 steps, and the trained weights.
"""
import numpy as np

TOLERANCE = dict(rtol=1e-4, atol=1e-6)


def run(torch, nn, F, optim, data):

    class ClippedReLU(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.clamp(min=0.0, max=1.0)

        @staticmethod
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            inside = (x > 0) & (x < 1)
            return grad_output * inside.to(grad_output.dtype)

    probe = torch.tensor([-0.5, 0.25, 0.75, 1.5], requires_grad=True)
    ClippedReLU.apply(probe).sum().backward()
    custom = probe.grad.clone()
    probe.grad.zero_()
    probe.clamp(0.0, 1.0).sum().backward()

    rng = np.random.default_rng(3)
    X = torch.tensor(rng.uniform(-1, 1, (64, 3)), dtype=torch.float32)
    Y = torch.tensor(np.sin(2 * rng.uniform(-1, 1, (64, 1))), dtype=torch.float32)
    W1 = torch.tensor(rng.standard_normal((3, 9)) * 0.6, dtype=torch.float32, requires_grad=True)
    W2 = torch.tensor(rng.standard_normal((9, 1)) * 0.3, dtype=torch.float32, requires_grad=True)

    clipped = ClippedReLU.apply
    losses = []
    for step in range(200):
        loss = ((clipped(X @ W1) @ W2 - Y) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            W1 -= 0.1 * W1.grad
            W2 -= 0.1 * W2.grad
            W1.grad.zero_()
            W2.grad.zero_()
        if step % 40 == 0:
            losses.append(loss.item())

    return {"custom_grad": custom, "clamp_grad": probe.grad, "losses": losses,
            "W1": W1, "W2": W2}

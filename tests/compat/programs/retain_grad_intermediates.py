"""Inspecting gradients of intermediate values: ``retain_grad()`` on the non-leaf tensors of
a small forward pass, then ``is_leaf``, ``grad_fn is None`` and each ``.grad`` after
``backward()``, as when checking a manual backward pass line by line.

Compared: the loss, the leaf and intermediate gradients, and which tensors are leaves.
"""
import numpy as np

TOLERANCE = dict(rtol=1e-10, atol=1e-12)


def run(torch, nn, F, optim, data):
    rng = np.random.default_rng(30)
    x = torch.tensor(rng.standard_normal((7, 5)))  # float64 throughout
    w = torch.tensor(rng.standard_normal((5, 3)), requires_grad=True)
    b = torch.tensor(rng.standard_normal(3), requires_grad=True)
    y = torch.tensor(rng.integers(0, 3, 7))

    hpre = x @ w + b
    h = torch.tanh(hpre)
    logits = h * 2.0
    counts = logits.exp()
    probs = counts / counts.sum(1, keepdim=True)
    logprobs = probs.log()
    loss = -logprobs[range(7), y].mean()

    intermediates = [hpre, h, logits, counts, probs, logprobs]
    for t in intermediates:
        t.retain_grad()
    loss.backward()

    # the gradient of the loss with respect to logits, worked out by hand
    dlogits = probs.detach().clone()
    dlogits[range(7), y] -= 1
    dlogits /= 7

    return {"loss": loss.item(), "w_grad": w.grad, "b_grad": b.grad,
            "grads": [t.grad for t in intermediates], "dlogits_by_hand": dlogits,
            "leaves": [t.is_leaf for t in (x, w, b, hpre, loss)],
            "has_grad_fn": [t.grad_fn is not None for t in (x, w, hpre, loss)],
            "x_grad_is_none": x.grad is None}

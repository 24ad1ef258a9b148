"""Masks and choices: ``torch.where(x > 0, x, 0.01 * x)`` as a leaky ReLU, ``torch.clamp``
and ``clamp(min=...)``, boolean masks combined with ``&``, ``|`` and ``~``, ``x[mask]``,
``x[mask] = 0``, ``masked_fill`` for an attention-style causal mask, and gradients through
``where`` and ``clamp``.

Compared: every value, the count of selected elements, and the gradients.
"""
import numpy as np

TOLERANCE = dict(rtol=1e-12, atol=1e-12)


def run(torch, nn, F, optim, data):
    rng = np.random.default_rng(33)
    x = torch.tensor(rng.standard_normal((7, 5)), requires_grad=True)  # float64

    leaky = torch.where(x > 0, x, 0.01 * x)
    clipped = torch.clamp(x, -0.5, 0.5)
    floor_only = x.clamp(min=0.2)
    (leaky.sum() + (clipped * 3).sum() + floor_only.pow(2).sum()).backward()

    values = x.detach().clone()
    positive, big = values > 0, values.abs() > 1
    both, either, neither = positive & big, positive | big, ~(positive | big)
    selected = values[both]
    values[~positive] = 0.0

    scores = torch.tensor(rng.standard_normal((4, 4)))
    causal = torch.tril(torch.ones(4, 4)) == 0
    attention = torch.softmax(scores.masked_fill(causal, float("-inf")), dim=-1)

    return {"leaky": leaky, "clipped": clipped, "floor_only": floor_only, "grad": x.grad,
            "counts": [int(both.sum()), int(either.sum()), int(neither.sum())],
            "selected": selected, "zeroed": values, "attention": attention,
            "any_all": [bool(big.any()), bool(big.all()), bool((x.detach() > -9).all())]}

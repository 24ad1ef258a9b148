"""Reproducibility with ``torch.manual_seed``: the same seed gives the same draws (rand,
randn, randint, randperm, a layer's initial weights, dropout's mask), another seed other
draws, and a ``torch.Generator`` keeps its own stream.

The libraries' numbers themselves differ (their generators differ). Compared: only these
equalities and the draws' shapes, dtypes and ranges.
"""

TOLERANCE = dict(rtol=0, atol=0)


def run(torch, nn, F, optim, data):
    def draws():
        return [torch.rand(3, 2), torch.randn(4), torch.randint(0, 10, (5,)),
                torch.randperm(6), nn.Linear(3, 2).weight.detach(),
                F.dropout(torch.ones(20), p=0.5)]

    torch.manual_seed(42)
    first = draws()
    torch.manual_seed(42)
    again = draws()
    torch.manual_seed(43)
    other = draws()

    g = torch.Generator().manual_seed(7)
    from_g = torch.rand(4, generator=g)
    g.manual_seed(7)
    torch.rand(4)  # the global stream moves; g's does not
    from_g_again = torch.rand(4, generator=g)

    return {"same_seed_same": [bool(torch.equal(a, b)) for a, b in zip(first, again)],
            "other_seed_differs": [not torch.equal(a, b) for a, b in zip(first, other)],
            "generator_repeats": bool(torch.equal(from_g, from_g_again)),
            "shapes": [list(t.shape) for t in first],
            "dtypes": [str(t.dtype).split(".")[-1] for t in first],
            "in_range": [bool(((0 <= first[0]) & (first[0] < 1)).all()),
                         sorted(first[3].tolist()) == list(range(6))]}

"""A REINFORCE update as the policy-gradient tutorials write it: a policy network's
scores become ``Categorical(logits=...)``, actions are drawn with ``dist.sample()``, and
the loss is ``-(dist.log_prob(actions) * returns).mean()`` minus a small entropy bonus.

The drawn actions come from each library's own generator, so the updates use actions
and returns fixed by numpy (as if replayed from a buffer). Compared: the losses, the
policy's weights after the updates, the probabilities it ends with; and, per library,
that drawn actions are valid class numbers of the right shape and dtype with no gradient.
"""
import numpy as np

TOLERANCE = dict(rtol=2e-5, atol=2e-6)


def run(torch, nn, F, optim, data):
    D = torch.distributions
    rng = np.random.default_rng(3)
    states = torch.tensor(rng.standard_normal((20, 4)).astype(np.float32))
    actions = torch.tensor(rng.integers(0, 3, 20))
    returns = torch.tensor(rng.standard_normal(20).astype(np.float32))

    policy = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3))
    with torch.no_grad():
        for layer in (policy[0], policy[2]):
            layer.weight.copy_(torch.tensor(
                (rng.standard_normal(tuple(layer.weight.shape)) * 0.5).astype(np.float32)))
            layer.bias.fill_(0.1)
    opt = optim.SGD(policy.parameters(), lr=0.1)

    losses = []
    for _ in range(4):
        dist = D.Categorical(logits=policy(states))
        returns_n = (returns - returns.mean()) / (returns.std() + 1e-8)
        loss = -(dist.log_prob(actions) * returns_n).mean() - 0.01 * dist.entropy().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())

    with torch.no_grad():
        dist = D.Categorical(logits=policy(states))
    drawn = dist.sample()
    valid = bool(((drawn >= 0) & (drawn < 3)).all())

    return {"losses": losses, "probs": dist.probs, "weight": policy[2].weight,
            "drawn_shape": list(drawn.shape), "drawn_dtype": str(drawn.dtype).split(".")[-1],
            "drawn_valid": valid, "drawn_grad": drawn.requires_grad,
            "best_action": dist.probs.argmax(-1)}

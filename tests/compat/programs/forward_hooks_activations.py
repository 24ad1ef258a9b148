"""Looking inside a network with forward hooks: ``register_forward_hook`` on every
``nn.ReLU`` found by ``named_modules()``, each hook storing ``output.detach()`` in a dict by
layer name, statistics of the activations (mean, fraction of dead units), a hook that
returns a changed output, and ``handle.remove()`` so the next call runs without hooks.

PyTorch's initial weights are copied into nnbook's model. Compared: the names hooked, the
activations caught, their statistics, the output changed by the hook and that no hook runs
after the handles are removed.
"""
import numpy as np

TOLERANCE = dict(rtol=1e-5, atol=1e-6)


def model(torch, nn):
    return nn.Sequential(nn.Linear(5, 11), nn.ReLU(), nn.Linear(11, 7), nn.ReLU(),
                         nn.Linear(7, 3))


def run(torch, nn, F, optim, data, model):
    rng = np.random.default_rng(57)
    X = torch.tensor(rng.normal(0, 1, (13, 5)), dtype=torch.float32)
    activations, calls = {}, []

    def save_to(name):
        def hook(module, inputs, output):
            calls.append(name)
            activations[name] = output.detach()
        return hook

    handles = []
    for name, module in model.named_modules():
        if isinstance(module, nn.ReLU):
            handles.append(module.register_forward_hook(save_to(name)))
    out = model(X)
    stats = {name: [a.mean().item(), (a == 0).float().mean().item(), list(a.shape)]
             for name, a in activations.items()}

    def halve(module, inputs, output):
        return output * 0.5
    halving = model[4].register_forward_hook(halve)
    halved = model(X)
    halving.remove()
    for h in handles:
        h.remove()
    calls_before = len(calls)
    again = model(X)
    return {"hooked": list(activations), "relu1": activations["1"], "stats": stats,
            "out": out, "halved_ok": bool(torch.allclose(halved, out * 0.5)),
            "calls": calls_before, "no_hooks_after_remove": len(calls) == calls_before,
            "same_after_remove": bool(torch.equal(again, out))}

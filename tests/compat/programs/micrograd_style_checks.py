"""Scalar expressions checked the way a from-scratch autograd engine is tested against
PyTorch: one-element float64 tensors from ``torch.Tensor([...]).double()`` with
``requires_grad = True``, expressions mixing ``+ * ** / relu tanh exp`` and Python numbers,
``backward()``, then ``.data.item()`` and ``.grad.item()``.

Compared: each expression's value and the gradients of its inputs between the libraries,
and whether the gradients agree with the derivatives worked out by hand.
"""
import math

TOLERANCE = dict(rtol=1e-12, atol=1e-12)


def run(torch, nn, F, optim, data):
    results = {}

    x = torch.Tensor([-3.0]).double()
    x.requires_grad = True
    z = 3 * x + 1 - x
    q = z.relu() + z * x
    h = (z * z).relu()
    y = h + q + q * x
    y.backward()
    # y = h + q (1 + x) with z = 2x + 1 < 0: h = z^2, q = z x
    by_hand = 2 * (2 * -3.0 + 1) * 2 + (2 * 2 * -3.0 + 1) * (1 - 3.0) + (2 * 9.0 - 3.0)
    results["first"] = [y.data.item(), x.grad.item()]
    results["first_by_hand"] = math.isclose(x.grad.item(), by_hand, rel_tol=1e-12)

    a = torch.Tensor([1.5]).double()
    b = torch.Tensor([-2.5]).double()
    a.requires_grad = True
    b.requires_grad = True
    c = a + b
    d = a * b + b ** 3
    c = c + c + 1
    c = c + 1 + c + (-a)
    d = d + d * 2 + (b + a).relu()
    d = d + 3 * d + (b - a).relu()
    e = c - d
    f = e ** 2
    g = f / 2.0
    g = g + 10.0 / f
    g.backward()
    results["second"] = [g.data.item(), a.grad.item(), b.grad.item()]

    w = torch.Tensor([0.7]).double()
    v = torch.Tensor([-0.4]).double()
    w.requires_grad = True
    v.requires_grad = True
    n = (w * 2.0 + v * -3.0 + 0.25)
    o = n.tanh()
    s = (2 * n).exp()
    o2 = (s - 1) / (s + 1)  # tanh written out
    total = o + o2  # 2 tanh(n): d total / dw = 2 * 2 * (1 - tanh(n)^2)
    total.backward()
    # (torch.Tensor makes float32 first: 0.7 arrives as 0.699999988...)
    dtanh = 1 - math.tanh(2 * w.item() - 3 * v.item() + 0.25) ** 2
    results["neuron"] = [o.item(), o2.item(), w.grad.item(), v.grad.item()]
    results["neuron_by_hand"] = [math.isclose(w.grad.item(), 2 * 2 * dtanh, rel_tol=1e-9),
                                 math.isclose(v.grad.item(), 2 * -3 * dtanh, rel_tol=1e-9)]
    return results

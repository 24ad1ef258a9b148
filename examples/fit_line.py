import nnbook as nb

x = nb.arange(-2.0, 2.0, 0.25)                      # 16 inputs
w, b = nb.zeros(1, requires_grad=True), nb.zeros(1, requires_grad=True)
for step in range(100):
    loss = ((w * x + b - (3 * x + 2)) ** 2).mean()  # how far w*x + b is from y = 3x + 2
    loss.backward()
    with nb.no_grad():                              # plain SGD: the update is not recorded
        w[...], b[...] = w - 0.1 * w.grad, b - 0.1 * b.grad
    w.grad = b.grad = None                          # gradients add up: clear them
print(f"w = {w.item():.3f}, b = {b.item():.3f}, loss = {loss.item():.1e}")

import nnbook as nb

nb.manual_seed(0)
x = nb.randn(200, 2)                                  # 200 points in the plane
y = (x[:, 0] * x[:, 1] > 0).long()                    # class 1 where the signs agree (XOR)
model = nb.nn.Sequential(nb.nn.Linear(2, 16), nb.nn.Tanh(), nb.nn.Linear(16, 2))
optimizer = nb.optim.Adam(model.parameters(), lr=0.05)
for _ in range(300):
    loss = nb.nn.functional.cross_entropy(model(x), y)
    optimizer.zero_grad()                             # gradients add up: clear them first
    loss.backward()                                   # d loss / d every parameter
    optimizer.step()
accuracy = (model(x).argmax(dim=1) == y).float().mean()
print(f"loss {loss.item():.3f}, training accuracy {accuracy.item():.0%}")

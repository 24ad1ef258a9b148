"""Character-level RNNs: a name classifier (``nn.Embedding`` then ``nn.GRU(batch_first=True)``,
the last layer's final hidden state ``h_n[-1]`` into an ``nn.Linear``, trained with SGD on
batches of names padded with '.' to the longest), and a generator (``nn.RNN`` with
tanh, one character at a time, the hidden state carried from step to step, ``F.softmax``
over a temperature and ``probs.multinomial(1, generator=g)`` with a seeded
``torch.Generator``).

Names are made up here from syllables. Sampled characters come from each library's own
generator, so they differ. Compared: the classifier's losses and predictions, the
generator's losses, the next-character probabilities at each step of a prompt fed one
character at a time (which must equal the probabilities of the whole prompt run at once),
a greedy name, and (per library) that a sample is reproducible with the same seed.
"""
import numpy as np

TOLERANCE = dict(rtol=2e-4, atol=2e-5)

GROUPS = [["ka", "ri", "mo", "ta"], ["vel", "dor", "gan", "thu"], ["ie", "ea", "ou", "ai"]]
LETTERS = "." + "".join(sorted(set("".join(s for g in GROUPS for s in g))))


def model(torch, nn):
    class Classifier(nn.Module):
        def __init__(self, n_letters, n_hidden, n_classes):
            super().__init__()
            self.embed = nn.Embedding(n_letters, 6)
            self.rnn = nn.GRU(6, n_hidden, num_layers=2, batch_first=True)
            self.out = nn.Linear(n_hidden, n_classes)

        def forward(self, x):
            _, h_n = self.rnn(self.embed(x))  # h_n: (num_layers, batch, hidden)
            return self.out(h_n[-1])

    class Generator(nn.Module):
        def __init__(self, n_letters, n_hidden):
            super().__init__()
            self.n_hidden = n_hidden
            self.rnn = nn.RNN(n_letters, n_hidden)  # one-hot inputs, (seq, batch, feature)
            self.decoder = nn.Linear(n_hidden, n_letters)

        def forward(self, x, hidden):
            output, hidden = self.rnn(x, hidden)
            return self.decoder(output), hidden

        def init_hidden(self, batch=1):
            return torch.zeros(1, batch, self.n_hidden)

    return nn.ModuleDict({"classify": Classifier(len(LETTERS), 10, len(GROUPS)),
                          "generate": Generator(len(LETTERS), 11)})


def run(torch, nn, F, optim, data, model):
    rng = np.random.default_rng(5)
    index = {c: i for i, c in enumerate(LETTERS)}
    classifier, generator = model["classify"], model["generate"]

    def word(group, n):
        return "".join(rng.choice(GROUPS[group], n))

    # -- the classifier: batches of names of one length (3 syllables), a class each
    opt = optim.SGD(classifier.parameters(), lr=0.1, momentum=0.9)
    class_losses = []
    for step in range(8):
        labels = rng.integers(0, len(GROUPS), 6)
        names = [word(g, 3) for g in labels]
        width = max(len(n) for n in names)
        x = torch.tensor([[index[c] for c in n.ljust(width, ".")] for n in names])
        loss = F.cross_entropy(classifier(x), torch.tensor(labels))
        opt.zero_grad()
        loss.backward()
        opt.step()
        class_losses.append(loss.item())
    test = [word(g, 2) for g in (0, 1, 2, 1)]
    with torch.no_grad():
        x = torch.tensor([[index[c] for c in n.ljust(6, ".")] for n in test])
        predictions = classifier(x).argmax(dim=1)

    # -- the generator: next character from the current one, hidden state carried along
    def one_hot(text):
        ids = torch.tensor([index[c] for c in text])
        return F.one_hot(ids, len(LETTERS)).float().unsqueeze(1)  # (seq, 1, letters)

    opt = optim.Adam(generator.parameters(), lr=0.01)
    gen_losses = []
    for step in range(10):
        name = "." + word(int(rng.integers(0, 3)), 3) + "."
        hidden = generator.init_hidden()
        logits, hidden = generator(one_hot(name[:-1]), hidden)
        target = torch.tensor([index[c] for c in name[1:]])
        loss = F.cross_entropy(logits.squeeze(1), target)
        opt.zero_grad()
        loss.backward()
        opt.step()
        gen_losses.append(loss.item())

    generator.eval()
    prompt = ".kar"
    with torch.no_grad():
        hidden = generator.init_hidden()
        step_probs = []
        for c in prompt:
            logits, hidden = generator(one_hot(c), hidden)
            step_probs.append(F.softmax(logits[0, 0] / 0.7, dim=-1))
        step_probs = torch.stack(step_probs)
        whole, _ = generator(one_hot(prompt), generator.init_hidden())
        at_once = torch.allclose(F.softmax(whole[:, 0] / 0.7, dim=-1), step_probs, atol=1e-6)

    def sample(start, max_length=12, g=None):
        with torch.no_grad():
            hidden = generator.init_hidden()
            out, c = start, start
            for _ in range(max_length):
                logits, hidden = generator(one_hot(c), hidden)
                probs = F.softmax(logits[0, 0] / 0.7, dim=-1)
                if g is None:
                    i = probs.argmax().item()
                else:
                    i = probs.multinomial(1, generator=g).item()
                c = LETTERS[i]
                if c == ".":
                    break
                out += c
            return out

    greedy = sample(".")
    first = sample(".", g=torch.Generator().manual_seed(7))
    second = sample(".", g=torch.Generator().manual_seed(7))

    return {"class_losses": class_losses, "predictions": predictions,
            "gen_losses": gen_losses, "step_probs": step_probs, "at_once": bool(at_once),
            "greedy": greedy, "reproducible": first == second}

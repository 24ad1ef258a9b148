"""A text classifier in the style of PyTorch's text classification tutorial: sentences of
word ids of different lengths concatenated into one 1-D tensor, with ``offsets`` from the
lengths' cumulative sum, pooled by ``nn.EmbeddingBag`` (mean) and classified by
``nn.Linear``; trained with ``optim.SGD`` and ``nn.CrossEntropyLoss``.  Beside it, a
bag of the same sentences padded into rows (``padding_idx=0``), a max-pooled bag and a
sum with per-sample weights.

PyTorch's initial weights are copied into nnbook's model. Compared: the losses, the
accuracy, the bag's gradient, and the outputs of the padded, max and weighted bags.
"""
import numpy as np

TOLERANCE = dict(rtol=5e-4, atol=2e-5)

VOCAB, CLASSES = 23, 3


def model(torch, nn):
    class TextClassificationModel(nn.Module):
        def __init__(self, vocab_size=VOCAB, embed_dim=8, num_class=CLASSES):
            super().__init__()
            self.embedding = nn.EmbeddingBag(vocab_size, embed_dim)
            self.fc = nn.Linear(embed_dim, num_class)
            self.init_weights()

        def init_weights(self):
            initrange = 0.5
            self.embedding.weight.data.uniform_(-initrange, initrange)
            self.fc.weight.data.uniform_(-initrange, initrange)
            self.fc.bias.data.zero_()

        def forward(self, text, offsets):
            return self.fc(self.embedding(text, offsets))
    return TextClassificationModel()


def sentences(rng, count):
    """Word ids 1..22 whose class is which third of the vocabulary most words come from."""
    texts, labels = [], []
    for _ in range(count):
        label = int(rng.integers(0, CLASSES))
        n = int(rng.integers(2, 7))
        words = rng.integers(1 + 7 * label, 8 + 7 * label, n)
        words[rng.random(n) < 0.3] = rng.integers(1, VOCAB, 1)
        texts.append(words.tolist())
        labels.append(label)
    return texts, labels


def collate_batch(torch, texts, labels):
    offsets = [0] + [len(t) for t in texts]
    text = torch.tensor([w for t in texts for w in t])
    offsets = torch.tensor(offsets[:-1]).cumsum(dim=0)
    return torch.tensor(labels), text, offsets


def run(torch, nn, F, optim, data, model):
    rng = np.random.default_rng(29)
    texts, labels = sentences(rng, 48)
    criterion = nn.CrossEntropyLoss()
    optimizer = optim.SGD(model.parameters(), lr=2.0)
    losses = []
    for epoch in range(6):
        for start in range(0, 48, 8):
            label, text, offsets = collate_batch(torch, texts[start:start + 8],
                                                 labels[start:start + 8])
            optimizer.zero_grad()
            loss = criterion(model(text, offsets), label)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 0.1)
            optimizer.step()
            losses.append(loss.item())
    bag_grad = model.embedding.weight.grad.clone()

    model.eval()
    with torch.no_grad():
        label, text, offsets = collate_batch(torch, texts, labels)
        accuracy = (model(text, offsets).argmax(1) == label).sum().item() / len(label)

        table = model.embedding.weight
        longest = max(len(t) for t in texts[:5])
        rows = torch.tensor([t + [0] * (longest - len(t)) for t in texts[:5]])
        padded = F.embedding_bag(rows, table, mode="mean", padding_idx=0)
        maxed = nn.EmbeddingBag.from_pretrained(table, mode="max")(text, offsets)
        weights = torch.tensor(rng.random(len(text)), dtype=torch.float32)
        weighted = F.embedding_bag(text, table, offsets, mode="sum",
                                   per_sample_weights=weights)
    return {"losses": losses[::4], "accuracy": accuracy, "bag_grad": bag_grad,
            "padded": padded, "max": maxed[:6], "weighted": weighted[:6]}

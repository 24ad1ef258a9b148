"""A character-level classifier of words of different lengths, in the idiom of the
packed-sequence tutorials: each word becomes a tensor of character indices,
``nn.utils.rnn.pad_sequence(batch_first=True)`` pads a batch of them with index 0, an
``nn.Embedding(padding_idx=0)`` turns them into vectors, ``pack_padded_sequence`` (lengths
as a tensor, ``enforce_sorted=False``) lets a bidirectional two-layer ``nn.LSTM`` read only
the real characters, its two last final states ``h_n[-2]`` and ``h_n[-1]`` (each word's
own last step, in the batch's order) go through an ``nn.Linear``, trained with
``CrossEntropyLoss`` and Adam; ``pad_packed_sequence`` gives the per-character outputs
back, padded with zeros, and the lengths.

Words are made up from two alphabets with numpy (one per class), with lengths from 2 to 8.
Compared: the losses, the logits after training, the padded per-character outputs and
lengths, and that the outputs past each word's length are padding (zero), as well as the
predictions.
"""
import numpy as np

TOLERANCE = dict(rtol=2e-4, atol=2e-5)

ALPHABETS = ["abcdefgh", "ijklmnop"]
LETTERS = "".join(ALPHABETS)   # index 0 is padding, letters are 1..16


def model(torch, nn):
    class WordClassifier(nn.Module):
        def __init__(self):
            super().__init__()
            self.embedding = nn.Embedding(len(LETTERS) + 1, 5, padding_idx=0)
            self.lstm = nn.LSTM(5, 7, num_layers=2, bidirectional=True, batch_first=True)
            self.fc = nn.Linear(2 * 7, len(ALPHABETS))

        def forward(self, padded, lengths):
            packed = nn.utils.rnn.pack_padded_sequence(
                self.embedding(padded), lengths, batch_first=True, enforce_sorted=False)
            packed_out, (h_n, c_n) = self.lstm(packed)
            out, out_lengths = nn.utils.rnn.pad_packed_sequence(packed_out, batch_first=True)
            logits = self.fc(torch.cat([h_n[-2], h_n[-1]], dim=1))
            return logits, out, out_lengths

    return WordClassifier()


def run(torch, nn, F, optim, data, model):
    rng = np.random.default_rng(5)

    def batch(size=6):
        labels = rng.integers(0, len(ALPHABETS), size)
        words = []
        for label in labels:
            letters = rng.choice(list(ALPHABETS[label]), rng.integers(2, 9))
            words.append(torch.tensor([LETTERS.index(c) + 1 for c in letters]))
        lengths = torch.tensor([len(w) for w in words])
        padded = nn.utils.rnn.pad_sequence(words, batch_first=True, padding_value=0)
        return padded, lengths, torch.tensor(labels)

    optimizer = optim.Adam(model.parameters(), lr=0.05)
    criterion = nn.CrossEntropyLoss()
    losses = []
    for step in range(20):
        padded, lengths, labels = batch()
        optimizer.zero_grad()
        logits, _, _ = model(padded, lengths)
        loss = criterion(logits, labels)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())

    padded, lengths, labels = batch(5)
    with torch.no_grad():
        logits, out, out_lengths = model(padded, lengths)
    steps = torch.arange(out.shape[1]).unsqueeze(0)
    past_the_end = (steps >= lengths.unsqueeze(1)).unsqueeze(2).expand_as(out)
    return {"losses": losses, "logits": logits, "outputs": out, "lengths": out_lengths,
            "padding_is_zero": bool((out.masked_select(past_the_end) == 0).all()),
            "predictions": logits.argmax(1), "accuracy": (logits.argmax(1) == labels)
            .float().mean().item()}

"""A character-level GPT built up from single attention heads, in the style of lectures that
start from a bigram model: ``sorted(list(set(text)))``, ``encode``/``decode`` lambdas, a
train/val split of ``torch.tensor(encode(text), dtype=torch.long)``, ``get_batch`` with
``torch.stack``, a ``Head`` with ``key``/``query``/``value`` ``nn.Linear(bias=False)``
layers, ``wei = q @ k.transpose(-2, -1) * k.shape[-1] ** -0.5`` masked with a registered
``tril`` buffer, ``MultiHeadAttention`` as ``torch.cat([h(x) for h in self.heads], dim=-1)``,
``nn.Dropout`` (0 here), a ReLU feed-forward, ``nn.Sequential(*[Block(...) ...])``, logits
reshaped with ``B, T, C = logits.shape; logits.view(B * T, C)``, ``estimate_loss`` under
``@torch.no_grad()`` filling ``torch.zeros(eval_iters)`` with ``losses[k] = loss.item()``
between ``model.eval()`` and ``model.train()``, AdamW, and ``generate`` with
``torch.multinomial`` from ``torch.zeros((1, 1), dtype=torch.long)``, decoded from
``tolist()``.

The text is made up from syllables by numpy, and the batch offsets come from numpy too
(``torch.randint`` would differ). Samples come from each library's own generator.
Compared: the vocabulary, the estimated losses, the training losses, the probabilities
after a prompt, and (per library) that a sample decodes to characters of the vocabulary
and repeats with the same seed.
"""
import numpy as np

TOLERANCE = dict(rtol=3e-4, atol=3e-5)

SYLLABLES = ["to ", "be ", "or ", "not", "the", "qu", "es", "tion", "\n"]
BATCH, BLOCK, N_EMBD, N_HEAD, N_LAYER, DROPOUT = 4, 8, 16, 4, 2, 0.0


def run(torch, nn, F, optim, data):
    rng = np.random.default_rng(13)
    text = "".join(rng.choice(SYLLABLES, 300))
    chars = sorted(list(set(text)))
    vocab_size = len(chars)
    stoi = {ch: i for i, ch in enumerate(chars)}
    itos = {i: ch for i, ch in enumerate(chars)}
    encode = lambda s: [stoi[c] for c in s]
    decode = lambda l: "".join([itos[i] for i in l])

    data_ = torch.tensor(encode(text), dtype=torch.long)
    n = int(0.9 * len(data_))
    train_data, val_data = data_[:n], data_[n:]

    def get_batch(split):
        d = train_data if split == "train" else val_data
        ix = rng.integers(0, len(d) - BLOCK, (BATCH,))
        x = torch.stack([d[i:i + BLOCK] for i in ix])
        y = torch.stack([d[i + 1:i + BLOCK + 1] for i in ix])
        return x, y

    class Head(nn.Module):
        def __init__(self, head_size):
            super().__init__()
            self.key = nn.Linear(N_EMBD, head_size, bias=False)
            self.query = nn.Linear(N_EMBD, head_size, bias=False)
            self.value = nn.Linear(N_EMBD, head_size, bias=False)
            self.register_buffer("tril", torch.tril(torch.ones(BLOCK, BLOCK)))
            self.dropout = nn.Dropout(DROPOUT)

        def forward(self, x):
            B, T, C = x.shape
            k, q = self.key(x), self.query(x)
            wei = q @ k.transpose(-2, -1) * k.shape[-1] ** -0.5
            wei = wei.masked_fill(self.tril[:T, :T] == 0, float("-inf"))
            wei = self.dropout(F.softmax(wei, dim=-1))
            return wei @ self.value(x)

    class MultiHeadAttention(nn.Module):
        def __init__(self, num_heads, head_size):
            super().__init__()
            self.heads = nn.ModuleList([Head(head_size) for _ in range(num_heads)])
            self.proj = nn.Linear(head_size * num_heads, N_EMBD)
            self.dropout = nn.Dropout(DROPOUT)

        def forward(self, x):
            out = torch.cat([h(x) for h in self.heads], dim=-1)
            return self.dropout(self.proj(out))

    class FeedFoward(nn.Module):
        def __init__(self, n_embd):
            super().__init__()
            self.net = nn.Sequential(nn.Linear(n_embd, 4 * n_embd), nn.ReLU(),
                                     nn.Linear(4 * n_embd, n_embd), nn.Dropout(DROPOUT))

        def forward(self, x):
            return self.net(x)

    class Block(nn.Module):
        def __init__(self, n_embd, n_head):
            super().__init__()
            self.sa = MultiHeadAttention(n_head, n_embd // n_head)
            self.ffwd = FeedFoward(n_embd)
            self.ln1, self.ln2 = nn.LayerNorm(n_embd), nn.LayerNorm(n_embd)

        def forward(self, x):
            x = x + self.sa(self.ln1(x))
            return x + self.ffwd(self.ln2(x))

    class GPTLanguageModel(nn.Module):
        def __init__(self):
            super().__init__()
            self.token_embedding_table = nn.Embedding(vocab_size, N_EMBD)
            self.position_embedding_table = nn.Embedding(BLOCK, N_EMBD)
            self.blocks = nn.Sequential(*[Block(N_EMBD, N_HEAD) for _ in range(N_LAYER)])
            self.ln_f = nn.LayerNorm(N_EMBD)
            self.lm_head = nn.Linear(N_EMBD, vocab_size)

        def forward(self, idx, targets=None):
            B, T = idx.shape
            tok_emb = self.token_embedding_table(idx)
            pos_emb = self.position_embedding_table(torch.arange(T))
            logits = self.lm_head(self.ln_f(self.blocks(tok_emb + pos_emb)))
            if targets is None:
                return logits, None
            B, T, C = logits.shape
            loss = F.cross_entropy(logits.view(B * T, C), targets.view(B * T))
            return logits, loss

        def generate(self, idx, max_new_tokens, generator=None):
            for _ in range(max_new_tokens):
                logits, loss = self(idx[:, -BLOCK:])
                probs = F.softmax(logits[:, -1, :], dim=-1)
                idx_next = torch.multinomial(probs, num_samples=1, generator=generator)
                idx = torch.cat((idx, idx_next), dim=1)
            return idx

    # the weights and biases come from numpy, in the order of named_parameters()
    m = GPTLanguageModel()
    with torch.no_grad():
        for name, p in m.named_parameters():
            if p.dim() == 2 or name.endswith("bias"):  # LayerNorm's weights stay ones
                scale = 0.2 if p.dim() == 2 else 0.05
                p.copy_(torch.tensor(rng.standard_normal(tuple(p.shape)) * scale,
                                     dtype=torch.float32))

    eval_iters = 3

    @torch.no_grad()
    def estimate_loss():
        out = {}
        m.eval()
        for split in ["train", "val"]:
            losses = torch.zeros(eval_iters)
            for k in range(eval_iters):
                X, Y = get_batch(split)
                logits, loss = m(X, Y)
                losses[k] = loss.item()
            out[split] = losses.mean()
        m.train()
        return out

    optimizer = optim.AdamW(m.parameters(), lr=3e-3)
    estimates, train_losses = [], []
    for it in range(12):
        if it % 6 == 0:
            losses = estimate_loss()
            estimates.append([losses["train"].item(), losses["val"].item()])
        xb, yb = get_batch("train")
        logits, loss = m(xb, yb)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        train_losses.append(loss.item())

    m.eval()
    with torch.no_grad():
        prompt = torch.tensor([encode("to be")], dtype=torch.long)
        probs = F.softmax(m(prompt)[0][:, -1, :], dim=-1)
        context = torch.zeros((1, 1), dtype=torch.long)
        sample = decode(m.generate(context, 20, torch.Generator().manual_seed(42))[0].tolist())
        again = decode(m.generate(context, 20, torch.Generator().manual_seed(42))[0].tolist())

    return {"chars": "".join(chars), "estimates": estimates, "train_losses": train_losses,
            "probs": probs, "sample_length": len(sample),
            "sample_in_vocab": set(sample) <= set(chars), "repeats": sample == again}

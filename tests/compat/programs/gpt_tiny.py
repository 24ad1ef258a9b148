"""A tiny GPT in the nanoGPT/minGPT style: token and position embeddings, blocks of causal
self-attention (one fused ``nn.Linear`` for q, k and v split with ``.split``, heads made by
``view`` and ``transpose``, then ``F.scaled_dot_product_attention(is_causal=True)`` or the
masked softmax against a registered ``tril`` buffer), pre-LayerNorm residuals, an MLP with
``nn.GELU(approximate="tanh")`` in one block and the tanh GELU written out in the other, the
head's weight tied to the token embedding, ``self.apply(self._init_weights)`` and a scaled
init of the residual projections, AdamW with two parameter groups (decay for matrices, none
for biases and LayerNorm) and the other grouping by module type over ``named_modules()``, a
warmup-then-cosine rate set in ``param_groups`` by hand, targets ignored with
``ignore_index=-1``, gradient clipping, and ``generate`` that crops the context, keeps the
``topk`` logits and draws with ``torch.multinomial`` from a seeded ``torch.Generator``.

The corpus and the batches come from numpy. The sampled tokens come from each library's own
generator, so they differ. Compared: the parameter count (the tied weight counted once), the
state_dict keys, the two attention paths against each other, both groupings, the loss at
each step, the tied weight after training, the next-token probabilities of a prompt after
the top-k cut, a greedy continuation, and (per library) that every sampled token was among
the top k of its step and that the same seed samples the same tokens twice.
"""
import math

import numpy as np

TOLERANCE = dict(rtol=2e-4, atol=2e-5)

VOCAB, BLOCK, N_EMBD, N_HEAD, N_LAYER = 13, 8, 12, 3, 2


def model(torch, nn):
    F = nn.functional

    class SelfAttention(nn.Module):
        def __init__(self):
            super().__init__()
            self.qkv = nn.Linear(N_EMBD, 3 * N_EMBD)
            self.proj = nn.Linear(N_EMBD, N_EMBD)
            self.register_buffer("causal", torch.tril(torch.ones(BLOCK, BLOCK))
                                 .view(1, 1, BLOCK, BLOCK))
            self.use_sdpa = True

        def forward(self, x):
            B, T, C = x.size()
            q, k, v = self.qkv(x).split(N_EMBD, dim=2)
            heads = lambda t: t.view(B, T, N_HEAD, C // N_HEAD).transpose(1, 2)
            q, k, v = heads(q), heads(k), heads(v)  # (B, nh, T, hs)
            if self.use_sdpa:
                y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            else:
                att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
                att = att.masked_fill(self.causal[:, :, :T, :T] == 0, float("-inf"))
                y = F.softmax(att, dim=-1) @ v
            y = y.transpose(1, 2).contiguous().view(B, T, C)
            return self.proj(y)

    class TanhGELU(nn.Module):
        def forward(self, x):
            return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi)
                                               * (x + 0.044715 * torch.pow(x, 3.0))))

    class Block(nn.Module):
        def __init__(self, gelu):
            super().__init__()
            self.ln_1 = nn.LayerNorm(N_EMBD)
            self.attn = SelfAttention()
            self.ln_2 = nn.LayerNorm(N_EMBD)
            self.mlp = nn.Sequential(nn.Linear(N_EMBD, 4 * N_EMBD), gelu,
                                     nn.Linear(4 * N_EMBD, N_EMBD))

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            return x + self.mlp(self.ln_2(x))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.transformer = nn.ModuleDict(dict(
                wte=nn.Embedding(VOCAB, N_EMBD),
                wpe=nn.Embedding(BLOCK, N_EMBD),
                h=nn.ModuleList([Block(nn.GELU(approximate="tanh")), Block(TanhGELU())]),
                ln_f=nn.LayerNorm(N_EMBD),
            ))
            self.lm_head = nn.Linear(N_EMBD, VOCAB, bias=False)
            self.transformer.wte.weight = self.lm_head.weight  # weight tying
            self.apply(self._init_weights)
            for pn, p in self.named_parameters():
                if pn.endswith("proj.weight"):
                    nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * N_LAYER))

        def _init_weights(self, module):
            if isinstance(module, nn.Linear):
                nn.init.normal_(module.weight, mean=0.0, std=0.02)
                if module.bias is not None:
                    nn.init.zeros_(module.bias)
            elif isinstance(module, nn.Embedding):
                nn.init.normal_(module.weight, mean=0.0, std=0.02)

        def forward(self, idx, targets=None):
            b, t = idx.size()
            pos = torch.arange(0, t, dtype=torch.long)
            x = self.transformer.wte(idx) + self.transformer.wpe(pos)
            for block in self.transformer.h:
                x = block(x)
            x = self.transformer.ln_f(x)
            if targets is None:
                return self.lm_head(x[:, [-1], :]), None
            logits = self.lm_head(x)
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1),
                                   ignore_index=-1)
            return logits, loss

    return GPT()


def run(torch, nn, F, optim, data, model):
    rng = np.random.default_rng(41)
    corpus = rng.integers(0, VOCAB, 400).astype(np.int64)
    gpt = model

    def get_batch(batch_size=5):
        ix = rng.integers(0, len(corpus) - BLOCK, batch_size)
        x = torch.stack([torch.from_numpy(corpus[i:i + BLOCK]) for i in ix])
        y = torch.stack([torch.from_numpy(corpus[i + 1:i + 1 + BLOCK]) for i in ix])
        return x, y

    n_params = sum(p.numel() for p in gpt.parameters())
    keys = list(gpt.state_dict().keys())

    # both attention paths give the same logits
    x, y = get_batch()
    logits_sdpa, _ = gpt(x, y)
    for block in gpt.transformer.h:
        block.attn.use_sdpa = False
    logits_masked, _ = gpt(x, y)
    paths_agree = bool(torch.allclose(logits_sdpa, logits_masked, atol=1e-5))

    param_dict = {pn: p for pn, p in gpt.named_parameters() if p.requires_grad}
    decay = [p for n, p in param_dict.items() if p.dim() >= 2]
    no_decay = [p for n, p in param_dict.items() if p.dim() < 2]
    groups = [{"params": decay, "weight_decay": 0.1},
              {"params": no_decay, "weight_decay": 0.0}]
    optimizer = optim.AdamW(groups, lr=3e-3, betas=(0.9, 0.95))
    group_sizes = [len(decay), len(no_decay)]

    # the other way: by the module that holds each parameter
    by_module = {"decay": set(), "no_decay": set()}
    for mn, m in gpt.named_modules():
        for pn, p in m.named_parameters():
            fpn = "%s.%s" % (mn, pn) if mn else pn
            if pn.endswith("bias") or isinstance(m, (nn.LayerNorm, nn.Embedding)):
                by_module["no_decay"].add(fpn)
            elif pn.endswith("weight") and isinstance(m, nn.Linear):
                by_module["decay"].add(fpn)
    # the tied weight is named after the Embedding, where it was met first, but it is the
    # head's Linear weight too: it decays
    by_module["no_decay"].discard("transformer.wte.weight")
    by_module["decay"].add("transformer.wte.weight")
    named_groups = {k: sorted(v & set(param_dict)) for k, v in by_module.items()}
    split_is_a_partition = (not by_module["decay"] & by_module["no_decay"]
                            and set(param_dict) <= by_module["decay"] | by_module["no_decay"])

    def get_lr(it, warmup=2, decay_iters=6, max_lr=3e-3, min_lr=3e-4):
        if it < warmup:
            return max_lr * (it + 1) / (warmup + 1)
        ratio = (it - warmup) / (decay_iters - warmup)
        return min_lr + 0.5 * (1.0 + math.cos(math.pi * ratio)) * (max_lr - min_lr)

    gpt.train()
    losses = []
    for step in range(6):
        for param_group in optimizer.param_groups:
            param_group["lr"] = get_lr(step)
        xb, yb = get_batch()
        if step == 3:
            yb[:, :2] = -1  # ignored targets (ignore_index=-1)
        logits, loss = gpt(xb, yb)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        nn.utils.clip_grad_norm_(gpt.parameters(), 1.0)
        optimizer.step()
        losses.append(loss.item())

    @torch.no_grad()
    def generate(idx, max_new_tokens, temperature=1.0, top_k=None, generator=None):
        in_top_k = True
        for _ in range(max_new_tokens):
            idx_cond = idx if idx.size(1) <= BLOCK else idx[:, -BLOCK:]
            logits, _ = gpt(idx_cond)
            logits = logits[:, -1, :] / temperature
            if top_k is not None:
                v, _ = torch.topk(logits, min(top_k, logits.size(-1)))
                logits[logits < v[:, [-1]]] = -float("Inf")
            probs = F.softmax(logits, dim=-1)
            if generator is None:  # greedy
                idx_next = torch.argmax(probs, dim=-1, keepdim=True)
            else:
                idx_next = torch.multinomial(probs, num_samples=1, generator=generator)
                in_top_k &= bool((probs.gather(1, idx_next) > 0).all())
            idx = torch.cat((idx, idx_next), dim=1)
        return idx, in_top_k

    gpt.eval()
    prompt = torch.tensor(corpus[:3]).unsqueeze(0)
    with torch.no_grad():
        logits, _ = gpt(prompt)
        logits = logits[:, -1, :] / 0.8
        v, _ = torch.topk(logits, 4)
        logits[logits < v[:, [-1]]] = -float("Inf")
        first_probs = F.softmax(logits, dim=-1)
    greedy, _ = generate(prompt, 10)
    g = torch.Generator().manual_seed(1337)
    sample, in_top_k = generate(prompt, 12, temperature=0.8, top_k=4, generator=g)
    again, _ = generate(prompt, 12, temperature=0.8, top_k=4,
                        generator=torch.Generator().manual_seed(1337))

    return {"n_params": n_params, "keys": keys, "paths_agree": paths_agree,
            "group_sizes": group_sizes, "named_groups": named_groups,
            "split_is_a_partition": split_is_a_partition, "losses": losses,
            "tied": gpt.lm_head.weight is gpt.transformer.wte.weight,
            "wte_after": gpt.transformer.wte.weight, "first_probs": first_probs,
            "greedy": greedy, "sample_shape": list(sample.shape), "in_top_k": in_top_k,
            "same_seed_same_sample": bool(torch.equal(sample, again))}

"""A character-level bigram model by counting: ``torch.zeros((27, 27), dtype=torch.int32)``,
``N[ix1, ix2] += 1`` over every pair, ``P = N.float(); P /= P.sum(1, keepdim=True)``, the
average negative log likelihood, and sampling with ``torch.multinomial`` and a
``torch.Generator().manual_seed(...)``.

The words are made up here from syllables. Sampling draws from each library's own
generator, so the samples differ. Compared: the counts, P, the log likelihood, the
frequencies of 20 000 draws from one row of P (both close to P's row), and that sampled
words use only pairs that occur.
"""
import numpy as np

TOLERANCE = dict(rtol=1e-5, atol=1e-6)
TOLERANCE_FOR = {"frequencies": dict(rtol=0, atol=0.015)}  # 20 000 draws: sd at most 0.0035

SYLLABLES = ["ka", "lo", "mi", "ren", "sa", "tu", "vel", "bri", "on", "zeth", "ya", "quo"]


def words():
    rng = np.random.default_rng(9)
    return ["".join(rng.choice(SYLLABLES, rng.integers(1, 4))) for _ in range(150)]


def run(torch, nn, F, optim, data):
    names = words()
    chars = sorted(set("".join(names)))
    stoi = {s: i + 1 for i, s in enumerate(chars)}
    stoi["."] = 0
    itos = {i: s for s, i in stoi.items()}

    N = torch.zeros((27, 27), dtype=torch.int32)
    for w in names:
        chs = ["."] + list(w) + ["."]
        for ch1, ch2 in zip(chs, chs[1:]):
            ix1, ix2 = stoi[ch1], stoi[ch2]
            N[ix1, ix2] += 1

    P = (N + 1).float()  # add-one smoothing
    P /= P.sum(1, keepdim=True)

    log_likelihood, n = 0.0, 0
    for w in names:
        chs = ["."] + list(w) + ["."]
        for ch1, ch2 in zip(chs, chs[1:]):
            logprob = torch.log(P[stoi[ch1], stoi[ch2]])
            log_likelihood += logprob
            n += 1
    nll = -log_likelihood / n

    g = torch.Generator().manual_seed(2147483647)
    draws = torch.multinomial(P[0], num_samples=20000, replacement=True, generator=g)
    frequencies = F.one_hot(draws, num_classes=27).float().mean(0)

    # sample words from the counts alone (no smoothing): every pair drawn must occur
    Q = N.float()
    Q /= Q.sum(1, keepdim=True).clamp(min=1)
    pairs_seen = True
    for _ in range(8):
        out, ix = [], 0
        while True:
            previous = ix
            ix = torch.multinomial(Q[ix], num_samples=1, replacement=True, generator=g).item()
            pairs_seen &= bool(N[previous, ix] > 0)
            out.append(itos[ix])
            if ix == 0:
                break

    return {"N": N, "P": P, "nll": nll, "draws_dtype": str(draws.dtype).split(".")[-1],
            "frequencies": frequencies, "pairs_seen": pairs_seen}

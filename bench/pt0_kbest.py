"""Does PT0 gain from the POS tagger's uncertainty?  PT0 reads the POS tagger's single best
sequence and loses 1.4 F1 to its errors (gold POS against predicted).  Feeding it several
POS sequences instead needs nothing new in training, so this measures, before building a
soft (probability-weighted) POS input, what the POS tagger's alternatives are worth:

* the POS oracle: the best of the tagger's k best sequences (k-best Viterbi), scored
  against gold POS: how often the right tags are among them;
* reranking: for each sentence the candidate c maximising
  `lam * log P_pos(c) + log P_pt0(best PT0 path | c)` (both models' sentence-level
  likelihoods, the forward algorithm giving each partition function), PT0 decoded from it;
* the mixture: PT0's emissions averaged over the candidates, each weighted by its POS
  probability (renormalised over the k, sharpened by `temp`), decoded once.

    python bench/pt0_kbest.py --data ../shared/data [--models senna/models] [--k 4]

(Needs PyTorch, `pip install '.[train]'`: the partition functions come from the training
criterion's forward algorithm.)
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import torch
from tqdm import tqdm

from senna.io.conll import read_pt0
from senna.nn.criterion import log_partition
from senna.runtime.model import TaskModel
from senna.scoring.conlleval import chunk_scores
from senna.scoring.metrics import accuracy

ROOT = Path(__file__).resolve().parents[1]


def k_best(e: np.ndarray, trans: np.ndarray, start: np.ndarray, k: int
           ) -> list[tuple[float, list[int]]]:
    """The k best (score, path) of one sentence under start + emissions [T, K] +
    transitions, best first (list Viterbi: the k best partial paths into every tag)."""
    n, nt = e.shape
    score = np.full((nt, k), -np.inf)
    score[:, 0] = start + e[0]
    back = []
    for t in range(1, n):
        cand = (score[:, :, None] + trans[:, None, :]).reshape(nt * k, nt)   # [i*k+r, j]
        idx = np.argsort(-cand, axis=0, kind="stable")[:k]                    # [k, j]
        score = np.take_along_axis(cand, idx, 0).T + e[t][:, None]           # [j, k]
        back.append(idx.T)
    flat = score.ravel()
    out = []
    for o in np.argsort(-flat, kind="stable")[:k]:
        if not np.isfinite(flat[o]):
            break
        j, r = divmod(int(o), k)
        path = [j]
        for b in reversed(back):
            j, r = divmod(int(b[j, r]), k)
            path.append(j)
        out.append((float(flat[o]), path[::-1]))
    return out


def log_z(e: np.ndarray, trans: np.ndarray, start: np.ndarray, end: np.ndarray | None = None
          ) -> float:
    """One sentence's log partition function (the training criterion's forward algorithm,
    `senna.nn.criterion.log_partition`); -inf entries of trans / start / end forbid a step."""
    x = torch.from_numpy(e).double()
    if end is not None:
        x[-1] += torch.from_numpy(end)
    return float(log_partition(x[None], torch.ones(1, len(e), dtype=torch.bool),
                               torch.from_numpy(trans).double(),
                               torch.from_numpy(start).double())[0])


def split(flat: np.ndarray, lengths: list[int]) -> list[np.ndarray]:
    return np.split(flat.astype(np.float64), np.cumsum(lengths)[:-1])


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    p.add_argument("--models", default=str(ROOT / "senna" / "models"))
    p.add_argument("--k", type=int, default=4, help="POS candidates per sentence")
    a = p.parse_args()
    dev = read_pt0(Path(a.data) / "ewt" / "ewt.dev.pt0")
    words = [s.words for s in dev]
    lengths = [len(w) for w in words]
    gold_pos = [s.columns["pos"] for s in dev]
    gold_pt0 = [s.columns["pt0"] for s in dev]
    pos, pt0 = (TaskModel.load(Path(a.models) / t) for t in ("pos", "pt0"))
    if pos.criterion != "sll" or pt0.criterion != "sll":
        raise SystemExit("both models must be sentence-level (criterion sll)")

    ptr, pst = (pos.saved.weights[n].astype(np.float64) for n in ("transitions", "start"))
    if pos.constraints is not None:
        raise SystemExit("the POS tagger's tags have a scheme; k_best ignores constraints")
    cands = []   # per sentence: [(log P_pos, tags)], best first
    for e in tqdm(split(pos.emissions(words, [{}] * len(words)), lengths), desc="POS k-best"):
        z = log_z(e, ptr, pst)
        cands.append([(s - z, [pos.tags.items[i] for i in path])
                      for s, path in k_best(e, ptr, pst, a.k)])

    allowed = pt0.constraints
    tr, st = (pt0.saved.weights[n].astype(np.float64) for n in ("transitions", "start"))
    trm, stm = np.where(allowed.allowed, tr, -np.inf), np.where(allowed.first, st, -np.inf)
    enm = np.where(allowed.last, 0.0, -np.inf)
    index = {t: i for i, t in enumerate(pt0.tags.items)}
    ranks = []   # per rank r: PT0 emissions, best PT0 tags and log P_pt0 of each sentence
    for r in tqdm(range(a.k), desc="PT0 per candidate"):
        cols = [{"pos": c[min(r, len(c) - 1)][1]} for c in cands]
        em = split(pt0.emissions(words, cols), lengths)
        tags = pt0.predict(words, cols)
        logp = [float(pt0.decoder.path_scores(e[None], [len(e)],
                                              [np.array([index[x] for x in tg])])[0])
                - log_z(e, trm, stm, enm) for e, tg in zip(em, tags, strict=True)]
        ranks.append((em, tags, logp))

    def pos_logp(i: int, r: int) -> float:
        return cands[i][r][0] if r < len(cands[i]) else -np.inf

    def f1(tags: list) -> float:
        return chunk_scores(gold_pt0, tags).f1

    n = len(words)
    oracle = [max(c, key=lambda x, g=g: sum(map(str.__eq__, x[1], g)))[1]
              for c, g in zip(cands, gold_pos, strict=True)]
    print(f"EWT dev: {n:,} sentences; POS tagger and PT0 from {a.models}; k = {a.k}\n")
    print("| PT0 from | POS accuracy of the chosen sequence | PT0 F1 | sentences changed |")
    print("|---|---|---|---|")
    first = [c[0][1] for c in cands]
    print(f"| the 1-best POS sequence (as shipped) | {100 * accuracy(gold_pos, first):.2f} "
          f"| {f1(ranks[0][1]):.2f} | |")
    print(f"| the best of the {a.k} POS sequences (oracle) "
          f"| {100 * accuracy(gold_pos, oracle):.2f} "
          f"| {f1(pt0.predict(words, [{'pos': o} for o in oracle])):.2f} | |")
    for lam in (0.25, 0.5, 1.0, 2.0):
        pick = [max(range(a.k), key=lambda r, i=i: lam * pos_logp(i, r) + ranks[r][2][i])
                for i in range(n)]
        chosen = [cands[i][min(r, len(cands[i]) - 1)][1] for i, r in enumerate(pick)]
        print(f"| reranked, lam = {lam} | {100 * accuracy(gold_pos, chosen):.2f} "
              f"| {f1([ranks[r][1][i] for i, r in enumerate(pick)]):.2f} "
              f"| {sum(r > 0 for r in pick)} |")
    for temp in (0.5, 1.0, 2.0):
        mixed = []
        for i in range(n):
            lp = np.array([pos_logp(i, r) for r in range(a.k)]) * temp
            w = np.exp(lp - lp.max())
            w /= w.sum()
            mixed.append(sum(w[r] * ranks[r][0][i] for r in range(a.k) if w[r] > 0))
        flat = np.concatenate(mixed).astype(np.float32)
        path = pt0.decoder.decode_flat(flat, np.array(lengths, dtype=np.intp)).tolist()
        names = [pt0.tags.items[j] for j in path]
        ends = np.cumsum(lengths).tolist()
        print(f"| emissions mixed over the {a.k}, temp = {temp} | — "
              f"| {f1([names[e - m : e] for e, m in zip(ends, lengths, strict=True)]):.2f} | |")
    print(f"| gold POS | 100.00 | {f1(pt0.predict(words, [{'pos': g} for g in gold_pos])):.2f} | |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

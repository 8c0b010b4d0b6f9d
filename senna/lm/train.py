"""Training the ranking language model: curriculum stages, checkpoints, data parallelism.

* Curriculum (section 4.3): stage i trains with the dictionary of the ``size_i`` most frequent
  words for ``windows_i`` windows, then the next stage starts from it (`grow_vocab`).
* Work saved per step: a forward pass without gradients scores every window and corruption;
  only windows that violate the margin for some corruption (the only ones with a gradient)
  go through forward + backward again.  Late in training most windows are already ranked
  right, so this halves the work.
* Updates: plain SGD (no state); the lookup table is updated by hand, only the rows of the
  words a step saw, at a rate per window (the hidden layers' loss is a batch mean).
* Checkpoints every ``checkpoint_minutes`` and at each stage end hold the model, the stage,
  the step and the random generators' states: a stopped run resumes where it stood and
  draws the same windows it would have drawn.
* Data parallel: ``procs`` > 1 starts that many local processes, or run under ``torchrun``
  for several machines; each process draws its own windows and DDP averages gradients
  (gloo on CPU, NCCL on GPU).
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import signal
import sys
import time
from pathlib import Path

import numpy as np
import torch
import torch.distributed as dist

from senna.embeddings import LM_FILE, embedding_matrix, read_embeddings, read_metadata
from senna.lm.config import LMConfig
from senna.lm.corpus import Corpus
from senna.lm.model import RankingLM, grow_vocab, ranking_loss
from senna.lm.sampler import WindowSampler

CHECKPOINT = "checkpoint.pt"
HIDDEN_FILE = LM_FILE  # the hidden layers beside exported embeddings: a later run goes on


def pick_device(name: str) -> torch.device:
    if name == "auto":
        name = "cuda" if torch.cuda.is_available() else "cpu"
    return torch.device(name)


def heldout_error(model: RankingLM, sampler: WindowSampler, size: int, n: int,
                  negatives: int = 10, seed: int = 12345) -> dict[str, float]:
    """Ranking error rate on held-out windows: share of corruptions scored >= the true window.

    The windows and corruptions are a fixed draw (own seed) for a given dictionary size, so
    numbers of one stage are comparable across runs and checkpoints.
    """
    gen = torch.Generator(device=sampler.ids.device).manual_seed(seed + size)
    model.eval()
    errors = violations = 0.0
    with torch.no_grad():
        for start in range(0, n, 8192):
            m = min(8192, n - start)
            gap = model.gaps(model.lookup(*sampler.sample(m, size, negatives, gen)))
            errors += float((gap <= 0).sum())
            violations += float((gap < 1).sum())
    model.train()
    total = n * negatives
    return {"error": errors / total, "margin_violations": violations / total}


def restore(model: RankingLM, path: str | os.PathLike, words: list[str]
            ) -> tuple[list[dict], bool]:
    """Start `model` (whose row i is `words[i]`) from the exported embeddings at `path`: rows
    by word (words it lacks keep their random start), and the hidden layers when `path` has
    them -> (the export's training record, whether the hidden layers were restored)."""
    their_words, vectors = read_embeddings(path)
    if vectors.shape[1] != model.dim:
        raise ValueError(f"{path}: {vectors.shape[1]}-dimensional vectors, the model has "
                         f"{model.dim}")
    table = model.emb.weight
    rows, _ = embedding_matrix(words[: table.shape[0]], their_words, vectors,
                               table.detach().cpu().numpy())
    with torch.no_grad():
        table.copy_(torch.from_numpy(rows))
    hidden = Path(path) / HIDDEN_FILE
    if hidden.is_file():
        with np.load(hidden, allow_pickle=False) as f:
            layers = {k: torch.from_numpy(f[k]) for k in f.files}
        shapes = {k: tuple(v.shape) for k, v in model.state_dict().items()
                  if not k.startswith("emb.")}
        if {k: tuple(v.shape) for k, v in layers.items()} != shapes:
            raise ValueError(f"{hidden}: hidden layers of another shape than --window "
                             f"{model.window} --dim {model.dim} --hidden {model.hidden}")
        model.load_state_dict(layers, strict=False)
    return list(read_metadata(path).get("history", [])), hidden.is_file()


def make_optimizer(model: RankingLM, cfg: LMConfig, lr: float | None = None) -> torch.optim.SGD:
    """SGD for the hidden layers; the lookup table is updated in `train_step`."""
    return torch.optim.SGD([p for p in model.parameters() if p.requires_grad],
                           lr=cfg.lr if lr is None else lr)


def _save(path: Path, state: dict) -> None:
    tmp = path.with_suffix(".tmp")
    torch.save(state, tmp)
    os.replace(tmp, path)  # atomic: an interrupted save never corrupts the last checkpoint


def train_lm(cfg: LMConfig, rank: int = 0, world: int = 1, progress: bool = True) -> RankingLM:
    """Run (or resume) the curriculum of `cfg`; rank 0 writes checkpoints and the log."""
    device = pick_device(cfg.device)
    if device.type == "cuda" and world > 1:
        device = torch.device("cuda", rank % torch.cuda.device_count())
    if device.type == "cpu":
        torch.set_num_threads(cfg.threads or max(1, (os.cpu_count() or 1) // world))
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    corpus = Corpus(cfg.corpus)
    sizes = [min(int(s[0]), len(corpus.words)) for s in cfg.stages]
    train = WindowSampler(corpus.ids("train"), cfg.window, device)
    heldout = WindowSampler(corpus.ids("heldout"), cfg.window, device)
    gen = torch.Generator(device=device)
    ckpt_path = out / CHECKPOINT
    history: list[dict] = []
    if ckpt_path.exists():
        state = torch.load(ckpt_path, map_location=device, weights_only=True)
        stage = state["stage"]
        # windows, not steps: a run may resume with another --batch or number of processes
        step = state["windows"] // (cfg.batch * world)
        model = RankingLM(state["vocab_size"], cfg.dim, cfg.window, cfg.hidden).to(device)
        model.load_state_dict(state["model"])
        gen.set_state(state["generators"][rank % len(state["generators"])].cpu())
        history = state["history"]
        # what the run started from, whatever --init a resuming command names (its record
        # and card must say where the weights came from)
        cfg = dataclasses.replace(cfg, init=state.get("init", cfg.init),
                                  warmup=state.get("warmup", cfg.warmup))
        if rank == 0 and progress:
            print(f"resuming from {ckpt_path}: stage {stage + 1}, {state['windows']:,} windows "
                  "done")
    else:
        stage, step = 0, 0
        torch.manual_seed(cfg.seed)
        model = RankingLM(sizes[0], cfg.dim, cfg.window, cfg.hidden).to(device)
        if cfg.init:
            history, has_hidden = restore(model, cfg.init, corpus.words)
            if rank == 0 and progress:
                print(f"starting from {cfg.init} ({sum(h['windows'] for h in history):,} "
                      f"windows of training, hidden layers "
                      f"{'restored' if has_hidden else 'new'})")
        gen.manual_seed(cfg.seed * 1000 + rank)
    if rank == 0:
        (out / "config.json").write_text(json.dumps(dataclasses.asdict(cfg), indent=2) + "\n")

    stopper = _Stopper(cfg.max_minutes)
    while stage < len(sizes):
        size = sizes[stage]
        if model.emb.num_embeddings < size:
            torch.manual_seed(cfg.seed + stage)
            model = grow_vocab(model, size)
        steps = math.ceil(cfg.stages[stage][1] / (cfg.batch * world))
        step = _run_stage(model, cfg, train, gen, size, stage, step, steps, rank, world,
                          history, ckpt_path, progress, stopper)
        if step < steps:  # stopped early: the checkpoint is written, rerun to resume
            if rank == 0 and progress:
                print(f"stopped at stage {stage + 1}, step {step}/{steps}; "
                      f"checkpoint in {ckpt_path}")
            return model
        if rank == 0:
            scores = heldout_error(model, heldout, size, cfg.eval_windows)
            history.append(record(cfg, history, size, steps * cfg.batch * world, scores,
                                  rates=cfg.rates(stage)))
            if progress:
                print(f"stage {history[-1]['stage']}: dictionary {size:,}, held-out ranking error "
                      f"{100 * scores['error']:.2f}% (margin violations "
                      f"{100 * scores['margin_violations']:.2f}%)")
        stage, step = stage + 1, 0
        _checkpoint(model, gen, stage, 0, history, ckpt_path, rank, world, cfg)
    return model


def record(cfg: LMConfig, history: list[dict], size: int, windows: int,
           scores: dict[str, float], rates: tuple[float, float], **extra) -> dict:
    """The training record's entry for a stage that trained `windows` windows at `rates`
    (hidden layers, table: `cfg.rates` of the stage)."""
    lr, lr_emb = rates
    return {"stage": len(history) + 1, "dictionary": size, "windows": windows, **scores,
            "time": time.time(), "lr": lr, "lr_emb": lr_emb,
            **({"init": cfg.init, "warmup": cfg.warmup} if cfg.init else {}), **extra}


def unfinished_stage(model_dir: str | os.PathLike, state: dict) -> dict | None:
    """The record of the stage a stopped run's checkpoint `state` was in the middle of (its
    held-out scores measured now), or None if it stopped between stages: an export made
    while training goes on still counts every window."""
    cfg = LMConfig.from_json((Path(model_dir) / "config.json").read_text())
    if not state["windows"] or state["stage"] >= len(cfg.stages):
        return None
    corpus = Corpus(cfg.corpus)
    size = min(int(cfg.stages[state["stage"]][0]), len(corpus.words))
    model = RankingLM(state["vocab_size"], cfg.dim, cfg.window, cfg.hidden)
    model.load_state_dict(state["model"])
    held = WindowSampler(corpus.ids("heldout"), cfg.window, torch.device("cpu"))
    return record(cfg, state["history"], size, state["windows"],
                  heldout_error(model, held, size, cfg.eval_windows),
                  rates=cfg.rates(state["stage"]), unfinished=True)


def _comm_device() -> torch.device:
    """Where collective operations' tensors must live: NCCL takes only GPU tensors."""
    if dist.get_backend() == "nccl":
        return torch.device("cuda", torch.cuda.current_device())
    return torch.device("cpu")


def _gather_generators(gen: torch.Generator, world: int) -> list[torch.Tensor]:
    state = gen.get_state()  # a CPU byte tensor, for CPU and CUDA generators alike
    if world == 1:
        return [state]
    state = state.to(_comm_device())
    states = [torch.empty_like(state) for _ in range(world)]
    dist.all_gather(states, state)
    return [s.cpu() for s in states]


def _check_in_sync(model: RankingLM) -> None:
    """Every process must hold the same weights (DDP and the gathered table rows keep them so);
    a checksum compared across processes catches any drift before it is saved."""
    total = torch.stack([p.detach().double().sum() for p in model.state_dict().values()]).sum()
    lo, hi = total.clone().to(_comm_device()), total.clone().to(_comm_device())
    dist.all_reduce(lo, op=dist.ReduceOp.MIN)
    dist.all_reduce(hi, op=dist.ReduceOp.MAX)
    if lo.item() != hi.item():
        raise RuntimeError(f"data-parallel processes diverged (checksums {lo.item()} .. "
                           f"{hi.item()})")


def _checkpoint(model: RankingLM, gen: torch.Generator, stage: int, windows: int,
                history: list[dict], path: Path, rank: int, world: int,
                cfg: LMConfig) -> None:
    """Save the run; `windows`: how many windows of `stage` are done."""
    if world > 1:
        _check_in_sync(model)
    states = _gather_generators(gen, world)
    if rank == 0:
        _save(path, {"model": model.state_dict(), "vocab_size": model.emb.num_embeddings,
                     "stage": stage, "windows": windows, "generators": states,
                     "history": history, "world": world, "init": cfg.init,
                     "warmup": cfg.warmup})


def train_step(model: RankingLM, net: torch.nn.Module, opt: torch.optim.Optimizer,
               sampler: WindowSampler, gen: torch.Generator, size: int, cfg: LMConfig,
               world: int = 1, lr_emb: float | None = None) -> tuple[float, float]:
    """One batch: score all windows without gradients, learn from the margin violators;
    -> (loss, share of windows that violated the margin).  `net` is `model` or its DDP.

    The table rows are updated by hand from the gradient of the looked-up vectors (under
    DDP, after gathering every process's rows), at `lr_emb` per window (default: the
    config's; 0 freezes the table).
    """
    lr_emb = cfg.lr_emb if lr_emb is None else lr_emb
    win, neg = sampler.sample(cfg.batch, size, cfg.negatives, gen)
    xs = model.lookup(win, neg)
    idx = (model.gaps(xs) < cfg.margin).any(1).nonzero().squeeze(1)
    if world == 1 and not len(idx):
        return 0.0, 0.0
    x = xs[idx].requires_grad_(bool(lr_emb))
    s_pos, s_neg = net(x)  # under DDP every process joins every step
    loss = ranking_loss(s_pos, s_neg, cfg.margin, cfg.batch)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    if not lr_emb:
        return float(loss.detach()), len(idx) / cfg.batch
    rows = torch.cat([win[idx], neg[idx]], 1).reshape(-1)
    grads = x.grad.reshape(-1, model.dim)
    if world > 1:
        rows, grads = _gather_rows(rows, grads, world)
    model.emb.weight.index_add_(0, rows, grads, alpha=-lr_emb * cfg.batch)
    return float(loss.detach()), len(idx) / cfg.batch


def _gather_rows(rows: torch.Tensor, grads: torch.Tensor, world: int
                 ) -> tuple[torch.Tensor, torch.Tensor]:
    """Every process's (row ids, row gradients), concatenated: the table's sparse all-reduce."""
    n = torch.tensor([len(rows)], device=rows.device)
    sizes = [torch.zeros_like(n) for _ in range(world)]
    dist.all_gather(sizes, n)
    most = int(max(s.item() for s in sizes))
    pad = most - len(rows)
    rows_p = torch.cat([rows, rows.new_zeros(pad)])
    grads_p = torch.cat([grads, grads.new_zeros(pad, grads.shape[1])])
    all_rows = [torch.empty_like(rows_p) for _ in range(world)]
    all_grads = [torch.empty_like(grads_p) for _ in range(world)]
    dist.all_gather(all_rows, rows_p)
    dist.all_gather(all_grads, grads_p)
    keep = [slice(0, int(s.item())) for s in sizes]
    return (torch.cat([r[k] for r, k in zip(all_rows, keep, strict=True)]),
            torch.cat([g[k] for g, k in zip(all_grads, keep, strict=True)]))


def _run_stage(model: RankingLM, cfg: LMConfig, sampler: WindowSampler, gen: torch.Generator,
               size: int, stage: int, step: int, steps: int, rank: int, world: int,
               history: list[dict], ckpt_path: Path, progress: bool, stopper: _Stopper
               ) -> int:
    from tqdm import tqdm

    net: torch.nn.Module = model
    if world > 1:
        net = torch.nn.parallel.DistributedDataParallel(model)
    lr, lr_emb = cfg.rates(stage)
    opt = make_optimizer(model, cfg, lr)
    bar = tqdm(total=steps * cfg.batch * world, initial=step * cfg.batch * world,
               unit="win", unit_scale=True, desc=f"stage {stage + 1} ({size:,} words)",
               disable=not progress or rank != 0, smoothing=0.05)
    last_ckpt = time.time()
    loss_sum = active_sum = 0.0
    frozen = math.ceil(cfg.warmup / (cfg.batch * world)) if stage == 0 else 0
    while step < steps:
        loss, active = train_step(model, net, opt, sampler, gen, size, cfg, world,
                                  lr_emb=0.0 if step < frozen else lr_emb)
        loss_sum += loss
        active_sum += active
        step += 1
        if step % cfg.log_every == 0 or step == steps:
            n = cfg.log_every if step % cfg.log_every == 0 else step % cfg.log_every
            bar.update(n * cfg.batch * world)
            bar.set_postfix(loss=f"{loss_sum / n:.3f}", active=f"{active_sum / n:.2f}")
            loss_sum = active_sum = 0.0
            # 1: checkpoint due, 2: stop requested (time limit or SIGTERM)
            flag = torch.tensor(2.0 if stopper.stop() else float(
                time.time() - last_ckpt > 60 * cfg.checkpoint_minutes))
            if world > 1:  # every process must join the checkpoint's gather
                flag = flag.to(_comm_device())
                dist.broadcast(flag, 0)
            if flag.item() and step < steps:
                _checkpoint(model, gen, stage, step * cfg.batch * world, history, ckpt_path,
                            rank, world, cfg)
                last_ckpt = time.time()
                if flag.item() == 2:
                    break
    bar.close()
    return step


class _Stopper:
    """Asks a run to checkpoint and stop: after `minutes`, or on SIGTERM (e.g. `kill`)."""

    def __init__(self, minutes: float):
        self.deadline = time.time() + 60 * minutes if minutes > 0 else math.inf
        self.signalled = False
        try:
            signal.signal(signal.SIGTERM, self._on_signal)
        except ValueError:  # not the main thread: rely on the deadline
            pass

    def _on_signal(self, signum, frame) -> None:
        self.signalled = True

    def stop(self) -> bool:
        return self.signalled or time.time() > self.deadline


def backend(cfg: LMConfig) -> str:
    """The torch.distributed backend for the training device."""
    return "nccl" if pick_device(cfg.device).type == "cuda" else "gloo"


def _train_distributed(cfg: LMConfig, progress: bool, spawned: bool = False, **init) -> None:
    """One DDP process: join the group (`init`: rank and world size, or torchrun's env)."""
    dist.init_process_group(backend(cfg), **init)
    try:
        if dist.get_backend() == "nccl":
            torch.cuda.set_device(dist.get_rank() % torch.cuda.device_count())
        train_lm(cfg, dist.get_rank(), dist.get_world_size(), progress)
        leave_group(spawned)
    finally:
        dist.destroy_process_group()


def leave_group(spawned: bool) -> None:
    """The end of a DDP process's work.  Rank 0 may still be saving when the others are
    done, and tearing gloo down while a peer is busy can abort a process (seen once in CI,
    "terminate called without an active exception"), so all leave together.  A spawned
    process (`torch.multiprocessing.spawn`), its work saved, then exits at once without
    tearing gloo down, which under load still aborted 2 runs in 15 after the barrier."""
    dist.barrier()
    if spawned:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)


def _worker(rank: int, world: int, cfg: LMConfig, port: int, progress: bool) -> None:
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", str(port))
    _train_distributed(cfg, progress, spawned=True, rank=rank, world_size=world)


def launch(cfg: LMConfig, progress: bool = True, port: int = 29533) -> None:
    """Train in this process, or under DDP: torchrun's environment, else `cfg.procs` local ones."""
    if int(os.environ.get("WORLD_SIZE", "1")) > 1:
        _train_distributed(cfg, progress)
    elif cfg.procs > 1:
        import torch.multiprocessing as mp

        mp.spawn(_worker, args=(cfg.procs, cfg, port, progress), nprocs=cfg.procs, join=True)
    else:
        train_lm(cfg, 0, 1, progress)

"""Language-model training throughput: windows per second (each with `negatives` corruptions)
for one process with N threads, and for DDP with several processes, on CPU or GPU.

    python bench/lm_speed.py --corpus runs/lm/corpus --model runs/lm/model --seconds 20

Runs the real training step (`senna.lm.train.train_step`) on the prepared corpus; with
`--model` it starts from that run's checkpoint, whose share of margin-violating windows
(the only ones that need a backward pass) is what a long run sees; without it, from
random weights, where every window violates the margin (the slowest case).
Prints a markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import torch
import torch.distributed as dist

from senna.lm.corpus import Corpus
from senna.lm.model import RankingLM
from senna.lm.sampler import WindowSampler
from senna.lm.train import (
    CHECKPOINT,
    LMConfig,
    backend,
    leave_group,
    make_optimizer,
    pick_device,
    train_step,
)


def measure(cfg: LMConfig, model_dir: str | None, size: int, seconds: float,
            rank: int = 0, world: int = 1) -> dict:
    device = pick_device(cfg.device)
    if device.type == "cpu":
        torch.set_num_threads(cfg.threads)
    corpus = Corpus(cfg.corpus)
    sampler = WindowSampler(corpus.ids("train"), cfg.window, device)
    model = RankingLM(size, cfg.dim, cfg.window, cfg.hidden).to(device)
    if model_dir:
        state = torch.load(Path(model_dir) / CHECKPOINT, map_location=device, weights_only=True)
        weights = state["model"]
        size = min(size, len(weights["emb.weight"]))
        model = RankingLM(size, cfg.dim, cfg.window, cfg.hidden).to(device)
        weights["emb.weight"] = weights["emb.weight"][:size]
        model.load_state_dict(weights)
    net = torch.nn.parallel.DistributedDataParallel(model) if world > 1 else model
    opt = make_optimizer(model, cfg)
    gen = torch.Generator(device=device).manual_seed(rank)
    for _ in range(5):  # warm-up
        train_step(model, net, opt, sampler, gen, size, cfg, world)
    sync = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)
    sync()
    steps, active, t0 = 0, 0.0, time.perf_counter()
    while True:
        active += train_step(model, net, opt, sampler, gen, size, cfg, world)[1]
        steps += 1
        if steps % 10 == 0:
            sync()
            done = torch.tensor(float(time.perf_counter() - t0 > seconds), device=device)
            if world > 1:
                dist.broadcast(done, 0)
            if done.item():
                break
    elapsed = time.perf_counter() - t0
    return {"windows_per_s": steps * cfg.batch / elapsed, "active": active / steps,
            "device": str(device), "size": size}


def _ddp_worker(rank: int, world: int, cfg: LMConfig, model_dir, size, seconds, out, port):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group(backend(cfg), rank=rank, world_size=world)
    r = measure(cfg, model_dir, size, seconds, rank, world)
    Path(out, f"{rank}.json").write_text(json.dumps(r))
    leave_group(spawned=True)


def measure_ddp(cfg: LMConfig, model_dir, size, seconds, procs: int) -> dict:
    import torch.multiprocessing as mp

    with tempfile.TemporaryDirectory() as out:
        mp.spawn(_ddp_worker, args=(procs, cfg, model_dir, size, seconds, out, 29577),
                 nprocs=procs, join=True)
        rs = [json.loads(Path(out, f"{r}.json").read_text()) for r in range(procs)]
    return {"windows_per_s": sum(r["windows_per_s"] for r in rs),
            "active": sum(r["active"] for r in rs) / procs, "device": rs[0]["device"],
            "size": rs[0]["size"]}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--corpus", default="runs/lm/corpus")
    p.add_argument("--model", help="a `senna lm train` directory to start from")
    p.add_argument("--size", type=int, default=100_000, help="dictionary size")
    p.add_argument("--seconds", type=float, default=20)
    p.add_argument("--batch", default="4096",
                   help="windows per step; a comma list measures each (default: 4096)")
    p.add_argument("--negatives", type=int, default=4)
    p.add_argument("--device", default="auto")
    p.add_argument("--setups", default="1x1,1x2,2x1",
                   help="PROCSxTHREADS list (default: 1x1,1x2,2x1)")
    a = p.parse_args()
    print("| processes x threads | device | batch | negatives | dictionary | windows/s "
          "| corruptions/s | windows needing a backward pass |")
    print("|---|---|---|---|---|---|---|---|")
    batches = [int(b) for b in a.batch.split(",")]
    for setup in a.setups.split(","):
        procs, threads = (int(x) for x in setup.split("x"))
        for batch in batches:
            cfg = LMConfig(corpus=a.corpus, batch=batch, negatives=a.negatives,
                           threads=threads, device=a.device)
            if procs > 1:
                r = measure_ddp(cfg, a.model, a.size, a.seconds, procs)
            else:
                r = measure(cfg, a.model, a.size, a.seconds)
            print(f"| {procs} x {threads} | {r['device']} | {batch} | {a.negatives} "
                  f"| {r['size']:,} | {r['windows_per_s']:,.0f} "
                  f"| {r['windows_per_s'] * a.negatives:,.0f} | {100 * r['active']:.0f}% |",
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

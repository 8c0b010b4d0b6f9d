#!/usr/bin/env bash
# Spanish and Dutch language models from random weights on one GPU, with the CPU recipes'
# network (recipes/lm-es.json, lm-nl.json) at batches of 65,536 windows:
#   here:  senna lm prepare ../shared/data/lm/nl_*.txt.xz --language nl --out runs/lm-nl/corpus
#          python recipes/lm_gpu.py pack --corpus runs/lm-nl/corpus --size 100000 --tokens 40M --out .gpu/nl
#          (the same with es), then
#   there: bash recipes/lm-gpu-langs.sh [MINUTES]   (the `device` tool: carry .gpu; OUT is set;
#          no model travels: only the packed corpora are read)
# 1. Learning rates: six short runs at once on the first language's corpus (its first stage,
#    dictionary 5,000, 100M windows); the pair with the lowest held-out ranking error is kept.
# 2. Both languages' curricula at once with that pair (the last stage at half the rates), each
#    stopped after MINUTES (default 4) with a checkpoint.
# 3. Each exported in float16 to $OUT/lm-LANG.tar (an embeddings folder with the hidden layers).
set -euo pipefail
cd "$(dirname "$0")/.."
export PYTHONUNBUFFERED=1 PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
OUT=${OUT:-runs/lm-gpu-langs}
MINUTES=${1:-4}
LANGS=${LANGS:-nl es}
DEVICE=${DEVICE:-cuda}
SCALE=${SCALE:-1}   # divides every window count: SCALE=10000 DEVICE=cpu is a dry run
mkdir -p "$OUT" runs/sweep
! command -v nvidia-smi >/dev/null || nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
for L in $LANGS; do python3 recipes/lm_gpu.py unpack --src ".gpu/$L" --dst "runs/lm-$L/corpus"; done

first=${LANGS%% *}
for lr in 0.4 1.6 6.4; do
  for le in 0.025 0.1; do
    python3 -m senna lm train --corpus "runs/lm-$first/corpus" --out "runs/sweep/$lr-$le" \
        --batch 65536 --lr "$lr" --lr-emb "$le" --stages "5000:$((100000000 / SCALE))" --device "$DEVICE" \
        --log-every 1000 --checkpoint-minutes 5 >"runs/sweep/$lr-$le.log" 2>&1 &
  done
done
wait
read -r LR LR_EMB < <(python3 - <<'EOF' | tee -a "$OUT/sweep.txt"
import pathlib, re, sys
found = {}
for log in sorted(pathlib.Path("runs/sweep").glob("*.log")):
    m = re.search(r"held-out ranking error ([0-9.]+)%", log.read_text(errors="replace"))
    found[log.stem] = float(m.group(1)) if m else float("inf")
    print(f"lr, lr_emb {log.stem}: held-out error {found[log.stem]}%", file=sys.stderr)
best = min(found, key=found.get)
print(*best.split("-"))
EOF
)
grep -H "held-out" runs/sweep/*.log >>"$OUT/sweep.txt" || true
echo "kept: lr $LR, lr_emb $LR_EMB" | tee -a "$OUT/sweep.txt"

for L in $LANGS; do
  python3 - "$L" "$LR" "$LR_EMB" "$SCALE" <<'EOF'
import json, sys
lang, lr, le, scale = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
last = {"nl": 400_000_000, "es": 600_000_000}.get(lang, 500_000_000)
cfg = {"corpus": f"runs/lm-{lang}/corpus", "out": f"runs/lm-{lang}/model", "dim": 50,
       "window": 11, "hidden": 100, "negatives": 4, "batch": 65536, "lr": lr, "lr_emb": le,
       "stages": [[5000, 100_000_000], [10000, 100_000_000], [30000, 200_000_000],
                  [50000, 300_000_000], [100000, last, lr / 2, le / 2]],
       "eval_windows": 20000 // min(scale, 100),
       "seed": 1, "checkpoint_minutes": 1, "log_every": 500}
for st in cfg["stages"]:
    st[1] //= scale
open(f"runs/lm-{lang}/gpu.json", "w").write(json.dumps(cfg, indent=1) + "\n")
EOF
  cp "runs/lm-$L/gpu.json" "$OUT/lm-$L.json"
  python3 -m senna lm train --config "runs/lm-$L/gpu.json" --max-minutes "$MINUTES" \
      --device "$DEVICE" 2>&1 | tr '\r' '\n' \
      | awk 'NR % 20 == 1 || /^stage [0-9]+:|stopped|rror/' >"$OUT/train-$L.log" &
done
wait
for L in $LANGS; do
  grep -h "^stage\|stopped" "$OUT/train-$L.log" | sed "s/^/$L: /" || true
  python3 -m senna lm export --model "runs/lm-$L/model" --to "runs/lm-$L/export" --dtype float16
  tar -C "runs/lm-$L" -cf "$OUT/lm-$L.tar" export
done
ls -la "$OUT"

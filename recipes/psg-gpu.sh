#!/usr/bin/env bash
# Parser recipes compared on one GPU, several seeds each, all at once: the recipe
# (recipes/psg.json: two fold parsers, then the run on its own mistakes) against the
# recipe reading character vectors (`--features senna+chars:30`) and the recipe on the
# gold levels alone (`--explore 0`). For deciding between recipes, not for shipping: a GPU
# run's weights differ from a CPU run's in the last digits, and the shipped parser is
# trained on the CPU (`make psg`), where a seed gives the same model every time on one
# machine (docs/rebuild.md: not across CPUs).
#   here:  mkdir -p .gpu/ewt && for s in train dev; do
#              xz -T2 -c ../shared/data/ewt/ewt.$s.gold_conll > .gpu/ewt/ewt.$s.gold_conll.xz; done
#   there: bash recipes/psg-gpu.sh [MINUTES]   (the `device` tool: carry .gpu; OUT is set)
# Every training stops after the epoch that passes MINUTES (default 4): a fold parser, a
# run (an exploring one starts when its folds are done: twice MINUTES). Then each
# parser's trees on EWT dev, from predicted POS with the shipped parser's own PT0 and NML
# taggers (as `senna -psg` parses), go to $OUT/summary.txt, the logs and each run's
# history.json to $OUT/runs.tar.xz.
# A dry run on the CPU, on the test fixture's trees: DEVICE=cpu EWT=dry SEEDS=1 bash recipes/psg-gpu.sh 0.02
set -euo pipefail
cd "$(dirname "$0")/.."
export PYTHONUNBUFFERED=1 PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
# fifteen trainings at once: each one's NumPy (its dev trees) on one thread
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
OUT=${OUT:-runs/psg-gpu}
MINUTES=${1:-4}
SEEDS=${SEEDS:-1 2 3}
DEVICE=${DEVICE:-cuda}
EWT=${EWT:-}            # a folder of ewt.{train,dev}.gold_conll, instead of .gpu/ewt
RUNS=runs/psg-gpu-runs
mkdir -p "$OUT" "$RUNS"
! command -v nvidia-smi >/dev/null || nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
if [ -z "$EWT" ]; then
  EWT=runs/ewt
  mkdir -p "$EWT"
  for f in .gpu/ewt/*.xz; do xz -dc "$f" > "$EWT/$(basename "${f%.xz}")"; done
fi
if [ "$EWT" = dry ]; then   # the test fixture's trees: 30 to train on, 9 for dev
  EWT=runs/ewt-dry
  mkdir -p "$EWT"
  python3 - "$EWT" <<'EOF2'
import sys
blocks = open("tests/fixtures/ewt_sample.gold_conll").read().strip().split("\n\n")
open(f"{sys.argv[1]}/ewt.train.gold_conll", "w").write("\n\n".join(blocks[:30]) + "\n\n")
open(f"{sys.argv[1]}/ewt.dev.gold_conll", "w").write("\n\n".join(blocks[30:]) + "\n\n")
EOF2
fi
TRAIN=$EWT/ewt.train.gold_conll
DEV=$EWT/ewt.dev.gold_conll
common=(--train "$TRAIN" --dev "$DEV" --device "$DEVICE" --threads 1 --max-minutes "$MINUTES"
        --jackknife-dir "$RUNS/jackknife")

# the recipe's runs (each: its two fold parsers at once, then the run on the states they
# reach), the recipe reading character vectors too (as the parser's PT0 tagger does), and
# the recipe on the gold levels alone, all at once
for s in $SEEDS; do
  python3 -m senna train --config recipes/psg.json "${common[@]}" --seed "$s" \
      --out "$RUNS/recipe-s$s" > "$RUNS/recipe-s$s.log" 2>&1 &
  python3 -m senna train --config recipes/psg.json "${common[@]}" --seed "$s" \
      --features senna+chars:30 --out "$RUNS/chars-s$s" > "$RUNS/chars-s$s.log" 2>&1 &
  python3 -m senna train --config recipes/psg.json "${common[@]}" --seed "$s" \
      --explore 0 --explore-epochs 0 --out "$RUNS/gold-s$s" > "$RUNS/gold-s$s.log" 2>&1 &
done
wait

# whole trees on dev, as `senna -psg` parses: predicted POS, the shipped PT0 and NML taggers
# (which find the embeddings they were trained from beside their parser, as shipped)
[ -d "$RUNS/embeddings" ] || cp -r senna/models/embeddings "$RUNS/"
{
  echo "parser trees on $(basename "$DEV"), predicted POS (MINUTES=$MINUTES per stage, $DEVICE)"
  for d in "$RUNS"/recipe-s*/ "$RUNS"/chars-s*/ "$RUNS"/gold-s*/; do
    d=${d%/}
    [ -f "$d/config.json" ] || { echo "$(basename "$d"): no model"; continue; }
    cp -r senna/models/psg/pt0 senna/models/psg/nml "$d/"
    epochs=$(python3 -c "import json,sys; c=json.load(open(sys.argv[1])); \
print(c['training']['epochs'], c['dev']['score'])" "$d/config.json")
    f1=$(python3 -m senna evaluate --model "$d" --data "$DEV" | grep FMeasure)
    echo "$(basename "$d") kept epoch, training's dev score: $epochs; $f1"
  done
} | tee "$OUT/summary.txt"
tar -cJf "$OUT/runs.tar.xz" "$RUNS"/*.log $(ls "$RUNS"/*/history.json 2>/dev/null)

#!/usr/bin/env bash
# The ranking language model on one GPU, going on from the shipped embeddings:
#   here:  python recipes/lm_gpu.py pack          (a 33M-word slice of runs/lm/corpus -> .gpu/;
#          --part 1, 2, 3 pack the next slices, for later calls: the tree is sent on each call)
#   there: bash recipes/lm-gpu.sh [MINUTES]       (the `device` tool: carry .gpu; OUT is set;
#          the other models may stay behind: only senna/models/embeddings is read)
# A second call on the warm machine resumes from runs/lm-gpu/model (its ignored outputs stay).
# It prints the throughput table (bench/lm_speed.py on the GPU), trains for MINUTES (default 5)
# with recipes/lm-gpu.json, and exports the embeddings (with the hidden layers) to $OUT/embeddings.
set -euo pipefail
cd "$(dirname "$0")/.."
export PYTHONUNBUFFERED=1 PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
OUT=${OUT:-runs/lm-gpu}
MINUTES=${1:-5}
DEVICE=${DEVICE:-cuda}
mkdir -p "$OUT"
! command -v nvidia-smi >/dev/null || nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.cuda.is_available())'
python3 recipes/lm_gpu.py unpack
python3 bench/lm_speed.py --corpus runs/lm-gpu/corpus --device "$DEVICE" --size 130000 --seconds 6 \
    --setups 1x1 --batch 4096,16384,65536 | tee "$OUT/speed.md"
python3 -m senna lm train --config recipes/lm-gpu.json --max-minutes "$MINUTES" --device "$DEVICE" 2>&1 \
    | tr '\r' '\n' | grep -v '^\s*$' | awk 'NR % 40 == 1 || /^stage [0-9]+:|stopped|starting|resum|rror/' \
    | tee "$OUT/train.log" || echo "training stopped with an error; exporting its last checkpoint"
python3 -m senna lm export --model runs/lm-gpu/model --to "$OUT/embeddings" --dtype float16

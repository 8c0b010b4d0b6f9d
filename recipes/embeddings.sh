#!/usr/bin/env bash
# Rebuild senna/models/embeddings from ../shared/data/lm (the ranking language model, section 4):
# prepare the corpus (~15 min on 2 cores), train the curriculum of recipes/lm.json (21 stages,
# 4.2 billion windows: about 3 hours on 2 CPU cores at 200k-460k windows/s; rerun the same
# command to resume after an interruption), export (float16 vectors and the hidden layers).
# recipes/lm-continue.json goes on from the exported embeddings.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f runs/lm/corpus/corpus.json ] || senna lm prepare ../shared/data/lm/*.txt.xz --out runs/lm/corpus
senna lm train --config recipes/lm.json
senna lm export --model runs/lm/model --to senna/models/embeddings --dtype float16

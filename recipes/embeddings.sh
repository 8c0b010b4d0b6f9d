#!/usr/bin/env bash
# Rebuild senna/models/embeddings from ../shared/data/lm (the ranking language model, section 4):
# prepare the corpus (~20 min on 2 cores), train the curriculum of recipes/lm.json
# (~45 min on 2 cores; rerun the same command to resume after an interruption), export.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f runs/lm/corpus/corpus.json ] || senna lm prepare ../shared/data/lm/*.txt.xz --out runs/lm/corpus
senna lm train --config recipes/lm.json
senna lm export --model runs/lm/model --to senna/models/embeddings --dtype float16

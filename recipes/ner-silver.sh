#!/usr/bin/env bash
# NER as shipped since session 9: trained on eng.train plus 8,000 sentences of Reuters-21578
# newswire that three NER taggers tagged by vote (senna/train/silver.py).  The teachers are
# recipes/ner.json's run (the gold-only tagger, shipped before session 9), the same with
# weight averaging, and seed 2 with learning rate 0.1; each is trained once into
# runs/ner-teachers/ (kept: a finished teacher is not trained again).
set -euo pipefail
cd "$(dirname "$0")/.."
T=runs/ner-teachers
teacher() {   # directory, then the options it adds to recipes/ner.json
  local dir=$1; shift
  [ -f "$dir/history.json" ] || senna train --config recipes/ner.json --out "$dir" "$@"
}
teacher "$T/seed3"
teacher "$T/seed3-average" --average 0.9997
teacher "$T/seed2-lr" --seed 2 --lr 0.1
python -m senna.train.silver --teachers "$T/seed3,$T/seed3-average,$T/seed2-lr" \
  --text ../shared/data/lm/reuters21578_news.txt.xz --gold ../shared/data/conll2003/eng.train \
  --sentences 8000 --out runs/ner-silver/train.conll
senna train --config recipes/ner-silver.json

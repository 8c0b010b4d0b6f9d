#!/usr/bin/env bash
# A tagger trained on silver data (senna/train/silver.py): the task's gold training sentences
# plus 8,000 sentences of unlabeled text tagged by a vote of three taggers.
#   bash recipes/silver.sh ner     NER as shipped: Reuters-21578 newswire
#   bash recipes/silver.sh pos     POS: Wikipedia (enwiki_c, CC BY-SA)
#   bash recipes/silver.sh chunk   CHUNK: Reuters-21578 newswire, its POS column by the
#                                  shipped POS tagger; a file of its own (--extra-train),
#                                  as CHUNK's dev is the last 10% of its training file
# The teachers are runs of recipes/<task>.json with the options listed below, each trained
# once into runs/<task>-teachers/ (kept: a finished teacher is not trained again).  NER's are
# the recipe's run (its seed is 3), the same with weight averaging, and seed 2 with learning
# rate 0.1, each with word clusters (recipes/clusters.sh builds them first; needs gensim);
# POS's and CHUNK's are seeds 1 (the recipe's run), 2 and 3.  The student's settings are
# recipes/<task>-silver.json, for the tasks shipped from silver data; NER's student is
# distilled, at temperature 2 (--distill-temperature in recipes/ner-silver.json), from a
# bidirectional LSTM trained on the same silver file (recipes/ner-bilstm.json, into
# runs/ner-students/bilstm; a training-only network).
# With --silver-only as a second argument the script stops once the silver file is written,
# so experiments can train their own students without overwriting the shipped model.
set -euo pipefail
cd "$(dirname "$0")/.."
usage="usage: bash recipes/silver.sh ner|pos|chunk [--silver-only]"
task=${1:?$usage}
case "${2:-}" in
  "") silver_only=0 ;;
  --silver-only) silver_only=1 ;;
  *) echo "recipes/silver.sh: unknown option '$2'; $usage" >&2; exit 2 ;;
esac
D=../shared/data
case "$task" in
  ner) cl="--features senna+chars+clusters --clusters runs/clusters/clusters.lst"
       teachers=("cl-seed3 $cl" "cl-seed3-average --average 0.9997 $cl"
                 "cl-seed2-lr --seed 2 --lr 0.1 $cl")
       text=$D/lm/reuters21578_news.txt.xz gold=$D/conll2003/eng.train
       out=runs/ner-silver/train.conll ;;
  pos) teachers=("seed1" "seed2 --seed 2" "seed3 --seed 3")
       text=$D/lm/enwiki_c_2020_slice.txt.xz gold=$D/ewt/ewt.train.pos
       out=runs/pos-silver/train.pos ;;
  chunk) teachers=("seed1" "seed2 --seed 2" "seed3 --seed 3")
       text=$D/lm/reuters21578_news.txt.xz gold="" out=runs/chunk-silver/silver.txt ;;
  *) echo "recipes/silver.sh: no silver recipe for '$task' (ner, pos, chunk)" >&2; exit 2 ;;
esac
if [ "$task" = ner ]; then   # NER's taggers read word clusters
  bash recipes/clusters.sh
fi
dirs=()
for teacher in "${teachers[@]}"; do
  read -r name options <<< "$teacher"
  dir=runs/$task-teachers/$name
  # shellcheck disable=SC2086  # the options are words
  [ -f "$dir/history.json" ] || senna train --config "recipes/$task.json" --out "$dir" $options
  dirs+=("$dir")
done
python -m senna.train.silver --teachers "$(IFS=,; echo "${dirs[*]}")" --text "$text" \
  ${gold:+--gold "$gold"} --sentences 8000 --out "$out"
if [ "$silver_only" = 1 ]; then
  echo "$out written (--silver-only: no student trained)"
elif [ -f "recipes/$task-silver.json" ]; then   # the shipped model's settings
  # NER: first its teacher, a BiLSTM on the silver file (kept once finished), whose scores
  # the shipped student then learns from besides the gold and silver tags
  if [ -f "recipes/$task-bilstm.json" ] && [ ! -f "runs/$task-students/bilstm/history.json" ]; then
    senna train --config "recipes/$task-bilstm.json"
  fi
  senna train --config "recipes/$task-silver.json"
else   # measured (bench/levers.py --levers silver), not shipped
  echo "$out written; no shipped $task model is trained on it (no recipes/$task-silver.json)"
fi

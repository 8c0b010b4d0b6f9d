#!/usr/bin/env bash
# Retrain every shipped model from ../shared/data (one `senna train --config` per model):
#   recipes/train_all.sh            all six, in cascade order
#   JOBS=2 recipes/train_all.sh     all six on two cores: POS -> PT0 -> VBS beside SRL -> NER -> CHUNK
#   recipes/train_all.sh ner        one of them
# SRL is trained jointly with the language model (ICML 2008: SRL + LM), on a 13M-token corpus
# prepared once (~2 min) from two of the LM files; recipes/srl.json is its task settings.
# Every tagger reads senna/models/embeddings: new embeddings mean retraining all six.
set -euo pipefail
cd "$(dirname "$0")/.."

train_one() {
  if [ "$1" = srl ]; then
    [ -f runs/lm/corpus-small/corpus.json ] || senna lm prepare \
      ../shared/data/lm/reuters21578_news.txt.xz ../shared/data/lm/enwiki_c_2020_slice.txt.xz \
      --out runs/lm/corpus-small
    senna train --config recipes/srl-lm.json
  else
    senna train --config "recipes/$1.json"
  fi
}

tasks=("$@")
if [ ${#tasks[@]} -eq 0 ] && [ "${JOBS:-1}" -gt 1 ]; then
  # the POS-fed cascade on one core, the tasks that read no other model on the other
  (for t in pos pt0 vbs; do train_one "$t"; done) & cascade=$!
  (for t in srl ner chunk; do train_one "$t"; done) & rest=$!
  status=0   # wait for both lanes, whichever fails
  wait "$cascade" || status=$?
  wait "$rest" || status=$?
  exit "$status"
fi
[ ${#tasks[@]} -eq 0 ] && tasks=(pos chunk ner pt0 vbs srl)
for task in "${tasks[@]}"; do
  train_one "$task"
done

#!/usr/bin/env bash
# Retrain every shipped model from ../shared/data (one `senna train --config` per model):
#   recipes/train_all.sh            all six, in cascade order
#   JOBS=2 recipes/train_all.sh     all six on two cores: POS -> CHUNK -> PT0 -> VBS beside SRL -> NER
#   recipes/train_all.sh ner        one of them
# SRL is trained jointly with the language model (ICML 2008: SRL + LM), on a 13M-token corpus
# prepared once (~2 min) from two of the LM files; recipes/srl.json is its task settings.
# It is distilled from three SRL networks of the same recipe without distillation
# (recipes/srl-teachers.json, seeds 1-3, into runs/srl-teachers/): three runs more.
# CHUNK and PT0 come from runs trained jointly with POS and each other (shared word table and
# first layer; each task's settings from its own recipe, the POS partner's with the 300-unit
# layer it shares): CHUNK from recipes/chunk-pt0.json, PT0 from recipes/pt0-joint.json, where
# CHUNK and PT0 add a second hidden layer over 3 neighbours.  POS is shipped from its own
# run (100 hidden units: as accurate alone, and faster).  NER is trained on eng.train plus
# Reuters-21578 sentences tagged by three NER taggers (recipes/silver.sh).
# Every tagger reads senna/models/embeddings: new embeddings mean retraining all six.
# Each model's own word-table rows are then stored in float16 (`senna compact`).
set -euo pipefail
cd "$(dirname "$0")/.."

train_one() {
  case "$1" in
    srl)
      [ -f runs/lm/corpus-small/corpus.json ] || senna lm prepare \
        ../shared/data/lm/reuters21578_news.txt.xz ../shared/data/lm/enwiki_c_2020_slice.txt.xz \
        --out runs/lm/corpus-small
      # its teachers: the recipe without distillation, seeds 1-3 (finished runs are kept)
      senna train --config recipes/srl-teachers.json --seeds 1,2,3
      senna train --config recipes/srl-lm.json ;;
    chunk) senna train --config recipes/chunk-pt0.json ;;
    pt0) senna train --config recipes/pt0-joint.json ;;
    ner) bash recipes/silver.sh ner ;;   # teachers, silver data, then the shipped student
    *) senna train --config "recipes/$1.json" ;;
  esac
  # the word-table rows a model keeps beside the embeddings, in float16: half the space on
  # disk and in memory, dev scores unchanged (measured in docs/lab/levers.md)
  senna compact "senna/models/$1" --rows float16
}

tasks=("$@")
if [ ${#tasks[@]} -eq 0 ] && [ "${JOBS:-1}" -gt 1 ]; then
  # the POS-fed cascade on one core, the tasks that read no other model on the other
  (for t in pos chunk pt0 vbs; do train_one "$t"; done) & cascade=$!
  (for t in srl ner; do train_one "$t"; done) & rest=$!
  status=0   # wait for both lanes, whichever fails
  wait "$cascade" || status=$?
  wait "$rest" || status=$?
  exit "$status"
fi
[ ${#tasks[@]} -eq 0 ] && tasks=(pos chunk pt0 ner vbs srl)
for task in "${tasks[@]}"; do
  train_one "$task"
done

#!/usr/bin/env bash
# Retrain every shipped model from ../shared/data (one `senna train --config` per model):
#   recipes/train_all.sh            all six, in cascade order
#   recipes/train_all.sh ner        one of them
# SRL is trained jointly with the language model (ICML 2008: SRL + LM), on a 13M-token corpus
# prepared once (~2 min) from two of the LM files; recipes/srl.json is its task settings.
set -euo pipefail
cd "$(dirname "$0")/.."
tasks=("$@")
[ ${#tasks[@]} -eq 0 ] && tasks=(pos chunk ner pt0 vbs srl)
for task in "${tasks[@]}"; do
  if [ "$task" = srl ]; then
    [ -f runs/lm/corpus-small/corpus.json ] || senna lm prepare \
      ../shared/data/lm/reuters21578_news.txt.xz ../shared/data/lm/enwiki_c_2020_slice.txt.xz \
      --out runs/lm/corpus-small
    senna train --config recipes/srl-lm.json
  else
    senna train --config "recipes/$task.json"
  fi
done

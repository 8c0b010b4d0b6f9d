#!/usr/bin/env bash
# Retrain every shipped model from ../shared/data (one `senna train --config` per model):
#   recipes/train_all.sh            all five, in cascade order
#   recipes/train_all.sh ner        one of them
set -euo pipefail
cd "$(dirname "$0")/.."
tasks=("$@")
[ ${#tasks[@]} -eq 0 ] && tasks=(pos chunk ner pt0 vbs srl)
for task in "${tasks[@]}"; do
  senna train --config "recipes/$task.json"
done

#!/usr/bin/env bash
# Cased word clusters for the '+clusters' features (senna.lm.clusters): tokenise the
# language model's text keeping case (~9 min on 2 cores), train word2vec on it (gensim, CBOW,
# 100 dimensions, 5 epochs) and cluster the 150,000 most frequent words' vectors by k-means
# at 64, 512 and 4096 clusters (~10 min); writes runs/clusters/clusters.lst, which
# `senna train --clusters` reads and copies into the model it trains.  Needs gensim
# (pip install gensim).  A text.txt already in runs/clusters is reused.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f runs/clusters/clusters.lst ] || senna lm clusters ../shared/data/lm/*.txt.xz --out runs/clusters

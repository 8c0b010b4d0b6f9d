# Rebuild the shipped models from the data in $(DATA) (docs/rebuild.md).
#
#   make models             the six shipped taggers (not the embeddings: `make embeddings`)
#   make pos                one of them: pos chunk pt0 ner srl vbs, with what it needs first
#   make -n models          print every step without running it
#   make -j2 models         two steps at a time (those that train jackknife folds take turns)
#   make pos MODELS=runs/rebuild   write POS, VBS or NER elsewhere, e.g. to compare
#
# Each target is a file a step writes (a run's history.json appears when it has finished),
# so a finished step is reused; a step whose recipe, data or inputs are newer runs again,
# and an interrupted training step resumes from its checkpoint.  Every tagger reads the
# shipped embeddings: after `make embeddings`, `make models` retrains all six; and when
# LM_EN names other texts than the shipped embeddings record, `make models` rebuilds the
# embeddings first (hours: `make -n models` shows it).

DATA ?= ../shared/data
MODELS ?= senna/models
PYTHON ?= python
SENNA := $(PYTHON) -m senna
EMB := senna/models/embeddings
# A tagger's input, rebuilt only by `make embeddings` (hours of training), never on the way.
EMBEDDINGS := $(EMB)/vectors.npz
# Steps that train jackknife POS folds (CHUNK's and PT0's joint runs, VBS) share the same
# folds in runs/jackknife/: under -j they take turns (flock, from util-linux; where it is
# missing, run make without -j).
JACKKNIFE := $(if $(shell command -v flock),flock runs/.jackknife.lock)
SHIPPED := senna/models
# The English unlabeled text of the embeddings, all of it under free licences: Wikipedia
# (CC BY-SA) and Voice of America news (public domain); the folder also holds Spanish es_*
# and Dutch nl_* files, and Reuters-21578 (research use only), which only NER's silver
# data reads (NER is research-use through CoNLL-2003 anyway).
LM_EN := $(wildcard $(DATA)/lm/enwiki_*.txt.xz) $(DATA)/lm/en_voa_gmb_news.txt.xz
# The text files a corpus or embeddings folder records it was made from.
texts_of = $(sort $(shell grep -o '[A-Za-z0-9_]*\.txt\.xz' $(1) 2>/dev/null))
MAKEFLAGS += --no-builtin-rules
comma := ,
space := $() $()
commas = $(subst $(space),$(comma),$(strip $(1)))

# The recipes read ../shared/data, and the joint ones (chunk, pt0, srl) write senna/models:
# other places are refused rather than mixed.
ifneq ($(abspath $(DATA)),$(abspath ../shared/data))
$(error DATA must be ../shared/data, the directory recipes/*.json read (link your copy there))
endif
ifneq ($(abspath $(MODELS)),$(abspath $(SHIPPED)))
ifneq ($(filter models chunk pt0 srl,$(or $(MAKECMDGOALS),models)),)
$(error chunk, pt0 and srl are joint runs whose recipes write $(SHIPPED): MODELS applies to pos, vbs and ner)
endif
endif

.DELETE_ON_ERROR:
.PHONY: FORCE models pos chunk pt0 ner srl vbs embeddings clusters pos-silver chunk-silver \
	embeddings-es embeddings-nl ner-es ner-nl psg psg-pt0 psg-nml table12 table12-predicted

# PT0 and VBS last: under -j2 they would wait for CHUNK's jackknife folds while NER's and
# SRL's steps can run.
models: pos chunk ner srl pt0 vbs
pos: $(MODELS)/pos/weights.npz
chunk: $(MODELS)/chunk/weights.npz
pt0: $(MODELS)/pt0/weights.npz
ner: $(MODELS)/ner/weights.npz
srl: $(MODELS)/srl/weights.npz
vbs: $(MODELS)/vbs/weights.npz

# Each model's word-table rows in float16 once it is trained (half the space; dev scores
# move by a tag or two, e.g. PT0 finds 8,555 phrases where it found 8,556; weights.npz is replaced atomically, so an interrupted compaction keeps it).
# The language models' corpora and exports too: hours of work that make must not delete.
.PRECIOUS: $(MODELS)/%/weights.npz runs/embeddings-%/vectors.npz runs/lm-%/corpus/corpus.json
COMPACT := --rows float16
$(MODELS)/%/weights.npz: $(MODELS)/%/history.json
	$(SENNA) compact $(@D) $(COMPACT)
# A BiLSTM's matrices are half its size: float16 too (dev scores unchanged to the digit).
$(MODELS)/nl/ner/weights.npz $(MODELS)/psg/weights.npz: COMPACT += --weights float16
# (private: not passed on to what it needs first, the POS tagger)
$(MODELS)/psg/pt0/weights.npz $(MODELS)/psg/nml/weights.npz: private COMPACT += --weights float16

# --- POS and the taggers that read its tags --------------------------------------------

$(MODELS)/pos/history.json: recipes/pos.json $(EMBEDDINGS)
	$(SENNA) train --config recipes/pos.json --out $(@D)

VBS_POS := --predicted-columns pos=$(MODELS)/pos
$(MODELS)/vbs/history.json: recipes/vbs.json $(MODELS)/pos/weights.npz $(EMBEDDINGS) | runs
	$(JACKKNIFE) $(SENNA) train --config recipes/vbs.json --out $(@D) $(VBS_POS)

# The parser: the level network, trained on the trees' gold POS tags (at run time it reads
# the POS tagger's), and its own PT0 tagger (a BiLSTM, in its folder's pt0/), whose phrases
# its first level keeps.
psg: $(MODELS)/psg/weights.npz $(MODELS)/psg/pt0/weights.npz $(MODELS)/psg/nml/weights.npz
psg-pt0: $(MODELS)/psg/pt0/weights.npz
psg-nml: $(MODELS)/psg/nml/weights.npz
$(MODELS)/psg/history.json: recipes/psg.json $(EMBEDDINGS)
	$(SENNA) train --config recipes/psg.json --out $(@D)
$(MODELS)/psg/pt0/history.json: recipes/psg-pt0.json $(MODELS)/pos/weights.npz $(EMBEDDINGS)
	$(SENNA) train --config recipes/psg-pt0.json --out $(@D) --predicted-columns pos=$(MODELS)/pos
# the NML nodes the levels flatten: the EWT trees' outermost ones as a tagger's files
runs/nml/ewt.train.nml runs/nml/ewt.dev.nml &: recipes/nml_data.py | runs
	$(PYTHON) recipes/nml_data.py --data $(DATA) --out runs/nml
$(MODELS)/psg/nml/history.json: recipes/psg-nml.json runs/nml/ewt.train.nml runs/nml/ewt.dev.nml \
		$(MODELS)/pos/weights.npz $(EMBEDDINGS)
	$(SENNA) train --config recipes/psg-nml.json --out $(@D) --predicted-columns pos=$(MODELS)/pos

# CHUNK and PT0 are each shipped from a run trained jointly with POS and each other.
JOINT := recipes/pos.json recipes/chunk.json recipes/pt0.json $(SHIPPED)/pos/weights.npz \
	$(EMBEDDINGS)
$(SHIPPED)/chunk/history.json: recipes/chunk-pt0.json $(JOINT) | runs
	$(JACKKNIFE) $(SENNA) train --config recipes/chunk-pt0.json
$(SHIPPED)/pt0/history.json: recipes/pt0-joint.json $(JOINT) | runs
	$(JACKKNIFE) $(SENNA) train --config recipes/pt0-joint.json

runs:
	mkdir -p $@

# --- SRL: trained with the language model, distilled from three SRL runs ---------------

LM_SMALL := $(DATA)/lm/en_voa_gmb_news.txt.xz $(DATA)/lm/enwiki_c_2020_slice.txt.xz
ifneq ($(call texts_of,runs/lm/corpus-small/corpus.json),$(sort $(notdir $(LM_SMALL))))
runs/lm/corpus-small/corpus.json: FORCE
endif
runs/lm/corpus-small/corpus.json:
	$(SENNA) lm prepare $(LM_SMALL) --out $(@D)

# Each teacher is a step of its own (under -j2 two train side by side); the ensemble step
# then finds the three runs finished and only scores and joins them.
SRL_SEEDS := 1 2 3
runs/srl-teachers/seed-%/history.json: recipes/srl-teachers.json recipes/srl.json \
		runs/lm/corpus-small/corpus.json $(EMBEDDINGS)
	$(SENNA) train --config recipes/srl-teachers.json --seed $* --out $(@D)
runs/srl-teachers/srl/ensemble.json: $(SRL_SEEDS:%=runs/srl-teachers/seed-%/history.json)
	$(SENNA) train --config recipes/srl-teachers.json --seeds $(call commas,$(SRL_SEEDS))

$(SHIPPED)/srl/history.json: recipes/srl-lm.json recipes/srl.json \
		runs/srl-teachers/srl/ensemble.json runs/lm/corpus-small/corpus.json $(EMBEDDINGS) \
		|
	$(SENNA) train --config recipes/srl-lm.json

# --- NER: word clusters, three teachers, silver data, a BiLSTM teacher, the student -----

# Cased word clusters of the language model's text (needs gensim: pip install gensim).
clusters: runs/clusters/clusters.lst
runs/clusters/clusters.lst:
	$(SENNA) lm clusters $(LM_EN) --out $(@D)

NER_CL := --features senna+chars+clusters --clusters runs/clusters/clusters.lst
NER_TEACHERS := runs/ner-teachers/cl-seed3 runs/ner-teachers/cl-seed3-average \
	runs/ner-teachers/cl-seed2-lr
runs/ner-teachers/cl-seed3/history.json: NER_OPTIONS :=
runs/ner-teachers/cl-seed3-average/history.json: NER_OPTIONS := --average 0.9997
runs/ner-teachers/cl-seed2-lr/history.json: NER_OPTIONS := --seed 2 --lr 0.1
$(NER_TEACHERS:%=%/history.json): recipes/ner.json runs/clusters/clusters.lst \
		$(EMBEDDINGS)
	$(strip $(SENNA) train --config recipes/ner.json --out $(@D) $(NER_CL) $(NER_OPTIONS))

runs/ner-silver/train.conll: $(NER_TEACHERS:%=%/history.json)
	$(PYTHON) -m senna.train.silver --teachers $(call commas,$(NER_TEACHERS)) \
	  --text $(DATA)/lm/reuters21578_news.txt.xz --gold $(DATA)/conll2003/eng.train \
	  --sentences 8000 --out $@

runs/ner-students/bilstm/history.json: recipes/ner-bilstm.json runs/ner-silver/train.conll \
		runs/clusters/clusters.lst $(EMBEDDINGS)
	$(SENNA) train --config recipes/ner-bilstm.json

$(MODELS)/ner/history.json: recipes/ner-silver.json runs/ner-students/bilstm/history.json \
		runs/ner-silver/train.conll runs/clusters/clusters.lst $(EMBEDDINGS)
	$(SENNA) train --config recipes/ner-silver.json --out $(@D)

# --- Silver files for POS and CHUNK (measured in bench/levers.py, not shipped) -----------

SEEDS := seed1 seed2 seed3
runs/pos-teachers/seed1/history.json runs/chunk-teachers/seed1/history.json: SEED := 1
runs/pos-teachers/seed2/history.json runs/chunk-teachers/seed2/history.json: SEED := 2
runs/pos-teachers/seed3/history.json runs/chunk-teachers/seed3/history.json: SEED := 3
runs/pos-teachers/%/history.json: recipes/pos.json $(EMBEDDINGS)
	$(SENNA) train --config recipes/pos.json --out $(@D) --seed $(SEED)
runs/chunk-teachers/%/history.json: recipes/chunk.json $(EMBEDDINGS)
	$(SENNA) train --config recipes/chunk.json --out $(@D) --seed $(SEED)

pos-silver: runs/pos-silver/train.pos
runs/pos-silver/train.pos: $(SEEDS:%=runs/pos-teachers/%/history.json)
	$(PYTHON) -m senna.train.silver --teachers $(call commas,$(SEEDS:%=runs/pos-teachers/%)) \
	  --text $(DATA)/lm/enwiki_c_2020_slice.txt.xz --gold $(DATA)/ewt/ewt.train.pos \
	  --sentences 8000 --out $@

# CHUNK's silver sentences are a file of their own (--extra-train): its dev set is the last
# tenth of its training file.
chunk-silver: runs/chunk-silver/silver.txt
runs/chunk-silver/silver.txt: $(SEEDS:%=runs/chunk-teachers/%/history.json)
	$(PYTHON) -m senna.train.silver --teachers $(call commas,$(SEEDS:%=runs/chunk-teachers/%)) \
	  --text $(DATA)/lm/reuters21578_news.txt.xz --sentences 8000 --out $@

# --- SRL reading the parse tree's levels (JMLR 2011 Table 12; bench/table12.py) ---------

# Levels 1..K of the data file's gold trees besides PT0, one run per depth, the settings of
# the SRL teachers otherwise (whose seed-1 run is the table's "level 0" row).
LEVELS := 1 2 4
table12: $(LEVELS:%=runs/table12/levels-%/history.json) runs/srl-teachers/seed-1/history.json
runs/table12/levels-%/history.json: recipes/srl-levels-%.json recipes/srl.json \
		runs/lm/corpus-small/corpus.json $(EMBEDDINGS)
	$(SENNA) train --config recipes/srl-levels-$*.json

# The same runs on predicted trees: the training sentences' trees come from three parsers,
# each trained with the shipped parser's settings without a third of them (jackknife; the
# folds, hours each, are shared by both runs and kept in runs/jackknife).
PREDICTED_LEVELS := 1 4
table12-predicted: $(PREDICTED_LEVELS:%=runs/table12/levels-%-predicted/history.json)
runs/table12/levels-%-predicted/history.json: recipes/srl-levels-%-predicted.json \
		recipes/srl.json runs/lm/corpus-small/corpus.json $(EMBEDDINGS) \
		$(MODELS)/psg/weights.npz | runs
	$(JACKKNIFE) $(SENNA) train --config recipes/srl-levels-$*-predicted.json

# --- The embeddings (section 4's language model; hours on CPU) ---------------------------

# When the shipped embeddings were trained on other texts than LM_EN, they are rebuilt on
# the way (and every tagger after them); a corpus of other texts is prepared again.
ifneq ($(call texts_of,runs/lm/corpus/corpus.json),$(sort $(notdir $(LM_EN))))
runs/lm/corpus/corpus.json: FORCE
endif
define TRAIN_EMBEDDINGS
$(SENNA) lm train --config recipes/lm.json
$(SENNA) lm export --model runs/lm/model --to $(EMB) --dtype float16
endef
ifneq ($(wildcard $(EMB)/embeddings.json),)
ifneq ($(call texts_of,$(EMB)/embeddings.json),$(sort $(notdir $(LM_EN))))
$(EMBEDDINGS): runs/lm/corpus/corpus.json
	$(TRAIN_EMBEDDINGS)
endif
endif
FORCE:

runs/lm/corpus/corpus.json:
	$(SENNA) lm prepare $(LM_EN) --out $(@D)

# Trains the curriculum of recipes/lm.json (a second call resumes it) and exports it.
embeddings: runs/lm/corpus/corpus.json
	$(TRAIN_EMBEDDINGS)

# --- Spanish and Dutch NER (CoNLL-2002), in senna/models/es and senna/models/nl ---------
# Both start from three BiLSTMs, seeds 1-3, each a step of its own.  Spanish ships them as an
# ensemble (recipes/ner-es.json; combined by vote or by their mean scores, the better on dev).
# Dutch ships one BiLSTM distilled from their mean scores (recipes/ner-nl-teachers.json for
# the three, then recipes/ner-nl.json).  All read the shipped English embeddings.

ner-es: $(MODELS)/es/ner/ensemble.json
ner-nl: $(MODELS)/nl/ner/weights.npz
NER02_SEEDS := 1 2 3
ES_MEMBERS := $(NER02_SEEDS:%=$(MODELS)/es/ner/seed-%)
$(MODELS)/es/ner/seed-%/history.json: recipes/ner-es.json $(EMBEDDINGS)
	$(SENNA) train --config recipes/ner-es.json --seed $* --out $(@D)
$(ES_MEMBERS:%=%/weights.npz): COMPACT += --weights float16
$(MODELS)/es/ner/ensemble.json: $(ES_MEMBERS:%=%/history.json) $(ES_MEMBERS:%=%/weights.npz)
	$(SENNA) train --config recipes/ner-es.json --seeds $(call commas,$(NER02_SEEDS)) \
		--out $(@D)

runs/ner-nl-teachers/seed-%/history.json: recipes/ner-nl-teachers.json $(EMBEDDINGS)
	$(SENNA) train --config recipes/ner-nl-teachers.json --seed $* --out $(@D)
runs/ner-nl-teachers/ensemble.json: $(NER02_SEEDS:%=runs/ner-nl-teachers/seed-%/history.json)
	$(SENNA) train --config recipes/ner-nl-teachers.json --seeds $(call commas,$(NER02_SEEDS))
$(MODELS)/nl/ner/history.json: recipes/ner-nl.json runs/ner-nl-teachers/ensemble.json \
		$(EMBEDDINGS)
	$(SENNA) train --config recipes/ner-nl.json --out $(@D)

# --- Spanish and Dutch word embeddings (CoNLL-2002's languages; hours on CPU) -----------

runs/lm-%/corpus/corpus.json:
	$(SENNA) lm prepare $(DATA)/lm/$*_*.txt.xz --language $* --out $(@D)

# Trains recipes/lm-es.json or lm-nl.json (a second call resumes it) and exports it to
# runs/: not shipped, since each NER model keeps the rows it reads in its own folder.
embeddings-es embeddings-nl: embeddings-%: runs/embeddings-%/vectors.npz
runs/embeddings-%/vectors.npz: runs/lm-%/corpus/corpus.json
	$(SENNA) lm train --config recipes/lm-$*.json
	$(SENNA) lm export --model runs/lm-$*/model --to $(@D) --dtype float16

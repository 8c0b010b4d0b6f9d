"""Scoring, in one place: the CoNLL scripts' and evalb's semantics, so that numbers compare
with papers, and the steps that score a model on a data file as `senna evaluate` and
training's dev score do.

- `metrics`: percentages, F1, token accuracy (what the scorers share)
- `conlleval`: conlleval.pl's span scores and report (CHUNK, NER)
- `srl_eval`: srl-eval.pl's argument scores and report (SRL)
- `evalb`: evalb's labelled bracket scores with COLLINS.prm's conventions (the parser)
- `predictions`: a task's predicted tags scored against its gold sentences, by its metric
- `inputs`: the input columns a model reads (POS, PT0), predicted as its training did;
  a saved model's recorded dev set
- `files`: a model, or a file of predictions, scored on a gold data file
- `trees`: a parser scored by its whole trees on a file of trees
"""

"""Discrete features -> integer ids, one column per lookup table (paper section 3.1.1).

A `FeatureSpec` (`specs`: data, saved with a model) names a feature kind, its argument and
how wide its embedding is; each kind is a small class (`kinds.KINDS`) that builds its
vocabulary from training sentences and computes ids, either per word (word, caps, suffix,
and chars, whose ids name spellings: cached per distinct word) or over a batch (gazetteer
matches, another tagger's column, the distance to the predicate).  Ids come from the kind's
vocabulary, never from literal offsets.  `featurizer.Featurizer` turns sentences into ids
[T, F], the only thing a network sees; `lexicons` holds the gazetteer and the cluster
lexicon some kinds read.  Adding a cascade (POS for CHUNK, PT0 for SRL) means adding a spec;
adding a kind means adding a class.
"""

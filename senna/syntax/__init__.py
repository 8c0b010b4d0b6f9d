"""Constituency trees for SENNA's parser (`-psg`): trees, their levels, decoding, scoring.

`tree` reads and writes trees (bracket strings, the CoNLL parse column); `levels` turns a
tree into the stack of IOBES tag levels the parser predicts and back; `decode` finds, level
after level, tags that always make a tree; `score` is the evalb bracket scorer.
"""

"""Network hyper-parameters, shared by the PyTorch trainer and the NumPy runtime.

Defaults are the paper's Table 5: window 5, 300 hidden units (window approach); 300
convolution units then 500 hidden units (sentence approach); distance embeddings of 5.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields

# "bilstm": a bidirectional LSTM over the looked-up features (not in the paper): every
# word's scores read the whole sentence, which the window network cannot; a tagger of its
# own (senna.runtime.kernels.bilstm_scores) or a teacher for a window student
# (senna.train.distill).
APPROACHES = ("window", "sentence", "bilstm")
CRITERIA = ("wll", "sll")  # senna.nn.criterion (kept here: the runtime has no torch)


# The settings `network_problems` checks: those a user sets (`senna train`), the rest come
# from the data (vocabularies, tags, features).
NETWORK = ("approach", "criterion", "window", "hidden", "conv", "predicate_window", "stack",
           "stack_hidden", "level_hidden")


def network_problems(s: dict, name: Callable[[str], str] = str) -> list[str]:
    """Everything wrong with the network settings `s` (NETWORK's keys), one message each,
    each setting spelt by `name` (e.g. as a command-line option): one set of checks for the
    training settings and for a saved model's network."""
    out = []
    if s["approach"] not in APPROACHES:
        out.append(f"{name('approach')} must be one of {APPROACHES}, got {s['approach']!r}")
    if s["criterion"] not in CRITERIA:
        out.append(f"{name('criterion')} must be one of {CRITERIA}, got {s['criterion']!r}")
    if s["window"] < 1 or s["window"] % 2 == 0:
        out.append(f"{name('window')} must be odd and positive, got {s['window']}")
    if s["hidden"] < 1:
        out.append(f"{name('hidden')} must be at least 1, got {s['hidden']}")
    sentence = s["approach"] == "sentence"
    if sentence and s["conv"] < 1:
        out.append(f"{name('conv')} must be at least 1 for the sentence approach, got "
                   f"{s['conv']}")
    pw = s["predicate_window"]
    if pw < 0 or (pw > 0 and pw % 2 == 0):
        out.append(f"{name('predicate_window')} must be 0 or odd, got {pw}")
    if pw and not sentence:
        out.append(f"{name('predicate_window')} needs the sentence approach")
    if s["stack"] < 0 or (s["stack"] > 0 and s["stack"] % 2 == 0):
        out.append(f"{name('stack')} must be 0 or odd, got {s['stack']}")
    if s["stack"] and s["approach"] != "window":
        out.append(f"{name('stack')} needs the window approach")
    if s["stack_hidden"] < 0 or (s["stack_hidden"] and not s["stack"]):
        out.append(f"{name('stack_hidden')} must be 0, or positive with a stack, got "
                   f"{s['stack_hidden']}")
    if s["level_hidden"] < 0 or (s["level_hidden"] and s["approach"] != "bilstm"):
        out.append(f"{name('level_hidden')} must be 0, or positive with the bilstm approach, "
                   f"got {s['level_hidden']}")
    return out


@dataclass
class NetConfig:
    approach: str = "window"
    criterion: str = "sll"
    vocab_sizes: list[int] = field(default_factory=list)   # one per feature, spec order
    dims: list[int] = field(default_factory=list)          # embedding width per feature
    n_tags: int = 0
    window: int = 5
    hidden: int = 300          # window: hidden units; sentence: units after max over time;
                               # bilstm: units per direction
    conv: int = 300            # sentence approach: convolution units
    dist_dim: int = 5          # sentence approach: distance-to-word / -predicate embeddings
    max_dist: int = 30         # distances are clipped to [-max_dist, max_dist]
    # Sentence approach: the features of this many words centred on the predicate (odd; 0:
    # none) feed the layer after the max over time directly, for every word to tag.
    predicate_window: int = 0
    # Window approach: a second hidden layer over the first one's outputs at this many
    # neighbouring words (odd; 0: none); outputs beyond the sentence read as zeros.
    stack: int = 0
    # Width of that second layer (0: as wide as the first), so a wide first layer can take a
    # narrow stack at a fraction of the cost.
    stack_hidden: int = 0
    # BiLSTM approach: the last feature (a parser's `below` column) changes from level to
    # level, the others do not.  With this many units (0: off) the BiLSTM reads the other
    # features only, once per sentence, and a second, small BiLSTM of `level_hidden` units
    # each way reads its states and the last feature: each further level costs the small
    # one alone.
    level_hidden: int = 0
    # Per feature, [character width, window] for a character convolution (vocab_sizes then
    # counts characters, dims filters) or [] for a lookup table; [] when none has one.
    chars: list[list[int]] = field(default_factory=list)

    def __post_init__(self) -> None:
        found = network_problems({k: getattr(self, k) for k in NETWORK})
        if found:
            raise ValueError("; ".join(found))
        if len(self.vocab_sizes) != len(self.dims):
            raise ValueError("one embedding width per feature vocabulary is needed")
        if self.chars and (len(self.chars) != len(self.dims)
                           or any(len(c) not in (0, 2) for c in self.chars)):
            raise ValueError("chars: one entry per feature, [] or [character width, window]")

    @property
    def input_dim(self) -> int:
        return sum(self.dims)

    @property
    def top_hidden(self) -> int:
        """Width of the last hidden layer, the one the output layer reads."""
        return (self.stack_hidden or self.hidden) if self.stack else self.hidden

    @property
    def stacked(self) -> list[tuple[str, int]]:
        """(weight name, input width) of the stacked layer, if any: `l1s` reads the first
        layer's outputs."""
        return [("l1s", self.hidden)] if self.stack else []

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> NetConfig:
        known = {f.name for f in fields(cls)}
        unknown = set(d) - known
        if unknown:
            raise ValueError(f"unknown network settings {sorted(unknown)}")
        return cls(**d)

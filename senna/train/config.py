"""`senna train`'s settings and their checks, without PyTorch (so that `senna train --help`
and bad settings are answered before torch is imported).

Every setting is described once, here; `senna.cli.train` turns them into options, and
`check` is the one place where their values are validated, whether they came from the
command line, a JSON --config file or Python.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from senna.datasets import declared_task, parse_spec
from senna.io.formats import FORMATS
from senna.nn.config import APPROACHES, CRITERIA, NETWORK, network_problems
from senna.settings import option, setting, type_problems
from senna.tasks import PRESETS, TASKS, check_layout
from senna.text.tokenize import LANGUAGES

# The readers' formats, each with what it reads, for the help.
FORMAT_HELP = ("conll2000 (WORD POS CHUNK), conll2003 (WORD POS CHUNK NER, -DOCSTART- "
               "lines), conll2002 (WORD NER or WORD POS NER), tagged (WORD<TAB>TAG), pt0 "
               "(WORD<TAB>POS<TAB>PT0), srl (CoNLL-2005 columns), predicates (the same, for "
               "the verb detector), conllu (CoNLL-U, XPOS as POS), gold_conll (OntoNotes: "
               "WORD, POS, PARSE), trees (Penn Treebank bracketed trees, .mrg), levels "
               "(either kind of tree file, one sentence per tree level: the parser's)")

OPTIMIZERS = ("sgd", "adam")
DEVICES = ("cpu", "cuda")
# The settings by what they are about: `senna train -h` lists them so, and a test checks
# that every setting is in one section.
SECTIONS = {
    "data": ("task", "train", "dev", "format", "columns", "scheme", "dev_fraction",
             "extra_train", "extra_columns", "predicted_columns", "jackknife", "jackknife_dir",
             "jobs", "explore", "explore_epochs", "licence", "language"),
    "features": ("features", "embeddings", "fixed_embeddings", "word_dim", "max_words",
                 "min_count", "gazetteer", "clusters"),
    "network": ("approach", "criterion", "window", "hidden", "conv", "predicate_window",
                "stack", "stack_hidden", "level_hidden", "first_level"),
    "optimisation": ("optimizer", "lr", "batch_size", "epochs", "patience", "seed"),
    "regularisation": ("dropout_input", "dropout_hidden", "gazetteer_dropout", "adversarial",
                       "average", "teachers", "distill", "distill_temperature"),
    "run": ("out", "device", "threads", "max_minutes"),
}
MAX_SEED = 2**32 - 1   # NumPy's generators take no negative seed


@dataclass
class TrainConfig:
    task: str = setting(f"task to train: a built-in one ({', '.join(PRESETS)}), or a name of "
                        "your own with --columns")
    train: str = setting("training file, in the task's format or the --columns layout")
    dev: str | None = setting("dev file; default: the last --dev-fraction of the training "
                              "sentences", None)
    out: str = setting("model directory to write: the best model on dev, and checkpoint/ "
                       "(the last epoch), from which a second run with the same --out resumes",
                       "runs/model")
    approach: str | None = setting("network: window or sentence (default: the task's, "
                                   "sentence for SRL); bilstm: a bidirectional LSTM "
                                   "over the whole sentence (slower to tag; also a teacher "
                                   "for --teachers)", None, choices=APPROACHES)
    criterion: str = setting("word-level (wll) or sentence-level (sll) log-likelihood (the "
                             "parser, psg: wll by default)", "sll", choices=CRITERIA)
    features: str = setting("feature preset: basic (words, caps), senna (plus SENNA's task "
                            "features), window (SRL with the window approach), pos-pt0 (SRL "
                            "reading POS besides PT0); '+chars' adds character-level word "
                            "vectors ('+chars:30': 30 filters), e.g. senna+chars; '+clusters' the "
                            "word's clusters at 64, 512 and 4096 (needs --clusters; "
                            "'+clusters:512': one); the name "
                            "of a task earlier in the cascade adds its tags as a column, "
                            "e.g. pos-pt0+chunk (with --predicted-columns "
                            "chunk=senna/models/chunk where the data has no such column)",
                            "basic")
    embeddings: str | None = setting("initial word vectors: a senna embeddings directory or a "
                                     "word2vec/GloVe text file", None)
    fixed_embeddings: bool = setting("keep the initial word vectors fixed (true/false)", False)
    gazetteer: str | None = setting("gazetteer list ('TYPE word ...' lines) for NER's "
                                    "gazetteer features", None)
    clusters: str | None = setting("cluster lexicon (`senna lm clusters`) for the '+clusters' "
                                   "features: the word's cluster, as written, from unlabeled "
                                   "text", None)
    extra_columns: str | None = setting("TRAIN_FILE,DEV_FILE of a tag column the model reads, "
                                        "e.g. PT0 for SRL (needs --dev)", None)
    predicted_columns: str | None = setting(
        "COLUMN=MODEL_DIR,...: replace these input columns of the training and dev sentences "
        "by the models' predictions, in order (e.g. pos=senna/models/pos,pt0=senna/models/pt0),"
        " so the model trains on what the runtime gives it", None)
    jackknife: int = setting("with --predicted-columns: tag the training sentences with "
                             "models each trained on all but one of this many folds (for "
                             "sentences the given models were trained on; 0: tag them with "
                             "the given models)", 0)
    jackknife_dir: str = setting("where the fold models of --jackknife and --explore are kept "
                                 "(shared between runs)", "runs/jackknife")
    jobs: int = setting("with --jackknife or --explore: fold models trained at once, each in "
                        "its own process (give each --threads 1 or fewer jobs than cores)", 1)
    explore: int = setting("parser (--task psg): also train on the level states that parsers "
                           "trained on all but one of this many folds reach on the fold they "
                           "did not see, each with the gold phrases still buildable from it "
                           "(senna.train.explore; 0: the gold levels only)", 0)
    explore_epochs: int = setting("with --explore: train the fold parsers for at most this "
                                  "many epochs (0: --epochs); weaker parsers err more often, "
                                  "and cost less to train", 0)
    epochs: int = setting("epochs, at least 1 (a resumed run counts those already done)", 30)
    lr: float = setting("learning rate > 0 (SGD: divided by each layer's fan-in; Adam: about "
                        "1e-3)", 0.05)
    optimizer: str = setting("sgd (the paper's, fan-in scaled rates) or adam", "sgd",
                             choices=OPTIMIZERS)
    batch_size: int = setting("sentences (SRL: predicates) per update, at least 1", 16)
    seed: int = setting("random seed (initial weights, order of the batches)", 1)
    window: int = setting("words per window, odd", 5)
    hidden: int = setting("hidden units", 300)
    conv: int = setting("convolution units (sentence approach)", 300)
    predicate_window: int = setting("sentence approach: the features of this many words "
                                    "centred on the predicate (odd) also feed the layer after "
                                    "the max over time (0: none, the paper's network)", 0)
    stack: int = setting("window approach: a second hidden layer (--stack-hidden units) over "
                         "the first one's outputs at this many neighbouring words (odd; 0: "
                         "none), which widens each word's context by stack - 1 words", 0)
    stack_hidden: int = setting("units of that second layer (0: as many as --hidden); a wide "
                                "first layer can take a narrow stack at a fraction of the cost",
                                0)
    level_hidden: int = setting("bilstm approach, parser: the BiLSTM reads the words once per "
                                "sentence and a second BiLSTM of this many units each way "
                                "reads its states and the levels found below (0: one BiLSTM "
                                "reads everything at every level)", 0)
    word_dim: int = setting("word vector size (that of --embeddings)", 50)
    max_words: int = setting("dictionary size at most (PADDING and RARE included)", 100_000)
    min_count: int = setting("training words seen fewer times map to RARE, so RARE gets "
                             "trained", 2)
    gazetteer_dropout: float = setting("probability (0-1) of switching a gazetteer flag off "
                                       "in training", 0.0)
    format: str = setting(f"reader format of the train and dev files: {FORMAT_HELP}; empty: "
                          "the task's own. E.g. conll2000 for POS read from the CoNLL-2000 "
                          "chunking data's POS column", "")
    columns: str = setting("the train and dev files' columns instead of a --format, "
                           "whitespace separated, one token per line, blank lines between "
                           "sentences: word (the words), the task's name (its tags), _ (not "
                           "read), or a tagger's column a model may read (pos, chunk, ner, "
                           "pt0); e.g. word,_,dates", "")
    scheme: str = setting("the files' tag scheme: iob1, iob2, iobes, bilou, or tags (labels "
                          "without spans); empty: detected from the training file", "",
                          choices=("", "iob1", "iob2", "iobes", "bilou", "tags"))
    licence: str = setting("the training data's licence, for the model card (empty: the "
                           "built-in task's data licence when trained on that data, else "
                           "'not stated')", "")
    language: str = setting("the text's language: the tokenizer splits raw text the way this "
                            "language's training data was split when a model trained here "
                            "tags it", "en", choices=LANGUAGES)
    first_level: str = setting("parser (--task psg): the tagger whose phrases its first level "
                               "keeps at run time, pt0 (the PT0 tagger: level 0 is PT0), or "
                               "empty (the parser's own); recorded in the model", "",
                               choices=("", "pt0"))
    dev_fraction: float = setting("share of the training sentences held out as dev when no "
                                  "--dev is given, between 0 and 1", 0.1)
    extra_train: str | None = setting("more training sentences in the task's format (e.g. "
                                      "silver data from senna.train.silver), added after the "
                                      "dev sentences are set aside, so never in dev", None)
    teachers: str | None = setting("DIR[,DIR...]: models of the same task and data (or an "
                                   "ensemble directory) whose averaged scores the model "
                                   "learns from besides the gold tags (knowledge "
                                   "distillation, senna.train.distill)", None)
    distill: float = setting("with --teachers: weight of the distillation term (KL from the "
                             "teachers' per-word tag distributions to the model's)", 1.0)
    distill_temperature: float = setting("with --teachers: temperature T of the distillation "
                                         "(Hinton et al. 2015): both distributions are softmaxes "
                                         "of the scores divided by T, and the term is multiplied "
                                         "by T^2 so its gradients keep their scale", 1.0)
    patience: int = setting("stop after this many epochs without a better dev score", 6)
    max_minutes: float = setting("stop after the epoch that passes this many minutes (0: no "
                                 "limit)", 0.0)
    threads: int = setting("torch threads (0: torch's default)", 0)
    device: str = setting("where the network trains: cpu, or cuda (a GPU that PyTorch can "
                          "use; its kernels are not deterministic, so a seed's weights differ "
                          "from run to run and from a CPU run's, slightly: the shipped models' "
                          "recipes train on the CPU)", "cpu", choices=DEVICES)
    dropout_input: float = setting("dropout probability (0-1) on the looked-up features, in "
                                   "training", 0.0)
    dropout_hidden: float = setting("dropout probability (0-1) on the hidden layer, in "
                                    "training", 0.0)
    adversarial: float = setting("adversarial training (window approach): each batch's "
                                 "loss is also taken with the looked-up features moved this "
                                 "far per word, in the direction that raises it most "
                                 "(senna.train.adversarial; 0: off; a second pass per batch)",
                                 0.0)
    average: float = setting("weight averaging: 0 (off), or the decay per update of a moving "
                             "average of the weights, which the dev score and the saved model "
                             "then use (e.g. 0.999)", 0.0)

    def __post_init__(self) -> None:
        check(self)

    @classmethod
    def from_dict(cls, d: dict, source: str = "") -> TrainConfig:
        """`source`: where the settings came from (a file), named in errors."""
        where = f"{source}: " if source else ""
        if not isinstance(d, dict):
            raise ValueError(f"{where}expected a JSON object of settings, got "
                             f"{type(d).__name__}")
        known = {f.name for f in fields(cls)}
        if set(d) - known:
            raise ValueError(f"{where}unknown training settings {sorted(set(d) - known)}")
        missing = [option(n) for n in ("task", "train") if n not in d]
        if missing:
            raise ValueError(f"senna train needs {' and '.join(missing)}")
        if "criterion" not in d and getattr(TASKS.get(d["task"]), "tree", False):
            d = {**d, "criterion": "wll"}   # a parser decodes levels from emissions alone
        return cls(**d)


def problems(cfg: TrainConfig) -> list[str]:
    """Everything wrong with the settings, one message each (types first)."""
    out = type_problems(cfg)
    if out:
        return out
    at_least_1 = ("epochs", "batch_size", "word_dim", "min_count", "patience")
    out += [f"{option(n)} must be at least 1, got {getattr(cfg, n)}" for n in at_least_1
            if getattr(cfg, n) < 1]
    if cfg.lr <= 0:
        out.append(f"--lr must be a positive number, got {cfg.lr}")
    if not 0 <= cfg.seed <= MAX_SEED:
        out.append(f"--seed must be between 0 and {MAX_SEED}, got {cfg.seed}")
    try:
        spec = declared_task(cfg)
        if cfg.columns:
            check_layout(spec, cfg.columns)
    except ValueError as e:
        return out + [f"--task/--columns: {e}"]
    if cfg.columns and cfg.format:
        out.append("--columns and --format are two ways to say how the files are read: "
                   "give one")
    for flag, value in (("--first-level", cfg.first_level), ("--explore", cfg.explore),
                        ("--level-hidden", cfg.level_hidden)):
        if value and not spec.tree:
            out.append(f"{flag} is for a parser (--task psg), not --task {spec.name}")
    if spec.tree and cfg.criterion != "wll":
        out.append(f"--task {spec.name} decodes each level from its emissions alone "
                   "(senna.syntax.decode): train it with --criterion wll")
    approach = cfg.approach or spec.approach
    out += network_problems({**{k: getattr(cfg, k) for k in NETWORK}, "approach": approach},
                            option)
    sentence = approach == "sentence"
    if cfg.max_words < 3:
        out.append(f"--max-words must be at least 3 (PADDING, RARE and a word), got "
                   f"{cfg.max_words}")
    try:
        spec.features(cfg.features)
    except ValueError as e:
        out.append(f"--features: {e}")
    for name in ("dropout_input", "dropout_hidden"):
        if not 0 <= getattr(cfg, name) < 1:
            out.append(f"{option(name)} must be in [0, 1), got {getattr(cfg, name)}")
    if not 0 <= cfg.average < 1:
        out.append(f"--average must be in [0, 1) (0: off), got {cfg.average}")
    if cfg.distill < 0:
        out.append(f"--distill must be 0 or more, got {cfg.distill}")
    if cfg.distill_temperature <= 0:
        out.append(f"--distill-temperature must be above 0, got {cfg.distill_temperature}")
    if "\n" in cfg.licence or "\r" in cfg.licence:
        out.append("--licence must be one line of text")
    if cfg.adversarial < 0:
        out.append(f"--adversarial must be 0 (off) or more, got {cfg.adversarial}")
    if cfg.approach == "bilstm" and (cfg.stack or cfg.adversarial or spec.per_predicate):
        out.append("--approach bilstm takes no --stack or --adversarial, and "
                   "tasks with one example per word sequence only (not SRL)")
    if cfg.adversarial and sentence:
        out.append("--adversarial needs the window approach (not built for the sentence "
                   "approach, whose predicate window looks words up a second time)")
    if not 0 <= cfg.gazetteer_dropout <= 1:
        out.append(f"--gazetteer-dropout must be between 0 and 1, got {cfg.gazetteer_dropout}")
    if cfg.format and cfg.format not in FORMATS:
        out.append(f"--format must be one of {', '.join(FORMATS)} (or empty: the task's), got "
                   f"{cfg.format!r}")
    if not cfg.dev and not 0 < cfg.dev_fraction < 1:
        out.append(f"--dev-fraction must be between 0 and 1 (exclusive) when no --dev file is "
                   f"given, got {cfg.dev_fraction}")
    if cfg.max_minutes < 0:
        out.append(f"--max-minutes must be 0 (no limit) or more, got {cfg.max_minutes}")
    if cfg.threads < 0:
        out.append(f"--threads must be 0 (torch's default) or more, got {cfg.threads}")
    if cfg.fixed_embeddings and not cfg.embeddings:
        out.append("--fixed-embeddings needs --embeddings to keep")
    if cfg.jackknife < 0 or cfg.jackknife == 1:
        out.append(f"--jackknife must be 0 (off) or at least 2 folds, got {cfg.jackknife}")
    if cfg.jobs < 1:
        out.append(f"--jobs must be at least 1, got {cfg.jobs}")
    if cfg.explore < 0 or cfg.explore == 1:
        out.append(f"--explore must be 0 (off) or at least 2 folds, got {cfg.explore}")
    if cfg.explore_epochs < 0:
        out.append(f"--explore-epochs must be 0 (--epochs) or more, got {cfg.explore_epochs}")
    if cfg.explore_epochs and not cfg.explore:
        out.append("--explore-epochs needs --explore")
    if cfg.jackknife and not cfg.predicted_columns:
        out.append("--jackknife needs --predicted-columns")
    try:
        parse_spec(cfg.predicted_columns)
    except ValueError as e:
        out.append(f"--predicted-columns: {e}")
    if cfg.extra_columns and (len(cfg.extra_columns.split(",")) != 2 or not cfg.dev):
        out.append("--extra-columns takes TRAIN_FILE,DEV_FILE and needs --dev")
    return out


def check(cfg: TrainConfig) -> None:
    """ValueError listing every invalid setting."""
    found = problems(cfg)
    if found:
        raise ValueError("invalid training settings: " + "; ".join(found))

"""The networks, in PyTorch (training only; the runtime mirrors them in NumPy).

Window approach (Fig. 1): lookup tables -> concat over a window -> linear -> HardTanh -> linear.
Sentence approach (Fig. 2): lookup tables + distances to the word to tag and to the predicate
-> convolution -> max over time -> linear -> HardTanh -> linear.
BiLSTM (not in the paper): lookup tables -> bidirectional LSTM -> linear; every word's
scores read the whole sentence, which a window network cannot.

Parameter names are the contract with `senna.runtime.kernels` and the saved `weights.npz`:
emb.tables.{j}.weight (a character feature's emb.tables.{j}.chars.weight and
emb.tables.{j}.conv.*, see `senna.nn.chars`), l1.*, l2.*, conv.*, dist_word.weight,
dist_pred.weight, pred.weight (the predicate's window, if any), and the criterion's
(`senna.nn.criterion`: transitions and start for SLL), see `weights_of` and `load_weights`.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from senna.nn.chars import CharConvolution
from senna.nn.config import NetConfig
from senna.nn.criterion import build_criterion
from senna.nn.init import fan_in_init


class Embeddings(nn.Module):
    """One lookup table per feature (a character convolution for a chars feature); vectors
    concatenated (section 3.1.1)."""

    def __init__(self, cfg: NetConfig, sparse: bool = True):
        super().__init__()
        chars = cfg.chars or [[]] * len(cfg.dims)
        self.tables = nn.ModuleList(
            CharConvolution(v, c[0], c[1], d, sparse) if c else nn.Embedding(v, d, sparse=sparse)
            for v, d, c in zip(cfg.vocab_sizes, cfg.dims, chars, strict=True))

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        """ids [B, T, F] -> [B, T, sum(dims)]."""
        return torch.cat([t(ids[..., j]) for j, t in enumerate(self.tables)], dim=-1)


def bind_spellings(net: nn.Module, featurizer) -> nn.Module:
    """Give a network's character convolutions the spellings of the featurizer whose ids
    they read (`senna.features.kinds.CharsFeature`)."""
    for table, kind in zip(net.emb.tables, featurizer.kinds, strict=True):
        if isinstance(table, CharConvolution):
            table.spellings = kind.spellings
    return net


def share_table(own: nn.Module, first: nn.Module) -> nn.Module:
    """The table a task uses for a feature shared with `first`'s task (multi-task training):
    `first` itself, or for a character convolution its parameters with its own spellings."""
    if isinstance(own, CharConvolution) and isinstance(first, CharConvolution):
        return own.tie_to(first)
    if not isinstance(own, nn.Embedding) or not isinstance(first, nn.Embedding) \
            or own.weight.shape != first.weight.shape:
        raise ValueError("a shared feature's tables differ between tasks")
    return first


def windowed(x: torch.Tensor, window: int) -> torch.Tensor:
    """[B, T + window - 1, D] -> [B, T, window * D]: row t is x[t], ..., x[t + window - 1]."""
    b, tp, d = x.shape
    return x.unfold(1, window, 1).transpose(2, 3).reshape(b, tp - window + 1, window * d)


def padded_ids(ids: torch.Tensor, half: int) -> torch.Tensor:
    """[B, T, F] -> [B, T + 2*half, F] with PADDING (id 0) on both sides."""
    return F.pad(ids, (0, 0, half, half), value=0)


class Tagger(nn.Module):
    """Shared parts: embeddings, output layers and the training criterion."""

    def __init__(self, cfg: NetConfig, sparse: bool = True):
        super().__init__()
        self.cfg = cfg
        self.emb = Embeddings(cfg, sparse)
        self.criterion = build_criterion(cfg.criterion, cfg.n_tags)
        # Regularisation the paper lacked (training only; identity at inference, so the
        # runtime is unchanged): dropout on the looked-up features and on the hidden layer.
        self.drop_input = nn.Dropout(0.0)
        self.drop_hidden = nn.Dropout(0.0)

    def set_dropout(self, input_p: float, hidden_p: float) -> None:
        self.drop_input.p, self.drop_hidden.p = input_p, hidden_p

    def nll(self, emissions: torch.Tensor, tags: torch.Tensor,
            mask: torch.Tensor) -> torch.Tensor:
        return self.criterion.nll(emissions, tags, mask)


class PartlySharedLinear(nn.Module):
    """A window network's first layer whose columns for the shared features (word, caps) are
    shared with other tasks' networks (Figure 5: multi-task learning), while the columns for
    the task's own features are not.  The layer is linear, so it equals one `nn.Linear` whose
    weight interleaves both column sets: `merged` gives it, as the runtime reads it."""

    def __init__(self, shared: nn.Linear, own_cols: torch.Tensor, shared_cols: torch.Tensor):
        super().__init__()
        self.shared = shared                                        # [H, |shared_cols|]
        self.own = nn.Linear(len(own_cols), shared.out_features, bias=False) \
            if len(own_cols) else None
        order = torch.cat([shared_cols, own_cols])
        self.register_buffer("inverse", torch.argsort(order), persistent=False)

    def weight(self) -> torch.Tensor:
        parts = [self.shared.weight] + ([self.own.weight] if self.own is not None else [])
        return torch.cat(parts, dim=1)[:, self.inverse]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.linear(x, self.weight(), self.shared.bias)

    def merged(self) -> tuple[torch.Tensor, torch.Tensor]:
        return self.weight().detach(), self.shared.bias.detach()

    def load_merged(self, weight: torch.Tensor, bias: torch.Tensor) -> None:
        n = self.shared.in_features
        with torch.no_grad():
            order = torch.argsort(self.inverse)
            w = weight[:, order]
            self.shared.weight.copy_(w[:, :n])
            self.shared.bias.copy_(bias)
            if self.own is not None:
                self.own.weight.copy_(w[:, n:])


def weights_of(net: nn.Module) -> dict[str, np.ndarray]:
    """A network's parameters as saved: the criterion's under their own names, a partly
    shared first layer merged into one."""
    out = {}
    for k, v in net.state_dict().items():
        key = k.rsplit("criterion.", 1)[-1] if k.startswith("criterion.") else k
        out[key] = v.detach().cpu().numpy().copy()
    for name, m in net.named_modules():
        if isinstance(m, PartlySharedLinear):
            out = {k: v for k, v in out.items() if not k.startswith(name + ".")}
            weight, bias = m.merged()
            out[f"{name}.weight"], out[f"{name}.bias"] = (weight.cpu().numpy().copy(),
                                                          bias.cpu().numpy().copy())
    return out


def device_of(net: nn.Module) -> torch.device:
    """Where a network's parameters are (`senna train --device`): its inputs go there."""
    return next(net.parameters()).device


def load_weights(net: Tagger, weights: dict[str, np.ndarray]) -> Tagger:
    """Copy saved weights (named as `weights_of` names them) into a network."""
    own = set(net.criterion.decoding_weights())
    state = {(f"criterion.{k}" if k in own else k): torch.from_numpy(np.asarray(v))
             for k, v in weights.items() if k in own or k not in ("transitions", "start")}
    for name, m in net.named_modules():
        if isinstance(m, PartlySharedLinear):
            m.load_merged(state.pop(f"{name}.weight"), state.pop(f"{name}.bias"))
    net.load_state_dict(state, strict=False)
    return net


def share_first_layer(nets: list[WindowNet], shared_dims: list[list[bool]]) -> None:
    """Tie the first layers of window networks on their shared features' columns.

    shared_dims[n][j]: feature j of network n is a shared one.  Every network must have the
    same window, hidden size and shared features (in the same order); the first network's
    layer supplies the shared columns' initial weights.
    """
    first = nets[0]
    shared_in = None
    for net, flags in zip(nets, shared_dims, strict=True):
        cols = _columns(net.cfg, flags)
        shared_cols, own_cols = cols
        if shared_in is None:
            shared_in = nn.Linear(len(shared_cols), first.cfg.hidden)
            with torch.no_grad():
                shared_in.weight.copy_(first.l1.weight[:, shared_cols])
                shared_in.bias.copy_(first.l1.bias)
        elif (net.cfg.window, net.cfg.hidden) != (first.cfg.window, first.cfg.hidden) or \
                len(shared_cols) != shared_in.in_features:
            raise ValueError("a shared first layer needs the same window, hidden size and "
                             "shared features in every window task")
        layer = PartlySharedLinear(shared_in, own_cols, shared_cols)
        if layer.own is not None:
            with torch.no_grad():
                layer.own.weight.copy_(net.l1.weight[:, own_cols])
        net.l1 = layer


def _columns(cfg: NetConfig, flags: list[bool]) -> tuple[torch.Tensor, torch.Tensor]:
    """Columns of a window network's first layer fed by shared / own features."""
    per_position = torch.tensor([f for d, f in zip(cfg.dims, flags, strict=True)
                                 for _ in range(d)])
    mask = per_position.repeat(cfg.window)
    return torch.nonzero(mask).flatten(), torch.nonzero(~mask).flatten()


def fan_in(name: str, p: torch.Tensor, params: dict[str, torch.Tensor] | None = None) -> int:
    """Inputs feeding one unit (Remark 7), which scales each tensor's learning rate: 1 for
    lookup tables and the criterion's scores; a bias shares its layer's fan-in."""
    if name.startswith(("dist_", "criterion.")) or (name.startswith("emb.")
                                                    and ".conv." not in name):
        return 1
    if name.endswith("bias") and params is not None:
        return fan_in(name[: -len("bias")] + "weight", params[name[: -len("bias")] + "weight"])
    return int(p[0].numel()) if p.dim() >= 2 else 1


class WindowNet(Tagger):
    def __init__(self, cfg: NetConfig, sparse: bool = True):
        super().__init__(cfg, sparse)
        self.l1 = nn.Linear(cfg.window * cfg.input_dim, cfg.hidden)
        for name, width in cfg.stacked:
            setattr(self, name, nn.Linear(cfg.stack * width, cfg.top_hidden))
        self.l2 = nn.Linear(cfg.top_hidden, cfg.n_tags)
        fan_in_init(self)

    def hidden(self, ids: torch.Tensor) -> torch.Tensor:
        """ids [B, T, F] -> the (last) hidden layer [B, T, H] (what an ensemble's joining
        layer reads, section 6.1)."""
        half = self.cfg.window // 2
        x = self.drop_input(self.emb(padded_ids(ids, half)))  # [B, T+2h, D]
        h = self.drop_hidden(F.hardtanh(self.l1(windowed(x, self.cfg.window))))
        if not self.cfg.stack:
            return h
        # Why a second layer over neighbours' outputs, not a wider window: each neighbour
        # comes already composed with its own context, so the layer sees stack - 1 more
        # words through a nonlinearity, at a first layer's cost per word.  Each stacked layer
        # reads the one below it, zeros past the sentence.
        inside = (ids != 0).any(-1, keepdim=True)
        for name, _ in self.cfg.stacked:
            h = F.pad(h * inside, (0, 0, self.cfg.stack // 2, self.cfg.stack // 2))
            h = self.drop_hidden(F.hardtanh(getattr(self, name)(windowed(h, self.cfg.stack))))
        return h

    def forward(self, ids: torch.Tensor, lengths: torch.Tensor,
                predicates: torch.Tensor | None = None) -> torch.Tensor:
        """ids [B, T, F] -> emissions [B, T, K]."""
        return self.l2(self.hidden(ids))


class MaxOverTime(torch.autograd.Function):
    """h[n, i] = max_t (b[n, t] + g[t - i]) over valid t, without keeping the [N, T, T, C]
    sums for backward: only the argmax is kept, and gradients are scattered through it."""

    @staticmethod
    def forward(ctx, b: torch.Tensor, g: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        n, t, c = b.shape                                              # g: [2T-1, C]
        pos = torch.arange(t, device=b.device)
        rel = pos[None, :] - pos[:, None] + t - 1                      # [i, t] -> row of g
        invalid = (pos[None, :] >= lengths[:, None])[:, None, :, None]  # [N, 1, t, 1]
        h = torch.empty_like(b)
        idx = torch.empty(b.shape, dtype=torch.long, device=b.device)
        step = max(1, 2_000_000 // max(t * t * c, 1) or 1)
        for s in range(0, n, step):                                    # bounded memory
            z = b[s : s + step, None] + g[rel][None]                   # [n', i, t, C]
            z.masked_fill_(invalid[s : s + step], float("-inf"))
            h[s : s + step], idx[s : s + step] = z.max(dim=2)
        ctx.save_for_backward(idx)
        ctx.g_rows = g.shape[0]
        return h

    @staticmethod
    def backward(ctx, grad_h: torch.Tensor):
        (idx,) = ctx.saved_tensors                                     # [N, i, C] -> t
        n, t, c = idx.shape
        grad_b = torch.zeros_like(grad_h).scatter_add_(1, idx, grad_h)
        rows = idx - torch.arange(t, device=idx.device)[None, :, None] + t - 1
        grad_g = grad_h.new_zeros(ctx.g_rows, c).scatter_add_(
            0, rows.reshape(-1, c), grad_h.reshape(-1, c))
        return grad_b, grad_g, None


class SentenceNet(Tagger):
    def __init__(self, cfg: NetConfig, sparse: bool = True):
        super().__init__(cfg, sparse)
        n_dist = 2 * cfg.max_dist + 1
        self.dist_word = nn.Embedding(n_dist, cfg.dist_dim)
        self.dist_pred = nn.Embedding(n_dist, cfg.dist_dim)
        self.conv = nn.Conv1d(cfg.input_dim + 2 * cfg.dist_dim, cfg.conv, cfg.window)
        self.l1 = nn.Linear(cfg.conv, cfg.hidden)
        self.l2 = nn.Linear(cfg.hidden, cfg.n_tags)
        # The predicate's own words (its identity and neighbours), which the max over time
        # only passes on mixed with everything else, straight into the layer after it.
        self.pred = (nn.Linear(cfg.predicate_window * cfg.input_dim, cfg.hidden, bias=False)
                     if cfg.predicate_window else None)
        fan_in_init(self)
        with torch.no_grad():
            # The max over ~25 positions of unit-variance sums is about +1.8, which saturates
            # the HardTanh after l1; and if the word features dominate, the max picks the same
            # position for every word to tag.  Scale the word part down so that the distance
            # features decide where the max falls from the start.
            self.conv.weight[:, : cfg.input_dim].mul_(0.3)

    def distance_scores(self, table: nn.Embedding, weight: torch.Tensor,
                        t_max: int) -> torch.Tensor:
        """Convolution of the distance features alone: [2*T-1, C] for distances -(T-1)..T-1.

        The convolution is linear in its input, so the part due to a distance feature depends
        only on the distance d = t - i; computing it once per d avoids a [T, T, window*D] input.
        """
        half = self.cfg.window // 2
        d = torch.arange(-(t_max - 1) - half, t_max + half, device=weight.device)
        e = table(d.clamp(-self.cfg.max_dist, self.cfg.max_dist) + self.cfg.max_dist)
        return F.conv1d(e.t().unsqueeze(0), weight)[0].t()           # [2T-1, C]

    def forward(self, ids: torch.Tensor, lengths: torch.Tensor,
                predicates: torch.Tensor | None = None) -> torch.Tensor:
        """ids [B, T, F], lengths [B], predicates [B] -> emissions [B, T, K]."""
        if predicates is None:
            raise ValueError("the sentence approach needs predicate positions")
        # a task without predicates (-1: the parser) measures its second distance from the
        # first word, as senna.runtime.parser does
        predicates = predicates.clamp(min=0)
        cfg, half = self.cfg, self.cfg.window // 2
        t = ids.shape[1]
        w_x, w_w, w_p = self.conv.weight.split([cfg.input_dim, cfg.dist_dim, cfg.dist_dim], 1)
        x = self.drop_input(self.emb(padded_ids(ids, half))).transpose(1, 2)  # [B, D, T+2h]
        a = F.conv1d(x, w_x, self.conv.bias).transpose(1, 2)         # [B, T, C]
        g_w = self.distance_scores(self.dist_word, w_w, t)           # [2T-1, C]
        g_p = self.distance_scores(self.dist_pred, w_p, t)
        pos = torch.arange(t, device=ids.device)
        rel_pred = pos[None, :] - predicates[:, None] + t - 1         # [B, t] -> row of g_p
        b_t = a + g_p[rel_pred]                                       # [B, t, C]
        h = MaxOverTime.apply(b_t, g_w, lengths)                      # [B, i, C]
        hid = self.l1(h)                                              # [B, i, H]
        if self.pred is not None:
            hid = hid + self.pred(self.predicate_inputs(ids, predicates))[:, None]
        return self.l2(self.drop_hidden(F.hardtanh(hid)))

    def predicate_inputs(self, ids: torch.Tensor, predicates: torch.Tensor) -> torch.Tensor:
        """ids [B, T, F], predicates [B] -> the looked-up features of the predicate_window
        words centred on each predicate (PADDING past the sentence): [B, window * D]."""
        q = self.cfg.predicate_window // 2
        at = predicates[:, None] + torch.arange(2 * q + 1, device=ids.device)   # padded rows
        rows = padded_ids(ids, q).gather(1, at[..., None].expand(-1, -1, ids.shape[2]))
        return self.drop_input(self.emb(rows)).flatten(1)


class BiLSTMNet(Tagger):
    """The same lookup tables under a one-layer bidirectional LSTM (`cfg.hidden` units each
    way) and a linear output layer.  Why: its per-word scores carry context beyond a
    window: a tagger where names need the whole sentence (CoNLL-2002 NER), and a teacher
    (`senna.train.distill`) for a window student.  Parameters: emb.*, lstm.*, l2.*
    (`senna.runtime.kernels.bilstm_scores` runs it in NumPy).

    With `cfg.level_hidden` (a parser's level network) the LSTM reads every feature but the
    last, and a second one (levels.*, `level_hidden` units each way) reads its states and
    the last feature (the levels found so far); the output layer reads both.  The first
    LSTM's states are the same at every level of a sentence: in a batch they are computed
    once per distinct sentence, and the parser computes them once per sentence."""

    def __init__(self, cfg: NetConfig, sparse: bool = True):
        super().__init__(cfg, sparse)
        h, lh = cfg.hidden, cfg.level_hidden
        last = cfg.dims[-1] if lh else 0
        self.lstm = nn.LSTM(cfg.input_dim - last, h, batch_first=True, bidirectional=True)
        if lh:
            self.levels = nn.LSTM(2 * h + last, lh, batch_first=True, bidirectional=True)
        self.l2 = nn.Linear(2 * h + 2 * lh, cfg.n_tags)
        fan_in_init(self.l2)

    @staticmethod
    def run(lstm: nn.LSTM, x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """x [B, T, D] -> the LSTM's states [B, T, 2H] (zeros past each length)."""
        packed = nn.utils.rnn.pack_padded_sequence(x, lengths.clamp_min(1).cpu(),
                                                   batch_first=True, enforce_sorted=False)
        h, _ = lstm(packed)
        return nn.utils.rnn.pad_packed_sequence(h, batch_first=True, total_length=x.shape[1])[0]

    def forward(self, ids: torch.Tensor, lengths: torch.Tensor,
                predicates: torch.Tensor | None = None) -> torch.Tensor:
        """ids [B, T, F] -> emissions [B, T, K] (zeros' scores past each length)."""
        x = self.drop_input(self.emb(ids))
        if not self.cfg.level_hidden:
            return self.l2(self.drop_hidden(self.run(self.lstm, x, lengths)))
        last = self.cfg.dims[-1]
        # one row per distinct sentence (its length and every feature but the last)
        key = torch.cat([lengths[:, None].to(ids.dtype), ids[:, :, :-1].flatten(1)], 1)
        _, inverse = torch.unique(key, dim=0, return_inverse=True)
        first = torch.full((int(inverse.max()) + 1,), len(ids), dtype=torch.long,
                           device=ids.device)
        first = first.scatter_reduce(0, inverse, torch.arange(len(ids), device=ids.device),
                                     "amin")
        words = self.run(self.lstm, x[first, :, :-last], lengths[first])[inverse]
        levels = self.run(self.levels, torch.cat([self.drop_hidden(words), x[..., -last:]], 2),
                          lengths)
        return self.l2(self.drop_hidden(torch.cat([words, levels], 2)))


NETWORKS = {"window": WindowNet, "sentence": SentenceNet, "bilstm": BiLSTMNet}


def build_network(cfg: NetConfig, sparse: bool = True) -> Tagger:
    """sparse: lookup tables get sparse gradients (plain SGD); dense for Adam."""
    return NETWORKS[cfg.approach](cfg, sparse)

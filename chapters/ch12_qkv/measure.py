"""Chapter 12, "From embeddings to Q, K, V": the measurements behind C24, and what a swapped
embedding table does to the layers above it (their rules and checks: claims.py)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch

from embedbook import book, contextual
from embedbook.book import Result
from embedbook.book.i18n import _

SENTENCE = "the cat sat on the mat because it was tired"


plain_decimal = book.plain_decimal  # kept under this name for the chapter and the tests

_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def small_number(x: float) -> str:
    """A tiny difference for a sentence as a power of ten, "3 × 10⁻⁷" (never "0.0000003"); "exactly 0" for 0,
    and :func:`plain_decimal` from 0.001 up."""
    if x == 0 or abs(x) >= 1e-3:
        return plain_decimal(x)
    exp = math.floor(math.log10(abs(x)))
    mant = round(x / 10 ** exp)
    if abs(mant) == 10:
        mant, exp = mant // 10, exp + 1
    return f"{mant} × 10{str(exp).translate(_SUPERSCRIPT)}"

PARAPHRASES = [
    ("the cat is sleeping on the sofa", "a kitten naps on the couch"),
    ("he bought a new car yesterday", "yesterday he purchased a new vehicle"),
    ("the meeting was cancelled because of the storm", "bad weather forced them to call off the meeting"),
    ("she is learning to play the piano", "she takes piano lessons"),
    ("the stock market fell sharply today", "share prices dropped steeply today"),
    ("the children are playing football in the park", "kids kick a ball around in the park"),
    ("i need to see a doctor", "i should visit a physician"),
    ("the restaurant serves excellent italian food", "that place makes great pasta and pizza"),
]

# --- C24: layer 0's Q, K, V rebuilt ----------------------------------------------------------------------


@dataclass
class QKV(Result):
    """Layer 0's attention probabilities rebuilt three ways, against the model's own."""

    verbatim = ("sentence",)  # data: the sentence itself, the same in both editions
    sentence: str
    n_tokens: int
    d: int
    heads: int
    head_dim: int
    square: int  # 1 if W_Q, W_K, W_V are d × d
    has_bias: int  # 1 if the projections carry a bias
    diff_full: float  # X = LayerNorm(token + position + segment), with biases: the model's form
    diff_no_bias: float  # the same X, biases dropped
    diff_article: float  # X = token + position, no LayerNorm, no biases: the article's Q = X W_Q
    diff_original_form: float  # the article's form against a layer of the original Transformer's form
    layer0: contextual.Layer0 = field(repr=False)
    model_probs: torch.Tensor = field(repr=False)  # (heads, n, n), the model's own layer 0

    def extra_glue(self) -> dict:
        return {"diff_full_plain": small_number(self.diff_full)}


def original_form_diff(d: int, heads: int, n: int, vocab: int = 1000, seed: int = 0) -> float:
    """The largest difference between the attention probabilities of a layer of the original Transformer's form
    (Vaswani et al. 2017: token + sinusoidal position rows enter the first attention unnormalised, a post-LN
    layer; torch's ``nn.TransformerEncoderLayer(bias=False)``) as torch reports them, and as rebuilt in the
    article's form Q = X W_Q, K = X W_K with X = token + position rows. The weights are random: what is compared
    is the form of the computation, not trained values."""
    gen = torch.Generator().manual_seed(seed)
    table = torch.randn(vocab, d, generator=gen) * d ** -0.5
    ids = torch.randint(0, vocab, (n,), generator=gen)
    angle = torch.arange(n)[:, None] / 10000 ** (torch.arange(0, d, 2) / d)
    pe = torch.zeros(n, d)
    pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()
    x = table[ids] + pe
    torch.manual_seed(seed)
    layer = torch.nn.TransformerEncoderLayer(d, heads, bias=False, batch_first=True)  # norm_first=False: post-LN
    attn = layer.eval().self_attn  # no dropout; the first sublayer runs it on x, before residual and LayerNorm
    with torch.no_grad():
        _, probs = attn(x[None], x[None], x[None], need_weights=True, average_attn_weights=False)
        w_q, w_k, _ = attn.in_proj_weight.chunk(3)  # each d × d
        q, k = ((x @ w.T).view(n, heads, -1).transpose(0, 1) for w in (w_q, w_k))
        rebuilt = torch.softmax(q @ k.transpose(1, 2) / math.sqrt(q.shape[-1]), dim=-1)
    return float((rebuilt - probs[0]).abs().max())


def run_qkv(tokenizer, model, sentence: str) -> QKV:
    """Rebuild layer 0's attention (:func:`embedbook.contextual.layer0_qkv`) in the model's form, without the
    biases, and in the article's form, and compare each with the probabilities the model reports."""
    tokens, att = contextual.model_attentions(tokenizer, model, sentence)
    full = contextual.layer0_qkv(tokenizer, model, sentence)
    plain = contextual.layer0_qkv(tokenizer, model, sentence, article_form=True)
    attn = model.encoder.layer[0].attention.self
    n, h = len(tokens), model.config.num_attention_heads
    with torch.no_grad():
        q, k = (full.X @ lin.weight.T for lin in (attn.query, attn.key))
        q, k = (t.view(n, h, -1).transpose(0, 1) for t in (q, k))
        no_bias = torch.softmax(q @ k.transpose(1, 2) / math.sqrt(q.shape[-1]), dim=-1)
    d = model.config.hidden_size
    return QKV(
        sentence=sentence, n_tokens=n, d=d, heads=h, head_dim=d // h,
        square=int(all(tuple(lin.weight.shape) == (d, d) for lin in (attn.query, attn.key, attn.value))),
        has_bias=int(attn.query.bias is not None),
        diff_full=float((full.probs - att[0]).abs().max()), diff_no_bias=float((no_bias - att[0]).abs().max()),
        diff_article=float((plain.probs - att[0]).abs().max()), diff_original_form=original_form_diff(d, h, n),
        layer0=full, model_probs=att[0],
    )


# --- a swapped embedding table ------------------------------------------------------------------------------


@dataclass
class TableSwap(Result):
    """What a shuffled or a random token table does to attention, to the final vectors and to sentence vectors.

    ``effects[kind]`` for ``"original"``, ``"shuffled"`` and ``"random"``: ``shift_l0`` and ``shift_last`` (mean
    total-variation distance of the attention from the original's, layer 0 and the last layer), ``final_cos`` (mean
    cosine between the new and the original last-layer token vectors) and ``paraphrase_acc`` (the share of the
    n(n − 1) comparisons, each sentence against each other sentence's paraphrase, in which the sentence's vector is
    closer to its own paraphrase; vectors that carried nothing would win half of them, so chance is 0.5)."""

    sentence: str
    seed: int
    n_pairs: int
    effects: dict[str, dict[str, float]]
    verbatim = ("sentence",)  # data: the sentence itself, the same in both editions

    def extra_glue(self) -> dict:
        out = {f"{kind}_{k}": v for kind, e in self.effects.items() for k, v in e.items()}
        # what the accuracy counts: each sentence against each other sentence's paraphrase
        out["n_others"] = self.n_pairs - 1
        out["n_comparisons"] = self.n_comparisons
        out.update({f"{kind}_wins": round(e["paraphrase_acc"] * self.n_comparisons)
                    for kind, e in self.effects.items()})
        out["paraphrase_reading"] = self.paraphrase_reading()
        return out

    @property
    def n_comparisons(self) -> int:
        """How many comparisons the paraphrase accuracy is a share of: each of the n sentences against each of the
        n − 1 other sentences' paraphrases."""
        return self.n_pairs * (self.n_pairs - 1)

    def paraphrase_reading(self) -> str:
        """A sentence saying what the paraphrase accuracies of the wrong tables show, computed from them."""
        acc = [self.effects[kind]["paraphrase_acc"] for kind in ("shuffled", "random")]
        if min(acc) >= 0.75:
            return _("So this test barely notices the wrong table. It rewards word overlap: a wrong table still gives "
                     "the same token the same row, and paraphrases that share words still look alike. What the "
                     "swap changes shows in the attention shifts and the final vectors, not here.")
        if max(acc) <= 0.6:
            return _("With a wrong table the paraphrases are found about as often as by chance: shared words alone "
                     "did not carry the test, so the meaning the rows carried was needed and is lost.")
        return _("The wrong tables lose part of the accuracy but stay above chance: shared words still make "
                 "paraphrases look alike (a wrong table gives the same token the same row), while what the rows "
                 "meant is gone.")


def run_table_swap(tokenizer, model, sentence: str, seed: int,
                   pairs: list[tuple[str, str]] = PARAPHRASES) -> TableSwap:
    """Replace the token table (:func:`embedbook.contextual.with_table`), keep every other weight, and measure."""
    _, base = contextual.model_attentions(tokenizer, model, sentence)
    enc = tokenizer(sentence, return_tensors="pt").to(next(model.parameters()).device)
    with torch.inference_mode():
        base_last = model(**enc).last_hidden_state[0]
    effects = {}
    for kind in ("original", "shuffled", "random"):
        m = model if kind == "original" else contextual.with_table(model, kind, seed)
        _, att = contextual.model_attentions(tokenizer, m, sentence)
        with torch.inference_mode():
            last = m(**enc).last_hidden_state[0]
        effects[kind] = {
            "shift_l0": contextual.attention_shift(att[0], base[0]),
            "shift_last": contextual.attention_shift(att[-1], base[-1]),
            "final_cos": float(torch.nn.functional.cosine_similarity(last, base_last, dim=-1).mean()),
            "paraphrase_acc": contextual.paraphrase_accuracy(tokenizer, m, pairs),
        }
        del m
    return TableSwap(sentence=sentence, seed=seed, n_pairs=len(pairs), effects=effects)

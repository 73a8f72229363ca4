"""Chapter 12's claims (C24): the article's words (register entries), each claim's
declared rule, its sources and its check.

The measurements they read are in :mod:`embedbook.chapters.ch12_qkv.measure`.
"""

from __future__ import annotations

from embedbook.book import claims, i18n
from embedbook.book.claims import CONFIRMED, CORRECTED, LONG, REFUTED, Claim
from embedbook.book.i18n import _
from embedbook.chapters.ch12_qkv.measure import QKV, small_number

# --- the register entries: the articles' words this chapter settles ------------------------------------

claims.declare(
    __name__,
    Claim("C24", LONG, "从Embedding到注意力：Q、K、V的来源", "$$\\mathbf{Q} = \\mathbf{X}\\mathbf{W}_Q, \\quad \\mathbf{K} = \\mathbf{X}\\mathbf{W}_K, \\quad \\mathbf{V} = \\mathbf{X}\\mathbf{W}_V$$",
          "the queries, keys and values are the embeddings X multiplied by three projection matrices: $Q = XW_Q$, $K = XW_K$, $V = XW_V$",
          "$Q = XW_Q$, $K = XW_K$, $V = XW_V$ with $d \\times d$ projections of the (position-added) embeddings.", "contextual"),
)


@claims.rule(
    "C24",
    basis=claims.MEASURED,
    quantity="the largest difference between layer 0's attention probabilities as MiniLM (a BERT-style encoder) "
    "reports them and as rebuilt "
    "from its weights, (a) in the article's form Q = X W_Q with X = token + position rows, (b) in the model's form; "
    "and whether W_Q, W_K, W_V are d × d",
    inputs={"diff_article": "largest |rebuilt − model| in the article's form", "diff_full":
            "largest |rebuilt − model| in the model's form", "square": "1 if the projections are d × d"},
    thresholds={"rounding": 1e-5},
    outcomes={
        CONFIRMED: "the article's form reproduces the model's attention up to rounding, with d × d projections (as "
        "it does for a layer of the original Transformer's form: no biases, no normalisation before the first "
        "attention)",
        CORRECTED: "only the model's form does: X is the LayerNorm of token + position + segment rows and each "
        "projection adds a bias (a correction for BERT-style encoders; other families differ in other ways)",
        REFUTED: "neither form reproduces it, or the projections are not d × d",
    },
    examples={
        CONFIRMED: {"diff_article": 3e-7, "diff_full": 3e-7, "square": 1},
        CORRECTED: {"diff_article": 0.6, "diff_full": 3e-7, "square": 1},
        REFUTED: {"diff_article": 0.6, "diff_full": 0.4, "square": 1},
    },
)
def _c24(f, t):
    if not f["square"]:
        return REFUTED
    if f["diff_article"] <= t["rounding"]:
        return CONFIRMED
    return CORRECTED if f["diff_full"] <= t["rounding"] else REFUTED


@claims.check("C24")
def check_c24(r: QKV) -> claims.Verdict:
    """Settle C24 from :func:`run_qkv`."""

    def evidence(v: str) -> str:
        shape = (_("W_Q, W_K and W_V are {d}×{d}, as stated, and each is used as {heads} heads of {head_dim} "
                   "columns").format(d=r.d, heads=r.heads, head_dim=r.head_dim) if r.square else
                 _("the projections are not {d}×{d}").format(d=r.d))
        # the sentence is data, in English in both editions: quoted in the English, inline code in the Chinese (so
        # that the Chinese text holds no English sentence of its own)
        sentence = i18n.Msg(f'"{r.sentence}"', f"`{r.sentence}`")
        head = _(
            "Rebuilt from the weights for {sentence} ({n_tokens} tokens), layer 0's attention differs from the "
            "model's own by at most {diff_full} in the model's form, {diff_no_bias:.2f} when the biases are "
            "dropped, and {diff_article:.2f} in the article's form (probabilities run from 0 to 1). {shape}. "
        ).format(sentence=sentence, n_tokens=r.n_tokens, diff_full=small_number(r.diff_full),
                 diff_no_bias=r.diff_no_bias, diff_article=r.diff_article, shape=shape)
        original = _("For comparison, on a layer of the original Transformer's form (torch's encoder layer without "
                     "biases, fed token + position rows with no normalisation first, the same width and heads, random "
                     "weights) the article's form is off by at most {diff}: that is "
                     "what 'confirmed' looks like, and no trained model of that form is installed here. "
                     ).format(diff=small_number(r.diff_original_form))
        installed = _("What the installed model can show: MiniLM, the one model installed, has an embedding LayerNorm "
                      "and projection biases, so with it this rule can give only 'confirmed with a correction' or "
                      "'refuted'; 'confirmed' would need a trained model of the original Transformer's form, and the "
                      "comparison layer just described only illustrates that outcome, it decides nothing. ")
        rotary = _(" The article's X = embedding output plus positions (加上位置编码) does not hold for rotary models "
                   "either (Su et al. 2021; LLaMA, Mistral, Qwen2): they add no position vector to X at all, and "
                   "instead rotate Q and K by angles proportional to their positions inside every attention layer, "
                   "so X is the token rows alone (chapter 2, 'Where positions come in', demonstrates this on "
                   "MiniLM's table). This is described from the papers, not measured on a rotary model here.")
        return head + original + installed + {
            CONFIRMED: _("The article's formula reproduces the model as written."),
            CORRECTED: _(
                "In BERT-style encoders such as this one, the formula holds once X is read as the model builds it — "
                "token + position + segment rows, then LayerNorm — and each projection keeps its bias: "
                "Q = X W_Qᵀ + b_Q in nn.Linear's layout. The correction is scoped to that family. The article's "
                "form is the original Transformer's (Vaswani et al. 2017); pre-LN decoders such as GPT-2 and LLaMA "
                "normalise X again inside every block before the projections (LLaMA's have no biases), and with "
                "grouped-query attention (Ainslie et al. 2023; LLaMA-2 70B, Mistral) W_K and W_V are "
                "d × (n_kv·d_h), narrower than d × d."
            ),
            REFUTED: _("Neither form reproduces the model's attention."),
        }[v] + rotary

    figures = {"diff_article": r.diff_article, "diff_full": r.diff_full, "square": r.square,
               "diff_no_bias": r.diff_no_bias, "diff_original_form": r.diff_original_form}
    def finding(v: str) -> str:
        if not r.square:
            return _("The projections are not {d}×{d}, so the formula does not describe this model's layer 0."
                     ).format(d=r.d)
        return {
            CONFIRMED: _("Rebuilt from the weights, the article's formula reproduces layer 0's attention to within "
                         "{diff}.").format(diff=small_number(r.diff_article)),
            CORRECTED: _("Layer 0's attention is rebuilt exactly (to within "
                         "{diff}) only when X is the LayerNorm of token, position and segment rows and each "
                         "projection keeps its bias; the article's bare form is off by up to {diff_article:.2f}."
                         ).format(diff=small_number(r.diff_full), diff_article=r.diff_article),
            REFUTED: _("Neither form rebuilds layer 0's attention: the article's is off by up to {diff_article:.2f}, "
                       "the model's by up to {diff_full:.2f}.").format(diff_article=r.diff_article,
                                                                      diff_full=r.diff_full),
        }[v]

    return claims.judge("C24", figures, evidence, finding=finding, strength=_("exact arithmetic on the real model's weights, one "
                        "sentence; the model's own probabilities read with eager attention; one BERT-style model, so "
                        "the correction is stated for BERT-style encoders and the other families are described "
                        "from their papers, not measured (rotary models included). 'Confirmed' is reachable only for a model "
                        "of the original Transformer's form, and none is installed: with MiniLM this rule can give "
                        "only 'confirmed with a correction' or 'refuted'. The random-weight comparison layer shows "
                        "that the rebuild does reach 'confirmed' where the form allows it; it illustrates and does not "
                        "decide (added in a later review; the rule's outcomes are unchanged)"))

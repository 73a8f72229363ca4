"""Chapter 12's reader-facing wording (embedbook.chapters.ch12_qkv.measure): plain decimals, and the
sentence on paraphrase accuracy computed from the numbers."""

from __future__ import annotations

import torch

from embedbook import contextual as cx
from embedbook.book import claims
from embedbook.chapters.ch12_qkv import measure as ch12


def test_plain_decimal_never_scientific():
    assert ch12.plain_decimal(0.0) == "exactly 0"
    assert ch12.plain_decimal(2.98e-7) == "0.0000003"
    assert ch12.plain_decimal(0.004) == "0.004"
    assert ch12.plain_decimal(0.91) == "0.91"
    assert all("e" not in ch12.plain_decimal(x) for x in (1e-9, 3e-5, 0.5))


def _swap(shuffled, random):
    effects = {kind: {"shift_l0": 0.3, "shift_last": 0.2, "final_cos": 0.5, "paraphrase_acc": acc}
               for kind, acc in (("original", 1.0), ("shuffled", shuffled), ("random", random))}
    return ch12.TableSwap(sentence="s", seed=0, n_pairs=16, effects=effects)


def test_paraphrase_reading_follows_the_numbers():
    assert "rewards word overlap" in _swap(0.84, 0.89).paraphrase_reading()
    assert "as often as by chance" in _swap(0.5, 0.55).paraphrase_reading()
    assert "stay above chance" in _swap(0.65, 0.8).paraphrase_reading()
    assert _swap(0.84, 0.89).glued()["paraphrase_reading"].startswith("So this test")


def test_c24_confirmed_is_what_a_layer_of_the_original_form_gives():
    """Issue 19: 'confirmed' must be reachable by a real measurement. A layer of the original Transformer's form
    (no biases, token + position rows into attention unnormalised) gives exactly the CONFIRMED figures; MiniLM's
    form (embedding LayerNorm, biases) cannot, which its box says."""

    diff = ch12.original_form_diff(384, 12, 12)
    assert diff < claims.rule_of("C24").thresholds["rounding"]
    assert claims.rule_of("C24")({"diff_article": diff, "diff_full": diff, "square": 1}) == claims.CONFIRMED


def test_c24_box_names_the_installed_outcomes_and_rotary_positions():
    """Cold audit: the box says which outcomes MiniLM can give, and that rotary models add no position vector."""


    r = ch12.QKV(sentence="s", n_tokens=4, d=384, heads=12, head_dim=32, square=1, has_bias=1, diff_full=3e-7,
                 diff_no_bias=0.2, diff_article=0.6, diff_original_form=2e-7, layer0=None,
                 model_probs=torch.zeros(12, 4, 4))
    v = claims.run("C24", r)
    assert v.verdict == claims.CORRECTED
    assert "can give only 'confirmed with a correction' or 'refuted'" in v.evidence
    assert "add no position vector to X" in v.evidence and "chapter 2" in v.evidence


def test_small_number_is_a_power_of_ten_not_a_long_decimal():
    assert ch12.small_number(2.98e-7) == "3 × 10⁻⁷"
    assert ch12.small_number(9.7e-7) == "1 × 10⁻⁶"
    assert ch12.small_number(0.0) == "exactly 0" and ch12.small_number(0.25) == "0.25"
    assert "0.0000" not in ch12.small_number(1.2e-12)


def test_c24_finding_reads_for_each_outcome():


    def qkv(diff_article, diff_full, square=1):
        return ch12.QKV(sentence="s", n_tokens=4, d=384, heads=12, head_dim=32, square=square, has_bias=1,
                        diff_full=diff_full, diff_no_bias=0.2, diff_article=diff_article, diff_original_form=2e-7,
                        layer0=None, model_probs=torch.zeros(12, 4, 4))

    corrected = claims.run("C24", qkv(0.6, 3e-7))
    assert corrected.verdict == claims.CORRECTED and "3 × 10⁻⁷" in corrected.finding and "0.60" in corrected.finding
    confirmed = claims.run("C24", qkv(2e-7, 2e-7))
    assert confirmed.verdict == claims.CONFIRMED and "reproduces" in confirmed.finding
    refuted = claims.run("C24", qkv(0.6, 0.4))
    assert refuted.verdict == claims.REFUTED and "Neither form" in refuted.finding
    assert "not 384×384" in claims.run("C24", qkv(0.6, 3e-7, square=0)).finding
    assert "0.0000" not in corrected.evidence


def test_paraphrase_accuracy(enc):
    tok, model = enc
    from embedbook.chapters.ch12_qkv.measure import PARAPHRASES

    assert cx.paraphrase_accuracy(tok, model, PARAPHRASES[:4]) > 0.9


def test_chapter12_check_on_the_real_model(enc):
    from embedbook.chapters.ch12_qkv import measure as ch12

    tok, model = enc
    r = ch12.run_qkv(tok, model, ch12.SENTENCE)
    assert r.diff_full < 1e-5 < r.diff_no_bias and r.square == 1 and r.has_bias == 1
    assert claims.run("C24", r).verdict == claims.CORRECTED
    swap = ch12.run_table_swap(tok, model, ch12.SENTENCE, 0, pairs=ch12.PARAPHRASES[:3])
    assert swap.effects["original"]["shift_l0"] == 0.0 and swap.effects["shuffled"]["shift_l0"] > 0.01
    assert "shuffled_final_cos" in swap.glued()


# --- the exercises' answers, each run as its modified code --------------------------------------------------------


def _lesson_qkv(tok, model):
    """The lesson's X and Q, K, V (its mechanism cells) and the model's own layer-0 attention."""
    enc = tok(ch12.SENTENCE, return_tensors="pt")
    ids, n = enc["input_ids"][0], enc["input_ids"].shape[1]
    emb, attn = model.embeddings, model.encoder.layer[0].attention.self
    with torch.no_grad():
        X = emb.LayerNorm(emb.word_embeddings(ids) + emb.position_embeddings(torch.arange(n))
                          + emb.token_type_embeddings(enc["token_type_ids"][0]))
        Q, K, V = attn.query(X), attn.key(X), attn.value(X)
    theirs = cx.model_attentions(tok, model, ch12.SENTENCE)[1][0]
    return X, Q, K, V, n, attn, theirs


def _heads(Q, K, n, h):
    """The lesson's heads cell with ``h`` heads."""
    import math

    dh = Q.shape[-1] // h
    Qh, Kh = (t.view(n, h, dh).transpose(0, 1) for t in (Q, K))
    return Qh, Kh, torch.softmax(Qh @ Kh.transpose(1, 2) / math.sqrt(dh), dim=-1)


def test_exercise_1_the_query_bias_not_the_key_bias(enc):
    """Answer 1: the model's X without biases is far off (the glued no-bias figure); the query bias alone makes the
    rebuild exact again, the key bias alone does not."""
    tok, model = enc
    X, _, _, _, n, attn, theirs = _lesson_qkv(tok, model)

    def off(q_bias, k_bias):
        with torch.no_grad():
            q = X @ attn.query.weight.T + (attn.query.bias if q_bias else 0)
            k = X @ attn.key.weight.T + (attn.key.bias if k_bias else 0)
        return float((_heads(q, k, n, 12)[2] - theirs).abs().max())

    r = ch12.run_qkv(tok, model, ch12.SENTENCE)
    assert abs(off(False, False) - r.diff_no_bias) < 1e-5 and off(False, False) > 0.3  # "still far off"
    assert off(True, False) < 1e-5  # the query bias alone: exact
    assert off(False, True) > 0.3  # the key bias alone changes nothing


def test_exercise_2_six_heads_runs_and_matches_neither_head(enc):
    """Answer 2: with h = 6 the heads cell runs (it keeps Q, K, V whole); the first of the six heads is off by 0.31
    from the model's head 0 and 0.13 from head 1, and its scores are the two heads' scores summed over √2."""
    import math

    tok, model = enc
    _, Q, K, _, n, _, theirs = _lesson_qkv(tok, model)
    Qh, Kh, A = _heads(Q, K, n, 6)
    assert A.shape == (6, n, n)
    assert round(float((A[0] - theirs[0]).abs().max()), 2) == 0.31
    assert round(float((A[0] - theirs[1]).abs().max()), 2) == 0.13
    Q12, K12, _ = _heads(Q, K, n, 12)
    s12 = Q12 @ K12.transpose(1, 2) / math.sqrt(32)
    assert torch.allclose(Qh[0] @ Kh[0].T / math.sqrt(64), (s12[0] + s12[1]) / math.sqrt(2), atol=1e-4)
    _, _, A12 = _heads(Q, K, n, 12)  # h back to 12: the heads cell gives the model's attention again
    assert torch.allclose(A12, theirs, atol=1e-6)


def test_exercise_3_the_crossover_at_8192():
    """Answer 3: at n = 2d = 8192 (d = 4096) both terms are about 1.1 × 10¹² operations."""
    from embedbook import sizing

    c = sizing.attention_flops(8192, 4096)
    assert c["projections"] == c["scores"] + c["mix"]
    assert round(c["projections"] / 1e12, 1) == 1.1


def test_paraphrase_accuracy_counts_each_sentence_against_the_others_paraphrases():
    """The page says what the accuracy counts: n(n − 1) comparisons (56 for 8 pairs), and the wins it glues."""
    s = _swap(47 / 56, 50 / 56)
    s.n_pairs = 8
    g = s.glued()
    assert g["n_comparisons"] == 56 and g["n_others"] == 7
    assert g["shuffled_wins"] == 47 and g["random_wins"] == 50 and g["original_wins"] == 56

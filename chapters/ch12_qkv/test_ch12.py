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

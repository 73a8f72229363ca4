import pytest

from embedbook import sizing


def test_embedding_params_and_bytes():
    assert sizing.embedding_params(32000, 4096) == 131_072_000
    for dt in ["fp32", "fp16", "bf16", "int8", "int4"]:
        assert sizing.measured_bytes(100, 64, dt) == sizing.formula_bytes(100 * 64, dt)


def test_bad_sizes():
    with pytest.raises(ValueError):
        sizing.embedding_params(0, 10)
    with pytest.raises(ValueError, match="even d"):
        sizing.measured_bytes(10, 7, "int4")
    with pytest.raises(ValueError, match="unknown dtype"):
        sizing.formula_bytes(10, "fp8")


def test_width_rule_inverts():
    n = sizing.approx_params(32, 4096)
    assert sizing.width_for(n, 32) == pytest.approx(4096)


def test_head_dim():
    assert sizing.head_dim(4096, 32) == 128
    with pytest.raises(ValueError, match="not divisible"):
        sizing.head_dim(100, 3)


def test_model_lookup():
    assert sizing.model("BERT-base").embedding_params == 30522 * 768
    with pytest.raises(KeyError, match="known"):
        sizing.model("GPT-5")

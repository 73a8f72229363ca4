import numpy as np
import pytest
import torch

from embedbook import lm, sizing


def test_embedding_params_and_bytes():
    assert sizing.embedding_params(32000, 4096) == 131_072_000
    for dt in ["fp32", "fp16", "bf16", "int8", "int4"]:
        assert sizing.measured_bytes(100, 64, dt) == sizing.formula_bytes(100 * 64, dt)
        assert sizing.measured_bytes(100, 64, dt, device="cpu") == sizing.formula_bytes(100 * 64, dt)


def test_bytes_are_numel_times_element_size():
    for name, dtype in sizing.DTYPES.items():
        t = torch.empty(7, 10, dtype=dtype)
        assert sizing.formula_bytes(t.numel(), name) == t.numel() * t.element_size() == sizing.measured_bytes(7, 10, name)


def test_formula_bytes_is_an_int_and_int4_rounds_up():
    assert sizing.formula_bytes(131_072_000, "fp32") == 524_288_000
    assert isinstance(sizing.formula_bytes(7, "int4"), int) and sizing.formula_bytes(7, "int4") == 4
    assert sizing.formula_bytes(0, "fp16") == 0


def test_bad_sizes():
    with pytest.raises(ValueError):
        sizing.embedding_params(0, 10)
    with pytest.raises(ValueError, match="even d"):
        sizing.measured_bytes(10, 7, "int4")
    with pytest.raises(ValueError, match="unknown dtype"):
        sizing.formula_bytes(10, "fp8")


def test_issue_11_finding_10_validation():
    """Negative sizes, float sizes and absurd allocations are refused with a clear message."""
    with pytest.raises(ValueError, match="params must be >= 0"):
        sizing.formula_bytes(-100, "fp32")
    with pytest.raises(ValueError, match="layers must be positive"):
        sizing.approx_params(-2, 768)
    with pytest.raises(ValueError, match="vocab must be an int"):
        sizing.embedding_params(1.5, 4)
    with pytest.raises(ValueError, match="must be an int"):
        sizing.formula_bytes(True, "fp32")
    # 4 TB: measured on the meta device by default (nothing allocated), refused on a real device
    assert sizing.measured_bytes(10**7, 10**5, "fp32") == 4 * 10**12
    with pytest.raises(ValueError, match="meta"):
        sizing.measured_bytes(10**7, 10**5, "fp32", device="cpu")


def test_width_rule_inverts():
    n = sizing.approx_params(32, 4096)
    assert isinstance(n, int)
    assert sizing.width_for(n, 32) == pytest.approx(4096)
    with pytest.raises(ValueError):
        sizing.width_for(1e9, 0)
    with pytest.raises(ValueError):
        sizing.width_for(float("nan"), 4)


def test_approx_params_counts_a_real_layer():
    d = 256
    layer = torch.nn.TransformerEncoderLayer(d, 4, dim_feedforward=4 * d)
    biases_and_norms = 13 * d
    assert sum(p.numel() for p in layer.parameters()) == sizing.approx_params(1, d) + biases_and_norms


def test_head_dim():
    assert sizing.head_dim(4096, 32) == 128
    with pytest.raises(ValueError, match="not divisible"):
        sizing.head_dim(100, 3)
    with pytest.raises(ValueError, match="heads must be positive"):
        sizing.head_dim(100, 0)


def test_model_lookup():
    assert sizing.model("BERT-base").embedding_params == 30522 * 768
    with pytest.raises(KeyError, match="known"):
        sizing.model("GPT-5")


def test_model_table_is_consistent():
    names = [m.name for m in sizing.MODELS]
    assert len(names) == len(set(names))
    for m in sizing.MODELS:
        assert m.kind in ("encoder", "decoder") and 0 < m.embedding_share < 1, m.name
    gpt3_xl = sizing.model("GPT-3 XL")  # Brown et al. (2020), Table 2.1: d = 2048, 24 heads of 128
    assert gpt3_xl.decoupled and not gpt3_xl.d_divisible and gpt3_xl.attention_width == 3072
    assert not sizing.model("GPT-2 small").decoupled


def test_count_parameters_finds_every_embedding():
    """Issue 11, finding 7: TinyLM's table is called ``embed``, not ``word_embeddings``."""
    tied = lm.TinyLM(lm.LMConfig(1000, 64))
    c = sizing.count_parameters(tied)
    assert c.tables == {"pos": 64 * 64, "embed": 1000 * 64}
    assert c.embedding == 1000 * 64 + 64 * 64 and c.head == 0 and c.tied_heads == ("head",)
    assert c.total == sum(p.numel() for p in tied.parameters())
    assert c.embedding - c.tables["pos"] + c.head == tied.num_params("embedding")
    untied = lm.TinyLM(lm.LMConfig(1000, 64, tie=False))
    u = sizing.count_parameters(untied)
    assert u.head == 1000 * 64 and u.tied_heads == ()
    assert u.embedding - u.tables["pos"] + u.head == untied.num_params("embedding")
    assert u.total - c.total == 1000 * 64  # the tied head is counted once
    assert 0 < u.share < 1 and u.body == u.total - u.embedding - u.head


def test_count_parameters_on_meta_and_without_tables():
    m = torch.nn.Module()
    m.wte = torch.nn.Embedding.from_pretrained(torch.empty(50257, 12288, device="meta"), freeze=False)
    m.lm_head = torch.nn.Linear(12288, 50257, bias=False, device="meta")
    assert sizing.count_parameters(m).head == 50257 * 12288
    m.lm_head.weight = m.wte.weight
    c = sizing.count_parameters(m)
    assert c.total == c.embedding == 50257 * 12288 and c.head == 0
    plain = sizing.count_parameters(torch.nn.Linear(3, 4))
    assert plain.embedding == 0 and plain.total == 16 and plain.share == 0.0
    assert sizing.count_parameters(torch.nn.ReLU()).share == 0.0
    with pytest.raises(TypeError, match="nn.Module"):
        sizing.count_parameters("model")


def test_attention_flops():
    f = sizing.attention_flops(16, 8)
    assert f["total"] == 8 * 16 * 64 + 4 * 256 * 8
    with pytest.raises(ValueError):
        sizing.attention_flops(0, 8)


# --- issue 18: one dtype spelling everywhere; model names as people type them ---------------------------


SPELLINGS = {
    "fp32": ["fp32", "FP32", "float32", "float", "torch.float32", torch.float32, torch.float, np.float32,
             np.dtype("float32")],
    "fp16": ["fp16", "float16", "half", torch.float16, torch.half, np.float16, np.dtype("float16")],
    "bf16": ["bf16", "bfloat16", "torch.bfloat16", torch.bfloat16],
    "int8": ["int8", torch.int8, np.int8, np.dtype("int8")],
    "int4": ["int4", "INT4"],
}


def test_dtype_name_accepts_torch_numpy_and_the_usual_strings():
    for name, spellings in SPELLINGS.items():
        for spelling in spellings:
            assert sizing.dtype_name(spelling) == name, spelling
    for bad in ["fp8", "", "float64", torch.float64, np.float64, torch.bool, "int32"]:
        with pytest.raises(ValueError, match="unknown dtype"):
            sizing.dtype_name(bad)
    for bad in [None, 4, 2.5, object()]:
        with pytest.raises(TypeError, match="torch.dtype or a NumPy dtype"):
            sizing.dtype_name(bad)


def test_every_dtype_taking_function_of_the_library_goes_through_dtype_name():
    """formula_bytes, measured_bytes and lookup.one_hot_bytes (every public function with a dtype
    argument) give one answer for every spelling of a format."""
    from embedbook import lookup

    calls = {
        "sizing.formula_bytes": lambda dt: sizing.formula_bytes(20, dt),
        "sizing.measured_bytes": lambda dt: sizing.measured_bytes(5, 4, dt),
        "lookup.one_hot_bytes": lambda dt: lookup.one_hot_bytes(5, 4, dt),
    }
    for fn, call in calls.items():
        for name, spellings in SPELLINGS.items():
            want = call(name)
            assert want == sizing.formula_bytes(20, name), (fn, name)
            for spelling in spellings:
                assert call(spelling) == want, (fn, spelling)
        with pytest.raises(ValueError, match="unknown dtype"):
            call("fp8")


def test_model_matches_case_and_punctuation_and_suggests_close_names():
    assert sizing.model("bert-base") is sizing.model("BERT base") is sizing.model("BERT-base")
    assert sizing.model("gpt2 small").name == "GPT-2 small"
    with pytest.raises(KeyError, match="did you mean Qwen2-7B"):
        sizing.model("Qwen2-8B")
    with pytest.raises(KeyError, match="did you mean BERT-base"):
        sizing.model("bert-bse")
    with pytest.raises(KeyError, match="known: BERT-base") as err:
        sizing.model("no such model")
    assert "did you mean" not in str(err.value)
    with pytest.raises(TypeError, match="model name"):
        sizing.model(3)


def test_width_for_takes_numpy_ints_like_the_other_sizing_functions():
    assert sizing.width_for(1e6, np.int64(2)) == sizing.width_for(1e6, 2)  # was "must be a positive int, got np.int64(2)"
    with pytest.raises(ValueError, match="layers must be an int"):
        sizing.width_for(1e6, 2.0)

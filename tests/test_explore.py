"""The explorer's table exporter (embedbook.book.explore), on small tables: what the page reads back is what was
written, words normalised as the page normalises input, float16 within its precision."""

import numpy as np
import pytest

from embedbook import similarity
from embedbook.book import explore


def test_normalise_folds_width_and_case():
    assert explore.normalise(" ＫＩＮＧ ") == "king"
    assert explore.normalise("１９９８年") == "1998年"
    assert explore.normalise("中国") == "中国"


def test_prepare_keeps_the_first_of_words_that_normalise_alike():
    words = ["Paris", "paris", "ＡＢ", "ab", "x", "  "]
    vectors = np.arange(12, dtype=np.float32).reshape(6, 2)
    kept, half = explore.prepare(words, vectors, 10)
    assert kept == ["paris", "ab", "x"]
    assert half.dtype == np.float16 and half.tolist() == [[0, 1], [4, 5], [8, 9]]
    assert explore.prepare(words, vectors, 2)[0] == ["paris", "ab"]


@pytest.mark.parametrize("bad", [0, -1, 2.5, True])
def test_prepare_refuses_a_bad_count(bad):
    with pytest.raises(ValueError, match="positive int"):
        explore.prepare(["a"], np.zeros((1, 2)), bad)


def test_prepare_refuses_values_float16_cannot_hold():
    with pytest.raises(ValueError, match="float16"):
        explore.prepare(["a"], np.array([[1e6, 0.0]]), 1)
    with pytest.raises(ValueError, match="one vector row per word"):
        explore.prepare(["a", "b"], np.zeros((1, 2)), 1)


def test_round_trip_through_the_javascript_file(tmp_path):
    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(50)] + ["中国", "1998年"]
    vectors = rng.standard_normal((len(words), 8)).astype(np.float32)
    kept, half = explore.prepare(words, vectors, 100)
    path = tmp_path / "t.js"
    path.write_text(explore.to_js("zh", "test", kept, half), encoding="utf-8")
    meta, back_words, back = explore.read_js(path)
    assert meta == {"lang": "zh", "name": "test", "n": len(words), "d": 8, "dtype": "float16"}
    assert back_words == kept and back.dtype == np.float32
    assert np.array_equal(back, half.astype(np.float32))
    assert np.abs(back - vectors).max() <= np.abs(vectors).max() * 2**-11  # float16's rounding
    space = similarity.Space(back_words, back)  # the page's table is a valid Space
    assert similarity.neighbours(space, "中国", k=3)


def test_read_js_refuses_another_file(tmp_path):
    path = tmp_path / "x.js"
    path.write_text("var x = 1;\n", encoding="utf-8")
    with pytest.raises(ValueError, match="not an explorer table"):
        explore.read_js(path)


def test_export_writes_both_tables_from_the_cache(tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir()
    for lang in ("en", "zh"):  # a tiny stand-in for each cached table: export reads it, trains nothing
        np.savez(cache / f"{lang}-{explore._key(lang)}.npz", words=np.array(["a", "b"]),
                 half=np.ones((2, 4), np.float16))
    sizes = explore.export(tmp_path / "out", cache)
    assert set(sizes) == {"en.js", "zh.js"} and all(v > 0 for v in sizes.values())
    assert explore.read_js(tmp_path / "out" / "en.js")[1] == ["a", "b"]


def test_chinese_links_to_english_words_name_the_english_table():
    """The Chinese edition's explorer opens on the Chinese table: a chapter's link that queries English words must
    say table=en, or the reader lands on "not in this table"."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    for po in sorted(root.glob("chapters/*/zh.po")):
        chinese = "\n".join(line for line in po.read_text(encoding="utf-8").splitlines() if line.startswith("msgstr"))
        for href in re.findall(r'explore\.html#([^\\"]+)', chinese):
            query = dict(part.split("=", 1) for part in href.split("&"))
            words = ",".join(v for k, v in query.items() if k in ("near", "analogy", "cos"))
            if re.search(r"[a-z]", words):
                assert query.get("table") == "en", f"{po.parent.name}: #{href} queries English words"

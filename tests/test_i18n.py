"""The two editions cannot drift: every English unit has a current Chinese translation that keeps its glue
keys, references, links, math, code, numbers and placeholders (embedbook.book.translations.drift); and the
machinery that writes both languages from one execution (embedbook.book.i18n)."""

import io
import json
import shutil
from pathlib import Path

import pytest

from embedbook import book
from embedbook.book import i18n, translations

ROOT = book.root()


def test_catalogs_have_no_drift():
    problems = translations.drift()
    assert not problems, f"{len(problems)} drift problems (fix with tools/i18n.py):\n" + "\n".join(problems[:30])


def _copy_of_the_book(tmp: Path) -> Path:
    for name in ("_toc.yml", "_config.yml"):
        shutil.copy(ROOT / name, tmp / name)
    for folder in ("book", "locale", "chapters"):
        shutil.copytree(ROOT / folder, tmp / folder, ignore=shutil.ignore_patterns("_static", "*.bib", "__pycache__"))
    shutil.copytree(ROOT / "embedbook", tmp / "embedbook", ignore=shutil.ignore_patterns("resources", "__pycache__"))
    return tmp


def test_one_changed_english_sentence_fails_the_drift_check(tmp_path):
    """The demonstration: change one sentence of a chapter's English and leave its Chinese alone."""
    root = _copy_of_the_book(tmp_path)
    path = root / "chapters" / "ch08_similarity" / "08_similarity.ipynb"
    nb = json.loads(path.read_text(encoding="utf-8"))
    cell = next(c for c in nb["cells"] if c["cell_type"] == "markdown" and "The dot product" in "".join(c["source"]))
    cell["source"] = "".join(cell["source"]).replace("The dot product", "The inner product", 1)
    path.write_text(json.dumps(nb, ensure_ascii=False), encoding="utf-8")
    before = set(translations.drift())
    new = [p for p in translations.drift(root) if p not in before]
    assert any("no Chinese for the markdown" in p and "The inner product" in p for p in new), new
    assert any("obsolete entry" in p and "The dot product" in p for p in new), new


@pytest.mark.parametrize("en, zh, complaint", [
    ("Share {glue:text}`a_share:.0%` here.", "这里占 {glue:text}`b_share:.0%`。", "glue"),
    ("See {ref}`the box <claim-c08>`.", "见{ref}`论断框 <claim-c09>`。", "references"),
    ("Cited {cite:p}`mikolov2013`.", "引自{cite:p}`mikolov2013x`。", "references"),
    ("A [link](https://example.org).", "一个[链接](https://example.com)。", "links"),
    ("With $d = 64$ dimensions.", "维度为 $d=64$。", "math"),
    ("Call `similarity.cosine`.", "调用 `cosine`。", "inline code"),
    ("Over 10,000 words.", "超过一万个词。", "numbers"),
])
def test_a_translation_must_keep_what_it_cannot_change(en, zh, complaint):
    assert any(p.startswith(complaint) for p in i18n.problems(en, zh)), i18n.problems(en, zh)


def test_a_faithful_translation_passes():
    en = "Over {glue:text}`n_words` words, see {ref}`the box <claim-c08>` and $O(1)$; 10,000 of them."
    zh = "共 {glue:text}`n_words` 个词，见{ref}`论断框 <claim-c08>`与 $O(1)$；其中 10,000 个。"
    assert i18n.problems(en, zh) == []
    assert i18n.problems("{rho:+.2f} in {name}", "{name} 中为 {rho:+.2f}", template=True) == []
    assert i18n.problems("{rho:+.2f} in {name}", "{name} 中为 {rho:.2f}", template=True)


def test_blocks_keep_fenced_directives_whole():
    text = "A paragraph\non two lines.\n\n```{dropdown} Answer\nOne.\n\nTwo.\n```\n\n- a\n- b"
    assert i18n.blocks(text) == ["A paragraph\non two lines.", "```{dropdown} Answer\nOne.\n\nTwo.\n```", "- a\n- b"]
    assert i18n.translate_markdown(text, str.upper).startswith("A PARAGRAPH")


def test_comments_are_units_and_code_is_not():
    code = 'x = "# not a comment"  # the table\ny = 1  # noqa: E501\n%time z = 2'
    assert [c for _, _, c in i18n.comments(code)] == ["the table"]
    assert i18n.translate_comments(code, lambda c: "表") == 'x = "# not a comment"  # 表\ny = 1  # noqa: E501\n%time z = 2'


def test_templates_are_found_in_source():
    assert i18n.templates('a = _("one {x}").format(x=1)\nb = i18n._("two")\nc = f("three")') == ["one {x}", "two"]


def test_a_message_formats_both_languages_with_the_same_values(monkeypatch):
    monkeypatch.setattr(i18n, "_catalog", lambda: {"took {ms:.1f} ms": "耗时 {ms:.1f} 毫秒", "fast": "快"})
    monkeypatch.setenv("EMBEDBOOK_LANGS", "en,zh")
    m = i18n._("took {ms:.1f} ms").format(ms=2.345)
    assert (str(m), m.en, m.zh) == ("took 2.3 ms", "took 2.3 ms", "耗时 2.3 毫秒")
    with i18n.language("zh"):
        assert str(i18n._("fast")) == "快" and i18n.tr(m) == "耗时 2.3 毫秒"
    assert i18n.lookup("took 2.3 ms") == "耗时 2.3 毫秒"  # a figure label formatted this run
    with pytest.raises(i18n.MissingTranslation, match="no Chinese for 'slow and steady'"):
        i18n._("slow and steady")


def test_figure_and_table_labels_are_translated(monkeypatch):
    pytest.importorskip("matplotlib")
    from embedbook import plotting

    monkeypatch.setattr(i18n, "_catalog", lambda: {"vector length": "向量长度", "dot product": "点积"})
    monkeypatch.setenv("EMBEDBOOK_LANGS", "en,zh")
    fig, ax = plotting.subplots()
    ax.bar(["dot product", "frog"], [1, 2])
    ax.set_xlabel("vector length")
    ax2 = fig.add_axes([0.6, 0.6, 0.2, 0.2])
    ax2.set_xticks([0, 1], ["dot product", "frog"])  # a FuncFormatter in recent matplotlib
    fig.canvas.draw()
    with i18n.figure_in(fig, "zh"):
        assert ax.get_xlabel() == "向量长度"
        assert [t.get_text() for t in ax.get_xticklabels()] == ["点积", "frog"]  # one data word stays
        assert [t.get_text() for t in ax2.get_xticklabels()] == ["点积", "frog"]
    assert ax.get_xlabel() == "vector length"
    ax.set_title("vector length $V d$")  # Chinese beside math: drawn in the CJK font, no missing glyph
    monkeypatch.setattr(i18n, "_catalog", lambda: {"vector length $V d$": "向量长度 $V d$", "vector length": "向量长度",
                                                   "dot product": "点积"})
    with i18n.figure_in(fig, "zh"), i18n._no_missing_glyphs("the figure"):
        fig.savefig(io.BytesIO(), format="svg")
    assert i18n.translate_html("<style>th {a: b}</style><th>dot product</th><td>frog</td>") == \
        "<style>th {a: b}</style><th>点积</th><td>frog</td>"
    with pytest.raises(i18n.MissingTranslation):
        i18n.translate_html("<th>length percentile here</th>")


def test_english_left_in_chinese_is_found():
    assert i18n.english_left("这是 the table of all words 的说明。") == ["the table of all words"]
    assert i18n.english_left("GloVe 6B 50d 与 MiniLM 的 `all words are here` 对比，$a b c d$。") == []


def test_a_changed_sentence_keeps_its_chinese_as_fuzzy(tmp_path):
    """Translation memory: an edited English unit keeps its old Chinese, marked fuzzy, with the old English
    beside it (``#| msgid``); the drift check fails until a translator revises it; a second extract changes
    nothing, header dates included."""
    root = _copy_of_the_book(tmp_path)
    path = root / "chapters" / "ch08_similarity" / "08_similarity.ipynb"
    nb = json.loads(path.read_text(encoding="utf-8"))
    cell = next(c for c in nb["cells"] if c["cell_type"] == "markdown" and "The dot product" in "".join(c["source"]))
    old_unit = next(u for u, _ in translations.catalogs(root)["08_similarity"] if "The dot product" in u)
    old_zh = translations.read("08_similarity", root)[old_unit]["zh"]
    cell["source"] = "".join(cell["source"]).replace("The dot product", "The inner product", 1)
    path.write_text(json.dumps(nb, ensure_ascii=False), encoding="utf-8")
    translations.update(root, names=["08_similarity"])
    new_unit = old_unit.replace("The dot product", "The inner product", 1)
    entry = translations.read("08_similarity", root)[new_unit]
    assert entry["fuzzy"] and entry["previous"] == old_unit and entry["zh"] == old_zh
    po = (root / "chapters" / "ch08_similarity" / "zh.po").read_text(encoding="utf-8")
    assert "#, fuzzy" in po and "#| msgid" in po
    assert any("is fuzzy" in p and "The inner product" in p for p in translations.drift(root))
    before = (root / "chapters" / "ch08_similarity" / "zh.po").read_bytes()
    translations.update(root, names=["08_similarity"])
    assert (root / "chapters" / "ch08_similarity" / "zh.po").read_bytes() == before


def test_extract_on_unchanged_catalogs_changes_nothing(tmp_path):
    root = _copy_of_the_book(tmp_path)
    before = {p: p.read_bytes() for p in [*root.glob("chapters/*/zh.po"), *root.glob("locale/zh/*.po")]}
    translations.update(root)
    after = {p: p.read_bytes() for p in before}
    assert [p.name for p in before if before[p] != after[p]] == []

"""The "Explore the space" page (book/explore.md) in headless Chromium, in both editions: the same answers as the
package, and a tool that behaves.

Parity: a fixed list of queries (nearest neighbours, analogies with the inputs excluded and included, cosines, at
fp32, INT8 and INT4) runs in the page (``window.Explore``, the functions its widgets call) and through
``embedbook.similarity`` / ``embedbook.quantize`` on the very table the page holds (its ``_static/explore/<lang>.js``,
read back by ``embedbook.book.explore.read_js``): the same rows in the same order, cosines within
:data:`TOLERANCE`. The time of each query in the browser is measured (a cold one builds the table at its
precision first) and written, with the parity figures, to ``_build/explore-parity.json``.

Behaviour: a URL like ``explore.html#analogy=man,king,woman`` fills the form and answers it, an unknown word gets
close suggestions, full-width and upper-case input finds the table's word."""

import html
import json
import re
import statistics
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pytest

from tests.after_book.built import HTML, ZH
from tests.after_book.test_html import CHROMIUM, FLAGS

TOLERANCE = 1e-5
PAGE_PATH = Path("book") / "explore.html"
QUERIES = {  # ("near", word, bits) | ("analogy", a, b, c, exclude_inputs, bits) | ("cos", x, y, bits)
    "en": [("near", w, b) for b in (32, 8, 4) for w in ("king", "apple", "paris", "computer", "good", "frog")]
    + [("analogy", *q, ex, b) for b in (32, 8, 4) for ex in (True, False)
       for q in (("man", "king", "woman"), ("france", "paris", "italy"), ("big", "bigger", "small"))]
    + [("cos", "cat", "dog", b) for b in (32, 8, 4)] + [("cos", "king", "banana", 32)],
    "zh": [("near", w, b) for b in (32, 8, 4) for w in ("中国", "经济", "北京", "发展")]
    + [("analogy", "中国", "北京", "日本", ex, b) for b in (32, 4) for ex in (True, False)]
    + [("cos", "中国", "日本", 32)],
}
K_NEAR, K_ANALOGY = 10, 5
REPORT = HTML.parent / "explore-parity.json"

pytestmark = pytest.mark.skipif(CHROMIUM is None or not (HTML / PAGE_PATH).exists(),
                                reason="needs the built explorer page (make book, make page NN or make page explore) "
                                       "and chromium")

PROBE = """<script>
(function () {
  var Q = %s, out = {}, t0 = performance.now();
  ["en", "zh"].forEach(function (lang) {
    Explore.load(lang, function (tab) {
      var loaded = performance.now();
      if (lang === "en") window.__en = tab;
      out[lang] = {load_ms: loaded - t0, n: tab.n, results: Q[lang].map(function (q) {
        var s = performance.now(), r;
        if (q[0] === "near") r = Explore.neighbours(tab, q[1], %d, q[2]);
        else if (q[0] === "analogy") r = Explore.analogy(tab, q[1], q[2], q[3], %d, q[4], q[5]);
        else r = {ids: [], scores: [Explore.cosine(tab, q[1], q[2], q[3])]};
        return {ids: r.ids, scores: r.scores, ms: performance.now() - s};
      })};
      // warm: the first query's fp32 neighbours again, five times
      var warm = [];
      for (var i = 0; i < 5; i++) { var s = performance.now(); Explore.neighbours(tab, Q[lang][0][1], %d, 32); warm.push(performance.now() - s); }
      out[lang].warm_ms = warm;
      t0 = performance.now();
    });
  });
  out.suggest = Explore.suggestions(window.__en, "kinng", 5);
  out.normal = [Explore.normalise("ＫＩＮＧ "), Explore.normalise("Ｐａｒｉｓ")];
  document.body.setAttribute("data-explore", JSON.stringify(out));
})();
</script>"""


def _browser(page: Path, *extra: str, url_suffix: str = "") -> str:
    with tempfile.TemporaryDirectory() as profile:
        r = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *extra, "--dump-dom",
                            page.as_uri() + url_suffix], capture_output=True, text=True, timeout=180)
    return r.stdout


def _attribute(dom: str, name: str):
    found = re.search(rf'<body[^>]*{name}="([^"]*)"', dom)
    assert found, f"the page set no {name}: the probe did not run"
    return json.loads(html.unescape(found.group(1)))


def run_in_page(base: Path) -> dict:
    """The queries answered in the page of one edition (``base``: ``HTML`` or ``ZH``); the tables are loaded by
    plain script tags before the page's script, so that everything runs before the page's load event, in real
    time (no virtual time: the timings are the browser's own)."""
    page = base / PAGE_PATH
    text = page.read_text(encoding="utf-8")
    tables = '<script src="../_static/explore/en.js"></script><script src="../_static/explore/zh.js"></script>'
    probe = PROBE % (json.dumps(QUERIES, ensure_ascii=False), K_NEAR, K_ANALOGY, K_NEAR)
    text = text.replace('<script src="../_static/explore.js">', tables + '<script src="../_static/explore.js">', 1)
    assert tables in text, "the page does not load ../_static/explore.js"
    shadow = page.with_name(".probe-explore.html")
    shadow.write_text(text.replace("</body>", probe + "</body>"), encoding="utf-8")
    try:
        return _attribute(_browser(shadow), "data-explore")
    finally:
        shadow.unlink()


def in_python(base: Path) -> dict:
    """The same queries through embedbook.similarity and embedbook.quantize on the tables the page holds."""
    from embedbook import quantize, similarity
    from embedbook.book import explore

    out = {}
    for lang, queries in QUERIES.items():
        _, words, vectors = explore.read_js(base / "_static" / "explore" / f"{lang}.js")
        spaces = {32: similarity.Space(words, vectors)}
        for bits in (8, 4):
            spaces[bits] = similarity.Space(words, quantize.roundtrip(vectors, bits).numpy())
        rows = []
        for q in queries:
            if q[0] == "near":
                answer = similarity.neighbours(spaces[q[2]], q[1], k=K_NEAR)
            elif q[0] == "analogy":
                answer = similarity.solve_analogy(spaces[q[5]], *q[1:4], k=K_ANALOGY, exclude_inputs=q[4])
            else:
                s = spaces[q[3]]
                rows.append({"ids": [], "scores": [similarity.cosine(s.vectors[s.id(q[1])], s.vectors[s.id(q[2])])]})
                continue
            rows.append({"ids": [spaces[32].index[w] for w, _ in answer], "scores": [c for _, c in answer]})
        out[lang] = rows
    return out


@pytest.mark.parametrize("base", [HTML, ZH], ids=["en", "zh"])
def test_page_answers_as_the_package(base):
    if not (base / PAGE_PATH).exists():
        pytest.skip(f"no explorer page in {base}")
    page, py = run_in_page(base), in_python(base)
    worst, report = 0.0, {}
    for lang, queries in QUERIES.items():
        for q, js, ref in zip(queries, page[lang]["results"], py[lang]):
            assert js["ids"] == ref["ids"], f"{lang} {q}: the page gives rows {js['ids']}, the package {ref['ids']}"
            diff = float(np.max(np.abs(np.array(js["scores"], dtype=float) - np.array(ref["scores"], dtype=float))))
            assert diff <= TOLERANCE, f"{lang} {q}: cosines differ by {diff:.2e}, over {TOLERANCE}"
            worst = max(worst, diff)
        times = [r["ms"] for r in page[lang]["results"]]
        report[lang] = {"words": page[lang]["n"], "queries": len(queries), "load_ms": round(page[lang]["load_ms"], 1),
                        "query_ms_median": round(statistics.median(times), 2), "query_ms_max": round(max(times), 1),
                        "warm_neighbours_ms_median": round(statistics.median(page[lang]["warm_ms"]), 2)}
    report["max_cosine_difference"] = worst
    report["table_bytes"] = {p.name: p.stat().st_size for p in sorted((base / "_static" / "explore").glob("*.js"))}
    report["explore_js_bytes"] = (base / "_static" / "explore.js").stat().st_size
    edition = "zh" if base == ZH else "en"
    old = json.loads(REPORT.read_text(encoding="utf-8")) if REPORT.exists() else {}
    REPORT.write_text(json.dumps({**old, edition: report}, indent=1), encoding="utf-8")
    print(edition, json.dumps(report))
    assert "king" in page["suggest"], f"no close suggestion for 'kinng': {page['suggest']}"
    assert page["normal"] == ["king", "paris"], page["normal"]
    # a query within about 100 ms in the browser, warm (a cold one also builds the table at its precision)
    assert report["en"]["warm_neighbours_ms_median"] < 100, report


def test_weight_of_the_page():
    """The explorer's tables and script stay within about 8 MB."""
    static = HTML / "_static"
    total = sum(p.stat().st_size for p in (static / "explore").glob("*.js")) + (static / "explore.js").stat().st_size
    assert total < 8_000_000, f"the explorer weighs {total / 1e6:.1f} MB, over 8 MB"


@pytest.mark.parametrize("base", [HTML, ZH], ids=["en", "zh"])
def test_hash_query_and_unknown_word(base):
    """#analogy=man,king,woman answers the analogy as the page opens; #near=<unknown> suggests close words."""
    page = base / PAGE_PATH
    if not page.exists():
        pytest.skip(f"no explorer page in {base}")
    dom = _browser(page, "--virtual-time-budget=15000", url_suffix="#analogy=man,king,woman&table=en")
    out = re.search(r'id="explore-analogy-out".*?</div>\s*</section>', dom, re.S)
    assert out and ">queen<" in out.group(0), "#analogy=man,king,woman did not answer queen"
    dom = _browser(page, "--virtual-time-budget=15000", url_suffix="#near=kinng&table=en")
    out = re.search(r'id="explore-near-out".*?</section>', dom, re.S)
    assert out and "kinng" in out.group(0) and ">king<" in out.group(0), "an unknown word got no suggestion"

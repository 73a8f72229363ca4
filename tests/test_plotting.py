import io
import re

import matplotlib

matplotlib.use("Agg")

from embedbook import plotting  # noqa: E402


def test_chinese_labels_render_as_cjk_glyphs():
    fig, ax = plotting.subplots()
    ax.set_title("苹果 香蕉")
    buf = io.StringIO()
    fig.savefig(buf, format="svg")
    svg = buf.getvalue()
    assert re.search(r'id="NotoSansCJK[^"]*"', svg), "Chinese glyphs were not drawn with the CJK font"


def test_font_file_exists():
    assert plotting.cjk_font_file().stat().st_size > 1_000_000

"""One figure style for the whole book: SVG output and a CJK-capable font.

The font is Noto Sans CJK, installed as a Python package (``cvttf-notosanscjk-regular``) so that
Chinese labels render everywhere without system fonts. SVG text is written as glyph paths, so the
reader's browser needs no font either.

Used by every chapter: call ``plotting.setup()`` once, then ``plotting.subplots()``. matplotlib and the font
come with the ``[plot]`` extra (``[book]`` includes it); without them ``setup()`` raises
:class:`embedbook.data.MissingResource` naming what to install.
"""

from __future__ import annotations

from pathlib import Path

from embedbook import data

__all__ = [
    "setup",
    "subplots",
    "cjk_font_file",
]

EXTRA = "plot"
CJK_FONT = "Noto Sans CJK TC"
PALETTE = ["#1f6feb", "#d9480f", "#2b8a3e", "#7048e8", "#c2255c", "#e67700", "#0b7285", "#495057"]


def cjk_font_file() -> Path:
    """Path of the bundled Noto Sans CJK font file (raises MissingResource if the package is missing)."""
    pkg = data._need("cvttf_NotoSansCJK_Regular", "cvttf-notosanscjk-regular", EXTRA)
    return Path(pkg.__file__).parent / "NotoSansCJKtc-Regular.otf"


def setup() -> None:
    """Register the CJK font, apply the book's style and make notebooks emit SVG figures.

    Raises:
        embedbook.data.MissingResource: matplotlib or the font package is not installed (the ``[plot]`` extra).
    """
    matplotlib = data._need("matplotlib", extra=EXTRA)
    from matplotlib import font_manager

    font_manager.fontManager.addfont(str(cjk_font_file()))
    matplotlib.rcParams.update(
        {
            "font.family": ["DejaVu Sans", CJK_FONT],  # Latin from DejaVu; CJK glyphs fall back to Noto
            "axes.unicode_minus": False,
            "axes.prop_cycle": matplotlib.cycler(color=PALETTE),
            "axes.spines.top": False,
            "axes.spines.right": False,
            "axes.grid": True,
            "grid.alpha": 0.3,
            "figure.figsize": (7.0, 4.0),
            "figure.dpi": 100,
            "savefig.bbox": "tight",
            "svg.fonttype": "path",
            "svg.hashsalt": "embedbook",  # stable SVG ids: two builds give identical files
        }
    )
    try:
        from matplotlib_inline.backend_inline import set_matplotlib_formats

        set_matplotlib_formats("svg")
    except ImportError:  # outside Jupyter there is no inline backend to configure
        pass


def subplots(*args, **kwargs):
    """``plt.subplots`` with the book's style applied (``setup`` is idempotent)."""
    setup()
    import matplotlib.pyplot as plt

    kwargs.setdefault("layout", "constrained")
    return plt.subplots(*args, **kwargs)

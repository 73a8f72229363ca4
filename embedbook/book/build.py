"""Building an edition with jupyter-book: the English one from ``_config.yml`` and ``_toc.yml``, the Chinese one
from the same files with its titles, language and toggles in Chinese; the whole book (``embedbook build`` /
``edition``) or one chapter's page (``embedbook page``). Builds never execute: outputs come from the book's one
execution (its jupyter-cache), or, for a page, from the chapter's own smoke-size run (``embedbook_executed``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import yaml

from embedbook import book
from embedbook.book import i18n


def jupyter_book() -> str:
    """The jupyter-book beside this Python (the venv's, whether or not it is on PATH), else the one on PATH."""
    here = Path(sys.executable).parent / "jupyter-book"
    return str(here) if here.exists() else "jupyter-book"


def _zh(text: str, catalog: dict[str, str]) -> str:
    if text not in catalog:
        raise LookupError(f"no Chinese for {text!r} in locale/zh/book.po; run `python tools/i18n.py extract`")
    return catalog[text]


def edition_files(lang: str, work: Path, toc: dict | None = None, sphinx: dict | None = None) -> tuple[Path, Path]:
    """Write the ``_config.yml`` and ``_toc.yml`` of edition ``lang`` into ``work``: the book's own, with ``toc``
    in place of its table of contents and ``sphinx`` added to its Sphinx settings. Returns their paths."""
    base = book.root()
    config = yaml.safe_load((base / "_config.yml").read_text(encoding="utf-8"))
    toc = toc or yaml.safe_load((base / "_toc.yml").read_text(encoding="utf-8"))
    config["bibtex_bibfiles"] = [str(base / b) for b in config["bibtex_bibfiles"]]
    config["sphinx"]["config"].update(sphinx or {})
    if lang == "zh":
        catalog = i18n.merged(i18n.locale_dir())
        config["title"] = _zh(config["title"], catalog)
        config["html"]["extra_footer"] = _zh(config["html"]["extra_footer"], catalog)
        config["sphinx"]["config"].update({
            "language": "zh_CN", "embedbook_language": "zh",
            "smartquotes": False,  # docutils would turn the articles' "…" into ”…” (no opening quote in zh)
            "nb_code_prompt_show": "显示代码", "nb_code_prompt_hide": "隐藏代码",
            "togglebutton_hint": "点击显示", "togglebutton_hint_hide": "点击隐藏"})
        for part in toc.get("parts", []):
            part["caption"] = _zh(part["caption"], catalog)
    work.mkdir(parents=True, exist_ok=True)
    paths = work / "_config.yml", work / "_toc.yml"
    paths[0].write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False), encoding="utf-8")
    paths[1].write_text(yaml.safe_dump(toc, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return paths


def build(lang: str, work: Path, toc: dict | None = None, sphinx: dict | None = None) -> int:
    """Build edition ``lang`` into ``work/_build/html`` (every page: the catalogs are no Sphinx dependency, so
    nothing may be taken as unchanged); warnings are errors. Returns jupyter-book's exit code."""
    config, toc_path = edition_files(lang, work, toc, sphinx)
    return subprocess.call([jupyter_book(), "build", str(book.root()), "--config", str(config), "--toc",
                            str(toc_path), "--path-output", str(work), "--all", "-W", "--keep-going"])

# The two commands: `make book` and `make test`. Each creates .venv on first use and installs
# exactly the versions in constraints.txt (torch==2.13.0: the CPU build where pip finds a CPU wheel, else the
# CUDA build; README "Which torch build" says how to take the CPU one).
# `make check-html` (after `make book`) checks the built pages in headless Chromium; `make lab` opens
# the chapters in JupyterLab.
PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export PYTHONHASHSEED := 0
# every run writes both editions' text (English and Chinese, embedbook.book.i18n); a missing Chinese raises
export EMBEDBOOK_LANGS := en,zh

.PHONY: book test check-html lab venv clean page

venv: $(STAMP)

$(STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV) || python3 -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e ".[test]"
	touch $@

# unit and property-based tests, then every chapter at smoke size, twice (offline, deterministic)
test: venv
	rm -rf _build/verdicts/smoke _build/papermill _build/papermill-second
	$(BIN)/python -m pytest tests chapters --ignore=tests/after_book --durations=15

# every chapter at full size, two at a time (one per core), then the pages that read their results, into the
# build's cache; a notebook whose inputs (its code and everything it imports) did not change since its last run
# here is not run again (CI starts from an empty cache; `make clean` empties it). Then the English book in
# _build/html and the Chinese one in _build/html/zh, both from those outputs (no notebook is executed twice)
book: venv
	$(BIN)/embedbook execute
	$(BIN)/jupyter-book build . --all -W --keep-going   # --all: outputs come from the cache, which Sphinx does not watch
	$(BIN)/embedbook edition zh

# after `make book`: every built page in headless Chromium (installed from Debian's packages if missing),
# and the smoke-size verdicts (from `make test`) against the full-size ones where they must agree
check-html: venv
	command -v chromium >/dev/null || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium)
	$(BIN)/python -m pytest tests/after_book -q

# one chapter in minutes: `make page 04` runs chapter 04 at smoke size, builds its page in both editions into
# _build/page/04_tying/html (and html/zh) and runs the built-page checks on it
ifeq (page,$(firstword $(MAKECMDGOALS)))
  CHAPTER := $(word 2,$(MAKECMDGOALS))
  $(eval $(CHAPTER):;@:)
endif
page: venv
	@test -n "$(CHAPTER)" || (echo "usage: make page NN   (a chapter's number, e.g. make page 04)" >&2; exit 2)
	command -v chromium >/dev/null || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium)
	$(BIN)/embedbook page $(CHAPTER)

# JupyterLab (pinned in constraints.txt) in the same environment, opened on the reader notebooks the build wrote
# (_build/html/_notebooks: plain CommonMark, the book's figures written in; embedbook.book.reader), else, before
# any build, on the chapters' MyST sources (one folder each), whose roles and directives JupyterLab shows as typed
lab: venv
	$(BIN)/python -m pip install --quiet -c constraints.txt -e ".[lab]"
	$(BIN)/jupyter lab $$(test -d _build/html/_notebooks/chapters && echo _build/html/_notebooks/chapters || echo chapters/)

clean:
	rm -rf _build

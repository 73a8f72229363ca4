# The two commands: `make book` and `make test`. Each creates .venv on first use and installs
# exactly the versions in constraints.txt (the CPU build of torch among them).
PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export PYTHONHASHSEED := 0

.PHONY: book test check-html venv clean

venv: $(STAMP)

$(STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV) || python3 -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e ".[test]"
	# the GPT-2 BPE ranks ship as an asset of openai-whisper; only the file is read, so no deps
	$(BIN)/python -m pip install --quiet -c constraints.txt --no-deps openai-whisper
	touch $@

test: venv
	$(BIN)/python -m pytest tests --ignore=tests/browser

# after `make book`: every built page in headless Chromium (installed from Debian's packages if missing)
check-html: venv
	command -v chromium >/dev/null || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium)
	$(BIN)/python -m pytest tests/browser -q

book: venv
	$(BIN)/jupyter-book build . -W --keep-going

clean:
	rm -rf _build

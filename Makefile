# Surfcast — the two commands a newcomer needs: `make run` and `make test`.
BUN := node_modules/.bin/bun
SOURCES := $(shell find src scripts drizzle -type f 2>/dev/null) package.json
SPOTS_SOURCE ?= ../shared/data/spots/surfspots.json
export SPOTS_SOURCE

.PHONY: install build run test bench typecheck clean

install: node_modules/.installed

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

build: dist/surfcast

dist/surfcast: node_modules/.installed $(SOURCES) $(SPOTS_SOURCE)
	$(BUN) scripts/build.ts

run: build
	./dist/surfcast --data-dir ./var serve --port $${PORT:-8080}

typecheck: node_modules/.installed
	node_modules/.bin/tsc -p tsconfig.json

test: build typecheck
	@command -v chromium >/dev/null || apt-get install -y chromium   # /docs is tested in headless Chromium
	$(BUN) scripts/test.ts

bench: build
	$(BUN) bench/run.ts

clean:
	rm -rf dist .test-tmp

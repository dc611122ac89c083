# Surfcast — the two commands a newcomer needs: `make run` and `make test`.
BUN := node_modules/.bin/bun
SOURCES := $(shell find src scripts drizzle -type f 2>/dev/null) package.json
SPOTS_SOURCE ?= ../shared/data/spots/surfspots.json
export SPOTS_SOURCE

.PHONY: install build run test bench typecheck clean chromium

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

test: build typecheck chromium
	$(BUN) scripts/test.ts

# The console's browser tests drive Debian's chromium; install it when missing (as root, or through sudo).
CHROMIUM ?= /usr/bin/chromium
chromium:
	@test -x $(CHROMIUM) || { echo "installing chromium for the browser tests"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium; }

bench: build
	$(BUN) bench/run.ts

clean:
	rm -rf dist .test-tmp

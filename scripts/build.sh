#!/usr/bin/env bash
# Builds the release bundle into dist/ with Trunk, offline.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"

if ! rustup target list --installed 2>/dev/null | grep -q '^wasm32-unknown-unknown$'; then
  # rustup here has no wasm32 std and cannot download one: build std from
  # Debian's rustc-web source instead (../shared/TOOLCHAIN.md).
  export PATH="/usr/bin:$PATH"
  export RUSTC=/usr/bin/rustc
  export RUSTC_BOOTSTRAP=1
  export CARGO_UNSTABLE_BUILD_STD=std,panic_abort
  export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_LINKER=wasm-ld-22
fi

# Trunk builds offline; fetch first what the build needs (with build-std, that
# includes the standard library's own dependencies). Quick when all is cached.
cargo fetch --target wasm32-unknown-unknown --quiet
trunk build --release --offline "$@"

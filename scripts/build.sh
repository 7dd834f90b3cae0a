#!/usr/bin/env bash
# Builds the release bundle into dist/ with Trunk, offline.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"

# Not Leptos's `--cfg erase_components`: it saves about 14 KB gzip but boxes
# every view, and the page's wasm memory then grew 5 MB more over 1,000 runs
# (benchmark figure 8 at +11.8 % instead of +6.7 %, against a 10 % target).
wasm_rustflags=""

if ! rustup target list --installed 2>/dev/null | grep -q '^wasm32-unknown-unknown$'; then
  # rustup here has no wasm32 std and cannot download one: build std from
  # Debian's rustc-web source instead (../shared/TOOLCHAIN.md).
  export PATH="/usr/bin:$PATH"
  export RUSTC=/usr/bin/rustc
  export RUSTC_BOOTSTRAP=1
  export CARGO_UNSTABLE_BUILD_STD=std,panic_abort
  export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_LINKER=wasm-ld-22
  # Building std ourselves lets it shrink too (issue 6, figure 7), with
  # options only a std built from source takes: panics abort at once,
  # without formatting a message (no panic machinery, no message strings;
  # the trade-off is in README's "Size"); no file/line/column of panic sites;
  # std's size-optimised algorithms. On the rustup path the wasm is larger.
  wasm_rustflags+=" -Cpanic=immediate-abort -Zunstable-options -Zlocation-detail=none"
  export CARGO_UNSTABLE_BUILD_STD_FEATURES=optimize_for_size
fi
export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="$wasm_rustflags"

# Trunk builds offline; fetch first what the build needs (with build-std, that
# includes the standard library's own dependencies). Quick when all is cached.
cargo fetch --target wasm32-unknown-unknown --quiet
trunk build --release --offline "$@"

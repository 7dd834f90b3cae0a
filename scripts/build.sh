#!/usr/bin/env bash
# Builds the release bundle into dist/ with Trunk, offline.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"

# Leptos's `--cfg erase_components` boxes every component's view instead of
# compiling each nesting of view types on its own: a smaller wasm for a
# little more memory per run on the page (bench figures 7 and 8).
wasm_rustflags="--cfg erase_components"

if ! rustup target list --installed 2>/dev/null | grep -q '^wasm32-unknown-unknown$'; then
  # rustup here has no wasm32 std and cannot download one: build std from
  # Debian's rustc-web source instead (../shared/TOOLCHAIN.md).
  export PATH="/usr/bin:$PATH"
  export RUSTC=/usr/bin/rustc
  export RUSTC_BOOTSTRAP=1
  export CARGO_UNSTABLE_BUILD_STD=std,panic_abort
  export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_LINKER=wasm-ld-22
  # Building std ourselves lets it shrink too, with options only a std
  # built from source takes: panics abort at once, without formatting a
  # message (the trade-off is in docs/building.md); no file/line/column of panic
  # sites; `{:?}` compiles to nothing, which drops every Debug impl and the
  # Unicode tables str's Debug escapes with (the app quotes with
  # `format::quoted` and clippy denies `{:?}` in it); std's size-optimised
  # algorithms. On the rustup path the wasm is larger.
  wasm_rustflags+=" -Cpanic=immediate-abort -Zunstable-options -Zlocation-detail=none -Zfmt-debug=none"
  export CARGO_UNSTABLE_BUILD_STD_FEATURES=optimize_for_size
fi
export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="$wasm_rustflags"

# Trunk builds offline; fetch first what the build needs (with build-std, that
# includes the standard library's own dependencies). Quick when all is cached.
cargo fetch --target wasm32-unknown-unknown --quiet
# wasm-bindgen writes the JS snippets the app binds (www/*.js) here and never
# deletes one, and Trunk ships, preloads and precaches whatever is there: a
# snippet from an earlier build of other code stayed in the bundle.
rm -rf target/wasm-bindgen
trunk build --release --offline "$@"

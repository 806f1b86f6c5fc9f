#!/bin/bash
# SPDX-License-Identifier: MIT
# The main job: set up, build, and run the `quick` suite, printing the
# data-sheet table. Extra arguments go to `embperf suite quick`.
set -euo pipefail
cd "$(dirname "$0")/.."
. .ci/deps.sh
ensure_packages "${BUILD_PACKAGES[@]}"

build=${BUILD_DIR:-build}
if [ ! -f "$build/build.ninja" ]; then
	meson setup "$build" -Dtests=disabled >/dev/null
fi
build "$build"
exec "$build/bench/embperf" suite quick "$@"

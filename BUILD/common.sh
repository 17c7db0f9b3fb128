# Copyright (c) 2026, purgelab developers. GPLv2 (see COPYING).
# Sourced by the BUILD/ entry scripts: configure the superbuild once.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${PURGELAB_BUILD_DIR:-$repo/build}

configure() {
  if [ ! -f "$build/build.ninja" ]; then
    cmake -S "$repo" -B "$build" -G Ninja "$@"
  elif [ $# -gt 0 ]; then
    cmake "$build" "$@"
  fi
}

timed() {  # timed LABEL CMD...: run, print the wall time it took
  local label=$1 t0=$SECONDS; shift
  "$@"
  echo "purgelab: $label took $((SECONDS - t0)) s"
}

#!/usr/bin/env bash
# PNG against JPEG decode cost on the same 500x375 picture, one core: ns
# per pixel of a full decode and ms of the train transform's decode step,
# medians over runs. Single-threaded: pin it with taskset for steadier
# numbers. See bench_png.c.
#
#   BENCH_BIN_DIR            set by `make bench` (build/bench/bench)
#   BENCH_PNG_RUNS=9         runs (median)
#   BENCH_PNG_DECODES=100    decodes per format per run
set -u
bin=${BENCH_BIN_DIR:-build/bench/bench}/bench_png
[ -x "$bin" ] || { echo "bench_png: $bin not built (run 'make bench')" >&2; exit 1; }
exec "$bin" -r "${BENCH_PNG_RUNS:-9}" \
	-n "${BENCH_PNG_DECODES:-100}"

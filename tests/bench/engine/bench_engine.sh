#!/usr/bin/env bash
# Engine cost: CPU seconds per sample of the pipeline engine itself (null
# backend, noop transform, no GPU), against the CPU seconds per sample of
# the real ImageNet train transform (aug_train_sample), in one process, so
# both are measured on the same machine in the same state. Target: the
# engine costs <= 1 % of the transform. See bench_engine.c for what each
# number covers.
#
#   BENCH_BIN_DIR            set by `make bench` (build/bench/bench)
#   BENCH_ENGINE_REPEATS=3   runs per row (median)
#   BENCH_ENGINE_SECONDS=3   measured seconds per run
#   BENCH_ENGINE_DIR=/var/tmp  where the (tiny) listing files go
set -u
bin=${BENCH_BIN_DIR:-build/bench/bench}/bench_engine
[ -x "$bin" ] || { echo "bench_engine: $bin not built (run 'make bench')" >&2; exit 1; }
exec "$bin" -r "${BENCH_ENGINE_REPEATS:-3}" -d "${BENCH_ENGINE_SECONDS:-3}" \
	-f "${BENCH_ENGINE_DIR:-/var/tmp}"

#!/usr/bin/env bash
# Runs every benchmark script (tests/bench/*/bench_*.sh) with the -O2
# -DNDEBUG build. Each prints its own medians and ratios against its peer.
# BENCH_ONLY=io,list runs a subset.
set -u
here=$(cd "$(dirname "$0")" && pwd)
status=0
for script in "$here"/*/bench_*.sh; do
	[ -e "$script" ] || continue
	dir=$(basename "$(dirname "$script")")
	if [ -n "${BENCH_ONLY:-}" ] && [[ ",$BENCH_ONLY," != *",$dir,"* ]]; then
		continue
	fi
	echo "=== bench: $dir/$(basename "$script")"
	bash "$script" || { echo "=== bench $dir: failed"; status=1; }
done
exit $status

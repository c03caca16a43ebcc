#!/usr/bin/env bash
# MLPerf Storage's unet3d on a network block disk: the throttled loopback
# ext4 of tests/storage_fixtures at gp3's baseline (125 MiB/s, 3000 IOPS;
# AWS EBS docs). Checks that a cold run is storage-bound, and that the read
# bandwidth the run reports matches `feedrate io` on the same files (target
# within 10 %). Medians over REPEATS runs, io and run alternating.
# Needs root, loop devices and the blkio cgroup v1 controller; exits 0 with
# a "skipped" line where they are missing.
#
#   FEEDRATE_BIN   the -O2 -DNDEBUG build (make bench sets it)
#   REPEATS        runs per measurement (default 3)
#   UNET3D_SIZE    dataset size (default 1200M: ~8 files of MLPerf's sizes)
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
fx="$root/tests/storage_fixtures/fixtures.sh"
bin=${FEEDRATE_BIN:-$root/feedrate}
case "$bin" in /*) ;; *) bin="$root/$bin" ;; esac
repeats=${REPEATS:-3}
size=${UNET3D_SIZE:-1200M}
export FEEDRATE_FIXTURE_DIR=/var/tmp/feedrate-fixtures-mlperf
export FEEDRATE_BIN=$bin
# the image holds the fixture's small default set and the unet3d files
export FIXTURE_SIZE=20M FIXTURE_BLK_COPIES=$(( ${size%M} * 3 / 40 + 8 ))

command -v jq >/dev/null || { echo "bench_mlperf: jq not installed (Debian package jq)" >&2; exit 1; }
[ -x "$bin" ] || { echo "bench_mlperf: $bin not built (run 'make bench')" >&2; exit 1; }
out=$("$fx" start --owner $$ blk 2>&1)
rc=$?
if [ $rc -eq 77 ]; then
	echo "bench_mlperf: skipped: $(grep -o 'skip: .*' <<<"$out" | head -n 1)"
	exit 0
fi
[ $rc -eq 0 ] || { echo "bench_mlperf: fixtures failed to start:"; echo "$out"; exit 1; }
tmp=$(mktemp -d /var/tmp/bench-mlperf.XXXXXX)
trap '"$fx" stop >/dev/null 2>&1; rm -rf "$tmp"' EXIT
blk=$(sed -n 's/^FIXTURE_BLK=//p' <<<"$out")
ds="$(dirname "$blk")/unet3d"
"$bin" gen -q --workload unet3d --size "$size" "$ds" ||
	{ echo "bench_mlperf: gen failed"; exit 1; }
sync
files=$(ls "$ds" | wc -l)
bytes=$(du -sb "$ds" | cut -f1)

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

: >"$tmp/io" ; : >"$tmp/run" ; : >"$tmp/bn"; : >"$tmp/need"; : >"$tmp/sps"
for i in $(seq "$repeats"); do
	"$fx" throttled "$bin" io --cache cold --json "$tmp/io.json" "$ds" >/dev/null 2>&1 ||
		{ echo "bench_mlperf: io failed"; exit 1; }
	jq -r '.bw_bytes / 1e6' "$tmp/io.json" >>"$tmp/io"
	# the raw feed (--gpus 0) one sample a batch: at the throttle's
	# ~0.5 samples/s a batch of 7 would take 15 s
	"$fx" throttled "$bin" run -w unet3d --cache cold --gpus 0 \
		--batch 1 --warmup 3s --duration 30 --json "$tmp/run.json" \
		"$ds" >/dev/null 2>&1
	[ -s "$tmp/run.json" ] || { echo "bench_mlperf: run failed"; exit 1; }
	jq -r '.reads.bytes_per_s / 1e6' "$tmp/run.json" >>"$tmp/run"
	jq -r '.samples_per_s' "$tmp/run.json" >>"$tmp/sps"
	jq -r '.reads.bytes_per_sample * 8 * 7 / 0.636 / 1e6' "$tmp/run.json" >>"$tmp/need"
	jq -r .bottleneck "$tmp/run.json" >>"$tmp/bn"
done
io=$(median <"$tmp/io") run=$(median <"$tmp/run")
printf 'unet3d on the throttled disk (125 MiB/s, 3000 IOPS): %d files, %.0f MB\n' "$files" "$(echo "$bytes / 1000000" | bc -l)"
printf '  io cold            %.1f MB/s (median of %d)\n' "$io" "$repeats"
printf '  run cold, raw feed %.1f MB/s read, %.2f samples/s; bottleneck %s\n' "$run" "$(median <"$tmp/sps")" "$(sort "$tmp/bn" | uniq -c | awk '{ printf "%s%sx%s", s, $1, $2; s="," }')"
printf '  8 MLPerf A100s need %.0f MB/s (8 x 7 / 0.636 s samples/s x bytes per sample)\n' "$(median <"$tmp/need")"
printf '  run / io           %.3f (target 0.90-1.10)\n' "$(echo "$run / $io" | bc -l)"

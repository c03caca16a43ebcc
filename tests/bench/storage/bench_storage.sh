#!/usr/bin/env bash
# Storage comparison benchmark on the loopback fixtures of
# tests/storage_fixtures (a local-disk folder, an ext4 image on a loop
# device behind a blkio throttle, an s3fs mount of a local s3rver bucket).
# Prints medians over REPEATS runs of:
#   io, cold, one pass: MB/s, files/s, clat p50 on each storage
#   throttled disk at gp3's baseline (125 MiB/s, 3000 IOPS; AWS EBS docs):
#     cold io bandwidth / throttle   (target 0.85x .. 1.1x)
#   s3fs: files/s at queue depth 1 against 32 (latency hiding), for the
#     pread pool and io_uring; uring against psync at depth 32
#   auto: the backend the start-of-run probe chose on each storage, and why
#   run on each storage: samples/s, bottleneck, sample latency p50 at a
#     light load (one GPU eating 100 samples/s), the s3fs/local ratio
#     (target >= 5x); on the throttled disk cold and warm bottlenecks; on
#     s3fs the CPU time outside the run's mask (--vcpus 1) with the FUSE
#     daemon and the server kept on the last CPU, uring against psync
# Needs root, FUSE, loop devices, s3fs, node (npm ci in
# tests/storage_fixtures) and the blkio cgroup v1 controller; exits 0 with a
# "skipped" line where they are missing.
#
#   FEEDRATE_BIN   the -O2 -DNDEBUG build (make bench sets it)
#   REPEATS        runs per measurement (default 3)
#   FIXTURE_SIZE   dataset size (default 30M)
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
fx="$root/tests/storage_fixtures/fixtures.sh"
bin=${FEEDRATE_BIN:-$root/feedrate}
case "$bin" in /*) ;; *) bin="$root/$bin" ;; esac
repeats=${REPEATS:-3}
gp3_bps=131072000
gp3_iops=3000
export FEEDRATE_FIXTURE_DIR=/var/tmp/feedrate-fixtures-bench
export FEEDRATE_BIN=$bin

command -v jq >/dev/null || { echo "bench_storage: jq not installed (Debian package jq)" >&2; exit 1; }
[ -x "$bin" ] || { echo "bench_storage: $bin not built (run 'make bench')" >&2; exit 1; }
out=$("$fx" start --owner $$ 2>&1)
rc=$?
if [ $rc -eq 77 ]; then
	echo "bench_storage: skipped: $(grep -o 'skip: .*' <<<"$out" | head -n 1)"
	exit 0
fi
[ $rc -eq 0 ] || { echo "bench_storage: fixtures failed to start:"; echo "$out"; exit 1; }
trap '"$fx" stop >/dev/null 2>&1' EXIT
get() { sed -n "s/^$1=//p" <<<"$out"; }
LOCAL=$(get FIXTURE_LOCAL) BLK=$(get FIXTURE_BLK) S3=$(get FIXTURE_S3)
S3FS_PID=$(get FIXTURE_S3FS_PID) SRV_PID=$(get FIXTURE_S3_SERVER_PID)
tmp=$(mktemp -d /var/tmp/bench-storage.XXXXXX)
trap '"$fx" stop >/dev/null 2>&1; rm -rf "$tmp"' EXIT

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# io_med PREFIX DIR OPTS... -> "MBps files/s p50ms" medians
io_med() {
	local prefix=$1 dir=$2 i; shift 2
	for i in $(seq "$repeats"); do
		$prefix "$bin" io "$@" --json "$tmp/io.json" "$dir" >/dev/null 2>&1 ||
			{ echo "io failed: $*" >&2; return 1; }
		jq -r '[.bw_bytes / 1e6, .files_per_s, .clat_ns.percentile["50.000000"] / 1e6] | @tsv' "$tmp/io.json"
	done >"$tmp/io.tsv"
	printf '%.1f %.0f %.2f\n' "$(cut -f1 "$tmp/io.tsv" | median)" \
		"$(cut -f2 "$tmp/io.tsv" | median)" "$(cut -f3 "$tmp/io.tsv" | median)"
}

# run_med PREFIX DIR OPTS... -> medians "samples/s p50ms readMBps outside_s" + bottlenecks
run_med() {
	local prefix=$1 dir=$2 i; shift 2
	: >"$tmp/bn"
	for i in $(seq "$repeats"); do
		$prefix "$bin" run --warmup 1s "$@" --json "$tmp/run.json" "$dir" >/dev/null 2>&1 ||
			{ echo "run failed: $*" >&2; return 1; }
		jq -r '[.samples_per_s, .sample_latency.p50_ns / 1e6, .read_bytes_per_s / 1e6, .cpu_outside_mask_s] | @tsv' "$tmp/run.json"
		jq -r .bottleneck "$tmp/run.json" >>"$tmp/bn"
	done >"$tmp/run.tsv"
	printf '%.0f %.1f %.1f %.2f %s\n' "$(cut -f1 "$tmp/run.tsv" | median)" \
		"$(cut -f2 "$tmp/run.tsv" | median)" "$(cut -f3 "$tmp/run.tsv" | median)" \
		"$(cut -f4 "$tmp/run.tsv" | median)" "$(sort "$tmp/bn" | uniq -c | awk '{ printf "%s%sx%s", s, $1, $2; s="," }')"
}

echo "bench_storage: dataset $(du -sm "$LOCAL" | cut -f1) MB, $(find "$LOCAL" -type f | wc -l) files; $repeats repeats, medians"

echo "-- feedrate io, cold, one pass, depth 32 (MB/s, files/s, clat p50 ms)"
"$fx" throttle $gp3_bps $gp3_iops
for s in local blk s3; do
	case $s in
	local) r=$(io_med "" "$LOCAL" --cache cold) ;;
	blk) r=$(io_med "$fx throttled" "$BLK" --cache cold) ;;
	s3) r=$(io_med "" "$S3" --cache cold) ;;
	esac
	printf '  %-28s %s\n' "$s" "$r"
done

echo "-- throttled disk at gp3 baseline (125 MiB/s, 3000 IOPS), cold, 4 s of passes"
for opts in "--backend uring" "--backend psync --direct"; do
	r=$(io_med "$fx throttled" "$BLK" $opts --cache cold --duration 4s)
	mb=${r%% *}
	ratio=$(awk -v m="$mb" -v t=$gp3_bps 'BEGIN { printf "%.3f", m * 1e6 / t }')
	verdict=$(awk -v r="$ratio" 'BEGIN { print (r >= 0.85 && r <= 1.1) ? "ok" : "OUT OF 0.85..1.1" }')
	printf '  %-28s %s MB/s = %sx throttle  %s\n' "$opts" "$mb" "$ratio" "$verdict"
done

echo "-- s3fs: queue depth 1 vs 32, cold (MB/s, files/s, clat p50 ms)"
for b in psync uring; do
	r1=$(io_med "" "$S3" --backend $b --depth 1 --cache cold)
	r32=$(io_med "" "$S3" --backend $b --depth 32 --cache cold)
	f1=$(cut -d' ' -f2 <<<"$r1") f32=$(cut -d' ' -f2 <<<"$r32")
	printf '  %-6s qd1 %-22s qd32 %-22s files/s ratio %s\n' "$b" "$r1" "$r32" \
		"$(awk -v a="$f32" -v b="$f1" 'BEGIN { printf "%.2fx", (b > 0 ? a / b : 0) }')"
done

echo "-- auto: what the start-of-run probe chose, cold, depth 32 (one run each)"
for s in local blk s3; do
	case $s in
	local) prefix= dir=$LOCAL ;;
	blk) prefix="$fx throttled" dir=$BLK ;;
	s3) prefix= dir=$S3 ;;
	esac
	$prefix "$bin" io --cache cold --json "$tmp/auto.json" "$dir" >/dev/null 2>&1 &&
		printf '  %-6s %s: %s\n' "$s" "$(jq -r .backend "$tmp/auto.json")" \
			"$(jq -r .backend_reason "$tmp/auto.json")"
done

echo "-- feedrate run, cold, light load (--gpu-rate 100 --batch 32, 4 s): samples/s, sample p50 ms, read MB/s, outside-mask s, bottleneck"
rl=$(run_med "" "$LOCAL" --cache cold --duration 4s --gpu-rate 100 --batch 32)
rs=$(run_med "" "$S3" --cache cold --duration 4s --gpu-rate 100 --batch 32)
printf '  %-28s %s\n' local "$rl" s3fs "$rs"
printf '  sample latency p50 s3fs/local: %s (target >= 5x)\n' \
	"$(awk -v a="$(cut -d' ' -f2 <<<"$rs")" -v b="$(cut -d' ' -f2 <<<"$rl")" 'BEGIN { printf "%.1fx", a / b }')"

# batches of 32: at tens of samples/s a 4 s window must still hold several
raw="--gpus 0 --batch 32 --duration 4s"
echo "-- feedrate run, raw feed rate ($raw): samples/s, sample p50 ms, read MB/s, outside-mask s, bottleneck"
printf '  %-28s %s\n' "local cold" "$(run_med "" "$LOCAL" --cache cold $raw)"
printf '  %-28s %s\n' "gp3 disk cold" "$(run_med "$fx throttled" "$BLK" --cache cold $raw)"
"$fx" throttle $((20 << 20)) $gp3_iops
printf '  %-28s %s\n' "20 MiB/s disk cold" "$(run_med "$fx throttled" "$BLK" --cache cold $raw)"
printf '  %-28s %s\n' "20 MiB/s disk warm" "$(run_med "$fx throttled" "$BLK" --cache warm $raw)"
"$fx" throttle $gp3_bps $gp3_iops
printf '  %-28s %s\n' "s3fs cold" "$(run_med "" "$S3" --cache cold $raw)"

ncpu=$(nproc)
if [ "$ncpu" -ge 2 ]; then
	last=$((ncpu - 1))
	for p in $S3FS_PID $SRV_PID; do
		for t in /proc/$p/task/*; do taskset -p -c $last "${t##*/}" >/dev/null 2>&1; done
	done
	echo "-- s3fs, --vcpus 1 (CPU 0), s3fs and server on CPU $last, cold, $raw: samples/s, sample p50 ms, read MB/s, outside-mask s, bottleneck"
	for b in uring psync; do
		c0=$(awk '{ print $14 + $15 }' /proc/$S3FS_PID/stat)
		r=$(run_med "" "$S3" --vcpus 1 --backend $b --cache cold $raw)
		c1=$(awk '{ print $14 + $15 }' /proc/$S3FS_PID/stat)
		printf '  %-6s %s; s3fs CPU %.2f s over %d runs\n' "$b" "$r" \
			"$(awk -v a="$c0" -v b="$c1" -v hz="$(getconf CLK_TCK)" 'BEGIN { print (b - a) / hz }')" "$repeats"
	done
fi

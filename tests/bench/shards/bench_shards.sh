#!/usr/bin/env bash
# Shard formats against the image folder, on the loopback fixtures of
# tests/storage_fixtures (local disk, an ext4 image behind a blkio throttle
# at gp3's baseline, an s3fs mount of a local s3rver bucket). The fixtures'
# folder dataset is converted with `feedrate gen --from` into WebDataset,
# TFRecord, MDS and MDS with zstd, and each copy is put on each storage.
# Prints medians over REPEATS runs of:
#   run, per format and storage, cold and warm: samples/s (--gpus 0)
#   s3fs cold: wds / folder samples/s              (target >= 5x)
#   throttled disk cold: the shard reader alone (noop transform) against
#     the throttle's bandwidth                      (target >= 0.95x)
#   warm, one vCPU: CPU per sample of wds, tfrecord and mds / folder
#                                                   (target <= 1.02x)
#   MDS zstd: decompression per core / `zstd -b -d` on the same shards
#                                                   (target >= 0.9x)
# Needs what bench_storage.sh needs (root, FUSE, loop devices, s3fs, node,
# blkio v1) and jq; skips with a line where they are missing.
#
#   FEEDRATE_BIN, BENCH_BIN_DIR   set by `make bench`
#   REPEATS        runs per measurement (default 3)
#   FIXTURE_SIZE   dataset size (default 60M)
#   DURATION       measured seconds per run (default 6s)
#   SECTIONS       which parts run (default all): count,table,s3read,
#                  throttle,cpu,zstd
#   SHARD_SIZE     gen --shard-size (default 8M: several shards of the
#                  small fixture dataset, as 100M shards are of a real one)
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
fx="$root/tests/storage_fixtures/fixtures.sh"
bin=${FEEDRATE_BIN:-$root/feedrate}
case "$bin" in /*) ;; *) bin="$root/$bin" ;; esac
bbin=${BENCH_BIN_DIR:-$root/build/bench/bench}/bench_shard_read
case "$bbin" in /*) ;; *) bbin="$root/$bbin" ;; esac
repeats=${REPEATS:-3}
dur=${DURATION:-6s}
shard_size=${SHARD_SIZE:-8M}
sections=${SECTIONS:-count,table,s3read,throttle,cpu,zstd}
want() { [[ ",$sections," == *",$1,"* ]]; }
gp3_bps=131072000
export FEEDRATE_FIXTURE_DIR=${FEEDRATE_FIXTURE_DIR:-/var/tmp/feedrate-fixtures-shards}
export FEEDRATE_BIN=$bin
export FIXTURE_SIZE=${FIXTURE_SIZE:-60M}
export FIXTURE_BLK_COPIES=7     # the folder and four shard copies

command -v jq >/dev/null || { echo "bench_shards: jq not installed" >&2; exit 1; }
command -v zstd >/dev/null || { echo "bench_shards: zstd not installed" >&2; exit 1; }
[ -x "$bin" ] || { echo "bench_shards: $bin not built (run 'make bench')" >&2; exit 1; }
[ -x "$bbin" ] || { echo "bench_shards: $bbin not built (run 'make bench')" >&2; exit 1; }
out=$("$fx" start --owner $$ 2>&1)
rc=$?
if [ $rc -eq 77 ]; then
	echo "bench_shards: skipped: $(grep -o 'skip: .*' <<<"$out" | head -n 1)"
	exit 0
fi
[ $rc -eq 0 ] || { echo "bench_shards: fixtures failed to start:"; echo "$out"; exit 1; }
trap '"$fx" stop >/dev/null 2>&1' EXIT
get() { sed -n "s/^$1=//p" <<<"$out"; }
LOCAL=$(get FIXTURE_LOCAL) BLK=$(get FIXTURE_BLK) S3=$(get FIXTURE_S3)
tmp=$(mktemp -d /var/tmp/bench-shards.XXXXXX)
trap '"$fx" stop >/dev/null 2>&1; rm -rf "$tmp"' EXIT

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }

# the same images in each format, next to the folder on each storage
fmts="wds tfrecord mds mdsz"
for f in $fmts; do
	case $f in
	mdsz) args=(--format mds --compression zstd) ;;
	*) args=(--format "$f") ;;
	esac
	"$bin" gen -q --from "$LOCAL/train" "${args[@]}" --shard-size "$shard_size" \
		"$tmp/$f" >/dev/null ||
		{ echo "bench_shards: gen --from $f failed"; exit 1; }
	for d in "$LOCAL" "$BLK" "$S3"; do
		rm -rf "$d.$f"
		cp -r "$tmp/$f" "$d.$f" || { echo "bench_shards: copy to $d.$f failed"; exit 1; }
	done
done
sync

# run_med PREFIX DIR OPTS... -> "samples/s cpu_ms_per_sample"
run_med() {
	local prefix=$1 dir=$2 i; shift 2
	for i in $(seq "$repeats"); do
		$prefix "$bin" run --warmup 1s --duration "$dur" -g 0 "$@" \
			--json "$tmp/run.json" "$dir" >/dev/null 2>&1 ||
			{ echo "run failed: $dir $*" >&2; echo "0 0"; return 1; }
		jq -r '[.samples_per_s, 1000 * .stages.process_cpu_s / ([.samples, 1] | max)] | @tsv' "$tmp/run.json"
	done >"$tmp/run.tsv"
	printf '%.0f %.3f\n' "$(cut -f1 "$tmp/run.tsv" | median)" \
		"$(cut -f2 "$tmp/run.tsv" | median)"
}

want count && echo "-- opening: records counted (tar, TFRecord: a small read per record; MDS: index.json)"
want count && for s in local blk s3; do
	case $s in
	local) prefix= d=$LOCAL ;;
	blk) prefix="$fx throttled" d=$BLK ;;
	s3) prefix= d=$S3 ;;
	esac
	for f in $fmts; do
		$prefix "$bin" info --steal-interval 0 --json "$tmp/info.json" "$d.$f" >/dev/null 2>&1
		printf '  %-6s %-9s %s\n' $s $f "$(jq -r '.dataset | "\(.records) records in \(.shards) shards, counted in \(.count_s * 1000 | floor) ms"' "$tmp/info.json")"
	done
done

declare -A cold warm
want table && echo "-- samples/s, --gpus 0 (median of $repeats, $dur each)"
want table && printf '  %-10s %-8s %12s %12s\n' storage format cold warm
want table && for s in local blk s3; do
	case $s in
	local) prefix= d=$LOCAL ;;
	blk) prefix="$fx throttled" d=$BLK ;;
	s3) prefix= d=$S3 ;;
	esac
	for f in folder $fmts; do
		p=$d
		[ $f != folder ] && p=$d.$f
		c=$(run_med "$prefix" "$p" --cache cold | cut -d' ' -f1)
		w=$(run_med "$prefix" "$p" --cache warm | cut -d' ' -f1)
		cold[$s.$f]=$c warm[$s.$f]=$w
		printf '  %-10s %-8s %12s %12s\n' $s $f "$c" "$w"
	done
done
want table && echo "-- s3fs cold: wds / folder samples/s: $(ratio "${cold[s3.wds]}" "${cold[s3.folder]}")x (target >= 5x)"

if want s3read; then
	# the storage alone: the shard reader (noop transform) against io
	# reading the folder's files whole, both cold on the s3fs mount
	echo "-- s3fs cold, reading alone (no decode): records/s of wds shards / files/s of the folder"
	r=$("$bbin" -r "$repeats" -d 4 -c read "$S3.wds")
	echo "  $r"
	rps=$(sed -E 's/.*MB\/s, ([0-9.]+) records\/s.*/\1/' <<<"$r")
	fps=$(for i in $(seq "$repeats"); do
		"$bin" io --cache cold --json "$tmp/io.json" "$S3" >/dev/null 2>&1
		jq -r .files_per_s "$tmp/io.json"
	done | median)
	echo "  io --cache cold, folder: $fps files/s"
	echo "  wds / folder, reading alone: $(ratio "$rps" "$fps")x"
fi

want throttle && echo "-- throttled disk (gp3 baseline $((gp3_bps / 1048576)) MiB/s), cold, shard reader alone"
want throttle && for f in wds tfrecord; do
	r=$("$fx" throttled "$bbin" -r "$repeats" -d 4 -c read "$BLK.$f")
	mb=$(sed -E 's/.*: ([0-9.]+) MB\/s.*/\1/' <<<"$r")
	echo "  $r"
	echo "  $f: $(ratio "$mb" "$(awk -v b=$gp3_bps 'BEGIN { print b / 1e6 }')")x the throttle (target >= 0.95x)"
done

if want cpu; then
	# batches of 16 over 10 s: samples are counted in whole batches, and
	# 256-sample batches over a few seconds quantize CPU / sample by ~10 %;
	# the formats take turns, CPU_REPEATS rounds
	echo "-- warm, one vCPU: CPU ms per sample (process CPU / samples; batch 16, 10 s, median of ${CPU_REPEATS:-5})"
	declare -A cpu
	for i in $(seq "${CPU_REPEATS:-5}"); do
		for f in folder wds tfrecord mds; do
			p=$LOCAL
			[ $f != folder ] && p=$LOCAL.$f
			"$bin" run --warmup 2s --duration 10s -g 0 -b 16 --cache warm \
				--vcpus 1 --json "$tmp/run.json" "$p" >/dev/null 2>&1
			jq -r '[1000 * .stages.process_cpu_s / ([.samples, 1] | max), 1000 * .stages.reader_cpu_s / ([.samples, 1] | max)] | @tsv' \
				"$tmp/run.json" >>"$tmp/cpu.$f"
		done
	done
	for f in folder wds tfrecord mds; do
		cpu[$f]=$(cut -f1 "$tmp/cpu.$f" | median)
		printf '  %-8s %.3f ms (reader thread %.3f ms)\n' $f "${cpu[$f]}" "$(cut -f2 "$tmp/cpu.$f" | median)"
	done
	for f in wds tfrecord mds; do
		echo "  $f / folder: $(ratio "${cpu[$f]}" "${cpu[folder]}")x (target <= 1.02x)"
	done
fi

want zstd || exit 0
echo "-- MDS zstd: decompression per core"
ours=$("$bbin" -r "$repeats" zstd "$LOCAL.mdsz")
echo "  $ours"
mb=$(sed -E 's/.*: ([0-9.]+) MB\/s.*/\1/' <<<"$ours")
# the raw shards in one file: zstd -b compresses it at level 3 (as gen
# did) and times decompression on one thread
for z in "$tmp"/mdsz/*.zstd; do zstd -q -d -c "$z"; done >"$tmp/raw.mds"
peer=$(for i in $(seq "$repeats"); do
	zstd -b3 -i2 "$tmp/raw.mds" 2>&1 | tr '\r' '\n' | grep -E 'MB/s, +[0-9.]+ MB/s' | tail -n 1 |
		sed -E 's/.* ([0-9.]+) MB\/s *$/\1/'
done | median)
echo "  zstd -b3 (same shards, decompression): $peer MB/s"
echo "  ours / zstd -b: $(ratio "$mb" "$peer")x (target >= 0.9x)"

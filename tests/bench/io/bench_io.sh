#!/usr/bin/env bash
# Storage benchmark: `feedrate io` against fio's io_uring engine on the same
# files, with the same queue depth and block size, cold (page cache dropped
# before every run) with O_DIRECT:
#   large: two files of 256 MiB          (target >= 0.95x fio's bandwidth)
#   small: a tree of ~100 KB files        (target >= 1.0x fio's bandwidth)
# Runs REPEATS times each, alternating the two tools, and prints medians
# and ratios. Job files: large.fio, small.fio beside this script.
#
#   FEEDRATE_BIN    the -O2 -DNDEBUG build (make bench sets it)
#   BENCH_IO_DIR    where the files live (default /var/tmp/feedrate-bench-io;
#                   made once, kept for later runs)
#   REPEATS         runs per tool and set (default 5, at least 3)
#   BS, DEPTH       block size and queue depth (default 128k, 32)
#   SMALL_FILES     files in the tree (default 3000)
set -u
here=$(cd "$(dirname "$0")" && pwd)
bin=${FEEDRATE_BIN:-./feedrate}
dir=${BENCH_IO_DIR:-/var/tmp/feedrate-bench-io}
repeats=${REPEATS:-5}
[ "$repeats" -lt 3 ] && repeats=3
bs=${BS:-128k}
depth=${DEPTH:-32}
nsmall=${SMALL_FILES:-3000}

command -v fio >/dev/null || { echo "bench_io: fio not installed (Debian package fio)" >&2; exit 1; }
command -v jq >/dev/null || { echo "bench_io: jq not installed (Debian package jq)" >&2; exit 1; }
[ -x "$bin" ] || { echo "bench_io: $bin not built (run 'make bench')" >&2; exit 1; }
case "$(stat -f -c %T "$(dirname "$dir")" 2>/dev/null)" in
tmpfs|ramfs) echo "bench_io: $(dirname "$dir") is memory-backed; set BENCH_IO_DIR to a disk" >&2
	exit 1 ;;
esac

# the data set, made once: two 256 MiB files and NSMALL files of
# 60..140 KB (mean ~100 KB; multiples of 4 KiB, see small.fio) in folders
# of 100
stamp="256M x2, $nsmall small 4k"
if [ "$(cat "$dir.complete" 2>/dev/null)" != "$stamp" ]; then
	echo "bench_io: writing the files under $dir"
	rm -rf "$dir" && mkdir -p "$dir/large" "$dir/small" || exit 1
	for i in 0 1; do
		head -c $((256 << 20)) /dev/urandom > "$dir/large/big$i" || exit 1
	done
	RANDOM=7
	for ((i = 0; i < nsmall; i++)); do
		sub=$dir/small/d$((i / 100))
		[ -d "$sub" ] || mkdir "$sub"
		head -c $(((60000 + (RANDOM * 80000) / 32768) / 4096 * 4096)) \
			/dev/urandom > "$sub/f$i.jpg"
	done
	sync
	echo "$stamp" > "$dir.complete"
fi

can_drop=0
if [ -w /proc/sys/vm/drop_caches ]; then can_drop=1; else
	echo "bench_io: not root: page cache not dropped (O_DIRECT reads only)"; fi
drop() { sync; [ $can_drop = 1 ] && echo 3 > /proc/sys/vm/drop_caches; }

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

run_fio() {  # set -> bytes/s; 0 when fio did not read every byte
	local job=$1 d=$2 total
	total=$(find "$d" -type f -printf '%s\n' | awk '{ s += $1 } END { print s }')
	drop
	DIR=$d BS=$bs DEPTH=$depth fio --output-format=json "$here/$job.fio" 2>/dev/null | sed -n "/^{/,\$p" |
		jq --argjson dirbytes "$total" '([.jobs[].read.io_bytes] | add) as $b |
			if $b < $dirbytes then 0 else [.jobs[].read.bw_bytes] | add end'
}

run_feedrate() {  # set -> bytes/s
	local d=$1
	drop
	"$bin" io --backend uring --direct --cache cold --depth "$depth" \
		--block-size "$bs" --json - "$d" 2>/dev/null | jq '.bw_bytes'
}

status=0
for set in large small; do
	f_out=() p_out=()
	for ((r = 0; r < repeats; r++)); do
		if [ $((r % 2)) = 0 ]; then
			f_out+=("$(run_feedrate "$dir/$set")")
			p_out+=("$(run_fio "$set" "$dir/$set")")
		else
			p_out+=("$(run_fio "$set" "$dir/$set")")
			f_out+=("$(run_feedrate "$dir/$set")")
		fi
	done
	fm=$(printf '%s\n' "${f_out[@]}" | median)
	pm=$(printf '%s\n' "${p_out[@]}" | median)
	target=$([ $set = large ] && echo 0.95 || echo 1.00)
	awk -v s=$set -v f="$fm" -v p="$pm" -v t=$target -v n=$repeats \
	    -v bs=$bs -v qd=$depth -v fr="${f_out[*]}" -v pr="${p_out[*]}" 'BEGIN {
		if (f <= 0 || p <= 0) { printf "io %s: a run failed (feedrate %s, fio %s)\n", s, fr, pr; exit 1 }
		printf "io %-5s bs %s depth %s O_DIRECT cold: feedrate %.1f MB/s, fio %.1f MB/s (medians of %d)  ratio %.3f  target >= %.2f %s\n",
			s, bs, qd, f / 1e6, p / 1e6, n, f / p, t, (f / p >= t) ? "met" : "NOT MET"
		printf "      runs MB/s feedrate:"; m = split(fr, a, " "); for (i = 1; i <= m; i++) printf " %.0f", a[i] / 1e6
		printf "  fio:"; m = split(pr, a, " "); for (i = 1; i <= m; i++) printf " %.0f", a[i] / 1e6; printf "\n"
	}' || status=1
done
exit $status

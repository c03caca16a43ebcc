#!/usr/bin/env bash
# Listing benchmark: the dataset walk (bench_list, built -O2 -DNDEBUG by
# `make bench`) against `find DIR -type f -printf '%s\n'` on a tree of
# 200k small files (1000 folders x 200), warm and after dropping the page
# cache (echo 3 > /proc/sys/vm/drop_caches; needs root, else skipped).
# Prints the median of REPEATS runs of each and the ratio (target <= 1.5).
#
#   BENCH_LIST_DIR   where the tree lives (default /var/tmp/feedrate-bench-list;
#                    created once and kept for later runs)
#   REPEATS          runs per variant (default 5, at least 3)
set -u
here=$(cd "$(dirname "$0")" && pwd)
bin=${BENCH_BIN_DIR:-build/bench/bench}/bench_list
dir=${BENCH_LIST_DIR:-/var/tmp/feedrate-bench-list}
repeats=${REPEATS:-5}
[ "$repeats" -lt 3 ] && repeats=3
ndirs=1000 per=200

if [ ! -x "$bin" ]; then
	echo "bench_list: $bin not built (run 'make bench')" >&2
	exit 1
fi
case "$(stat -f -c %T "$(dirname "$dir")" 2>/dev/null)" in
tmpfs|ramfs) echo "bench_list: $(dirname "$dir") is memory-backed; set BENCH_LIST_DIR to a disk" >&2
	exit 1 ;;
esac

# the tree: 200k files of 0..99 bytes, made once
# (the marker sits beside the tree, not in it)
if [ "$(cat "$dir.complete" 2>/dev/null)" != "$ndirs x $per" ]; then
	echo "bench_list: creating $((ndirs * per)) files under $dir"
	rm -rf "$dir" && mkdir -p "$dir" || exit 1
	python3 - "$dir" "$ndirs" "$per" <<'PY' || exit 1
import os, sys
root, ndirs, per = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for d in range(ndirs):
    sub = os.path.join(root, "n%08d" % d)
    os.mkdir(sub)
    for f in range(per):
        with open(os.path.join(sub, "n%08d_%d.JPEG" % (d, f)), "wb") as fh:
            fh.write(b"x" * ((d * per + f) % 100))
PY
	sync
	echo "$ndirs x $per" > "$dir.complete"
fi

# correctness first: same number of files and bytes as find
want=$(find "$dir" -type f -printf '%s\n' | awk '{n++; s+=$1} END {print n, s}')
got=$("$bin" "$dir" | awk '{print $1, $2}')
if [ "$want" != "$got" ]; then
	echo "bench_list: mismatch: find says '$want', bench_list '$got'" >&2
	exit 1
fi

now() { date +%s%N; }
can_drop=0
if [ -w /proc/sys/vm/drop_caches ]; then can_drop=1; fi

# time_one MODE CMD...: runs CMD once, prints seconds
time_one() {
	local mode=$1; shift
	if [ "$mode" = cold ]; then sync; echo 3 > /proc/sys/vm/drop_caches; fi
	local t0 t1
	t0=$(now)
	"$@" > /dev/null
	t1=$(now)
	echo "$(( (t1 - t0) / 1000 ))"   # microseconds
}

median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

status=0
for mode in warm cold; do
	if [ "$mode" = cold ] && [ $can_drop -eq 0 ]; then
		echo "list cold: skipped (cannot write /proc/sys/vm/drop_caches)"
		continue
	fi
	# warm-up so that "warm" means warm
	[ "$mode" = warm ] && { find "$dir" -type f -printf '%s\n' >/dev/null; "$bin" "$dir" >/dev/null; }
	f_times=() b_times=()
	for ((i = 0; i < repeats; i++)); do
		# alternate the order so that neither always runs first
		if (( i % 2 )); then
			b_times+=("$(time_one $mode "$bin" "$dir")")
			f_times+=("$(time_one $mode find "$dir" -type f -printf '%s\n')")
		else
			f_times+=("$(time_one $mode find "$dir" -type f -printf '%s\n')")
			b_times+=("$(time_one $mode "$bin" "$dir")")
		fi
	done
	fm=$(printf '%s\n' "${f_times[@]}" | median)
	bm=$(printf '%s\n' "${b_times[@]}" | median)
	ratio=$(awk -v b="$bm" -v f="$fm" 'BEGIN {printf "%.2f", b / f}')
	ok=$(awk -v r="$ratio" 'BEGIN {print (r <= 1.5) ? "ok" : "SLOWER THAN TARGET"}')
	printf 'list %s: %d files, median of %d: feedrate %.1f ms, find %.1f ms, ratio %s (target <= 1.5: %s)\n' \
		"$mode" $((ndirs * per)) "$repeats" "$(awk -v v="$bm" 'BEGIN{print v/1000}')" \
		"$(awk -v v="$fm" 'BEGIN{print v/1000}')" "$ratio" "$ok"
	[ "$ok" = ok ] || status=1
done
exit $status

#!/usr/bin/env bash
# Preparation at ImageNet's size: trees of distinct small JPEGs (every
# file its own inode, ~1.4 KB, ImageFolder class folders) of 128,117 and
# 1,281,167 files, made by bench_prep_tree under /var/tmp (a disk, not
# tmpfs). For each size:
#   - bench_prep: the listing, eviction through the ring and by calls,
#     the sampled verification and warming, each timed, and the peak RSS
#     of the listing (the 1.28 M one against the 128 k one: <= 100 MB more);
#     beside it, the previous release's per-file loops (fdatasync per file,
#     one thread) timed on 65,536 files and projected to the tree;
#   - `feedrate run --cache cold|warm --duration 1 --warmup 0`: wall time
#     and its prepare{} phases, beside the same command of a peer binary
#     (BENCH_PREP_PEER, e.g. the previous release's feedrate) where given;
#   - with BENCH_PREP_SWEEP=1, the default `sweep` on the largest tree:
#     wall time, its prepare{} and the points measured.
# The machine may be shared: run nothing else meanwhile, and read the
# figures as one run each (REPEATS, default 1, runs each command again and
# prints the median).
#
#   BENCH_PREP_DIR     where the trees live (default /var/tmp/feedrate-bench-prep)
#   BENCH_PREP_SIZES   file counts (default "128117 1281167")
#   BENCH_PREP_KEEP=1  keep the trees (default: removed at the end)
set -u
bindir=${BENCH_BIN_DIR:-build/bench/bench}
fr=${FEEDRATE_BIN:-build/bench/feedrate}
peer=${BENCH_PREP_PEER:-}
base=${BENCH_PREP_DIR:-/var/tmp/feedrate-bench-prep}
sizes=${BENCH_PREP_SIZES:-128117 1281167}
repeats=${REPEATS:-1}

for b in "$bindir/bench_prep_tree" "$bindir/bench_prep" "$fr"; do
	if [ ! -x "$b" ]; then
		echo "bench_prep: $b not built (run 'make bench')" >&2
		exit 1
	fi
done
case "$(stat -f -c %T "$(dirname "$base")" 2>/dev/null)" in
tmpfs|ramfs) echo "bench_prep: $(dirname "$base") is memory-backed; set BENCH_PREP_DIR to a disk" >&2
	exit 1 ;;
esac
command -v python3 >/dev/null || { echo "bench_prep: needs python3" >&2; exit 1; }

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# one `run` of BIN on DIR in cache state C: "wall list evict warm verify"
run_once() {
	local bin=$1 dir=$2 c=$3 json t0 t1
	json=$(mktemp)
	t0=$(date +%s.%N)
	"$bin" run --cache "$c" --duration 1 --warmup 0 --json "$json" "$dir" \
		>/dev/null 2>&1
	t1=$(date +%s.%N)
	python3 - "$json" "$t0" "$t1" <<'PY'
import json, sys
try:
    p = json.load(open(sys.argv[1])).get("prepare") or {}
except Exception:
    p = {}
g = lambda k: "%.2f" % p[k] if k in p else "-"
print("%.2f" % (float(sys.argv[3]) - float(sys.argv[2])),
      g("list_s"), g("evict_s"), g("warm_s"), g("verify_s"))
PY
	rm -f "$json"
}

status=0
for n in $sizes; do
	dir=$base/$n
	if [ "$(cat "$dir.complete" 2>/dev/null)" != "$n" ]; then
		echo "bench_prep: writing $n files under $dir"
		rm -rf "$dir" && mkdir -p "$base" || exit 1
		"$bindir/bench_prep_tree" "$dir" "$n" 1000 || exit 1
		sync
		echo "$n" > "$dir.complete"
	fi
	echo "--- $n files"
	# the peer: the previous release's per-file loops, on 65,536 files
	# spread over the tree, projected to all of it
	"$bindir/bench_prep" "$dir" old | grep -v peak_rss
	"$bindir/bench_prep" "$dir" evict-calls | grep -v peak_rss
	"$bindir/bench_prep" "$dir" all
	# each binary runs cold then warm, so that both warm from evicted
	declare -A wall=()
	for who in feedrate peer; do
		bin=$fr
		if [ "$who" = peer ]; then
			[ -n "$peer" ] || continue
			bin=$peer
		fi
		for c in cold warm; do
			rows=$(for _ in $(seq "$repeats"); do run_once "$bin" "$dir" "$c"; done)
			wall[$who$c]=$(echo "$rows" | awk '{print $1}' | median)
			echo "run --cache $c ($who): wall ${wall[$who$c]} s (median of $repeats);" \
			     "list/evict/warm/verify s of the last: $(echo "$rows" | tail -1 | cut -d' ' -f2-)"
		done
	done
	for c in cold warm; do
		[ -n "${wall[peer$c]:-}" ] || continue
		awk -v a="${wall[peer$c]}" -v b="${wall[feedrate$c]}" -v c="$c" \
			'BEGIN { if (b > 0) printf "run --cache %s: peer / feedrate wall = %.1f\n", c, a / b }'
	done
	unset wall
done

if [ "${BENCH_PREP_SWEEP:-0}" = 1 ]; then
	n=${sizes##* }
	json=$(mktemp)
	t0=$(date +%s.%N)
	"$fr" sweep --json "$json" "$base/$n" >/dev/null 2>&1 || status=1
	t1=$(date +%s.%N)
	python3 - "$json" "$t0" "$t1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
p = d.get("prepare", {})
print("sweep (default budget) on the largest tree: wall %.1f s, budget %s s"
      % (float(sys.argv[3]) - float(sys.argv[2]), d["budget"]["budget_s"]))
print("  prepare:", {k: p.get(k) for k in ("list_s", "evict_s", "warm_s",
      "verify_s", "files", "verify_sample", "verify_bound", "reused")})
for pt in d["points"]:
    print("  point %2d vCPU %-4s %-9s %s" % (pt["vcpus"], pt["cache"],
          pt["status"], pt.get("why") or ""))
PY
	rm -f "$json"
fi

if [ "${BENCH_PREP_KEEP:-0}" != 1 ]; then
	for n in $sizes; do rm -rf "$base/$n" "$base/$n.complete"; done
	rmdir "$base" 2>/dev/null
fi
exit $status

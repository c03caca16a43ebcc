#!/usr/bin/env bash
# What opening a shard dataset costs on the s3fs fixture (s3rver on
# loopback behind Debian's s3fs), by where the counts come from: a walk
# (a small read per tar member or TFRecord record, each a round trip on an
# object store), DALI's .idx beside TFRecord shards, the count cache, and
# info's estimate. Two datasets: the fixture's folder converted at 8M
# shards (about 560 records), and 50,000 small records (one 48x48 JPEG
# each). Prints medians over REPEATS runs of `info`'s count_s and wall
# time, and `run`'s prepare.list_s (listing and counting: what comes
# before the first sample is read), for FEEDRATE_BIN and, when set,
# BEFORE_BIN (an older build, the same commands; it has no cache).
#
#   FEEDRATE_BIN   the build measured (default build/default/feedrate)
#   BEFORE_BIN     a build to hold it against (optional)
#   REPEATS        runs per figure (default 3)
#   FEEDRATE_FIXTURE_DIR   the fixtures' state folder
# Needs root, FUSE, s3fs and node (as tests/storage_fixtures), jq and
# Debian's python3 with PIL (/usr/bin/python3); skips where they are
# missing.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
fx="$root/tests/storage_fixtures/fixtures.sh"
bin=${FEEDRATE_BIN:-$root/build/default/feedrate}
before=${BEFORE_BIN:-}
repeats=${REPEATS:-3}
py=/usr/bin/python3
export FEEDRATE_BIN=$bin
export FIXTURE_SIZE=${FIXTURE_SIZE:-60M}

command -v jq >/dev/null || { echo "bench_count: jq not installed"; exit 0; }
$py -c 'import PIL' 2>/dev/null || { echo "bench_count: no PIL in $py"; exit 0; }
out=$("$fx" start --owner $$ s3 2>&1)
rc=$?
if [ $rc -eq 77 ]; then
	echo "bench_count: skipped: $(grep -o 'skip: .*' <<<"$out" | head -n 1)"
	exit 0
fi
[ $rc -eq 0 ] || { echo "bench_count: fixtures failed to start:"; echo "$out"; exit 1; }
S3=$(sed -n 's/^FIXTURE_S3=//p' <<<"$out")
tmp=$(mktemp -d /var/tmp/bench-count.XXXXXX)
trap '"$fx" stop >/dev/null 2>&1; rm -rf "$tmp"' EXIT

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# 50,000 small images, one class
$py - "$tmp/tiny/train/c0" <<'EOF'
import io, os, sys
from PIL import Image
d = sys.argv[1]
os.makedirs(d)
for i in range(50000):
    im = Image.new("RGB", (48, 48), ((i * 7) % 256, (i * 13) % 256, 90))
    im.save(os.path.join(d, "img_%05d.jpg" % i), quality=90)
EOF
for src in "$S3/train:561" "$tmp/tiny/train:50k"; do
	n=${src##*:}
	for f in wds tfrecord; do
		"$bin" gen -q --from "${src%:*}" --format $f --shard-size 8M \
			"$tmp/$f$n" >/dev/null ||
			{ echo "bench_count: gen --from $f failed"; exit 1; }
	done
	# DALI's tfrecord2idx beside each shard: "offset size" per record
	cp -r "$tmp/tfrecord$n" "$tmp/tfridx$n"
	$py - "$tmp/tfridx$n" <<'EOF'
import os, struct, sys
d = sys.argv[1]
for name in sorted(os.listdir(d)):
    p = os.path.join(d, name)
    size, off, lines = os.path.getsize(p), 0, []
    with open(p, "rb") as f:
        while off < size:
            f.seek(off)
            (n,) = struct.unpack("<Q", f.read(8))
            lines.append("%d %d\n" % (off, n + 16))
            off += n + 16
    with open(p + ".idx", "w") as o:
        o.writelines(lines)
EOF
	for f in wds tfrecord tfridx; do
		rm -rf "$S3.$f$n"
		cp -r "$tmp/$f$n" "$S3.$f$n" ||
			{ echo "bench_count: copy to s3 failed"; exit 1; }
		# older than the count cache's 2 s: as a dataset is
		touch -d '-1 min' "$S3.$f$n"/*
	done
done
sync

# info_med BIN DIR CACHE_MODE -> "count_ms wall_ms records source"
# CACHE_MODE fresh: an empty count cache before each run; kept: one
# primed by a first run
info_med() {
	local b=$1 d=$2 mode=$3 i t0 t1
	export XDG_CACHE_HOME=$tmp/xdg
	rm -rf "$XDG_CACHE_HOME"
	[ "$mode" = kept ] && "$b" run -g 0 --warmup 0 --duration 1s \
		"$d" >/dev/null 2>&1
	for i in $(seq "$repeats"); do
		[ "$mode" = fresh ] && rm -rf "$XDG_CACHE_HOME"
		t0=$(date +%s%N)
		"$b" info --steal-interval 0 --json "$tmp/i.json" "$d" \
			>/dev/null 2>&1
		t1=$(date +%s%N)
		printf '%s %s\n' "$(jq -r '.dataset.count_s * 1000' "$tmp/i.json")" \
			$(((t1 - t0) / 1000000))
	done >"$tmp/i.tsv"
	printf '%8.1f %8.0f %7s %s\n' "$(cut -d' ' -f1 "$tmp/i.tsv" | median)" \
		"$(cut -d' ' -f2 "$tmp/i.tsv" | median)" \
		"$(jq -r .dataset.records "$tmp/i.json")" \
		"$(jq -r '.dataset.records_source // "(walk)"' "$tmp/i.json")"
}

# run_med BIN DIR CACHE_MODE -> "list_ms records source"
run_med() {
	local b=$1 d=$2 mode=$3 i
	export XDG_CACHE_HOME=$tmp/xdg
	rm -rf "$XDG_CACHE_HOME"
	[ "$mode" = kept ] && "$b" run -g 0 --warmup 0 --duration 1s \
		"$d" >/dev/null 2>&1
	for i in $(seq "$repeats"); do
		[ "$mode" = fresh ] && rm -rf "$XDG_CACHE_HOME"
		"$b" run -g 0 --warmup 0 --duration 1s --json "$tmp/r.json" "$d" \
			>/dev/null 2>&1
		jq -r '.prepare.list_s * 1000' "$tmp/r.json"
	done >"$tmp/r.tsv"
	printf '%8.1f %7s %s\n' "$(median <"$tmp/r.tsv")" \
		"$(jq -r .dataset.records "$tmp/r.json")" \
		"$(jq -r '.dataset.records_source // "(walk)"' "$tmp/r.json")"
}

echo "-- s3fs: opening a shard dataset (median of $repeats; ms)"
echo "   build   dataset       cache  | info: count_ms wall_ms records source | run: list_ms records source"
for n in 561 50k; do
	for f in wds tfrecord tfridx; do
		for b in before after; do
			case $b in
			before) [ -n "$before" ] || continue; B=$before ;;
			after) B=$bin ;;
			esac
			for mode in fresh kept; do
				[ $b = before ] && [ $mode = kept ] && continue
				printf '   %-7s %-13s %-6s | %s | %s\n' $b "$f$n" $mode \
					"$(info_med "$B" "$S3.$f$n" $mode)" \
					"$(run_med "$B" "$S3.$f$n" $mode)"
			done
		done
	done
done

#!/usr/bin/env bash
# End-to-end speed of `feedrate run` (reads + decode + augment + batches,
# the whole pipeline) on a generated imagenet set, warm page cache, no GPU
# consumer (--gpus 0: the raw feed rate), against peers on the same files:
#   per core   feedrate --vcpus 1 vs libjpeg-turbo full decode only
#              (tests/bench/augment's bench_augment, one pinned CPU)
#                                                       -> target >= 1.0x
#   per core   feedrate --vcpus 1 vs the best PyTorch DataLoader run on one
#              CPU (tests/bench/augment/torch_peer.py, num_workers=0, plain
#              and malloc-tuned; the faster counts)      -> target >= 2.5x
#   all cores  feedrate --vcpus N vs PyTorch DataLoader with N worker
#              processes (torch_workers.py here), wall images/s
#                                                       -> target >= 2.5x
#   scaling    CPU seconds per image (whole process) at --vcpus 2 within
#              10 % of --vcpus 1
# Per-core rates are images per CPU-second of the measured process (user +
# system), as bench_augment and torch_peer.py measure theirs, so other load
# on a shared machine does not count against either side; the wall rates are
# printed beside. All figures are medians over the repeats.
#
# Environment:
#   FEEDRATE_BIN, BENCH_BIN_DIR  set by `make bench`
#   BENCH_E2E_DATA=DIR           use this dataset instead of generating one
#   BENCH_E2E_SIZE=128M          size of the generated set
#   BENCH_E2E_REPEATS=3          repeats per measurement
#   BENCH_E2E_DURATION=8         measured seconds per feedrate run
#   BENCH_STRICT=1               exit 1 when a target is missed
# PyTorch parts are skipped, with a message, when /usr/bin/python3 cannot
# import torch and torchvision.
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
cd "$top" || exit 1

feedrate=${FEEDRATE_BIN:-build/bench/feedrate}
bench_aug=${BENCH_BIN_DIR:-build/bench/bench}/bench_augment
size=${BENCH_E2E_SIZE:-128M}
repeats=${BENCH_E2E_REPEATS:-3}
duration=${BENCH_E2E_DURATION:-8}
py=/usr/bin/python3

die() { echo "bench_e2e: $*" >&2; exit 1; }
[ -x "$feedrate" ] || die "$feedrate not built (run 'make bench')"

tmp=
# shellcheck disable=SC2317  # called by the EXIT trap
cleanup() { if [ -n "$tmp" ]; then rm -rf "$tmp"; fi; }
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
tmp=$(mktemp -d /var/tmp/feedrate-bench-e2e.XXXXXX) ||
	die "cannot make a folder under /var/tmp"

if [ -n "${BENCH_E2E_DATA:-}" ]; then
	data=$BENCH_E2E_DATA
	[ -d "$data" ] || die "BENCH_E2E_DATA=$data is not a folder"
else
	data=$tmp/set
	echo "bench_e2e: generating $size: $feedrate gen --workload imagenet --size $size -q $data"
	"$feedrate" gen --workload imagenet --size "$size" -q "$data" ||
		die "feedrate gen failed"
fi
root=$data
[ -d "$data/train" ] && root=$data/train

allowed=$(taskset -pc $$ 2>/dev/null | sed 's/.*: //')
ncpu=$(nproc)
# the CPU --vcpus 1 picks is the lowest-numbered one; pin peers there too
cpu1=$(printf '%s\n' "$allowed" | tr ',' '\n' | head -n 1 | sed 's/-.*//')
pin1=(taskset -c "$cpu1")

median() { sort -g | awk '{ a[NR] = $1 } END { if (NR) print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
jget() { "$py" -c 'import json, sys
d = json.load(open(sys.argv[1]))
for k in sys.argv[2:]:
    d = d[k]
print(d)' "$@"; }

# feedrate run --vcpus K: prints "wall_rate cpu_rate cpu_s_per_image"
fr_run() {
	local k=$1 js=$tmp/run.json
	"$feedrate" run --workload imagenet --cache warm --gpus 0 --vcpus "$k" \
		--duration "$duration" --json "$js" "$data" >"$tmp/run.txt" 2>&1 ||
		{ cat "$tmp/run.txt"; die "feedrate run --vcpus $k failed"; }
	local sps samples cpu
	sps=$(jget "$js" samples_per_s)
	samples=$(jget "$js" samples)
	cpu=$(jget "$js" stages process_cpu_s)
	awk -v s="$sps" -v n="$samples" -v c="$cpu" \
		'BEGIN { printf "%.1f %.1f %.4g\n", s, n / c, c / n * 1e3 }'
}

echo "bench_e2e: $(ls -R "$root" | grep -ci '\.jpe\?g$') images in $root; $ncpu CPUs ($allowed); $repeats repeats of ${duration}s; load average $(cut -d' ' -f1-3 /proc/loadavg)"
declare -a w1 c1 s1 wn cn sn w2 c2 s2
for ((i = 0; i < repeats; i++)); do
	read -r a b c <<<"$(fr_run 1)"; w1+=("$a"); c1+=("$b"); s1+=("$c")
	echo "  feedrate --vcpus 1: $a img/s wall, $b img/CPU-s, $c CPU-ms/img"
	if [ "$ncpu" -ge 2 ]; then
		read -r a b c <<<"$(fr_run 2)"; w2+=("$a"); c2+=("$b"); s2+=("$c")
		echo "  feedrate --vcpus 2: $a img/s wall, $b img/CPU-s, $c CPU-ms/img"
	fi
	if [ "$ncpu" -gt 2 ]; then
		read -r a b c <<<"$(fr_run "$ncpu")"; wn+=("$a"); cn+=("$b"); sn+=("$c")
		echo "  feedrate --vcpus $ncpu: $a img/s wall, $b img/CPU-s, $c CPU-ms/img"
	fi
done
fr1_wall=$(printf '%s\n' "${w1[@]}" | median)
fr1_cpu=$(printf '%s\n' "${c1[@]}" | median)
fr1_ms=$(printf '%s\n' "${s1[@]}" | median)
if [ "$ncpu" -ge 2 ]; then
	fr2_wall=$(printf '%s\n' "${w2[@]}" | median)
	fr2_ms=$(printf '%s\n' "${s2[@]}" | median)
fi
if [ "$ncpu" -gt 2 ]; then
	frn_wall=$(printf '%s\n' "${wn[@]}" | median)
	frn_cpu=$(printf '%s\n' "${cn[@]}" | median)
elif [ "$ncpu" -eq 2 ]; then
	frn_wall=$fr2_wall
	frn_cpu=$(printf '%s\n' "${c2[@]}" | median)
else
	frn_wall=$fr1_wall
	frn_cpu=$fr1_cpu
fi

decode=
if [ -x "$bench_aug" ]; then
	out=$("${pin1[@]}" "$bench_aug" --repeats "$repeats" --no-train-full "$root") ||
		{ printf '%s\n' "$out"; die "$bench_aug failed"; }
	decode=$(printf '%s\n' "$out" | sed -n 's/^result:.* decode_rate=\([^ ]*\).*/\1/p' | head -n 1)
	[ -n "$decode" ] || { printf '%s\n' "$out"; die "no decode_rate from $bench_aug"; }
	echo "  decode only (bench_augment, CPU $cpu1): $decode img/CPU-s"
else
	echo "bench_e2e: $bench_aug not built: the decode-only peer is skipped"
fi

torch1= torchn=
if "$py" -c 'import torch, torchvision' >/dev/null 2>&1; then
	tuned=(MALLOC_MMAP_THRESHOLD_=33554432 MALLOC_TRIM_THRESHOLD_=1073741824
	       MALLOC_TOP_PAD_=268435456)
	for variant in plain tuned; do
		if [ $variant = plain ]; then
			envs=(env -u MALLOC_MMAP_THRESHOLD_ -u MALLOC_TRIM_THRESHOLD_
			      -u MALLOC_TOP_PAD_)
		else
			envs=(env "${tuned[@]}")
		fi
		out=$("${envs[@]}" "${pin1[@]}" "$py" tests/bench/augment/torch_peer.py \
			--repeats "$repeats" "$root") ||
			{ printf '%s\n' "$out"; die "torch_peer ($variant) failed"; }
		r=$(printf '%s\n' "$out" | sed -n 's/^torch_peer:.* rate_median=\([^ ]*\).*/\1/p')
		[ -n "$r" ] || { printf '%s\n' "$out"; die "torch_peer: no rate"; }
		echo "  pytorch 1 CPU, num_workers=0, $variant malloc: $r img/CPU-s"
		torch1=$(awk -v a="${torch1:-0}" -v b="$r" 'BEGIN { print (b > a ? b : a) }')
	done
	out=$("$py" "$here/torch_workers.py" --workers "$ncpu" --repeats "$repeats" "$root") ||
		{ printf '%s\n' "$out"; die "torch_workers failed"; }
	torchn=$(printf '%s\n' "$out" | sed -n 's/^torch_workers:.* rate_median=\([^ ]*\).*/\1/p')
	torchn_cpu=$(printf '%s\n' "$out" | sed -n 's/^torch_workers:.* cpu_rate_median=\([^ ]*\).*/\1/p')
	[ -n "$torchn" ] || { printf '%s\n' "$out"; die "torch_workers: no rate"; }
	echo "  pytorch $ncpu CPUs, num_workers=$ncpu: $torchn img/s wall, $torchn_cpu img/CPU-s (main + workers)"
else
	echo "bench_e2e: PyTorch peers skipped: $py cannot import torch and torchvision (Debian packages python3-torch python3-torchvision)"
fi

status=0
check() { # label value target
	local ok
	ok=$(awk -v v="$2" -v t="$3" 'BEGIN { print (v >= t) ? "met" : "NOT met" }')
	printf '  %-44s %7.2fx  (target >= %sx: %s)\n' "$1" "$2" "$3" "$ok"
	[ "$ok" = met ] || status=1
}
echo "--- summary (medians of $repeats; load average now $(cut -d' ' -f1-3 /proc/loadavg))"
printf '  feedrate --vcpus 1         %8.1f img/CPU-s (%.1f img/s wall)\n' "$fr1_cpu" "$fr1_wall"
if [ -n "$decode" ]; then
	printf '  decode only, 1 CPU         %8.1f img/CPU-s\n' "$decode"
	check "feedrate 1 vCPU / decode only" "$(awk -v a="$fr1_cpu" -v b="$decode" 'BEGIN { print a / b }')" 1.0
fi
if [ -n "$torch1" ]; then
	printf '  pytorch best, 1 CPU        %8.1f img/CPU-s\n' "$torch1"
	check "feedrate 1 vCPU / pytorch best 1 CPU" "$(awk -v a="$fr1_cpu" -v b="$torch1" 'BEGIN { print a / b }')" 2.5
	printf '  feedrate all %d vCPUs       %8.1f img/s wall (%.1f img/CPU-s)\n' "$ncpu" "$frn_wall" "$frn_cpu"
	printf '  pytorch %d workers          %8.1f img/s wall (%.1f img/CPU-s)\n' "$ncpu" "$torchn" "$torchn_cpu"
	check "feedrate all / pytorch $ncpu workers, wall" "$(awk -v a="$frn_wall" -v b="$torchn" 'BEGIN { print a / b }')" 2.5
	# on a shared machine the wall rates carry other users' load; the
	# rate per CPU-second of each side does not
	awk -v a="$frn_cpu" -v b="$torchn_cpu" 'BEGIN { if (b > 0)
		printf "  %-44s %7.2fx  (same ratio per CPU-second, for a loaded machine)\n",
			"feedrate all / pytorch, per CPU-second", a / b }'
fi
if [ -n "${fr2_ms:-}" ]; then
	d=$(awk -v a="$fr2_ms" -v b="$fr1_ms" 'BEGIN { printf "%.1f", (a / b - 1) * 100 }')
	ok=$(awk -v d="$d" 'BEGIN { print (d <= 10) ? "met" : "NOT met" }')
	printf '  CPU ms/image: --vcpus 1 %.3f, --vcpus 2 %.3f: %+.1f %% (target within +10 %%: %s)\n' \
		"$fr1_ms" "$fr2_ms" "$d" "$ok"
	[ "$ok" = met ] || status=1
fi
if [ "$status" -ne 0 ] && [ "${BENCH_STRICT:-0}" = 1 ]; then
	exit 1
fi
exit 0

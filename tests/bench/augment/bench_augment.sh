#!/usr/bin/env bash
# Per-core speed of feedrate's ImageNet train transform (decode +
# RandomResizedCrop 224 + flip + normalize to CHW float32) on a generated
# set of a few thousand JPEGs, against two peers on the same files:
#   (a) libjpeg-turbo full decode only, same process, same decoder settings
#       (JDCT_ISLOW, fancy upsampling, RGB output)    -> target >= 1.0x
#   (b) PyTorch DataLoader + torchvision (ImageFolder/PIL, RandomResizedCrop,
#       RandomHorizontalFlip, ToTensor, Normalize, num_workers=0, one
#       thread), run plain and with glibc malloc tuned against page faults;
#       the faster of the two counts                  -> target >= 2.5x
# Every measured process is pinned to the same single CPU. Storage is out of
# the picture: the C side reads every file into memory before timing, the
# PyTorch peer reads every file once first so its reads hit the page cache.
# Rates are images per CPU-second (user + system) of the measured process,
# medians over the repeats; wall-clock rates are printed beside them.
#
# Environment:
#   FEEDRATE_BIN, BENCH_BIN_DIR   set by `make bench`
#   BENCH_AUGMENT_DATA=DIR        use this dataset (ImageFolder root or its
#                                 parent) instead of generating one
#   BENCH_AUGMENT_SIZE=256M       size of the generated set
#   BENCH_AUGMENT_REPEATS=3       timed passes per mode
#   BENCH_AUGMENT_CPU=N           CPU to pin to (default: the last one allowed)
#   BENCH_AUGMENT_TORCH_BATCH=32  DataLoader batch size
#   BENCH_STRICT=1                exit 1 when a target is missed
# PyTorch is skipped, with a message, when /usr/bin/python3 cannot import
# torch and torchvision (Debian: python3-torch python3-torchvision).
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
cd "$top" || exit 1

feedrate=${FEEDRATE_BIN:-build/bench/feedrate}
bench=${BENCH_BIN_DIR:-build/bench/bench}/bench_augment
size=${BENCH_AUGMENT_SIZE:-256M}
repeats=${BENCH_AUGMENT_REPEATS:-3}
batch=${BENCH_AUGMENT_TORCH_BATCH:-32}
py=/usr/bin/python3

die() { echo "bench_augment: $*" >&2; exit 1; }

[ -x "$bench" ] || die "$bench not built (run 'make bench')"

# One CPU for every measured process.
if command -v taskset >/dev/null 2>&1; then
	cpu=${BENCH_AUGMENT_CPU:-$(taskset -pc $$ | sed 's/.*: //' |
		tr ',' '\n' | tail -n 1 | sed 's/.*-//')}
	pin=(taskset -c "$cpu")
else
	cpu=unpinned
	pin=()
	echo "bench_augment: WARNING: taskset missing, processes are not pinned"
fi

tmp=
# shellcheck disable=SC2317  # called by the EXIT trap
cleanup() { if [ -n "$tmp" ]; then rm -rf "$tmp"; fi; }
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if [ -n "${BENCH_AUGMENT_DATA:-}" ]; then
	data=$BENCH_AUGMENT_DATA
	[ -d "$data" ] || die "BENCH_AUGMENT_DATA=$data is not a folder"
else
	[ -x "$feedrate" ] || die "$feedrate not built (run 'make bench')"
	tmp=$(mktemp -d /var/tmp/feedrate-bench-augment.XXXXXX) ||
		die "cannot make a folder under /var/tmp"
	data=$tmp/set
	echo "bench_augment: generating $size: $feedrate gen --workload imagenet --size $size -q $data"
	"$feedrate" gen --workload imagenet --size "$size" -q "$data" ||
		die "feedrate gen failed"
fi
# ImageFolder root: class folders right below it.
root=$data
[ -d "$data/train" ] && root=$data/train

echo "bench_augment: every measured process pinned to CPU $cpu; $repeats repeats; load average $(cut -d' ' -f1-3 /proc/loadavg) (other work on CPU $cpu slows every rate here)"
c_out=$("${pin[@]}" "$bench" --repeats "$repeats" "$root") ||
	{ printf '%s\n' "$c_out"; die "$bench failed"; }
printf '%s\n' "$c_out"

# key=value from a line that starts with PREFIX
field() { printf '%s\n' "$1" | sed -n "s/^$2.* $3=\([^ ]*\).*/\1/p" | head -n 1; }

train=$(field "$c_out" "result:" train_rate)
decode=$(field "$c_out" "result:" decode_rate)
if [ -z "$train" ] || [ -z "$decode" ]; then
	die "no result line from $bench"
fi

status=0
awk -v t="$train" -v d="$decode" 'BEGIN { exit !(t >= d) }' || status=1

torch_best=
if "$py" -c 'import torch, torchvision' >/dev/null 2>&1; then
	# glibc malloc tuned so that the steady state takes no page faults:
	# a fixed mmap threshold of 32 MiB (glibc's maximum) keeps decoded
	# images and batches on the heap, a 1 GiB trim threshold keeps freed
	# heap memory mapped, a 256 MiB top pad grows the heap in big steps.
	tuned=(MALLOC_MMAP_THRESHOLD_=33554432 MALLOC_TRIM_THRESHOLD_=1073741824
	       MALLOC_TOP_PAD_=268435456)
	for variant in plain tuned; do
		if [ $variant = plain ]; then
			envs=(env -u MALLOC_MMAP_THRESHOLD_ -u MALLOC_TRIM_THRESHOLD_
			      -u MALLOC_TOP_PAD_ -u MALLOC_ARENA_MAX)
		else
			envs=(env "${tuned[@]}")
		fi
		out=$("${envs[@]}" "${pin[@]}" "$py" "$here/torch_peer.py" \
			--repeats "$repeats" --batch "$batch" "$root") ||
			{ printf '%s\n' "$out"; die "torch peer ($variant) failed"; }
		rate=$(field "$out" "torch_peer:" rate_median)
		[ -n "$rate" ] || { printf '%s\n' "$out"; die "torch peer ($variant): no rate"; }
		printf 'pytorch %-5s %s\n' "$variant" "${out#torch_peer: }"
		if [ $variant = plain ]; then torch_plain=$rate; else torch_tuned=$rate; fi
	done
	torch_best=$(awk -v a="$torch_plain" -v b="$torch_tuned" \
		'BEGIN { print (a > b ? a : b) }')
	echo "pytorch best: $torch_best img/s per core (plain $torch_plain, tuned $torch_tuned; tuned/plain $(awk -v a="$torch_plain" -v b="$torch_tuned" 'BEGIN { printf "%.2fx", b / a }'))"
else
	echo "bench_augment: PyTorch peer skipped: $py cannot import torch and torchvision (Debian packages python3-torch python3-torchvision)"
fi

echo "--- summary (images per CPU-second on one CPU, medians of $repeats; load average now $(cut -d' ' -f1-3 /proc/loadavg))"
printf '  feedrate train transform  %8.1f img/s\n' "$train"
printf '  libjpeg-turbo decode only %8.1f img/s\n' "$decode"
awk -v t="$train" -v d="$decode" 'BEGIN {
	printf "  train / decode-only       %8.2fx  (target >= 1.0x: %s)\n",
		t / d, (t >= d ? "met" : "NOT met") }'
if [ -n "$torch_best" ]; then
	printf '  pytorch best              %8.1f img/s\n' "$torch_best"
	awk -v t="$train" -v p="$torch_best" 'BEGIN {
		printf "  train / pytorch best      %8.2fx  (target >= 2.5x: %s)\n",
			t / p, (t >= 2.5 * p ? "met" : "NOT met") }'
	awk -v t="$train" -v p="$torch_best" 'BEGIN { exit !(t >= 2.5 * p) }' ||
		status=1
fi
if [ "$status" -ne 0 ] && [ "${BENCH_STRICT:-0}" = 1 ]; then
	exit 1
fi
exit 0

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
# medians over the rounds; the C side prints wall-clock rates beside them.
#
# Environment:
#   FEEDRATE_BIN, BENCH_BIN_DIR   set by `make bench`
#   BENCH_AUGMENT_DATA=DIR        use this dataset (ImageFolder root or its
#                                 parent) instead of generating one
#   BENCH_AUGMENT_SIZE=256M       size of the generated set
#   BENCH_AUGMENT_REPEATS=3       rounds (one timed pass per program each)
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

# key=value from the line that starts with PREFIX: field TEXT PREFIX KEY
field() { printf '%s\n' "$1" | sed -n "s/^$2.* $3=\([^ ]*\).*/\1/p" | head -n 1; }
# median of the numbers given as arguments
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 }
	END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

have_torch=0
if "$py" -c 'import torch, torchvision' >/dev/null 2>&1; then
	have_torch=1
else
	echo "bench_augment: PyTorch peer skipped: $py cannot import torch and torchvision (Debian packages python3-torch python3-torchvision)"
fi
# glibc malloc tuned so that the steady state takes no page faults: a fixed
# mmap threshold of 32 MiB (glibc's maximum) keeps decoded images and
# batches on the heap, a 1 GiB trim threshold keeps freed heap memory
# mapped, a 256 MiB top pad grows the heap in big steps.
env_plain=(env -u MALLOC_MMAP_THRESHOLD_ -u MALLOC_TRIM_THRESHOLD_
	   -u MALLOC_TOP_PAD_ -u MALLOC_ARENA_MAX)
env_tuned=(env MALLOC_MMAP_THRESHOLD_=33554432 MALLOC_TRIM_THRESHOLD_=1073741824
	   MALLOC_TOP_PAD_=268435456)

echo "bench_augment: every measured process pinned to CPU $cpu; $repeats rounds; load average $(cut -d' ' -f1-3 /proc/loadavg) (other work on CPU $cpu slows every rate here)"
# Rounds interleave the three programs (C: decode, train, train-full in
# one process; PyTorch plain; PyTorch tuned), so a change in the machine's
# load during the run falls on every side alike. Each program measures
# one pass over all files per round after its own untimed warm-up.
train=() decode=() tplain=() ttuned=()
for r in $(seq 1 "$repeats"); do
	c_out=$("${pin[@]}" "$bench" --repeats 1 --seed "$r" "$root") ||
		{ printf '%s\n' "$c_out"; die "$bench failed"; }
	[ "$r" = 1 ] && printf '%s\n' "$c_out" | grep -v '^result:'
	t=$(field "$c_out" "result:" train_rate)
	d=$(field "$c_out" "result:" decode_rate)
	f=$(field "$c_out" "result:" train_full_rate)
	{ [ -n "$t" ] && [ -n "$d" ]; } || die "no result line from $bench"
	train+=("$t") decode+=("$d")
	line=$(printf 'round %d: train %.1f, decode %.1f, train-full %.1f' \
		"$r" "$t" "$d" "$f")
	if [ $have_torch = 1 ]; then
		for variant in plain tuned; do
			if [ $variant = plain ]; then envs=("${env_plain[@]}")
			else envs=("${env_tuned[@]}"); fi
			out=$("${envs[@]}" "${pin[@]}" "$py" "$here/torch_peer.py" \
				--repeats 1 --seed "$r" --batch "$batch" "$root") ||
				{ printf '%s\n' "$out"; die "torch peer ($variant) failed"; }
			[ "$r" = 1 ] && printf 'pytorch %-5s %s\n' "$variant" "${out#torch_peer: }"
			rate=$(field "$out" "torch_peer:" rate_median)
			flt=$(field "$out" "torch_peer:" minflt_per_img)
			[ -n "$rate" ] || { printf '%s\n' "$out"; die "torch peer ($variant): no rate"; }
			if [ $variant = plain ]; then tplain+=("$rate"); else ttuned+=("$rate"); fi
			line+=$(printf ', pytorch %s %.1f (%s faults/img)' "$variant" "$rate" "$flt")
		done
	fi
	echo "$line img/s (cpu)"
done

train_m=$(median "${train[@]}")
decode_m=$(median "${decode[@]}")
status=0
awk -v t="$train_m" -v d="$decode_m" 'BEGIN { exit !(t >= d) }' || status=1

echo "--- summary (images per CPU-second on one CPU, medians of $repeats rounds; load average now $(cut -d' ' -f1-3 /proc/loadavg))"
printf '  feedrate train transform  %8.1f img/s\n' "$train_m"
printf '  libjpeg-turbo decode only %8.1f img/s\n' "$decode_m"
awk -v t="$train_m" -v d="$decode_m" 'BEGIN {
	printf "  train / decode-only       %8.2fx  (target >= 1.0x: %s)\n",
		t / d, (t >= d ? "met" : "NOT met") }'
if [ $have_torch = 1 ]; then
	plain_m=$(median "${tplain[@]}")
	tuned_m=$(median "${ttuned[@]}")
	best=$(awk -v a="$plain_m" -v b="$tuned_m" 'BEGIN { print (a > b ? a : b) }')
	printf '  pytorch plain             %8.1f img/s\n' "$plain_m"
	printf '  pytorch malloc-tuned      %8.1f img/s  (tuned / plain %s)\n' \
		"$tuned_m" "$(awk -v a="$plain_m" -v b="$tuned_m" 'BEGIN { printf "%.2fx", b / a }')"
	awk -v t="$train_m" -v p="$best" 'BEGIN {
		printf "  train / pytorch best      %8.2fx  (target >= 2.5x: %s)\n",
			t / p, (t >= 2.5 * p ? "met" : "NOT met") }'
	awk -v t="$train_m" -v p="$best" 'BEGIN { exit !(t >= 2.5 * p) }' ||
		status=1
fi
if [ "$status" -ne 0 ] && [ "${BENCH_STRICT:-0}" = 1 ]; then
	exit 1
fi
exit 0

#!/usr/bin/env bash
# 3-D volumes. Prints medians over REPEATS runs of:
#   inflate  numpy savez_compressed copies of `gen --workload volumes`
#            files (x as f32, and as u8 in unet3d's layout): decompressed
#            MB/s on one core of libdeflate (feedrate's), zlib and ISA-L's
#            igzip (when libisal2 is installed), and of feedrate's whole
#            open (zip lookup + libdeflate + CRC-32 + header), against
#            `python3 -c 'numpy.load(f)["x"]'` on the same files (page
#            cache warm; process CPU)                  (target >= 1.0x)
#   cpu      per sample: open, 128^3 crop with flips, conversion to f32,
#            on the .npy files and the compressed copies; cosmoflow's
#            log(1 + x) on a 70x70x72x4 sample
#   cold     the .npy folder read cold: `feedrate io` (1 MiB blocks,
#            O_DIRECT) and `feedrate run --workload volumes -g 0` (the
#            end-to-end path: read, crop, flips) against fio (O_DIRECT,
#            1 MiB blocks, the same files)             (target >= 0.95x)
#
#   FEEDRATE_BIN, BENCH_BIN_DIR   set by `make bench`
#   BENCH_VOL_DIR  where the files live (default /var/tmp/feedrate-bench-
#                  volumes; made once, kept for later runs)
#   VOL_SIZE       gen --size of the .npy set (default 2G)
#   REPEATS        runs per measurement (default 3)
#   DEPTH          reads in flight (default 32)
#   SECTIONS       which parts run (default inflate,cpu,cold)
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
bin=${FEEDRATE_BIN:-$root/feedrate}
case "$bin" in /*) ;; *) bin="$root/$bin" ;; esac
bbin=${BENCH_BIN_DIR:-$root/build/bench/bench}/bench_volumes
case "$bbin" in /*) ;; *) bbin="$root/$bbin" ;; esac
dir=${BENCH_VOL_DIR:-/var/tmp/feedrate-bench-volumes}
size=${VOL_SIZE:-2G}
repeats=${REPEATS:-3}
depth=${DEPTH:-32}
sections=${SECTIONS:-inflate,cpu,cold}
want() { [[ ",$sections," == *",$1,"* ]]; }
PY=/usr/bin/python3

[ -x "$bin" ] || { echo "bench_volumes: $bin not built (run 'make bench')" >&2; exit 1; }
[ -x "$bbin" ] || { echo "bench_volumes: $bbin not built (run 'make bench')" >&2; exit 1; }
if ! $PY -c 'import numpy' 2>/dev/null; then
	echo "bench_volumes: skipped: numpy missing (Debian's python3-numpy)"
	exit 0
fi
case "$(stat -f -c %T "$(dirname "$dir")" 2>/dev/null)" in
tmpfs|ramfs) echo "bench_volumes: $(dirname "$dir") is memory-backed; set BENCH_VOL_DIR to a disk" >&2
	exit 1 ;;
esac

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }

# the data, made once: the .npy set, and compressed copies of its first
# three files (x f32; x u8 + y label mask, as unet3d's files hold them)
stamp="volumes $size seed 1"
if [ "$(cat "$dir.complete" 2>/dev/null)" != "$stamp" ]; then
	echo "bench_volumes: writing the files under $dir"
	rm -rf "$dir" && mkdir -p "$dir/z" || exit 1
	"$bin" gen -q --workload volumes --size "$size" --seed 1 "$dir/npy" >/dev/null ||
		{ echo "bench_volumes: gen failed"; exit 1; }
	$PY - "$dir" <<'PYEOF' || { echo "bench_volumes: savez_compressed failed"; exit 1; }
import sys, glob, numpy as np
d = sys.argv[1]
for i, f in enumerate(sorted(glob.glob(d + '/npy/*.npy'))[:3]):
    a = np.load(f)
    np.savez_compressed('%s/z/f32_%d.npz' % (d, i), x=a)
    hu = np.clip(a * 76.9 + 101, -79, 304)
    x = np.rint((hu + 79) * 255 / 383).astype(np.uint8)
    np.savez_compressed('%s/z/u8_%d.npz' % (d, i), x=x, y=(x > 200).astype(np.uint8))
PYEOF
	sync
	echo "$stamp" > "$dir.complete"
fi
npy_files=("$dir"/npy/*.npy)
echo "-- data: ${#npy_files[@]} .npy files, $(du -sh "$dir/npy" | cut -f1); compressed copies: $(ls "$dir"/z | wc -l)"

if want inflate; then
	for kind in f32 u8; do
		echo "-- inflate per core, $kind volumes (median of $repeats)"
		out=$("$bbin" -r "$repeats" inflate "$dir"/z/${kind}_*.npz) ||
			{ echo "bench_volumes: inflate failed"; exit 1; }
		echo "$out"
		ours=$(sed -n 's/.*feedrate open.*: \([0-9.]*\) MB\/s/\1/p' <<<"$out")
		peer=$($PY - "$repeats" "$dir"/z/${kind}_*.npz <<'PYEOF'
import sys, time, numpy as np
reps, files = int(sys.argv[1]), sys.argv[2:]
v = []
for r in range(reps):
    t, n = time.process_time(), 0
    for f in files:
        n += np.load(f)['x'].nbytes
    v.append(n / 1e6 / (time.process_time() - t))
print(sorted(v)[len(v) // 2])
PYEOF
)
		printf '  numpy.load(f)["x"] (python3, numpy %s): %.0f MB/s\n' \
			"$($PY -c 'import numpy; print(numpy.__version__)')" "$peer"
		echo "  feedrate open / numpy.load: $(ratio "$ours" "$peer")x (target >= 1.0x)"
	done
fi

if want cpu; then
	echo "-- CPU per sample, one core (median of $((repeats * 3)))"
	"$bbin" -r $((repeats * 3)) crop "${npy_files[@]:0:3}" "$dir"/z/*.npz
	"$bbin" -r $((repeats * 3)) cosmo
fi

want cold || exit 0
command -v fio >/dev/null || { echo "bench_volumes: cold: fio not installed (Debian package fio)"; exit 0; }
command -v jq >/dev/null || { echo "bench_volumes: cold: jq not installed"; exit 0; }
can_drop=0
[ -w /proc/sys/vm/drop_caches ] && can_drop=1
drop() { sync; [ $can_drop = 1 ] && echo 3 > /proc/sys/vm/drop_caches; }
total=$(du -cb "${npy_files[@]}" | tail -n 1 | cut -f1)
# fio reads whole blocks: the last partial MiB of each file is not read
fio_total=$((total - ${#npy_files[@]} * 1048576))
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# until the workload's own defaults reach the command line: its batch and
# sample-size cap (RUN_ARGS overrides)
run_args=${RUN_ARGS:---batch 7 --max-sample-bytes 1G --demand mlperf}
echo "-- cold read of the .npy folder ($((total / 1048576)) MiB), 1 MiB blocks, depth $depth, O_DIRECT (median of $repeats)"
declare -a fio_v io_v run_v
for ((r = 0; r < repeats; r++)); do
	drop
	fio_v+=("$(DIR="$dir/npy" BS=1M DEPTH=$depth fio --output-format=json "$here/volumes.fio" 2>/dev/null |
		sed -n '/^{/,$p' | jq --argjson t "$fio_total" '([.jobs[].read.io_bytes] | add) as $b |
			if $b < $t then 0 else [.jobs[].read.bw_bytes] | add end')")
	drop
	io_v+=("$("$bin" io --backend uring --direct --cache cold --depth "$depth" \
		--block-size 1M --json - "$dir/npy" 2>/dev/null | jq '.bw_bytes')")
	drop
	"$bin" run --workload volumes --cache cold -g 0 --warmup 2s --duration 10s \
		$run_args \
		--json "$tmp/run.json" "$dir/npy" >/dev/null 2>&1 &&
		run_v+=("$(jq '.read_bytes_per_s' "$tmp/run.json")") || run_v+=(0)
done
fm=$(printf '%s\n' "${fio_v[@]}" | median)
im=$(printf '%s\n' "${io_v[@]}" | median)
rm_=$(printf '%s\n' "${run_v[@]}" | median)
mbs() { awk '{ for (i = 1; i <= NF; i++) printf " %.0f", $i / 1e6 }' <<<"$*"; }
echo "  runs MB/s: fio$(mbs "${fio_v[@]}"); io$(mbs "${io_v[@]}"); run$(mbs "${run_v[@]}")"
awk -v f="$fm" -v i="$im" -v r="$rm_" 'BEGIN {
	printf "  fio %.0f MB/s; feedrate io %.0f MB/s (%.2fx); feedrate run %.0f MB/s (%.2fx) (target >= 0.95x)\n",
		f / 1e6, i / 1e6, (f > 0 ? i / f : 0), r / 1e6, (f > 0 ? r / f : 0) }'

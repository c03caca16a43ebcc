#!/usr/bin/env bash
# The gpu-decode pipeline's CPU cost against its peers, on one CPU, warm,
# the same files (a generated ImageNet-like folder):
#  - gpu-decode:hw: `feedrate run --pipeline gpu-decode:hw --gpus 0` CPU
#    per sample (the whole process, in the window) against `feedrate io`'s
#    CPU per file read (the whole process: rusage) plus a header parse of
#    the same files (bench_gpudec's header_ns): at most 1.2x. Both read
#    the baseline files only (--list: not progressive, not CMYK; those
#    take the hybrid path, whose cost the second comparison covers).
#  - gpu-decode:hybrid: samples per CPU second of the run against a plain
#    jpeg_read_coefficients loop over the same files in memory
#    (bench_gpudec's coefs_per_s): at least 0.9x.
# Interleaved rounds (the side that goes first alternating), each
# round's ratio from neighbouring runs, the median of the rounds' ratios
# judged. A machine shared with other work slows both sides of a round
# alike; CPU times are the steadier figures.
#   BENCH_BIN_DIR, FEEDRATE_BIN (set by `make bench`), BENCH_ROUNDS (5),
#   BENCH_DURATION (8 s per run), BENCH_DATA (a folder to use; default
#   100M generated and removed after)
set -u
bin=${FEEDRATE_BIN:-build/bench/feedrate}
peer=${BENCH_BIN_DIR:-build/bench/bench}/bench_gpudec
rounds=${BENCH_ROUNDS:-5}
dur=${BENCH_DURATION:-8}
py=/usr/bin/python3
[ -x "$peer" ] || { echo "bench_gpudec: $peer not built (run 'make bench')" >&2; exit 1; }
tmp=$(mktemp -d /var/tmp/feedrate-bench-gpudec.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
data=${BENCH_DATA:-}
if [ -z "$data" ]; then
	data=$tmp/data
	"$bin" gen -q --size 100M "$data" || exit 1
fi
list=$tmp/baseline.list
cpu=$("$bin" run --vcpus 1 --gpus 0 --samples 1 --cache warm --json - \
	"$data" 2>/dev/null | "$py" -c 'import json,sys
d = json.load(sys.stdin)
print(d["cpus"].rsplit(": ", 1)[-1].split(",")[0].split("-")[0])')
[ -n "$cpu" ] || cpu=0
echo "bench_gpudec: CPU $cpu, ${dur} s runs, $rounds rounds, dataset $data"

# CPU ms per sample of `feedrate run --pipeline $1` (warm, 1 vCPU, no
# GPU; further arguments are the run's)
run_cpu() {
	p=$1
	shift
	"$bin" run --pipeline "$p" --vcpus 1 --gpus 0 --cache warm "$@" \
		--duration "$dur" --json - "$data" 2>/dev/null | "$py" -c '
import json, sys
d = json.load(sys.stdin)
print("%.5f" % (d["stages"]["process_cpu_s"] / max(d["samples"], 1) * 1e3))'
}
# CPU ms per file of `feedrate io` (warm, one reader thread, on $cpu)
io_cpu() {
	"$py" - "$bin" "$cpu" "$dur" "$data" "$list" <<'PY'
import json, resource, subprocess, sys
b, cpu, dur, data, lst = sys.argv[1:6]
out = subprocess.run(["taskset", "-c", cpu, b, "io", "--cache", "warm",
                      "--threads", "1", "--duration", dur + "s", "--list",
                      lst, "--json", "-", data],
                     capture_output=True, text=True).stdout
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
d = json.loads(out)
print("%.5f" % ((ru.ru_utime + ru.ru_stime) / max(d["files"], 1) * 1e3))
PY
}
# the peers' line (bench_gpudec): header parse ns, coefficient files/s
peer_run() {
	line=$(taskset -c "$cpu" "$peer" -r 5 -n 100000 -l "$list" \
		"$data") || exit 1
	peer_h=$(sed -n 's/.*header_ns=\([0-9.]*\).*/\1/p' \
		<<<"$line")
	peer_c=$(sed -n 's/.*coefs_per_s=\([0-9.]*\).*/\1/p' \
		<<<"$line")
}
hw=() io=() hdr=() hy=() plain=() r_hw=() r_hy=()
for r in $(seq 1 "$rounds"); do
	# each subject next to its peer, the one that goes first
	# alternating: a round's ratio is taken from neighbouring runs
	if [ $((r % 2)) = 1 ]; then
		peer_run
		y=$(run_cpu gpu-decode:hybrid)
		w=$(run_cpu gpu-decode:hw --list "$list")
		i=$(io_cpu)
	else
		i=$(io_cpu)
		w=$(run_cpu gpu-decode:hw --list "$list")
		y=$(run_cpu gpu-decode:hybrid)
		peer_run
	fi
	rw=$("$py" -c "print('%.3f' % ($w / ($i + $peer_h / 1e6)))")
	ry=$("$py" -c "print('%.3f' % ((1e3 / $y) / $peer_c))")
	echo "  round $r: io $i ms CPU/file + header parse $peer_h ns;" \
	     "gpu-decode:hw $w ms CPU/sample (${rw}x); plain coefficient" \
	     "loop $peer_c files/s; gpu-decode:hybrid $y ms CPU/sample" \
	     "(${ry}x)"
	hw+=("$w") io+=("$i") hdr+=("$peer_h") hy+=("$y")
	plain+=("$peer_c")
	r_hw+=("$rw") r_hy+=("$ry")
done
"$py" - "${hw[*]}" "${io[*]}" "${hdr[*]}" "${hy[*]}" "${plain[*]}" \
	"${r_hw[*]}" "${r_hy[*]}" <<'PY'
import statistics, sys
hw, io, hdr, hy, plain, r_hw, r_hy = [
    statistics.median(float(x) for x in a.split()) for a in sys.argv[1:]]
# the verdict: the median of the rounds' ratios (neighbouring runs);
# the medians of each side are printed beside it
print("bench_gpudec: hw %.4f ms CPU/sample vs io + header parse %.4f ms: "
      "%.2fx (median of rounds; <= 1.2); hybrid %.0f samples per CPU s vs "
      "plain jpeg_read_coefficients %.0f: %.2fx (median of rounds; >= 0.9)"
      % (hw, io + hdr / 1e6, r_hw, 1e3 / hy, plain, r_hy))
sys.exit(0 if r_hw <= 1.2 and r_hy >= 0.9 else 1)
PY

#!/usr/bin/env bash
# Does `feedrate run --pipeline torch` measure the real thing? A plain
# PyTorch script (plain_torch.py: the same transforms, batch and DataLoader,
# pinned to one CPU with taskset) and `feedrate run --pipeline torch
# --vcpus 1 --workers 1` read the same dataset, warm, interleaved REPEATS
# times, the one that goes first alternating (whichever runs second in a
# round ran 10-30 % slower on this project's test VM, whichever it was);
# their median samples/s must agree within +-10 % (the runner adds
# no cost of its own); their CPU time per sample is printed beside it (on
# a VM shared with other work it is the steadier figure). Skips, saying
# why, without a Python that has torch.
#   BENCH_PYTHON (default /usr/bin/python3), BENCH_REPEATS (3),
#   BENCH_DURATION (20 s), BENCH_BATCH (64), BENCH_DATA (a dataset to use;
#   default: 100M generated and removed after)
set -u
here=$(cd "$(dirname "$0")" && pwd)
bin=${FEEDRATE_BIN:-build/bench/feedrate}
py=${BENCH_PYTHON:-/usr/bin/python3}
repeats=${BENCH_REPEATS:-3}
dur=${BENCH_DURATION:-20}
batch=${BENCH_BATCH:-64}

if ! "$py" -c 'import torch, torchvision, PIL' >/dev/null 2>&1; then
	echo "bench_pipeline: skipped: $py cannot import torch and" \
	     "torchvision (Debian's python3-torch python3-torchvision" \
	     "python3-pil; make deps)"
	exit 0
fi
tmp=$(mktemp -d /var/tmp/feedrate-bench-pipeline.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
data=${BENCH_DATA:-}
if [ -z "$data" ]; then
	data=$tmp/data
	"$bin" gen -q --size 100M "$data" || exit 1
fi
# the CPU feedrate's --vcpus 1 takes: the first of its choice
cpu=$("$bin" run --vcpus 1 --gpus 0 --samples 1 --cache warm --json - \
	"$data" 2>/dev/null | "$py" -c 'import json,sys
d = json.load(sys.stdin)
print(d["cpus"].rsplit(": ", 1)[-1].split(",")[0].split("-")[0])')
[ -n "$cpu" ] || cpu=0
echo "bench_pipeline: CPU $cpu, batch $batch, ${dur} s windows," \
     "$repeats rounds, dataset $data"

plain=() fr=() plain_cpu=() fr_cpu=()
run_plain() {
	line=$(taskset -c "$cpu" "$py" "$here/plain_torch.py" "$data" \
		--workers 1 --batch "$batch" --duration "$dur")
	p=$(sed -n 's/.*samples_per_s=\([0-9.]*\).*/\1/p' <<<"$line")
	pc=$(sed -n 's/.*cpu_ms_per_sample=\([0-9.]*\).*/\1/p' <<<"$line")
}
run_feedrate() {
	read -r f fc < <("$bin" run --pipeline torch --python "$py" --vcpus 1 \
		--workers 1 --batch "$batch" --gpus 0 --cache warm \
		--duration "$dur" --json - "$data" 2>/dev/null | "$py" -c '
import json, sys
d = json.load(sys.stdin)
print("%.1f %.3f" % (d["samples_per_s"],
      d["stages"]["process_cpu_s"] / max(d["samples"], 1) * 1e3))')
}
for r in $(seq 1 "$repeats"); do
	if [ $((r % 2)) -eq 1 ]; then
		run_plain; run_feedrate; first=plain
	else
		run_feedrate; run_plain; first=feedrate
	fi
	echo "  round $r ($first first): plain $p samples/s ($pc ms" \
	     "CPU/sample), feedrate --pipeline torch $f ($fc)"
	plain+=("$p") fr+=("$f") plain_cpu+=("$pc") fr_cpu+=("$fc")
done
"$py" - "${plain[*]}" "${fr[*]}" "${plain_cpu[*]}" "${fr_cpu[*]}" <<'PY'
import statistics, sys
med = [statistics.median(float(x) for x in a.split()) for a in sys.argv[1:]]
p, f, pc, fc = med
ratio = f / p
print("bench_pipeline: median plain %.1f, feedrate %.1f samples/s: ratio "
      "%.3f (%+.1f %%); CPU per sample %.3f vs %.3f ms: ratio %.3f"
      % (p, f, ratio, (ratio - 1) * 100, pc, fc, fc / pc))
sys.exit(0 if abs(ratio - 1) <= 0.10 else 1)
PY

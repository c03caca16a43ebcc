#!/usr/bin/env bash
# Token shards: decompression + windowing + batching on one vCPU against
# zstd's own decompression speed on the same data.
#
#   .bin.zst   `feedrate gen --workload tokens --compression zstd` (uint16,
#              zstd -3 frames with their sizes, as `zstd FILE` writes)
#   MDS-zstd   the same tokens as llm-foundry writes them: samples of 2048
#              tokens in an 'ndarray:int32' column, 64 MiB shards, each
#              compressed whole with zstd -3 (streaming's Zstandard
#              default level)
#
# Ours: `feedrate run --vcpus 1 --cache warm --gpus 0`: one CPU decompresses
# the shards, cuts the windows, converts them to int64 and fills the
# batches; the rate is the token bytes delivered per CPU second of the
# process (samples x 2048 tokens x the shard's bytes per token: each
# window adds 2048 tokens to the stream, its last one is the next
# window's first).
# Peer: `zstd -b3` on the same tokens as one uncompressed file (the .bin
# stream; the MDS shards decompressed and concatenated): zstd compresses
# it at level 3 and times in-memory decompression on one thread, the best
# a decompressor of those frames does on this CPU. (`zstd -b -d` on the
# .zst files exists in zstd 1.5.4 but times with other settings; -b3 on
# the raw data is the same frames' work, fed from memory.)
# Target: ours / peer >= 0.9. REPEATS rounds (ours, then the peer), the
# median of their ratios; DURATION per run of ours.
#
#   FEEDRATE_BIN   set by `make bench`
#   REPEATS        runs per measurement (default 3)
#   DURATION       measured seconds per run (default 8s)
#   SIZE           gen --size (default 128M)
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
bin=${FEEDRATE_BIN:-$root/feedrate}
case "$bin" in /*) ;; *) bin="$root/$bin" ;; esac
repeats=${REPEATS:-3}
dur=${DURATION:-8s}
size=${SIZE:-128M}
py=/usr/bin/python3

command -v jq >/dev/null || { echo "bench_tokens: jq not installed" >&2; exit 1; }
command -v zstd >/dev/null || { echo "bench_tokens: zstd not installed" >&2; exit 1; }
[ -x "$bin" ] || { echo "bench_tokens: $bin not built (run 'make bench')" >&2; exit 1; }
tmp=$(mktemp -d /var/tmp/bench-tokens.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }

"$bin" gen -q --workload tokens --compression zstd --size "$size" "$tmp/zst" >/dev/null ||
	{ echo "bench_tokens: gen failed"; exit 1; }
for z in "$tmp"/zst/*.bin.zst; do zstd -q -d -c "$z"; done >"$tmp/tokens.raw"

have_mds=0
if "$py" -c 'import numpy' 2>/dev/null; then
	# MDS v2 as streaming's MDSWriter lays it out (see
	# tests/test_fmt_tokens.c for the layout checked against the reader)
	"$py" - "$tmp/tokens.raw" "$tmp/mds" <<'PY' && have_mds=1
import json, os, struct, subprocess, sys
import numpy as np
raw, out = sys.argv[1:3]
os.makedirs(out)
tok = np.fromfile(raw, dtype=np.uint16).astype(np.int32)
seq, limit = 2048, 1 << 26
names, encs, sizes = ['tokens'], ['ndarray:int32'], [None]
cfg = {'version': 2, 'format': 'mds', 'compression': 'zstd:3',
       'hashes': [], 'size_limit': limit, 'column_names': names,
       'column_encodings': encs, 'column_sizes': sizes}
cfg_data = json.dumps(cfg, sort_keys=True).encode()
shards, samples = [], []
def flush():
    n = len(samples)
    start = 4 + 4 * (n + 1) + len(cfg_data)
    offs = np.concatenate([[0], np.cumsum([len(s) for s in samples])]) + start
    data = struct.pack('<I', n) + offs.astype('<u4').tobytes() + cfg_data + b''.join(samples)
    name = 'shard.%05d.mds' % len(shards)
    with open(os.path.join(out, name), 'wb') as f:
        f.write(data)
    subprocess.run(['zstd', '-q', '-3', '--rm', os.path.join(out, name), '-o',
                    os.path.join(out, name + '.zstd')], check=True)
    sh = {'samples': n, 'raw_data': {'basename': name, 'bytes': len(data), 'hashes': {}},
          'zip_data': {'basename': name + '.zstd', 'bytes': os.path.getsize(os.path.join(out, name + '.zstd')), 'hashes': {}}}
    sh.update(cfg)
    shards.append(sh)
size = 0
for i in range(len(tok) // seq):
    a = tok[i * seq:(i + 1) * seq]
    # ndarray:int32, shape not given: [ndim << 2 | uint16 shape] [shape] values
    v = bytes([(1 << 2) | 1]) + struct.pack('<H', seq) + a.tobytes()
    s = struct.pack('<I', len(v)) + v
    if samples and size + len(s) + 4 > limit:
        flush()
        samples, size = [], 0
    samples.append(s)
    size += len(s) + 4
if samples:
    flush()
with open(os.path.join(out, 'index.json'), 'w') as f:
    json.dump({'version': 2, 'shards': shards}, f, sort_keys=True)
PY
	for z in "$tmp"/mds/*.zstd; do zstd -q -d -c "$z"; done >"$tmp/mds.raw"
fi

# one_ours DIR FORMAT BYTES_PER_SAMPLE -> MB/s of token bytes per CPU
# second of the whole process, pinned to one vCPU (CPU time: what other
# processes on a shared machine take from the vCPU does not count)
one_ours() {
	"$bin" run --workload tokens --format "$2" --vcpus 1 --cache warm -g 0 \
		-b 8 --warmup 2s --duration "$dur" --json "$tmp/run.json" "$1" \
		>/dev/null 2>&1 || { echo "run failed: $1" >&2; echo 0; return; }
	jq -r --argjson per "$3" \
		'.samples * $per / 1e6 / .stages.process_cpu_s' "$tmp/run.json"
}

# one_peer RAW -> zstd -b3's decompression MB/s (its best iteration)
one_peer() {
	zstd -b3 -i3 "$1" 2>&1 | tr '\r' '\n' | grep -E 'MB/s, +[0-9.]+ MB/s' |
		tail -n 1 | sed -E 's/.* ([0-9.]+) MB\/s *$/\1/'
}

# compare NAME DIR FORMAT BYTES_PER_SAMPLE RAW: rounds of ours then the
# peer, so that both see the same machine; medians and the median ratio
compare() {
	local i o p
	: >"$tmp/cmp"
	for i in $(seq "$repeats"); do
		o=$(one_ours "$2" "$3" "$4")
		p=$(one_peer "$5")
		echo "$o $p $(ratio "$o" "$p")" >>"$tmp/cmp"
	done
	printf '  %s: ours %.0f MB/s per core, zstd -b3 %.0f MB/s: %sx (median of the rounds'"'"' ratios; target >= 0.9x)\n' \
		"$1" "$(cut -d' ' -f1 "$tmp/cmp" | median)" \
		"$(cut -d' ' -f2 "$tmp/cmp" | median)" \
		"$(cut -d' ' -f3 "$tmp/cmp" | median)"
}

echo "-- tokens on one vCPU, warm: decompression + windows + int64 batches / zstd -b3 decompression ($repeats rounds)"
compare ".bin.zst ($(du -sm "$tmp/zst" | cut -f1) MB, tokens)" "$tmp/zst" tokens $((2048 * 2)) "$tmp/tokens.raw"
if [ $have_mds = 1 ]; then
	# an MDS sample: 2048 int32 tokens, its size prefix and array header
	compare "MDS-zstd ($(du -sm "$tmp/mds" | cut -f1) MB, shard bytes)" "$tmp/mds" mds $((2048 * 4 + 4 + 3)) "$tmp/mds.raw"
else
	echo "  MDS-zstd: skipped (no numpy for $py to write the shards)"
fi

#!/usr/bin/env bash
# Are `feedrate gen`'s pictures like photographs to a JPEG codec, and how
# fast is gen?
#
# 1. Real photographs shipped by Debian packages (scikit-image's sample
#    data, OpenCV's sample data) are decoded and re-encoded by feedrate's
#    encoder at quality 90 4:2:0 and at 95 4:4:4; synthetic pictures of the
#    same sizes are encoded the same way. Bits per pixel and decode MP/s
#    (libjpeg-turbo, JDCT_ISLOW, fancy upsampling, median of passes) are
#    compared: the ratio synthetic/real must lie within 0.75-1.25.
# 2. `feedrate gen --size 256M` into a folder on disk: MB/s and seconds per
#    GB on one core, and the generated set's statistics.
#
# The photographs are fetched once with `apt-get download` (no install) into
# $FEEDRATE_PHOTO_CACHE (default /var/tmp/feedrate-bench-photos); without
# them the realism part is skipped with a message.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
bin_dir=${BENCH_BIN_DIR:-$root/build/bench/bench}
helper=$bin_dir/bench_gen_realism
feedrate=${FEEDRATE_BIN:-$root/build/bench/feedrate}
cache=${FEEDRATE_PHOTO_CACHE:-/var/tmp/feedrate-bench-photos}
gen_size=${GEN_BENCH_SIZE:-256M}
status=0

for b in "$helper" "$feedrate"; do
	if [ ! -x "$b" ]; then
		echo "bench_gen_realism: $b is missing (run 'make bench')"
		exit 1
	fi
done

skimage_files="astronaut.png chelsea.png coffee.png motorcycle_left.png rocket.jpg"
opencv_files="fruits.jpg baboon.jpg building.jpg butterfly.jpg home.jpg
messi5.jpg orange.jpg squirrel_cls.jpg aloeL.jpg leuvenA.jpg"

fetch_photos() {
	local work deb
	mkdir -p "$cache" || return 1
	[ -e "$cache/.complete" ] && return 0
	work=$(mktemp -d "$cache/fetch.XXXXXX") || return 1
	(cd "$work" && apt-get download python3-skimage opencv-doc \
		>/dev/null 2>&1) || { rm -rf "$work"; return 1; }
	for deb in "$work"/*.deb; do
		dpkg-deb -x "$deb" "$work/x" || { rm -rf "$work"; return 1; }
	done
	for f in $skimage_files; do
		cp "$work/x/usr/lib/python3/dist-packages/skimage/data/$f" \
			"$cache/" || { rm -rf "$work"; return 1; }
	done
	for f in $opencv_files; do
		cp "$work/x/usr/share/doc/opencv-doc/examples/data/$f" \
			"$cache/" || { rm -rf "$work"; return 1; }
	done
	rm -rf "$work"
	# PNG sources become PPM (lossless) with the standard library only
	for f in "$cache"/*.png; do
		/usr/bin/python3 "$here/png2ppm.py" "$f" "${f%.png}.ppm" ||
			return 1
	done
	touch "$cache/.complete"
}

# ratio within [0.75, 1.25]?
in_band() {
	awk -v r="$1" 'BEGIN { exit !(r >= 0.75 && r <= 1.25) }'
}

echo "--- realism: synthetic vs real photographs (same encoder, same settings)"
if fetch_photos; then
	refs=()
	for f in $skimage_files $opencv_files; do
		case $f in
		*.png) refs+=("$cache/${f%.png}.ppm") ;;
		*) refs+=("$cache/$f") ;;
		esac
	done
	for mode in "90 420" "95 444"; do
		set -- $mode
		out=$("$helper" --quality "$1" --subsamp "$2" --reps 5 \
			--per-ref 4 "${refs[@]}") || { status=1; continue; }
		echo "$out"
		line=$(grep '^ratio synthetic/real' <<<"$out")
		bpp=$(awk '{ print $4 }' <<<"$line")
		mps=$(awk '{ print $7 }' <<<"$line")
		if in_band "$bpp" && in_band "$mps"; then
			echo "realism q$1 $2: PASS (bpp ratio $bpp, decode ratio $mps; band 0.75-1.25)"
		else
			echo "realism q$1 $2: FAIL (bpp ratio $bpp, decode ratio $mps; band 0.75-1.25)"
			status=1
		fi
		echo
	done
else
	echo "realism: SKIPPED (cannot fetch the sample photographs with apt-get download)"
fi

echo "--- generation speed: feedrate gen -j1 --size $gen_size"
base=$(mktemp -d /var/tmp/feedrate-bench-gen.XXXXXX)
trap 'rm -rf "$base"' EXIT
"$helper" --speed 300 --seed 3
# one worker: the per-core rate; CPU time (user+sys) beside the wall time,
# because a busy machine stretches the wall time
TIMEFORMAT='%U %S %R'
if ! times=$( { time "$feedrate" gen -q -j 1 --size "$gen_size" --seed 3 \
		"$base/ds" >"$base/gen.out"; } 2>&1 ); then
	echo "gen: FAILED"
	exit 1
fi
cat "$base/gen.out"
bytes=$(du -sb "$base/ds" | awk '{ print $1 }')
read -r usr sys wall <<<"$(tail -n 1 <<<"$times")"
awk -v b="$bytes" -v u="$usr" -v s="$sys" -v w="$wall" 'BEGIN {
	c = u + s
	printf "gen -j1: %.1f MB in %.1f s wall, %.1f s CPU: %.1f MB/s of CPU; 1 GB in %.0f s per core (wall: %.0f s)\n",
		b / 1e6, w, c, b / 1e6 / c, 1e9 / (b / c), 1e9 / (b / w)
}'
echo "--- the generated set"
"$helper" --dir "$base/ds" --reps 3
exit $status

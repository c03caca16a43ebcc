#!/usr/bin/env bash
# Runs feedrate's test binaries and ends with one summary line:
#   tests: N passed, N failed
# --unit BIN    the Criterion suite (its synthesis line is parsed)
# --stress BIN  the plain-C stress driver (its "N passed, N failed" line)
# A sanitizer report anywhere in the output fails the run, whatever the
# runners counted (Criterion counts a test whose process leaked as passing).
#
# The full run (FEEDRATE_FAST unset) goes in two steps, three under a
# sanitizer (FEEDRATE_SANITIZE set):
#   1. the tests that measure a rate or stop mpirun ranks with a signal
#      (MEASURE), one at a time, alone;
#   2. side by side, five runners (four under a sanitizer): the suites
#      that share the storage fixtures (FIXTURE, one test at a time under
#      the fixtures' lock anyway); the stall tests (STALL, one at a time:
#      each stops its fixture set's servers); the mpirun stall tests
#      (MPI_STALL, the same); the other mpirun tests (MPI, one at a time:
#      each starts up to 3 ranks); and every other test (Criterion's -j),
#      whose output is shown as it comes; the output of the others
#      follows it. Most of these tests wait (on a budget, a stall
#      timeout, a throttled disk, mpirun's start and kill), so side by
#      side they take little more than the longest runner alone;
#   3. under a sanitizer, the other mpirun tests, one at a time, alone:
#      a sanitized test process runs two to three times slower, and
#      beside 2-3 ranks on this many CPUs its measuring child misses the
#      LDR_CHILD_STOP_S (0.5 s) it has to answer a stop signal in.
# The runners of steps 1 and 3 and of step 2's fixture suites share one
# set of storage fixtures (tests/storage_fixtures/fixtures.sh), owned by
# this script ($FEEDRATE_FIXTURE_OWNER) and stopped at its end; each of
# the other runners of step 2 has a set of its own, owned by that runner.
set -u

# tests whose assertions hang on a rate (a lower bound on speed, or which
# of storage and CPU bounds a run through the fixtures' throttle), and the
# mpirun tests that stop their ranks with a signal (each rank's measuring
# child has LDR_CHILD_STOP_S, 0.5 s, to answer it: a real-time bound of
# the product's): one at a time, nothing beside them
RATE_STORAGE='run_throttled_disk_cold_storage_bound_warm_cpu_bound|sweep_throttled_disk_cold_storage_warm_cpu'
STOP_MPI='rank_killed_without_recovery_still_reports|sigint_on_mpirun_ends_all_with_a_partial_report'
MEASURE="engine_au_slow/*|ckpt_slow/save_and_restore_run_at_the_throttles_rate|storage_real_slow/@($RATE_STORAGE)|cluster_mpi_slow/@($STOP_MPI)"
# the other tests of the suites that take the storage fixtures' test lock
# (fixture_testlib.h, test_storage_real_slow.c): in one runner, so that no
# Criterion worker of the other one waits on the lock. ram_axis_slow runs
# a fixture set of its own under that lock: it measures hit ratios (the
# page cache against the model), not rates, and its cold point reads
# through a 20 MiB/s throttle, storage-bound with room to spare.
FIXTURE="storage_real_slow/!($RATE_STORAGE)|ckpt_slow/!(save_and_restore_run_at_the_throttles_rate)|storage_unfs_slow/*|ram_axis_slow/*"
# the tests that stop a fixture's server (their set's test lock, too)
STALL='stall_slow/*'
# the other tests that start mpirun ranks: those that stop a fixture's
# server (named *_reported_*), and the others
MPI_STALL='cluster_mpi_slow/*_reported_*'
MPI="cluster_mpi_slow/!(*_reported_*|$STOP_MPI)"
unit= stress=
while [ $# -gt 0 ]; do
	case "$1" in
	--unit) unit=$2; shift 2 ;;
	--stress) stress=$2; shift 2 ;;
	*) echo "run_tests.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done

# The log FILE without the LeakSanitizer reports whose allocation stacks
# lie wholly inside libcriterion (frame #0 is the sanitizer's allocator).
criterion_only_leaks() {
	awk '
	/ERROR: LeakSanitizer: detected memory leaks/ { inrep = 1; buf = ""; ours = 0 }
	inrep {
		buf = buf $0 "\n"
		if ($0 ~ /^ *#[1-9][0-9]* / && $0 !~ /libcriterion\.so/) ours = 1
		if ($0 ~ /^SUMMARY: /) {
			inrep = 0
			if (ours) printf "%s", buf
			else print "run_tests.sh: a leak inside Criterion itself (not counted)" > "/dev/stderr"
		}
		next
	}
	{ print }
	END { if (inrep) printf "%s", buf }' "$1"
}

passed=0 failed=0
why=""          # what failed, said again above the last line (CI shows
                # only the tail of a long log)
log=$(mktemp)
times=$(mktemp -d)  # each runner's Criterion XML (per-test times) and the
                    # output of the runners run beside
side=           # the pids of the runners run beside, while they run
fixtures=        # the fixture state folder this script owns, if any
trap 'rm -rf "$log" "$times"' EXIT
trap '[ -n "$side" ] && kill $side 2>/dev/null; stop_fixtures; exit 130' INT
trap '[ -n "$side" ] && kill $side 2>/dev/null; stop_fixtures; exit 143' TERM

# Stop the fixtures of the set this script owns (its watcher would, a
# second after the script's exit; this makes it deterministic).
stop_fixtures() {
	[ -n "$fixtures" ] || return 0
	if [ "$(cat "$fixtures/owner" 2>/dev/null)" = "$$" ]; then
		FEEDRATE_FIXTURE_DIR=$fixtures \
			"$(dirname "$0")/storage_fixtures/fixtures.sh" stop >/dev/null ||
			echo "run_tests.sh: stopping the storage fixtures left something"
		rm -f "$fixtures.testlock" "$fixtures.lock"
	fi
	fixtures=
}

# One run of the unit suite (WHAT: its name in the time line) with
# Criterion options "$@", shown as it comes and counted.
run_unit() {
	local what=$1 t0=$SECONDS

	shift
	"$unit" --color=never --timeout 300 --xml="$times/${what// /_}.xml" \
		"$@" 2>&1 | tee "$log"
	count_unit "$log" "${PIPESTATUS[0]}"
	echo "run_tests.sh: $((SECONDS - t0)) s for $what"
}

# One run of the unit suite in the background, as NAME (its files in
# $times) and WHAT (its name in the time lines), with Criterion options
# "$@"; its pid joins $side.
beside() {
	local name=$1 what=$2

	shift 2
	echo "$what" >"$times/$name.what"
	(
		t0=$SECONDS
		"$unit" --color=never --timeout 300 \
			--xml="$times/$name.xml" "$@" >"$times/$name.log" 2>&1
		rc=$?
		echo $((SECONDS - t0)) >"$times/$name.s"
		exit $rc
	) &
	echo $! >"$times/$name.pid"
	side="$side $!"
}

# Add the counts of the unit suite's output LOG, whose exit status was
# URC, to the totals and to WHY.
count_unit() {
	local log=$1 urc=$2 line t p f criterion_leak

	line=$(sed 's/\x1b\[[0-9;]*m//g' "$log" | grep 'Synthesis:' | tail -n 1)
	if [ -z "$line" ]; then
		echo "run_tests.sh: the unit suite printed no synthesis line"
		why+=$'\n'"a unit runner printed no synthesis line (exit $urc)"
		failed=$((failed + 1))
	else
		t=$(sed -E 's/.*Tested: ([0-9]+).*/\1/' <<<"$line")
		p=$(sed -E 's/.*Passing: ([0-9]+).*/\1/' <<<"$line")
		f=$(sed -E 's/.*Failing: ([0-9]+).*/\1/' <<<"$line")
		# a test that crashes in its setup or teardown is counted as
		# failing but not as tested
		[ "$f" -lt $((t - p)) ] && f=$((t - p))
		passed=$((passed + p))
		failed=$((failed + f))
		# each failed assertion with its message (the lines after it
		# that Criterion indents), and each failed test
		why+=$'\n'$(sed 's/\x1b\[[0-9;]*m//g' "$log" | awk '
			/^\[FAIL\]/ { print; msg = 0; next }
			/^\[----\] [^ ]+:[0-9]+:/ { print; msg = 1; next }
			msg && /^\[----\]   *[^ ]/ { print; next }
			msg && /^\[----\] *$/ { next }
			{ msg = 0 }' | head -n 60)
	fi
	# the exit status a Criterion-only leak report gives is not the
	# suite's either
	criterion_leak=
	if grep -q 'ERROR: LeakSanitizer' "$log" &&
	   ! criterion_only_leaks "$log" 2>/dev/null |
	     grep -q 'ERROR: LeakSanitizer'; then
		criterion_leak=1
	fi
	if [ -n "$line" ] && [ "$urc" -ne 0 ] && [ "$f" -eq 0 ] &&
	   [ -z "$criterion_leak" ]; then
		echo "run_tests.sh: the unit suite exited $urc"
		why+=$'\n'"the unit suite exited $urc"
		failed=$((failed + 1))
	fi
	# a leak report whose every frame past the allocator is inside
	# Criterion itself (its parallel runner, not a test) is Criterion's:
	# it is said, not counted; any frame of ours counts
	if criterion_only_leaks "$log" |
	   grep -qE 'ERROR: (Address|Leak|Thread)Sanitizer|runtime error:'; then
		echo "run_tests.sh: a sanitizer reported an error in the unit suite"
		why+=$'\n'"a sanitizer report in the unit suite: "$(
			criterion_only_leaks "$log" | grep -m1 -E \
			'ERROR: (Address|Leak|Thread)Sanitizer|runtime error:')
		failed=$((failed + 1))
	fi
}

if [ -n "$unit" ]; then
	if [ -n "${FEEDRATE_FAST:-}" ]; then
		# the fast subset leaves out suites whose name ends in _slow
		run_unit "the fast tests" --filter '!(*_slow/*)'
	else
		# unset, each runner would have a state folder of its own
		# (feedrate-fixtures-run<its pid>, fixture_testlib.h)
		fixtures=${FEEDRATE_FIXTURE_DIR:-/var/tmp/feedrate-fixtures-run$$}
		export FEEDRATE_FIXTURE_DIR=$fixtures FEEDRATE_FIXTURE_OWNER=$$
		run_unit "the rate and stop-signal tests" -j1 \
			--filter "@($MEASURE)"
		t2=$SECONDS
		# the fixture suites', the stall tests' and the mpirun tests'
		# runners in the background, their output kept for after the
		# other's; a fixture set apart for each but the first (the
		# fixture suites throttle theirs, the stall tests stop theirs)
		beside fixture "the storage fixture suites" -j1 \
			--filter "@($FIXTURE)"
		FEEDRATE_FIXTURE_DIR=$fixtures-stall FEEDRATE_FIXTURE_OWNER= \
			beside stall "the stall tests" -j1 --filter "$STALL"
		FEEDRATE_FIXTURE_DIR=$fixtures-mpistall FEEDRATE_FIXTURE_OWNER= \
			beside mpistall "the mpirun stall tests" -j1 \
			--filter "$MPI_STALL"
		runners="fixture stall mpistall"
		if [ -z "${FEEDRATE_SANITIZE:-}" ]; then
			FEEDRATE_FIXTURE_DIR=$fixtures-mpi \
			FEEDRATE_FIXTURE_OWNER= beside mpi \
				"the other mpirun tests" -j1 --filter "$MPI"
			runners="$runners mpi"
		fi
		FEEDRATE_FIXTURE_DIR=$fixtures-side FEEDRATE_FIXTURE_OWNER= \
			run_unit "the other tests" -j3 \
			--filter "!($MEASURE|$FIXTURE|$STALL|$MPI_STALL|$MPI)"
		for b in $runners; do
			wait "$(cat "$times/$b.pid")"
			src=$?
			echo "run_tests.sh: $(cat "$times/$b.what") (run beside):"
			cat "$times/$b.log"
			count_unit "$times/$b.log" "$src"
			echo "run_tests.sh: $(cat "$times/$b.s") s for" \
			     "$(cat "$times/$b.what")"
		done
		side=
		echo "run_tests.sh: $((SECONDS - t2)) s for the tests run side by side"
		[ -n "${FEEDRATE_SANITIZE:-}" ] &&
			run_unit "the other mpirun tests" -j1 --filter "$MPI"
		stop_fixtures
	fi
fi

# The slowest tests of the unit runs, from Criterion's XML (a test's
# time is its own process's, setup and teardown included).
slowest() {
	local n=${FEEDRATE_SLOWEST:-20}

	[ "$n" -gt 0 ] || return 0
	cat "$times"/*.xml 2>/dev/null | awk '
	/<testsuite / { match($0, /name="[^"]*"/); suite = substr($0, RSTART + 6, RLENGTH - 7) }
	/<testcase / && !/status="SKIPPED"/ {
		match($0, /name="[^"]*"/); name = substr($0, RSTART + 6, RLENGTH - 7)
		match($0, /time="[^"]*"/); t = substr($0, RSTART + 6, RLENGTH - 7)
		printf "%8.1f s  %s::%s\n", t, suite, name
	}' | sort -rn | head -n "$n" >"$log"
	if [ -s "$log" ]; then
		echo "run_tests.sh: the $n slowest tests:"
		cat "$log"
	fi
}
[ -n "$unit" ] && slowest

if [ -n "$stress" ]; then
	t0=$SECONDS
	"$stress" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
	if [ -z "$line" ]; then
		echo "run_tests.sh: the stress driver printed no summary (exit $rc)"
		failed=$((failed + 1))
	else
		p=$(sed -E 's/^([0-9]+) passed.*/\1/' <<<"$line")
		f=$(sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/' <<<"$line")
		passed=$((passed + p))
		failed=$((failed + f))
		[ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && failed=$((failed + 1))
	fi
	if grep -qE 'WARNING: ThreadSanitizer|ERROR: (Address|Leak)Sanitizer|runtime error:' "$log"; then
		echo "run_tests.sh: a sanitizer reported an error in the stress driver"
		failed=$((failed + 1))
	fi
	echo "run_tests.sh: $((SECONDS - t0)) s for the stress driver"
fi

if [ "$failed" -ne 0 ] && [ -n "$why" ]; then
	echo "run_tests.sh: what failed:"
	sed '/^$/d; s/^/  /' <<<"$why"
fi
echo "tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

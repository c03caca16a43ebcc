#!/usr/bin/env bash
# Runs feedrate's test binaries and ends with one summary line:
#   tests: N passed, N failed
# --unit BIN    the Criterion suite (its synthesis line is parsed)
# --stress BIN  the plain-C stress driver (its "N passed, N failed" line)
# A sanitizer report anywhere in the output fails the run, whatever the
# runners counted (Criterion counts a test whose process leaked as passing).
set -u
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
trap 'rm -f "$log"' EXIT

# One run of the unit suite with Criterion options "$@"; adds to the
# counts and to WHY.
run_unit() {
	"$unit" --color=never --timeout 300 "$@" 2>&1 | tee "$log"
	urc=${PIPESTATUS[0]}
	line=$(sed 's/\x1b\[[0-9;]*m//g' "$log" | grep 'Synthesis:' | tail -n 1)
	if [ -z "$line" ]; then
		echo "run_tests.sh: the unit suite printed no synthesis line"
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
		why+=$(sed 's/\x1b\[[0-9;]*m//g' "$log" |
		       grep -E '^\[FAIL\]|^\[----\] [^ ]+:[0-9]+:' | head -n 30)
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
		run_unit --filter '!(*_slow/*)'
	else
		# the mpirun tests start ranks that keep every CPU busy: they
		# run after the others, one at a time, so that they neither
		# starve the tests that time a pipeline nor are starved
		run_unit --filter '!(cluster_mpi_slow/*)'
		run_unit -j1 --filter 'cluster_mpi_slow/*'
	fi
fi

if [ -n "$stress" ]; then
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
fi

if [ "$failed" -ne 0 ] && [ -n "$why" ]; then
	echo "run_tests.sh: what failed:"
	sed '/^$/d; s/^/  /' <<<"$why"
fi
echo "tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

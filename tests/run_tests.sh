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

passed=0 failed=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

if [ -n "$unit" ]; then
	filter=()
	# the fast subset leaves out suites whose name ends in _slow
	[ -n "${FEEDRATE_FAST:-}" ] && filter=(--filter '!(*_slow/*)')
	"$unit" --color=never --timeout 300 "${filter[@]}" 2>&1 | tee "$log"
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
	fi
	if [ -n "$line" ] && [ "$urc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "run_tests.sh: the unit suite exited $urc"
		failed=$((failed + 1))
	fi
	if grep -qE 'ERROR: (Address|Leak|Thread)Sanitizer|runtime error:' "$log"; then
		echo "run_tests.sh: a sanitizer reported an error in the unit suite"
		failed=$((failed + 1))
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

echo "tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

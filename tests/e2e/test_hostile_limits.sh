# SPDX-License-Identifier: GPL-3.0-or-later
# Resource limits and a closed stdout: an address-space limit, a
# process-count limit and a small fd limit degrade the delete instead of
# aborting it, and `-v` into a closed pipe stops it promptly, as GNU rm's
# stdio does. Big cases (1,000 x 1,000, a 100,000-deep chain): E2E_BIG=1.

no_sanitizer() { # the sanitizers reserve terabytes of address space and add threads
	[ -z "${E2E_SAN:-}" ] || skip "not under the $E2E_SAN build"
}

# What a degraded run may print: GNU-style errors for the parts that stayed,
# and the one warning about the workers it could not start.
check_messages() { # FILE
	local prog bad
	prog=$ADAPTRM # as invoked, as GNU names itself
	bad=$(grep -v -E -e "^$prog: cannot remove '.*': [A-Z][a-z ]+\$" \
		-e "^$prog: warning: started [0-9]+ of [0-9]+ workers: [A-Z][a-z ]+\$" "$1" | head -3)
	[ -z "$bad" ] || fail "not a GNU-style message: $bad"
	[ "$(grep -c "warning: started" "$1")" -le 1 ] || fail "the workers' warning more than once"
}

# as_case MIB THREADS: a 1,000-deep chain and a 100 x 30 tree under
# prlimit --as=MIB: both gone and exit 0, or exit 1 with what failed said
# GNU's way and left in place; never "memory exhausted" for the whole run.
as_case() {
	no_sanitizer
	command -v prlimit >/dev/null || skip "no prlimit"
	local mib=$1 threads=$2 rc=0
	make_sentinel keep
	local before
	before=$(sentinel_sum keep)
	make_chain c 1000
	make_tree w 100 30
	prlimit --as=$((mib << 20)) "$ADAPTRM" -rf --no-profile --threads="$threads" c w 2>err || rc=$?
	echo "--as=${mib}M --threads=$threads: exit $rc, $(wc -l <err) messages"
	check_messages err
	if [ "$rc" = 0 ]; then
		expect_gone c
		expect_gone w
	else
		expect_eq "$rc" 1 "exit status"
		grep -q "cannot remove" err || fail "exit 1 without saying what stayed: $(head -3 err)"
		[ -e c ] || [ -e w ] || fail "exit 1 but everything is gone"
	fi
	expect_eq "$(sentinel_sum keep)" "$before" "sentinel changed"
}
test_hostile_as_64m_threads_8() { as_case 64 8; }
test_hostile_as_64m_threads_64() { as_case 64 64; }
test_hostile_as_128m_threads_64() { as_case 128 64; }
test_hostile_as_256m_threads_64() { as_case 256 64; }

# deep_as_case MIB [OPTION]...: a 20,000-deep chain with a file at each
# level under prlimit --as=MIB goes whole, exit 0, as it does with GNU rm.
# The engine keeps one small node per level (docs/design.md#bounded-memory),
# which fits many times over; what did not fit was glibc's malloc arena per
# thread, whose reservation fails under the limit and then leaves each of
# that thread's allocations a page of its own.
deep_as_case() {
	no_sanitizer
	command -v prlimit >/dev/null || skip "no prlimit"
	local mib=$1 rc=0
	shift
	make_sentinel keep
	local before
	before=$(sentinel_sum keep)
	make_chain c 20000 1
	prlimit --as=$((mib << 20)) "$ADAPTRM" -rf --no-profile "$@" c 2>err || rc=$?
	echo "--as=${mib}M${*:+ $*}: exit $rc, $(wc -l <err) messages"
	check_messages err
	expect_eq "$rc" 0 "exit status (messages: $(head -3 err))"
	expect_gone c
	expect_eq "$(sentinel_sum keep)" "$before" "sentinel changed"
}
test_hostile_as_64m_chain_20000() { deep_as_case 64; }
test_hostile_as_256m_chain_20000_threads_64() { deep_as_case 256 --threads=64; }
# Too small for 64 workers' stacks and the chain's nodes: fewer workers.
test_hostile_as_16m_chain_20000_threads_64() { deep_as_case 16 --threads=64; }

# nproc_case LIMIT: `ulimit -u LIMIT` as nobody (RLIMIT_NPROC counts the
# user's threads; root is exempt) on a tree nobody owns, --threads=8: it
# runs with the workers it could start (none: in the calling thread), says
# so once, and removes everything.
nproc_case() {
	need_root
	command -v setpriv >/dev/null || skip "no setpriv"
	id nobody >/dev/null 2>&1 || skip "no user nobody"
	local limit=$1 rc=0 prog
	prog=$ADAPTRM # as invoked, as GNU names itself
	mkdir own
	make_tree own/t 40 50
	chown -R nobody own
	[ "$(ps -u nobody --no-headers | wc -l)" = 0 ] || skip "nobody runs processes here"
	# LeakSanitizer's checker is one more task, which the limit refuses
	(
		ulimit -u "$limit"
		ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
			exec setpriv --reuid=nobody --regid=nogroup --clear-groups \
			"$ADAPTRM" -rf --no-profile --threads=8 own/t
	) 2>err || rc=$?
	cat err
	expect_eq "$rc" 0 "exit status"
	expect_gone own/t
	check_messages err
	grep -q -E "^$prog: warning: started [0-9] of 8 workers: Resource temporarily unavailable\$" err ||
		fail "no warning about the workers: $(head -3 err)"
}
test_hostile_nproc_1_runs_in_the_calling_thread() { nproc_case 1; }
test_hostile_nproc_3_runs_with_the_workers_it_has() { nproc_case 3; }

# fd_case: `ulimit -n 16` forces the fd cache to close and re-open (by
# verified paths) nearly every directory.
fd_case() { # OPERAND THREADS
	local rc=0
	make_sentinel keep
	local before
	before=$(sentinel_sum keep)
	(
		ulimit -n 16
		exec timeout 300 "$ADAPTRM" -rf --no-profile --threads="$2" "$1"
	) 2>err || rc=$?
	expect_eq "$rc" 0 "exit status (messages: $(head -3 err))"
	[ ! -s err ] || fail "messages: $(head -3 err)"
	expect_gone "$1"
	expect_eq "$(sentinel_sum keep)" "$before" "sentinel changed"
}
test_hostile_fd_16_wide() {
	local n=300
	[ "${E2E_BIG:-0}" = 1 ] && n=1000
	make_tree w $n $n
	fd_case w 8
}
test_hostile_fd_16_deep() {
	local n=5000
	[ "${E2E_BIG:-0}" = 1 ] && n=100000
	make_chain c $n
	fd_case c 8
}
# More workers than the fd limit can hold: 64 chains of 30 in flight at once
# at --threads=64 had each worker pin two fds and ended in EMFILE ("Too many
# open files") in 5 runs of 5; the engine now runs the workers that fit.
test_hostile_fd_16_more_workers_than_fds() {
	local d
	for d in $(seq 64); do
		mkdir -p "t/d$d/$(printf 'x/%.0s' $(seq 30))"
		touch "t/d$d/x/f"
	done
	fd_case t 64
}

# -v into a closed pipe. GNU rm's stdio writes 4 KiB at a time, and the
# first write after the reader left ends it (SIGPIPE: 141) within ~300 of
# 50,051 entries; with SIGPIPE ignored it gets EPIPE, says "write error:
# Broken pipe" and exits 1. adaptrm must stop as promptly: the pipe holds at
# most 64 KiB (~2,600 lines) before the reader is gone.
pipe_case() { # SIGPIPE(default|ignored) ARGS...
	local how=$1 prog left
	shift
	prog=$ADAPTRM # as invoked, as GNU names itself
	make_tree t 50 1000
	if [ "$how" = ignored ]; then
		(
			trap '' PIPE
			"$ADAPTRM" -rv --no-profile "$@" t 2>err | head -1 >out
			echo "${PIPESTATUS[0]}" >rc
		)
	else
		"$ADAPTRM" -rv --no-profile "$@" t 2>err | head -1 >out
		echo "${PIPESTATUS[0]}" >rc
	fi
	left=$(find t 2>/dev/null | wc -l)
	echo "SIGPIPE $how, $*: exit $(cat rc), $left of 50051 entries left"
	grep -q "^removed " out || fail "no -v line went through: $(cat out)"
	[ "$left" -ge 45000 ] || fail "only $left of 50051 entries left: the delete went on after the reader left"
	if [ "$how" = ignored ]; then
		expect_eq "$(cat rc)" 1 "exit status"
		grep -q -x "$prog: write error: Broken pipe" err || fail "no write error: $(head -3 err)"
		local bad
		bad=$(grep "^$prog: " err | grep -v -x "$prog: write error: Broken pipe" | head -3)
		[ -z "$bad" ] || fail "unexpected messages: $bad"
	else
		expect_eq "$(cat rc)" 141 "exit status (killed by SIGPIPE)"
	fi
}
test_hostile_verbose_closed_pipe() { pipe_case default; }
test_hostile_verbose_closed_pipe_stats_threads_4() { pipe_case default --stats --threads=4; }
test_hostile_verbose_closed_pipe_sigpipe_ignored() { pipe_case ignored; }
test_hostile_verbose_closed_pipe_sigpipe_ignored_stats_threads_4() { pipe_case ignored --stats --threads=4; }

# --json=FILE that cannot be written: the delete goes on, the message is
# given once and the exit status is 1, as for --trace --json. (The previous
# binary said so and exited 0.)
test_hostile_json_not_written() {
	[ -c /dev/full ] || skip "no /dev/full"
	make_sentinel keep; local before; before=$(sentinel_sum keep)
	local prog rc
	prog=$ADAPTRM # as invoked, as GNU names itself
	make_tree t 3 10
	rc=0; "$ADAPTRM" -rf --json=/dev/full t 2>err || rc=$?
	expect_eq "$rc" 1 "exit status, --json=/dev/full"
	expect_eq "$(cat err)" "$prog: write error on /dev/full: No space left on device"
	expect_gone t
	make_tree t 3 10
	rc=0; "$ADAPTRM" -rf --json=nodir/j.json t 2>err || rc=$?
	expect_eq "$rc" 1 "exit status, --json into a missing directory"
	expect_eq "$(cat err)" "$prog: cannot write nodir/j.json: No such file or directory"
	expect_gone t
	make_tree t 3 10
	"$ADAPTRM" -rf --json=j.json t || fail "a written --json failed"
	expect_gone t
	python3 -c 'import json, sys; json.load(open(sys.argv[1]))' j.json || fail "j.json is not JSON"
	expect_eq "$(sentinel_sum keep)" "$before" "sentinel changed"
}

# --stats and --explain write stderr: where that write fails (a full disk, a
# closed fd) the exit status is 1, without a message (stderr is where it
# would go), as gnulib's close_stdout makes it for GNU rm (rm -i answering a
# prompt written into /dev/full exits 1). A closed stderr never written, or
# a full stdout nothing went to, is no failure. (The previous binary exited 0.)
test_hostile_stats_into_a_failing_stderr() {
	[ -c /dev/full ] || skip "no /dev/full"
	make_sentinel keep; local before; before=$(sentinel_sum keep)
	local rc how
	for how in '--stats 2>/dev/full' '--explain 2>/dev/full' '--stats 2>&-'; do
		make_tree t 3 10
		rc=0; eval "\"\$ADAPTRM\" -rf $how t" || rc=$?
		expect_eq "$rc" 1 "exit status, $how"
		expect_gone t
	done
	for how in '2>&-' '--stats >/dev/full' '-v >/dev/null 2>/dev/full'; do
		make_tree t 3 10
		rc=0; eval "\"\$ADAPTRM\" -rf $how t" || rc=$?
		expect_eq "$rc" 0 "exit status, $how"
		expect_gone t
	done
	: >f
	rc=0; echo y | "$ADAPTRM" -i f 2>/dev/full || rc=$?
	expect_eq "$rc" 1 "exit status, a prompt into /dev/full"
	expect_gone f
	expect_eq "$(sentinel_sum keep)" "$before" "sentinel changed"
}

# SPDX-License-Identifier: GPL-3.0-or-later
# Writers that keep creating files and directories in the tree being removed
# must not make adaptrm loop forever. GNU rm reads each directory once and
# reports what appeared after as the rmdir's "Directory not empty"; adaptrm
# reads a directory at most what it could hold when it was opened (plus a
# margin), so it always ends: exit 0 with the operand gone, or exit 1 with GNU-style
# messages and the operand still there. `timeout 240` is the hang detector
# (before the fix, --threads=1 on tmpfs was still unlinking after minutes):
# what the writers made before adaptrm opened a directory is deleted too, so
# these runs take longer the busier the machine (under ASan beside four CPU
# hogs, tens of seconds). The bound itself is checked by counting, not
# timing, in the last test.
# The writers and adaptrm share one CPU, so that the writers create faster
# than adaptrm removes whatever else runs on the machine.

# writer ROOT SECONDS NDIRS: mknodat/mkdirat as fast as it can in ROOT and
# its first NDIRS subdirectories, every 64th entry a directory, until
# SECONDS have passed (0: until killed) or every directory is gone. C,
# because a Python writer is slower than the deleter and proves nothing.
build_writer() {
	[ -x "$SCRATCH/writer" ] && return 0
	command -v cc >/dev/null || skip "no C compiler for the writer"
	cc -O2 -o "$SCRATCH/writer" -x c - <<'EOF' || fail "cannot build the writer"
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	if (argc < 4)
		return 2;
	double secs = atof(argv[2]);
	int want = atoi(argv[3]), nd = 0, fds[65];
	fds[nd++] = open(argv[1], O_RDONLY | O_DIRECTORY);
	if (fds[0] < 0)
		return 1;
	DIR *dp = fdopendir(dup(fds[0]));
	struct dirent *de;
	while (dp && nd <= want && nd < 65 && (de = readdir(dp)))
		if (de->d_type == DT_DIR && de->d_name[0] != '.') {
			int fd = openat(fds[0], de->d_name, O_RDONLY | O_DIRECTORY);
			if (fd >= 0)
				fds[nd++] = fd;
		}
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	char name[64];
	unsigned long fails = 0;
	for (unsigned long n = 0;; n++) {
		if ((n & 1023) == 0) {
			clock_gettime(CLOCK_MONOTONIC, &t);
			if (secs > 0 && (t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 > secs)
				break;
			if (n && fails == 1024)
				break;
			fails = 0;
		}
		int fd = fds[n % nd];
		snprintf(name, sizeof name, "w%d_%lu", (int)getpid(), n);
		if (((n & 63) == 63 ? mkdirat(fd, name, 0755) : mknodat(fd, name, S_IFREG | 0644, 0)) < 0)
			fails++;
	}
	return 0;
}
EOF
}

# writers_case FS NWRITERS SECONDS THREADS...: for each thread count, a
# 20 x 300 tree on FS (tmpfs or ext4) removed while NWRITERS writers create
# in it for SECONDS (0: the whole run; they are killed after it): all in the
# top directory, one also in a subdirectory. (Each directory is bounded by
# what it holds when adaptrm opens it, as GNU's single read is; writers in
# many directories compound that, which only makes the test slow.)
writers_case() {
	local fs=$1 nw=$2 secs=$3 threads prog
	shift 3
	build_writer
	command -v taskset >/dev/null || skip "no taskset"
	local cpu
	cpu=$(python3 -c 'import os; print(min(os.sched_getaffinity(0)))')
	prog=$ADAPTRM # as invoked, as GNU names itself
	local base=$SCRATCH
	if [ "$fs" = ext4 ]; then
		need_root
		mount_fs ext4 "$SCRATCH/m" 512M || skip "cannot mount ext4"
		base=$SCRATCH/m
	fi
	make_sentinel "$base/keep"
	local before
	before=$(sentinel_sum "$base/keep")
	for threads in "$@"; do
		local dir=$base/t opt=()
		[ "$threads" = auto ] || opt=(--threads="$threads")
		make_tree "$dir" 20 300
		local pids=() i
		for ((i = 0; i < nw; i++)); do
			taskset -c "$cpu" "$SCRATCH/writer" "$dir" "$secs" $((i == 1)) &
			pids+=($!)
			on_exit "kill ${pids[-1]}"
		done
		sleep 0.1
		local rc=0 t0=$SECONDS
		timeout 240 taskset -c "$cpu" "$ADAPTRM" -rf --no-profile "${opt[@]}" "$dir" 2>err || rc=$?
		kill "${pids[@]}" 2>/dev/null || true
		wait "${pids[@]}" 2>/dev/null || true
		echo >&2 "$fs, $nw writers for ${secs}s, --threads=$threads: exit $rc in $((SECONDS - t0)) s"
		[ "$rc" != 124 ] || fail "--threads=$threads: still removing after 240 s with $nw writers on $fs"
		if [ "$rc" = 0 ]; then
			expect_gone "$dir"
			[ ! -s err ] || fail "exit 0 with messages: $(head -3 err)"
		else
			expect_eq "$rc" 1 "exit status (--threads=$threads)"
			expect_exists "$dir"
			[ -s err ] || fail "exit 1 without a message"
			# GNU's words only: "PROG: cannot remove 'x': Directory not empty"
			local bad
			bad=$(grep -v -E "^$prog: cannot remove '.*': (Directory not empty|No such file or directory)\$" err | head -3)
			[ -z "$bad" ] || fail "not a GNU-style message: $bad"
			grep -q "Directory not empty" err || fail "no 'Directory not empty': $(head -3 err)"
		fi
		rm -rf "$dir" err
	done
	expect_eq "$(sentinel_sum "$base/keep")" "$before" "sentinel changed"
}

test_hostile_writers_2_whole_run_tmpfs_threads_1() { writers_case tmpfs 2 0 1; }
test_hostile_writers_2_whole_run_tmpfs_auto() { writers_case tmpfs 2 0 auto; }
test_hostile_writers_2_whole_run_ext4_threads_1() { writers_case ext4 2 0 1; }
test_hostile_writers_2_whole_run_ext4_auto() { writers_case ext4 2 0 auto; }
test_hostile_writers_2_first_moments_tmpfs_threads_1() { writers_case tmpfs 2 0.3 1; }
test_hostile_writers_2_first_moments_tmpfs_auto() { writers_case tmpfs 2 0.3 auto; }
test_hostile_writers_2_first_moments_ext4_threads_1() { writers_case ext4 2 0.3 1; }
test_hostile_writers_2_first_moments_ext4_auto() { writers_case ext4 2 0.3 auto; }
test_hostile_writers_8_whole_run_tmpfs_threads_1() { writers_case tmpfs 8 0 1; }
test_hostile_writers_8_whole_run_tmpfs_auto() { writers_case tmpfs 8 0 auto; }
test_hostile_writers_8_whole_run_ext4_threads_1() { writers_case ext4 8 0 1; }
test_hostile_writers_8_whole_run_ext4_auto() { writers_case ext4 8 0 auto; }
test_hostile_writers_8_first_moments_tmpfs_threads_1() { writers_case tmpfs 8 0.3 1; }
test_hostile_writers_8_first_moments_tmpfs_auto() { writers_case tmpfs 8 0.3 auto; }
test_hostile_writers_8_first_moments_ext4_threads_1() { writers_case ext4 8 0.3 1; }
test_hostile_writers_8_first_moments_ext4_auto() { writers_case ext4 8 0.3 auto; }

# The bound itself, whatever the machine's load: a delete paced to 2,000
# operations a second (--max-ops) that writers outpace for the whole run,
# the writers started only once adaptrm holds the top directory open. Without
# the bound it never ends; with it, it reads the top directory at most for
# what it held when opened (its 20 subdirectories), its margin (1,024) and
# what the last read returned past them (a 64 KiB getdents64 buffer, 24 bytes
# an entry at least): --stats must count no more files than the initial
# tree's 6,000 and those.
test_hostile_writers_outpace_a_paced_delete() {
	build_writer
	local dir=$SCRATCH/t pid i seen='' rc=0
	make_tree "$dir" 20 300
	"$ADAPTRM" -rf --no-profile --threads=1 --max-ops=2000 --stats "$dir" 2>err &
	pid=$!
	on_exit "kill $pid"
	for i in $(seq 1 400); do
		for fd in /proc/"$pid"/fd/*; do
			[ "$(readlink "$fd" 2>/dev/null)" = "$dir" ] && seen=1 && break
		done
		[ -n "$seen" ] && break
		sleep 0.01
	done
	[ -n "$seen" ] || fail "adaptrm never opened $dir"
	local pids=()
	for i in 1 2; do
		"$SCRATCH/writer" "$dir" 0 0 &
		pids+=($!)
		on_exit "kill ${pids[-1]}"
	done
	timeout 120 tail --pid="$pid" -f /dev/null || fail "still removing after 120 s"
	wait "$pid" || rc=$?
	kill "${pids[@]}" 2>/dev/null || true
	wait "${pids[@]}" 2>/dev/null || true
	local files
	files=$(sed -n 's/^removed: \([0-9]*\) files.*/\1/p' err)
	[ -n "$files" ] || fail "no --stats summary: $(cat err)"
	[ "$files" -le $((6000 + 20 + 1024 + 65536 / 24)) ] ||
		fail "removed $files files: more than the top directory held when opened and its margin"
	if [ "$rc" = 0 ]; then
		expect_gone "$dir"
	else
		expect_eq "$rc" 1 "exit status"
		grep -q "Directory not empty" err || fail "no 'Directory not empty': $(head -3 err)"
	fi
}

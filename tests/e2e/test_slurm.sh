# SPDX-License-Identifier: GPL-3.0-or-later
# adaptrm-mpi as HPC sites run it: under a Slurm of the test's own
# (scripts/slurm-local.sh: munged, slurmctld and slurmd on this machine, 8
# task slots), launched by srun, by mpirun inside salloc, and by sbatch with
# the purge script of the docs (docs/examples/purge.sbatch, shown in the
# README); a job cancelled or out of time ends promptly, changes nothing
# outside its operands, and a second run finishes the work. Debian's Open
# MPI and Slurm share PMIx (srun --mpi=pmix); Open MPI there has no PMI-2.
# A step that does not end gets SIGUSR1 first (srun passes it on: each rank
# says on stderr what it waits for and holds), then the kill.

# need_slurm: adaptrm-mpi, and a Slurm started for this test (stopped at
# its end, whatever happens).
need_slurm() {
	MPI_BIN=$(dirname "$ADAPTRM")/adaptrm-mpi
	[ -x "$MPI_BIN" ] || skip "adaptrm-mpi is not built (no Open MPI)"
	local rc=0 why
	why=$(bash "$E2E_REPO/scripts/slurm-local.sh" check 2>&1) || rc=$?
	[ $rc = 0 ] || skip "${why:-cannot run Slurm here}"
	# munged wants every directory above its socket reachable by all, which
	# the test's scratch is not: a directory of its own in /tmp
	SLURM_DIR=$(mktemp -u /tmp/adaptrm-slurm.XXXXXX)
	on_exit bash "$E2E_REPO/scripts/slurm-local.sh" stop "$SLURM_DIR"
	bash "$E2E_REPO/scripts/slurm-local.sh" start "$SLURM_DIR" >slurm.out 2>&1 ||
		fail "Slurm did not start: $(cat slurm.out; tail -5 "$SLURM_DIR"/log/* 2>/dev/null)"
	export SLURM_CONF=$SLURM_DIR/slurm.conf
	# the job's adaptrm-mpi is the one under test, found on its PATH
	PATH=$(dirname "$MPI_BIN"):$PATH
	export PATH
	JOB_MARK=$$.$RANDOM
	export ADAPTRM_TEST_JOB=$JOB_MARK
}

# job_state ID: the state of job ID (while slurmctld remembers it).
job_state() { scontrol show job "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p'; }
job_exit() { scontrol show job "$1" 2>/dev/null | sed -n 's/.* ExitCode=\([0-9:]*\).*/\1/p'; }

# marked_ranks: pids of this test's adaptrm-mpi processes.
marked_ranks() {
	local p
	for p in $(pgrep -x adaptrm-mpi); do
		tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "ADAPTRM_TEST_JOB=$JOB_MARK" &&
			echo "$p"
	done
	return 0
}

# wait_job_end ID SECONDS: until job ID has ended and none of its ranks is
# left (fails after SECONDS: a job that does not end is the failure looked
# for).
wait_job_end() {
	local _ s
	for _ in $(seq $(($2 * 10))); do
		s=$(job_state "$1")
		case $s in PENDING | RUNNING | CONFIGURING | COMPLETING | SUSPENDED) ;; *)
			[ -z "$(marked_ranks)" ] && return 0
			;;
		esac
		sleep 0.1
	done
	fail "job $1 did not end: state $(job_state "$1"), ranks $(marked_ranks | tr '\n' ' ')"
}

# wait_some_gone DIR N: until fewer than N files are left under DIR (the
# job is past its start and deleting), 120 s at most.
wait_some_gone() {
	local _
	for _ in $(seq 1200); do
		[ "$(find "$1" -type f | wc -l)" -lt "$2" ] && return 0
		sleep 0.1
	done
	fail "nothing was deleted in 120 s"
}

test_slurm_srun_deletes_a_tree() {
	need_slurm
	make_tree t 40 100
	make_sentinel keep
	local before
	before=$(sentinel_sum keep)
	ADAPTRM_DIST_EAGER=1 timeout -s USR1 -k 30 600 srun --mpi=pmix -n 4 adaptrm-mpi -rf --stats t 2>err ||
		{ cat err >&2; fail "srun failed"; }
	expect_gone t
	expect_eq "$(sentinel_sum keep)" "$before" "sentinel changed"
	grep -q '^removed: 4000 files, 41 directories' err || fail "counts: $(cat err)"
	grep -q '^ranks: 4 ' err || fail "not 4 ranks: $(cat err)"
	# a rank that fails fails the step
	make_tree t 10 10
	mkdir t/d3/busy
	mount -t tmpfs -o size=1m none t/d3/busy || skip "cannot mount tmpfs"
	on_exit umount -l "$PWD/t/d3/busy"
	local rc=0
	timeout -s USR1 -k 30 600 srun --mpi=pmix -n 4 adaptrm-mpi -rf t 2>err || rc=$?
	[ $rc != 0 ] || fail "srun said all went well with an undeletable entry"
	expect_exists t/d3/busy
	expect_gone t/d4
}

test_slurm_salloc_mpirun() {
	need_slurm
	make_tree t 30 100
	timeout 600 salloc -n 4 mpirun --allow-run-as-root adaptrm-mpi -rf --stats t 2>err ||
		{ cat err >&2; fail "salloc failed"; }
	expect_gone t
	grep -q '^removed: 3000 files, 31 directories' err || fail "counts: $(cat err)"
	grep -q '^ranks: 4 ' err || fail "not 4 ranks: $(cat err)"
}

# The docs' purge script as it is, one rank per "node" made four tasks on
# this one node by sbatch's command line (which overrides #SBATCH lines).
PURGE_SCRIPT=docs/examples/purge.sbatch

sbatch_purge() { # ARGS...: the purge script submitted, with ARGS before it
	sbatch --parsable --nodes=1 --ntasks=4 --ntasks-per-node=4 "$@" \
		"$E2E_REPO/$PURGE_SCRIPT"
}

test_slurm_sbatch_purge_script_from_the_docs() {
	need_slurm
	# the README shows the script the test runs, line for line
	local readme=$E2E_REPO/README.md
	grep -v SPDX "$E2E_REPO/$PURGE_SCRIPT" >script.txt
	awk '/^```bash$/ {inb = 1; buf = ""; next}
		/^```$/ {if (inb && buf ~ /#SBATCH/) printf "%s", buf; inb = 0; next}
		inb {buf = buf $0 "\n"}' "$readme" >shown.txt
	cmp -s script.txt shown.txt || fail "README's batch script differs from $PURGE_SCRIPT: $(diff script.txt shown.txt)"
	make_tree t 60 30
	mkdir -p t/gone/sub t/kept
	touch t/gone/sub/x t/kept/y
	find "$PWD/t" -type f ! -path '*/kept/*' | awk 'NR % 3 == 0' >list
	echo "$PWD/t/gone/sub/x" >>list
	find t -type f | LC_ALL=C sort >before
	local job
	job=$(LIST=$PWD/list MAX_OPS=100000 sbatch_purge --wait) ||
		fail "the purge job failed: $(cat purge-*.log)"
	[ -s "purge-$job.log" ] || fail "no log purge-$job.log: $(ls)"
	grep -q "^removed: $(wc -l <list) files, 2 directories" "purge-$job.log" ||
		fail "counts: $(cat "purge-$job.log")"
	sed "s|^$PWD/||" list | LC_ALL=C sort >listed
	find t -type f | LC_ALL=C sort >after
	expect_eq "$(comm -23 before listed | md5sum)" "$(md5sum <after)" "what is left"
	expect_gone t/gone
	expect_exists t/kept/y
	# a path that cannot go: the job says so in its exit status
	mkdir -p t/m
	mount -t tmpfs -o size=1m none t/m || skip "cannot mount tmpfs"
	on_exit umount -l "$PWD/t/m"
	touch t/m/f
	echo "$PWD/t/m" >list2
	local rc=0
	job=$(LIST=$PWD/list2 sbatch_purge --wait) || rc=$?
	[ $rc != 0 ] || fail "the purge job said all went well with a mount point listed"
	expect_exists t/m/f
}

# A purge cut short (scancel, or the time limit) must end promptly, leave
# what is outside its operands as it was, and a second run must finish it.
cut_short() { # HOW: scancel or timeout
	local how=$1 job files before rc=0
	make_tree t 40 1000
	make_sentinel keep
	before=$(sentinel_sum keep)
	find "$PWD/t" -type f >list
	files=$(find t -type f | wc -l)
	# paced, so that the job outlasts the cut
	if [ "$how" = scancel ]; then
		job=$(LIST=$PWD/list MAX_OPS=1000 sbatch_purge) || fail "sbatch failed"
		wait_some_gone t "$files"
		scancel "$job"
	else
		job=$(LIST=$PWD/list MAX_OPS=200 sbatch_purge --time=1) || fail "sbatch failed"
		wait_some_gone t "$files"
	fi
	# slurmctld looks at time limits every half minute or so
	if [ "$how" = scancel ]; then wait_job_end "$job" 60; else wait_job_end "$job" 300; fi
	case $how in
	scancel) expect_eq "$(job_state "$job")" CANCELLED "job state" ;;
	*) expect_eq "$(job_state "$job")" TIMEOUT "job state" ;;
	esac
	[ "$(job_exit "$job")" != 0:0 ] || fail "the job's exit code says all went well"
	expect_exists t
	expect_eq "$(sentinel_sum keep)" "$before" "sentinel changed"
	# the same job again finishes the work: the paths already gone are no
	# errors (-f), and the directories they leave empty go
	job=$(LIST=$PWD/list MAX_OPS=1000000 sbatch_purge --wait) || rc=$?
	[ $rc = 0 ] || fail "the second run failed: $(cat "purge-$job.log")"
	expect_eq "$(find t -type f | wc -l)" 0 "files left"
	expect_eq "$(find t -mindepth 1 | wc -l)" 0 "directories left"
	expect_eq "$(sentinel_sum keep)" "$before" "sentinel changed"
}

test_slurm_scancel_mid_run() {
	need_slurm
	cut_short scancel
}

test_slurm_time_limit_mid_run() {
	need_slurm
	cut_short timeout
}

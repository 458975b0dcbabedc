# SPDX-License-Identifier: GPL-3.0-or-later
# The benchmark harness (scripts/bench/bench.sh, scripts/bench/report.py): a tiny
# matrix must run end to end and report; a run killed outright must not leave
# mounts and loop devices behind for good; the report's verdict on a loss
# must follow the paired repetitions. No timings are asserted.

repo_root() { (cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd); }

# A 2 x 3 matrix at a small scale on tmpfs: every run recorded as ok with its
# run id, the table and ratios written, and nothing left mounted.
test_bench_smoke() {
	need_root
	local repo; repo=$(repo_root)
	mkdir -p work
	BENCH_WORK=$SCRATCH/work BENCH_FS=tmpfs BENCH_SHAPES="tree chain" BENCH_TOOLS="auto t1 rm" \
		BENCH_REPS=2 BENCH_SCALE=0.005 BENCH_TRACE=0 BENCH_OUT=$SCRATCH/out ADAPTRM=$ADAPTRM \
		bash "$repo/scripts/bench/bench.sh" >stdout 2>stderr || { cat stderr; fail "bench.sh failed"; }
	expect_eq "$(awk -F'\t' 'NR > 1 && $6 == "ok"' out/latest.tsv | wc -l)" 12 "runs recorded ok"
	expect_eq "$(awk -F'\t' 'NR > 1 && $11 == ""' out/latest.tsv | wc -l)" 0 "runs without a run id"
	grep -q '^| tmpfs | 1 dirs x 1000 files |' out/latest.md || fail "no tree row in the report"
	grep -q '^| tmpfs | chain 250 deep |.*(rm) |' out/latest.md || fail "no auto / best peer ratio for the chain"
	grep -q '^| tmpfs | chain 250 deep |' stdout || fail "no table on stdout"
	expect_eq "$(ls work)" "" "scratch directories left behind"
	grep -q "$SCRATCH" /proc/mounts && fail "mounts left behind: $(grep "$SCRATCH" /proc/mounts)"
	true
}

# A run that was SIGKILLed leaves its tmpfs, loop device and image; the next
# run cleans them up. A directory whose run is still alive is left alone.
test_bench_cleans_up_after_killed_run() {
	need_root
	local repo; repo=$(repo_root)
	local dead=work/adaptrm-bench.dead live=work/adaptrm-bench.live
	mkdir -p "$dead/mnt" "$live/mnt"
	true & local gone=$!; wait $gone
	echo $gone >"$dead/pid"
	echo $$ >"$live/pid"
	mount -t tmpfs tmpfs "$dead/mnt" && on_exit umount -l "$SCRATCH/$dead/mnt"
	truncate -s 1M "$dead/fs.img"
	local loop; loop=$(losetup -f --show "$dead/fs.img") || fail "losetup"
	on_exit losetup -d "$loop"
	BENCH_WORK=$SCRATCH/work BENCH_FS=tmpfs BENCH_SHAPES=flat BENCH_TOOLS=t1 BENCH_REPS=1 \
		BENCH_SCALE=0.001 BENCH_TRACE=0 BENCH_OUT=$SCRATCH/out ADAPTRM=$ADAPTRM \
		bash "$repo/scripts/bench/bench.sh" >/dev/null 2>stderr || { cat stderr; fail "bench.sh failed"; }
	grep -q "cleaning up after an interrupted run ($SCRATCH/$dead)" stderr || fail "no cleanup message: $(cat stderr)"
	expect_gone "$dead"
	grep -q "$SCRATCH/$dead" /proc/mounts && fail "stale tmpfs still mounted"
	losetup -n -O BACK-FILE "$loop" 2>/dev/null | grep -q adaptrm-bench.dead && fail "loop device $loop still attached"
	expect_exists "$live/pid"
	grep -q "$SCRATCH/$live" stderr && fail "touched a live run's directory"
	true
}

# bench-report's verdict: auto slower than the best peer by the medians is a
# loss only if the per-repetition ratio's interval lies above 1. Repetitions
# of two concatenated runs (the same rep numbers) pair within their run.
test_bench_report_paired_verdict() {
	local repo; repo=$(repo_root)
	{
		printf 'fs\tshape\tlabel\ttool\trep\tstatus\twall\tuser\tsys\tnote\trun\n'
		local run rep
		for run in a b; do
			for rep in 1 2 3 4 5; do
				# Cell "slow": auto 5% slower in every repetition.
				printf 'tmpfs\tflat\tflat 9\tauto\t%s\tok\t1.05\t0\t0\t\t%s\n' $rep $run
				printf 'tmpfs\tflat\tflat 9\trmz\t%s\tok\t1.00\t0\t0\t\t%s\n' $rep $run
				printf 'tmpfs\tflat\tflat 9\tt1\t%s\tok\t1.05\t0\t0\t\t%s\n' $rep $run
				# Cell "tie": auto behind in odd repetitions, ahead in even ones.
				if [ $((rep % 2)) = 1 ]; then
					printf 'xfs\tflat\tflat 9\tauto\t%s\tok\t1.03\t0\t0\t\t%s\n' $rep $run
				else
					printf 'xfs\tflat\tflat 9\tauto\t%s\tok\t0.99\t0\t0\t\t%s\n' $rep $run
				fi
				printf 'xfs\tflat\tflat 9\trmz\t%s\tok\t1.00\t0\t0\t\t%s\n' $rep $run
				printf 'xfs\tflat\tflat 9\tt1\t%s\tok\t1.00\t0\t0\t\t%s\n' $rep $run
			done
		done
		# Cell "few": slower in each of only 3 repetitions: a 75% interval, no verdict.
		for rep in 1 2 3; do
			printf 'btrfs\tflat\tflat 9\tauto\t%s\tok\t1.10\t0\t0\t\tc\n' $rep
			printf 'btrfs\tflat\tflat 9\trmz\t%s\tok\t1.00\t0\t0\t\tc\n' $rep
		done
	} >runs.tsv
	python3 "$repo/scripts/bench/report.py" runs.tsv report.md report.json || fail "bench-report failed"
	grep -q 'tmpfs flat 9 (1.05 vs rmz; repetition by repetition 1.05 .*auto faster in 0 of 10)' report.md ||
		fail "slow cell not reported: $(grep slower report.md)"
	grep -q 'xfs flat 9 (1.03 vs rmz; repetition by repetition 1.03 .*auto faster in 4 of 10)' report.md ||
		fail "tie cell not reported: $(grep slower report.md)"
	grep -q '^Of these, measurably slower (.*): tmpfs flat 9; too few repetitions for a 90% interval in btrfs flat 9\.$' report.md ||
		fail "verdict: $(grep measurably report.md)"
	grep -q 'over 3 to 10 repetitions' report.md || fail "repetition count: $(grep -o 'over [^(]*' report.md)"
}

# What a failed io smoke test could leave: loop devices backed under the
# scratch directory, mounts there, blkio cgroups of benchmark runs that are gone.
bench_leftovers() {
	local cg
	awk -v p="$SCRATCH/" 'index($2, p) == 1 {print "mount " $2}' /proc/mounts | sort -r
	losetup -n -l -O NAME,BACK-FILE 2>/dev/null | awk -v p="$SCRATCH/" 'index($2, p) == 1 {print "loop " $1}'
	for cg in /sys/fs/cgroup/blkio/adaptrm-bench.*; do
		[ -d "$cg" ] && ! kill -0 "${cg##*.}" 2>/dev/null && echo "cgroup $cg"
	done
	true
}
bench_remove_leftovers() {
	local kind what
	bench_leftovers | while read -r kind what; do
		case $kind in
		mount) umount -l "$what" ;;
		loop) losetup -d "$what" ;;
		cgroup) rmdir "$what" ;;
		esac
	done
}

# The real-I/O variables at a tiny scale on ext4: the data shapes warm, then
# srcbuild cold, cold under an IOPS cap (a cgroup's, the device's) and cold
# on a slow disk; every run ok, the condition in the report's table and
# JSON, and nothing left behind: no mount, no loop device, no cgroup, no cap.
test_bench_io_smoke() {
	need_root
	[ -x "${TOOLS:-}/slowfs" ] || skip "slowfs is not built (make tools)"
	[ -d /sys/fs/cgroup/blkio ] || skip "no cgroup v1 blkio"
	local repo; repo=$(repo_root)
	mkdir -p work
	on_exit bench_remove_leftovers
	BENCH_WORK=$SCRATCH/work BENCH_FS=ext4 BENCH_SHAPES="srcbuild nodemodules hugemix fragmented" BENCH_TOOLS="auto rm" \
		BENCH_REPS=1 BENCH_SCALE=0.001 BENCH_IMG_SIZE=1G BENCH_TRACE=0 BENCH_OUT=$SCRATCH/out1 ADAPTRM=$ADAPTRM \
		bash "$repo/scripts/bench/bench.sh" >/dev/null 2>stderr || { cat stderr; fail "bench.sh (shapes) failed"; }
	expect_eq "$(awk -F'\t' 'NR > 1 && $6 == "ok"' out1/latest.tsv | wc -l)" 8 "data-shape runs recorded ok"
	grep -q '^| ext4 | srcbuild 100 files ' out1/latest.md || fail "no srcbuild row: $(cat out1/latest.md)"
	grep -q '^| ext4 | node_modules model 24 files ' out1/latest.md || fail "no nodemodules row"
	grep -q '^| ext4 | 4 x 20 MiB + 100 files |' out1/latest.md || fail "no hugemix row"
	grep -q '^| ext4 | fragmented 2 MiB 262 extents |' out1/latest.md || fail "no fragmented row"
	local caps; caps=$(cat /sys/fs/cgroup/blkio/blkio.throttle.read_iops_device)
	# the cap on the disk under the images, where they are on one
	local disk="" want=8
	if fs_disk_of "$SCRATCH" >/dev/null; then disk=cold+diskiops:2000 want=10; fi
	BENCH_WORK=$SCRATCH/work BENCH_FS=ext4 BENCH_SHAPES=srcbuild BENCH_TOOLS="auto rm" BENCH_REPS=1 \
		BENCH_CONDS="cold+none cold+iops:2000 cold+deviops:2000 cold+latency:200 $disk" BENCH_SCALE=0.001 BENCH_IMG_SIZE=1G BENCH_TRACE=0 \
		BENCH_OUT=$SCRATCH/out2 ADAPTRM=$ADAPTRM TOOLS=$TOOLS \
		bash "$repo/scripts/bench/bench.sh" >/dev/null 2>stderr || { cat stderr; fail "bench.sh (conditions) failed"; }
	expect_eq "$(awk -F'\t' 'NR > 1 && $6 == "ok"' out2/latest.tsv | wc -l)" $want "runs under conditions recorded ok"
	if [ -n "$disk" ]; then
		grep -q '^| ext4 | srcbuild 100 files .* | cold | 2000 IOPS disk |' out2/latest.md || fail "no disk cap row"
	fi
	grep -q '^| fs | tree | cache | disk |' out2/latest.md || fail "no cache and disk columns"
	grep -q '^| ext4 | srcbuild 100 files .* | cold | none |' out2/latest.md || fail "no cold row"
	grep -q '^| ext4 | srcbuild 100 files .* | cold | 2000 IOPS |' out2/latest.md || fail "no IOPS row"
	grep -q '^| ext4 | srcbuild 100 files .* | cold | 2000 IOPS device |' out2/latest.md || fail "no device cap row"
	grep -q '^| ext4 | srcbuild 100 files .* | cold | 200 µs/op |' out2/latest.md || fail "no latency row"
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
want = [("cold", "deviops", 2000), ("cold", "iops", 2000), ("cold", "latency", 200), ("cold", "none", None)]
if sys.argv[2]:
    want.insert(1, ("cold", "diskiops", 2000))
assert sorted((c["cache"], c["disk_kind"], c["disk_value"]) for c in d["cells"]) == want, d["cells"]' out2/latest.json "$disk" ||
		fail "conditions missing from the JSON"
	expect_eq "$(ls work)" "" "scratch directories left behind"
	expect_eq "$(bench_leftovers)" "" "left behind"
	expect_eq "$(cat /sys/fs/cgroup/blkio/blkio.throttle.read_iops_device)" "$caps" "device caps left behind"
}

# gentle.sh at a tiny size: every run ok with the probe's line parsed (a
# count and latencies), its tables written, nothing left mounted.
test_bench_gentle_smoke() {
	need_root
	[ -x "${TOOLS:-}/fsync_probe" ] || skip "fsync_probe is not built (make tools)"
	local repo; repo=$(repo_root)
	mkdir -p work
	on_exit bench_remove_leftovers
	BENCH_WORK=$SCRATCH/work GENTLE_FS=ext4 GENTLE_TOOLS="rm adaptrm probe" GENTLE_REPS=1 BENCH_SCALE=0.002 \
		BENCH_OUT=$SCRATCH/out ADAPTRM=$ADAPTRM TOOLS=$TOOLS \
		bash "$repo/scripts/bench/gentle.sh" >stdout 2>stderr || { cat stderr; fail "gentle.sh failed"; }
	expect_eq "$(awk -F'\t' 'NR > 1 && $6 == "ok" && $8 > 0 && $10 ~ /^[0-9]+$/ && $11 >= $10' out/gentle.tsv | wc -l)" 6 \
		"runs with a probe line"
	grep -q '^| ext4 | 4 x 16 MiB | GNU rm -rf |' out/gentle.md || fail "no huge row: $(cat out/gentle.md)"
	grep -q '^| ext4 | 16 MiB, 2097 extents | probe alone |' out/gentle.md || fail "no fragmented probe row"
	grep -q '^GNU rm stalls the probe most on ext4 ' out/gentle.md || fail "no verdict"
	expect_eq "$(find out/gentle-samples -name '*.txt' | wc -l)" 6 "sample files"
	expect_eq "$(ls work)" "" "scratch directories left behind"
	expect_eq "$(bench_leftovers)" "" "left behind"
}

# BENCH_MPI=1 (scripts/bench/mpi.sh) at a tiny scale: adaptrm-mpi on 1 and 2
# ranks over the slowfs stand-in, with the budget off too, and the
# single-node references, every run recorded ok, and the report's tables.
test_bench_mpi_smoke() {
	need_root
	local mpi repo
	mpi=$(dirname "$ADAPTRM")/adaptrm-mpi
	[ -x "$mpi" ] || skip "adaptrm-mpi is not built (no Open MPI)"
	[ -x "${TOOLS:-}/slowfs" ] || skip "slowfs is not built (make tools)"
	command -v mpirun >/dev/null || skip "no mpirun"
	repo=$(repo_root)
	mkdir -p work
	on_exit bench_remove_leftovers
	BENCH_MPI=1 BENCH_WORK=$SCRATCH/work BENCH_SCALE=0.002 MPI_RANKS="1 2" MPI_NOBUDGET=2 \
		MPI_DELAYS=500 MPI_SLOTS=16 BENCH_REPS=1 BENCH_OUT=$SCRATCH/out ADAPTRM=$ADAPTRM \
		ADAPTRM_MPI=$mpi SLOWFS=$TOOLS/slowfs bash "$repo/scripts/bench/bench.sh" >/dev/null 2>stderr ||
		{ cat stderr; fail "bench.sh BENCH_MPI=1 failed"; }
	expect_eq "$(awk -F'\t' 'NR > 1 && $7 != "ok"' out/mpi.tsv)" "" "runs that did not count"
	expect_eq "$(awk -F'\t' 'NR > 1 && $1 == "adaptrm-mpi"' out/mpi.tsv | wc -l)" 6 "adaptrm-mpi runs"
	expect_eq "$(awk -F'\t' 'NR > 1 && $1 == "adaptrm-mpi-nobudget"' out/mpi.tsv | wc -l)" 2 "runs without the budget"
	grep -qi 'speed-up' out/mpi.md || fail "no speed-up table: $(cat out/mpi.md)"
	[ -z "$(ls work)" ] || fail "left in the work directory: $(ls work)"
}

# fake_real_tree TAR: a small stand-in for a real tree's tarball (no network
# in tests): two directories, two files and a symlink.
fake_real_tree() {
	local d
	d=$(mktemp -d "$SCRATCH/fake.XXXXXX")
	mkdir -p "$d/a/b" "$d/c" && echo x >"$d/a/f1" && echo y >"$d/a/b/f2" && ln -s f1 "$d/a/l"
	tar -cf "$1" -C "$d" . && rm -rf "$d"
}

# BENCH_PRESET=realtree at a tiny size: trees unpacked from the cache's
# tarballs (a missing one skipped, none made), every run ok, the real
# trees' labels, and the table of wall time over the CPU floor.
test_bench_realtree_smoke() {
	need_root
	local repo s; repo=$(repo_root)
	mkdir -p work cache
	for s in npm venv git; do fake_real_tree "cache/$s.tar"; done
	BENCH_PRESET=realtree BENCH_WORK=$SCRATCH/work BENCH_FS=tmpfs BENCH_TOOLS="auto rm" BENCH_REPS=2 \
		BENCH_TREE_CACHE=$SCRATCH/cache BENCH_TREE_MAKE=0 BENCH_WAITS=0 BENCH_OUT=$SCRATCH/out ADAPTRM=$ADAPTRM \
		bash "$repo/scripts/bench/bench.sh" >stdout 2>stderr || { cat stderr; fail "bench.sh failed"; }
	expect_eq "$(awk -F'\t' 'NR > 1 && $6 == "ok"' out/latest.tsv | wc -l)" 12 "runs recorded ok"
	grep -q 'no cargo tree in .* skipped' stderr || fail "no note of the missing tree: $(cat stderr)"
	grep -q '^| tmpfs | npm node_modules 6 entries 0 MiB | [0-9.*]* | [0-9.*]* | [0-9.]* (rm) |' out/latest.md ||
		fail "no npm row: $(cat out/latest.md)"
	grep -q '^| tmpfs | Python venv 6 entries 0 MiB |' out/latest.md || fail "no venv row"
	grep -q '^| tmpfs | git repository 6 entries 0 MiB |' out/latest.md || fail "no git row"
	grep -q '^Wall time over the CPU floor ' out/latest.md || fail "no CPU floor table"
	grep -q '^| fs | tree | adaptrm auto | GNU rm -rf | waits on |$' out/latest.md || fail "no waits column"
	expect_eq "$(ls work)" "" "scratch directories left behind"
	grep -q "$SCRATCH" /proc/mounts && fail "mounts left behind: $(grep "$SCRATCH" /proc/mounts)"
	true
}

# The report's CPU floor: wall time over CPU time spread over the CPUs a
# tool can use (every CPU for adaptrm, one for GNU rm), bold over 1.5x, and
# the traced waits of a flagged cell in its "waits on" column (or that it
# was not traced).
test_bench_report_cpu_floor() {
	local repo; repo=$(repo_root)
	{
		printf 'fs\tshape\tlabel\ttool\trep\tstatus\twall\tuser\tsys\tnote\trun\n'
		printf 'xfs\tnpm\tnpm node_modules 9 entries 1 MiB\tauto\t1\tok\t1.00\t0.25\t0.25\t\ta\n'
		printf 'xfs\tnpm\tnpm node_modules 9 entries 1 MiB\trm\t1\tok\t1.10\t0.20\t0.80\t\ta\n'
		printf 'ext4\tnpm\tnpm node_modules 9 entries 1 MiB\tauto\t1\tok\t0.30\t0.25\t0.25\t\ta\n'
		printf 'ext4\tnpm\tnpm node_modules 9 entries 1 MiB\trm\t1\tok\t0.60\t0.20\t0.40\t\ta\n'
		printf 'btrfs\tnpm\tnpm node_modules 9 entries 1 MiB\tauto\t1\tok\t0.30\t0.15\t0.15\t\ta\n'
		printf 'btrfs\tnpm\tnpm node_modules 9 entries 1 MiB\trm\t1\tok\t1.20\t0.20\t0.40\t\ta\n'
	} >runs.tsv
	printf 'xfs\tnpm\twarm\tnone\tauto\tsemaphore 40%% (slept most in xfs_buf_lock)\n' >waits.tsv
	BENCH_NCPU=2 BENCH_TOOLS_RUN="auto rm" BENCH_WAITS_FILE=waits.tsv \
		python3 "$repo/scripts/bench/report.py" runs.tsv report.md report.json || fail "bench-report failed"
	grep -q '^| xfs | npm node_modules 9 entries 1 MiB | \*\*4.00\*\* | 1.10 | adaptrm auto: semaphore 40% (slept most in xfs_buf_lock) |$' report.md ||
		fail "flagged cell: $(grep '^| xfs' report.md)"
	grep -q '^| ext4 | npm node_modules 9 entries 1 MiB | 1.20 | 1.00 |  |$' report.md ||
		fail "cell at its floor: $(grep '^| ext4' report.md)"
	grep -q '^| btrfs | npm node_modules 9 entries 1 MiB | \*\*2.00\*\* | \*\*2.00\*\* | not traced |$' report.md ||
		fail "flagged cell without a trace: $(grep '^| btrfs' report.md)"
}

# SPDX-License-Identifier: GPL-3.0-or-later
# The adaptive controller on real filesystems: where it ends, that it starts
# from the stored profile, and what it writes. The final thread count is read
# from --json (never from timing). Each test uses its own XDG_CACHE_HOME.

# ctl_json FILE EXPR: evaluate a Python expression on the --json document d.
ctl_json() {
	python3 - "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(eval(sys.argv[2], {"d": d}))
PY
}

ctl_cache() {
	export XDG_CACHE_HOME=$SCRATCH/cache
	mkdir -p "$XDG_CACHE_HOME"
}

# 1 ms per operation: latency-bound, so many workers pay. Started at one
# thread, the controller must end above 8.
test_controller_slowfs_goes_wide() {
	need_root
	ctl_cache
	mount_slowfs mnt 1000
	make_tree "$SLOWFS_BACKING/t" 100 100
	ADAPTRM_CTL_START=1 "$ADAPTRM" -rf --no-profile --explain --json "$SCRATCH/c.json" mnt/t \
		2>"$SCRATCH/explain" || fail "adaptrm failed: $(cat "$SCRATCH/explain")"
	expect_gone "$SLOWFS_BACKING/t"
	local final
	final=$(ctl_json "$SCRATCH/c.json" 'd["final_threads"]')
	[ "$final" -gt 8 ] || fail "ended at $final threads on a 1 ms/op filesystem: $(cat "$SCRATCH/explain")"
	expect_eq "$(ctl_json "$SCRATCH/c.json" 'd["trees"][0]["fs"]')" fuse "filesystem type"
	grep -q "threads 1->2: throughput" "$SCRATCH/explain" || fail "no decision lines: $(cat "$SCRATCH/explain")"
}

# A client that lets 3 requests of its mount in flight (as Lustre's RPC
# slots): workers above that only queue in the client. Started at its own
# cap of 32 workers, the controller must come down to the knee and hold near
# it: over the second half of the delete's intervals the median count is at
# most 8, and --explain names the knee.
test_controller_slowfs_client_cap_holds_at_the_knee() {
	need_root
	ctl_cache
	mount_slowfs mnt 2000 --client-cap=3 -o max_threads=64
	make_tree "$SLOWFS_BACKING/t" 60 50
	"$ADAPTRM" -rf --no-profile --max-threads=32 --explain --json "$SCRATCH/c.json" \
		mnt/t 2>"$SCRATCH/explain" || fail "adaptrm failed: $(cat "$SCRATCH/explain")"
	expect_gone "$SLOWFS_BACKING/t"
	local median
	median=$(ctl_json "$SCRATCH/c.json" \
		'(lambda v: sorted(v)[len(v) // 2])([i["threads"] for i in d["trees"][0]["intervals"]][len(d["trees"][0]["intervals"]) // 2:])')
	[ "$median" -le 8 ] || fail "median $median workers over the second half, client cap 3: $(cat "$SCRATCH/explain")"
	grep -Eq "knee-check|knee-down|queueing" "$SCRATCH/explain" ||
		fail "no knee in --explain: $(cat "$SCRATCH/explain")"
}

# xfs, one flat directory: every extra unlinker waits on the parent's lock.
# Started at 8 threads, the controller must end at 1 or 2. A second run on
# the same filesystem starts from the stored profile.
test_controller_xfs_flat_ends_low_and_remembers() {
	need_root
	ctl_cache
	mount_fs xfs mnt 2G || skip "cannot make an xfs filesystem"
	make_flat mnt/a 100000
	ADAPTRM_CTL_START=8 "$ADAPTRM" -rf --explain --json "$SCRATCH/a.json" mnt/a \
		2>"$SCRATCH/explain" || fail "adaptrm failed: $(cat "$SCRATCH/explain")"
	expect_gone mnt/a
	local final
	final=$(ctl_json "$SCRATCH/a.json" 'd["final_threads"]')
	[ "$final" -le 2 ] || fail "ended at $final threads on an xfs flat directory: $(cat "$SCRATCH/explain")"
	expect_eq "$(ctl_json "$SCRATCH/a.json" 'd["trees"][0]["shape"]')" flat "shape class"
	expect_eq "$(ctl_json "$SCRATCH/a.json" 'd["trees"][0]["profile_saved"]')" True "profile saved"
	"$ADAPTRM" --profiles >"$SCRATCH/list" || fail "--profiles failed"
	grep -q "^xfs .* flat " "$SCRATCH/list" || fail "--profiles does not list it: $(cat "$SCRATCH/list")"
	[ "$(find "$XDG_CACHE_HOME/adaptrm" -name '*.tmp.*' | wc -l)" = 0 ] || fail "temp file left behind"

	make_flat mnt/b 20000
	"$ADAPTRM" -rf --explain --json "$SCRATCH/b.json" mnt/b 2>"$SCRATCH/explain2" ||
		fail "second run failed"
	expect_gone mnt/b
	expect_eq "$(ctl_json "$SCRATCH/b.json" 'd["trees"][0]["start_from"]')" profile "second run's start"
	local learned start
	learned=$(ctl_json "$SCRATCH/a.json" 'd["trees"][0]["learned_threads"]')
	start=$(ctl_json "$SCRATCH/b.json" 'd["trees"][0]["start_threads"]')
	expect_eq "$start" "$learned" "second run starts where the first settled"
	grep -q "from the profile" "$SCRATCH/explain2" || fail "no profile line: $(cat "$SCRATCH/explain2")"
}

# A corrupt profile is ignored with exactly one warning, the delete works,
# and the file is replaced by a valid one. --no-profile writes nothing.
test_controller_corrupt_profile() {
	ctl_cache
	mount_fs tmpfs mnt 512M
	# learn where the file goes: one run long enough to measure a window
	# (a fast machine may finish 200 x 1000 before that: grow the tree)
	local f="" n
	for n in 200 400 800; do
		make_tree mnt/t "$n" 1000
		"$ADAPTRM" -rf mnt/t || fail "first run failed"
		f=$(find "$XDG_CACHE_HOME/adaptrm" -name '*.json' | head -1)
		[ -n "$f" ] && break
	done
	[ -n "$f" ] || fail "no profile stored after deleting 800 x 1000"
	# A corrupt file is ignored with one warning and replaced by the next
	# run that learns something. A run stores only after two measured
	# windows; on a loaded machine one may end sooner: grow the tree.
	local saved=False m
	for m in "$n" $((n * 2)) $((n * 4)); do
		echo '{"format": "adaptrm-profile-1", "fs": ' >"$f"
		make_tree mnt/t "$m" 1000
		"$ADAPTRM" -rf --json "$SCRATCH/c.json" mnt/t 2>"$SCRATCH/err" ||
			fail "run with a corrupt profile failed"
		expect_gone mnt/t
		expect_eq "$(grep -c "ignoring profile" "$SCRATCH/err")" 1 "warnings about the corrupt profile"
		saved=$(ctl_json "$SCRATCH/c.json" 'd["trees"][0]["profile_saved"]')
		[ "$saved" = True ] && break
	done
	[ "$saved" = True ] || fail "no profile stored over the corrupt one ($m x 1000)"
	python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$f" || fail "profile not rewritten"
	n=$m

	# a foreign file (another filesystem's id) is ignored too
	python3 - "$f" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d["fsid"] = "0000000000000000"
json.dump(d, open(sys.argv[1], "w"))
PY
	make_tree mnt/t "$n" 1000
	"$ADAPTRM" -rf --json "$SCRATCH/j.json" mnt/t 2>"$SCRATCH/err" || fail "run with a foreign profile failed"
	expect_eq "$(grep -c "another filesystem" "$SCRATCH/err")" 1 "warnings about the foreign profile"
	expect_eq "$(ctl_json "$SCRATCH/j.json" 'd["trees"][0]["start_from"]')" prior "foreign profile used"

	rm -rf "$XDG_CACHE_HOME/adaptrm"
	make_tree mnt/t 200 1000
	"$ADAPTRM" -rf --no-profile mnt/t || fail "--no-profile run failed"
	[ ! -e "$XDG_CACHE_HOME/adaptrm" ] || fail "--no-profile wrote $(ls "$XDG_CACHE_HOME/adaptrm")"
	"$ADAPTRM" --profiles | grep -q "no profiles stored" || fail "--profiles on an empty cache"
}

# --threads pins the count: with --json the series is recorded, nothing moves.
test_controller_pinned_records_only() {
	ctl_cache
	mount_fs tmpfs mnt 512M
	make_tree mnt/t 100 1000
	"$ADAPTRM" -rf --threads=3 --json "$SCRATCH/p.json" mnt/t || fail "pinned run failed"
	expect_gone mnt/t
	expect_eq "$(ctl_json "$SCRATCH/p.json" 'sorted({i["threads"] for t in d["trees"] for i in t["intervals"]} | {3})')" "[3]" "pinned thread count moved"
	expect_eq "$(ctl_json "$SCRATCH/p.json" 'd["pinned"]')" True "pinned flag"
	[ ! -e "$XDG_CACHE_HOME/adaptrm" ] || fail "a pinned run wrote a profile"
}

# --json's totals and exit status, and its version under both names: a
# tree of 2000 files and 21 directories gone, and an operand that is not
# there (without -f) making the status 1.
test_controller_json_totals() {
	ctl_cache
	make_tree t 20 100
	"$ADAPTRM" -rf --json "$SCRATCH/a.json" t || fail "adaptrm failed"
	expect_eq "$(ctl_json "$SCRATCH/a.json" '[d["totals"], d["exit_status"]]')" \
		"[{'files': 2000, 'directories': 21, 'errors': 0}, 0]" "totals"
	expect_eq "$(ctl_json "$SCRATCH/a.json" '[d["format"], d["schema"]]')" \
		"['adaptrm-controller-1', 'adaptrm-controller-1']" "format and schema"
	make_tree t 2 10
	"$ADAPTRM" -r --json "$SCRATCH/b.json" t missing 2>/dev/null && fail "status 0 with a missing operand"
	expect_eq "$(ctl_json "$SCRATCH/b.json" 'd["exit_status"]')" 1 "exit_status"
}

# The eBPF signals: with --json on a tree where several workers unlink, the
# series carries lock contention and latency percentiles. Skips only when the
# probes cannot load, and never under ADAPTRM_REQUIRE_BPF=1.
test_controller_bpf_signals() {
	ctl_cache
	mount_fs tmpfs mnt 512M
	make_tree mnt/t 200 1000
	"$ADAPTRM" -rf --no-profile --explain --json "$SCRATCH/b.json" mnt/t 2>"$SCRATCH/explain" ||
		fail "adaptrm failed"
	local bpf
	bpf=$(ctl_json "$SCRATCH/b.json" 'sum(1 for t in d["trees"] for i in t["intervals"] if i["bpf"] and i["contention"] is not None and i["lat_p99_us"] is not None)')
	if [ "$bpf" = 0 ]; then
		[ "${ADAPTRM_REQUIRE_BPF:-0}" = 1 ] &&
			fail "ADAPTRM_REQUIRE_BPF=1 but no interval has eBPF signals: $(cat "$SCRATCH/explain")"
		grep -q "not measured" "$SCRATCH/explain" || fail "no note about what is not measured"
		skip "eBPF probes unavailable: $(ctl_json "$SCRATCH/b.json" 'd["not_measured"]')"
	fi
	expect_eq "$(ctl_json "$SCRATCH/b.json" 'd["not_measured"]')" "" "not_measured with probes loaded"
	grep -q "contention [0-9]*%" "$SCRATCH/explain" || fail "no contention in --explain: $(cat "$SCRATCH/explain")"
}

# Without the probes (ADAPTRM_CTL_BPF=0) it still adapts on user-space
# signals and says once what it could not measure.
test_controller_without_bpf_says_so_once() {
	ctl_cache
	mount_slowfs mnt 1000
	make_tree "$SLOWFS_BACKING/t" 50 100
	ADAPTRM_CTL_BPF=0 ADAPTRM_CTL_START=2 "$ADAPTRM" -rf --no-profile --explain --json "$SCRATCH/n.json" mnt/t \
		2>"$SCRATCH/explain" || fail "adaptrm failed"
	expect_gone "$SLOWFS_BACKING/t"
	expect_eq "$(grep -c "not measured" "$SCRATCH/explain")" 1 "notes about missing signals"
	expect_eq "$(ctl_json "$SCRATCH/n.json" 'any(i["bpf"] for t in d["trees"] for i in t["intervals"])')" False "bpf used"
	local final
	final=$(ctl_json "$SCRATCH/n.json" 'd["final_threads"]')
	[ "$final" -gt 4 ] || fail "did not add workers on user-space signals alone (ended at $final): $(cat "$SCRATCH/explain")"
}

# rm -rf ~ must not bring ~/.cache/adaptrm back: the profile is not stored
# when the cache directory lived inside the deleted tree.
test_controller_never_recreates_a_deleted_cache() {
	need_root
	mount_slowfs mnt 1000
	mkdir -p "$SLOWFS_BACKING/home/.cache/adaptrm"
	make_tree "$SLOWFS_BACKING/home/work" 40 100
	# shellcheck disable=SC2030 # HOME is changed for this run only
	(
		unset XDG_CACHE_HOME
		export HOME=$PWD/mnt/home
		ADAPTRM_CTL_START=1 "$ADAPTRM" -rf --json "$SCRATCH/h.json" mnt/home
	) || fail "adaptrm failed"
	expect_gone "$SLOWFS_BACKING/home"
	[ "$(ctl_json "$SCRATCH/h.json" 'd["trees"][0]["learned_threads"]')" != None ] ||
		skip "delete too short to learn from: nothing to check"
	expect_eq "$(ctl_json "$SCRATCH/h.json" 'd["trees"][0]["profile_saved"]')" False "profile saved"

	# rm -rf ~/.cache: HOME survives, but .cache must not come back
	mkdir -p "$SLOWFS_BACKING/home2/.cache/adaptrm"
	make_tree "$SLOWFS_BACKING/home2/.cache/work" 40 100
	# shellcheck disable=SC2031 # HOME is changed for this run only
	(
		unset XDG_CACHE_HOME
		export HOME=$PWD/mnt/home2
		ADAPTRM_CTL_START=1 "$ADAPTRM" -rf --json "$SCRATCH/h2.json" mnt/home2/.cache
	) || fail "adaptrm failed"
	expect_gone "$SLOWFS_BACKING/home2/.cache"
	[ "$(ctl_json "$SCRATCH/h2.json" 'd["trees"][0]["learned_threads"]')" != None ] ||
		skip "delete too short to learn from: nothing to check"
	expect_eq "$(ctl_json "$SCRATCH/h2.json" 'd["trees"][0]["profile_saved"]')" False "profile saved"
}

# A chain keeps one directory in flight: the controller starts it at one
# worker and trusts that start as it trusts a profile (it holds, no climb),
# and its hold leaves one worker upwards only on a measured reason: work
# that waited for a second worker, or workers blocked. How much work waits
# on a chain depends on how often the one worker is preempted, which is the
# machine's doing: that no probe goes up while nothing waits is asserted on
# simulated input (test_policy.c, no_probe_up_when_no_work_waits). Here: the
# start, and that every move up a hold made from one worker was one the
# recorded signals of its window allowed. A tree keeps directories waiting
# in the stack at one worker, however busy the machine.
test_controller_chain_starts_at_one_worker_and_holds() {
	ctl_cache
	mount_fs tmpfs mnt 1G
	# long enough for a hold to end and a probe to be weighed (6 ticks):
	# deeper on a fast machine
	local n depth
	for depth in 100000 300000; do
		make_chain mnt/c "$depth"
		"$ADAPTRM" -rf --no-profile --json "$SCRATCH/c.json" mnt/c || fail "chain run failed"
		expect_gone mnt/c
		n=$(ctl_json "$SCRATCH/c.json" 'len(d["trees"][0]["intervals"])')
		[ "$n" -ge 6 ] && break
	done
	expect_eq "$(ctl_json "$SCRATCH/c.json" 'd["trees"][0]["shape"]')" chain "shape class"
	[ "$n" -ge 1 ] || fail "chain delete recorded no interval"
	expect_eq "$(ctl_json "$SCRATCH/c.json" 'd["trees"][0]["start_from"]')" prior "chain's start"
	expect_eq "$(ctl_json "$SCRATCH/c.json" 'd["trees"][0]["start_threads"]')" 1 "chain's start count"
	expect_eq "$(ctl_json "$SCRATCH/c.json" '[d["trees"][0]["intervals"][0][k] for k in ("threads", "phase")]')" \
		"[1, 'hold']" "first interval of a chain"
	python3 - "$SCRATCH/c.json" <<'PY' || fail "a chain moved without its reason"
import json, sys
iv = json.load(open(sys.argv[1]))["trees"][0]["intervals"]
band = 0.08  # the policy's band (ctl_policy_defaults)


def most(win, key):
    return max((w[key] for w in win if w[key] is not None), default=-1)


bad = []
for k, i in enumerate(iv):
    rule = i.get("rule", "")
    if rule.startswith("first-"):
        bad.append(f"interval {k}: {rule}: a chain climbed from its start")
    # a move up from one worker that a hold decided (from a candidate, one
    # is a verdict on a step down from a larger base)
    held = k == 0 or iv[k - 1]["phase"] == "hold"
    if i["threads"] != 1 or i["threads_next"] <= 1 or not held:
        continue
    # a hold's window is its last two intervals: a mean at or above a bar
    # has one of them at or above it
    win = iv[max(0, k - 1):k + 1]
    if rule in ("gentle-probe", "drift-reclimb"):
        ok = most(win, "spare") >= band - 1e-6
    elif rule == "blocked-probe-up":
        ok = most(win, "blocked") >= 0.6 - 1e-6
    else:
        ok = False
    if not ok:
        bad.append(f"interval {k}: 1 -> {i['threads_next']} by {rule!r}, "
                   f"spare {[w['spare'] for w in win]}, blocked {[w['blocked'] for w in win]}")
for b in bad:
    print(b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
	make_tree mnt/t 200 1000
	"$ADAPTRM" -rf --no-profile --threads=1 --json "$SCRATCH/t.json" mnt/t || fail "tree run failed"
	expect_gone mnt/t
	expect_eq "$(ctl_json "$SCRATCH/t.json" 'min(i["spare"] for i in d["trees"][0]["intervals"][:-1]) > 0.9')" True \
		"spare work at one worker on a 200 x 1000 tree"
}

# The trial NAME (as --explain logs it) ran in $SCRATCH/explain, its start
# matching TRY_RE and its answer ANSWER_RE, and the tree's state KEY in
# $SCRATCH/a.json is on or off (in TRIAL_ANSWER), with the trial's phases in
# the intervals.
expect_trial_decided() { # NAME KEY TRY_RE ANSWER_RE
	grep -q "$1: trying it$3" "$SCRATCH/explain" || fail "no trial: $(cat "$SCRATCH/explain")"
	grep -Eq "$1: (on|off): $4" "$SCRATCH/explain" || fail "no answer: $(cat "$SCRATCH/explain")"
	TRIAL_ANSWER=$(ctl_json "$SCRATCH/a.json" "d['trees'][0]['$2']")
	case $TRIAL_ANSWER in on | off) ;; *) fail "tree's $2 state: $TRIAL_ANSWER" ;; esac
	expect_eq "$(ctl_json "$SCRATCH/a.json" "'trial' in [i['$2'] for i in d['trees'][0]['intervals']]")" True \
		"trial intervals in the JSON"
}

# overlayfs: no one measured whether its big directories should be shared
# (its cost is its upper filesystem's), so the controller tries it once, says
# what it found, stores the answer, and the next delete starts from it with
# no second trial. The answer itself is the filesystem's: not asserted here.
test_controller_share_trial_on_overlayfs() {
	need_root
	ctl_cache
	mount_fs overlay mnt || skip "cannot mount overlayfs"
	make_sentinel mnt/keep; local before; before=$(sentinel_sum mnt/keep)
	# a delete long enough for the trial to decide: bigger on a fast machine
	local n
	for n in 150000 450000; do
		make_flat mnt/a "$n"
		"$ADAPTRM" -rf --explain --json "$SCRATCH/a.json" mnt/a 2>"$SCRATCH/explain" ||
			fail "adaptrm failed: $(cat "$SCRATCH/explain")"
		expect_gone mnt/a
		expect_gone upper/a
		# the trial may decide (and be stored) in a delete too short to
		# learn a worker count from: then the next one would not try
		grep -Eq "sharing big directories: (on|off): " "$SCRATCH/explain" && break
		grep -q "too short to learn from" "$SCRATCH/explain" || break
	done
	expect_eq "$(ctl_json "$SCRATCH/a.json" 'd["trees"][0]["fs"]')" overlay "filesystem type"
	expect_trial_decided "sharing big directories" share " with [0-9]* workers" "throughput"
	local answer=$TRIAL_ANSWER
	"$ADAPTRM" --profiles >"$SCRATCH/list" || fail "--profiles failed"
	grep -Eq "^overlay .* flat +[0-9]+ +$answer " "$SCRATCH/list" || fail "not stored: $(cat "$SCRATCH/list")"

	make_flat mnt/b 150000
	"$ADAPTRM" -rf --explain --json "$SCRATCH/b.json" mnt/b 2>"$SCRATCH/explain2" || fail "second run failed"
	expect_gone mnt/b
	grep -q "sharing big directories: trying it" "$SCRATCH/explain2" && fail "tried again: $(cat "$SCRATCH/explain2")"
	grep -q "from the profile (.*big directories \(not \)\?shared" "$SCRATCH/explain2" ||
		fail "no profile line: $(cat "$SCRATCH/explain2")"
	expect_eq "$(ctl_json "$SCRATCH/b.json" 'd["trees"][0]["share"]')" "$answer" "second run's sharing"
	# every 8th run tries again (a trial beside a busy job may have lied)
	python3 - "$XDG_CACHE_HOME"/adaptrm/overlay.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for c in d["classes"]:
    c["runs"] = 8
json.dump(d, open(sys.argv[1], "w"))
PY
	make_flat mnt/c 150000
	"$ADAPTRM" -rf --explain mnt/c 2>"$SCRATCH/explain3" || fail "third run failed"
	expect_gone mnt/c
	grep -q "sharing to be tried again" "$SCRATCH/explain3" || fail "no retrial announced: $(cat "$SCRATCH/explain3")"
	grep -q "sharing big directories: trying it" "$SCRATCH/explain3" || fail "no retrial: $(cat "$SCRATCH/explain3")"
	expect_eq "$(sentinel_sum mnt/keep)" "$before" "sentinel changed"
}

# Inode order, like sharing, is the filesystem type's call where it was
# measured and a trial elsewhere: on overlayfs the controller has a batch of
# a big directory (100,000 entries) read whole and unlinked in readdir order,
# then the next one sorted by inode, compares the unlinkat rates (250,000
# files: the sorted batch comes after 10,000 + 100,000), says what it found
# and stores it;
# the next delete starts from the profile. (Sharing is held off with the
# developer override so that this trial has the directory to itself.) If the
# engine did not sort when told to, the trial would be abandoned, not decided.
test_controller_sort_trial_on_overlayfs() {
	need_root
	ctl_cache
	mount_fs overlay mnt || skip "cannot mount overlayfs"
	make_sentinel mnt/keep; local before; before=$(sentinel_sum mnt/keep)
	make_flat mnt/a 250000
	ADAPTRM_DIR_SHARE=1 "$ADAPTRM" -rf --explain --json "$SCRATCH/a.json" mnt/a 2>"$SCRATCH/explain" ||
		fail "adaptrm failed: $(cat "$SCRATCH/explain")"
	expect_gone mnt/a
	expect_gone upper/a
	expect_trial_decided "inode order in big directories" sort " (base [0-9]* unlinks/s)" \
		"unlinkat rate [-+][0-9]+%"
	local answer=$TRIAL_ANSWER
	"$ADAPTRM" --profiles >"$SCRATCH/list" || fail "--profiles failed"
	grep -Eq "^overlay .* flat +[0-9]+ +- +$answer " "$SCRATCH/list" || fail "not stored: $(cat "$SCRATCH/list")"

	make_flat mnt/b 250000
	ADAPTRM_DIR_SHARE=1 "$ADAPTRM" -rf --explain --json "$SCRATCH/b.json" mnt/b 2>"$SCRATCH/explain2" ||
		fail "second run failed"
	expect_gone mnt/b
	grep -q "inode order in big directories: trying it" "$SCRATCH/explain2" &&
		fail "tried again: $(cat "$SCRATCH/explain2")"
	grep -Eq "from the profile \(.*big directories in (inode|readdir) order\)" "$SCRATCH/explain2" ||
		fail "no profile line: $(cat "$SCRATCH/explain2")"
	expect_eq "$(ctl_json "$SCRATCH/b.json" 'd["trees"][0]["sort"]')" "$answer" "second run's inode order"

	# --sort pins it: no trial
	make_flat mnt/c 30000
	ADAPTRM_DIR_SHARE=1 "$ADAPTRM" -rf --no-profile --sort=never --explain mnt/c 2>"$SCRATCH/explain3" ||
		fail "pinned run failed"
	expect_gone mnt/c
	grep -q "inode order" "$SCRATCH/explain3" && fail "a pinned run tried: $(cat "$SCRATCH/explain3")"
	expect_eq "$(sentinel_sum mnt/keep)" "$before" "sentinel changed"
}

# Where the type answers (tmpfs: inode numbers say nothing of placement),
# there is no trial.
test_controller_no_sort_trial_where_the_type_knows() {
	ctl_cache
	mount_fs tmpfs mnt 1G
	make_flat mnt/a 30000
	"$ADAPTRM" -rf --no-profile --explain --json "$SCRATCH/a.json" mnt/a 2>"$SCRATCH/explain" ||
		fail "adaptrm failed: $(cat "$SCRATCH/explain")"
	expect_gone mnt/a
	grep -q "inode order" "$SCRATCH/explain" && fail "tried on tmpfs: $(cat "$SCRATCH/explain")"
	expect_eq "$(ctl_json "$SCRATCH/a.json" 'd["trees"][0]["sort"]')" by-type "tree's sort state"
}

# A forced trial (ADAPTRM_SHARE_TRIAL=1 makes every type untried) runs on
# xfs too, answers, and an answer of off puts the workers back where the
# trial found them. Which answer it gives is the machine's: on a quiet one
# sharing loses on xfs, beside CPU hogs two workers get more of the CPUs than
# one and it can read as a gain. That a loss is switched off and the workers
# restored is asserted on simulated input (test_trial.c). And a pinned count
# never runs a trial.
test_controller_share_trial_answers_on_xfs() {
	need_root
	ctl_cache
	mount_fs xfs mnt 2G || skip "cannot make an xfs filesystem"
	make_flat mnt/a 100000
	ADAPTRM_SHARE_TRIAL=1 "$ADAPTRM" -rf --explain --json "$SCRATCH/a.json" mnt/a 2>"$SCRATCH/explain" ||
		fail "adaptrm failed: $(cat "$SCRATCH/explain")"
	expect_gone mnt/a
	expect_trial_decided "sharing big directories" share " with [0-9]* workers" "throughput"
	# the last trial's start and its answer, as the intervals record them
	python3 - "$SCRATCH/a.json" <<'PY' || fail "workers after the trial's answer"
import json, sys
iv = json.load(open(sys.argv[1]))["trees"][0]["intervals"]
tried = answer = None
for i in iv:
    why = i.get("decision", "")
    if why.startswith("sharing big directories: trying it"):
        tried = i
    elif why.startswith(("sharing big directories: on:", "sharing big directories: off:")):
        answer = i
if tried is None or answer is None:
    sys.exit(f"trial {tried}, answer {answer}")
# off: back to the count before the trial; on: the trial's count stays
want = tried["threads"] if answer["decision"].startswith("sharing big directories: off:") \
    else answer["threads"]
if answer["threads_next"] != want:
    sys.exit(f"{answer['decision']}: {answer['threads_next']} workers after it, not {want}")
PY
	make_flat mnt/b 30000
	ADAPTRM_SHARE_TRIAL=1 "$ADAPTRM" -rf --threads=3 --no-profile --explain mnt/b 2>"$SCRATCH/explain2" ||
		fail "pinned run failed"
	expect_gone mnt/b
	grep -q "sharing big directories" "$SCRATCH/explain2" && fail "a pinned run tried: $(cat "$SCRATCH/explain2")"
	true
}

# A frozen filesystem (fsfreeze, as a snapshot agent does): every worker
# waits for the thaw in the same kernel function, and more workers would
# wait there too. The count stays where it was while frozen, the explanation
# names the wait, no worker is started in place of a "stuck" one, and after
# the thaw the tree goes. The freeze lasts until --explain has said so (a
# bounded poll), then a second of the process's thread counts.
test_controller_holds_while_the_filesystem_is_frozen() {
	need_root
	command -v fsfreeze >/dev/null || skip "no fsfreeze"
	mount_fs ext4 mnt 512M || skip "cannot make an ext4 filesystem"
	make_tree mnt/t 50 400
	sync -f mnt
	fsfreeze -f mnt || skip "cannot freeze"
	on_exit fsfreeze -u "$SCRATCH/mnt"
	ADAPTRM_CTL_BPF=0 "$ADAPTRM" -rf --explain --no-profile --json="$SCRATCH/c.json" mnt/t 2>err &
	local pid=$! said='' tasks=0 n
	on_exit "kill $pid"
	for _ in $(seq 1 300); do
		grep -q "held: every busy worker waits in percpu_rwsem_wait" err && said=1 && break
		sleep 0.1
	done
	[ -n "$said" ] || { fsfreeze -u mnt; fail "--explain never named the wait: $(cat err)"; }
	for _ in $(seq 1 10); do
		n=$(find "/proc/$pid/task" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)
		[ "$n" -gt "$tasks" ] && tasks=$n
		sleep 0.1
	done
	fsfreeze -u mnt
	wait "$pid" || fail "adaptrm failed after the thaw: $(cat err)"
	expect_gone mnt/t
	python3 - "$SCRATCH/c.json" "$tasks" <<'PY' || fail "$(cat err)"
import json, sys
tree = json.load(open(sys.argv[1]))["trees"][0]
held = [i for i in tree["intervals"] if i.get("held_in")]
assert held, "no interval held"
assert all(i["held_in"] == "percpu_rwsem_wait" for i in held), held
counts = {(i["threads"], i["threads_next"]) for i in held}
n = held[0]["threads"]
assert counts == {(n, n)}, "the count moved while frozen: %s" % sorted(counts)
# the main thread, the workers the count allows and the large-file lane's
tasks = int(sys.argv[2])
assert tasks <= n + 2, "%d threads while frozen at a count of %d" % (tasks, n)
PY
}

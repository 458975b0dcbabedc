# SPDX-License-Identifier: GPL-3.0-or-later
# The profile store stays bounded: filesystems whose id is made up
# at mount time (tmpfs, overlay, FUSE) share one file per type; profiles
# unused for 30 days expire; at most 256 files are kept, the least recently
# used going first; nothing in the directory that is not a profile of ours is
# touched. Each test uses its own XDG_CACHE_HOME.

prof_cache() {
	export XDG_CACHE_HOME=$SCRATCH/cache
	mkdir -p "$XDG_CACHE_HOME/adaptrm"
	PROF=$XDG_CACHE_HOME/adaptrm
}

# prof_json FILE EXPR: a Python expression on the --json document d.
prof_json() {
	python3 - "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(eval(sys.argv[2], {"d": d}))
PY
}

# prof_learn DIR JSON: delete trees in DIR until a run stores its profile (a
# run stores only after two measured windows: a fast machine may finish a
# small tree sooner, so the tree grows). Prints the last run's start_from.
prof_learn() {
	local dir=$1 json=$2 n
	for n in 200 400 800; do
		make_tree "$dir/t" "$n" 1000
		"$ADAPTRM" -rf --json "$json" "$dir/t" 2>>"$SCRATCH/err" || fail "adaptrm failed: $(cat "$SCRATCH/err")"
		expect_gone "$dir/t"
		[ "$(prof_json "$json" 'd["trees"][0]["profile_saved"]')" = True ] && return 0
	done
	fail "no profile stored after deleting $n x 1000 in $dir"
}

# Four tmpfs mounts, one after the other, each unmounted after its delete:
# one file (tmpfs.json), not one per mount, and every mount after the first
# starts from what the one before learned. (The previous binary wrote
# tmpfs-FSID-0_N.json per mount and started each fresh mount from the prior.)
test_profiles_tmpfs_mounts_share_one_file() {
	need_root
	prof_cache
	local i from
	for i in 1 2 3 4; do
		mkdir -p "m$i"
		mount -t tmpfs -o size=512M tmpfs "m$i" || skip "cannot mount tmpfs"
		on_exit umount -l "$SCRATCH/m$i"
		prof_learn "m$i" "$SCRATCH/r$i.json"
		from=$(prof_json "$SCRATCH/r$i.json" 'd["trees"][0]["start_from"]')
		[ "$i" = 1 ] || expect_eq "$from" profile "mount $i's start"
		umount "m$i" || fail "cannot unmount m$i"
	done
	expect_eq "$(ls "$PROF")" tmpfs.json "files in the profile directory"
	python3 - "$PROF/tmpfs.json" <<'PY' || fail "tmpfs.json: $(cat "$PROF/tmpfs.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["format"] == "adaptrm-profile-1" and d["fs"] == "tmpfs", d
assert "fsid" not in d and "dev" not in d, "a per-type file names no mount"
c = [c for c in d["classes"] if c["shape"] == "tree-wide"]
assert len(c) == 1 and c[0]["runs"] >= 4 and c[0]["used"] >= c[0]["updated"], c
PY
	"$ADAPTRM" --profiles >"$SCRATCH/list" || fail "--profiles failed"
	grep -Eq '^tmpfs +\(by type\) +- +tree-wide ' "$SCRATCH/list" ||
		fail "--profiles does not list it: $(cat "$SCRATCH/list")"
	! grep -q "ignoring profile" "$SCRATCH/err" || fail "warnings: $(cat "$SCRATCH/err")"
}

# A directory an older version filled: 300 profiles of ours (270 ext4 ones
# used within the last 12 days, 20 unused for over 30 days, 8 per-mount
# tmpfs files, 2 per-mount FUSE files used half an hour ago) beside things
# that are not ours, all older than a year: a symlink named like a profile
# (to an old file of ours outside), a directory and a FIFO named like one,
# other *.json names, a temporary file. One delete that stores its profile
# leaves 256: the expired gone, the tmpfs files gone (tmpfs.json holds that
# type now), then the least recently used; what is not ours untouched; and
# it reads none of them (strace: the only profile it opens is tmpfs.json).
# (The previous binary removed nothing: 301 files.)
test_profiles_pruned_to_the_cap() {
	need_root
	prof_cache
	python3 - "$PROF" "$SCRATCH" <<'PY'
import os, sys, time
d, scratch = sys.argv[1], sys.argv[2]
now = time.time()
def put(name, fs, fsid, dev, mtime):
    p = os.path.join(d, name) if "/" not in name else name
    with open(p, "w") as f:
        f.write('{"format": "adaptrm-profile-1", "fs": "%s", "fsid": "%s", "dev": "%s", '
                '"classes": [{"shape": "flat", "threads": 2, "rate": 1, "runs": 1, '
                '"updated": %d}]}\n' % (fs, fsid, dev, mtime))
    os.utime(p, (mtime, mtime))
for n in range(270):
    put("ext4-%016x-8_%d.json" % (0xe000 + n, n), "ext4", "%016x" % (0xe000 + n), "8:%d" % n,
        now - (n + 1) * 3600)
for n in range(20):
    put("ext4-%016x-9_%d.json" % (0xd000 + n, n), "ext4", "%016x" % (0xd000 + n), "9:%d" % n,
        now - (31 + n) * 86400)
for n in range(8):
    put("tmpfs-%016x-0_%d.json" % (0xc000 + n, 40 + n), "tmpfs", "%016x" % (0xc000 + n),
        "0:%d" % (40 + n), now - 600)
for n in range(2):
    put("fuse-0000000000000000-0_%d.json" % (60 + n), "fuse", "0000000000000000", "0:%d" % (60 + n),
        now - 1800)
old = now - 400 * 86400
outside = os.path.join(scratch, "ext4-00000000000000ff-8_999.json")
put(outside, "ext4", "00000000000000ff", "8:999", old)
for name in ("notes.json", "README", "tmpfs.json.tmp.abcdef", "ext4-zz-8_1.json"):
    p = os.path.join(d, name)
    open(p, "w").write("mine\n")
    os.utime(p, (old, old))
os.symlink(outside, os.path.join(d, "ext4-00000000000000ff-8_998.json"))
os.utime(os.path.join(d, "ext4-00000000000000ff-8_998.json"), (old, old), follow_symlinks=False)
os.mkdir(os.path.join(d, "ext4-00000000000000fe-8_997.json"))
os.mkfifo(os.path.join(d, "ext4-00000000000000fd-8_996.json"))
PY
	ours() { find "$PROF" -maxdepth 1 -type f -regextype posix-extended \
		-regex '.*/([a-z0-9]+-[0-9a-f]{16}-[0-9]+_[0-9]+|tmpfs|overlay|fuse|ramfs)\.json' | wc -l; }
	expect_eq "$(ours)" 300 "profiles before"

	mkdir -p m
	mount -t tmpfs -o size=512M tmpfs m || skip "cannot mount tmpfs"
	on_exit umount -l "$SCRATCH/m"
	local tracer=()
	# LeakSanitizer cannot run under ptrace: no leak check in the traced runs
	command -v strace >/dev/null &&
		tracer=(env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
			strace -f -qq -Z --seccomp-bpf -e trace=openat -o "$SCRATCH/trace")
	local n saved=False
	for n in 200 400 800; do
		make_tree m/t "$n" 1000
		"${tracer[@]}" "$ADAPTRM" -rf --json "$SCRATCH/r.json" m/t 2>"$SCRATCH/err" ||
			fail "adaptrm failed: $(cat "$SCRATCH/err")"
		saved=$(prof_json "$SCRATCH/r.json" 'd["trees"][0]["profile_saved"]')
		[ "$saved" = True ] && break
	done
	[ "$saved" = True ] || fail "no profile stored after deleting $n x 1000"

	expect_eq "$(ours)" 256 "profiles after"
	expect_exists "$PROF/tmpfs.json"
	local i missing=0 present=0
	for ((i = 0; i < 270; i++)); do
		if [ -e "$PROF/$(printf 'ext4-%016x-8_%d.json' $((0xe000 + i)) "$i")" ]; then
			[ "$i" -lt 253 ] || present=$((present + 1))
		else
			[ "$i" -ge 253 ] || missing=$((missing + 1))
		fi
	done
	expect_eq "$missing" 0 "recently used profiles removed"
	expect_eq "$present" 0 "least recently used profiles kept"
	expect_eq "$(find "$PROF" -name 'ext4-*-9_*.json' | wc -l)" 0 "expired profiles kept"
	expect_eq "$(find "$PROF" -name 'tmpfs-*.json' | wc -l)" 0 "per-mount tmpfs files kept"
	expect_eq "$(find "$PROF" -name 'fuse-*.json' | wc -l)" 2 "per-mount FUSE files (no fuse.json yet)"
	for f in notes.json README tmpfs.json.tmp.abcdef ext4-zz-8_1.json; do
		expect_exists "$PROF/$f"
		expect_eq "$(cat "$PROF/$f")" mine "$f changed"
	done
	[ -L "$PROF/ext4-00000000000000ff-8_998.json" ] || fail "the symlink was removed"
	expect_exists "$SCRATCH/ext4-00000000000000ff-8_999.json"
	[ -d "$PROF/ext4-00000000000000fe-8_997.json" ] || fail "the directory was removed"
	[ -p "$PROF/ext4-00000000000000fd-8_996.json" ] || fail "the FIFO was removed"

	if [ -s "$SCRATCH/trace" ]; then
		# every profile opened is tmpfs.json (read at the start, written
		# through a temporary file at the end; this mount's per-id file of
		# an older version is looked for, not found). Only opens that
		# succeeded are printed (-Z): a failed one is not split by another
		# thread's call into an "unfinished" line that hides its result.
		local opened
		opened=$(grep -o "\"$PROF/[^\"]*\"" | tr -d '"' | sed "s|^$PROF/||" |
			grep -v '^tmpfs\.json\(\.tmp\.......\)\?$' | sort | uniq -c | awk '{print $2 ":" $1}' | tr '\n' ' ')
		expect_eq "$opened" "" "other files of the profile directory opened"
	fi
	"$ADAPTRM" --profiles >"$SCRATCH/list" || fail "--profiles failed"
	grep -Eq '^tmpfs +\(by type\) ' "$SCRATCH/list" || fail "--profiles: $(head -5 "$SCRATCH/list")"
}

# prof_nowhere JSON: the run wrote --json JSON, learned a count (else the
# delete was too short to store one: skip) and did not store it.
prof_nowhere() {
	[ "$(prof_json "$1" 'd["trees"][0]["learned_threads"]')" != None ] ||
		skip "delete too short to learn from: nothing to check"
	expect_eq "$(prof_json "$1" 'd["trees"][0]["profile_saved"]')" False "profile saved"
}

# The cache home ($XDG_CACHE_HOME, else $HOME/.cache) is never created, not
# even where its parent exists: a missing one was most likely just deleted.
# Only adaptrm/ inside an existing one is.
test_profiles_never_create_the_cache_home() {
	need_root
	mount_slowfs mnt 1000
	local run=0
	del() { # deletes a fresh tree with the environment given, --json r$run.json
		run=$((run + 1))
		make_tree "$SLOWFS_BACKING/t" 40 100
		env "$@" ADAPTRM_CTL_START=1 "$ADAPTRM" -rf --json "$SCRATCH/r$run.json" mnt/t ||
			fail "adaptrm failed"
		expect_gone "$SLOWFS_BACKING/t"
	}
	mkdir home
	del XDG_CACHE_HOME="$SCRATCH/xdg"
	prof_nowhere "$SCRATCH/r$run.json"
	expect_gone xdg
	del -u XDG_CACHE_HOME HOME="$SCRATCH/home"
	prof_nowhere "$SCRATCH/r$run.json"
	expect_gone home/.cache
	mkdir xdg home/.cache
	del XDG_CACHE_HOME="$SCRATCH/xdg"
	expect_eq "$(prof_json "$SCRATCH/r$run.json" 'd["trees"][0]["profile_saved"]')" True "profile saved"
	expect_exists xdg/adaptrm/fuse.json
	del -u XDG_CACHE_HOME HOME="$SCRATCH/home"
	expect_eq "$(prof_json "$SCRATCH/r$run.json" 'd["trees"][0]["profile_saved"]')" True "profile saved"
	expect_exists home/.cache/adaptrm/fuse.json
}

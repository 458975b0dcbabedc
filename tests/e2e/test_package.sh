# SPDX-License-Identifier: GPL-3.0-or-later
# The Debian package's own files, without installing it: the postrm run for a
# root of its own ($DPKG_ROOT) and the boot unit that resumes root's held
# deletes.

# On purge the state directory goes, and so do the holding places it lists
# that hold nothing (a lock and a status file alone); a place that holds an
# entry stays whole. Remove (not purge) leaves them all.
test_package_postrm_purge() {
	local r=$SCRATCH/root
	mkdir -p "$r/var/lib/adaptrm" "$r/.adaptrm-held-0" "$r/mnt/.adaptrm-held-0/held-entry"
	printf '%s\n' /.adaptrm-held-0 /mnt/.adaptrm-held-0 >"$r/var/lib/adaptrm/places"
	: >"$r/var/lib/adaptrm/deleter.log"
	: >"$r/.adaptrm-held-0/lock"; : >"$r/.adaptrm-held-0/status"
	: >"$r/mnt/.adaptrm-held-0/lock"; : >"$r/mnt/.adaptrm-held-0/held-entry/f"
	DPKG_ROOT=$r sh "$E2E_REPO/debian/adaptrm.postrm" remove
	expect_exists "$r/var/lib/adaptrm/places"
	expect_exists "$r/.adaptrm-held-0/lock"
	DPKG_ROOT=$r sh "$E2E_REPO/debian/adaptrm.postrm" purge
	expect_gone "$r/var/lib/adaptrm"
	expect_gone "$r/.adaptrm-held-0"
	expect_exists "$r/mnt/.adaptrm-held-0/held-entry/f"
	expect_exists "$r/mnt/.adaptrm-held-0/lock"
}

# The unit passes systemd-analyze verify: a copy of it, its ExecStart the
# binary under test (none is installed at the unit's path here).
test_package_resume_unit() {
	local unit=$E2E_REPO/debian/adaptrm.adaptrm-resume.service
	grep -qx 'ExecStart=/usr/bin/adaptrm --resume' "$unit" || fail "ExecStart: $(cat "$unit")"
	grep -qx 'After=local-fs.target' "$unit" || fail "not after local-fs.target"
	command -v systemd-analyze >/dev/null || skip "no systemd-analyze"
	sed "s|^ExecStart=/usr/bin/adaptrm |ExecStart=$ADAPTRM |" "$unit" >adaptrm-resume.service
	systemd-analyze verify --man=no adaptrm-resume.service >out 2>&1 ||
		fail "systemd-analyze verify: $(cat out)"
	grep -q . out && fail "systemd-analyze verify: $(cat out)"
	true
}

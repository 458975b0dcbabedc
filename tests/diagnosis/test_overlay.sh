# SPDX-License-Identifier: GPL-3.0-or-later
# Deleting a container image's files through overlayfs: the files live in
# the lower layer, so each unlink cannot remove anything; overlayfs copies
# the parent directory up and creates a whiteout in the upper layer (on
# tmpfs here) for every file, all on the CPU in ovl_* and the upper
# filesystem's create paths.

# Expect overlayfs_copy_up on top (of everything), its text naming the
# whiteouts or the lower layer. Anchor: the upper layer holds a whiteout
# (a 0:0 character device) for every deleted file.
test_overlay_delete_lower_layer_files() {
	need_bpf
	local dirs=100 per=1000 whiteouts
	big && dirs=300
	mount_fs tmpfs layers 2G || skip "cannot mount tmpfs"
	mkdir -p layers/lower layers/upper layers/work m
	make_tree layers/lower/t $dirs $per
	mount -t overlay overlay -o lowerdir=layers/lower,upperdir=layers/upper,workdir=layers/work m ||
		skip "cannot mount overlayfs"
	on_exit umount -l "$SCRATCH/m"
	"$ADAPTRM" --trace --json t.json -- find m/t -type f -delete >report.txt || fail "trace failed"
	[ -z "$(find m/t -type f | head -1)" ] || fail "files left in m/t"
	show_verdict t.json
	whiteouts=$(find layers/upper/t -type c | wc -l)
	[ "$whiteouts" -ge $((dirs * per)) ] ||
		setup_failed "$whiteouts whiteouts in the upper layer for $((dirs * per)) files"
	expect_shares_sum t.json
	expect_top t.json overlayfs_copy_up ""
	expect_text t.json overlayfs_copy_up "whiteout|lower"
	verdict_ok
}

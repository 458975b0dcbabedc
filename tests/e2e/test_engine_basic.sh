# Basic end-to-end cases of the deletion engine on tmpfs.

test_tree_parallel() {
	make_sentinel keep; local before; before=$(sentinel_sum keep)
	make_tree t 50 200
	"$ADAPTRM" -rf --threads=4 t
	expect_gone t
	expect_eq "$(sentinel_sum keep)" "$before" "sentinel changed"
}

test_verbose_postorder() {
	mkdir -p a/b; touch a/x a/b/y b
	out=$("$ADAPTRM" -rv --threads=1 a b)
	expect_eq "$out" "removed 'a/x'
removed 'a/b/y'
removed directory 'a/b'
removed directory 'a'
removed 'b'"
}

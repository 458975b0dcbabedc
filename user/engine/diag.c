/* The engine's messages: diagnostics on stderr and -v lines on stdout,
 * naming each file by its path as the user spelled the operand. */
#include "engine/engine_int.h"
#include "lib/msg.h"
#include "lib/quote.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"

#include <stdio.h>

/* Path of directory N (and LEAF inside it, if given) as the user would see it:
 * the operand as spelled, then the names below it. */
void build_path(struct worker *w, struct strbuf *sb, struct dnode *n, const char *leaf)
{
	size_t depth = 0;
	for (struct dnode *p = n; p && !(atomic_load(&p->flags) & DN_ANCHOR); p = p->parent) {
		if (depth == w->cap_chain) {
			w->cap_chain = w->cap_chain ? 2 * w->cap_chain : 64;
			w->chain = xrealloc(w->chain, w->cap_chain * sizeof(*w->chain));
		}
		w->chain[depth++] = p;
	}
	sb_reset(sb);
	sb_adds(sb, w->e->display);
	/* chain[depth-1] is the operand itself: its name is the display */
	for (size_t i = depth - 1; i-- > 0;) {
		if (sb->len && sb->buf[sb->len - 1] != '/')
			sb_addc(sb, '/');
		sb_add(sb, w->chain[i]->name, w->chain[i]->namelen);
	}
	if (leaf) {
		if (sb->len && sb->buf[sb->len - 1] != '/')
			sb_addc(sb, '/');
		sb_adds(sb, leaf);
	}
}

static void report(struct worker *w, struct dnode *dir, const char *leaf, const char *what, int err)
{
	build_path(w, &w->path, dir, leaf);
	sb_reset(&w->msg);
	quote_append(&w->msg, w->path.buf, w->path.len);
	warn_errno(err, "%s %s", what, sb_str(&w->msg));
	stat_add(&w->st->errors, 1);
}

void report_cannot_remove(struct worker *w, struct dnode *dir, const char *leaf, int err)
{
	report(w, dir, leaf, "cannot remove", err);
}

void verbose_removed(struct worker *w, struct dnode *dir, const char *leaf, bool is_dir)
{
	build_path(w, &w->path, dir, leaf);
	sb_reset(&w->msg);
	sb_adds(&w->msg, is_dir ? "removed directory " : "removed ");
	quote_append(&w->msg, w->path.buf, w->path.len);
	sb_addc(&w->msg, '\n');
	flockfile(stdout);
	fwrite(w->msg.buf, 1, w->msg.len, stdout);
	funlockfile(stdout);
}

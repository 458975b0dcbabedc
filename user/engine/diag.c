// SPDX-License-Identifier: GPL-3.0-or-later
/* The engine's messages: diagnostics on stderr and -v lines on stdout,
 * naming each file by its path as the user spelled the operand. Out of
 * memory they still go out (a directory's ENOMEM is reported, not fatal):
 * with the last name alone, quoted in a buffer on the stack. */
#include "engine/engine_int.h"
#include "lib/msg.h"
#include "lib/quote.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room for NEED more bytes and a NUL in SB, grown here where failing is
 * allowed (the strbuf's own growth dies): false if out of memory. */
static bool sb_try_reserve(struct strbuf *sb, size_t need)
{
	return try_grow(&sb->buf, &sb->cap, sb->len + need + 1, 64);
}

/* The spelling of the operand that ANCHOR leads to: the caller's own, or
 * the one an adoption was given (steal.c). */
static const char *anchor_display(const struct engine *e, const struct dnode *anchor)
{
	if (anchor == &e->anchor)
		return e->display;
	return container_of(anchor, struct adoption, anchor)->display;
}

static bool is_operand(const struct dnode *p)
{
	return atomic_load(&p->parent->flags) & DN_ANCHOR;
}

/* Path of directory N (and LEAF inside it, if given) as the user would see it:
 * the operand as spelled, then the names below it. False if out of memory
 * (SB is then empty). */
static bool try_build_path(struct worker *w, struct strbuf *sb, struct dnode *n, const char *leaf)
{
	size_t leaflen = leaf ? strlen(leaf) : 0;
	/* "/name" for each level below the operand and for LEAF; the first
	 * '/' is the operand's own if it ends in one ("a/" shows "a/x") */
	size_t total = leaf ? 1 + leaflen : 0;
	struct dnode *root = n;
	for (; !is_operand(root); root = root->parent)
		total += 1 + root->namelen;
	const char *disp = anchor_display(w->e, root->parent);
	size_t dlen = strlen(disp);
	total += dlen;
	if (total > dlen && (dlen == 0 || disp[dlen - 1] == '/'))
		total--;
	sb_reset(sb);
	if (!sb_try_reserve(sb, total))
		return false;
	memcpy(sb->buf, disp, dlen);
	sb->len = total;
	sb->buf[total] = '\0';
	/* the names bottom-up, from the end */
	size_t pos = total;
	if (leaf) {
		pos -= leaflen;
		memcpy(sb->buf + pos, leaf, leaflen);
		if (pos > dlen)
			sb->buf[--pos] = '/';
	}
	for (struct dnode *p = n; !is_operand(p); p = p->parent) {
		pos -= p->namelen;
		memcpy(sb->buf + pos, p->name, p->namelen);
		if (pos > dlen)
			sb->buf[--pos] = '/';
	}
	return true;
}

void engine_msg_path(struct worker *w, struct strbuf *sb, struct dnode *n, const char *leaf)
{
	if (!try_build_path(w, sb, n, leaf))
		sb_add(sb, "", 0); /* out of memory: dies as it did */
}

/* PREFIX and the quoted path of DIR/LEAF (and SUFFIX) in w->msg; out of
 * memory, PREFIX and the last name quoted in EMERGENCY (SIZE bytes, at least
 * 64). Returns the text and its length in *LEN. */
#define EMERGENCY 1024
static const char *quoted_line(struct worker *w, struct dnode *dir, const char *leaf,
			       const char *prefix, const char *suffix, char *emergency, size_t *len)
{
	size_t plen = strlen(prefix), slen = strlen(suffix);
	if (try_build_path(w, &w->path, dir, leaf)) {
		sb_reset(&w->msg);
		/* a quoted byte takes at most 4 characters, and island marks */
		if (sb_try_reserve(&w->msg, plen + 6 * w->path.len + 16 + slen)) {
			sb_add(&w->msg, prefix, plen);
			quote_append(&w->msg, w->path.buf, w->path.len);
			sb_add(&w->msg, suffix, slen);
			*len = w->msg.len;
			return w->msg.buf;
		}
	}
	/* Out of memory: the operand as spelled, "..." for the levels between,
	 * and the last name, so that the line still says which tree it is. */
	struct dnode *root = dir;
	while (!is_operand(root))
		root = root->parent;
	const char *disp = anchor_display(w->e, root->parent);
	const char *name = leaf ? leaf : dir == root ? NULL : dir->name;
	const char *sep = !name ? "" : (leaf ? dir == root : dir->parent == root) ? "/" : "/.../";
	char raw[(EMERGENCY - 64) / 6];
	int n = snprintf(raw, sizeof raw, "%s%s%s", disp, sep, name ? name : "");
	size_t rlen = n < 0 ? 0 : (size_t)n < sizeof raw ? (size_t)n : sizeof raw - 1;
	struct strbuf sb = { .buf = emergency, .len = 0, .cap = EMERGENCY };
	sb_add(&sb, prefix, plen);
	quote_append(&sb, raw, rlen);
	sb_add(&sb, suffix, slen);
	*len = sb.len;
	return emergency;
}

void engine_msg_path_error(struct worker *w, struct dnode *dir, const char *leaf, const char *what,
			   int err)
{
	char emergency[EMERGENCY];
	size_t len;
	const char *shown = quoted_line(w, dir, leaf, "", "", emergency, &len);
	warn_errno(err, "%s %s", what, shown);
	stat_add(&w->st->errors, 1);
}

void engine_msg_cannot_remove(struct worker *w, struct dnode *dir, const char *leaf, int err)
{
	engine_msg_path_error(w, dir, leaf, "cannot remove", err);
}

void engine_msg_cycle(struct worker *w, struct dnode *d)
{
	engine_msg_path(w, &w->path, d, NULL);
	sb_reset(&w->msg);
	quote_maybe_append(&w->msg, w->path.buf, w->path.len);
	warn_errno(0,
		   "WARNING: Circular directory structure.\n"
		   "This almost certainly means that you have a corrupted file system.\n"
		   "NOTIFY YOUR SYSTEM MANAGER.\n"
		   "The following directory is part of the cycle:\n  %s\n",
		   sb_str(&w->msg));
	stat_add(&w->st->errors, 1);
}

void engine_msg_removed(struct worker *w, struct dnode *dir, const char *leaf, bool is_dir)
{
	char emergency[EMERGENCY];
	size_t len;
	const char *line = quoted_line(w, dir, leaf, is_dir ? "removed directory " : "removed ",
				       "\n", emergency, &len);
	flockfile(stdout);
	/* stdio flushes a pipe every 4 KiB: the reader is gone when that
	 * write fails. With SIGPIPE at its default the worker dies of it
	 * there, as GNU rm does (the workers leave it unblocked); ignored
	 * or blocked, the write fails with EPIPE: nothing more is removed
	 * (exit 1 and "write error: Broken pipe" at close_stdout). */
	bool pipe_closed = fwrite(line, 1, len, stdout) < len && errno == EPIPE;
	funlockfile(stdout);
	if (pipe_closed) {
		msg_stdout_failed(EPIPE);
		atomic_store(&w->e->halt, 1);
	}
}

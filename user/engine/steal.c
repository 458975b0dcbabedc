// SPDX-License-Identifier: GPL-3.0-or-later
/* Scale-out: directories given to other engines and taken from them
 * (docs/design.md#scale-out).
 *
 * Ownership stays "one task per directory, children remove their parents".
 * A donor gives away directories that wait to be scanned, children of one
 * directory P, and keeps each counted in P (DN_DONATED, in the donated table
 * by token). The thief builds its own way down from its spelling of the
 * operand (DN_PATH nodes, each with the inode the donor saw, checked as the
 * fd cache opens it with O_NOFOLLOW), scans the given directories as tasks
 * (DN_STOLEN) and, when one's count reaches zero, does not remove it: it
 * tells the donor, who removes it through its own verified fds (a release
 * task) and walks on to P as ever. Nothing else is needed to end an
 * operand: its root's count on the first engine covers every directory
 * given away, and every one given on from there.
 *
 * Where nothing waits to be scanned but a reader cuts a big directory into
 * slices for idle workers (only where sharing a directory pays, as within
 * one machine), a slice of names can go too: the thief unlinks them through
 * its own way down to the directory, and its report drops the slice's count
 * on the donor's node, as a local slice's end does.
 *
 * A donation on the wire, in host byte order (one architecture per job):
 *   head   u32 magic, u32 n, u32 depth, u32 kind, u64 root inode
 *   depth  x { u64 ino, u16 len, name }  from the root's child down to P
 *   kind DIRS:  n x { u64 token, u64 ino, u16 len, name }  P's children
 *   kind SLICE: u64 token, then n x { u8 type, u64 ino, u16 len, name },
 *               names in P (the root itself when depth is 0)
 */
#include "engine/dirnode.h"
#include "engine/engine_int.h"
#include "lib/clock.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DONATION_MAGIC 0x31736461u /* "ads1" */
#define DONATION_MAX_DIRS 1024u	   /* per message: a steal is a handful of subtrees */

enum { KIND_DIRS, KIND_SLICE };

struct donation_head {
	uint32_t magic, ndirs, depth, kind;
	uint64_t root_ino;
};

void engine_set_remote(struct engine *e, engine_remote_fn fn, void *arg)
{
	pthread_mutex_lock(&e->qlock);
	e->remote_fn = fn;
	e->remote_arg = arg;
	pthread_mutex_unlock(&e->qlock);
}

void engine_set_jitter(struct engine *e, void (*fn)(void *arg), void *arg)
{
	/* the argument first: a worker that sees FN sees its ARG */
	atomic_store_explicit(&e->jitter_arg, arg, memory_order_relaxed);
	atomic_store_explicit(&e->jitter_fn, fn, memory_order_release);
}

void engine_serve_wake(struct engine *e)
{
	pthread_mutex_lock(&e->qlock);
	pthread_cond_broadcast(&e->done_cond);
	pthread_mutex_unlock(&e->qlock);
}

void engine_describe(struct engine *e, struct strbuf *out)
{
	char line[400];
	/* a hung run may hang holding the lock: then that is what it says */
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 2;
	if (pthread_mutex_timedlock(&e->qlock, &until) != 0) {
		snprintf(line, sizeof line, "  engine: its lock is held (for 2 s and more)\n");
		sb_add(out, line, strlen(line));
		return;
	}
	size_t dirs = 0, chunks = 0, releases = 0;
	for (size_t i = 0; i < e->qlen; i++) {
		uintptr_t t = e->stack[i];
		chunks += (t & TASK_CHUNK) != 0;
		releases += (t & TASK_RELEASE) != 0;
		dirs += !(t & (TASK_CHUNK | TASK_RELEASE));
	}
	int started = atomic_load(&e->nstarted);
	/* the rest of the started workers are parked (past the allowed
	 * count, between tasks) or on their way between waits */
	int other = started - e->idle - e->busy - e->held;
	snprintf(line, sizeof line,
		 "  engine: queued %zu (%zu directories, %zu slices, %zu reports); workers %d: "
		 "%d at a task, %d waiting for one, %d held mid-directory, %d parked or between; "
		 "allowed %d (lane %d); given away and not back %zu; stop %d, operand done %d\n",
		 e->qlen, dirs, chunks, releases, started, e->busy, e->idle, e->held,
		 other > 0 ? other : 0, atomic_load(&e->knobs.active_threads), e->lane_extra,
		 e->remote_out, (int)e->stop, (int)e->op_done);
	pthread_mutex_unlock(&e->qlock);
	sb_add(out, line, strlen(line));
}

bool engine_wants_work(struct engine *e)
{
	pthread_mutex_lock(&e->qlock);
	bool want = e->qlen == 0 && e->idle > 0 && !e->stop && !e->halt;
	pthread_mutex_unlock(&e->qlock);
	return want;
}

size_t engine_backlog(struct engine *e)
{
	pthread_mutex_lock(&e->qlock);
	int active = atomic_load_explicit(&e->knobs.active_threads, memory_order_relaxed);
	size_t busy = active > e->idle ? (size_t)(active - e->idle) : 0;
	size_t n = e->qlen + busy;
	pthread_mutex_unlock(&e->qlock);
	return n;
}

uint64_t engine_given_on(struct engine *e)
{
	return atomic_load(&e->given_on);
}

size_t engine_remote_out(struct engine *e)
{
	pthread_mutex_lock(&e->qlock);
	size_t n = e->remote_out;
	pthread_mutex_unlock(&e->qlock);
	return n;
}

/* ------------------------------------------------------------------ */
/* The donor                                                            */

/* A slot for N, its token in *TOKEN (qlock held). False if out of memory. */
static bool donated_put(struct engine *e, struct dnode *n, uint64_t *token)
{
	uint32_t i;
	if (e->free_donated) {
		i = e->free_donated - 1;
		e->free_donated = e->donated[i].next_free;
	} else {
		size_t cap = e->cap_donated;
		if (!try_grow(&e->donated, &cap, (size_t)e->ndonated + 1, 64))
			return false;
		e->cap_donated = (uint32_t)cap;
		i = e->ndonated++;
		e->donated[i].gen = 0;
	}
	e->donated[i].n = n;
	e->donated[i].gen++;
	*token = (uint64_t)e->donated[i].gen << 32 | i;
	return true;
}

/* The node given as TOKEN, its slot freed; NULL if TOKEN is not one out
 * (qlock held). */
static struct dnode *donated_take(struct engine *e, uint64_t token)
{
	uint32_t i = (uint32_t)token, gen = (uint32_t)(token >> 32);
	if (i >= e->ndonated || !e->donated[i].n || e->donated[i].gen != gen)
		return NULL;
	struct dnode *n = e->donated[i].n;
	e->donated[i].n = NULL;
	e->donated[i].next_free = e->free_donated;
	e->free_donated = i + 1;
	return n;
}

/* A task that may be given away: a directory not yet scanned (no rescan),
 * below an operand's root (the root is opened by the operand's owner). */
static struct dnode *givable(uintptr_t task)
{
	if (task & (TASK_CHUNK | TASK_RELEASE))
		return NULL;
	struct dnode *n = (struct dnode *)task;
	if (n->retries || (atomic_load(&n->parent->flags) & DN_ANCHOR))
		return NULL;
	return n;
}

/* Take up to WANT children of the oldest givable task's parent out of the
 * stack into GIVEN, registered with their tokens (qlock held). */
static size_t take_oldest(struct engine *e, size_t want, struct dnode **given, uint64_t *tokens)
{
	size_t first = 0;
	while (first < e->qlen && !givable(e->stack[first]))
		first++;
	if (first == e->qlen)
		return 0;
	struct dnode *p = givable(e->stack[first])->parent;
	size_t k = 0, keep = first;
	for (size_t i = first; i < e->qlen; i++) {
		struct dnode *n = givable(e->stack[i]);
		if (k < want && n && n->parent == p && donated_put(e, n, &tokens[k])) {
			atomic_fetch_or(&n->flags, DN_DONATED);
			given[k++] = n;
			continue;
		}
		e->stack[keep++] = e->stack[i];
	}
	e->qlen = keep;
	e->remote_out += k;
	return k;
}

static void put_u16(struct strbuf *sb, uint16_t v)
{
	sb_add(sb, &v, sizeof v);
}
static void put_u64(struct strbuf *sb, uint64_t v)
{
	sb_add(sb, &v, sizeof v);
}
static void put_name(struct strbuf *sb, const struct dnode *n)
{
	put_u16(sb, n->namelen);
	sb_add(sb, n->name, n->namelen);
}

/* The way from the operand's root down to P (the root excluded); true if
 * it is a way this engine was given (an adoption's). */
static bool put_path(struct strbuf *sb, struct dnode *p, uint32_t *depth, uint64_t *root_ino)
{
	struct dnode *root = p;
	size_t n = 0;
	for (; !(atomic_load(&root->parent->flags) & DN_ANCHOR); root = root->parent)
		n++;
	*depth = (uint32_t)n;
	*root_ino = root->ino;
	/* top-down: walk from the root each time would be quadratic, so
	 * write the components bottom-up into their slots */
	size_t start = sb->len, total = 0;
	for (struct dnode *c = p; c != root; c = c->parent)
		total += 8 + 2 + c->namelen;
	for (size_t i = 0; i < total; i++)
		sb_addc(sb, 0);
	size_t pos = start + total;
	for (struct dnode *c = p; c != root; c = c->parent) {
		uint64_t ino = c->ino;
		uint16_t len = c->namelen;
		pos -= 8 + 2 + len;
		memcpy(sb->buf + pos, &ino, 8);
		memcpy(sb->buf + pos + 8, &len, 2);
		memcpy(sb->buf + pos + 10, c->name, len);
	}
	return atomic_load(&root->flags) & DN_PATH; /* a thief's way down */
}

/* The oldest slice in the stack, taken out and registered (qlock held);
 * NULL if none. */
static struct chunk *take_slice(struct engine *e, uint64_t *token)
{
	for (size_t i = 0; i < e->qlen; i++) {
		if (!(e->stack[i] & TASK_CHUNK))
			continue;
		struct chunk *c = (struct chunk *)(e->stack[i] & ~TASK_CHUNK);
		if (!donated_put(e, c->d, token))
			return NULL;
		memmove(&e->stack[i], &e->stack[i + 1], (e->qlen - i - 1) * sizeof(*e->stack));
		e->qlen--;
		e->remote_out++;
		return c;
	}
	return NULL;
}

static void put_slice(struct engine *e, struct strbuf *out, struct chunk *c, uint64_t token)
{
	struct donation_head h = { .magic = DONATION_MAGIC, .ndirs = c->n, .kind = KIND_SLICE };
	sb_add(out, &h, sizeof h);
	put_path(out, c->d, &h.depth, &h.root_ino);
	memcpy(out->buf, &h, sizeof h);
	put_u64(out, token);
	const char *names = (const char *)&c->ents[c->n];
	for (uint32_t i = 0; i < c->n; i++) {
		const char *name = names + c->ents[i].name_off;
		uint16_t len = (uint16_t)strlen(name);
		sb_addc(out, (char)c->ents[i].type);
		put_u64(out, c->ents[i].ino);
		put_u16(out, len);
		sb_add(out, name, len);
	}
}

size_t engine_donate(struct engine *e, size_t max, struct strbuf *out)
{
	sb_reset(out);
	if (max > DONATION_MAX_DIRS)
		max = DONATION_MAX_DIRS;
	struct dnode *given[DONATION_MAX_DIRS];
	uint64_t tokens[DONATION_MAX_DIRS];
	pthread_mutex_lock(&e->qlock);
	size_t k = 0;
	struct chunk *slice = NULL;
	uint64_t slice_token = 0;
	if (!e->stop && !e->halt && e->qlen > 0) {
		size_t half = (e->qlen + 1) / 2;
		k = take_oldest(e, half < max ? half : max, given, tokens);
		if (!k)
			slice = take_slice(e, &slice_token);
	}
	if (!k && !slice && atomic_load(&e->remote_hunger) < 8)
		atomic_fetch_add(&e->remote_hunger, 1); /* a reader may cut one */
	pthread_mutex_unlock(&e->qlock);
	engine_jitter(e);
	if (slice) {
		put_slice(e, out, slice, slice_token);
		size_t n = slice->n;
		free(slice); /* its count on the directory is the token's now */
		return n;
	}
	if (!k)
		return 0;
	/* The parent's chain cannot go while its children are counted in it. */
	struct donation_head h = { .magic = DONATION_MAGIC, .ndirs = (uint32_t)k };
	sb_add(out, &h, sizeof h);
	if (put_path(out, given[0]->parent, &h.depth, &h.root_ino))
		atomic_fetch_add(&e->given_on, 1);
	memcpy(out->buf, &h, sizeof h);
	for (size_t i = 0; i < k; i++) {
		put_u64(out, tokens[i]);
		put_u64(out, given[i]->ino);
		put_name(out, given[i]);
	}
	return k;
}

bool engine_remote_done(struct engine *e, uint64_t token, bool failed)
{
	engine_jitter(e);
	pthread_mutex_lock(&e->qlock);
	struct dnode *n = donated_take(e, token);
	if (n) {
		if (failed)
			atomic_fetch_or(&n->flags, DN_FAILED);
		/* push_locked kept room for it: no allocation, no failure */
		e->remote_out--;
		if (e->qlen == 0)
			e->waiting_since = now_ns();
		e->stack[e->qlen++] = (uintptr_t)n | TASK_RELEASE;
		if (e->idle > 0)
			pthread_cond_signal(&e->work_cond);
	}
	pthread_mutex_unlock(&e->qlock);
	return n != NULL;
}

/* ------------------------------------------------------------------ */
/* The thief                                                            */

struct cursor {
	const char *p, *end;
};

static bool get(struct cursor *c, void *v, size_t n)
{
	if ((size_t)(c->end - c->p) < n)
		return false;
	memcpy(v, c->p, n);
	c->p += n;
	return true;
}

/* One name: a single component, never "." or "..". */
static bool get_name(struct cursor *c, const char **name, uint16_t *len)
{
	if (!get(c, len, sizeof *len) || *len == 0 || *len > NAME_MAX ||
	    (size_t)(c->end - c->p) < *len)
		return false;
	*name = c->p;
	c->p += *len;
	if (memchr(*name, '/', *len) || memchr(*name, '\0', *len))
		return false;
	return !((*len == 1 && (*name)[0] == '.') || (*len == 2 && !memcmp(*name, "..", 2)));
}

bool engine_donation_root(const void *msg, size_t len, uint64_t *root_ino)
{
	struct donation_head h;
	if (len < sizeof h)
		return false;
	memcpy(&h, msg, sizeof h);
	if (h.magic != DONATION_MAGIC)
		return false;
	*root_ino = h.root_ino;
	return true;
}

/* The whole message is well formed (checked before anything is built). */
static bool donation_valid(const void *msg, size_t len, struct donation_head *h)
{
	struct cursor c = { msg, (const char *)msg + len };
	if (!get(&c, h, sizeof *h) || h->magic != DONATION_MAGIC || h->ndirs == 0)
		return false;
	bool slice = h->kind == KIND_SLICE;
	if ((h->kind != KIND_DIRS && !slice) || (!slice && h->ndirs > DONATION_MAX_DIRS))
		return false;
	uint64_t v;
	for (uint32_t i = 0; i < h->depth + h->ndirs; i++) {
		const char *name;
		uint16_t nl;
		uint8_t type;
		if (slice && i == h->depth && !get(&c, &v, sizeof v)) /* the token */
			return false;
		if (i >= h->depth && !slice && !get(&c, &v, sizeof v))
			return false;
		if (i >= h->depth && slice && !get(&c, &type, sizeof type))
			return false;
		if (!get(&c, &v, sizeof v) || !get_name(&c, &name, &nl))
			return false;
	}
	return c.p == c.end;
}

/* Free a way down built so far, from its deepest node N up (nothing in it
 * was opened yet). */
static void free_path(struct dnode *n)
{
	while (n && !(atomic_load(&n->flags) & DN_ANCHOR)) {
		struct dnode *p = n->parent;
		dnode_free(n);
		n = p;
	}
	if (n)
		free(container_of(n, struct adoption, anchor));
}

static struct dnode *path_node(struct dnode *parent, const char *name, size_t len, dev_t dev,
			       ino_t ino)
{
	struct dnode *n = dnode_try_new(parent, name, len);
	if (n) {
		atomic_store(&n->flags, DN_PATH);
		n->dev = dev;
		n->ino = ino;
	}
	return n;
}

static void skip_path(struct cursor *c, uint32_t depth)
{
	for (uint32_t i = 0; i < depth; i++) {
		uint64_t ino = 0;
		const char *name;
		uint16_t nl;
		get(c, &ino, sizeof ino);
		get_name(c, &name, &nl);
	}
}

/* The given directories of a message that cannot be taken: each goes back
 * to its donor as failed (a slice: its one token). */
static void refuse_all(struct engine *e, int donor, struct cursor *c, const struct donation_head *h)
{
	if (h->kind == KIND_SLICE) {
		uint64_t token = 0;
		get(c, &token, sizeof token);
		if (e->remote_fn)
			e->remote_fn(e->remote_arg, donor, token, true);
		return;
	}
	for (uint32_t i = 0; i < h->ndirs; i++) {
		uint64_t token = 0, ino = 0;
		const char *name;
		uint16_t nl;
		get(c, &token, sizeof token);
		get(c, &ino, sizeof ino);
		get_name(c, &name, &nl);
		if (e->remote_fn)
			e->remote_fn(e->remote_arg, donor, token, true);
	}
}

/* The way down under ROOT: an adoption's anchor, the root and DEPTH
 * components of C as DN_PATH nodes; the deepest, or NULL if out of memory
 * (nothing left built). With SLICE, the last of the way (the root itself
 * at depth 0) is left to the caller: the deepest is its parent. */
static struct dnode *build_way(const struct engine_root *root, struct cursor *c, uint32_t depth,
			       bool slice)
{
	struct adoption *a = malloc(sizeof(*a) + 1);
	if (!a)
		return NULL;
	dnode_init_anchor(&a->anchor, root->pfd);
	a->display = root->display;
	if (slice && depth == 0)
		return &a->anchor;
	struct dnode *p = path_node(&a->anchor, root->base, strlen(root->base), root->dev, root->ino);
	if (!p) {
		free(a);
		return NULL;
	}
	for (uint32_t i = 0; p && i < depth - (slice ? 1 : 0); i++) {
		uint64_t ino = 0;
		const char *name;
		uint16_t nl;
		get(c, &ino, sizeof ino);
		get_name(c, &name, &nl);
		struct dnode *n = path_node(p, name, nl, root->dev, (ino_t)ino);
		if (!n)
			free_path(p);
		p = n;
	}
	return p;
}

/* S is directory NAME under P, given by DONOR as TOKEN: its count goes
 * back to the donor when it reaches zero (engine_remote_finished). */
static void stolen_init(struct stolen *s, int donor, uint64_t token, struct dnode *p,
			const char *name, uint16_t len, dev_t dev, uint64_t ino)
{
	s->donor = donor;
	s->token = token;
	dnode_init(&s->n, p, name, len);
	atomic_store(&s->n.flags, DN_STOLEN);
	s->n.dev = dev;
	s->n.ino = (ino_t)ino;
}

/* A slice that cannot be taken (out of memory): back to its donor as
 * failed, and what was built of it freed. False. */
static bool drop_slice(struct engine *e, int donor, uint64_t token, struct stolen *s,
		       struct chunk *k, struct dnode *p)
{
	free(s);
	free(k);
	free_path(p);
	if (e->remote_fn)
		e->remote_fn(e->remote_arg, donor, token, true);
	return false;
}

/* A slice of names in directory D (the last of the way, under P): D is
 * stolen (its donor's count is the slice's), the names a chunk task. */
static bool adopt_slice(struct engine *e, int donor, struct cursor *c, const struct donation_head *h,
			struct dnode *p, const struct engine_root *root)
{
	const char *dname = root->base;
	uint16_t dlen = (uint16_t)strlen(root->base);
	uint64_t dino = (uint64_t)root->ino, token = 0;
	if (h->depth > 0) {
		get(c, &dino, sizeof dino);
		get_name(c, &dname, &dlen);
	}
	get(c, &token, sizeof token);
	/* the names' bytes: what is left, less each entry's 11 fixed bytes */
	size_t names = (size_t)(c->end - c->p) - (size_t)h->ndirs * 11 + h->ndirs;
	struct stolen *s = malloc(sizeof(*s) + dlen + 1);
	struct chunk *k = malloc(sizeof(*k) + h->ndirs * sizeof(k->ents[0]) + names);
	if (!s || !k)
		return drop_slice(e, donor, token, s, k, p);
	stolen_init(s, donor, token, p, dname, dlen, root->dev, dino);
	*k = (struct chunk){ .d = &s->n, .n = h->ndirs };
	char *dst = (char *)&k->ents[h->ndirs];
	uint32_t off = 0;
	for (uint32_t i = 0; i < h->ndirs; i++) {
		uint8_t type = 0;
		uint64_t ino = 0;
		const char *name;
		uint16_t nl;
		get(c, &type, sizeof type);
		get(c, &ino, sizeof ino);
		get_name(c, &name, &nl);
		k->ents[i] = (struct sort_ent){ .ino = ino, .name_off = off, .type = type };
		memcpy(dst + off, name, nl);
		dst[off + nl] = '\0';
		off += nl + 1u;
	}
	engine_jitter(e);
	if (!engine_push_chunks(e, &k, 1))
		return drop_slice(e, donor, token, s, k, p);
	return true;
}

bool engine_adopt(struct engine *e, int donor, const void *msg, size_t len,
		  const struct engine_root *root)
{
	struct donation_head h;
	if (!donation_valid(msg, len, &h))
		return false;
	struct cursor c = { (const char *)msg + sizeof h, (const char *)msg + len };
	bool slice = h.kind == KIND_SLICE;
	struct dnode *p = build_way(root, &c, h.depth, slice);
	if (p && slice)
		return adopt_slice(e, donor, &c, &h, p, root);
	struct subdir *tasks = p ? malloc(h.ndirs * sizeof(*tasks)) : NULL;
	if (!tasks) {
		free_path(p);
		c = (struct cursor){ (const char *)msg + sizeof h, (const char *)msg + len };
		skip_path(&c, h.depth);
		refuse_all(e, donor, &c, &h);
		return false;
	}
	/* P counts its given children; each node above it, its one child */
	atomic_store(&p->refs, 0);
	uint32_t n = 0;
	for (uint32_t i = 0; i < h.ndirs; i++) {
		uint64_t token = 0, ino = 0;
		const char *name;
		uint16_t nl;
		get(&c, &token, sizeof token);
		get(&c, &ino, sizeof ino);
		get_name(&c, &name, &nl);
		struct stolen *s = malloc(sizeof(*s) + nl + 1);
		if (!s) {
			if (e->remote_fn)
				e->remote_fn(e->remote_arg, donor, token, true);
			continue;
		}
		stolen_init(s, donor, token, p, name, nl, root->dev, ino);
		tasks[n++] = (struct subdir){ .ino = ino, .n = &s->n };
	}
	atomic_store(&p->refs, (int)n);
	bool ok = n > 0 && engine_push_tasks(e, tasks, n);
	if (!ok) {
		for (uint32_t i = 0; i < n; i++) {
			struct stolen *s = container_of(tasks[i].n, struct stolen, n);
			if (e->remote_fn)
				e->remote_fn(e->remote_arg, donor, s->token, true);
			free(s);
		}
		free_path(p);
	}
	free(tasks);
	return ok;
}

void engine_refuse(struct engine *e, int donor, const void *msg, size_t len)
{
	struct donation_head h;
	if (!donation_valid(msg, len, &h))
		return;
	struct cursor c = { (const char *)msg + sizeof h, (const char *)msg + len };
	skip_path(&c, h.depth);
	refuse_all(e, donor, &c, &h);
}

struct dnode *engine_remote_finished(struct worker *w, struct dnode *d)
{
	struct engine *e = w->e;
	unsigned flags = atomic_load(&d->flags);
	struct dnode *p = d->parent;
	if (flags & DN_ANCHOR) {
		/* an adoption's anchor: its fd is the operand's parent, borrowed */
		free(container_of(d, struct adoption, anchor));
		return NULL;
	}
	fdc_drop(&e->fdc, d);
	if (flags & DN_STOLEN) {
		struct stolen *s = container_of(d, struct stolen, n);
		bool failed = (flags & DN_FAILED) ||
			      atomic_load_explicit(&e->halt, memory_order_relaxed);
		engine_jitter(e);
		if (e->remote_fn)
			e->remote_fn(e->remote_arg, s->donor, s->token, failed);
		free(s);
		return p;
	}
	dnode_free(d); /* DN_PATH: the way down, never removed here */
	return p;
}

// SPDX-License-Identifier: GPL-3.0-or-later
#include "cli/background.h"
#include "cli/waitline.h"
#include "hold/deleter.h"
#include "hold/left.h"
#include "hold/place.h"
#include "hold/record.h"
#include "hold/state.h"
#include "lib/msg.h"
#include "lib/ownfile.h"
#include "lib/quote.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void background_say_foreground(const struct rm_options *o, const char *arg, const char *why)
{
	if (o->verbose || o->stats)
		fprintf(stderr, "%s: %s: deleted in the foreground: %s\n", program_name,
			quote_n(0, arg), why);
}

/* R's name, made unique by a nonce no other call can pick (with the time
 * in seconds already in it): nanoseconds, pid and a counter. */
static void entry_name(struct held_record *r)
{
	static unsigned counter;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	r->time = ts.tv_sec;
	char nonce[64];
	snprintf(nonce, sizeof nonce, "%09ld-%d-%u", ts.tv_nsec, (int)getpid(), counter++);
	held_name_format(r, nonce);
}

/* Rename BASE into the place PLACEFD under R's name, which is its record,
 * verified by device and inode after the move: 0, or the errno of the
 * refused rename. The rename is the commit: nothing is synced before it
 * (docs/design.md, "--background's crash safety"). */
static int hold_into(int placefd, int pfd, const char *base, const struct stat *st,
		     struct held_record *r)
{
	int err = r->side ? held_side_write(placefd, r) : 0;
	if (err)
		return err;
	if (renameat2(pfd, base, placefd, r->name, RENAME_NOREPLACE) < 0) {
		err = errno;
		held_record_remove(placefd, r);
		return err;
	}
	struct stat now;
	if (fstatat(placefd, r->name, &now, AT_SYMLINK_NOFOLLOW) == 0 && now.st_dev == st->st_dev &&
	    now.st_ino == st->st_ino)
		return 0;
	/* Something else was swapped in between the lstat and the rename: put
	 * it back where it was and leave the operand to the foreground. */
	if (renameat2(placefd, r->name, pfd, base, RENAME_NOREPLACE) == 0)
		held_record_remove(placefd, r);
	return ESTALE;
}

struct candidate {
	char *dir; /* where the place is, an absolute path */
	int dirfd;
};

/* ARG (BASE in PFD) is held in the place PLACEFD (at PLACE) as R: start its
 * deleter. Where none can start (a process or memory limit), ARG goes back
 * to its path for the foreground; where it cannot go back either, it stays
 * held for --resume and the call fails. */
static enum bg_take start(const struct rm_options *o, const char *arg, int placefd,
			  const char *place, int pfd, const char *base, struct held_record *r)
{
	state_note_place(place);
	struct deleter_options d = { .free_rate = o->free_rate,
				     .max_ops = o->max_ops,
				     .stats = o->stats };
	if (deleter_spawn(placefd, place, &d)) {
		/* --stats: the summary that follows counts the foreground only;
		 * the deleter's own goes to its log. */
		if (o->verbose || o->stats)
			printf("held %s for the background deleter\n", quote_n(0, arg));
		return BG_HELD;
	}
	int err = errno;
	if (renameat2(placefd, r->name, pfd, base, RENAME_NOREPLACE) == 0) {
		held_record_remove(placefd, r);
		warn_errno(0, "cannot start the deleter (%s): %s is deleted in the foreground",
			   strerror(err), quote_n(0, arg));
		return BG_FOREGROUND;
	}
	warn_errno(0, "cannot start the deleter (%s): %s stays held in %s (adaptrm --resume)",
		   strerror(err), quote_n(0, arg), quote_n(1, place));
	return BG_FAILED;
}

/* Hold ARG in the place in C and start its deleter; *TRIED set once a
 * place was found (BG_FOREGROUND then is final), and ERR the errno of a
 * place that could not be used (EPERM for an unsafe one, said here). */
static enum bg_take try_place(const struct rm_options *o, const struct candidate *c, int pfd,
			      const char *base, const char *arg, const struct stat *st,
			      const char *abs, int *err)
{
	struct strbuf name = STRBUF_INIT;
	place_name(geteuid(), &name);
	enum place_check why;
	int fd = place_open_at(c->dirfd, sb_str(&name), geteuid(), st->st_dev, true, &why);
	*err = fd < 0 ? errno : 0;
	struct strbuf path = STRBUF_INIT;
	sb_addf(&path, "%s%s%s", c->dir, strcmp(c->dir, "/") ? "/" : "", sb_str(&name));
	sb_free(&name);
	enum bg_take t = BG_FOREGROUND;
	if (fd < 0 && why == PLACE_FOREIGN) {
		warn_errno(0,
			   "refusing the holding place %s: not a directory of mode 0700 owned by "
			   "you on the operand's filesystem",
			   quote_n(0, sb_str(&path)));
		*err = EPERM;
	}
	if (fd >= 0) {
		struct held_record r = { .path = (char *)abs,
					 .uid = geteuid(),
					 .dev = st->st_dev,
					 .ino = st->st_ino,
					 .size = (uint64_t)st->st_blocks * 512 };
		entry_name(&r);
		*err = hold_into(fd, pfd, base, st, &r);
		if (!*err)
			t = start(o, arg, fd, sb_str(&path), pfd, base, &r);
		close(fd);
	}
	sb_free(&path);
	return t;
}

/* Why ARG must be deleted in the foreground before any place is tried, or
 * NULL. */
static const char *foreground_why(const char *abs, const struct stat *st)
{
	/* A mount below the operand would be carried into the place. */
	if (place_mount_below(abs))
		return "a mount point is at or below it";
	/* Another user's directory, moved into the caller's place, would be
	 * out of its owner's reach; GNU rm leaves in place what of it the
	 * caller cannot remove, and so does the foreground. */
	if (S_ISDIR(st->st_mode) && st->st_uid != geteuid() && geteuid() != 0)
		return "it is another user's directory";
	return NULL;
}

enum bg_take background_take(const struct rm_options *o, int pfd, const char *base, const char *arg,
			     const struct stat *st)
{
	char *parent = place_fd_path(pfd);
	if (!parent) {
		background_say_foreground(o, arg, "its directory's path is unknown");
		return BG_FOREGROUND;
	}
	struct strbuf abs = STRBUF_INIT;
	sb_addf(&abs, "%s%s%s", parent, strcmp(parent, "/") ? "/" : "", base);
	const char *why = foreground_why(sb_str(&abs), st);
	if (why) {
		background_say_foreground(o, arg, why);
		sb_free(&abs);
		free(parent);
		return BG_FOREGROUND;
	}
	char *root = place_mount_root(parent);
	struct candidate c[2] = { { root, -1 }, { parent, pfd } };
	if (root)
		c[0].dirfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	enum bg_take t = BG_FOREGROUND;
	int err = ENOENT;
	/* The mount's root first; where the user cannot make the place there
	 * (or the rename leaves the mount), the operand's own directory. Once
	 * the operand was held somewhere, what start() said stands. */
	for (int i = 0; i < 2 && err && err != EPERM; i++)
		if (c[i].dirfd >= 0 || c[i].dirfd == AT_FDCWD)
			t = try_place(o, &c[i], pfd, base, arg, st, sb_str(&abs), &err);
	if (c[0].dirfd >= 0)
		close(c[0].dirfd);
	if (t == BG_FOREGROUND && err)
		background_say_foreground(o, arg,
					  err == EPERM ? "no safe holding place" : strerror(err));
	free(root);
	free(parent);
	sb_free(&abs);
	return t;
}

/* What one place holds, as --pending and --wait see it. */
struct place_view {
	size_t records, matching; /* all valid records of ours; those --wait waits for */
	uint64_t bytes;
	bool running; /* a deleter holds its lock */
	pid_t pid;    /* the deleter's pid, as its lock file names it (0: unknown) */
};

/* PATH is the held path or below it (the paths --wait was given). */
static bool wanted(const char *held, int nwant, char **want)
{
	if (nwant == 0)
		return true;
	for (int i = 0; i < nwant; i++) {
		size_t n = strlen(want[i]);
		while (n > 1 && want[i][n - 1] == '/')
			n--;
		if (!strncmp(held, want[i], n) && (held[n] == '\0' || held[n] == '/'))
			return true;
	}
	return false;
}

/* PATH as --pending lists it: quoted where it needs it, as ls quotes, so
 * that a name with a newline or an escape sequence is one visible field. */
static void put_path(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	quote_maybe_append(&sb, path, strlen(path));
	fputs(sb_str(&sb), stdout);
	sb_free(&sb);
}

static void print_record(const struct held_record *r)
{
	long long age = (long long)time(NULL) - r->time;
	put_path(r->path);
	printf("\theld %llds ago", age < 0 ? 0 : age);
	if (r->size)
		printf("\t%" PRIu64 " bytes allocated at its top", r->size);
	putchar('\n');
}

struct walk {
	const struct rm_options *o;
	int nwant;
	char **want;
	char **seen;
	size_t nseen;
	size_t matching;       /* --wait: records it still waits for */
	bool stuck;	       /* a place with records and no deleter */
	bool failed;	       /* --wait, --resume: something is left, or no deleter */
	size_t listed;	       /* --pending: lines printed */
	struct wait_view view; /* --wait: the running deleters, summed */
	enum { W_PENDING, W_RESUME, W_POLL } mode;
	const char *place;
};

/* A note of what a deleter left: listed by --pending; said once by --wait
 * for the paths it waits for, and then gone, as GNU says it once. */
static void visit_note(int placefd, const struct left_note *n, void *arg)
{
	struct walk *w = arg;
	if (w->mode == W_PENDING) {
		w->listed++;
		put_path(n->path);
		printf("\tnot removed entirely: %s\n",
		       n->back ? "what is left is back at its path" : "what is left is still held");
		return;
	}
	if (w->mode != W_POLL || !wanted(n->path, w->nwant, w->want))
		return;
	struct strbuf log = STRBUF_INIT;
	state_log_path(placefd, w->place, &log);
	warn_errno(0, "cannot remove %s entirely: what is left is %s (the log %s says why)",
		   quote_n(0, n->path), n->back ? "back at its path" : "still held",
		   quote_n(1, sb_str(&log)));
	sb_free(&log);
	w->failed = true;
	left_note_remove(placefd, n);
}

/* Look at PLACE's records: count them into V, print them if PRINT. */
static bool view_place(int fd, int nwant, char **want, bool print, struct place_view *v)
{
	*v = (struct place_view){ 0 };
	v->running = place_locked(fd, &v->pid);
	int dfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir = dfd >= 0 ? fdopendir(dfd) : NULL;
	if (!dir && dfd >= 0)
		close(dfd);
	struct dirent *de;
	while (dir && (de = readdir(dir))) {
		struct held_record r;
		if (held_entry_read(fd, de->d_name, &r) != 0)
			continue;
		if (r.uid == geteuid()) {
			v->records++;
			v->bytes += r.size;
			if (wanted(r.path, nwant, want))
				v->matching++;
			if (print)
				print_record(&r);
		}
		held_record_free(&r);
	}
	if (dir)
		closedir(dir);
	return true;
}

/* What a deleter's status file says (hold/deleter.c's write_status). */
struct deleter_status {
	unsigned long long files, dirs;
	long long started, updated;
	bool yielding;
	bool busy; /* in the middle of an entry: its last counts are to come */
};

static void read_status(int placefd, struct deleter_status *s)
{
	*s = (struct deleter_status){ 0 };
	int fd = own_file_open(placefd, "status", O_RDONLY, 0);
	FILE *fp = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!fp && fd >= 0)
		close(fd);
	char line[128];
	while (fp && fgets(line, sizeof line, fp)) {
		if (sscanf(line, "files %llu", &s->files) != 1 &&
		    sscanf(line, "dirs %llu", &s->dirs) != 1 &&
		    sscanf(line, "started %lld", &s->started) != 1)
			sscanf(line, "updated %lld", &s->updated);
		if (!strcmp(line, "state yield\n"))
			s->yielding = true;
		if (!strncmp(line, "entry ", 6) && strcmp(line, "entry -\n"))
			s->busy = true;
	}
	if (fp)
		fclose(fp);
}

/* The deleter's own account of its progress, as --pending prints it. */
static void print_status(int placefd, const char *place, pid_t pid)
{
	struct deleter_status s;
	read_status(placefd, &s);
	put_path(place);
	if (pid > 0)
		printf(": deleter %d running", (int)pid);
	else
		printf(": deleter running");
	printf(": %llu files and %llu directories removed so far", s.files, s.dirs);
	if (s.updated > s.started && s.started > 0)
		printf(", %llu entries/s",
		       (s.files + s.dirs) / (unsigned long long)(s.updated - s.started));
	if (s.yielding)
		printf(", yielding to others' syncs");
	putchar('\n');
}

static bool seen_before(struct walk *w, const char *place)
{
	for (size_t i = 0; i < w->nseen; i++)
		if (!strcmp(w->seen[i], place))
			return true;
	w->seen = xrealloc(w->seen, (w->nseen + 1) * sizeof *w->seen);
	w->seen[w->nseen++] = xstrdup(place);
	return false;
}

/* --resume on PLACEFD: a deleter started where none runs; said and failed
 * where none can start. */
static void resume(struct walk *w, int placefd, const char *place)
{
	struct deleter_options d = { .free_rate = w->o->free_rate,
				     .max_ops = w->o->max_ops,
				     .stats = w->o->stats };
	if (!deleter_spawn(placefd, place, &d)) {
		warn_errno(errno, "cannot start the deleter for %s", quote_n(0, place));
		w->failed = true;
	}
}

static void visit(const char *place, void *arg)
{
	struct walk *w = arg;
	struct place_view v;
	if (seen_before(w, place))
		return;
	enum place_check why;
	int fd = place_open(place, geteuid(), false, &why);
	if (fd < 0)
		return;
	view_place(fd, w->nwant, w->want, w->mode == W_PENDING, &v);
	w->place = place;
	left_note_each(fd, visit_note, w);
	w->matching += v.matching;
	if (w->mode == W_PENDING)
		w->listed += v.records + v.running;
	if (w->mode == W_POLL && v.running) {
		struct deleter_status s;
		read_status(fd, &s);
		w->view.files += s.files;
		w->view.dirs += s.dirs;
		w->view.yielding |= s.yielding;
		w->view.busy |= s.busy;
	}
	if (w->mode == W_PENDING && v.running)
		print_status(fd, place, v.pid);
	else if (w->mode == W_PENDING && v.records) {
		put_path(place);
		printf(": no deleter running (adaptrm --resume starts one)\n");
	}
	if (w->mode == W_RESUME && v.records && !v.running)
		resume(w, fd, place);
	if (w->mode == W_POLL && v.matching && !v.running)
		w->stuck = true;
	close(fd);
}

static void forget_seen(struct walk *w)
{
	for (size_t i = 0; i < w->nseen; i++)
		free(w->seen[i]);
	w->nseen = 0;
}

static void walk(struct walk *w, int mode)
{
	w->mode = mode;
	w->matching = 0;
	w->place = NULL;
	w->stuck = false;
	w->view = (struct wait_view){ 0 };
	forget_seen(w);
	state_each_place(geteuid(), visit, w);
}

/* --wait: resume, then poll until nothing asked for is held. A place whose
 * records stay without a deleter for a while holds what the deleter leaves
 * (see its log): resumed once more, then given up on. What a deleter left
 * is said as it is found, and fails the wait. */
static int wait_polls(struct walk *w, struct waitline *line)
{
	walk(w, W_RESUME);
	unsigned idle = 0, settle = 0;
	for (;;) {
		walk(w, W_POLL);
		w->view.held = w->matching;
		waitline_update(line, &w->view);
		/* A tree's record goes with its top directory, before the deleter
		 * writes its counts once more: the summary waits a little for
		 * them, where there is a summary. */
		if (!w->matching && !(line && w->view.busy && settle++ < 10))
			return w->failed ? 1 : 0;
		idle = w->stuck ? idle + 1 : 0;
		if (idle == 30)
			walk(w, W_RESUME);
		if (idle >= 60) {
			warn_errno(0,
				   "%zu held entries are left that no deleter removes (see the log "
				   "in the state directory or the holding place)",
				   w->matching);
			return 1;
		}
		struct timespec ts = { 0, 100000000 };
		nanosleep(&ts, NULL);
	}
}

/* --wait, with its line and summary on a terminal. */
static int wait_done(struct walk *w)
{
	struct waitline *line = waitline_new();
	int status = wait_polls(w, line);
	waitline_finish(line, status == 0);
	return status;
}

int background_main(const struct rm_options *o, int nfiles, char **files)
{
	struct walk w = { .o = o, .nwant = o->wait_held ? nfiles : 0 };
	w.want = xcalloc((size_t)nfiles + 1, sizeof *w.want);
	for (int i = 0; i < w.nwant; i++) {
		/* The held paths are absolute: so must the asked ones be. */
		const char *f = files[i];
		while (f[0] == '.' && f[1] == '/')
			f += 2;
		char *cwd = f[0] == '/' ? NULL : getcwd(NULL, 0);
		struct strbuf sb = STRBUF_INIT;
		sb_addf(&sb, "%s%s%s", cwd ? cwd : "", cwd ? "/" : "", f);
		w.want[i] = xstrdup(sb_str(&sb));
		sb_free(&sb);
		free(cwd);
	}
	int status = 0;
	if (o->resume_held)
		walk(&w, W_RESUME);
	if (o->pending_held) {
		walk(&w, W_PENDING);
		if (!w.listed)
			printf("nothing is held\n");
	}
	if (o->wait_held)
		status = wait_done(&w);
	if (w.failed)
		status = 1;
	forget_seen(&w);
	for (int i = 0; i < w.nwant; i++)
		free(w.want[i]);
	free(w.want);
	free(w.seen);
	return status;
}

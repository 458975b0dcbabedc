// SPDX-License-Identifier: GPL-3.0-or-later
/* The rm face: each operand in command-line order, checked the way GNU rm
 * checks it, then a plain unlink, an rmdir, or the parallel engine for a tree. */
#include "cli/rm.h"
#include "cli/background.h"
#include "cli/freed.h"
#include "cli/interactive.h"
#include "cli/progress.h"
#include "ctl/controller.h"
#include "ctl/steer.h"
#include "engine/engine.h"
#include "lib/msg.h"
#include "lib/quote.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static struct engine *volatile g_engine;
static volatile sig_atomic_t g_signal;
/* The plain rm face: no report, no hooks, no serving. */
static const struct rm_face plain_face;

static void on_signal(int sig)
{
	g_signal = sig;
	if (g_engine)
		engine_request_stop(g_engine);
}

static void install_signal_handlers(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/* -f ignores exactly these (GNU rm's ignorable_missing). */
static bool ignorable_missing(const struct rm_options *o, int err)
{
	return o->ignore_missing &&
	       (err == ENOENT || err == ENOTDIR || err == EINVAL || err == EILSEQ);
}

static void cannot_remove(const char *display, int err)
{
	warn_errno(err, "cannot remove %s", quote_n(0, display));
}

/* The last component of PATH (trailing slashes ignored) is "." or "..". */
static bool last_is_dot_or_dotdot(const char *path)
{
	size_t len = strlen(path);
	while (len > 1 && path[len - 1] == '/')
		len--;
	size_t start = len;
	while (start > 0 && path[start - 1] != '/')
		start--;
	size_t n = len - start;
	return (n == 1 && path[start] == '.') ||
	       (n == 2 && path[start] == '.' && path[start + 1] == '.');
}

/* Split PATH into an opened parent directory and the last component.
 * "a/b/c" -> (fd of "a/b", "c"); "c" -> (AT_FDCWD, "c"); "/" -> (fd of "/", "/").
 * The parent is opened O_PATH so that a search-only (-wx) parent works, as
 * it does for GNU rm. Returns -1 with errno on failure, else the fd (or
 * AT_FDCWD) and sets *base (pointing into *copy, which the caller frees). */
int rm_open_parent(const char *path, char **copy, const char **base, bool *trailing_slash)
{
	char *p = xstrdup(path);
	size_t len = strlen(p);
	*trailing_slash = len > 1 && p[len - 1] == '/';
	while (len > 1 && p[len - 1] == '/')
		p[--len] = '\0';
	*copy = p;
	char *slash = strrchr(p, '/');
	if (!slash) {
		*base = p;
		return AT_FDCWD;
	}
	if (slash == p && p[1] == '\0') { /* "/" */
		/* "/" itself, not ".": the *at calls ignore the fd for it, and the
		 * kernel refuses to rmdir the root with EBUSY, GNU's "Device or
		 * resource busy", where "." would be EINVAL. */
		*base = p;
		return open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	}
	*base = slash + 1;
	const char *dir = p;
	if (slash == p) {
		dir = "/";
	} else {
		*slash = '\0';
	}
	int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (slash != p)
		*slash = '/';
	/* keep *base NUL-terminated independently of the parent part */
	return fd;
}

/* GNU prints a tree operand with its trailing slashes cut to one ("a///" is
 * shown as "a/", its children as "a/x"). */
char *rm_display_name(const char *path)
{
	char *d = xstrdup(path);
	size_t len = strlen(d);
	/* fts_open: two or more trailing slashes become one, "//" stays, "///" is "/" */
	if (len > 2 && d[len - 1] == '/')
		while (len > 1 && d[len - 2] == '/')
			d[--len] = '\0';
	return d;
}

struct rm_state {
	const struct rm_options *o;
	const struct rm_face *face;
	struct engine *engine;
	struct controller *ctl;
	struct steer *steer; /* the engine's count and pace, from every input */
	struct progress *progress;
	struct freed *freed; /* --stats and the progress line: space freed */
	struct stat root_st;
	bool have_root_st;
	unsigned held; /* operands handed to the background deleter */
};

static struct engine *get_engine(struct rm_state *r)
{
	if (r->engine)
		return r->engine;
	const struct rm_options *o = r->o;
	struct engine_config cfg = {
		.force = o->ignore_missing,
		.verbose = o->verbose,
		.one_file_system = o->one_file_system,
		.free_rate = o->free_rate,
		.sort_policy = o->sort_policy,
		.sort_threshold = o->sort_threshold,
		.getdents_size = o->getdents_size,
		.op_interval_ns = o->max_ops ? 1000000000ull / o->max_ops : 0,
	};
	int initial;
	if (o->threads > 0) {
		cfg.max_threads = o->threads;
		initial = o->threads;
	} else {
		cfg.max_threads = controller_default_max_threads(o->max_threads);
		initial = 1; /* the controller picks the start point per filesystem */
	}
	r->engine = engine_create(&cfg, initial);
	r->steer = steer_new(r->engine, cfg.op_interval_ns);
	g_engine = r->engine;
	if (r->face->engine_ready)
		r->face->engine_ready(r->engine, r->steer, r->face->arg);
	return r->engine;
}

/* One turn of the loop while the engine deletes: the controller's word,
 * the steering applied, the progress line. */
static void tick(struct rm_state *r)
{
	if (r->ctl)
		controller_tick(r->ctl);
	steer_apply(r->steer);
	if (r->progress)
		progress_update(r->progress, r->engine);
}

static void start_engine(struct rm_state *r);
static int finish_run(struct rm_state *r, bool ok);

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* What to do with one operand (check_operand), and what came of it (the
 * actions): report() turns each outcome into its message and status. */
enum op_action {
	/* decisions */
	OP_REMOVE_FILE,	     /* not a directory: prompt if asked, unlink */
	OP_REMOVE_EMPTY_DIR, /* -d without -r: prompt if asked, rmdir */
	OP_PROMPT_TREE,	     /* -r with prompts: interactive.c walks it */
	OP_ENGINE_TREE,	     /* -r: the parallel engine (and the controller) */
	/* outcomes, and decisions to stop at once */
	OP_DONE,	   /* removed, or the user said no: success */
	OP_FAILED,	   /* failed, and already said so (a prompt, the tree) */
	OP_FAIL,	   /* "cannot remove ARG: ERR" */
	OP_FAIL_IGNORABLE, /* the same unless -f ignores ERR (a missing file) */
	OP_REFUSE_DOT,	   /* "refusing to remove '.' or '..'" */
	OP_REFUSE_ROOT,	   /* --preserve-root: '/', or a name of it */
	OP_REFUSE_DEVICE,  /* --preserve-root=all: on another device than its parent */
};

/* One operand: its opened parent, last component, and lstat. */
struct operand {
	const char *arg;
	char *copy; /* open_parent's copy of ARG, where BASE points */
	const char *base;
	bool trailing_slash;
	int pfd; /* parent, or AT_FDCWD */
	struct stat st;
	int err; /* for OP_FAIL and OP_FAIL_IGNORABLE */
};

static enum op_action fail(struct operand *op, int err, enum op_action how)
{
	op->err = err;
	return how;
}

/* --preserve-root is in effect and '/' could be stat'ed. */
static bool guards_root(const struct rm_state *r)
{
	return r->o->preserve_root != PRESERVE_ROOT_NONE && r->have_root_st;
}

/* OP's parent is on another device than OP itself. */
static bool on_other_device(const struct operand *op)
{
	struct stat pst;
	bool cwd = op->pfd == AT_FDCWD;
	return fstatat(op->pfd, cwd ? "." : "", &pst, cwd ? 0 : AT_EMPTY_PATH) == 0 &&
	       pst.st_dev != op->st.st_dev;
}

/* GNU rm's checks of an operand in GNU's order (for a directory, those of
 * rm_fts's FTS_D case); opens the parent and fills OP on the way. */
static enum op_action check_operand(const struct rm_state *r, struct operand *op)
{
	const struct rm_options *o = r->o;
	const char *arg = op->arg;
	if (last_is_dot_or_dotdot(arg) && (o->recursive || o->remove_empty_dirs))
		return OP_REFUSE_DOT;
	op->pfd = rm_open_parent(arg, &op->copy, &op->base, &op->trailing_slash);
	if (op->pfd < 0 && op->pfd != AT_FDCWD)
		return fail(op, errno, OP_FAIL_IGNORABLE);
	if (*arg == '\0')
		return fail(op, ENOENT, OP_FAIL_IGNORABLE);
	if (fstatat(op->pfd, op->base, &op->st, AT_SYMLINK_NOFOLLOW) < 0)
		return fail(op, errno, OP_FAIL_IGNORABLE);
	bool dir = S_ISDIR(op->st.st_mode);
	if (op->trailing_slash && S_ISLNK(op->st.st_mode) && o->recursive && guards_root(r)) {
		/* "rootlink/" names '/' itself: GNU's failsafe speaks first. */
		struct stat tst;
		if (stat(arg, &tst) == 0 && same_file(&tst, &r->root_st))
			return OP_REFUSE_ROOT;
	}
	/* "file/" and "symlink/": GNU resolves "link/" and empties the target
	 * before failing; adaptrm never follows an operand's symlink and fails
	 * at once with GNU's final message. */
	if (op->trailing_slash && !dir)
		return fail(op, ENOTDIR, OP_FAIL);
	if (!dir)
		return OP_REMOVE_FILE;
	if (!o->recursive)
		return o->remove_empty_dirs ? OP_REMOVE_EMPTY_DIR : fail(op, EISDIR, OP_FAIL);
	if (guards_root(r) && same_file(&op->st, &r->root_st))
		return OP_REFUSE_ROOT;
	if (o->preserve_root == PRESERVE_ROOT_ALL && on_other_device(op))
		return OP_REFUSE_DEVICE;
	return interactive_needed(o) ? OP_PROMPT_TREE : OP_ENGINE_TREE;
}

/* --free-rate and a file operand: held before its unlink, as the lane holds
 * a file (-1 if not); after it, freed in paced steps if nobody else can
 * reach it. A failed truncation is said (the file is unlinked anyway). */
static int hold_operand(struct rm_state *r, const struct operand *op)
{
	if (!r->o->free_rate || !S_ISREG(op->st.st_mode) ||
	    (uint64_t)op->st.st_blocks * 512 < ENGINE_LANE_CHUNK)
		return -1;
	return engine_hold_file(get_engine(r), op->pfd, op->base);
}

static bool free_operand(struct rm_state *r, const struct operand *op, int held)
{
	if (held < 0)
		return true;
	int err = engine_free_held(get_engine(r), held);
	if (err)
		warn_errno(err, "cannot truncate %s", quote_n(0, op->arg));
	return err == 0;
}

/* OP's directory holds an entry: GNU's -d looks before its rmdir and says
 * "Directory not empty" of such a one, where rmdir of a mount point or of
 * '/' would say EBUSY first. */
static bool dir_has_entries(const struct operand *op)
{
	int fd = openat(op->pfd, op->base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	bool any = false;
	struct dirent *de;
	while (!any && (de = readdir(d)))
		any = strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
	closedir(d);
	return any;
}

/* OP_REMOVE_FILE and OP_REMOVE_EMPTY_DIR: ask if asked, then unlink or rmdir.
 * A missing file is ignorable under -f, a directory's error is not. */
static enum op_action remove_one(struct rm_state *r, struct operand *op, bool dir)
{
	const struct rm_options *o = r->o;
	if (interactive_needed(o)) {
		int a = interactive_prompt(o, op->pfd, op->base, op->arg, &op->st, PROMPT_REMOVE,
					   false);
		if (a <= 0)
			return a == 0 ? OP_DONE : OP_FAILED;
	}
	int held = dir ? -1 : hold_operand(r, op);
	int err = unlinkat(op->pfd, op->base, dir ? AT_REMOVEDIR : 0) < 0 ? errno : 0;
	if (dir && err && err != ENOTEMPTY && dir_has_entries(op))
		err = ENOTEMPTY;
	if (!err && o->verbose)
		printf("removed %s%s\n", dir ? "directory " : "", quote_n(0, op->arg));
	bool freed = free_operand(r, op, held); /* nothing to free if it failed */
	if (err)
		return fail(op, err, dir ? OP_FAIL : OP_FAIL_IGNORABLE);
	return freed ? OP_DONE : OP_FAILED;
}

/* OP_PROMPT_TREE and OP_ENGINE_TREE: the tree, shown as GNU shows it. */
static enum op_action remove_tree(struct rm_state *r, struct operand *op, bool prompt)
{
	char *display = rm_display_name(op->arg);
	bool ok;
	if (prompt) {
		ok = interactive_remove_tree(r->o, op->pfd, op->base, display, &op->st);
	} else {
		struct engine *e = get_engine(r);
		if (r->ctl)
			controller_begin_tree(r->ctl, op->pfd, op->base);
		steer_apply(r->steer); /* every input's word before the first unlink */
		ok = engine_begin_tree(e, op->pfd, op->base, display, &op->st);
		while (ok && !engine_wait(e, 100))
			tick(r);
		ok = ok && engine_end_tree(e);
		if (r->ctl)
			controller_end_tree(r->ctl);
	}
	free(display);
	return ok ? OP_DONE : OP_FAILED;
}

static void refuse_root(const char *arg)
{
	char *shown = rm_display_name(arg);
	if (strcmp(shown, "/") == 0)
		warn_errno(0, "it is dangerous to operate recursively on %s", quote_n(0, shown));
	else
		warn_errno(0, "it is dangerous to operate recursively on %s (same as '/')",
			   quote_n(0, shown));
	free(shown);
	warn_errno(0, "use --no-preserve-root to override this failsafe");
}

/* The one place where an operand's outcome becomes its message and status. */
static bool report(const struct rm_options *o, const struct operand *op, enum op_action a)
{
	char *shown;
	switch (a) {
	case OP_DONE: return true;
	case OP_FAIL_IGNORABLE:
		if (ignorable_missing(o, op->err))
			return true;
		cannot_remove(op->arg, op->err);
		return false;
	case OP_FAIL: cannot_remove(op->arg, op->err); return false;
	case OP_REFUSE_DOT:
		shown = rm_display_name(op->arg);
		warn_errno(0, "refusing to remove '.' or '..' directory: skipping %s",
			   quote_n(0, shown));
		free(shown);
		return false;
	case OP_REFUSE_ROOT: refuse_root(op->arg); return false;
	case OP_REFUSE_DEVICE:
		warn_errno(0, "skipping %s, since it's on a different device", quote_n(0, op->arg));
		warn_errno(0, "and --preserve-root=all is in effect");
		return false;
	case OP_FAILED:
	default: return false; /* said already (or a decision never acted on) */
	}
}

static bool remove_operand(struct rm_state *r, const char *arg)
{
	struct operand op = { .arg = arg, .pfd = AT_FDCWD };
	enum op_action a = check_operand(r, &op);
	if (a == OP_ENGINE_TREE && r->o->background) {
		enum bg_take t = background_take(r->o, op.pfd, op.base, op.arg, &op.st);
		if (t != BG_FOREGROUND) {
			a = t == BG_HELD ? OP_DONE : OP_FAILED;
			r->held++;
		}
	}
	if (a == OP_PROMPT_TREE && r->o->background)
		background_say_foreground(r->o, arg, "it is deleted with prompts");
	switch (a) {
	case OP_REMOVE_FILE: a = remove_one(r, &op, false); break;
	case OP_REMOVE_EMPTY_DIR: a = remove_one(r, &op, true); break;
	case OP_PROMPT_TREE: a = remove_tree(r, &op, true); break;
	case OP_ENGINE_TREE: a = remove_tree(r, &op, false); break;
	default: break; /* stop here: report says why */
	}
	bool ok = report(r->o, &op, a);
	if (op.pfd >= 0)
		close(op.pfd);
	free(op.copy);
	return ok;
}

static void interrupted(struct rm_state *r)
{
	int sig = g_signal ? g_signal : SIGINT;
	if (r->progress)
		progress_abort(r->progress);
	struct engine_totals t = { 0 };
	if (r->engine) {
		/* Let the workers finish the syscall they are in, so the counts
		 * are final; one stuck in a hung filesystem is left behind. */
		engine_join_stopped(r->engine, 1000);
		engine_totals(r->engine, &t);
	}
	fflush(stdout);
	warn_errno(0, "interrupted by %s: removed %llu files and %llu directories; the rest is left",
		   sig == SIGTERM ? "SIGTERM" : "SIGINT", (unsigned long long)t.files,
		   (unsigned long long)t.dirs);
	if (r->face->on_interrupt)
		r->face->on_interrupt(sig, r->face->arg);
	/* Nodes and fds of the abandoned tree die with the process. */
	_exit(128 + sig);
}

/* The controller's summary and decision log, copied out before it is freed. */
static void copy_report(const struct controller *c, struct rm_report *rep)
{
	if (!c)
		return;
	controller_describe(c, rep->controller, sizeof rep->controller);
	const struct controller_decision *d;
	size_t n = controller_decisions(c, &d);
	if (!n)
		return;
	rep->decisions = xmalloc(n * sizeof(*d));
	memcpy(rep->decisions, d, n * sizeof(*d));
	rep->ndecisions = n;
}

static int serve(const struct rm_options *o, int nfiles, char **files, const struct rm_face *face);

int rm_run(const struct rm_options *o, int nfiles, char **files, const struct rm_face *face)
{
	if (!face)
		face = &plain_face;
	if (face->report)
		*face->report = (struct rm_report){ 0 };
	if (face->serve_until)
		return serve(o, nfiles, files, face);
	struct rm_state r = { .o = o, .face = face };
	if (stat("/", &r.root_st) == 0)
		r.have_root_st = true;
	install_signal_handlers();

	bool show_progress = o->progress == 1 ||
			     (o->progress == -1 && !o->verbose && isatty(STDERR_FILENO));
	if (show_progress || o->stats)
		r.freed = freed_new();
	if (show_progress)
		r.progress = progress_new(r.freed, o->free_rate, !o->stats);

	/* -I: one question before doing anything; "no" is not an error. */
	if (o->prompt_once && (o->recursive || nfiles > 3)) {
		if (o->recursive)
			fprintf(stderr,
				nfiles == 1 ? "%s: remove %d argument recursively? " :
					      "%s: remove %d arguments recursively? ",
				program_name, nfiles);
		else
			fprintf(stderr, "%s: remove %d arguments? ", program_name, nfiles);
		if (!interactive_yesno())
			return 0;
	}

	bool ok = true;
	for (int i = 0; i < nfiles; i++) {
		if (g_signal)
			interrupted(&r);
		if (o->recursive && !r.engine && !interactive_needed(o) && !o->background) {
			/* Start the engine (and controller) before the first tree. */
			struct stat st;
			if (lstat(files[i], &st) == 0 && S_ISDIR(st.st_mode))
				start_engine(&r);
		}
		freed_note(r.freed, files[i]);
		if (!remove_operand(&r, files[i]))
			ok = false;
		if (g_signal)
			interrupted(&r);
	}
	return finish_run(&r, ok);
}

/* The engine and its controller, ticking the progress line. */
static void start_engine(struct rm_state *r)
{
	const struct rm_options *o = r->o;
	struct engine *e = get_engine(r);
	struct controller_config cc = {
		.pinned_threads = o->threads > 0 ? o->threads : 0,
		.explain = o->explain,
		.json_path = o->json_path,
		.stats = o->stats,
		.no_profile = o->no_profile,
		.sort_policy = o->sort_policy,
		.steer = r->steer,
	};
	r->ctl = controller_new(e, &cc);
}

/* No operands of its own: run the trees given to the engine until the face's
 * stop flag, the controller tuned for the first directory among FILES. */
static int serve(const struct rm_options *o, int nfiles, char **files, const struct rm_face *face)
{
	struct rm_state r = { .o = o, .face = face };
	install_signal_handlers();
	if (o->stats)
		r.freed = freed_new();
	start_engine(&r);
	/* the controller tunes for the filesystem of the first tree operand */
	struct operand op = { .pfd = AT_FDCWD };
	for (int i = 0; i < nfiles && r.ctl && !op.copy; i++) {
		op.pfd = rm_open_parent(files[i], &op.copy, &op.base, &op.trailing_slash);
		if ((op.pfd < 0 && op.pfd != AT_FDCWD) ||
		    fstatat(op.pfd, op.base, &op.st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISDIR(op.st.st_mode)) {
			if (op.pfd >= 0)
				close(op.pfd);
			free(op.copy);
			op = (struct operand){ .pfd = AT_FDCWD };
		}
	}
	if (op.copy)
		controller_begin_tree(r.ctl, op.pfd, op.base);
	steer_apply(r.steer);
	engine_begin_serve(r.engine, face->serve_until);
	while (!engine_wait(r.engine, 100))
		tick(&r);
	engine_end_serve(r.engine);
	if (op.copy)
		controller_end_tree(r.ctl);
	if (op.pfd >= 0)
		close(op.pfd);
	free(op.copy);
	if (g_signal)
		interrupted(&r);
	return finish_run(&r, true);
}

/* After the operands (or the serving): the hooks' word on the other ranks,
 * the summary, and the exit status. */
static int finish_run(struct rm_state *rr, bool ok)
{
	struct rm_state r = *rr;
	const struct rm_options *o = r.o;
	if (r.engine) {
		struct engine_totals t;
		engine_totals(r.engine, &t);
		if (t.errors)
			ok = false;
	}
	if (r.face->finish && !r.face->finish(r.engine, ok, r.face->arg))
		ok = false;
	if (r.progress)
		progress_finish(r.progress, r.engine);
	controller_note_exit(r.ctl, ok ? 0 : 1);
	if (r.ctl && !controller_finish(r.ctl))
		ok = false; /* the --json file asked for is missing or cut short */
	/* Operands all held: nothing was deleted here to count; the deleter's
	 * --stats go to its log. */
	bool all_held = r.held && !r.engine;
	if (o->stats && !r.face->quiet && !all_held)
		progress_print_stats(r.engine, r.ctl, r.freed, o->free_rate);
	if (r.face->report)
		copy_report(r.ctl, r.face->report);
	controller_free(r.ctl);
	steer_free(r.steer);
	freed_free(r.freed);
	g_engine = NULL;
	engine_destroy(r.engine);
	return ok ? 0 : 1;
}

// SPDX-License-Identifier: GPL-3.0-or-later
/* The adaptive controller: engine plumbing around the pure decision logic of
 * policy.c. Each tick of the face's loop (~100 ms) it samples the signals
 * (signals.c), feeds the policy, gives its decision to the steering
 * (steer.c, which the face then applies), and records the interval for
 * --explain and --json.
 * Where to start comes from the stored profile of this filesystem and tree
 * shape (profile.c), else from a prior by filesystem type; what it settles on
 * is stored back. Where the filesystem type does not say whether big
 * directories should be shared by several workers, or unlinked in inode
 * order, trial.c tries it and the profile keeps the answer (tried again
 * every TRIAL_RETRY_RUNS runs). How and why: docs/design.md#controller. */
#include "ctl/controller.h"
#include "ctl/cold.h"
#include "ctl/policy.h"
#include "ctl/prior.h"
#include "ctl/profile.h"
#include "ctl/signals.h"
#include "ctl/steer.h"
#include "ctl/trial.h"
#include "engine/fsinfo.h"
#include "lib/clock.h"
#include "lib/env.h"
#include "lib/json.h"
#include "lib/msg.h"
#include "lib/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_DECISIONS 4096
#define TRIAL_RETRY_RUNS 8
/* Unasked, the probes load only for a delete that lasts (1 s) on a
 * latency-bound filesystem (unlinkat >= 200 us): there the tracing cost
 * vanishes next to each call, while on local filesystems it takes a visible
 * share of the throughput for signals the throughput comparison already
 * gives (docs/design.md#when-the-probes-load). */
#define BPF_LAZY_S 1.0
#define BPF_LAZY_LAT_US 200.0

struct controller {
	struct engine *e;
	struct controller_config cfg;
	int exit_status; /* the run's, for the JSON (controller_note_exit) */
	bool exit_noted;
	bool steer; /* false: --threads=N, record only */
	struct ctl_source *src;
	struct ctl_policy pol;
	bool pol_known; /* the policy started from a known point */
	/* The two switches tried where the filesystem type is silent: sharing
	 * big directories among workers, and unlinking them in inode order. */
	struct ctl_trial share, sort;
	enum ctl_trial_state share_during, sort_during; /* states in the interval just measured */
	bool share_asked, sort_asked;			/* this tree started with it untried */
	bool polite_held;    /* the politeness's ceiling bound the count last tick */
	char said_stall[48]; /* the stalled wait --explain named last ("": none) */
	bool in_tree, have_key, have_profile, said_missing, bpf_eager, bpf_tried;
	bool cache_in_tree; /* the profile directory is inside the tree */
	bool budget_seen;   /* a budget shared with other ranks set the count */
	bool cold;	    /* the shape sample's reads went to the disk */
	int cold_from;	    /* the count a cold start raised (0: none) */
	struct profile_key key;
	struct profile_entry prof;
	const char *start_from; /* "profile", "prior", "pinned" */
	int start_threads, final_threads;
	double t0; /* first begin_tree */
	double tree_t0;
	double last_lat_us;	/* unlinkat mean latency of the last interval */
	uint64_t tree_entries0; /* engine entries removed when the tree began */
	/* slow slices handed on before the tree began (the tree's count at its
	 * end), and whether --explain told of the first */
	uint64_t heavy_splits0, heavy_lanes0;
	bool said_heavy;
	struct engine_ag_order ag; /* the tree's allocation-group order (xfs) */
	/* Whole-tree evidence for the closing --explain line: interval shares
	 * weighted by interval length (only intervals that measured them). */
	double cont_sum, cont_dt, blk_sum, blk_dt;
	unsigned changes;
	struct controller_decision *log;
	size_t nlog, dropped;
	FILE *json;
	struct json_writer jw;
	bool json_tree_open;
};

/* Parked workers cost a stack and nothing else, and latency-bound
 * filesystems want dozens, so the cap is well above the CPU count: 64, or 4
 * per CPU on big machines (docs/design.md#worker-cap). */
int controller_default_max_threads(int requested)
{
	if (requested > 0)
		return requested;
	int n = 4 * ctl_ncpus();
	return n < 64 ? 64 : n > CTL_TABLE - 1 ? CTL_TABLE - 1 : n;
}

static void explain(struct controller *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void explain(struct controller *c, const char *fmt, ...)
{
	if (!c->cfg.explain)
		return;
	char line[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s: %.2fs %s\n", program_name, now_s() - c->t0, line);
}

static void log_decision(struct controller *c, int from, int to, const char *why)
{
	if (c->nlog == MAX_DECISIONS) {
		c->dropped++;
		return;
	}
	struct controller_decision *d = &c->log[c->nlog++];
	d->t = now_s() - c->t0;
	d->from = from;
	d->to = to;
	snprintf(d->why, sizeof d->why, "%s", why);
}

struct controller *controller_new(struct engine *e, const struct controller_config *cfg)
{
	bool steer = cfg->pinned_threads <= 0;
	if (!cfg->steer || (!steer && !cfg->json_path && !cfg->explain))
		return NULL;
	struct controller *c = xcalloc(1, sizeof(*c));
	const struct controller_config *o = &c->cfg;
	c->e = e;
	c->cfg = *cfg;
	c->steer = steer;
	c->log = xcalloc(MAX_DECISIONS, sizeof(*c->log));
	c->src = ctl_source_new(e);
	c->t0 = now_s();
	/* The probes cost a load and a little per syscall: load them
	 * at once when the user asked to see the evidence (ADAPTRM_CTL_BPF=1
	 * forces, =0 forbids), else only where they pay (BPF_LAZY_*). */
	int env = env_flag(ENV_CTL_BPF, -1);
	c->bpf_eager = env >= 0 ? env : (o->explain || o->json_path || o->stats);
	if (o->json_path) {
		c->json = fopen(o->json_path, "w");
		if (!c->json) {
			warn_errno(errno, "cannot write %s", o->json_path);
		} else {
			jw_init(&c->jw, c->json);
			jw_object(&c->jw, NULL);
			/* "schema" names the version as the trace's JSON does;
			 * "format" stays for the readers that know it */
			jw_string(&c->jw, "format", "adaptrm-controller-1");
			jw_string(&c->jw, "schema", "adaptrm-controller-1");
			jw_int(&c->jw, "cpus", ctl_ncpus());
			jw_int(&c->jw, "max_threads", engine_max_threads(e));
			jw_bool(&c->jw, "pinned", !steer);
			jw_array(&c->jw, "trees");
		}
	}
	return c;
}

static bool bpf_allowed(void)
{
	const char *s = env_str(ENV_CTL_BPF);
	return !(s && s[0] == '0');
}

static void try_bpf(struct controller *c)
{
	if (c->bpf_tried)
		return;
	c->bpf_tried = true;
	if (bpf_allowed())
		ctl_source_start_bpf(c->src);
	else
		ctl_source_set_missing(c->src,
				       "eBPF probes off (ADAPTRM_CTL_BPF=0): lock contention and "
				       "latency percentiles not measured");
	if (!c->said_missing && *ctl_source_missing(c->src)) {
		/* Say once what is not measured, when the user looks. */
		c->said_missing = true;
		explain(c, "%s; deciding on throughput, unlinkat time and schedstats",
			ctl_source_missing(c->src));
	}
}

/* The tree's profile key (filesystem and shape), its stored profile, and
 * whether the profile directory lies inside it. */
static void identify_tree(struct controller *c, int dirfd, const char *name)
{
	bool cold = false;
	c->have_key = profile_key_for(dirfd, name, &c->key, &cold);
	c->cold = cold;
	/* the engine's order changes with it only where it depends on the cache */
	if (cold && fsinfo_type_order_by_cache(c->key.f_type))
		engine_set_cold(c->e);
	if (!c->have_key) {
		snprintf(c->key.fs, sizeof c->key.fs, "?");
		snprintf(c->key.shape, sizeof c->key.shape, "?");
	}
	c->have_profile = c->have_key && !c->cfg.no_profile && c->steer &&
			  profile_load(&c->key, &c->prof);
	struct stat top;
	c->cache_in_tree = fstatat(dirfd, name, &top, AT_SYMLINK_NOFOLLOW) == 0 &&
			   profile_dir_inside(top.st_dev, top.st_ino);
}

/* On a cold tree, START raised to keep directory reads in flight (cold.h):
 * then it climbs from there as from a prior, and *FROM says "cold". */
static int raise_when_cold(struct controller *c, int start, int cap, const char **from)
{
	struct ctl_cold_evidence ev = {
		.read_disk = c->cold,
		.steer = c->steer && strcmp(*from, "ADAPTRM_CTL_START"),
		.shape = c->have_key ? c->key.shape : NULL,
		.ncpu = ctl_ncpus(),
		.cap = cap,
	};
	int n = ctl_cold_start(start, &ev);
	c->cold_from = n != start ? start : 0;
	if (c->cold_from)
		*from = "cold";
	return n;
}

/* The worker count to start at, within 1..CAP, and where it came from in
 * *FROM: "pinned" (--threads), "profile", "prior", "ADAPTRM_CTL_START"
 * (which also sets the profile aside), or "cold" (raise_when_cold). */
static int choose_start(struct controller *c, int cap, const char **from)
{
	int start;
	if (!c->steer) {
		start = engine_active_threads(c->e);
		*from = "pinned";
	} else if (c->have_profile) {
		start = c->prof.threads;
		*from = "profile";
	} else {
		start = ctl_prior_threads(c->key.fs, c->key.shape);
		*from = "prior";
	}
	/* For tests and experiments: start elsewhere, to watch it converge. */
	int force = env_int(ENV_CTL_START, 0);
	if (c->steer && force > 0) {
		start = force;
		*from = "ADAPTRM_CTL_START";
		c->have_profile = false;
	}
	if (start > cap)
		start = cap;
	if (start < 1)
		start = 1;
	return raise_when_cold(c, start, cap, from);
}

/* btrfs: two workers unlinking meet in the fs tree's upper nodes and its
 * root's lock, so a second one usually loses in a short delete; the first
 * window holds one worker unless it is blocked (docs/lab/log.md, "btrfs's first
 * window"). */
static bool one_first(const struct controller *c)
{
	return !strcmp(c->key.fs, "btrfs");
}

/* The worker-count policy from START (into CFG), and the engine set to it. */
static void configure_policy(struct controller *c, int cap, int start, struct ctl_policy_cfg *cfg)
{
	/* The getdents64 buffer is left at the engine's 64 KiB: a bigger one
	 * does not pay (docs/design.md#getdents64-buffer). */
	ctl_policy_defaults(cfg, cap, ctl_ncpus());
	cfg->one_first = one_first(c);
	/* A chain has one directory in flight whatever the count: trust the
	 * prior of 1 as much as a profile (no climb, gentle probes later). A
	 * cold start holds too: a climb's first step would be measured while
	 * the reads still dominate, and most cold deletes are over by then. */
	c->pol_known = c->have_profile || !strcmp(c->key.shape, "chain") || c->cold_from;
	ctl_policy_init(&c->pol, cfg, start, c->pol_known);
	if (c->steer) {
		steer_policy(c->cfg.steer, c->pol.n);
		steer_apply(c->cfg.steer); /* before the first directory is read */
	}
}

/* The sharing and inode-order trials: fixed where the filesystem type, the
 * options or the profile answer, else asked (untried) in this tree. */
static void setup_trials(struct controller *c, const struct ctl_policy_cfg *cfg)
{
	struct engine_settings k;
	engine_settings(c->e, &k);
	/* A stored answer came from one trial, on a machine that may have been
	 * busy with other work, so every TRIAL_RETRY_RUNS runs it is tried
	 * again; an abandoned retrial keeps the stored answer. */
	bool retry = c->have_profile && c->prof.runs % TRIAL_RETRY_RUNS == 0;
	struct ctl_trial_cfg tc = {
		.band = cfg->band,
		.cap = cfg->cap,
		.min_workers = 2,
		.need_helper = true,
		.measure = "throughput",
		.unit = "entries/s",
	};
	ctl_trial_init(&c->share, &tc,
		       !c->steer || !c->have_key || fsinfo_type_share_known(c->key.f_type),
		       c->have_profile && !retry ? c->prof.share : -1);
	/* Inode order is measured on the unlinks alone: a sorted batch is read
	 * whole before its first unlink, so throughput would compare a read
	 * phase with an unlink phase; the reads cost the same either way. */
	tc = (struct ctl_trial_cfg){
		.band = cfg->band,
		.cap = cfg->cap,
		.min_workers = 1,
		.need_helper = false,
		.measure = "unlinkat rate",
		.unit = "unlinks/s",
	};
	/* A batch is sorted only past the threshold: with a threshold at the
	 * batch size or above, there is nothing to compare. */
	bool sortable = k.sort_threshold < k.sort_batch;
	ctl_trial_init(&c->sort, &tc,
		       !c->steer || !c->have_key || c->cfg.sort_policy != SORT_AUTO || !sortable ||
			       fsinfo_type_sort_known(c->key.f_type),
		       c->have_profile && !retry ? c->prof.sort : -1);
	c->share_asked = c->share.st == TRIAL_UNTRIED;
	c->sort_asked = c->sort.st == TRIAL_UNTRIED;
	engine_use_plan(c->e, PLAN_SHARED, ctl_trial_on(&c->share));
	engine_use_plan(c->e, PLAN_SORTED, ctl_trial_on(&c->sort));
	engine_use_plan(c->e, PLAN_BATCHED, false);
}

/* The tree's clock, entry count and evidence sums start now. */
static void start_measuring(struct controller *c)
{
	c->start_threads = c->pol.n;
	c->in_tree = true;
	c->tree_t0 = now_s();
	struct engine_totals tot;
	engine_totals(c->e, &tot);
	c->tree_entries0 = tot.files + tot.dirs;
	c->heavy_splits0 = tot.heavy_splits;
	c->heavy_lanes0 = tot.heavy_lanes;
	c->cont_sum = c->cont_dt = c->blk_sum = c->blk_dt = 0;
	if (c->bpf_eager || !bpf_allowed())
		try_bpf(c);
	ctl_source_reset(c->src);
}

/* The start point: --explain's line, the decision log, --json's tree. */
static void report_start(struct controller *c)
{
	const char *th = c->pol.n == 1 ? "thread" : "threads";
	if (c->cold_from)
		explain(c,
			"start %s %s: %d %s (cold: the first directory reads went to the disk; "
			"the %s said %d)",
			c->key.fs, c->key.shape, c->pol.n, th,
			c->have_profile ? "profile" : "prior", c->cold_from);
	else if (c->have_profile)
		explain(c, "start %s %s: %d %s from the profile (%u runs, %.0f entries/s%s%s)",
			c->key.fs, c->key.shape, c->pol.n, th, c->prof.runs, c->prof.rate,
			c->share.st == TRIAL_ON	 ? ", big directories shared" :
			c->share.st == TRIAL_OFF ? ", big directories not shared" :
			c->prof.share >= 0 && c->share.st == TRIAL_UNTRIED ?
						   ", sharing to be tried again" :
						   "",
			c->sort.st == TRIAL_ON	? ", big directories in inode order" :
			c->sort.st == TRIAL_OFF ? ", big directories in readdir order" :
			c->prof.sort >= 0 && c->sort.st == TRIAL_UNTRIED ?
						  ", inode order to be tried again" :
						  "");
	else
		explain(c, "start %s %s: %d %s (%s)", c->key.fs, c->key.shape, c->pol.n, th,
			!c->steer		       ? "pinned by --threads" :
			strcmp(c->start_from, "prior") ? "set by ADAPTRM_CTL_START" :
							 "prior for this filesystem type");
	log_decision(c, 0, c->pol.n, c->start_from);
	if (c->json) {
		jw_object(&c->jw, NULL);
		jw_string(&c->jw, "fs", c->key.fs);
		jw_string(&c->jw, "shape", c->key.shape);
		jw_string(&c->jw, "start_from", c->start_from);
		jw_int(&c->jw, "start_threads", c->pol.n);
		c->json_tree_open = true;
	}
}

/* Why the workers of tree C on xfs do or do not each take the directories
 * of their own allocation groups first (engine_pop_task): a short name
 * for --json, the sentence into WHY for --explain. */
static const char *ag_order_why(const struct controller *c, char *why, size_t len)
{
	const struct engine_ag_order *ag = &c->ag;
	if (ag->off) {
		snprintf(why, len, "allocation-group order off (ADAPTRM_AG_ORDER=0)");
		return "off";
	}
	if (ag->groups == 0) {
		snprintf(why, len,
			 "no allocation-group order: the geometry of the tree's "
			 "parent was not readable as xfs's");
		return "no-geometry";
	}
	if (ag->groups < 2 || !ag->shift) {
		snprintf(why, len, "no allocation-group order: one allocation group");
		return "one-group";
	}
	if (c->pol.n < 2) {
		snprintf(why, len,
			 "%u allocation groups (inode number >> %u), but one worker: "
			 "directories in stack order until a second one runs",
			 ag->groups, ag->shift);
		return "one-worker";
	}
	snprintf(why, len,
		 "each worker takes the directories of its own allocation groups first "
		 "(%u groups, inode number >> %u, group mod %d workers)",
		 ag->groups, ag->shift, c->pol.n);
	return "groups";
}

/* The allocation-group order of a tree on xfs: one --explain line and
 * --json's ag_order, read ahead for the engine. */
static void report_ag_order(struct controller *c, int dirfd)
{
	engine_ag_order(c->e, dirfd, &c->ag);
	if (strcmp(c->key.fs, "xfs") && !c->ag.groups)
		return;
	char why[200];
	const char *code = ag_order_why(c, why, sizeof why);
	explain(c, "xfs: %s", why);
	if (c->json && c->json_tree_open) {
		jw_object(&c->jw, "ag_order");
		jw_bool(&c->jw, "on", !strcmp(code, "groups"));
		jw_string(&c->jw, "why", code);
		jw_int(&c->jw, "groups", c->ag.groups);
		jw_int(&c->jw, "shift", c->ag.shift);
		jw_end(&c->jw);
	}
}

void controller_begin_tree(struct controller *c, int dirfd, const char *name)
{
	identify_tree(c, dirfd, name);
	if (c->have_key)
		ctl_source_set_dev(c->src, c->key.dev_major, c->key.dev_minor);
	int cap = engine_max_threads(c->e);
	int start = choose_start(c, cap, &c->start_from);
	struct ctl_policy_cfg cfg;
	configure_policy(c, cap, start, &cfg);
	setup_trials(c, &cfg);
	start_measuring(c);
	report_start(c);
	report_ag_order(c, dirfd);
	if (c->json_tree_open)
		jw_array(&c->jw, "intervals");
}

static void record(struct controller *c, const struct ctl_signals *s, const struct ctl_decision *d)
{
	if (!c->json)
		return;
	struct engine_settings k;
	engine_settings(c->e, &k);
	struct json_writer *w = &c->jw;
	jw_object(w, NULL);
	jw_double(w, "t", now_s() - c->t0);
	jw_double(w, "dt", s->dt);
	jw_int(w, "threads", s->active);
	jw_int(w, "threads_next", d && d->changed ? d->to : s->active);
	jw_string(w, "bound_by", steer_bound_name(steer_bound(c->cfg.steer)));
	jw_uint(w, "getdents_size", k.getdents_size);
	jw_int(w, "sort_policy", k.sort_policy);
	jw_uint(w, "sort_threshold", k.sort_threshold);
	ctl_signals_json(w, s);
	jw_string(w, "phase", c->steer ? ctl_phase_name(c->pol.phase) : "pinned");
	jw_string(w, "share", ctl_trial_state_name(c->share_during));
	jw_string(w, "sort", ctl_trial_state_name(c->sort_during));
	if (d && d->changed) {
		jw_string(w, "decision", d->why);
		jw_string(w, "rule", d->rule ? d->rule : "");
	}
	jw_end(w);
}

/* One tick of trial T (trial.c) of the engine's plan PLAN (used where the
 * filesystem type leaves it open, or not), NAME in the log, on what TS
 * measured (its worker count is filled here). Its windows pause the
 * worker-count policy. */
static void trial_tick(struct controller *c, struct ctl_trial *t, enum plan_id plan,
		       const char *name, struct ctl_trial_sample ts, struct ctl_decision *d)
{
	if (t->st == TRIAL_FIXED)
		return;
	int n = engine_active_threads(c->e), to = n;
	char why[CTL_WHY_LEN - 40];
	ts.n = n;
	enum ctl_trial_act act = ctl_trial_tick(t, &ts, &to, why, sizeof why);
	if (act == TRIAL_ACT_NONE)
		return;
	engine_use_plan(c->e, plan, ctl_trial_on(t));
	if (act != TRIAL_ACT_KEEP)
		steer_policy(c->cfg.steer, to);
	/* After a trial that moved the count, the policy starts afresh from
	 * where it is (and holds where the trial found a loss); inode order
	 * leaves the count alone, and the policy goes on where it paused. */
	if (act != TRIAL_ACT_TRY && ctl_trial_moves_workers(t)) {
		struct ctl_policy_cfg cfg = c->pol.cfg; /* init clears the policy */
		ctl_policy_init(&c->pol, &cfg, to, c->pol_known || act == TRIAL_ACT_DROP);
	}
	/* A decision of this tick even where the count stays: the policy
	 * skips the tick and --json records it. */
	d->changed = true;
	d->from = n;
	d->to = to;
	snprintf(d->why, sizeof d->why, "%s: %s", name, why);
	d->rule = t == &c->share ? "share-trial" : "sort-trial";
	c->changes += to != n;
	log_decision(c, n, to, d->why);
	explain(c, "%s", d->why);
}

/* The sharing trial: throughput over whole ticks. */
static void share_tick(struct controller *c, const struct ctl_signals *s, struct ctl_decision *d)
{
	struct ctl_trial_sample ts = {
		.rate = s->rate,
		.weight = s->dt,
		.busy = s->busy,
		.asked = s->big_unasked,
		.active = s->big_shared,
	};
	trial_tick(c, &c->share, PLAN_SHARED, "sharing big directories", ts, d);
}

/* The inode-order trial: its base unlinks whole batches in readdir order and
 * its trial sorted ones, so that only the order differs. Against a base of
 * unlinks between reads, the back-to-back unlinks of a sorted batch look
 * faster even where order cannot matter. While the trial waits for its
 * sorted batch, the base's batch may still be unlinked, which is work all
 * the same. */
static void sort_tick(struct controller *c, const struct ctl_signals *s, struct ctl_decision *d)
{
	bool trial = c->sort.st == TRIAL_TRIAL;
	struct ctl_trial_sample ts = {
		.rate = trial ? s->sorted_rate : s->batch_rate,
		.weight = trial ? s->sorted_secs : s->batch_secs,
		.busy = s->busy,
		.asked = s->sort_asked,
		.active = s->sort_active || s->sort_asked,
	};
	trial_tick(c, &c->sort, PLAN_SORTED, "inode order in big directories", ts, d);
	engine_use_plan(c->e, PLAN_BATCHED, c->sort.st == TRIAL_BASE);
}

/* The ranks' shared budget (the steering's budget input, set by
 * adaptrm-mpi), which the steering applies whatever the policy says: the
 * policy is told of it, so that it does not climb against it, and its move
 * to the share is logged as any decision. */
static bool policy_under_budget(struct controller *c)
{
	int cap = steer_budget_share(c->cfg.steer);
	if (cap == c->pol.budget)
		return false;
	struct ctl_decision d;
	c->budget_seen = true;
	if (!ctl_policy_set_budget(&c->pol, cap, &d))
		return false;
	steer_policy(c->cfg.steer, d.to);
	c->changes++;
	char why[CTL_WHY_LEN + 40];
	snprintf(why, sizeof why, "%s [%s]", d.why, d.rule);
	log_decision(c, d.from, d.to, why);
	explain(c, "threads %d->%d: %s", d.from, d.to, why);
	return true;
}

/* Another input bound the count (the background deleter's politeness):
 * while it does, what is measured is not of the policy's count, and once it
 * lets go the policy's count comes back with a fresh interval. */
static bool bound_by_politeness(struct controller *c)
{
	bool now = steer_polite_ceiling(c->cfg.steer) > 0;
	bool was = c->polite_held;
	c->polite_held = now;
	if (now || was)
		ctl_source_reset(c->src);
	return now || was;
}

/* Every busy worker waits in one kernel function and nothing was removed
 * in the interval (a frozen filesystem, a lock another process holds): more
 * workers would wait there too, so the count holds, and says so once. */
static bool held_by_a_stall(struct controller *c, const struct ctl_signals *s)
{
	if (!s->stall_wait[0]) {
		if (!c->said_stall[0])
			return false;
		/* The interval ending now began in the stall: the policy
		 * measures from a clean one. */
		c->said_stall[0] = '\0';
		ctl_source_reset(c->src);
		return true;
	}
	if (strcmp(c->said_stall, s->stall_wait)) {
		snprintf(c->said_stall, sizeof c->said_stall, "%s", s->stall_wait);
		explain(c,
			"threads %d held: every busy worker waits in %s and nothing was removed: "
			"more workers would wait there too",
			s->active, s->stall_wait);
	}
	return true;
}

int controller_threads(const struct controller *c)
{
	return c && c->steer ? c->pol.n : 0;
}

/* The first slice of slow unlinks the engine handed on, once a run, with
 * the evidence that moved it; the rest are counted at the tree's end. */
static void explain_slow_slice(struct controller *c)
{
	struct engine_slow_slice ss;
	if (c->said_heavy || !c->cfg.explain || !engine_first_slow_slice(c->e, &ss))
		return;
	c->said_heavy = true;
	const char *to = ss.lane ? "its big files to the large-file lane (one worker)" :
				   "half its rest to an idle worker";
	if (ss.forced)
		explain(c,
			"slow slice handed on unmeasured (ADAPTRM_HEAVY_US=0; its unlinks took "
			"%.1f us each over %u): %s",
			ss.wall_ns / 1e3, ss.entries, to);
	else
		explain(c,
			"slow slice: its unlinks took %.0f us each over %u, %.0f us of it the "
			"thread's own CPU (at least the %.0f us bar: they free data, they do "
			"not wait): %s; the others counted at the end",
			ss.wall_ns / 1e3, ss.entries, ss.cpu_ns / 1e3, ss.threshold_ns / 1e3, to);
}

void controller_tick(struct controller *c)
{
	if (!c || !c->in_tree)
		return;
	explain_slow_slice(c);
	if (!c->bpf_tried && now_s() - c->tree_t0 >= BPF_LAZY_S && c->last_lat_us >= BPF_LAZY_LAT_US) {
		try_bpf(c);
		ctl_source_reset(c->src); /* the load took a while: a clean interval */
		return;
	}
	if (c->steer && bound_by_politeness(c))
		return;
	struct ctl_signals s;
	ctl_source_sample(c->src, &s);
	if (s.dt <= 0)
		return;
	if (s.lat_mean_us >= 0)
		c->last_lat_us = s.lat_mean_us;
	if (s.contention >= 0) {
		c->cont_sum += s.contention * s.dt;
		c->cont_dt += s.dt;
	}
	if (s.blocked >= 0) {
		c->blk_sum += s.blocked * s.dt;
		c->blk_dt += s.dt;
	}
	struct ctl_decision d = { 0 };
	c->share_during = c->share.st;
	c->sort_during = c->sort.st;
	if (held_by_a_stall(c, &s)) {
		record(c, &s, &d);
		return;
	}
	/* One trial at a time: each measures against a base of its own. */
	if (!ctl_trial_measuring(&c->sort))
		share_tick(c, &s, &d);
	if (!ctl_trial_measuring(&c->share) && !d.changed)
		sort_tick(c, &s, &d);
	/* under a budget shared with other ranks the count is its share: a
	 * rank's own climb reads the others' work as its gain or loss */
	if (c->steer && (policy_under_budget(c) || c->pol.budget > 0))
		d = (struct ctl_decision){ 0 };
	else if (c->steer && !ctl_trial_measuring(&c->share) && !ctl_trial_measuring(&c->sort) &&
		 !d.changed) {
		struct ctl_sample smp;
		ctl_signals_to_sample(&s, &smp);
		if (ctl_policy_tick(&c->pol, &smp, &d) && d.changed) {
			steer_policy(c->cfg.steer, d.to);
			c->changes++;
			char why[CTL_WHY_LEN + 40]; /* the evidence and the policy's rule */
			snprintf(why, sizeof why, "%s [%s]", d.why, d.rule);
			log_decision(c, d.from, d.to, why);
			explain(c, "threads %d->%d: %s", d.from, d.to, why);
		} else if (d.rule && !strcmp(d.rule, CTL_RULE_FIRST_ONE)) {
			explain(c, "threads %d held: %s [%s]", d.to, d.why, d.rule);
		}
	}
	record(c, &s, &d);
}

/* How a tree ended, for the profile, --explain and --json. */
struct tree_end {
	struct engine_totals tot;
	int best;	 /* the worker count learned, or -1 */
	int keep;	 /* the worker count to store, or -1: nothing to store */
	int share, sort; /* the switches' answers to store (-1: unknown) */
	double rate;	 /* entries per second over the tree */
	bool saved;	 /* stored in the profile */
};

/* What the tree taught: the worker count, and what the trials found. */
static void learned_count(struct controller *c, struct tree_end *te)
{
	te->best = c->steer ? ctl_policy_best(&c->pol, NULL) : -1;
	/* A switch's answer learned now is worth keeping even when the delete
	 * was too short to learn a worker count: keep the count known. */
	te->share = ctl_trial_learned(&c->share);
	te->sort = ctl_trial_learned(&c->sort);
	bool news = (te->share >= 0 && c->share_asked) ||
		    (te->sort >= 0 && c->sort_asked); /* a trial decided */
	if (te->share < 0 && c->have_profile)
		te->share = c->prof.share; /* not asked this time: keep what is known */
	if (te->sort < 0 && c->have_profile)
		te->sort = c->prof.sort;
	/* A count this tree cannot teach: the ranks' budget set it, or a huge
	 * file's unlink held a worker for seconds (the end, one worker busy and
	 * the rest idle, would read as "best 1" for the next delete here). */
	bool untaught = c->budget_seen || te->tot.lane.auto_lane;
	if (untaught)
		te->best = -1;
	te->keep = te->best > 0 ? te->best :
		   news		? (c->have_profile ? c->prof.threads : c->final_threads) :
				  -1;
}

/* Store what the tree taught in the profile; whether it was stored. */
static bool save_profile(struct controller *c, const struct tree_end *te)
{
	if (te->keep <= 0 || !c->have_key || c->cfg.no_profile || c->cache_in_tree)
		return false;
	struct profile_entry e = {
		.threads = te->keep,
		.rate = te->rate,
		.runs = (c->have_profile ? c->prof.runs : 0) + 1,
		.updated = (int64_t)time(NULL),
		.share = te->share,
		.sort = te->sort,
	};
	return profile_store(&c->key, &e);
}

/* --explain's closing lines: cold reads, then the count and the evidence. */
static void explain_end(struct controller *c, const struct tree_end *te)
{
	char evidence[96] = "";
	int el = 0;
	if (c->cont_dt > 0)
		el += snprintf(evidence + el, sizeof evidence - el, ", contention %.0f%%",
			       100 * c->cont_sum / c->cont_dt);
	if (c->blk_dt > 0)
		snprintf(evidence + el, sizeof evidence - el, ", blocked %.0f%%",
			 100 * c->blk_sum / c->blk_dt);
	explain_slow_slice(c);
	uint64_t shared = te->tot.heavy_splits - c->heavy_splits0;
	uint64_t laned = te->tot.heavy_lanes - c->heavy_lanes0;
	if (shared || laned)
		explain(c,
			"slow slices handed on: %llu to idle workers (half the rest each), %llu to "
			"the lane (big files)",
			(unsigned long long)shared, (unsigned long long)laned);
	if (te->tot.cold)
		explain(c,
			"cold: directory reads went to the disk (of %llu the workers timed, %llu "
			"took 100 us or more): entries in readdir order",
			(unsigned long long)te->tot.reads_timed,
			(unsigned long long)te->tot.reads_waited);
	if (te->best > 0)
		explain(c, "end %s %s: threads %d at the end, best %d (%.0f entries/s%s)%s",
			c->key.fs, c->key.shape, c->final_threads, te->best, te->rate, evidence,
			te->saved ? ", saved in the profile" : "");
	else
		explain(c, "end %s %s: threads %d at the end, %s%s%s", c->key.fs, c->key.shape,
			c->final_threads,
			c->budget_seen ? "the count was the ranks' budget's: not learned" :
			te->tot.lane.auto_lane ?
					 "a huge file's unlink held a worker: count not learned" :
					 "too short to learn from",
			evidence, te->saved ? "; what the trials found saved in the profile" : "");
}

/* --json: the tree's closing fields. */
static void json_end_tree(struct controller *c, const struct tree_end *te)
{
	if (!c->json || !c->json_tree_open)
		return;
	jw_end(&c->jw); /* intervals */
	jw_int(&c->jw, "final_threads", c->final_threads);
	if (te->best > 0)
		jw_int(&c->jw, "learned_threads", te->best);
	else
		jw_null(&c->jw, "learned_threads");
	jw_bool(&c->jw, "profile_saved", te->saved);
	jw_string(&c->jw, "share", ctl_trial_state_name(c->share.st));
	jw_string(&c->jw, "sort", ctl_trial_state_name(c->sort.st));
	jw_object(&c->jw, "slow_slices");
	jw_int(&c->jw, "shared", (int64_t)(te->tot.heavy_splits - c->heavy_splits0));
	jw_int(&c->jw, "to_lane", (int64_t)(te->tot.heavy_lanes - c->heavy_lanes0));
	jw_end(&c->jw);
	jw_double(&c->jw, "seconds", now_s() - c->tree_t0);
	jw_end(&c->jw);
	c->json_tree_open = false;
}

void controller_end_tree(struct controller *c)
{
	if (!c || !c->in_tree)
		return;
	c->in_tree = false;
	c->final_threads = engine_active_threads(c->e);
	struct tree_end te;
	engine_totals(c->e, &te.tot);
	learned_count(c, &te);
	double secs = now_s() - c->tree_t0;
	te.rate = secs > 0 ? (te.tot.files + te.tot.dirs - c->tree_entries0) / secs : 0;
	te.saved = save_profile(c, &te);
	explain_end(c, &te);
	json_end_tree(c, &te);
}

/* What the large-file lane did over the run (docs/json.md#lane). */
static void write_lane(struct controller *c)
{
	struct engine_totals t;
	engine_totals(c->e, &t);
	jw_object(&c->jw, "lane");
	jw_int(&c->jw, "files", (int64_t)t.lane.files);
	jw_bool(&c->jw, "auto", t.lane.auto_lane);
	jw_int(&c->jw, "truncations", (int64_t)t.lane.truncations);
	jw_int(&c->jw, "paced_bytes", (int64_t)t.lane.paced_bytes);
	jw_double(&c->jw, "paced_seconds", (double)t.lane.paced_ns / 1e9);
	jw_end(&c->jw);
}

/* Whether the directory reads waited for the disk (docs/json.md#cold). */
static void write_cold(struct controller *c)
{
	struct engine_totals t;
	engine_totals(c->e, &t);
	jw_object(&c->jw, "cold");
	jw_bool(&c->jw, "detected", t.cold);
	jw_int(&c->jw, "reads_timed", (int64_t)t.reads_timed);
	jw_int(&c->jw, "reads_waited", (int64_t)t.reads_waited);
	jw_end(&c->jw);
}

/* The first slow slice handed on and what moved it, or null
 * (docs/json.md#first-slow-slice). */
static void write_slow_slice(struct controller *c)
{
	struct engine_slow_slice ss;
	if (!engine_first_slow_slice(c->e, &ss)) {
		jw_null(&c->jw, "first_slow_slice");
		return;
	}
	jw_object(&c->jw, "first_slow_slice");
	jw_string(&c->jw, "to", ss.lane ? "lane" : "idle_worker");
	jw_bool(&c->jw, "forced", ss.forced);
	jw_int(&c->jw, "entries", ss.entries);
	jw_double(&c->jw, "unlink_us", ss.wall_ns / 1e3);
	if (ss.forced) {
		jw_null(&c->jw, "cpu_us");
		jw_null(&c->jw, "threshold_us");
	} else {
		jw_double(&c->jw, "cpu_us", ss.cpu_ns / 1e3);
		jw_double(&c->jw, "threshold_us", ss.threshold_ns / 1e3);
	}
	jw_end(&c->jw);
}

void controller_note_exit(struct controller *c, int status)
{
	if (c) {
		c->exit_status = status;
		c->exit_noted = true;
	}
}

/* What the run removed, over every tree, and how it ends: a reader needs
 * not sum the intervals (they stop with the last tick). */
static void write_totals(struct controller *c)
{
	struct engine_totals t;
	engine_totals(c->e, &t);
	jw_object(&c->jw, "totals");
	jw_uint(&c->jw, "files", t.files);
	jw_uint(&c->jw, "directories", t.dirs);
	jw_uint(&c->jw, "errors", t.errors);
	jw_end(&c->jw);
	if (c->exit_noted)
		jw_int(&c->jw, "exit_status", c->exit_status);
	else
		jw_null(&c->jw, "exit_status");
}

bool controller_finish(struct controller *c)
{
	if (!c)
		return true;
	controller_end_tree(c);
	/* --json asked for a file: not having written it is a failure
	 * (reported when it could not be created) */
	bool ok = !c->cfg.json_path || c->json;
	if (c->json) {
		jw_end(&c->jw); /* trees */
		jw_int(&c->jw, "final_threads", c->final_threads);
		jw_string(&c->jw, "not_measured", ctl_source_missing(c->src));
		write_lane(c);
		write_cold(c);
		write_slow_slice(c);
		write_totals(c);
		jw_array(&c->jw, "decisions");
		for (size_t i = 0; i < c->nlog; i++) {
			jw_object(&c->jw, NULL);
			jw_double(&c->jw, "t", c->log[i].t);
			jw_int(&c->jw, "from", c->log[i].from);
			jw_int(&c->jw, "to", c->log[i].to);
			jw_string(&c->jw, "why", c->log[i].why);
			jw_end(&c->jw);
		}
		jw_end(&c->jw);
		jw_end(&c->jw);
		jw_finish(&c->jw);
		/* a buffer that failed earlier is dropped: ferror, not fclose,
		 * tells of it */
		errno = 0;
		int err = fflush(c->json) != 0 || ferror(c->json) ? (errno ? errno : EIO) : 0;
		if (fclose(c->json) != 0 && !err)
			err = errno;
		if (err) {
			warn_errno(err, "write error on %s", c->cfg.json_path);
			ok = false;
		}
		c->json = NULL;
	}
	return ok;
}

void controller_describe(const struct controller *c, char *buf, size_t len)
{
	if (!c) {
		snprintf(buf, len, "fixed");
		return;
	}
	if (!c->steer) {
		snprintf(buf, len, "%d (fixed)", c->final_threads);
		return;
	}
	/* Short: progress.c gives it one line of 96 bytes. */
	snprintf(buf, len, "%d (auto on %s %s: started at %d from the %s, %u changes%s)",
		 c->final_threads, c->key.fs, c->key.shape, c->start_threads,
		 c->start_from ? c->start_from : "prior", c->changes,
		 ctl_source_has_bpf(c->src) ? "" : ", no eBPF");
}

size_t controller_decisions(const struct controller *c, const struct controller_decision **out)
{
	*out = c ? c->log : NULL;
	return c ? c->nlog : 0;
}

void controller_free(struct controller *c)
{
	if (!c)
		return;
	if (c->json)
		fclose(c->json);
	ctl_source_free(c->src);
	free(c->log);
	free(c);
}

// SPDX-License-Identifier: GPL-3.0-or-later
#include <criterion/criterion.h>
#include "hold/polite.h"
#include "hold/record.h"
#include "lib/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct held_record sample(void)
{
	struct held_record r = { .path = "/data/build\nwith\\odd name",
				 .uid = 1000,
				 .time = 1700000000,
				 .dev = 2049,
				 .ino = 123456789,
				 .size = 4096 };
	strcpy(r.name, "h1700000000.000000001-42-0");
	return r;
}

static bool parse(const char *text, struct held_record *r)
{
	return held_record_parse(text, strlen(text), r);
}

Test(held_record, round_trip)
{
	struct held_record r = sample(), back;
	struct strbuf sb = STRBUF_INIT;
	held_record_format(&r, &sb);
	cr_assert(held_record_parse(sb_str(&sb), sb.len, &back));
	cr_assert_str_eq(back.name, r.name);
	cr_assert_str_eq(back.path, r.path);
	cr_assert_eq(back.uid, r.uid);
	cr_assert_eq(back.time, r.time);
	cr_assert_eq(back.dev, r.dev);
	cr_assert_eq(back.ino, r.ino);
	cr_assert_eq(back.size, r.size);
	held_record_free(&back);
	sb_free(&sb);
}

/* Every way a record can be cut short or tampered with is refused whole. */
Test(held_record, corrupted_records_are_refused)
{
	struct held_record r = sample(), back;
	struct strbuf sb = STRBUF_INIT;
	held_record_format(&r, &sb);
	const char *good = sb_str(&sb);
	for (size_t cut = 0; cut < sb.len; cut++)
		cr_assert_not(held_record_parse(good, cut, &back), "cut at %zu parsed", cut);
	char *bad = strdup(good);
	bad[0] = 'b';
	cr_assert_not(parse(bad, &back), "a wrong magic");
	free(bad);
	const char *cases[] = {
		"adaptrm-held 2\nname a\nuid 0\ntime 1\ndev 1\nino 1\nsize 0\npath /x\nend\n",
		"adaptrm-held 1\nname ../x\nuid 0\ntime 1\ndev 1\nino 1\nsize 0\npath /x\nend\n",
		"adaptrm-held 1\nname a/b\nuid 0\ntime 1\ndev 1\nino 1\nsize 0\npath /x\nend\n",
		"adaptrm-held 1\nname .a\nuid 0\ntime 1\ndev 1\nino 1\nsize 0\npath /x\nend\n",
		"adaptrm-held 1\nname a\nuid x\ntime 1\ndev 1\nino 1\nsize 0\npath /x\nend\n",
		"adaptrm-held 1\nname a\nuid 0\ntime 1\ndev 1\nino 1\nsize 0\nend\n",
		"adaptrm-held 1\nname a\nname b\nuid 0\ntime 1\ndev 1\nino 1\nsize 0\npath /x\nend\n",
		"adaptrm-held 1\nname a\nuid 0\ntime 1\ndev 1\nino 1\nsize 0\npath /x\\q\nend\n",
		"adaptrm-held 1\nname a\nuid 0\ntime 1\ndev 1\nino 1\nsize 0\npath /x\nend\nmore\n",
		"adaptrm-held 1\nname a\nuid 0\ntime 1\ndev 1\nino 99999999999999999999999\n"
		"size 0\npath /x\nend\n",
		"adaptrm-held 1\nname a\nuid 0\ntime 1\ndev 1\nino 1\nsize 0\nwho me\npath /x\nend\n",
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		cr_assert_not(parse(cases[i], &back), "case %zu parsed", i);
	cr_assert(parse("adaptrm-held 1\nname a\nuid 0\ntime 1\ndev 1\nino 1\nsize 0\npath /x\nend\n",
			&back));
	held_record_free(&back);
	sb_free(&sb);
}

Test(held_record, written_and_read_back_from_a_place)
{
	char dir[] = "/tmp/held-unit.XXXXXX";
	cr_assert(mkdtemp(dir));
	int fd = open(dir, O_RDONLY | O_DIRECTORY);
	struct held_record r = sample(), back;
	cr_assert_eq(held_record_write(fd, &r), 0);
	cr_assert_eq(held_record_write(fd, &r), EEXIST, "a record is never overwritten");
	char file[HELD_NAME_MAX + 8];
	snprintf(file, sizeof file, "%s.rec", r.name);
	cr_assert_eq(held_record_read(fd, file, &back), 0);
	cr_assert_str_eq(back.path, r.path);
	held_record_free(&back);
	cr_assert_eq(renameat(fd, file, fd, "other.rec"), 0);
	cr_assert_eq(held_record_read(fd, "other.rec", &back), EINVAL,
		     "a record under another entry's name");
	unlinkat(fd, "other.rec", 0);
	unlinkat(fd, ".h1700000000.000000001-42-0.tmp", 0);
	close(fd);
	cr_assert_eq(rmdir(dir), 0, "nothing else was left in the place");
}

/* The entry's name is its record: every field comes back, odd bytes in the
 * path included, and the name is a valid place name. */
Test(held_name, round_trip)
{
	struct held_record r = sample(), back;
	held_name_format(&r, "000000001-42-0");
	cr_assert(r.in_name);
	cr_assert_not(r.side);
	cr_assert(held_name_ok(r.name), "%s", r.name);
	cr_assert_null(strchr(r.name, '/'));
	cr_assert(held_name_parse(r.name, &back), "%s", r.name);
	cr_assert_str_eq(back.path, r.path);
	cr_assert_eq(back.uid, r.uid);
	cr_assert_eq(back.time, r.time);
	cr_assert_eq(back.dev, r.dev);
	cr_assert_eq(back.ino, r.ino);
	cr_assert_eq(back.size, r.size);
	cr_assert(held_is_record(r.name));
	held_record_free(&back);
}

/* A path too long for a name leaves it out; the name alone still parses. */
Test(held_name, a_long_path_goes_to_a_side_file)
{
	char path[400];
	memset(path, 'x', sizeof path - 1);
	path[0] = '/';
	path[sizeof path - 1] = '\0';
	struct held_record r = sample(), back;
	r.path = path;
	held_name_format(&r, "1-2-3");
	cr_assert(r.side);
	cr_assert_lt(strlen(r.name), HELD_NAME_MAX);
	cr_assert(held_name_parse(r.name, &back));
	cr_assert(back.side);
	cr_assert_null(back.path);
	char file[HELD_NAME_MAX + 16], name[HELD_NAME_MAX];
	snprintf(file, sizeof file, "%s" HELD_SIDE_SUFFIX, r.name);
	cr_assert_not(held_is_record(file), "a side file is no record");
	cr_assert(held_side_entry(file, name));
	cr_assert_str_eq(name, r.name);
}

/* Anything but a name held_name_format writes is no record. */
Test(held_name, other_names_are_no_records)
{
	const char *bad[] = {
		"h2~0~1~2~3~4~n~",	      /* valid: its path in a side file */
		"h2~0~1~2~3~4~~+x",	      /* no nonce */
		"h2~0~1~2~3~~n~+x",	      /* a field missing */
		"h2~0~1~2~3~4~n~x",	      /* a path not starting with '/' */
		"h2~0~1~2~3~4~n~+a%2",	      /* a cut escape */
		"h2~0~1~2~3~4~n~+a%00",	      /* a NUL */
		"h2~0~1~2~3~4~n~+a%41",	      /* a byte that needs no escape */
		"h2~x~1~2~3~4~n~+x",	      /* not a number */
		"h2~4294967295~1~2~3~4~n~+x", /* no uid */
		"h1~0~1~2~3~4~n~+x",
		"stranger",
		"lock",
	};
	struct held_record r;
	cr_assert(held_name_parse(bad[0], &r));
	cr_assert(r.side);
	for (size_t i = 1; i < sizeof bad / sizeof *bad; i++)
		cr_assert_not(held_name_parse(bad[i], &r), "%s parsed", bad[i]);
}

/* A side file is written once, read back, and a lost one still lets the
 * entry be read as a record. */
Test(held_name, side_file_written_and_read_back)
{
	char dir[] = "/tmp/held-unit.XXXXXX", path[400];
	cr_assert_not_null(mkdtemp(dir));
	int fd = open(dir, O_RDONLY | O_DIRECTORY);
	memset(path, 'y', sizeof path - 1);
	path[0] = '/';
	path[sizeof path - 1] = '\0';
	struct held_record r = sample(), back;
	r.path = path;
	held_name_format(&r, "1-2-3");
	cr_assert_eq(held_side_write(fd, &r), 0);
	cr_assert_eq(held_side_write(fd, &r), EEXIST);
	cr_assert_eq(held_entry_read(fd, r.name, &back), 0);
	cr_assert_str_eq(back.path, path);
	held_record_remove(fd, &back);
	held_record_free(&back);
	cr_assert_eq(held_entry_read(fd, r.name, &back), 0, "the side file lost");
	cr_assert_not_null(back.path);
	held_record_free(&back);
	cr_assert_eq(held_entry_read(fd, "stranger", &back), ENOENT);
	close(fd);
	cr_assert_eq(rmdir(dir), 0, "nothing else was left in the place");
}

static struct polite_out decide(struct polite_in in)
{
	struct polite_out out;
	polite_decide(&in, &out);
	return out;
}

Test(polite, full_speed_while_nobody_else_uses_the_device)
{
	struct polite_out o = decide((struct polite_in){ .have_device = true });
	cr_assert_eq(o.interval_ns, 0);
	cr_assert_eq(o.threads, 0, "the controller's workers, as in the foreground");
	cr_assert_not(o.idle_io, "the foreground's I/O class");
	cr_assert_not(o.backing_off);
}

Test(polite, backs_off_while_others_read_and_doubles)
{
	struct polite_in in = { .have_device = true,
				.others_read_bps = 10 * POLITE_OTHERS_BYTES_PER_S };
	struct polite_out o = decide(in);
	cr_assert(o.backing_off);
	cr_assert_eq(o.threads, 1);
	cr_assert(o.idle_io);
	cr_assert_eq(o.interval_ns, POLITE_MIN_BACKOFF_NS);
	in.interval_ns = o.interval_ns;
	cr_assert_eq(decide(in).interval_ns, 2 * POLITE_MIN_BACKOFF_NS);
	in.interval_ns = POLITE_MAX_INTERVAL_NS;
	cr_assert_eq(decide(in).interval_ns, POLITE_MAX_INTERVAL_NS, "capped");
}

Test(polite, backs_off_when_its_own_unlinks_slow_down)
{
	struct polite_in in = { .have_device = true,
				.others_seen = true,
				.own_latency_ns = 50000,
				.floor_latency_ns = 10000 };
	cr_assert(decide(in).backing_off);
	in.others_seen = false;
	cr_assert_not(decide(in).backing_off, "nobody else on the device: our own journal");
	in.others_seen = true;
	in.own_latency_ns = 20000;
	cr_assert_not(decide(in).backing_off, "twice the floor is no sign of harm");
	in.have_device = false;
	in.others_read_bps = 100 * POLITE_OTHERS_BYTES_PER_S;
	cr_assert_not(decide(in).backing_off, "device counters unread: ignored");
	in.own_latency_ns = 50000;
	cr_assert(decide(in).backing_off, "nor can it tell whose the device is: its latency counts");
	in.in_memory = true;
	cr_assert_not(decide(in).backing_off, "tmpfs has no device anyone waits on");
}

Test(polite, eases_back_and_keeps_max_ops)
{
	struct polite_in in = { .interval_ns = 8 * POLITE_MIN_BACKOFF_NS };
	struct polite_out o = decide(in);
	cr_assert_eq(o.interval_ns, 4 * POLITE_MIN_BACKOFF_NS);
	cr_assert_eq(o.threads, 1);
	cr_assert(o.idle_io, "still easing back");
	in.interval_ns = POLITE_MIN_BACKOFF_NS / 8;
	cr_assert_eq(decide(in).interval_ns, 0);
	cr_assert_eq(decide(in).threads, 0, "back to the controller");
	cr_assert_not(decide(in).idle_io);
	in.min_interval_ns = 5000000;
	cr_assert_eq(decide(in).interval_ns, 5000000, "--max-ops stays the floor");
}

/* --max-ops's pacing is not a back-off: fed back as the next tick's pacing
 * it would keep the deleter in the idle classes with nobody else around. */
Test(polite, max_ops_alone_is_no_back_off)
{
	struct polite_in in = { .have_device = true, .min_interval_ns = 10000000 };
	for (int tick = 0; tick < 4; tick++) {
		struct polite_out o = decide(in);
		cr_assert_eq(o.interval_ns, 10000000, "tick %d", tick);
		cr_assert_not(o.idle_io, "tick %d: the normal classes", tick);
		cr_assert_eq(o.threads, 0, "tick %d: the controller's workers", tick);
		in.interval_ns = o.paced_ns;
	}
}

#define TICK_NS 100000000ull

/* Ticks from *NOW every TICK_NS until END, each with OTHERS flushes: the
 * last action. */
static enum polite_action ticks_until(struct polite_sync *s, uint64_t *now, uint64_t end,
				      uint64_t others)
{
	enum polite_action a = POLITE_GO;
	for (; *now < end; *now += TICK_NS)
		a = polite_sync_step(s, *now, others);
	return a;
}

Test(polite_sync, runs_beside_timer_commits_alone)
{
	struct polite_sync s = { 0 };
	/* One commit every five seconds, as its own dirt makes: a few flushes
	 * at once, spilling into the next tick. */
	for (uint64_t now = TICK_NS; now < 60 * 1000000000ull; now += TICK_NS) {
		uint64_t phase = now % 5000000000ull;
		uint64_t n = phase == 0 ? 4 : phase == TICK_NS ? 2 : 0;
		cr_assert_eq(polite_sync_step(&s, now, n), POLITE_GO);
	}
	cr_assert_eq(s.state, POLITE_RUN);
	cr_assert_eq(s.yields, 0);
}

Test(polite_sync, yields_to_others_syncs_within_the_window)
{
	struct polite_sync s = { 0 };
	uint64_t now = TICK_NS;
	cr_assert_eq(polite_sync_step(&s, now, 2), POLITE_GO, "one commit is no workload");
	now += 3 * TICK_NS;
	cr_assert_eq(polite_sync_step(&s, now, 2), POLITE_GO, "nor two");
	now += 3 * TICK_NS;
	cr_assert_eq(polite_sync_step(&s, now, 1), POLITE_HOLD, "three within a second may be");
	cr_assert_eq(s.state, POLITE_PROBE, "held, to see whose they are");
	for (int i = 1; i < POLITE_PROBE_TICKS; i++) {
		now += TICK_NS;
		cr_assert_eq(polite_sync_step(&s, now, 2), POLITE_HOLD);
		cr_assert_eq(s.state, POLITE_PROBE);
	}
	now += TICK_NS;
	cr_assert_eq(polite_sync_step(&s, now, 2), POLITE_HOLD, "they go on while it holds");
	cr_assert_eq(s.state, POLITE_YIELD);
	cr_assert_eq(s.yields, 1);
	cr_assert_eq(s.probe_ns, POLITE_PROBE_TICKS * TICK_NS, "the probe's time apart");
	cr_assert_eq(s.own_probes, 0);

	struct polite_sync apart = { 0 };
	for (uint64_t i = 1; i <= 3; i++)
		cr_assert_eq(polite_sync_step(&apart, i * POLITE_SYNC_WINDOW_NS / 2, 50), POLITE_GO,
			     "commits half a window apart do not add up, however many flushes");
}

Test(polite_sync, bursts_once_a_period_while_others_keep_syncing)
{
	struct polite_sync s = { 0 };
	uint64_t now = TICK_NS;
	cr_assert_eq(ticks_until(&s, &now, 3 * TICK_NS, 20), POLITE_GO);
	cr_assert_eq(polite_sync_step(&s, now, 20), POLITE_HOLD, "the third tick's flushes");
	uint64_t start = now, bursts = 0;
	for (now += TICK_NS; now < start + 10 * POLITE_BURST_PERIOD_NS; now += TICK_NS) {
		enum polite_action a = polite_sync_step(&s, now, 20);
		cr_assert_neq(a, POLITE_GO, "never full speed while they sync");
		bursts += a == POLITE_BURST;
	}
	cr_assert_eq(bursts, 9, "one burst a period after the first");
	cr_assert_eq(s.yields, 1, "one yield all along");
}

Test(polite_sync, full_speed_again_after_a_quiet_period)
{
	struct polite_sync s = { 0 };
	uint64_t now = TICK_NS, yielded = (3 + POLITE_PROBE_TICKS) * TICK_NS;
	cr_assert_eq(ticks_until(&s, &now, yielded + TICK_NS, 8), POLITE_HOLD);
	cr_assert_eq(s.state, POLITE_YIELD);
	cr_assert_neq(ticks_until(&s, &now, yielded + POLITE_QUIET_NS, 0), POLITE_GO,
		      "still yielding within the quiet period");
	cr_assert_eq(polite_sync_step(&s, now, 0), POLITE_GO);
	cr_assert_eq(s.state, POLITE_RUN);
	cr_assert_eq(s.yield_ns, now - yielded, "the yield's time is counted");
	/* A flush now and then is no sync workload: no new yield. */
	now += TICK_NS;
	cr_assert_eq(polite_sync_step(&s, now, 0), POLITE_GO);
	cr_assert_eq(ticks_until(&s, &now, now + 2 * POLITE_SYNC_WINDOW_NS, 0), POLITE_GO);
	cr_assert_eq(s.yields, 1);
}

Test(polite_sync, runs_on_when_the_flushes_stop_as_it_holds)
{
	struct polite_sync s = { 0 };
	uint64_t now = TICK_NS;
	/* Its own journal-full commits, a tick apart, while it deletes. */
	cr_assert_eq(ticks_until(&s, &now, 3 * TICK_NS, 4), POLITE_GO);
	uint64_t probed = now;
	cr_assert_eq(polite_sync_step(&s, now, 4), POLITE_HOLD);
	cr_assert_eq(s.state, POLITE_PROBE);
	/* Held: the commit carrying what it dirtied, then nothing. */
	now += TICK_NS;
	cr_assert_eq(polite_sync_step(&s, now, 3), POLITE_HOLD);
	uint64_t last = now;
	now += TICK_NS;
	cr_assert_eq(ticks_until(&s, &now, last + POLITE_PROBE_QUIET_NS, 0), POLITE_HOLD);
	cr_assert_eq(polite_sync_step(&s, now, 0), POLITE_GO, "its own: full speed again");
	cr_assert_eq(s.state, POLITE_RUN);
	cr_assert_eq(s.yields, 0, "no yield");
	cr_assert_eq(s.own_probes, 1);
	cr_assert_eq(s.probe_ns, now - probed);
	cr_assert_eq(s.own_ticks, 4, "learned: its own reach three ticks, and a margin");

	/* The same rate again is no reason for another probe, nor a tick
	 * more; two more are. */
	now += POLITE_SYNC_WINDOW_NS;
	uint64_t end = now + 4 * TICK_NS;
	cr_assert_eq(ticks_until(&s, &now, end, 4), POLITE_GO);
	cr_assert_eq(ticks_until(&s, &now, now + POLITE_SYNC_WINDOW_NS, 0), POLITE_GO);
	cr_assert_eq(ticks_until(&s, &now, now + 4 * TICK_NS, 4), POLITE_GO);
	cr_assert_eq(polite_sync_step(&s, now, 4), POLITE_HOLD, "a fifth tick in the window");
	cr_assert_eq(s.probes, 2);
}

Test(polite_sync, hears_a_sync_every_tick_whatever_it_learned)
{
	struct polite_sync s = { .own_ticks = POLITE_SYNC_RING };
	uint64_t now = TICK_NS;
	cr_assert_eq(ticks_until(&s, &now, POLITE_SYNC_MAX_TICKS * TICK_NS, 2), POLITE_GO);
	cr_assert_eq(polite_sync_step(&s, now, 2), POLITE_HOLD);
	cr_assert_eq(s.state, POLITE_PROBE);
	now += TICK_NS;
	cr_assert_eq(ticks_until(&s, &now, now + POLITE_PROBE_TICKS * TICK_NS, 2), POLITE_HOLD);
	cr_assert_eq(s.state, POLITE_YIELD, "flushes every tick while it holds: others'");
}

Test(polite_sync, a_slow_sync_rate_the_window_hears_is_heard_by_the_probe)
{
	/* Others' syncs three ticks apart: the window's threshold hears them,
	 * and the probe's quiet never lasts long enough to call them ours. */
	struct polite_sync s = { 0 };
	uint64_t now = TICK_NS;
	enum polite_action a = POLITE_GO;
	for (int i = 0; i < 30 && s.state != POLITE_YIELD; i++, now += TICK_NS)
		a = polite_sync_step(&s, now, i % 3 == 0 ? 2 : 0);
	cr_assert_eq(s.state, POLITE_YIELD);
	cr_assert_eq(a, POLITE_HOLD);
	cr_assert_eq(s.own_probes, 0);
}

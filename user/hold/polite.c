// SPDX-License-Identifier: GPL-3.0-or-later
#include "hold/polite.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/btrfs.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static bool hurting(const struct polite_in *in)
{
	/* Slower unlinks there are the memory's or the CPU's, which nice 19
	 * already yields. */
	if (in->in_memory)
		return false;
	if (in->have_device && in->others_read_bps > POLITE_OTHERS_BYTES_PER_S)
		return true;
	if (in->have_device && !in->others_seen)
		return false;
	return in->own_latency_ns && in->floor_latency_ns &&
	       in->own_latency_ns > POLITE_LATENCY_FACTOR * in->floor_latency_ns;
}

void polite_decide(const struct polite_in *in, struct polite_out *out)
{
	uint64_t iv = in->interval_ns;
	out->backing_off = hurting(in);
	if (out->backing_off) {
		/* Double the pause between operations: others win the device. */
		iv = iv < POLITE_MIN_BACKOFF_NS ? POLITE_MIN_BACKOFF_NS : iv * 2;
		if (iv > POLITE_MAX_INTERVAL_NS)
			iv = POLITE_MAX_INTERVAL_NS;
		out->threads = 1;
	} else {
		/* Halve it back: nobody is hurt, so go towards full speed,
		 * which is the foreground's: the controller's workers. */
		iv /= 2;
		if (iv < POLITE_MIN_BACKOFF_NS / 8)
			iv = 0;
		out->threads = iv ? 1 : 0;
	}
	out->idle_io = iv != 0;
	out->paced_ns = iv;
	if (iv < in->min_interval_ns)
		iv = in->min_interval_ns;
	out->interval_ns = iv;
}

/* Ticks in the window ending at NOW that saw others' flushes, this one's
 * included. */
static unsigned window_ticks(const struct polite_sync *s, uint64_t now)
{
	unsigned n = 0;
	for (unsigned i = 0; i < POLITE_SYNC_RING; i++)
		n += s->at_ns[i] && now - s->at_ns[i] < POLITE_SYNC_WINDOW_NS && s->flushes[i];
	return n;
}

/* The 16 bytes of ID as a UUID's text. */
static void uuid_text(const unsigned char *id, char out[37])
{
	char *p = out;
	for (int i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			*p++ = '-';
		p += sprintf(p, "%02x", id[i]);
	}
}

/* The ticks a window needs for a probe: more than our own flushes reach. */
static unsigned sync_threshold(const struct polite_sync *s)
{
	unsigned n = s->own_ticks + 1;
	if (n < POLITE_SYNC_MIN_TICKS)
		n = POLITE_SYNC_MIN_TICKS;
	return n > POLITE_SYNC_MAX_TICKS ? POLITE_SYNC_MAX_TICKS : n;
}

static enum polite_action probe_step(struct polite_sync *s, uint64_t now, uint64_t others)
{
	s->probe_ticks += others != 0;
	if (s->probe_ticks >= POLITE_PROBE_TICKS) {
		/* Flushes while we are quiet: others sync. */
		s->probe_ns += now - s->since_ns;
		s->state = POLITE_YIELD;
		s->since_ns = s->last_burst_ns = now;
		s->yields++;
		return POLITE_HOLD;
	}
	uint64_t quiet = s->last_flush_ns > s->since_ns ? s->last_flush_ns : s->since_ns;
	if (now - quiet < POLITE_PROBE_QUIET_NS)
		return POLITE_HOLD;
	/* They stopped when we did: ours. */
	s->probe_ns += now - s->since_ns;
	s->own_probes++;
	/* A tick of margin: each probe costs a hold, and our own rate
	 * climbs with the journal's fill, a tick at a time. */
	if (s->trigger_ticks + 1 > s->own_ticks)
		s->own_ticks = s->trigger_ticks + 1;
	s->state = POLITE_RUN;
	return POLITE_GO;
}

static enum polite_action yield_step(struct polite_sync *s, uint64_t now)
{
	if (now - s->last_flush_ns >= POLITE_QUIET_NS) {
		s->state = POLITE_RUN;
		s->yield_ns += now - s->since_ns;
		return POLITE_GO;
	}
	if (now - s->last_burst_ns < POLITE_BURST_PERIOD_NS)
		return POLITE_HOLD;
	s->last_burst_ns = now;
	return POLITE_BURST;
}

enum polite_action polite_sync_step(struct polite_sync *s, uint64_t now, uint64_t others)
{
	s->at_ns[s->pos] = now;
	s->flushes[s->pos] = others;
	s->pos = (s->pos + 1) % POLITE_SYNC_RING;
	if (others)
		s->last_flush_ns = now;
	if (s->state == POLITE_PROBE)
		return probe_step(s, now, others);
	if (s->state == POLITE_YIELD)
		return yield_step(s, now);
	unsigned n = window_ticks(s, now);
	if (n < sync_threshold(s))
		return POLITE_GO;
	s->state = POLITE_PROBE;
	s->since_ns = now;
	s->trigger_ticks = n;
	s->probe_ticks = 0;
	s->probes++;
	return POLITE_HOLD;
}

/* Fields 3 and 16 of the stat file PATH: read sectors and completed
 * flushes, added to *SECTORS and *FLUSHES. */
static bool stat_file(const char *path, uint64_t *sectors, uint64_t *flushes)
{
	FILE *fp = fopen(path, "re");
	if (!fp)
		return false;
	uint64_t f[16];
	int n = 0;
	while (n < 16 && fscanf(fp, "%" SCNu64, &f[n]) == 1)
		n++;
	fclose(fp);
	if (n < 3 || (flushes && n < 16))
		return false;
	if (sectors)
		*sectors += f[2];
	if (flushes)
		*flushes += f[15];
	return true;
}

static bool device_stat(const struct polite_device *pd, uint64_t *sectors, uint64_t *flushes)
{
	if (sectors)
		*sectors = 0;
	if (flushes)
		*flushes = 0;
	for (unsigned i = 0; i < pd->n; i++)
		if (!stat_file(pd->stat[i], sectors, flushes))
			return false;
	return pd->n > 0;
}

/* A btrfs's devices, from its fsid: /sys/fs/btrfs/FSID/devices/NAME links
 * to each block device's directory. */
static void btrfs_devices(int fd, struct polite_device *pd)
{
	struct btrfs_ioctl_fs_info_args fi;
	memset(&fi, 0, sizeof fi);
	if (ioctl(fd, BTRFS_IOC_FS_INFO, &fi) < 0)
		return;
	char uuid[37], dir[96];
	uuid_text(fi.fsid, uuid);
	snprintf(dir, sizeof dir, "/sys/fs/btrfs/%s/devices", uuid);
	DIR *d = opendir(dir);
	struct dirent *de;
	while (d && (de = readdir(d)) && pd->n < POLITE_MAX_DEVICES) {
		if (de->d_name[0] == '.')
			continue;
		char *path = pd->stat[pd->n];
		snprintf(path, sizeof pd->stat[0], "%s/%.24s/stat", dir, de->d_name);
		pd->n += access(path, R_OK) == 0;
	}
	if (d)
		closedir(d);
}

bool polite_device_find(int fd, dev_t dev, struct polite_device *pd)
{
	pd->n = 0;
	snprintf(pd->stat[0], sizeof pd->stat[0], "/sys/dev/block/%u:%u/stat", major(dev),
		 minor(dev));
	if (access(pd->stat[0], R_OK) == 0)
		pd->n = 1;
	else
		btrfs_devices(fd, pd);
	uint64_t sectors;
	return device_stat(pd, &sectors, NULL);
}

bool polite_device_reads(const struct polite_device *pd, uint64_t *sectors)
{
	return device_stat(pd, sectors, NULL);
}

bool polite_device_flushes(const struct polite_device *pd, uint64_t *flushes)
{
	return device_stat(pd, NULL, flushes);
}

bool polite_own_reads(uint64_t *bytes)
{
	FILE *fp = fopen("/proc/self/io", "re");
	if (!fp)
		return false;
	char line[128];
	bool ok = false;
	while (fgets(line, sizeof line, fp))
		if (sscanf(line, "read_bytes: %" SCNu64, bytes) == 1)
			ok = true;
	fclose(fp);
	return ok;
}

bool polite_runq_ns(uint64_t *ns)
{
	DIR *dir = opendir("/proc/self/task");
	if (!dir)
		return false;
	uint64_t sum = 0;
	bool ok = false;
	struct dirent *de;
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		char path[64];
		snprintf(path, sizeof path, "/proc/self/task/%.20s/schedstat", de->d_name);
		FILE *fp = fopen(path, "re");
		uint64_t run, wait;
		if (fp && fscanf(fp, "%" SCNu64 " %" SCNu64, &run, &wait) == 2) {
			sum += wait;
			ok = true;
		}
		if (fp)
			fclose(fp);
	}
	closedir(dir);
	*ns = sum;
	return ok;
}

bool polite_cpu_idle(bool idle)
{
	DIR *dir = opendir("/proc/self/task");
	if (!dir)
		return false;
	struct sched_param sp = { .sched_priority = 0 };
	bool ok = true;
	struct dirent *de;
	while ((de = readdir(dir)))
		if (de->d_name[0] != '.' &&
		    sched_setscheduler(atoi(de->d_name), idle ? SCHED_IDLE : SCHED_OTHER, &sp) < 0 &&
		    errno != ESRCH)
			ok = false;
	closedir(dir);
	return ok;
}

#define TRY_STACK (64u << 10)

static void *try_idle_and_back(void *arg)
{
	struct sched_param sp = { .sched_priority = 0 };
	*(bool *)arg = sched_setscheduler(0, SCHED_IDLE, &sp) == 0 &&
		       sched_setscheduler(0, SCHED_OTHER, &sp) == 0;
	return NULL;
}

bool polite_cpu_idle_reversible(void)
{
	bool ok = false;
	pthread_t th;
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	/* A small stack: glibc keeps an ended thread's stack mapped for the
	 * next one, and under an address-space limit a default one (8 MiB)
	 * would be taken from the walk's room for good. */
	pthread_attr_setstacksize(&attr, TRY_STACK);
	int rc = pthread_create(&th, &attr, try_idle_and_back, &ok);
	pthread_attr_destroy(&attr);
	if (rc != 0)
		return false;
	pthread_join(th, NULL);
	return ok;
}

#include "hold/polite.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/sysmacros.h>

static bool hurting(const struct polite_in *in)
{
	if (in->have_device && in->others_read_bps > POLITE_OTHERS_BYTES_PER_S)
		return true;
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
	if (iv < in->min_interval_ns)
		iv = in->min_interval_ns;
	out->interval_ns = iv;
}

bool polite_device_reads(dev_t dev, uint64_t *sectors)
{
	char path[64];
	snprintf(path, sizeof path, "/sys/dev/block/%u:%u/stat", major(dev), minor(dev));
	FILE *fp = fopen(path, "re");
	if (!fp)
		return false;
	uint64_t ios, merges, sect;
	bool ok = fscanf(fp, "%" SCNu64 " %" SCNu64 " %" SCNu64, &ios, &merges, &sect) == 3;
	fclose(fp);
	if (ok)
		*sectors = sect;
	return ok;
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

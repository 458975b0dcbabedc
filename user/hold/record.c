// SPDX-License-Identifier: GPL-3.0-or-later
#include "hold/record.h"
#include "lib/fdio.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RECORD_MAGIC "adaptrm-held 1"
#define RECORD_MAX 16384

bool held_name_ok(const char *name)
{
	size_t n = strlen(name);
	if (n == 0 || n >= HELD_NAME_MAX || name[0] == '.')
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = name[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || strchr("-_.~+%", c);
		if (!ok)
			return false;
	}
	return true;
}

/* A path may hold any byte but NUL: newlines and backslashes are escaped so
 * that the record stays one field per line. */
static void add_escaped(struct strbuf *sb, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			sb_adds(sb, "\\\\");
		else if (*s == '\n')
			sb_adds(sb, "\\n");
		else
			sb_addc(sb, *s);
	}
}

void held_record_format(const struct held_record *r, struct strbuf *sb)
{
	sb_addf(sb,
		"%s\nname %s\nuid %u\ntime %" PRId64 "\ndev %" PRIu64 "\nino %" PRIu64
		"\nsize %" PRIu64 "\npath ",
		RECORD_MAGIC, r->name, (unsigned)r->uid, r->time, r->dev, r->ino, r->size);
	add_escaped(sb, r->path ? r->path : "");
	sb_adds(sb, "\nend\n");
}

static bool unescape(const char *s, size_t n, char **out)
{
	char *p = xmalloc(n + 1), *q = p;
	for (size_t i = 0; i < n; i++) {
		if (s[i] != '\\') {
			*q++ = s[i];
			continue;
		}
		if (++i == n || (s[i] != '\\' && s[i] != 'n')) {
			free(p);
			return false;
		}
		*q++ = s[i] == 'n' ? '\n' : '\\';
	}
	*q = '\0';
	*out = p;
	return true;
}

static bool parse_u64(const char *s, size_t n, uint64_t *v)
{
	if (n == 0 || n > 20)
		return false;
	uint64_t x = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9' || x > (UINT64_MAX - 9) / 10)
			return false;
		x = x * 10 + (uint64_t)(s[i] - '0');
	}
	*v = x;
	return true;
}

enum { F_NAME = 1, F_UID = 2, F_TIME = 4, F_DEV = 8, F_INO = 16, F_SIZE = 32, F_PATH = 64 };
#define F_ALL 127

/* One "key value" line into R; the bit of the field it set, or 0. */
static int parse_field(const char *line, size_t n, struct held_record *r)
{
	const char *sp = memchr(line, ' ', n);
	if (!sp)
		return 0;
	size_t k = (size_t)(sp - line), vn = n - k - 1;
	const char *v = sp + 1;
	uint64_t x;
	if (k == 4 && !memcmp(line, "name", 4)) {
		if (vn >= HELD_NAME_MAX)
			return 0;
		memcpy(r->name, v, vn);
		r->name[vn] = '\0';
		return held_name_ok(r->name) ? F_NAME : 0;
	}
	if (k == 4 && !memcmp(line, "path", 4))
		return !r->path && vn && unescape(v, vn, &r->path) ? F_PATH : 0;
	if (!parse_u64(v, vn, &x))
		return 0;
	if (k == 3 && !memcmp(line, "uid", 3) && x < UINT32_MAX)
		return r->uid = (uid_t)x, F_UID;
	if (k == 4 && !memcmp(line, "time", 4) && x < INT64_MAX)
		return r->time = (int64_t)x, F_TIME;
	if (k == 3 && !memcmp(line, "dev", 3))
		return r->dev = x, F_DEV;
	if (k == 3 && !memcmp(line, "ino", 3))
		return r->ino = x, F_INO;
	if (k == 4 && !memcmp(line, "size", 4))
		return r->size = x, F_SIZE;
	return 0;
}

bool held_record_parse(const char *text, size_t len, struct held_record *r)
{
	*r = (struct held_record){ 0 };
	size_t ml = strlen(RECORD_MAGIC);
	if (len < ml + 1 || memcmp(text, RECORD_MAGIC "\n", ml + 1) != 0 || memchr(text, 0, len))
		return false;
	int seen = 0;
	const char *p = text + ml + 1, *end = text + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			break;
		size_t n = (size_t)(nl - p);
		if (n == 3 && !memcmp(p, "end", 3) && nl + 1 == end && seen == F_ALL)
			return true;
		int bit = parse_field(p, n, r);
		if (!bit || (seen & bit))
			break;
		seen |= bit;
		p = nl + 1;
	}
	held_record_free(r);
	return false;
}

void held_record_free(struct held_record *r)
{
	free(r->path);
	r->path = NULL;
}

int held_record_write(int placefd, const struct held_record *r)
{
	char tmp[HELD_NAME_MAX + 16], file[HELD_NAME_MAX + 16];
	snprintf(tmp, sizeof tmp, ".%s.tmp", r->name);
	snprintf(file, sizeof file, "%s" HELD_RECORD_SUFFIX, r->name);
	int fd = openat(placefd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return errno;
	struct strbuf sb = STRBUF_INIT;
	held_record_format(r, &sb);
	int err = write_all(fd, sb_str(&sb), sb.len);
	sb_free(&sb);
	if (!err && fsync(fd) < 0)
		err = errno;
	close(fd);
	/* The record's bytes are durable before the entry moves, or a crash
	 * could keep the rename and lose the record: an entry held forever.
	 * Its rename needs no sync of its own: a journaling filesystem commits
	 * it no later than the entry's rename, which comes after it. */
	if (!err && renameat2(placefd, tmp, placefd, file, RENAME_NOREPLACE) < 0)
		err = errno;
	if (err)
		unlinkat(placefd, tmp, 0);
	return err;
}

int held_record_read(int placefd, const char *file, struct held_record *r)
{
	int fd = openat(placefd, file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return errno;
	char *buf = xmalloc(RECORD_MAX);
	size_t len = 0;
	ssize_t n;
	while (len < RECORD_MAX && (n = read(fd, buf + len, RECORD_MAX - len)) > 0)
		len += (size_t)n;
	close(fd);
	bool ok = len < RECORD_MAX && held_record_parse(buf, len, r);
	free(buf);
	if (!ok)
		return EINVAL;
	/* The file's name and the name inside must agree. */
	size_t nl = strlen(r->name);
	if (strncmp(file, r->name, nl) != 0 || strcmp(file + nl, HELD_RECORD_SUFFIX) != 0) {
		held_record_free(r);
		return EINVAL;
	}
	return 0;
}

void held_record_remove(int placefd, const struct held_record *r)
{
	char file[HELD_NAME_MAX + 16];
	if (r->in_name && !r->side)
		return;
	snprintf(file, sizeof file, "%s%s", r->name,
		 r->in_name ? HELD_SIDE_SUFFIX : HELD_RECORD_SUFFIX);
	unlinkat(placefd, file, 0);
}

static bool path_byte_plain(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '_' || c == '.';
}

/* A path as a name's last field: '/' as '+', other bytes than letters,
 * digits and "-_." as %XX, so that the field holds no '/' and no '~'. */
static void add_name_escaped(struct strbuf *sb, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '/')
			sb_addc(sb, '+');
		else if (path_byte_plain(c))
			sb_addc(sb, (char)c);
		else
			sb_addf(sb, "%%%02X", c);
	}
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* The reverse of add_name_escaped; false for anything it would not write. */
static bool name_unescape(const char *s, char **out)
{
	size_t n = strlen(s);
	char *p = xmalloc(n + 1), *q = p;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		int hi = c == '%' ? hexval(s[i + 1]) : -1;
		int lo = hi >= 0 ? hexval(s[i + 2]) : -1;
		if (c == '+')
			*q++ = '/';
		else if (path_byte_plain(c))
			*q++ = (char)c;
		else if (lo >= 0 && (hi || lo) && !path_byte_plain((unsigned char)(hi * 16 + lo)) &&
			 hi * 16 + lo != '/')
			*q++ = (char)(hi * 16 + lo), i += 2;
		else {
			free(p);
			return false;
		}
	}
	*q = '\0';
	*out = p;
	return true;
}

void held_name_format(struct held_record *r, const char *nonce)
{
	struct strbuf sb = STRBUF_INIT;
	sb_addf(&sb, HELD_NAME_PREFIX "%u~%" PRId64 "~%" PRIu64 "~%" PRIu64 "~%" PRIu64 "~%s~",
		(unsigned)r->uid, r->time, r->dev, r->ino, r->size, nonce);
	size_t fields = sb.len;
	add_name_escaped(&sb, r->path ? r->path : "");
	r->in_name = true;
	r->side = sb.len >= HELD_NAME_MAX || sb.len == fields;
	/* A path that does not fit is left out: the name still holds all the
	 * deleter needs, and the side file the path for --pending. */
	size_t n = r->side ? fields : sb.len;
	memcpy(r->name, sb_str(&sb), n);
	r->name[n] = '\0';
	sb_free(&sb);
}

/* The next '~'-ended field of *P as a number no larger than MAX. */
static bool name_field(const char **p, uint64_t max, uint64_t *v)
{
	const char *e = strchr(*p, '~');
	if (!e || !parse_u64(*p, (size_t)(e - *p), v) || *v > max)
		return false;
	*p = e + 1;
	return true;
}

bool held_name_parse(const char *name, struct held_record *r)
{
	*r = (struct held_record){ 0 };
	size_t pl = strlen(HELD_NAME_PREFIX);
	if (strlen(name) >= HELD_NAME_MAX || strncmp(name, HELD_NAME_PREFIX, pl))
		return false;
	const char *p = name + pl;
	uint64_t uid, time;
	if (!name_field(&p, UINT32_MAX - 1, &uid) || !name_field(&p, INT64_MAX - 1, &time) ||
	    !name_field(&p, UINT64_MAX, &r->dev) || !name_field(&p, UINT64_MAX, &r->ino) ||
	    !name_field(&p, UINT64_MAX, &r->size))
		return false;
	const char *e = strchr(p, '~');
	if (!e || e == p)
		return false;
	for (const char *c = p; c < e; c++)
		if (!path_byte_plain((unsigned char)*c))
			return false;
	const char *path = e + 1;
	r->side = *path == '\0';
	if (!r->side && (*path != '+' || !name_unescape(path, &r->path)))
		return false;
	r->uid = (uid_t)uid;
	r->time = (int64_t)time;
	r->in_name = true;
	strcpy(r->name, name);
	return true;
}

int held_side_write(int placefd, const struct held_record *r)
{
	char file[HELD_NAME_MAX + 16];
	snprintf(file, sizeof file, "%s" HELD_SIDE_SUFFIX, r->name);
	int fd = openat(placefd, file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return errno;
	int err = write_all(fd, r->path, strlen(r->path));
	close(fd);
	if (err)
		unlinkat(placefd, file, 0);
	return err;
}

/* The side file's path into R (a placeholder when it is lost: a crash may
 * keep the entry's rename and not the file's unsynced bytes). */
static void side_read(int placefd, struct held_record *r)
{
	char file[HELD_NAME_MAX + 16], *buf = xmalloc(RECORD_MAX);
	snprintf(file, sizeof file, "%s" HELD_SIDE_SUFFIX, r->name);
	int fd = openat(placefd, file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, RECORD_MAX - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n > 0 && buf[0] == '/' && !memchr(buf, 0, (size_t)n)) {
		buf[n] = '\0';
		r->path = buf;
		return;
	}
	free(buf);
	r->path = xstrdup("(a long path, not recorded)");
}

bool held_is_record(const char *file)
{
	size_t n = strlen(file), sl = strlen(HELD_RECORD_SUFFIX);
	if (file[0] == '.')
		return false;
	if (n > sl && !strcmp(file + n - sl, HELD_RECORD_SUFFIX))
		return true;
	struct held_record r;
	bool ok = held_name_parse(file, &r);
	held_record_free(&r);
	return ok;
}

int held_entry_read(int placefd, const char *file, struct held_record *r)
{
	size_t n = strlen(file), sl = strlen(HELD_RECORD_SUFFIX);
	if (file[0] == '.')
		return ENOENT;
	if (n > sl && !strcmp(file + n - sl, HELD_RECORD_SUFFIX))
		return held_record_read(placefd, file, r);
	if (!held_name_parse(file, r))
		return ENOENT;
	if (r->side)
		side_read(placefd, r);
	return 0;
}

bool held_side_entry(const char *file, char name[HELD_NAME_MAX])
{
	size_t n = strlen(file), sl = strlen(HELD_SIDE_SUFFIX);
	if (n <= sl || n - sl >= HELD_NAME_MAX || strcmp(file + n - sl, HELD_SIDE_SUFFIX))
		return false;
	memcpy(name, file, n - sl);
	name[n - sl] = '\0';
	struct held_record r;
	bool ok = held_name_parse(name, &r) && r.side;
	held_record_free(&r);
	return ok;
}

/* JSON writer and reader (see json.h). */
#include "lib/json.h"
#include "lib/xalloc.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void jw_init(struct json_writer *w, FILE *f)
{
	memset(w, 0, sizeof *w);
	w->f = f;
}

static void indent(struct json_writer *w)
{
	fputc('\n', w->f);
	for (int i = 0; i < w->depth; i++)
		fputs("  ", w->f);
}

static void put_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const void *)s; *p; p++) {
		switch (*p) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\t': fputs("\\t", f); break;
		case '\r': fputs("\\r", f); break;
		default:
			if (*p < 0x20)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f); /* UTF-8 passes through */
		}
	}
	fputc('"', f);
}

/* Comma, newline and key before a value at the current depth. */
static void prefix(struct json_writer *w, const char *key)
{
	if (w->depth > 0) {
		bool compact = w->compact[w->depth - 1];
		if (w->need_comma[w->depth - 1])
			fputs(compact ? ", " : ",", w->f);
		if (!compact)
			indent(w);
		w->need_comma[w->depth - 1] = true;
	}
	if (key) {
		put_string(w->f, key);
		fputs(": ", w->f);
	}
}

static void open_(struct json_writer *w, const char *key, char c, bool compact)
{
	prefix(w, key);
	fputc(c, w->f);
	if (w->depth < JSON_MAX_DEPTH) {
		w->depth++;
		w->need_comma[w->depth - 1] = false;
		w->compact[w->depth - 1] = compact || (w->depth > 1 && w->compact[w->depth - 2]);
		w->close[w->depth - 1] = c == '{' ? '}' : ']';
	}
}

void jw_object(struct json_writer *w, const char *key)
{
	open_(w, key, '{', false);
}
void jw_array(struct json_writer *w, const char *key)
{
	open_(w, key, '[', false);
}
void jw_array_compact(struct json_writer *w, const char *key)
{
	open_(w, key, '[', true);
}

void jw_end(struct json_writer *w)
{
	if (w->depth == 0)
		return;
	/* close on its own line unless compact or empty */
	bool compact = w->compact[w->depth - 1], had = w->need_comma[w->depth - 1];
	char c = w->close[w->depth - 1];
	w->depth--;
	if (!compact && had)
		indent(w);
	fputc(c, w->f);
}

void jw_string(struct json_writer *w, const char *key, const char *s)
{
	prefix(w, key);
	if (s)
		put_string(w->f, s);
	else
		fputs("null", w->f);
}

void jw_uint(struct json_writer *w, const char *key, uint64_t v)
{
	prefix(w, key);
	fprintf(w->f, "%llu", (unsigned long long)v);
}

void jw_int(struct json_writer *w, const char *key, int64_t v)
{
	prefix(w, key);
	fprintf(w->f, "%lld", (long long)v);
}

void jw_double(struct json_writer *w, const char *key, double v)
{
	prefix(w, key);
	if (isfinite(v))
		fprintf(w->f, "%.6g", v);
	else
		fputs("null", w->f);
}

void jw_bool(struct json_writer *w, const char *key, bool v)
{
	prefix(w, key);
	fputs(v ? "true" : "false", w->f);
}

void jw_null(struct json_writer *w, const char *key)
{
	prefix(w, key);
	fputs("null", w->f);
}

void jw_finish(struct json_writer *w)
{
	while (w->depth > 0)
		jw_end(w);
	fputc('\n', w->f);
}

/* ---- reader: recursive descent, depth-limited ---- */

struct parser {
	const char *s, *p;
	char *err;
	size_t errlen;
	bool failed;
};

static void fail(struct parser *ps, const char *what)
{
	if (ps->failed)
		return;
	int line = 1;
	for (const char *q = ps->s; q < ps->p; q++)
		line += *q == '\n';
	snprintf(ps->err, ps->errlen, "line %d: %s", line, what);
	ps->failed = true;
}

static void ws(struct parser *ps)
{
	while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r')
		ps->p++;
}

static struct json_value *value(struct parser *ps, int depth);

static char *string(struct parser *ps)
{
	size_t cap = 16, n = 0;
	char *out = malloc(cap);

	if (!out) {
		fail(ps, "out of memory");
		return NULL;
	}
	ps->p++; /* opening quote */
	while (*ps->p && *ps->p != '"') {
		char c = *ps->p++;
		unsigned cp = 0;
		if (c == '\\') {
			c = *ps->p++;
			switch (c) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case '"':
			case '\\':
			case '/': break;
			case 'u':
				for (int i = 0; i < 4; i++) {
					char h = *ps->p++;
					cp <<= 4;
					if (h >= '0' && h <= '9')
						cp |= h - '0';
					else if (h >= 'a' && h <= 'f')
						cp |= h - 'a' + 10;
					else if (h >= 'A' && h <= 'F')
						cp |= h - 'A' + 10;
					else {
						fail(ps, "bad \\u escape");
						free(out);
						return NULL;
					}
				}
				c = cp < 0x80 ? (char)cp : '?'; /* our files only escape controls */
				break;
			default:
				fail(ps, "bad escape");
				free(out);
				return NULL;
			}
		}
		if (!try_grow(&out, &cap, n + 2, 16)) {
			free(out);
			fail(ps, "out of memory");
			return NULL;
		}
		out[n++] = c;
	}
	if (*ps->p != '"') {
		fail(ps, "unterminated string");
		free(out);
		return NULL;
	}
	ps->p++;
	out[n] = '\0';
	return out;
}

static bool push(struct json_value *v, struct json_value *item, char *key)
{
	if ((v->n & (v->n - 1)) == 0) { /* grow at powers of two */
		size_t cap = v->n ? v->n * 2 : 1;
		struct json_value **ni = realloc(v->items, cap * sizeof *ni);
		if (!ni)
			return false;
		v->items = ni;
		if (v->type == JSON_OBJECT) {
			char **nk = realloc(v->keys, cap * sizeof *nk);
			if (!nk)
				return false;
			v->keys = nk;
		}
	}
	v->items[v->n] = item;
	if (v->type == JSON_OBJECT)
		v->keys[v->n] = key;
	v->n++;
	return true;
}

static struct json_value *container(struct parser *ps, int depth, bool obj)
{
	struct json_value *v = calloc(1, sizeof *v);

	if (!v) {
		fail(ps, "out of memory");
		return NULL;
	}
	v->type = obj ? JSON_OBJECT : JSON_ARRAY;
	ps->p++;
	ws(ps);
	if (*ps->p == (obj ? '}' : ']')) {
		ps->p++;
		return v;
	}
	for (;;) {
		char *key = NULL;
		ws(ps);
		if (obj) {
			if (*ps->p != '"') {
				fail(ps, "expected a key");
				break;
			}
			if (!(key = string(ps)))
				break;
			ws(ps);
			if (*ps->p != ':') {
				free(key);
				fail(ps, "expected ':'");
				break;
			}
			ps->p++;
		}
		struct json_value *item = value(ps, depth + 1);
		if (!item || !push(v, item, key)) {
			free(key);
			json_free(item);
			fail(ps, "out of memory");
			break;
		}
		ws(ps);
		if (*ps->p == ',') {
			ps->p++;
			continue;
		}
		if (*ps->p == (obj ? '}' : ']')) {
			ps->p++;
			return v;
		}
		fail(ps, obj ? "expected ',' or '}'" : "expected ',' or ']'");
		break;
	}
	json_free(v);
	return NULL;
}

static struct json_value *value(struct parser *ps, int depth)
{
	struct json_value *v;

	ws(ps);
	if (depth > 64) {
		fail(ps, "nested too deeply");
		return NULL;
	}
	if (*ps->p == '{' || *ps->p == '[')
		return container(ps, depth, *ps->p == '{');
	if (!(v = calloc(1, sizeof *v))) {
		fail(ps, "out of memory");
		return NULL;
	}
	if (*ps->p == '"') {
		v->type = JSON_STRING;
		if (!(v->str = string(ps))) {
			free(v);
			return NULL;
		}
	} else if (!strncmp(ps->p, "true", 4) || !strncmp(ps->p, "false", 5)) {
		v->type = JSON_BOOL;
		v->b = *ps->p == 't';
		ps->p += v->b ? 4 : 5;
	} else if (!strncmp(ps->p, "null", 4)) {
		v->type = JSON_NULL;
		ps->p += 4;
	} else if (*ps->p == '-' || (*ps->p >= '0' && *ps->p <= '9')) {
		char *end;
		v->type = JSON_NUMBER;
		errno = 0;
		v->num = strtod(ps->p, &end);
		if (end == ps->p) {
			free(v);
			fail(ps, "bad number");
			return NULL;
		}
		if (*ps->p != '-') {
			char *uend;
			unsigned long long u = strtoull(ps->p, &uend, 10);
			/* beyond 2^64 (or inf): the largest, not an undefined cast */
			v->u = uend == end	? u :
			       !(v->num > 0)	? 0 :
			       v->num >= 0x1p64 ? UINT64_MAX :
						  (uint64_t)v->num;
		}
		ps->p = end;
	} else {
		free(v);
		fail(ps, "unexpected character");
		return NULL;
	}
	return v;
}

struct json_value *json_parse(const char *text, char *err, size_t errlen)
{
	struct parser ps = { text, text, err, errlen, false };
	struct json_value *v = value(&ps, 0);

	if (v) {
		ws(&ps);
		if (*ps.p) {
			fail(&ps, "trailing characters");
			json_free(v);
			v = NULL;
		}
	}
	return v;
}

struct json_value *json_parse_file(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t len = 0;

	if (!f) {
		snprintf(err, errlen, "%s", strerror(errno));
		return NULL;
	}
	FILE *m = open_memstream(&buf, &len);
	char chunk[65536];
	size_t n;
	while (m && (n = fread(chunk, 1, sizeof chunk, f)) > 0)
		fwrite(chunk, 1, n, m);
	bool rerr = ferror(f);
	fclose(f);
	if (!m || fclose(m) || rerr) {
		free(buf);
		snprintf(err, errlen, "read error");
		return NULL;
	}
	struct json_value *v = json_parse(buf, err, errlen);
	free(buf);
	return v;
}

void json_free(struct json_value *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->n; i++) {
		json_free(v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->str);
	free(v);
}

const struct json_value *json_get(const struct json_value *v, const char *key)
{
	if (!v || v->type != JSON_OBJECT)
		return NULL;
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->keys[i], key))
			return v->items[i];
	return NULL;
}

uint64_t json_get_uint(const struct json_value *v, const char *key, uint64_t dflt)
{
	const struct json_value *m = json_get(v, key);
	return m && m->type == JSON_NUMBER ? m->u : dflt;
}

double json_get_num(const struct json_value *v, const char *key, double dflt)
{
	const struct json_value *m = json_get(v, key);
	return m && m->type == JSON_NUMBER ? m->num : dflt;
}

const char *json_get_str(const struct json_value *v, const char *key, const char *dflt)
{
	const struct json_value *m = json_get(v, key);
	return m && m->type == JSON_STRING ? m->str : dflt;
}

// SPDX-License-Identifier: GPL-3.0-or-later
/* JSON writer and reader (see json.h). */
#include "lib/json.h"
#include "lib/xalloc.h"

#include <errno.h>
#include <json-c/json.h>
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

/* ---- reader: json-c parses, its tree is copied into ours ----
 *
 * The files read here come from outside (--compare's traces, the profile
 * store), so a well-kept and widely fuzzed parser reads them; the copy keeps
 * the callers' plain walk over items and keys. */

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

static struct json_value *convert(struct json_object *o);

static bool add_item(struct json_value *v, struct json_object *o, const char *key)
{
	struct json_value *item = convert(o);
	char *k = key ? strdup(key) : NULL;

	if (item && (!key || k) && push(v, item, k))
		return true;
	json_free(item);
	free(k);
	return false;
}

/* Members or elements in their order in the file (json-c keeps the last of
 * duplicate keys). */
static bool fill(struct json_value *v, struct json_object *o)
{
	if (v->type == JSON_OBJECT) {
		json_object_object_foreach(o, key, val)
		{
			if (!add_item(v, val, key))
				return false;
		}
		return true;
	}
	size_t n = json_object_array_length(o);
	for (size_t i = 0; i < n; i++)
		if (!add_item(v, json_object_array_get_idx(o, i), NULL))
			return false;
	return true;
}

/* NUM for every number; U exact for a non-negative integer, else the double
 * clamped to 0..2^64-1 rather than an undefined cast. */
static void set_number(struct json_value *v, struct json_object *o)
{
	v->type = JSON_NUMBER;
	if (json_object_is_type(o, json_type_int) && json_object_get_int64(o) < 0) {
		v->num = (double)json_object_get_int64(o);
	} else if (json_object_is_type(o, json_type_int)) {
		v->u = json_object_get_uint64(o);
		v->num = (double)v->u;
	} else if (isnan(json_object_get_double(o))) {
		v->type = JSON_NULL; /* json-c's NaN is no JSON: as the writer's null */
	} else {
		v->num = json_object_get_double(o);
		v->u = !(v->num > 0) ? 0 : v->num >= 0x1p64 ? UINT64_MAX : (uint64_t)v->num;
	}
}

/* The json-c tree under O as ours; its depth is bounded by the tokener's. */
static struct json_value *convert(struct json_object *o)
{
	struct json_value *v = calloc(1, sizeof *v);

	if (!v)
		return NULL;
	switch (json_object_get_type(o)) {
	case json_type_null: v->type = JSON_NULL; break;
	case json_type_boolean:
		v->type = JSON_BOOL;
		v->b = json_object_get_boolean(o);
		break;
	case json_type_int:
	case json_type_double: set_number(v, o); break;
	case json_type_string:
		v->type = JSON_STRING;
		if (!(v->str = strdup(json_object_get_string(o)))) {
			free(v);
			return NULL;
		}
		break;
	case json_type_array:
	case json_type_object:
		v->type = json_object_is_type(o, json_type_object) ? JSON_OBJECT : JSON_ARRAY;
		if (!fill(v, o)) {
			json_free(v);
			return NULL;
		}
		break;
	}
	return v;
}

/* "invalid JSON at byte N (line L): what json-c found". */
static void parse_error(const char *text, size_t at, const char *what, char *err, size_t errlen)
{
	int line = 1;
	for (size_t i = 0; i < at && text[i]; i++)
		line += text[i] == '\n';
	snprintf(err, errlen, "invalid JSON at byte %zu (line %d): %s", at, line, what);
}

struct json_value *json_parse(const char *text, char *err, size_t errlen)
{
	size_t len = strlen(text);
	struct json_tokener *tok;

	if (len >= JSON_MAX_BYTES) {
		snprintf(err, errlen, "larger than %d bytes", JSON_MAX_BYTES);
		return NULL;
	}
	if (!(tok = json_tokener_new_ex(JSON_MAX_NESTING))) {
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		return NULL;
	}
	/* Strict: RFC 8259 only, and nothing but white space after the value.
	 * The terminating NUL is passed too so that a bare number ends. */
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	struct json_object *o = json_tokener_parse_ex(tok, text, (int)len + 1);
	enum json_tokener_error e = json_tokener_get_error(tok);
	struct json_value *v = NULL;
	if (e != json_tokener_success)
		parse_error(text, json_tokener_get_parse_end(tok),
			    json_tokener_error_desc(
				    e == json_tokener_continue ? json_tokener_error_parse_eof : e),
			    err, errlen);
	else if (!(v = convert(o)))
		snprintf(err, errlen, "%s", strerror(ENOMEM));
	json_object_put(o);
	json_tokener_free(tok);
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
	size_t n, total = 0;
	/* past the limit json_parse refuses it: no need to read the rest */
	while (m && total < JSON_MAX_BYTES && (n = fread(chunk, 1, sizeof chunk, f)) > 0) {
		fwrite(chunk, 1, n, m);
		total += n;
	}
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

// SPDX-License-Identifier: GPL-3.0-or-later
/* A small JSON writer (pretty-printed, keys in the order written) and a
 * reader into a tree (json-c underneath), for --json files and --compare. */
#ifndef ADAPTRM_JSON_H
#define ADAPTRM_JSON_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 32
/* The reader's limits: containers nested this deep, and this many bytes
 * (json-c counts a buffer's length in an int). */
#define JSON_MAX_NESTING 64
#define JSON_MAX_BYTES (256 << 20)

struct json_writer {
	FILE *f;
	int depth;
	bool need_comma[JSON_MAX_DEPTH];
	bool compact[JSON_MAX_DEPTH]; /* arrays of scalars stay on one line */
	char close[JSON_MAX_DEPTH];   /* the bracket that ends each level */
};

void jw_init(struct json_writer *w, FILE *f);
/* KEY is NULL inside arrays and for the top-level value. */
void jw_object(struct json_writer *w, const char *key);
void jw_array(struct json_writer *w, const char *key);
void jw_array_compact(struct json_writer *w, const char *key);
void jw_end(struct json_writer *w); /* closes the innermost object/array */
void jw_string(struct json_writer *w, const char *key, const char *s);
void jw_uint(struct json_writer *w, const char *key, uint64_t v);
void jw_int(struct json_writer *w, const char *key, int64_t v);
void jw_double(struct json_writer *w, const char *key, double v);
void jw_bool(struct json_writer *w, const char *key, bool v);
void jw_null(struct json_writer *w, const char *key);
/* Ends the document with a newline. */
void jw_finish(struct json_writer *w);

/* (json_kind: json-c, which the reader uses, has its own enum json_type.) */
enum json_kind { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT };

struct json_value {
	enum json_kind type;
	bool b;
	double num;
	uint64_t u; /* exact value of a non-negative integer */
	char *str;
	size_t n; /* items of an array or object */
	struct json_value **items;
	char **keys; /* object keys, parallel to items */
};

/* Parses TEXT (NUL-terminated) with json-c. NULL on error, with
 * "invalid JSON at byte N (line L): what" in ERR. */
struct json_value *json_parse(const char *text, char *err, size_t errlen);
/* Reads and parses a file; NULL with a message (errno text or parse error). */
struct json_value *json_parse_file(const char *path, char *err, size_t errlen);
void json_free(struct json_value *v);
/* Member KEY of an object, or NULL (also when V is not an object). */
const struct json_value *json_get(const struct json_value *v, const char *key);
uint64_t json_get_uint(const struct json_value *v, const char *key, uint64_t dflt);
double json_get_num(const struct json_value *v, const char *key, double dflt);
const char *json_get_str(const struct json_value *v, const char *key, const char *dflt);

#endif

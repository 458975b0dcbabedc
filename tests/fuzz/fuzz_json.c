// SPDX-License-Identifier: GPL-3.0-or-later
/* libFuzzer harness: the JSON reader (user/lib/json.c: json-c, then the copy
 * into our tree) on arbitrary bytes. It reads --trace --compare's files and
 * the profile store. Whatever it
 * accepts is walked with the accessors, written back with the JSON writer
 * and parsed again: that must succeed and give the same shape. Built and run
 * by scripts/fuzz.sh. */
#include "lib/json.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int depth_of(const struct json_value *v)
{
	int d = 0;
	for (size_t i = 0; i < v->n; i++) {
		int c = depth_of(v->items[i]);
		if (c > d)
			d = c;
	}
	return d + (v->type == JSON_ARRAY || v->type == JSON_OBJECT);
}

/* The accessors on every object member (json_get finds the first of
 * duplicate keys, so look each key up and check it found one). */
static void walk(const struct json_value *v)
{
	for (size_t i = 0; i < v->n; i++) {
		if (v->type == JSON_OBJECT) {
			if (!v->keys[i] || !json_get(v, v->keys[i]))
				abort();
			(void)json_get_uint(v, v->keys[i], 0);
			(void)json_get_num(v, v->keys[i], 0);
			(void)json_get_str(v, v->keys[i], "");
		}
		walk(v->items[i]);
	}
	if (v->type == JSON_STRING && !v->str)
		abort();
}

static void write_value(struct json_writer *w, const char *key, const struct json_value *v)
{
	switch (v->type) {
	case JSON_NULL: jw_null(w, key); break;
	case JSON_BOOL: jw_bool(w, key, v->b); break;
	case JSON_NUMBER:
		if (v->num >= 0 && v->num == (double)v->u)
			jw_uint(w, key, v->u);
		else
			jw_double(w, key, v->num);
		break;
	case JSON_STRING: jw_string(w, key, v->str); break;
	case JSON_ARRAY:
	case JSON_OBJECT:
		if (v->type == JSON_ARRAY)
			jw_array(w, key);
		else
			jw_object(w, key);
		for (size_t i = 0; i < v->n; i++)
			write_value(w, v->type == JSON_OBJECT ? v->keys[i] : NULL, v->items[i]);
		jw_end(w);
		break;
	}
}

/* Same shape: types, sizes, keys and strings (numbers lose digits in %.6g,
 * and a non-finite one is written as null). */
static void same(const struct json_value *a, const struct json_value *b)
{
	if (a->type == JSON_NUMBER && (b->type == JSON_NUMBER || b->type == JSON_NULL))
		return;
	if (a->type != b->type || a->n != b->n)
		abort();
	if (a->type == JSON_STRING && strcmp(a->str, b->str))
		abort();
	if (a->type == JSON_BOOL && a->b != b->b)
		abort();
	for (size_t i = 0; i < a->n; i++) {
		if (a->type == JSON_OBJECT && strcmp(a->keys[i], b->keys[i]))
			abort();
		same(a->items[i], b->items[i]);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), err[256];
	memcpy(text, data, size);
	text[size] = '\0';
	err[0] = '\0';
	struct json_value *v = json_parse(text, err, sizeof err);
	if (!v) {
		if (!err[0])
			abort(); /* a failure always says why */
	} else {
		walk(v);
		/* the writer keeps JSON_MAX_DEPTH levels; deeper is not its input */
		if (depth_of(v) < JSON_MAX_DEPTH) {
			char *buf = NULL;
			size_t len = 0;
			FILE *f = open_memstream(&buf, &len);
			struct json_writer w;
			jw_init(&w, f);
			write_value(&w, NULL, v);
			jw_finish(&w);
			fclose(f);
			struct json_value *again = json_parse(buf, err, sizeof err);
			if (!again) {
				fprintf(stderr, "written JSON does not parse: %s\n%s\n", err, buf);
				abort();
			}
			same(v, again);
			json_free(again);
			free(buf);
		}
	}
	json_free(v);
	free(text);
	return 0;
}

/*
 * fuzz_pathtext.c - libFuzzer target for rpt_path_text, the one function
 * every file name passes through on its way into a report. Checks its
 * contract: the text is valid UTF-8 that JSON accepts, holds no control
 * character, and undoing the escapes gives back the original bytes (so
 * two different names never print the same).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = rpt_path_text((const char *)data, size);
	unsigned char *back;
	size_t n = 0, tl;
	json_t *js;

	if (!text)
		return 0;
	tl = strlen(text);
	js = json_stringn(text, tl);
	if (!js) {
		fprintf(stderr, "not valid UTF-8: %s\n", text);
		abort();
	}
	json_decref(js);
	back = malloc(tl + 1);
	if (!back)
		abort();
	for (size_t i = 0; i < tl; ) {
		unsigned char c = (unsigned char)text[i];

		if (c < 0x20 || c == 0x7f)
			abort();        /* a raw control character */
		if (c != '\\') {
			back[n++] = c;
			i++;
			continue;
		}
		if (text[i + 1] == '\\') {
			back[n++] = '\\';
			i += 2;
		} else if (text[i + 1] == 'x' && hexval(text[i + 2]) >= 0 &&
			   hexval(text[i + 3]) >= 0) {
			back[n++] = (unsigned char)(hexval(text[i + 2]) * 16 +
						    hexval(text[i + 3]));
			i += 4;
		} else {
			abort();        /* a lone backslash is ambiguous */
		}
	}
	if (n != size || (size && memcmp(back, data, size))) {
		fprintf(stderr, "escapes do not give the name back: %s\n", text);
		abort();
	}
	free(back);
	free(text);
	return 0;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* Well-formed UTF-8, for escaping text taken from a log into JSON and SVG. */
#ifndef DSDUMP_UTF8_H
#define DSDUMP_UTF8_H

#include <stddef.h>

/* Length of the well-formed UTF-8 sequence at s (Unicode 15, Table 3-7:
 * no overlongs, no surrogates, nothing above U+10FFFF), or 0 if s does not
 * start one. */
size_t utf8_len(const unsigned char *s);

#endif /* DSDUMP_UTF8_H */

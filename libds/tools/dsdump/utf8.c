/* SPDX-License-Identifier: BSD-2-Clause */
/* Well-formed UTF-8: see utf8.h. */
#include "utf8.h"

/* Length of the well-formed UTF-8 sequence at s (Unicode 15, Table 3-7:
 * no overlongs, no surrogates, nothing above U+10FFFF), or 0 if s does not
 * start one. Logs come off serial cables: line noise is expected. */
size_t utf8_len(const unsigned char *s)
{
    unsigned char c = s[0];
    unsigned char lo = 0x80, hi = 0xBF;
    size_t n;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        n = 2;
    else if (c >= 0xE0 && c <= 0xEF)
        n = 3, lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    else if (c >= 0xF0 && c <= 0xF4)
        n = 4, lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    else
        return 0;
    if (s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xBF)
            return 0;
    return n;
}


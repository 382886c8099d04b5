/* SPDX-License-Identifier: BSD-2-Clause */
/* The few string helpers the kernel needs (plus memset/memcpy/memmove/memcmp,
 * which the compiler may call even in freestanding code). */
#ifndef K_STRING_H
#define K_STRING_H

#include <stddef.h>
#include <stdbool.h>

void *memset(void *d, int c, size_t n);
void *memcpy(void *d, const void *s, size_t n);
void *memmove(void *d, const void *s, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t k_strlen(const char *s);
int k_strcmp(const char *a, const char *b);
/* true if the n bytes at a equal the NUL-terminated string b exactly. */
bool k_streq_n(const char *a, size_t n, const char *b);

#endif

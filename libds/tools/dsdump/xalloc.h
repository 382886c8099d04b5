/* SPDX-License-Identifier: BSD-2-Clause */
/* dsdump's allocation: out of memory ends the program ("dsdump: out of memory", exit 2). */
#ifndef DSDUMP_XALLOC_H
#define DSDUMP_XALLOC_H

#include <stddef.h>

/* Prints "dsdump: out of memory" and exits with status 2. */
void oom(void);
/* realloc(p, n), or oom(). */
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);

#endif /* DSDUMP_XALLOC_H */

/* SPDX-License-Identifier: BSD-2-Clause */
/* Allocation that does not return on failure: see xalloc.h. */
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void oom(void)
{
    fprintf(stderr, "dsdump: out of memory\n");
    exit(2);
}

void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n);
    if (!p)
        oom();
    return p;
}

char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(xrealloc(NULL, n), s, n);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* Open-addressing map from (tag, string) to an index, so that dsdump's
 * aggregation is linear in the number of records whatever the number of runs
 * and symbols. */
#ifndef DSDUMP_HMAP_H
#define DSDUMP_HMAP_H

#include <stddef.h>
#include <stdint.h>

/* No index: the value of a new map entry, and the end of dsdump's index chains. */
#define NONE ((size_t)-1)

struct hent {
    uint64_t h;
    size_t tag, val;
    char *key; /* owned; NULL: slot free */
};

struct hmap {
    struct hent *v;
    size_t cap, n;
};

/* The value slot for (tag, key); a new entry gets value NONE. */
size_t *hmap_get(struct hmap *m, size_t tag, const char *key);
void hmap_free(struct hmap *m);

#endif /* DSDUMP_HMAP_H */

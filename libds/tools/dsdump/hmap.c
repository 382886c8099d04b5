/* SPDX-License-Identifier: BSD-2-Clause */
/* Open-addressing map from (tag, string) to an index: see hmap.h. */
#include "hmap.h"

#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

static uint64_t hmap_hash(size_t tag, const char *key)
{
    uint64_t h = 0xcbf29ce484222325ull ^ (uint64_t)tag;
    for (; *key; key++)
        h = (h ^ (unsigned char)*key) * 0x100000001b3ull;
    return h;
}

/* The value slot for (tag, key); a new entry gets value NONE. */
size_t *hmap_get(struct hmap *m, size_t tag, const char *key)
{
    if (2 * (m->n + 1) > m->cap) {
        struct hmap g = {.cap = m->cap ? 2 * m->cap : 64};
        g.v = xrealloc(NULL, g.cap * sizeof *g.v);
        memset(g.v, 0, g.cap * sizeof *g.v);
        for (size_t i = 0; i < m->cap; i++) {
            if (!m->v[i].key)
                continue;
            size_t j = m->v[i].h & (g.cap - 1);
            while (g.v[j].key)
                j = (j + 1) & (g.cap - 1);
            g.v[j] = m->v[i];
        }
        free(m->v);
        g.n = m->n;
        *m = g;
    }
    uint64_t h = hmap_hash(tag, key);
    size_t j = h & (m->cap - 1);
    for (; m->v[j].key; j = (j + 1) & (m->cap - 1))
        if (m->v[j].h == h && m->v[j].tag == tag && !strcmp(m->v[j].key, key))
            return &m->v[j].val;
    m->v[j] = (struct hent){.h = h, .tag = tag, .val = NONE, .key = strdup(key)};
    if (!m->v[j].key)
        oom();
    m->n++;
    return &m->v[j].val;
}

void hmap_free(struct hmap *m)
{
    for (size_t i = 0; i < m->cap; i++)
        free(m->v[i].key);
    free(m->v);
}

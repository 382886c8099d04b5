/* SPDX-License-Identifier: BSD-2-Clause */
/* The model of a run: records grouped into runs, counted per symbol. See runs.h. */
#include "runs.h"

#include "input.h"
#include "symtab.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct run *run_get(struct runs *R, unsigned log, const char *name)
{
    size_t *slot = hmap_get(&R->byname, log, name);
    if (*slot != NONE)
        return &R->v[*slot];
    if (R->n == R->cap) {
        R->cap = R->cap ? 2 * R->cap : 64;
        R->v = xrealloc(R->v, R->cap * sizeof *R->v);
    }
    *slot = R->n;
    struct run *r = &R->v[R->n++];
    memset(r, 0, sizeof *r);
    r->log = log;
    r->first = r->last = r->summary = r->cntr_first = r->cntr_last = NONE;
    snprintf(r->name, sizeof r->name, "%s", name);
    return r;
}

static int symcount_cmp(const void *a, const void *b)
{
    const struct symcount *x = a, *y = b;
    if (x->n != y->n)
        return x->n < y->n ? 1 : -1;
    return strcmp(x->name, y->name);
}

uint64_t sample_ip(const struct dslog_rec *r)
{
    /* EventingIP (fmt >= 2) is the instruction that caused the event; RIP may be the next one. */
    return dslog_has(r, K_EVENTING_IP) ? r->v[K_EVENTING_IP] : r->v[K_IP];
}

static void count_symbol(struct runs *R, struct run *ru, const char *name)
{
    size_t *slot = hmap_get(&R->bysym, (size_t)(ru - R->v), name);
    if (*slot == NONE) {
        if (ru->nsyms == ru->capsyms) {
            ru->capsyms = ru->capsyms ? 2 * ru->capsyms : 1;
            ru->syms = xrealloc(ru->syms, ru->capsyms * sizeof *ru->syms);
        }
        *slot = ru->nsyms++;
        ru->syms[*slot].name = xstrdup(name);
        ru->syms[*slot].n = 0;
    }
    ru->syms[*slot].n++;
}

/* One pass over the records: runs, per-run symbol counts, per-run chains of
 * BTS/LBR items (so the listings below are linear too), profiles per log. */
void aggregate(struct input *S, struct runs *R)
{
    R->next = xrealloc(NULL, (S->items.n + 1) * sizeof *R->next);
    R->run_of = xrealloc(NULL, (S->items.n + 1) * sizeof *R->run_of);
    R->S = S;
    struct dslog_rec *buf = xrealloc(NULL, sizeof *buf);
    for (size_t i = 0; i < S->items.n; i++) {
        const struct item *it = &S->items.v[i];
        const struct dslog_rec *r = item_rec(S, i, buf);
        R->next[i] = R->run_of[i] = NONE;
        if (r->type == DSLOG_HDR) {
            if (it->log >= R->nlogs) {
                R->hdr = xrealloc(R->hdr, (it->log + 1) * sizeof *R->hdr);
                for (unsigned l = R->nlogs; l <= it->log; l++)
                    R->hdr[l] = (struct loghdr){.item = NONE, .profile = "?", .cpu = CPU_NONE};
                R->nlogs = it->log + 1;
            }
            struct loghdr *h = &R->hdr[it->log];
            h->item = i;
            snprintf(h->profile, sizeof h->profile, "%s", r->s[K_PROFILE]);
            h->cpu = dslog_has(r, K_CPU) ? (long long)r->v[K_CPU] : CPU_NONE;
            continue;
        }
        if (r->type == DSLOG_LOST) { /* the run, if it has records; LOST creates none */
            R->run_of[i] = *hmap_get(&R->byname, it->log, r->s[K_RUN]);
            continue;
        }
        if (r->type == DSLOG_RUN) {
            run_get(R, it->log, r->s[K_NAME])->summary = i;
            continue;
        }
        if (r->type != DSLOG_PEBS && r->type != DSLOG_BTS && r->type != DSLOG_LBR)
            continue;
        struct run *ru = run_get(R, it->log, r->s[K_RUN]);
        R->run_of[i] = (size_t)(ru - R->v);
        if (r->type == DSLOG_PEBS) {
            ru->pebs++;
            if (r->v[K_FMT] == 6 && (r->v[K_HDR] & DSLOG_ADAPTIVE_CNTR_GROUP)) {
                ru->cntr++;
                ru->cntr_first = ru->cntr_first != NONE ? ru->cntr_first : i;
                ru->cntr_last = i;
            }
            char full[300], name[256];
            symbolize(S->syms, sample_ip(r), full, sizeof full, name, sizeof name);
            count_symbol(R, ru, name);
            continue;
        }
        r->type == DSLOG_BTS ? ru->bts++ : ru->lbr++;
        if (ru->last == NONE)
            ru->first = i;
        else
            R->next[ru->last] = i;
        ru->last = i;
    }
    free(buf);
    for (size_t i = 0; i < R->n; i++)
        if (R->v[i].nsyms)
            qsort(R->v[i].syms, R->v[i].nsyms, sizeof *R->v[i].syms, symcount_cmp);
}

void runs_free(struct runs *R)
{
    for (size_t i = 0; i < R->n; i++) {
        for (size_t k = 0; k < R->v[i].nsyms; k++)
            free(R->v[i].syms[k].name);
        free(R->v[i].syms);
    }
    free(R->v);
    free(R->next);
    free(R->run_of);
    free(R->hdr);
    hmap_free(&R->byname);
    hmap_free(&R->bysym);
}

/* With several logs in one input (one HDR..END per model profile), a run is
 * named "<log>:<profile>/<run>". */
void run_label(const struct runs *R, unsigned log, const char *name, char *b, size_t n)
{
    if (R->nlogs > 1)
        snprintf(b, n, "%u:%s/%s", log, log < R->nlogs ? R->hdr[log].profile : "?", name);
    else
        snprintf(b, n, "%s", name);
}

long long log_cpu(const struct runs *R, unsigned log)
{
    return log < R->nlogs ? R->hdr[log].cpu : CPU_NONE;
}

const struct dslog_rec *log_hdr(const struct runs *R, unsigned log, struct dslog_rec *buf)
{
    return log < R->nlogs && R->hdr[log].item != NONE ? item_rec(R->S, R->hdr[log].item, buf) : NULL;
}

const struct dslog_rec *run_summary(const struct runs *R, const struct run *ru, struct dslog_rec *buf)
{
    return ru->summary != NONE ? item_rec(R->S, ru->summary, buf) : NULL;
}


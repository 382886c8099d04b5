/* SPDX-License-Identifier: BSD-2-Clause */
/* The LBR stacks of the text report: see out_lbr.h. */
#include "out_lbr.h"

#include "symtab.h"

#include <inttypes.h>
#include <stdio.h>

/* LBR snapshots of the runs in rl (of the logs in ll): at most lbr_limit
 * snapshots per log and lbr_entries entries per snapshot (negative: all);
 * snaps counts per log (R->nlogs + 1 slots, zero at first). */
void print_lbr(const struct input *S, const struct runs *R, const struct idxs *rl, const struct idxs *ll,
               long *snaps, long lbr_limit, long lbr_entries)
{
    for (size_t x = 0; x < rl->n; x++) {
        const struct run *ru = &R->v[rl->v[x]];
        if (!ru->lbr)
            continue;
        char lb[80];
        run_label(R, ru->log, ru->name, lb, sizeof lb);
        uint64_t cur = UINT64_MAX;
        long shown = 0;
        for (size_t j = ru->first; j != NONE; j = R->next[j]) {
            if (S->items.v[j].type != DSLOG_LBR)
                continue;
            struct dslog_rec buf;
            const struct dslog_rec *r = item_rec(S, j, &buf);
            if (r->v[K_SNAP] != cur) {
                if (lbr_limit >= 0 && snaps[ru->log < R->nlogs ? ru->log : R->nlogs]++ >= lbr_limit)
                    break;
                cur = r->v[K_SNAP];
                shown = 0;
                printf("\n# LBR run %s snapshot %" PRIu64 " (%" PRIu64 " entries, newest first)\n", lb, cur,
                       r->v[K_OF]);
            }
            if (lbr_entries >= 0 && shown++ >= lbr_entries) {
                if (shown == lbr_entries + 1)
                    printf("  ... (%" PRIu64 " entries in all; --lbr-entries)\n", r->v[K_OF]);
                continue;
            }
            char a[300], b[300];
            symbolize(S->syms, r->v[K_FROM], a, sizeof a, NULL, 0);
            symbolize(S->syms, r->v[K_TO], b, sizeof b, NULL, 0);
            printf("  [%2" PRIu64 "] %s -> %s", r->v[K_IDX], a, b);
            if (dslog_has(r, K_MISPRED))
                printf("  %s", r->v[K_MISPRED] ? "mispredicted" : "predicted");
            if (dslog_has(r, K_CYCLES))
                printf("  cycles=%" PRIu64, r->v[K_CYCLES]);
            printf("\n");
        }
    }
    long total = 0;
    for (size_t x = 0; x < ll->n; x++)
        total += lbr_limit >= 0 && snaps[ll->v[x]] > lbr_limit;
    if (!R->nlogs) /* no HDR: the records count under slot nlogs */
        total += lbr_limit >= 0 && snaps[R->nlogs] > lbr_limit;
    if (total)
        printf("  ... (more LBR snapshots in %ld log(s); --lbr-limit)\n", total);
}


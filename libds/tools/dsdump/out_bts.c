/* SPDX-License-Identifier: BSD-2-Clause */
/* The BTS trace of the text report: see out_bts.h. */
#include "out_bts.h"

#include "symtab.h"

#include <inttypes.h>
#include <stdio.h>

void print_bts(const struct input *S, const struct runs *R, const struct idxs *rl, long bts_limit)
{
    for (size_t x = 0; x < rl->n; x++) {
        const struct run *ru = &R->v[rl->v[x]];
        if (!ru->bts)
            continue;
        char lb[80];
        run_label(R, ru->log, ru->name, lb, sizeof lb);
        printf("\n# BTS run %s: %" PRIu64 " branches\n", lb, ru->bts);
        long shown = 0;
        for (size_t j = ru->first; j != NONE; j = R->next[j]) {
            if (S->items.v[j].type != DSLOG_BTS)
                continue;
            if (bts_limit >= 0 && shown >= bts_limit) {
                printf("  ... (%" PRIu64 " more; --limit)\n", ru->bts - (uint64_t)shown);
                break;
            }
            char a[300], b[300];
            struct dslog_rec buf;
            const struct dslog_rec *r = item_rec(S, j, &buf);
            symbolize(S->syms, r->v[K_FROM], a, sizeof a, NULL, 0);
            symbolize(S->syms, r->v[K_TO], b, sizeof b, NULL, 0);
            printf("  %6" PRIu64 "  %s -> %s%s\n", r->v[K_SEQ], a, b, r->v[K_PRED] ? "  (predicted)" : "");
            shown++;
        }
    }
}


/* SPDX-License-Identifier: BSD-2-Clause */
/* The log read into records and errors: see input.h. */
#include "input.h"

#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#define MAX_ERRORS_SHOWN 50

static struct item *push(struct items *it)
{
    if (it->n == it->cap) {
        it->cap = it->cap ? it->cap * 2 : 256;
        it->v = xrealloc(it->v, it->cap * sizeof *it->v);
    }
    return &it->v[it->n++];
}

void add_error(struct input *S, unsigned long line, const char *msg)
{
    if (S->nerr == S->caperr) {
        S->caperr = S->caperr ? 2 * S->caperr : 16;
        S->errs = realloc(S->errs, S->caperr * sizeof *S->errs);
    }
    S->errs[S->nerr].line = line;
    snprintf(S->errs[S->nerr].msg, sizeof S->errs[S->nerr].msg, "%s", msg);
    S->nerr++;
    if (S->nerr <= MAX_ERRORS_SHOWN) {
        if (line)
            fprintf(stderr, "dsdump: %s:%lu: error: %s\n", S->name, line, msg);
        else
            fprintf(stderr, "dsdump: %s: error: %s\n", S->name, msg);
    } else if (S->nerr == MAX_ERRORS_SHOWN + 1) {
        fprintf(stderr, "dsdump: %s: further errors not shown\n", S->name);
    }
}

/* Feeds every line of fin to the DSLOG reader and keeps the good records in
 * S->items. Closes fin (unless stdin). Returns 0, or 2 on a read error. */
int read_log(FILE *fin, struct input *S, char *err, size_t errsz)
{
    struct dslog_reader rd;
    dslog_reader_init(&rd);
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int unknown_noted = 0;
    struct item *tmp = calloc(1, sizeof *tmp);
    while ((n = getline(&line, &cap, fin)) >= 0) {
        if (memchr(line, 0, (size_t)n) && memmem(line, (size_t)n, "DSLOG ", 6)) {
            rd.line++;
            add_error(S, rd.line, "NUL byte in a DSLOG line");
            continue;
        }
        if (S->tap && (!strncmp(line, "ok ", 3) || !strncmp(line, "not ok ", 7)))
            fputs(line, S->tap);
        enum dslog_status s = dslog_feed(&rd, line, (size_t)n, &tmp->r, err, errsz);
        if (s == DSLOG_NOT_RECORD)
            continue;
        if (s == DSLOG_BAD || s == DSLOG_OK_BUT)
            add_error(S, rd.line, err);
        if (s == DSLOG_OK || s == DSLOG_OK_BUT) {
            if (tmp->r.unknown_keys && unknown_noted++ < 5)
                fprintf(stderr, "dsdump: %s:%lu: note: %u unknown key(s) ignored, first '%s' (newer kernel?)\n",
                        S->name, rd.line, tmp->r.unknown_keys, tmp->r.first_unknown);
            struct item *it = push(&S->items);
            it->r = tmp->r;
            it->line = rd.line;
            it->log = (unsigned)(rd.logs ? rd.logs - 1 : 0);
        }
    }
    int ioerr = ferror(fin);
    free(line);
    free(tmp);
    if (fin != stdin)
        fclose(fin);
    if (ioerr) {
        fprintf(stderr, "dsdump: %s: read error\n", S->name);
        return 2;
    }
    if (!dslog_finish(&rd, err, errsz))
        add_error(S, 0, err);
    return 0;
}

void input_free(struct input *S)
{
    free(S->items.v);
    free(S->errs);
}

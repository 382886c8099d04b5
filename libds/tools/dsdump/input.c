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

/* Packed record: pairs (zero bytes skipped, literal bytes), each count a
 * LEB128 varint, then the literals, until the struct's size is reached. */
static size_t put_varint(unsigned char *p, size_t v)
{
    size_t n = 0;
    do {
        p[n++] = (unsigned char)((v & 0x7F) | (v > 0x7F ? 0x80 : 0));
        v >>= 7;
    } while (v);
    return n;
}

static size_t get_varint(const unsigned char **p)
{
    size_t v = 0;
    for (unsigned sh = 0;; sh += 7) {
        unsigned char c = *(*p)++;
        v |= (size_t)(c & 0x7F) << sh;
        if (!(c & 0x80))
            return v;
    }
}

/* A zero run shorter than this stays in the literals (a pair costs 2 bytes). */
#define ZRUN 4

static size_t pack_rec(const struct dslog_rec *r, unsigned char *out)
{
    const unsigned char *b = (const unsigned char *)r;
    size_t n = sizeof *r, i = 0, o = 0;
    while (i < n) {
        size_t z = i;
        while (z < n && !b[z])
            z++;
        size_t end = z; /* literals up to a zero run of ZRUN bytes or one reaching the end */
        while (end < n) {
            if (b[end]) {
                end++;
                continue;
            }
            size_t k = end;
            while (k < n && !b[k])
                k++;
            if (k - end >= ZRUN || k == n)
                break;
            end = k;
        }
        o += put_varint(out + o, z - i);
        o += put_varint(out + o, end - z);
        memcpy(out + o, b + z, end - z);
        o += end - z;
        i = end;
    }
    return o;
}

static void unpack_rec(const unsigned char *p, struct dslog_rec *r)
{
    unsigned char *b = (unsigned char *)r;
    size_t n = sizeof *r, i = 0;
    while (i < n) {
        size_t z = get_varint(&p), lit = get_varint(&p);
        memset(b + i, 0, z);
        memcpy(b + i + z, p, lit);
        p += lit;
        i += z + lit;
    }
}

static size_t store(struct input *S, const struct dslog_rec *r)
{
    unsigned char tmp[sizeof(struct dslog_rec) * 2 + 64];
    size_t n = pack_rec(r, tmp);
    if (!S->npack || S->packed + n > ((size_t)1 << PACK_SHIFT)) {
        S->pack = xrealloc(S->pack, (S->npack + 1) * sizeof *S->pack);
        S->pack[S->npack++] = xrealloc(NULL, (size_t)1 << PACK_SHIFT);
        S->packed = 0;
    }
    memcpy(S->pack[S->npack - 1] + S->packed, tmp, n);
    size_t off = ((S->npack - 1) << PACK_SHIFT) | S->packed;
    S->packed += n;
    return off;
}

const struct dslog_rec *item_rec(const struct input *S, size_t i, struct dslog_rec *buf)
{
    size_t off = S->items.v[i].off;
    unpack_rec(S->pack[off >> PACK_SHIFT] + (off & (((size_t)1 << PACK_SHIFT) - 1)), buf);
    return buf;
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
    struct dslog_rec *tmp = calloc(1, sizeof *tmp);
    while ((n = getline(&line, &cap, fin)) >= 0) {
        if (memchr(line, 0, (size_t)n) && memmem(line, (size_t)n, "DSLOG ", 6)) {
            rd.line++;
            add_error(S, rd.line, "NUL byte in a DSLOG line");
            continue;
        }
        if (S->tap && (!strncmp(line, "ok ", 3) || !strncmp(line, "not ok ", 7)))
            fputs(line, S->tap);
        enum dslog_status s = dslog_feed(&rd, line, (size_t)n, tmp, err, errsz);
        if (s == DSLOG_NOT_RECORD)
            continue;
        if (s == DSLOG_BAD || s == DSLOG_OK_BUT)
            add_error(S, rd.line, err);
        if (s == DSLOG_OK || s == DSLOG_OK_BUT) {
            if (tmp->unknown_keys && unknown_noted++ < 5)
                fprintf(stderr, "dsdump: %s:%lu: note: %u unknown key(s) ignored, first '%s' (newer kernel?)\n",
                        S->name, rd.line, tmp->unknown_keys, tmp->first_unknown);
            size_t off = store(S, tmp);
            struct item *it = push(&S->items);
            it->off = off;
            it->type = tmp->type;
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
    for (size_t i = 0; i < S->npack; i++)
        free(S->pack[i]);
    free(S->pack);
    free(S->errs);
}

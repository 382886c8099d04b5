/* SPDX-License-Identifier: BSD-2-Clause */
/* The input of dsdump: the well-formed records of a log (with their line and
 * log numbers) and the errors found in it, read through the DSLOG reader. */
#ifndef DSDUMP_INPUT_H
#define DSDUMP_INPUT_H

#include "dslog.h"

#include <stddef.h>
#include <stdio.h>

struct symtab;

/* A record kept compactly (issue 27 item 7: a struct dslog_rec is 3,856
 * bytes, a BTS line about 90): its bytes packed in S->pack (zero runs left
 * out), decoded again by item_rec. */
struct item {
    size_t off;   /* of its packed record: chunk (off >> PACK_SHIFT), offset in it */
    unsigned long line;
    unsigned log; /* index of the HDR it belongs to */
    enum dslog_type type;
};

#define PACK_SHIFT 20 /* 1 MiB chunks: no copy of the packed records as they grow */

struct items {
    struct item *v;
    size_t n, cap;
};

struct err {
    unsigned long line;
    char msg[512];
};

struct input {
    struct items items;
    unsigned char **pack; /* chunks of packed records */
    size_t npack, packed; /* chunks, bytes used in the last one */
    struct err *errs;
    size_t nerr, caperr;
    const char *name;           /* the input's name in messages (a path or "<stdin>") */
    const struct symtab *syms;  /* -e: symbols of the kernel ELF, else NULL */
    FILE *tap;                  /* --junit: the log's TAP lines (ok/not ok) are copied here, else NULL */
};

/* Records an error at line (0: of the whole log); the first 50 are also printed on stderr. */
void add_error(struct input *S, unsigned long line, const char *msg);
/* Feeds every line of fin to the DSLOG reader and keeps the good records in
 * S->items. Closes fin (unless stdin). Returns 0, or 2 on a read error. */
int read_log(FILE *fin, struct input *S, char *err, size_t errsz);
void input_free(struct input *S);
/* Item i's record, decoded into *buf; returns buf. */
const struct dslog_rec *item_rec(const struct input *S, size_t i, struct dslog_rec *buf);

#endif /* DSDUMP_INPUT_H */

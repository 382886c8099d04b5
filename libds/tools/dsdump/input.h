/* SPDX-License-Identifier: BSD-2-Clause */
/* The input of dsdump: the well-formed records of a log (with their line and
 * log numbers) and the errors found in it, read through the DSLOG reader. */
#ifndef DSDUMP_INPUT_H
#define DSDUMP_INPUT_H

#include "dslog.h"

#include <stddef.h>
#include <stdio.h>

struct symtab;

struct item {
    struct dslog_rec r;
    unsigned long line;
    unsigned log; /* index of the HDR it belongs to */
};

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

#endif /* DSDUMP_INPUT_H */

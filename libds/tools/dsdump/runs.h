/* SPDX-License-Identifier: BSD-2-Clause */
/* The model of a run: the records of the input grouped into runs (one per
 * log and run name), with per-run PEBS symbol counts and per-run chains of
 * the BTS/LBR records, built in one pass over the records. */
#ifndef DSDUMP_RUNS_H
#define DSDUMP_RUNS_H

#include "dslog.h"
#include "hmap.h"

#include <stddef.h>
#include <stdint.h>

struct input;

struct symcount {
    char *name; /* owned */
    uint64_t n;
};

struct run {
    unsigned log;
    char name[DSLOG_NAME_MAX + 1];
    size_t summary;     /* item of its RUN line, or NONE (run_summary decodes it) */
    uint64_t pebs, bts, lbr;
    struct symcount *syms;
    size_t nsyms, capsyms;
    size_t first, last; /* BTS/LBR items of this run, chained through runs.next; NONE if none */
    uint64_t cntr;      /* PEBS records with the fmt 6 counters group */
    size_t cntr_first, cntr_last; /* items of the first / last of those, or NONE */
};

/* Per log: its HDR item (NONE if none) and what the reports ask of it often. */
struct loghdr {
    size_t item;
    char profile[DSLOG_NAME_MAX + 1];
    long long cpu; /* HDR cpu=, or CPU_NONE */
};

struct runs {
    struct run *v;
    size_t n, cap;
    size_t *next;             /* per item: next BTS/LBR item of the same run, or NONE */
    size_t *run_of;           /* per item: its run (PEBS/BTS/LBR/LOST lines), or NONE */
    struct loghdr *hdr;       /* per log */
    unsigned nlogs;
    const struct input *S;    /* the records (item_rec) */
    struct hmap byname, bysym; /* (log, run name) -> run; (run, symbol) -> symcount */
};

/* Every record of a log belongs to the CPU of its HDR cpu= (docs/records.md,
 * version rule); a log without cpu= is grouped as CPU_NONE. */
#define CPU_NONE (-1LL)

/* One pass over S's records (symbolized with S->syms) into R (zeroed by the
 * caller); each run's symbols sorted by count, then name. */
void aggregate(struct input *S, struct runs *R);
void runs_free(struct runs *R);
/* The IP a PEBS sample is counted at: EventingIP if the record has it, else IP. */
uint64_t sample_ip(const struct dslog_rec *r);
/* A run's name in the reports; with several logs in one input (one HDR..END
 * per model profile), "<log>:<profile>/<run>". */
void run_label(const struct runs *R, unsigned log, const char *name, char *b, size_t n);
/* The HDR cpu= of log, or CPU_NONE. */
long long log_cpu(const struct runs *R, unsigned log);
/* A log's HDR record / a run's RUN record decoded into *buf, or NULL if it has none. */
const struct dslog_rec *log_hdr(const struct runs *R, unsigned log, struct dslog_rec *buf);
const struct dslog_rec *run_summary(const struct runs *R, const struct run *ru, struct dslog_rec *buf);

#endif /* DSDUMP_RUNS_H */

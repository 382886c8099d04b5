/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * perf.data writer for dsdump (host code). Writes the file format of Linux
 * tools/perf/Documentation/perf.data-file-format.txt with the record types of
 * include/uapi/linux/perf_event.h, so that Debian's `perf report`, `perf
 * script` and `perf annotate` read the records a libds test kernel logged.
 * Written from those documents; no perf code is used.
 */
#ifndef DSDUMP_PERFDATA_H
#define DSDUMP_PERFDATA_H

#include <stddef.h>
#include <stdint.h>

#include "dslog.h"

#define PD_NONE ((size_t)-1)

/* One well-formed DSLOG record (pd_input.rec decodes it) and the run it
 * belongs to (PD_NONE: none). */
struct pd_item {
    enum dslog_type type;
    size_t run;
    unsigned log;
};

/* One run: the unit that becomes one perf event (attribute). */
struct pd_run {
    const char *name;
    unsigned log;
    uint64_t period;         /* its RUN line's period=, 0 without one */
    uint64_t pebs, bts, lbr; /* records of each kind */
};

/* One log: what its HDR line says (present 0: no HDR). */
struct pd_log {
    int present, has_cpu, has_why;
    char arch[DSLOG_NAME_MAX + 1], backend[DSLOG_NAME_MAX + 1], profile[DSLOG_NAME_MAX + 1],
        kernel[DSLOG_NAME_MAX + 1], why[DSLOG_NAME_MAX + 1];
    uint32_t cpu;
    uint64_t tsc_khz;
};

/* The kernel ELF the IPs belong to (all fields 0 / NULL without -e). */
struct pd_elf {
    const char *path;           /* absolute path written into the MMAP record */
    uint64_t start, len, pgoff; /* the executable PT_LOAD segment */
    uint8_t build_id[20];
    size_t build_id_len;        /* 0: no NT_GNU_BUILD_ID note */
};

struct pd_input {
    const struct pd_item *items;
    size_t nitems;
    /* item i's record, decoded into *buf (returns buf) */
    const struct dslog_rec *(*rec)(const void *ctx, size_t i, struct dslog_rec *buf);
    const void *ctx;
    const struct pd_run *runs;
    size_t nruns;
    const struct pd_log *logs; /* per log */
    unsigned nlogs;
    struct pd_elf elf;
    const char *cmdline; /* how dsdump was run, for `perf report --header` */
};

/* Read the executable segment and build-id of an ELF for pd_elf. Returns 0,
 * or -1 with a message in err. */
int pd_elf_read(const char *path, struct pd_elf *out, char *pathbuf, size_t pathsz, char *err, size_t errsz);

/* Write in as a perf.data file at path. Returns 0, or -1 with err. */
int pd_write(const char *path, const struct pd_input *in, char *err, size_t errsz);

#endif

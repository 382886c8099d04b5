/* SPDX-License-Identifier: BSD-2-Clause */
/* DSLOG version 1 reader (docs/records.md). Host code (libc). */
#ifndef DSLOG_H
#define DSLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DSLOG_VERSION 1u
#define DSLOG_NAME_MAX 31u
#define DSLOG_LBR_MAX 32u

enum dslog_type { DSLOG_HDR, DSLOG_RUN, DSLOG_PEBS, DSLOG_BTS, DSLOG_LBR, DSLOG_LOST, DSLOG_END, DSLOG_TYPE__COUNT };

/* Every key of version 1 (xmm0..15, lbr0..31, gp0..15, fixed0..7 and the HDR's
 * tsc_khz are handled apart). At most 64: `have` is a bit mask. */
enum dslog_key {
    K_RUN, K_SEQ, K_FMT, K_COUNTER,
    K_FLAGS, K_IP, K_AX, K_BX, K_CX, K_DX, K_SI, K_DI, K_BP, K_SP,
    K_R8, K_R9, K_R10, K_R11, K_R12, K_R13, K_R14, K_R15,
    K_STATUS, K_COUNTERS, K_DATA_LA, K_DSE, K_LATENCY, K_EVENTING_IP, K_TSX, K_TSC, K_HDR,
    K_FROM, K_TO, K_PRED, K_SNAP, K_IDX, K_OF, K_MISPRED, K_CYCLES, K_INFO, K_LBRFMT,
    K_KIND, K_REASON, K_COUNT,
    K_NAME, K_WORKLOAD, K_EVENTS, K_PERIOD, K_SAMPLES, K_RECORDS,
    K_ARCH, K_BACKEND, K_PROFILE, K_KERNEL, K_WHY,
    K_RUNS, K_PASSED, K_FAILED, K_SKIPPED,
    K_CPU,
    K_FRAGS, K_SSP,                  /* PEBS fmt=arch */
    K_SLOTS, K_METRICS,              /* PEBS fmt 6 counters group metrics (issue 11) */
    K__COUNT
};

enum dslog_vkind { V_HEX, V_DEC, V_STR, V_BOOL, V_FMT };

/* PEBS fmt values as stored in v[K_FMT]. */
#define DSLOG_FMT_NB32 0x100u
#define DSLOG_FMT_NB64 0x101u
#define DSLOG_FMT_ARCH 0x102u        /* "arch": architectural PEBS */

/* fmt=arch hdr: size of all fragments [15:0], group bits of all fragments
 * (Linux struct arch_pebs_header). */
#define DSLOG_ARCH_CNTR (0x1Full << 35)
#define DSLOG_ARCH_LBR_SHIFT 40
#define DSLOG_ARCH_XMM (1ull << 49)
#define DSLOG_ARCH_GPR (1ull << 61)
#define DSLOG_ARCH_AUX (1ull << 62)
#define DSLOG_ARCH_BASIC (1ull << 63)

#define DSLOG_ADAPTIVE_MEMINFO (1ull << 0)
#define DSLOG_ADAPTIVE_GPRS (1ull << 1)
#define DSLOG_ADAPTIVE_XMM (1ull << 2)
#define DSLOG_ADAPTIVE_LBR (1ull << 3)
/* fmt 6 counters group (bit 4) / metrics (bit 5): either bit announces the group. */
#define DSLOG_ADAPTIVE_CNTR_GROUP (3ull << 4)

struct dslog_rec {
    enum dslog_type type;
    uint64_t have;                   /* bit k: key k present */
    uint64_t v[K__COUNT];            /* numeric values (V_HEX, V_DEC, V_BOOL, V_FMT) */
    char s[K__COUNT][DSLOG_NAME_MAX + 1]; /* string values (V_STR keys only) */
    bool have_xmm;
    uint64_t xmm[16][2];             /* {low, high} */
    uint32_t lbr_count;
    uint64_t lbr[DSLOG_LBR_MAX][3];  /* from, to, info */
    /* fmt 6 counters group: gpN= / fixedN= keys read (bit n), their values */
    uint32_t cntr_gp_mask, cntr_fixed_mask;
    uint64_t cntr_gp[16], cntr_fixed[8];
    uint64_t tsc_khz;                /* HDR tsc_khz= (issue 27; optional, > 0), 0 if absent */
    unsigned unknown_keys;           /* keys this reader does not know (ignored) */
    char first_unknown[32];
};

const char *dslog_key_name(enum dslog_key k);
enum dslog_vkind dslog_key_kind(enum dslog_key k);
const char *dslog_type_name(enum dslog_type t);
/* The text of a PEBS fmt= value: "nb32", "nb64", "arch" or its number,
 * written into buf (at least 12 bytes) for a number. */
const char *dslog_fmt_name(uint64_t f, char *buf);
static inline bool dslog_has(const struct dslog_rec *r, enum dslog_key k) { return (r->have >> k) & 1; }

/* Stream state: one log (HDR ... END) at a time; a new HDR starts a new log. */
struct dslog_reader {
    bool in_log;           /* a HDR was read */
    bool ended;            /* its END was read */
    unsigned long hdr_line;
    unsigned long line;    /* number of the line being fed (1-based) */
    uint64_t run_records, total_records, runs;
    unsigned long logs;    /* HDR lines seen */
};

enum dslog_status {
    DSLOG_NOT_RECORD = 0,  /* no "DSLOG " on the line: other serial output, ignored */
    DSLOG_OK = 1,          /* *out holds a well-formed record */
    DSLOG_BAD = 2,         /* error in err; *out unusable */
    DSLOG_OK_BUT = 3,      /* *out is a well-formed record, but the stream is inconsistent (err) */
};

void dslog_reader_init(struct dslog_reader *rd);
/* Feed one line (without the newline; a trailing CR is ignored). */
enum dslog_status dslog_feed(struct dslog_reader *rd, const char *line, size_t len,
                             struct dslog_rec *out, char *err, size_t errsz);
/* End of input: returns false (and err) when the log is missing or truncated. */
bool dslog_finish(struct dslog_reader *rd, char *err, size_t errsz);

uint32_t dslog_fnv1a(uint32_t h, const char *s, size_t n);

#endif

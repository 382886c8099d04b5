/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * DSLOG record printer for the test kernel (format: docs/records.md, version 1).
 *
 * Freestanding: needs only <stdint.h>, <stddef.h>, <stdbool.h>; no libc, no
 * allocation, no globals, no libds types (the integrator converts libds samples
 * into the plain structs below). Builds with -m32 and -m64 -ffreestanding
 * -mno-red-zone -mgeneral-regs-only.
 *
 * Every function writes exactly one line ("DSLOG 1 <TYPE> key=value ... ck=XXXXXXXX\n")
 * through the caller's sink, or nothing at all when it rejects its input. The line
 * is streamed piece by piece (no line buffer), the checksum is computed on the fly.
 * None of these functions touches an MSR. They are reentrant with respect to
 * different `struct dsrec_out` objects; one `struct dsrec_out` must not be used
 * from an NMI/PMI handler while the interrupted code is using it (the sink is
 * then the caller's to serialise).
 */
#ifndef DSREC_RECORDS_H
#define DSREC_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DSREC_VERSION 1u

/* Longest run / profile / kernel / reason token, excluding the NUL. */
#define DSREC_NAME_MAX 31u
/* Most LBR entries an adaptive PEBS record carries (DATA_CFG[31:24] + 1 <= 32). */
#define DSREC_PEBS_LBR_MAX 32u

enum dsrec_err {
    DSREC_OK = 0,
    DSREC_ERR_NULL = 1,     /* a required pointer is NULL */
    DSREC_ERR_NAME = 2,     /* a name is empty, too long or has characters outside [A-Za-z0-9_.:+-] */
    DSREC_ERR_FMT = 3,      /* unknown PEBS format */
    DSREC_ERR_HDR = 4,      /* adaptive record header inconsistent with groups / LBR count */
    DSREC_ERR_RANGE = 5,    /* a field is out of its documented range */
    DSREC_ERR_STATE = 6,    /* call out of order (record before header, after END, ...) */
};

/* Sink: receives the bytes of a line in pieces. `n` is never 0. */
typedef void (*dsrec_write_fn)(void *ctx, const char *s, size_t n);

/* Printer state, owned by the caller. Initialise with dsrec_init(). */
struct dsrec_out {
    dsrec_write_fn write;
    void *ctx;
    uint32_t hash;            /* checksum of the line being written */
    bool header_done;
    bool ended;
    uint32_t run_records;     /* record lines since the last RUN line */
    uint32_t total_records;   /* record lines since the header */
    uint32_t runs;            /* RUN lines since the header */
    uint32_t lbr_snap;        /* snapshot numbers handed out by dsrec_lbr_snapshot() */
};

/* Header: "DSLOG 1 HDR arch=.. backend=.. profile=.. kernel=.. [why=..] [cpu=..] [tsc_khz=..]" */
struct dsrec_header {
    const char *arch;         /* "i386" or "x86_64" */
    const char *backend;      /* "hw" or "model" */
    const char *profile;      /* model profile or CPU name token, e.g. "skylake", "netburst", "native" */
    const char *kernel;       /* build id or ELF name, e.g. "dskernel-x86_64.elf" */
    const char *why;          /* optional (NULL): reason for the backend choice, e.g. "no-ds-cpuid" */
    bool has_cpu;             /* print cpu= (issue 13; a version-1 key added later, optional) */
    uint32_t cpu;             /* APIC ID (x2APIC ID in x2APIC mode) of the CPU that ran the log */
    uint32_t tsc_khz;         /* TSC frequency in kHz: print tsc_khz= (issue 27; optional version-1 key); 0: none */
};

/* PEBS record formats. 0..6 are IA32_PERF_CAPABILITIES[11:8]; the NetBurst ones have no number. */
enum dsrec_pebs_fmt {
    DSREC_PEBS_FMT0 = 0, DSREC_PEBS_FMT1 = 1, DSREC_PEBS_FMT2 = 2,
    DSREC_PEBS_FMT3 = 3, DSREC_PEBS_FMT4 = 4, DSREC_PEBS_FMT5 = 5,
    DSREC_PEBS_FMT6 = 6,      /* Lunar Lake / Arrow Lake: adaptive, as 4/5 + the counters group */
    DSREC_PEBS_NB32 = 0x100,  /* NetBurst, 32-bit DS format (40 bytes) */
    DSREC_PEBS_NB64 = 0x101,  /* NetBurst, 64-bit DS format (144 bytes, same fields as fmt 0) */
    DSREC_PEBS_ARCH = 0x102,  /* architectural PEBS (PERF_CAPABILITIES.PEBS_FMT 0xF): "fmt=arch" */
};

/* fmt=arch `hdr`: one architectural record header (Linux struct arch_pebs_header)
 * describing the whole record: bits 15:0 = bytes of all its fragments (headers
 * included), 63:16 = the group bits of all its fragments ORed. */
#define DSREC_ARCH_SIZE_MASK 0xFFFFull
#define DSREC_ARCH_CNTR      (0x1Full << 35)
#define DSREC_ARCH_LBR_SHIFT 40
#define DSREC_ARCH_XMM       (1ull << 49)
#define DSREC_ARCH_GPR       (1ull << 61)
#define DSREC_ARCH_AUX       (1ull << 62)
#define DSREC_ARCH_BASIC     (1ull << 63)

/* Adaptive PEBS record header (basic group offset 0) fields, pebs-records.md "Format 4". */
#define DSREC_ADAPTIVE_MEMINFO  (1ull << 0)
#define DSREC_ADAPTIVE_GPRS     (1ull << 1)
#define DSREC_ADAPTIVE_XMM      (1ull << 2)
#define DSREC_ADAPTIVE_LBR      (1ull << 3)
/* Format 6 counters group / metrics (Linux PEBS_DATACFG_CNTR / _METRICS): either
 * bit announces the group (Linux setup_pebs_adaptive_sample_data); reserved on
 * formats 4 and 5 (the printer refuses them there). Keys gpN / fixedN / slots /
 * metrics (docs/records.md, added to version 1 by issue 11). */
#define DSREC_ADAPTIVE_CNTRS    (1ull << 4)
#define DSREC_ADAPTIVE_METRICS  (1ull << 5)
#define DSREC_ADAPTIVE_SIZE_SHIFT 48

struct dsrec_lbr_triple {
    uint64_t from, to, info;
};

/*
 * One PEBS record, all formats. Which fields are printed is decided by `fmt`
 * alone (and for fmt 4/5 by the group bits of `hdr`); the others are ignored.
 * Fields are named after the SDM fields (pebs-records.md):
 *   flags = RFLAGS/EFLAGS, ip = RIP/EIP (as stored: trap-like on NetBurst and PEBS_TRAP),
 *   gpr   = RAX RBX RCX RDX RSI RDI RBP RSP (fmt 0-3 order), r[0..7] = R8..R15,
 *   status (fmt 1-2, offset 0x90 = GLOBAL_STATUS snapshot), counters (fmt 3+
 *   applicable counters), data_la, dse (data source / aux), latency, eventing_ip,
 *   tsx (TX abort info), tsc, hdr (fmt 4/5 record header), xmm[i] = {low, high},
 *   lbr[0..lbr_count-1] (fmt 4/5 LBR group, entry 0 newest).
 */
struct dsrec_pebs {
    uint32_t fmt;             /* enum dsrec_pebs_fmt */
    int32_t counter;          /* counter the record is attributed to (GP n, fixed 32+m), -1 = not printed */
    uint64_t flags, ip;
    uint64_t ax, bx, cx, dx, si, di, bp, sp;
    uint64_t r[8];
    uint64_t status, counters;
    uint64_t data_la, dse, latency;
    uint64_t eventing_ip, tsx, tsc;
    uint64_t hdr;
    uint64_t xmm[16][2];
    uint32_t lbr_count;
    struct dsrec_lbr_triple lbr[DSREC_PEBS_LBR_MAX];
    /* fmt=arch only: fragments the record was written in (>= 1), GPR group SSP */
    uint32_t frags;
    uint64_t ssp;
    /* fmt 6 counters group (hdr bit 4 or 5; Linux struct pebs_cntr_header): the
     * group's GP mask (15:0) and fixed mask (7:0), counter n's value at
     * cntr_gp[n] / cntr_fixed[n] for each set bit; has_metrics: the group's
     * metrics field was INTEL_CNTR_METRICS (3), slots = TOPDOWN.SLOTS and
     * metrics = PERF_METRICS follow. All ignored unless fmt 6 with bit 4 or 5. */
    uint32_t cntr_gp_mask, cntr_fixed_mask;
    uint64_t cntr_gp[16], cntr_fixed[8];
    bool has_metrics;
    uint64_t slots, metrics;
};

/* One BTS record (ds-area.md "BTS record"): flags bit 4 = predicted. */
struct dsrec_bts {
    uint64_t from, to, flags;
};

/*
 * One LBR stack entry of snapshot `snap`; idx 0 is the newest of `of` entries.
 * has_mispred / has_cycles say whether the LBR format records them; `info` is
 * the raw LBR_INFO (or 0 when the format has none; printed only if has_info).
 */
struct dsrec_lbr {
    uint32_t snap, idx, of;
    uint64_t from, to;
    bool has_mispred, mispred;
    bool has_cycles;
    uint32_t cycles;
    bool has_info;
    uint64_t info;
    int32_t lbrfmt;           /* IA32_PERF_CAPABILITIES[5:0], -1 = NetBurst / not printed */
};

enum dsrec_kind { DSREC_KIND_PEBS = 0, DSREC_KIND_BTS = 1, DSREC_KIND_LBR = 2 };

/* Records the kernel knows it lost: reason is a token, e.g. "overflow", "wrap", "ambiguous". */
struct dsrec_lost {
    uint32_t kind;            /* enum dsrec_kind */
    const char *reason;
    uint64_t count;
};

/* Run summary, printed AFTER the run's record lines. */
struct dsrec_run {
    const char *name;
    const char *kind;         /* "pebs", "bts", "bts-circular", "lbr", ... (a token) */
    const char *workload;     /* optional (NULL): workload function name */
    uint64_t events;          /* events counted (0 if not applicable) */
    uint64_t period;          /* sampling period (0 if not applicable) */
    uint64_t samples;         /* samples the kernel expected / counted */
};

/* Prepare `o` for a new log. Returns DSREC_ERR_NULL if o or write is NULL. */
enum dsrec_err dsrec_init(struct dsrec_out *o, dsrec_write_fn write, void *ctx);

/* Print the HDR line; must come first (a second header starts a new log). */
enum dsrec_err dsrec_header(struct dsrec_out *o, const struct dsrec_header *h);

/* Print one PEBS record of run `run`. seq: record number within the run. */
enum dsrec_err dsrec_pebs(struct dsrec_out *o, const char *run, uint32_t seq, const struct dsrec_pebs *r);

/* Print one BTS record of run `run`. */
enum dsrec_err dsrec_bts(struct dsrec_out *o, const char *run, uint32_t seq, const struct dsrec_bts *r);

/* Print one LBR entry of run `run`. Requires idx < of, of >= 1. */
enum dsrec_err dsrec_lbr(struct dsrec_out *o, const char *run, const struct dsrec_lbr *r);

/* Hand out the next LBR snapshot number (0, 1, 2, ...) of this log. */
uint32_t dsrec_lbr_snapshot(struct dsrec_out *o);

/* Print a LOST line (count > 0 expected; count 0 is allowed and says "none lost"). */
enum dsrec_err dsrec_lost(struct dsrec_out *o, const char *run, const struct dsrec_lost *l);

/* Print the RUN summary line; records= is the number of record lines printed since the previous RUN. */
enum dsrec_err dsrec_run(struct dsrec_out *o, const struct dsrec_run *r);

/* Print the END line (runs=, records=, passed/failed/skipped of the kernel tests). */
enum dsrec_err dsrec_end(struct dsrec_out *o, uint32_t passed, uint32_t failed, uint32_t skipped);

/* The checksum used by the format: FNV-1a 32 over `n` bytes, continuing from `h`
 * (start with DSREC_FNV_INIT). Exposed so readers and tests share the definition. */
#define DSREC_FNV_INIT 0x811c9dc5u
uint32_t dsrec_fnv1a(uint32_t h, const char *s, size_t n);

#ifdef __cplusplus
}
#endif
#endif

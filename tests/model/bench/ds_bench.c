/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Benchmark driver for scripts/bench.sh (prints figures, asserts nothing
 * about time). Built only when libds core (area/pebs/pmi) is in the tree.
 *
 *   ds_bench archive             which libds the measured code is (the
 *                                freestanding libds_x86_64.a or ds_host)
 *   ds_bench msr                 MSR accesses per PMI, counted by the model,
 *                                for each handler path and PMI kind
 *   ds_bench drain <fmt> <n>     fill a PEBS buffer with n records of <fmt>
 *                                (model), then drain+decode them with libds
 *                                inside bench_region() (callgrind toggles on it)
 *   ds_bench copy <fmt> <n>      same buffer, bench_region() copies the bytes
 *                                with the C library's memcpy()
 *   ds_bench pmi <n> [<fmt>]     one ds_pmi_handle() in bench_region(): n = 0
 *                                a spurious NMI, else a PEBS PMI with n records
 *                                of <fmt> (default fmt3, the Skylake model)
 *   ds_bench wcopy <fmt> <n>     same buffer, bench_region() copies the bytes
 *                                with a plain 64-bit-word loop (word_copy)
 *   ds_bench spmi <n> [<fmt>]    as pmi, through the session API (session.h):
 *                                one ds_session_pmi() in bench_region() on the
 *                                same setup (profile, event, USR, period 10,
 *                                threshold n records, groups, freeze mode),
 *                                the records to on_pebs = the pmi mode's sink;
 *                                exit 3 (with the reason) where a session
 *                                cannot be set up alike
 *   ds_bench spmi-routed <n> [<fmt>]  as spmi, the records through on_sample
 *
 * <fmt>: a row of profs[] (every record format libds decodes: NetBurst
 * 32/64, formats 0-6 with their group combinations, architectural PEBS
 * with each group).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ds_model_ops.h"
#include "dsm_stream.h"
#include "model_util.h"
#include <ds/cpu.h>
#include <ds/area.h>
#include <ds/pebs.h>
#include <ds/arch_pebs.h>
#include <ds/pmc.h>
#include <ds/pmi.h>
#include <ds/session.h>

#ifndef DS_BENCH_ARCHIVE
#define DS_BENCH_ARCHIVE "libds (unnamed build)"
#endif
#define LIN 0xFFFF800000100000ull
#define LIN32 0x00400000ull
#define PHYS 0x40000000ull
#define BLK (8u << 20)
static _Alignas(4096) uint8_t blk[BLK];
static _Alignas(8) uint8_t copy_dst[BLK];
static struct fake_mem mem;

struct env {
    struct dsm_cpu m;
    struct ds_cpu c;
    struct ds_ctx ctx;
    struct ds_pmi pmi;
    struct ds_arch_pebs ap;   /* architectural PEBS rows (E.arch) */
    bool arch;
    bool nb;
    struct dsm_stream st;     /* the workload (feed) */
    bool st_on;
    uint64_t wmask;
    uint64_t samples;
    uint64_t pmis, msr_in_pmi;
    bool ovf_reload;          /* counter-overflow scenario: hook reloads the counter */
    bool defer;               /* PMI cost bench: the callback only notes the request */
    bool pending;
    bool nb_misp;             /* NetBurst session rows: mispredicted branches in the stream */
};
static struct env E;

static int sink(void *a, const struct ds_pebs_sample *s)
{
    (void)a;
    (void)s;
    E.samples++;
    return 0;
}

/* Counter-overflow hook: reload the overflowed counter (what any handler does). */
static int hook(void *arg, uint64_t ovf, bool no_global, uint32_t *out_handled)
{
    (void)arg;
    (void)no_global;
    uint32_t n = 0;
    if (E.nb) {
        /* NetBurst: clear the sticky CCCR OVF, reload the counter */
        uint64_t cccr;
        if (ds_msr_read(&E.c, 0x36C, &cccr) == DS_OK && (cccr & (1ull << 31))) {
            ds_msr_write(&E.c, 0x36C, cccr & ~(1ull << 31));
            ds_msr_write(&E.c, 0x30C, (-100ull) & E.wmask);
            n++;
        }
    } else if (ovf & 2) {
        ds_msr_write(&E.c, 0xC2, (uint32_t)-100);
        n++;
    }
    *out_handled = n;
    return DS_OK;
}

static void on_pmi(void *ctx, uint32_t why)
{
    (void)ctx;
    (void)why;
    if (E.defer) {
        E.pending = true; /* handled later, inside bench_region (pmi mode) */
        return;
    }
    const struct dsm_stats *s = dsm_stats(&E.m);
    uint64_t before = s->rdmsr + s->wrmsr;
    struct ds_pmi_result r;
    ds_pmi_handle(&E.pmi, &r);
    E.msr_in_pmi += s->rdmsr + s->wrmsr - before;
    E.pmis++;
}

/*
 * The record formats libds decodes, one row each: the model profile that
 * writes it and, for adaptive formats, MSR_PEBS_DATA_CFG; for architectural
 * PEBS (arch) the CFG_C group bits of PMC0 (DS_APEBS_CFG_*).
 */
struct prof {
    const char *n;
    enum dsm_profile p;
    uint64_t cfg;
    bool arch;
};
#define CNTR6 (DS_PEBS_DATA_CFG_CNTRS | (0x3ull << DS_PEBS_DATA_CFG_GP_SHIFT) | (0x7ull << DS_PEBS_DATA_CFG_FIX_SHIFT))
#define ACNTR (DS_APEBS_CFG_CNTR_ALLOW | DS_APEBS_CFG_CNTR_GP | DS_APEBS_CFG_CNTR_FIXED)
static const struct prof profs[] = {
    { "nb32", DSM_NETBURST_M3, 0, false }, { "nb64", DSM_NETBURST_M4_64, 0, false }, { "fmt0", DSM_CORE2, 0, false },
    { "fmt1", DSM_NEHALEM, 0, false }, { "fmt2", DSM_HASWELL, 0, false }, { "fmt3", DSM_SKYLAKE, 0, false },
    { "fmt4", DSM_ICELAKE, 0x3, false },
    /* adaptive group combinations (MSR_PEBS_DATA_CFG) */
    { "fmt4b", DSM_ICELAKE, 0x0, false }, { "fmt4m", DSM_ICELAKE, 0x1, false }, { "fmt4g", DSM_ICELAKE, 0x2, false },
    { "fmt4x", DSM_ICELAKE, 0x4, false }, { "fmt4a", DSM_ICELAKE, 0x7, false },
    /* format 4 without PEBS_BASELINE: the KVM guest of a Sapphire Rapids host (basic only,
     * the host's format 4: docs/design.md "Which CPUs write which PEBS format") */
    { "fmt4k", DSM_KVM_SPR, 0x0, false },
    /* format 5 with PEBS_BASELINE (Arrow Lake-H P-core): +meminfo+GPRs, +XMM, + 8 LBRs */
    { "fmt5", DSM_ARROWLAKE_H, 0x3, false }, { "fmt5x", DSM_ARROWLAKE_H, 0x7, false },
    { "fmt5l", DSM_ARROWLAKE_H, 0xF | (7ull << 24), false },
    /* format 6 (Lunar Lake P-core): basic, basic+meminfo+GPRs, basic + counters
     * group (GP 0-1, fixed 0-2: the 88-byte record of issue 28); fmt6c1 the
     * counters group of PMC0 alone (what a session's one PEBS request records) */
    { "fmt6b", DSM_LUNARLAKE, 0x0, false }, { "fmt6", DSM_LUNARLAKE, 0x3, false },
    { "fmt6c", DSM_LUNARLAKE, CNTR6, false },
    { "fmt6c1", DSM_LUNARLAKE, DS_PEBS_DATA_CFG_CNTRS | (1ull << DS_PEBS_DATA_CFG_GP_SHIFT), false },
    /* architectural PEBS (Panther Lake P-core), CFG_C groups of PMC0 */
    { "apb", DSM_PTL_P, 0, true }, { "apa", DSM_PTL_P, DS_APEBS_CFG_AUX, true },
    { "apg", DSM_PTL_P, DS_APEBS_CFG_AUX | DS_APEBS_CFG_GPR, true },
    { "apl", DSM_PTL_P, 1ull << DS_APEBS_CFG_LBR_SHIFT, true }, { "apx", DSM_PTL_P, DS_APEBS_CFG_XMM, true },
    { "apc", DSM_PTL_P, ACNTR, true },
};

static const struct prof *profile_of(const char *fmt)
{
    for (size_t i = 0; i < sizeof(profs) / sizeof(profs[0]); i++)
        if (!strcmp(fmt, profs[i].n))
            return &profs[i];
    return NULL;
}

/* The freeze mode each profile's kernel would use for the PMI rows. */
static enum ds_freeze_mode freeze_of(enum dsm_profile p)
{
    switch (p) {
    case DSM_NETBURST_M3: case DSM_NETBURST_M4_64: case DSM_CORE2: case DSM_KVM_SPR: return DS_FREEZE_NONE;
    case DSM_NEHALEM: case DSM_HASWELL: return DS_FREEZE_LEGACY;
    default: return DS_FREEZE_STREAMLINED;
    }
}

/*
 * Architectural PEBS on profile p (PMC0 INST_RETIRED.ANY_P, USR, period
 * 10, CFG_C groups @groups, threshold @thr records of the size the model
 * writes, 0 = none), handled by ds_pmi (cfg.apebs).
 */
static int setup_arch(enum dsm_profile p, uint64_t groups, uint32_t nrec, uint32_t thr, enum ds_freeze_mode fz)
{
    memset(&E, 0, sizeof(E));
    E.arch = true;
    mem.base = PHYS; /* the arch-PEBS buffer is given by its physical address */
    mem.buf = blk;
    mem.size = BLK;
    if (dsm_init(&E.m, p, &fm_ops, &mem) || ds_model_cpu_init(&E.c, &E.m) || ds_cpu_identify(&E.c))
        return -1;
    E.wmask = 0xFFFFFFFFFFFFull;
    unsigned code = 0;
    while (code < DS_APEBS_SIZE_CODE_MAX && (4096ull << code) < (uint64_t)nrec * 1200 + 4096)
        code++;
    /* the threshold: @thr records of the size the model writes for these
     * groups (known once PMC0's CFG_C is written: set up twice) */
    uint64_t t = 0;
    for (int pass = thr ? 0 : 1; pass < 2; pass++) {
        struct ds_arch_pebs_config cfg = { blk, PHYS, code, t };
        int e = ds_arch_pebs_setup(&E.ap, &E.c, &cfg);
        if (!e)
            e = ds_arch_pebs_install(&E.ap);
        if (!e)
            e = ds_arch_pebs_counter_enable(&E.ap, DS_CTR_GP, 0, (uint32_t)(0 - 10u), groups);
        if (e) {
            fprintf(stderr, "arch PEBS setup: %s\n", ds_errname(e));
            return -1;
        }
        if (pass == 0) {
            dsm_wrmsr(&E.m, 0x38F, 1); /* the counters group holds the enabled counters */
            t = ((uint64_t)thr * dsm_apebs_record_size(&E.m, 1)) & ~15ull;
            dsm_wrmsr(&E.m, 0x38F, 0);
            if (ds_arch_pebs_uninstall(&E.ap))
                return -1;
        }
    }
    if (ds_arch_pebs_enable(&E.ap) ||
        ds_pmc_gp_program(&E.c, 0, DS_EVTSEL(0xC0, 0) | DS_EVTSEL_USR | DS_EVTSEL_EN, (0 - 10ull) & E.wmask) ||
        ds_pmc_global_ctrl(&E.c, 1))
        return -1;
    struct ds_pmi_config pc;
    memset(&pc, 0, sizeof(pc));
    pc.freeze = fz;
    pc.pebs_sink = sink;
    pc.pebs_counters = 1;
    pc.apebs = &E.ap;
    pc.ovf_hook = hook;
    if (ds_pmi_init(&E.pmi, &E.c, NULL, &pc))
        return -1;
    if (fz != DS_FREEZE_NONE)
        ds_pmi_set_freeze(&E.pmi);
    dsm_set_pmi(&E.m, on_pmi, NULL);
    return 0;
}

/* Set up profile p with a PEBS buffer of nrec records (threshold thr, 0 = none). */
static int setup(enum dsm_profile p, uint64_t cfg, uint32_t nrec, uint32_t thr, enum ds_freeze_mode fz, bool ovf)
{
    memset(&E, 0, sizeof(E));
    E.nb = p == DSM_NETBURST_M3 || p == DSM_NETBURST_M4_64;
    E.ovf_reload = ovf;
    mem.base = p == DSM_NETBURST_M3 ? LIN32 : LIN;
    mem.buf = blk;
    mem.size = BLK;
    if (dsm_init(&E.m, p, &fm_ops, &mem) || ds_model_cpu_init(&E.c, &E.m) || ds_cpu_identify(&E.c))
        return -1;
    E.wmask = E.nb || p == DSM_CORE2 || p == DSM_ATOM ? 0xFFFFFFFFFFull : 0xFFFFFFFFFFFFull;
    /* EVTSEL[34] Adaptive_Record (PEBS_BASELINE parts) */
    bool adaptive_evt = p == DSM_ICELAKE || p == DSM_LUNARLAKE || p == DSM_ARROWLAKE_H;
    if (adaptive_evt)
        dsm_wrmsr(&E.m, 0x3F2, cfg);
    uint32_t rsz = dsm_pebs_record_size(&E.m);
    /* the threshold leaves libds's margin (one record per PEBS counter, area.c) */
    enum ds_pebs_fmt f = DS_PEBS_FMT_NONE;
    uint32_t mg = 0;
    if (thr && !ds_pebs_format_select(&E.c, p == DSM_NETBURST_M3 ? DS_LAYOUT_32 : DS_LAYOUT_64, &f) &&
        !ds_pebs_thresh_margin(&E.c, f, &mg) && nrec < thr + mg)
        nrec = thr + mg;
    if (rsz && (p == DSM_CORE2 || p == DSM_ATOM) && nrec > 4096 / rsz)
        nrec = 4096 / rsz; /* PEBS fmt0: 4 KiB at most (DS_ERR_PEBS_BUF_4K, Linux intel_ds_init) */
    struct ds_area_config ac;
    memset(&ac, 0, sizeof(ac));
    ac.area = (union ds_area *)blk;
    ac.area_linear = mem.base;
    ac.pebs.mem = blk + 0x1000;
    ac.pebs.linear = mem.base + 0x1000;
    ac.pebs.bytes = (size_t)rsz * nrec;
    ac.pebs.thresh_records = thr;
    ac.pebs_data_cfg = cfg;
    int e = ds_area_setup(&E.ctx, &E.c, &ac);
    if (e) {
        fprintf(stderr, "ds_area_setup: %d\n", e);
        return -1;
    }
    const uint64_t P = 10;
    ds_area_set_reset(&E.ctx, DS_CTR_GP, 0, (-P) & E.wmask);
    ds_area_install(&E.ctx);
    struct ds_pmi_config pc;
    memset(&pc, 0, sizeof(pc));
    pc.freeze = fz;
    pc.pebs_sink = sink;
    pc.pebs_counters = E.nb ? 0 : 1;
    pc.ovf_hook = hook;
    if (fz == DS_FREEZE_LEGACY)
        pc.global_ctrl = ovf ? 3 : 1;
    e = ds_pmi_init(&E.pmi, &E.c, &E.ctx, &pc);
    if (e) {
        fprintf(stderr, "ds_pmi_init: %s\n", ds_errname(e));
        return -1;
    }
    if (fz != DS_FREEZE_NONE)
        ds_pmi_set_freeze(&E.pmi);
    if (E.nb) {
        dsm_wrmsr(&E.m, 0x3BC, (0x02ull << 25) | (1ull << 10) | (1 << 4) | (1 << 2));
        dsm_wrmsr(&E.m, 0x3CC, (0x08ull << 25) | (1ull << 9) | (1 << 2));
        dsm_wrmsr(&E.m, 0x310, (-P) & E.wmask);
        dsm_wrmsr(&E.m, 0x370, 0x0003B000);
        dsm_wrmsr(&E.m, 0x3F1, 1ull << 25);
        if (ovf) {   /* instr_retired on IQ_COUNTER0 with OVF_PMI_T0, PEBS off */
            dsm_wrmsr(&E.m, 0x3F1, 0);
            dsm_wrmsr(&E.m, 0x3B8, (0x02ull << 25) | (3ull << 9) | (1 << 2));
            dsm_wrmsr(&E.m, 0x30C, (-100ull) & E.wmask);
            dsm_wrmsr(&E.m, 0x36C, 0x04039000); /* enable, ESCR select 4 (CRU_ESCR0), any thread, OVF_PMI_T0 */
        }
    } else {
        /* Golden Cove (the KVM guest's host) takes INST_RETIRED PEBS on PMC1-7
         * only (perfmon "PEBScounters"): BR_INST_RETIRED.ALL_BRANCHES (C4H) there */
        dsm_wrmsr(&E.m, 0x186, (p == DSM_KVM_SPR ? 0xC4 : 0xC0) | (1 << 16) | (1 << 22) | (adaptive_evt ? (1ull << 34) : 0));
        dsm_wrmsr(&E.m, 0xC1, (uint32_t)-P);
        dsm_wrmsr(&E.m, 0x3F1, ovf ? 0 : 1);
        if (ovf) {
            dsm_wrmsr(&E.m, 0x187, 0xC0 | (1 << 16) | (1 << 20) | (1 << 22));
            dsm_wrmsr(&E.m, 0xC2, (uint32_t)-100);
        }
        dsm_wrmsr(&E.m, 0x38F, ovf ? 2 : 1);
    }
    dsm_set_pmi(&E.m, on_pmi, NULL);
    return 0;
}

static void feed(uint64_t n)
{
    /* one stream per setup (E is cleared there): feed(1) calls continue it */
    struct dsm_event ev;
    if (!E.st_on) {
        dsm_stream_init(&E.st, 7, 0x400000);
        E.st.load_pct = E.nb ? 100 : 25;
        E.st.branch_pct = E.nb && !E.nb_misp ? 0 : 15;
        if (E.nb_misp)
            E.st.mispred_pct = 100;
        E.st_on = true;
    }
    for (uint64_t i = 0; i < n; i++)
        dsm_retire(&E.m, dsm_stream_next(&E.st, &ev));
}

static int bench_msr(void)
{
    static const struct { const char *name; enum dsm_profile p; enum ds_freeze_mode fz; bool arch; } paths[] = {
        { "perfmon v2 (Core 2), no freeze", DSM_CORE2, DS_FREEZE_NONE, false },
        { "perfmon v3 legacy freeze (Nehalem)", DSM_NEHALEM, DS_FREEZE_LEGACY, false },
        { "perfmon v3 legacy freeze (Haswell)", DSM_HASWELL, DS_FREEZE_LEGACY, false },
        { "perfmon v4 streamlined (Skylake)", DSM_SKYLAKE, DS_FREEZE_STREAMLINED, false },
        { "NetBurst 64-bit DS", DSM_NETBURST_M4_64, DS_FREEZE_NONE, false },
        { "arch PEBS streamlined (Panther Lake P)", DSM_PTL_P, DS_FREEZE_STREAMLINED, true },
    };
    printf("%-40s %-22s %8s %10s\n", "path", "PMI kind", "PMIs", "MSR/PMI");
    for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
        for (int ovf = 0; ovf < (paths[i].arch ? 1 : 2); ovf++) {
            int e = paths[i].arch ? setup_arch(paths[i].p, 0, 64, 1, paths[i].fz)
                                  : setup(paths[i].p, 0, 64, 1, paths[i].fz, ovf);
            if (e) {
                printf("%-40s setup failed\n", paths[i].name);
                continue;
            }
            feed(20000);
            printf("%-40s %-22s %8llu %10.2f\n", paths[i].name, ovf ? "counter overflow" : "PEBS only (thresh 1)",
                   (unsigned long long)E.pmis, E.pmis ? (double)E.msr_in_pmi / (double)E.pmis : 0.0);
        }
    }
    printf("(goal was <= 3 per PEBS PMI on v2/v3, 2 on v4; since issue 10 item 2 the handler re-reads\n"
           " GLOBAL_STATUS after the ack until it is 0 (an overflow inside the handler is otherwise lost):\n"
           " +1 RDMSR, so 3 on v2 and v4, 4 on v3 with legacy freeze; Linux 5-6. Every row includes the overflow hook's\n"
           " accesses: counter reload; on NetBurst, which has no GLOBAL_STATUS, the hook also reads the CCCR\n"
           " on every PMI to find the overflow, which is the 1 access of the PEBS-only NetBurst row.\n"
           " Architectural PEBS: goal <= 4 (issue 28 item 4: IA32_PEBS_INDEX read once and reset,\n"
           " GLOBAL_STATUS read, ack); the handler's GLOBAL_STATUS re-read comes on top.)\n");
    return 0;
}

/*
 * The plain word-at-a-time copy a minimal freestanding ISR would do: one
 * 64-bit load and store per 8 bytes, as -O2 compiles it. GCC -O2 would
 * otherwise recognise the loop and call memcpy() (loop distribution), which
 * is the other baseline; vectorisation is whatever -O2 does (GCC 12: only
 * the very-cheap model, which leaves this loop scalar). PEBS record sizes
 * are multiples of 8.
 */
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("no-tree-loop-distribute-patterns")))
#endif
__attribute__((noinline)) static void word_copy(uint64_t *restrict d, const uint64_t *restrict s, size_t words)
{
    for (size_t i = 0; i < words; i++)
        d[i] = s[i];
}

static struct ds_session ses;

/* The measured region (callgrind --toggle-collect=bench_region). */
__attribute__((noinline)) int bench_region(int mode, size_t bytes);
__attribute__((noinline)) int bench_region(int mode, size_t bytes)
{
    /* Modes 3 and 4 are an NMI handler's body: handle, and tell a foreign
     * NMI (-2: pass it on) from ours; the same for both paths. */
    if (mode == 4) {
        struct ds_pmi_result r;
        /* through a pointer the compiler cannot see into (a kernel's
         * per-CPU pointer): the inline keeps its NULL test; with &ses
         * directly GCC drops it and the session costs 2-5 Ir less */
        struct ds_session *volatile sp = &ses;
        int e = ds_session_pmi(sp, 0, &r);
        if (e == DS_ERR_SESSION_SPURIOUS)
            return -2;
        return e ? -1 : (int)r.pebs.records;
    }
    if (mode == 3) {
        struct ds_pmi_result r;
        int e = ds_pmi_handle(&E.pmi, &r);
        if (!e && !r.handled)
            return -2;
        return e ? -1 : (int)r.pebs.records;
    }
    if (mode == 0) {
        struct ds_drain_stats st;
        memset(&st, 0, sizeof(st));
        if (E.arch)
            return ds_arch_pebs_drain(&E.ap, sink, NULL, &st);
        return ds_pebs_drain(&E.ctx, sink, NULL, &st);
    }
    const void *src = E.arch ? E.ap.mem : E.ctx.pebs.mem;
    if (mode == 1)
        memcpy(copy_dst, src, bytes);
    else
        word_copy((uint64_t *)(void *)copy_dst, (const uint64_t *)src, bytes / 8);
    return copy_dst[bytes / 2];
}

/* mode: 0 drain+decode, 1 memcpy, 2 word-loop copy */
/* Records written so far and their bytes (the model's count). */
static void written(uint64_t *recs, size_t *bytes)
{
    if (E.arch) {
        uint64_t idx = 0;
        dsm_rdmsr(&E.m, 0x3F5, &idx);
        *recs = E.m.ap.records;
        *bytes = (size_t)(idx & DS_APEBS_INDEX_WR_MASK);
        return;
    }
    *recs = dsm_stats(&E.m)->pebs_written;
    *bytes = (size_t)(*recs * dsm_pebs_record_size(&E.m));
}

static int setup_prof(const struct prof *pr, uint32_t nrec, uint32_t thr, enum ds_freeze_mode fz)
{
    if (pr->arch)
        return setup_arch(pr->p, pr->cfg, nrec, thr, fz);
    return setup(pr->p, pr->cfg, nrec, thr, fz, false);
}

/* mode: 0 drain+decode, 1 memcpy, 2 word-loop copy */
static int bench_drain(const char *fmt, uint32_t n, int mode)
{
    const struct prof *pr = profile_of(fmt);
    if (!pr) {
        fprintf(stderr, "unknown format %s\n", fmt);
        return 2;
    }
    if (pr->p == DSM_CORE2 && n > 4096 / 144 - 4)
        n = 4096 / 144 - 4; /* fmt0 buffers stop at 4 KiB (DS_ERR_PEBS_BUF_4K) */
    if (setup_prof(pr, n + 4, 0, DS_FREEZE_NONE))
        return 1;
    /* feed until n records are in the buffer */
    uint64_t guard = 0, recs = 0;
    size_t bytes = 0;
    for (written(&recs, &bytes); recs < n && guard++ < 100000ull; written(&recs, &bytes))
        feed(1000);
    uint64_t pending = recs;
    if (!E.arch)
        ds_pebs_pending(&E.ctx, &pending);
    int r = bench_region(mode, bytes);
    printf("%s %s records=%llu bytes=%zu samples=%llu rc=%d\n", mode == 2 ? "wcopy" : mode ? "copy" : "drain", fmt,
           (unsigned long long)pending, bytes, (unsigned long long)E.samples, r);
    /* every record drained reached the sink (checked: a bench of a failing drain is no bench) */
    return mode == 0 && (r != 0 || E.samples != pending) ? 1 : 0;
}

/*
 * Feed the workload until the model raises the next PMI (@nrec records
 * due; none for @nrec = 0, a spurious NMI). Steady state (env
 * BENCH_COLD unset): the PMI before it is handled outside the measured
 * region, so the measured one is not the first after ds_pmi_init (which
 * also prepares the PEBS scratch sample, pmi.h struct ds_pmi: a one-time
 * cost, printed by bench.sh with BENCH_COLD=1).
 */
static int warm_up(uint32_t nrec, bool session)
{
    uint64_t guard = 0;
    for (int round = getenv("BENCH_COLD") ? 1 : 0; round < 2; round++) {
        E.pending = false;
        while (nrec && !E.pending && guard++ < 10000000ull)
            feed(1);
        if (nrec && !E.pending)
            return -1;
        if (round == 0) {
            struct ds_pmi_result r;
            int e = session ? ds_session_pmi(&ses, 0, &r) : ds_pmi_handle(&E.pmi, &r);
            if (e && e != DS_ERR_SESSION_SPURIOUS)
                return -1;
        }
    }
    return 0;
}

/* The measured PMI (bench_region @mode 3 hand-wired, 4 session) after
 * warm_up; 0 when it drained the @nrec records expected (a foreign NMI
 * for @nrec = 0). */
static int measure_pmi(int mode, const char *what, uint32_t nrec)
{
    uint64_t st = 0;
    dsm_rdmsr(&E.m, 0x38E, &st);
    int r = bench_region(mode, 0);
    printf("%s records=%u status=0x%llx drained=%d samples=%llu\n", what, nrec, (unsigned long long)st, r,
           (unsigned long long)E.samples);
    if (r == -2)
        r = 0; /* foreign NMI: nothing drained */
    return r < 0 || (uint32_t)r != nrec;
}

/*
 * One ds_pmi_handle() call as the measured region, on @fmt's model profile
 * (freeze_of: streamlined from perfmon v4, legacy on v3, none on v2,
 * NetBurst and the KVM guest; threshold = @nrec records):
 * @nrec = 0: a spurious NMI (GLOBAL_STATUS 0, PEBS index below the
 * threshold); else the PMI the model raised when the buffer held @nrec
 * records. scripts/bench.sh runs it under callgrind with the adapter's
 * MSR callbacks (model_read/model_write) toggled out: a real RDMSR/WRMSR
 * is one instruction, the model's emulation of it is not libds's cost.
 */
static int bench_pmi(uint32_t nrec, const char *fmt)
{
    const struct prof *pr = profile_of(fmt);
    if (!pr) {
        fprintf(stderr, "unknown format %s\n", fmt);
        return 2;
    }
    uint32_t thr = nrec ? nrec : 16;
    if (setup_prof(pr, thr + 4, thr, freeze_of(pr->p))) {
        fprintf(stderr, "%s: setup failed\n", fmt);
        return 1;
    }
    E.defer = true;
    if (warm_up(nrec, false)) {
        fprintf(stderr, "%s: no PMI for %u records (model wrote %llu)\n", fmt, nrec,
                (unsigned long long)dsm_stats(&E.m)->pebs_written);
        return 1;
    }
    return measure_pmi(3, "pmi", nrec);
}

static void on_sample(void *a, const struct ds_session_sample *s)
{
    (void)a;
    (void)s;
    E.samples++;
}

static void note_pmi(void *ctx, uint32_t why)
{
    (void)ctx;
    (void)why;
    E.pending = true;
}

/* The session groups of a row: adaptive MSR_PEBS_DATA_CFG bits 3:0 are
 * DS_GROUP_MEM/GPRS/XMM/LBR, bit 4 the counters group; arch PEBS CFG_C. */
static uint32_t groups_of(const struct prof *pr)
{
    uint64_t c = pr->cfg;
    if (!pr->arch)
        return (uint32_t)(c & 0xF) | ((c & DS_PEBS_DATA_CFG_CNTRS) ? DS_GROUP_CNTR : 0);
    return ((c & DS_APEBS_CFG_AUX) ? DS_GROUP_MEM : 0) | ((c & DS_APEBS_CFG_GPR) ? DS_GROUP_GPRS : 0) |
           ((c & DS_APEBS_CFG_XMM) ? DS_GROUP_XMM : 0) | ((c & DS_APEBS_CFG_LBR) ? DS_GROUP_LBR : 0) |
           ((c & DS_APEBS_CFG_CNTR_ALLOW) ? DS_GROUP_CNTR : 0);
}

/* The record size the model writes for the PEBS counter set up (DS-area
 * PEBS: MSR_PEBS_DATA_CFG; arch PEBS: the counter's CFG_C, counters group
 * of the enabled counters). */
static uint32_t model_rsz(uint64_t hit)
{
    return E.arch ? dsm_apebs_record_size(&E.m, hit) : dsm_pebs_record_size(&E.m);
}

/*
 * The session on @pr's model profile, as bench_pmi wires it by hand: the
 * same event (raw INST_RETIRED.ANY_P C0H; the KVM guest BR_INST_RETIRED
 * C4H), USR, period 10, PRECISE, the row's groups, its freeze mode
 * (freeze_of). NetBurst: the hand-wired rows' front_end_event tagged by
 * uop_type TAGLOADS is no precise event to libds's session (event.c), so
 * DS_EVENT_BRANCH_MISSES, replay_event tagged mispredicted branches (the
 * same 40/144-byte records), on a stream of mispredicted branches.
 * @bytes: the region (PEBS part after the DS area's page). Records go to
 * on_pebs = sink, or (@routed) through on_sample.
 */
static int ses_setup(const struct prof *pr, size_t bytes, bool routed)
{
    memset(&E, 0, sizeof(E));
    memset(&ses, 0, sizeof(ses));
    E.arch = pr->arch;
    E.nb = pr->p == DSM_NETBURST_M3 || pr->p == DSM_NETBURST_M4_64;
    mem.base = pr->arch ? PHYS : pr->p == DSM_NETBURST_M3 ? LIN32 : LIN;
    mem.buf = blk;
    mem.size = BLK;
    if (dsm_init(&E.m, pr->p, &fm_ops, &mem) || ds_model_cpu_init(&E.c, &E.m) || ds_cpu_identify(&E.c))
        return -1;
    E.wmask = E.nb || pr->p == DSM_CORE2 ? 0xFFFFFFFFFFull : 0xFFFFFFFFFFFFull;
    struct ds_session_config c;
    memset(&c, 0, sizeof(c));
    c.mem = blk;
    c.mem_linear = mem.base;
    c.mem_phys = mem.base; /* the fake memory answers linear and physical alike */
    c.bytes = bytes;
    if (routed)
        c.on_sample = on_sample;
    else
        c.on_pebs = sink;
    c.freeze_set = true;
    c.freeze = freeze_of(pr->p);
    c.pebs_flags = DS_PMC_PEBS_ALLOW_ERRATA; /* the model has no PEBS errata (Core 2's default refusal) */
    struct ds_request rq;
    memset(&rq, 0, sizeof(rq));
    if (E.nb) {
        rq.event = DS_EVENT_BRANCH_MISSES;
        E.nb_misp = true;
    } else {
        rq.raw.set = true;
        rq.raw.evsel = pr->p == DSM_KVM_SPR ? 0xC4 : 0xC0;
        rq.raw.nb_metric = -1;
    }
    rq.period = 10;
    rq.mode = DS_SAMPLE_PRECISE;
    rq.rings = DS_RING_USER;
    rq.groups = groups_of(pr);
    int e = ds_session_init(&ses, &E.c, &c);
    if (!e)
        e = ds_session_add(&ses, &rq, NULL);
    if (!e)
        e = ds_session_start(&ses);
    if (e) {
        fprintf(stderr, "%s: session: %s\n", pr->n, ds_errname(e));
        return -1;
    }
    dsm_set_pmi(&E.m, note_pmi, NULL);
    return 0;
}

/*
 * bench_pmi's scenario built by the session (ses_setup), the region sized
 * so that the session's PEBS threshold is @nrec records (the buffer holds
 * @nrec + the margin, ds_pebs_thresh_margin; 16 for a foreign NMI). Arch
 * PEBS: a 4 KiB buffer, whose default threshold is one record (arch_pebs.h);
 * a larger one's is the buffer less 4 KiB, so @nrec > 1 is refused (exit 3,
 * with the reason). Before measuring, the session's record size is checked
 * against the hand-wired row's (same groups, same counters group): the two
 * paths must decode the same records.
 */
static int bench_spmi(uint32_t nrec, const char *fmt, bool routed)
{
    const struct prof *pr = profile_of(fmt);
    if (!pr) {
        fprintf(stderr, "unknown format %s\n", fmt);
        return 2;
    }
    if (pr->arch && nrec > 1) {
        printf("n/a: a session's arch-PEBS threshold is one record (4 KiB buffer) or the buffer less 4 KiB\n");
        return 3;
    }
    uint32_t thr = nrec ? nrec : 16;
    /* the hand-wired row's record */
    if (setup_prof(pr, thr + 4, thr, freeze_of(pr->p)))
        return 1;
    uint32_t want = model_rsz(1);
    /* a first session on the whole block for its format and record size */
    if (ses_setup(pr, BLK, routed))
        return 1;
    uint64_t hit = ses.req[0].kind == DS_CTR_FIXED ? 1ull << (32 + ses.req[0].idx) : 1ull << ses.req[0].idx;
    uint32_t rsz = model_rsz(hit), margin = 0;
    enum ds_pebs_fmt f = ses.fmt;
    if (!pr->arch && ds_pebs_thresh_margin(&E.c, f, &margin))
        return 1;
    ds_session_stop(&ses);
    ds_session_teardown(&ses);
    if (rsz != want || !rsz) {
        fprintf(stderr, "%s: the session's records are %u bytes, the hand-wired row's %u (groups differ)\n", fmt, rsz,
                want);
        return 1;
    }
    size_t bytes = pr->arch ? 4096 : 4096 + (size_t)(thr + margin) * rsz;
    if (ses_setup(pr, bytes, routed))
        return 1;
    if (warm_up(nrec, true))
        return 1;
    return measure_pmi(4, "spmi", nrec);
}

int main(int argc, char **argv)
{
    if (argc >= 3 && !strcmp(argv[1], "spmi"))
        return bench_spmi((uint32_t)strtoul(argv[2], NULL, 0), argc >= 4 ? argv[3] : "fmt3", false);
    if (argc >= 3 && !strcmp(argv[1], "spmi-routed"))
        return bench_spmi((uint32_t)strtoul(argv[2], NULL, 0), argc >= 4 ? argv[3] : "fmt3", true);
    if (argc >= 3 && !strcmp(argv[1], "pmi"))
        return bench_pmi((uint32_t)strtoul(argv[2], NULL, 0), argc >= 4 ? argv[3] : "fmt3");
    if (argc >= 2 && !strcmp(argv[1], "archive")) {
        printf("%s, as linked into ds_bench\n", DS_BENCH_ARCHIVE);
        return 0;
    }
    if (argc >= 2 && !strcmp(argv[1], "msr"))
        return bench_msr();
    if (argc >= 4 && (!strcmp(argv[1], "drain") || !strcmp(argv[1], "copy") || !strcmp(argv[1], "wcopy")))
        return bench_drain(argv[2], (uint32_t)strtoul(argv[3], NULL, 0),
                           !strcmp(argv[1], "copy") ? 1 : !strcmp(argv[1], "wcopy") ? 2 : 0);
    fprintf(stderr, "usage: ds_bench msr | drain|copy|wcopy <fmt> <n> | pmi|spmi|spmi-routed <records> [<fmt>]\n");
    return 2;
}

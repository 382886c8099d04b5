/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Benchmark driver for scripts/bench.sh (prints figures, asserts nothing
 * about time). Built only when libds core (area/pebs/pmi) is in the tree.
 *
 *   ds_bench msr                 MSR accesses per PMI, counted by the model,
 *                                for each handler path and PMI kind
 *   ds_bench drain <fmt> <n>     fill a PEBS buffer with n records of <fmt>
 *                                (model), then drain+decode them with libds
 *                                inside bench_region() (callgrind toggles on it)
 *   ds_bench copy <fmt> <n>      same buffer, bench_region() copies the bytes
 *                                with the C library's memcpy()
 *   ds_bench pmi <n>             one ds_pmi_handle() in bench_region(): n = 0
 *                                a spurious NMI, else a PEBS PMI with n records
 *   ds_bench wcopy <fmt> <n>     same buffer, bench_region() copies the bytes
 *                                with a plain 64-bit-word loop (word_copy)
 *   ds_bench spmi <n>            as pmi, through the session API (session.h):
 *                                one ds_session_pmi() in bench_region() on the
 *                                same Skylake setup (PMC0 INST_RETIRED.ANY_P,
 *                                period 10, threshold n records, streamlined),
 *                                the records to on_pebs = the pmi mode's sink
 *   ds_bench spmi-routed <n>     as spmi, the records through on_sample
 *
 * <fmt>: nb32 nb64 fmt0 fmt1 fmt2 fmt3 fmt4 (fmt4: basic+meminfo+GPRs).
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
#include <ds/pmi.h>
#include <ds/session.h>

#define LIN 0xFFFF800000100000ull
#define LIN32 0x00400000ull
#define BLK (8u << 20)
static _Alignas(4096) uint8_t blk[BLK];
static _Alignas(8) uint8_t copy_dst[BLK];
static struct fake_mem mem;

struct env {
    struct dsm_cpu m;
    struct ds_cpu c;
    struct ds_ctx ctx;
    struct ds_pmi pmi;
    bool nb;
    uint64_t wmask;
    uint64_t samples;
    uint64_t pmis, msr_in_pmi;
    bool ovf_reload;          /* counter-overflow scenario: hook reloads the counter */
    bool defer;               /* PMI cost bench: the callback only notes the request */
    bool pending;
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

static bool profile_of(const char *fmt, enum dsm_profile *p, uint64_t *cfg)
{
    static const struct { const char *n; enum dsm_profile p; uint64_t cfg; } t[] = {
        { "nb32", DSM_NETBURST_M3, 0 }, { "nb64", DSM_NETBURST_M4_64, 0 }, { "fmt0", DSM_CORE2, 0 },
        { "fmt1", DSM_NEHALEM, 0 }, { "fmt2", DSM_HASWELL, 0 }, { "fmt3", DSM_SKYLAKE, 0 },
        { "fmt4", DSM_ICELAKE, 0x3 },
        /* buffers helper rows: adaptive group combinations (MSR_PEBS_DATA_CFG) */
        { "fmt4b", DSM_ICELAKE, 0x0 }, { "fmt4m", DSM_ICELAKE, 0x1 }, { "fmt4g", DSM_ICELAKE, 0x2 },
        { "fmt4x", DSM_ICELAKE, 0x4 }, { "fmt4a", DSM_ICELAKE, 0x7 },
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
        if (!strcmp(fmt, t[i].n)) {
            *p = t[i].p;
            *cfg = t[i].cfg;
            return true;
        }
    return false;
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
    if (p == DSM_ICELAKE)
        dsm_wrmsr(&E.m, 0x3F2, cfg);
    uint32_t rsz = dsm_pebs_record_size(&E.m);
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
    if (ds_pmi_init(&E.pmi, &E.c, &E.ctx, &pc))
        return -1;
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
        dsm_wrmsr(&E.m, 0x186, 0xC0 | (1 << 16) | (1 << 22) | (p == DSM_ICELAKE ? (1ull << 34) : 0));
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
    struct dsm_stream st;
    struct dsm_event ev;
    dsm_stream_init(&st, 7, 0x400000);
    st.load_pct = E.nb ? 100 : 25;
    st.branch_pct = E.nb ? 0 : 15;
    for (uint64_t i = 0; i < n; i++)
        dsm_retire(&E.m, dsm_stream_next(&st, &ev));
}

static int bench_msr(void)
{
    static const struct { const char *name; enum dsm_profile p; enum ds_freeze_mode fz; } paths[] = {
        { "perfmon v2 (Core 2), no freeze", DSM_CORE2, DS_FREEZE_NONE },
        { "perfmon v3 legacy freeze (Nehalem)", DSM_NEHALEM, DS_FREEZE_LEGACY },
        { "perfmon v3 legacy freeze (Haswell)", DSM_HASWELL, DS_FREEZE_LEGACY },
        { "perfmon v4 streamlined (Skylake)", DSM_SKYLAKE, DS_FREEZE_STREAMLINED },
        { "NetBurst 64-bit DS", DSM_NETBURST_M4_64, DS_FREEZE_NONE },
    };
    printf("%-40s %-22s %8s %10s\n", "path", "PMI kind", "PMIs", "MSR/PMI");
    for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
        for (int ovf = 0; ovf < 2; ovf++) {
            if (setup(paths[i].p, 0, 64, 1, paths[i].fz, ovf)) {
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
           " on every PMI to find the overflow, which is the 1 access of the PEBS-only NetBurst row.)\n");
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
        return ds_pebs_drain(&E.ctx, sink, NULL, &st);
    }
    if (mode == 1)
        memcpy(copy_dst, E.ctx.pebs.mem, bytes);
    else
        word_copy((uint64_t *)(void *)copy_dst, (const uint64_t *)(const void *)E.ctx.pebs.mem, bytes / 8);
    return copy_dst[bytes / 2];
}

/* mode: 0 drain+decode, 1 memcpy, 2 word-loop copy */
static int bench_drain(const char *fmt, uint32_t n, int mode)
{
    enum dsm_profile p;
    uint64_t cfg;
    if (!profile_of(fmt, &p, &cfg)) {
        fprintf(stderr, "unknown format %s\n", fmt);
        return 2;
    }
    if (p == DSM_CORE2 && n > 4096 / 144 - 4)
        n = 4096 / 144 - 4; /* fmt0 buffers stop at 4 KiB (DS_ERR_PEBS_BUF_4K) */
    if (setup(p, cfg, n + 4, 0, DS_FREEZE_NONE, false))
        return 1;
    /* feed until n records are in the buffer */
    uint64_t guard = 0;
    while (dsm_stats(&E.m)->pebs_written < n && guard++ < 100000000ull)
        feed(1000);
    uint64_t pending = 0;
    ds_pebs_pending(&E.ctx, &pending);
    size_t bytes = (size_t)(dsm_stats(&E.m)->pebs_written * dsm_pebs_record_size(&E.m));
    int r = bench_region(mode, bytes);
    printf("%s %s records=%llu bytes=%zu samples=%llu rc=%d\n", mode == 2 ? "wcopy" : mode ? "copy" : "drain", fmt,
           (unsigned long long)pending, bytes, (unsigned long long)E.samples, r);
    return 0;
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
 * One ds_pmi_handle() call as the measured region, on the Skylake model
 * (perfmon v4, streamlined freeze, PEBS fmt 3, threshold = @nrec records):
 * @nrec = 0: a spurious NMI (GLOBAL_STATUS 0, PEBS index below the
 * threshold); else the PMI the model raised when the buffer held @nrec
 * records. scripts/bench.sh runs it under callgrind with the adapter's
 * MSR callbacks (model_read/model_write) toggled out: a real RDMSR/WRMSR
 * is one instruction, the model's emulation of it is not libds's cost.
 */
static int bench_pmi(uint32_t nrec)
{
    if (setup(DSM_SKYLAKE, 0, (nrec ? nrec : 16) + 4, nrec ? nrec : 16, DS_FREEZE_STREAMLINED, false))
        return 1;
    E.defer = true;
    if (warm_up(nrec, false))
        return 1;
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

/*
 * bench_pmi's scenario built by the session: the same model profile,
 * counter, event (USR only, as setup() writes it), period, threshold and
 * freeze mode; the region is sized so that the session's threshold
 * (records - 4 PEBS counters) is @nrec records.
 */
static int bench_spmi(uint32_t nrec, bool routed)
{
    uint32_t thr = nrec ? nrec : 16;
    memset(&E, 0, sizeof(E));
    memset(&ses, 0, sizeof(ses));
    mem.base = LIN;
    mem.buf = blk;
    mem.size = BLK;
    if (dsm_init(&E.m, DSM_SKYLAKE, &fm_ops, &mem) || ds_model_cpu_init(&E.c, &E.m) || ds_cpu_identify(&E.c))
        return 1;
    struct ds_session_config c;
    memset(&c, 0, sizeof(c));
    c.mem = blk;
    c.mem_linear = LIN;
    c.bytes = 4096 + (size_t)(thr + 4) * 0xC8;
    /* the hand-wired path's consumer (sink) as on_pebs; routed: through
     * on_sample (ds_session_sample, request id) */
    if (routed)
        c.on_sample = on_sample;
    else
        c.on_pebs = sink;
    c.freeze_set = true;
    c.freeze = DS_FREEZE_STREAMLINED;
    struct ds_request rq;
    memset(&rq, 0, sizeof(rq));
    rq.raw.set = true;
    rq.raw.evsel = 0xC0;
    rq.raw.nb_metric = -1;
    rq.period = 10;
    rq.mode = DS_SAMPLE_PRECISE;
    rq.rings = DS_RING_USER;
    int e = ds_session_init(&ses, &E.c, &c);
    if (!e)
        e = ds_session_add(&ses, &rq, NULL);
    if (!e)
        e = ds_session_start(&ses);
    if (e) {
        fprintf(stderr, "session: %s\n", ds_errname(e));
        return 1;
    }
    dsm_set_pmi(&E.m, note_pmi, NULL);
    if (warm_up(nrec, true))
        return 1;
    return measure_pmi(4, "spmi", nrec);
}

int main(int argc, char **argv)
{
    if (argc >= 3 && !strcmp(argv[1], "spmi"))
        return bench_spmi((uint32_t)strtoul(argv[2], NULL, 0), false);
    if (argc >= 3 && !strcmp(argv[1], "spmi-routed"))
        return bench_spmi((uint32_t)strtoul(argv[2], NULL, 0), true);
    if (argc >= 3 && !strcmp(argv[1], "pmi"))
        return bench_pmi((uint32_t)strtoul(argv[2], NULL, 0));
    if (argc >= 2 && !strcmp(argv[1], "msr"))
        return bench_msr();
    if (argc >= 4 && (!strcmp(argv[1], "drain") || !strcmp(argv[1], "copy") || !strcmp(argv[1], "wcopy")))
        return bench_drain(argv[2], (uint32_t)strtoul(argv[3], NULL, 0),
                           !strcmp(argv[1], "copy") ? 1 : !strcmp(argv[1], "wcopy") ? 2 : 0);
    fprintf(stderr, "usage: ds_bench msr | drain|copy|wcopy <fmt> <n> | pmi|spmi|spmi-routed <records>\n");
    return 2;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Model-only soak: random periods, thresholds and buffer sizes on every
 * PEBS-capable profile, a handler that drains at most PMIs (and sometimes
 * "forgets", forcing skips). Checks conservation: assists = written +
 * skipped, written = drained + left in the buffer, BTS records = taken
 * branches. The seed is printed; DSM_SOAK_SEED and DSM_SOAK_EVENTS override.
 * (The libds end-to-end soak of issue 4 builds on this in round 2.)
 */
#include <stdio.h>
#include <stdlib.h>
#include "check.h"
#include "model_util.h"
#include "dsm_stream.h"

#define LIN 0xFFFF800000100000ull
#define LIN32 0x00400000ull
#define MEMSZ (4u << 20)
static uint8_t membuf[MEMSZ];
static uint64_t tot_written, tot_skipped, tot_bts_skipped, tot_pmis;

struct soak {
    struct dsm_cpu c;
    struct fake_mem mem;
    uint64_t area;
    bool ds64;
    uint32_t pebs_size;           /* 0 for adaptive: walk by header */
    uint64_t rng;
    uint64_t drained_pebs, drained_bts, pmis;
    unsigned forget_pct;
};

static uint64_t field(struct soak *s, unsigned i)
{
    return s->ds64 ? rd64(&s->mem, s->area + 8 * i) : rd32(&s->mem, s->area + 4 * i);
}

static void set_field(struct soak *s, unsigned i, uint64_t v)
{
    if (s->ds64)
        wr64(&s->mem, s->area + 8 * i, v);
    else
        wr32(&s->mem, s->area + 4 * i, (uint32_t)v);
}

static uint64_t count_pebs(struct soak *s, uint64_t base, uint64_t idx)
{
    if (s->pebs_size)
        return (idx - base) / s->pebs_size;
    uint64_t n = 0;
    while (base < idx) {
        uint64_t sz = rd64(&s->mem, base) >> 48;
        if (sz < 32)
            return ~0ull;   /* corrupt: fail loudly */
        base += sz;
        n++;
    }
    return n;
}

static void soak_pmi(void *ctx, uint32_t why)
{
    struct soak *s = ctx;
    s->pmis++;
    if (dsm_rand_range(&s->rng, 0, 99) < s->forget_pct)
        return;
    if (why & DSM_PMI_PEBS) {
        s->drained_pebs += count_pebs(s, field(s, 4), field(s, 5));
        set_field(s, 5, field(s, 4));
    }
    if (why & DSM_PMI_BTS) {
        s->drained_bts += (field(s, 1) - field(s, 0)) / dsm_bts_record_size(&s->c);
        set_field(s, 1, field(s, 0));
    }
    if (s->c.kind == 2 && s->c.version >= 2) {
        uint64_t st;
        dsm_rdmsr(&s->c, 0x38E, &st);
        dsm_wrmsr(&s->c, 0x390, st);
    }
}

static void run_one(enum dsm_profile p, uint64_t seed, uint64_t nev)
{
    static struct soak s;
    memset(&s, 0, sizeof(s));
    memset(membuf, 0, sizeof(membuf));
    s.rng = seed;
    bool nb = p == DSM_NETBURST_M3 || p == DSM_NETBURST_M4_64;
    s.mem.base = p == DSM_NETBURST_M3 ? LIN32 : LIN;
    s.mem.buf = membuf;
    s.mem.size = MEMSZ;
    CHECK_EQ(dsm_init(&s.c, p, &fm_ops, &s.mem), DSM_OK, "init");
    dsm_set_pmi(&s.c, soak_pmi, &s);
    s.area = s.mem.base;
    s.ds64 = dsm_ds64(&s.c);
    s.forget_pct = (unsigned)dsm_rand_range(&s.rng, 0, 30);
    uint64_t P = dsm_rand_range(&s.rng, 1, 400);
    bool btint = dsm_rand_range(&s.rng, 0, 1);
    uint32_t bts_sz = dsm_bts_record_size(&s.c);
    uint64_t bts_n = dsm_rand_range(&s.rng, 1, 512), bts_thr = dsm_rand_range(&s.rng, 1, bts_n);
    uint64_t bts_base = s.mem.base + 0x1000, pebs_base = s.mem.base + 0x10000;
    uint64_t width_mask;
    uint64_t cfg = 0;
    if (p == DSM_ICELAKE) {
        cfg = dsm_rand_range(&s.rng, 0, 15) | (dsm_rand_range(&s.rng, 0, 31) << 24);
        if (!(cfg & 8))
            cfg &= 0xF;
    }
    /* adaptive records are walked by their header size; fixed formats by stride */
    s.pebs_size = p == DSM_ICELAKE ? 0 : dsm_pebs_record_size(&s.c);
    uint64_t pebs_n = dsm_rand_range(&s.rng, 1, 256), pebs_thr = dsm_rand_range(&s.rng, 1, pebs_n);
    printf("# %s seed=0x%llx P=%llu pebs %llu/%llu bts %llu/%llu btint=%d forget=%u%% cfg=0x%llx\n",
           dsm_profile_name(p), (unsigned long long)seed, (unsigned long long)P, (unsigned long long)pebs_thr,
           (unsigned long long)pebs_n, (unsigned long long)bts_thr, (unsigned long long)bts_n, btint, s.forget_pct,
           (unsigned long long)cfg);
    if (nb) {
        width_mask = 0xFFFFFFFFFFull;
        dsm_wrmsr(&s.c, 0x3BC, (0x02ull << 25) | (1ull << 10) | (1 << 4) | (1 << 2)); /* uop_type TAGLOADS */
        dsm_wrmsr(&s.c, 0x3CC, (0x08ull << 25) | (1ull << 9) | (1 << 2));             /* front_end_event */
        dsm_wrmsr(&s.c, 0x310, (-P) & width_mask);
        dsm_wrmsr(&s.c, 0x370, 0x0003B000);
        dsm_wrmsr(&s.c, 0x3F1, 1ull << 25);
        dsm_wrmsr(&s.c, 0x1D9, (1 << 2) | (1 << 3) | (btint ? (1 << 4) : 0));
    } else {
        width_mask = p == DSM_CORE2 || p == DSM_ATOM ? 0xFFFFFFFFFFull : 0xFFFFFFFFFFFFull;
        if (p == DSM_ICELAKE)
            dsm_wrmsr(&s.c, 0x3F2, cfg);
        dsm_wrmsr(&s.c, 0x186, 0xC0 | (1 << 16) | (1 << 22) | (p == DSM_ICELAKE ? (1ull << 34) : 0));
        dsm_wrmsr(&s.c, 0xC1, (uint32_t)-P);   /* P <= 400: sign extension gives -P */
        dsm_wrmsr(&s.c, 0x3F1, 1);
        dsm_wrmsr(&s.c, 0x38F, 1);
        dsm_wrmsr(&s.c, 0x1D9, 1 | (1 << 6) | (1 << 7) | (btint ? (1 << 8) : 0));
    }
    uint32_t psz = p == DSM_ICELAKE ? dsm_pebs_record_size(&s.c) : s.pebs_size;
    ds_setup(&s.mem, s.area, s.ds64, bts_base, bts_base + bts_n * bts_sz, bts_base + bts_thr * bts_sz, pebs_base,
             pebs_base + pebs_n * psz, pebs_base + pebs_thr * psz);
    if (s.ds64)
        wr64(&s.mem, s.area + 0x40, (-P) & width_mask);
    else
        wr64(&s.mem, s.area + 0x20, (-P) & width_mask);
    dsm_wrmsr(&s.c, 0x600, s.area);
    CHECK_EQ(dsm_stats(&s.c)->wrmsr_gp, 0, "setup without faults %s", dsm_profile_name(p));

    struct dsm_stream st;
    dsm_stream_init(&st, seed ^ 0xABCDEF, 0x400000);
    struct dsm_event ev;
    uint64_t occ = 0, taken = 0;
    for (uint64_t i = 0; i < nev; i++) {
        dsm_stream_next(&st, &ev);
        occ += nb ? (ev.flags & DSM_EV_LOAD) != 0 : 1;
        taken += (ev.flags & DSM_EV_TAKEN) != 0;
        dsm_retire(&s.c, &ev);
    }
    const struct dsm_stats *x = dsm_stats(&s.c);
    const char *n = dsm_profile_name(p);
    uint64_t left_pebs = count_pebs(&s, field(&s, 4), field(&s, 5));
    CHECK_EQ(x->pebs_written + x->pebs_skipped, dsm_pebs_expected(occ, P), "assists = written + skipped %s", n);
    CHECK_EQ(s.drained_pebs + left_pebs, x->pebs_written, "written = drained + left %s", n);
    if (btint) {
        uint64_t left_bts = (field(&s, 1) - field(&s, 0)) / bts_sz;
        CHECK_EQ(x->bts_written + x->bts_skipped, taken, "BTS: a record or a skip per taken branch %s", n);
        CHECK_EQ(s.drained_bts + left_bts, x->bts_written, "BTS: written = drained + left %s", n);
    } else {
        CHECK_EQ(x->bts_written, taken, "circular BTS: every taken branch recorded %s", n);
        CHECK_EQ(x->pmi_bts, 0, "circular BTS: no PMI %s", n);
    }
    CHECK_EQ(x->mem_faults, 0, "no memory faults %s", n);
    tot_written += x->pebs_written;
    tot_skipped += x->pebs_skipped;
    tot_bts_skipped += x->bts_skipped;
    tot_pmis += x->pmis;
}

int main(void)
{
    uint64_t seed = 0x5EED0001ull, total = 10000000ull;
    const char *e = getenv("DSM_SOAK_SEED");
    if (e)
        seed = strtoull(e, NULL, 0);
    e = getenv("DSM_SOAK_EVENTS");
    if (e)
        total = strtoull(e, NULL, 0);
    static const enum dsm_profile profs[] = { DSM_NETBURST_M3, DSM_NETBURST_M4_64, DSM_CORE2, DSM_ATOM,
                                              DSM_NEHALEM, DSM_HASWELL, DSM_SKYLAKE, DSM_ICELAKE };
    const unsigned nprof = sizeof(profs) / sizeof(profs[0]), runs = 4;
    printf("# soak: seed=0x%llx events=%llu (replay: DSM_SOAK_SEED=0x%llx)\n", (unsigned long long)seed,
           (unsigned long long)total, (unsigned long long)seed);
    uint64_t rng = seed;
    for (unsigned r = 0; r < runs; r++)
        for (unsigned i = 0; i < nprof; i++)
            run_one(profs[i], dsm_rand(&rng), total / (runs * nprof));
    printf("# totals: pebs written %llu skipped %llu, bts skipped %llu, pmis %llu\n",
           (unsigned long long)tot_written, (unsigned long long)tot_skipped, (unsigned long long)tot_bts_skipped,
           (unsigned long long)tot_pmis);
    if (total >= 1000000 && seed == 0x5EED0001ull)
        CHECK(tot_skipped > 0 && tot_bts_skipped > 0, "the default soak exercises the skip paths");
    return check_summary();
}

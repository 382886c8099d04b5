/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target over the PEBS/BTS drains and the PEBS decoder: the input
 * chooses a CPU profile and buffer, supplies every DS management field
 * (base, index, maximum, threshold) and the record bytes. The buffer is
 * malloc'd at its exact size, so ASan reports any read outside it. Checked
 * after every drain:
 *   present == records + lost_beyond + lost_corrupt + lost_rejected + lost_race,
 *   records == samples the sink accepted, the index is back at base,
 *   and for fixed-size threshold-mode buffers present == (index - base) / size.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include "fake_cpu.h"

struct in {
    const uint8_t *p;
    size_t n;
};

static uint64_t take(struct in *in, unsigned bytes)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < bytes; i++) {
        v |= (uint64_t)(in->n ? *in->p : 0) << (8 * i);
        if (in->n) {
            in->p++;
            in->n--;
        }
    }
    return v;
}

struct sink_state {
    uint64_t taken, calls;
    uint8_t refuse_mask;
};

static int pebs_sink(void *a, const struct ds_pebs_sample *s)
{
    struct sink_state *st = a;
    volatile uint64_t touch = s->ip ^ s->gpr[DS_GPR_R15] ^ s->tsc;
    if (s->lbr && s->lbr_count)
        touch ^= s->lbr[s->lbr_count - 1].info; /* must lie inside the buffer */
    if (s->xmm)
        touch ^= s->xmm->xmm[31];
    (void)touch;
    st->calls++;
    if (st->refuse_mask & (1u << (st->calls & 7)))
        return 1;
    st->taken++;
    return 0;
}

static int bts_sink(void *a, const struct ds_bts_branch *b)
{
    struct sink_state *st = a;
    volatile uint64_t touch = b->from ^ b->to;
    (void)touch;
    st->calls++;
    if (st->refuse_mask & (1u << (st->calls & 7)))
        return 1;
    st->taken++;
    return 0;
}

static void fail(const char *what)
{
    fprintf(stderr, "fuzz_drain: invariant broken: %s\n", what);
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct fake_cpu f;
    static struct ds_cpu cpu;
    static struct ds_ctx ctx;
    static union ds_area area __attribute__((aligned(64)));
    struct in in = { data, size };

    unsigned prof = (unsigned)take(&in, 1) % 8;
    unsigned what = (unsigned)take(&in, 1) % 3; /* 0 PEBS, 1 BTS threshold, 2 BTS circular */
    uint8_t refuse = (uint8_t)take(&in, 1);
    uint64_t data_cfg = take(&in, 1) & 0xF;
    data_cfg |= (take(&in, 1) & 0x7) << 24; /* up to 8 LBRs */
    bool ia32e = true;
    switch (prof) {
    case 0: fake_skylake_pmu(&f); break;
    case 1: fake_haswell(&f); break;
    case 2: fake_haswell(&f); fake_set_msr(&f, DS_MSR_IA32_PERF_CAPABILITIES, 0x1C4); break; /* fmt1 */
    case 3: fake_core2(&f); break;
    case 4: fake_icelake(&f); break;
    case 5: fake_icelake(&f); fake_set_msr(&f, DS_MSR_IA32_PERF_CAPABILITIES, 0x4500); break;
    case 6: fake_netburst(&f); ia32e = false; break;
    default: fake_netburst(&f); break;
    }
    memset(&cpu, 0, sizeof(cpu));
    memset(&ctx, 0, sizeof(ctx));
    ds_cpu_init(&cpu, &fake_ops, &f);
    ds_cpu_set_ia32e(&cpu, ia32e);
    ds_cpu_identify(&cpu);
    enum ds_layout lay;
    ds_area_layout(&cpu, &lay);
    enum ds_pebs_fmt fmt = DS_PEBS_FMT_NONE;
    ds_pebs_format_select(&cpu, lay, &fmt);
    bool adaptive = ds_pebs_fmt_adaptive(fmt);
    if (!adaptive)
        data_cfg = 0;

    uint32_t rec = what == 0 ? ds_pebs_record_size(fmt, data_cfg) : (lay == DS_LAYOUT_32 ? 12 : 24);
    uint32_t mg = DS_THRESH_MARGIN; /* PEBS: one record per PEBS counter (ds_pebs_thresh_margin) */
    if (what == 0 && ds_pebs_thresh_margin(&cpu, fmt, &mg) != DS_OK)
        mg = DS_THRESH_MARGIN;
    uint32_t nrec = mg + 1 + (uint32_t)(take(&in, 1) % 6);
    size_t bytes = (size_t)rec * nrec;
    unsigned char *buf = malloc(bytes);
    if (!buf)
        return 0;
    uint32_t thr = what == 2 ? 0 : 1 + (uint32_t)(take(&in, 1) % (nrec - mg));

    struct ds_area_config cfg;
    memset(&cfg, 0, sizeof(cfg));
    cfg.area = &area;
    if (lay == DS_LAYOUT_32)
        cfg.area_linear = 0x10000;
    struct ds_buf_config *bc = what == 0 ? &cfg.pebs : &cfg.bts;
    bc->mem = buf;
    bc->bytes = bytes;
    bc->thresh_records = thr;
    bc->linear = lay == DS_LAYOUT_32 ? 0x20000 : 0;
    cfg.pebs_data_cfg = what == 0 ? data_cfg : 0;
    int e = ds_area_setup(&ctx, &cpu, &cfg);
    if (e != DS_OK) {
        fprintf(stderr, "setup failed: %s (prof %u what %u)\n", ds_errname(e), prof, what);
        abort(); /* every generated configuration is valid */
    }
    /* DS management fields first (fixed size), then the record bytes (rest
     * of the input, zero padded): index relative to base (signed) or raw;
     * base/max/threshold raw or as set up. */
    bool pebs = what == 0;
    uint64_t base = pebs ? ctx.pebs.linear : ctx.bts.linear;
    uint8_t mode = (uint8_t)take(&in, 1);
    int64_t rel = (int64_t)(int32_t)take(&in, 4);
    uint64_t rawidx = take(&in, 8);
    uint64_t fbase = take(&in, 8), fmax = take(&in, 8), fthr = take(&in, 8);
    int lie_at = (int)(take(&in, 1) % 8);
    uint64_t idx = (mode & 1) ? rawidx : base + (uint64_t)rel;
    size_t nb = in.n < bytes ? in.n : bytes;
    memcpy(buf, in.p, nb);
    memset(buf + nb, 0, bytes - nb);
    if (lay == DS_LAYOUT_32) {
        uint32_t *a = (uint32_t *)&area.a32 + (pebs ? 4 : 0);
        if (mode & 2) a[0] = (uint32_t)fbase;
        a[1] = (uint32_t)idx;
        if (mode & 4) a[2] = (uint32_t)fmax;
        if (mode & 8) a[3] = (uint32_t)fthr;
        idx = (uint32_t)idx;
    } else {
        uint64_t *a = (uint64_t *)&area.a64 + (pebs ? 4 : 0);
        if (mode & 2) a[0] = fbase;
        a[1] = idx;
        if (mode & 4) a[2] = fmax;
        if (mode & 8) a[3] = fthr;
    }

    /* Adaptive PEBS: random bytes almost never form a consistent header, so
     * (mode bit 4) rewrite the headers into a valid chain of records whose
     * groups come from the input; bit 5 lets one header keep a lying size. */
    if (pebs && adaptive && (mode & 0x10)) {
        size_t pos = 0;
        if (!(mode & 0x20))
            lie_at = -1;
        for (int k = 0; pos + 32 <= bytes; k++) {
            uint64_t h;
            memcpy(&h, buf + pos, 8);
            /* Like the CPU: a record has the DATA_CFG groups, or (counter
             * without the adaptive bit) only the basic group. */
            uint64_t g = (h & 1) ? data_cfg : 0;
            uint32_t sz = ds_pebs_record_size(fmt, g);
            if (k != lie_at)
                h = (h & (0xFFFFull << 32)) | g | ((uint64_t)sz << 48);
            memcpy(buf + pos, &h, 8);
            if (pos + sz > bytes)
                break;
            pos += sz;
        }
        if (mode & 0x40) { /* index at the end of the chain (the common, sane case) */
            idx = base + pos;
            if (lay == DS_LAYOUT_32)
                area.a32.pebs_index = (uint32_t)idx;
            else
                area.a64.pebs_index = idx;
        }
    }

    struct sink_state ss = { 0, 0, refuse };
    struct ds_drain_stats st;
    if (pebs)
        e = ds_pebs_drain(&ctx, pebs_sink, &ss, &st);
    else
        e = ds_bts_drain(&ctx, bts_sink, &ss, &st);
    if (e != DS_OK)
        fail("drain returned an error");
    if (st.present != st.records + st.lost_beyond + st.lost_corrupt + st.lost_rejected + st.lost_race)
        fail("present != records + lost");
    if (st.records != ss.taken)
        fail("records != samples taken by the sink");
    if (st.records + st.lost_rejected != ss.calls)
        fail("sink calls != records + rejected");
    uint64_t now = lay == DS_LAYOUT_32 ? area.a32.pebs_index : area.a64.pebs_index;
    if (!pebs)
        now = lay == DS_LAYOUT_32 ? area.a32.bts_index : area.a64.bts_index;
    if (now != base)
        fail("index not reset to base");
    if (!adaptive && what != 2) {
        uint64_t want = idx >= base ? (idx - base) / rec : 0;
        if (st.present != want)
            fail("present != (index - base) / record size");
    }
    if (what == 2 && st.present > nrec + (idx >= base ? (idx - base) / rec : 0))
        fail("circular: more present than possible");

    /* The decoder alone over the raw bytes, exact-size allocation. */
    if (pebs && fmt != DS_PEBS_FMT_NONE) {
        struct ds_pebs_sample s;
        size_t avail = nb;
        unsigned char *raw = malloc(avail ? avail : 1);
        if (raw) {
            memcpy(raw, buf, avail);
            e = ds_pebs_decode(fmt, raw, avail, false, &s);
            if (e == DS_OK) {
                if (s.size > avail)
                    fail("decoded record larger than available bytes");
                volatile uint64_t t = s.lbr && s.lbr_count ? s.lbr[s.lbr_count - 1].info : 0;
                (void)t;
            }
            free(raw);
        }
    }
    free(buf);
    return 0;
}

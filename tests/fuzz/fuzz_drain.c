/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target over the PEBS/BTS drains and the PEBS decoder: the input
 * chooses a CPU profile and buffer, supplies every DS management field
 * (base, index, maximum, threshold) and the record bytes. The buffer is
 * malloc'd at its exact size, so ASan reports any read outside it. Checked
 * after every drain:
 *   present == records + lost_beyond + lost_corrupt + lost_rejected + lost_race,
 *   records == samples the sink accepted, the index is back at base,
 *   and, against an oracle written here from the SDM ("DS Save Area": base,
 *   index, absolute maximum, threshold; records from base to index) and the
 *   pebs.h contract, not from libds's code (struct drain_oracle):
 *   the anomaly flags (index below base / misaligned / past the maximum /
 *   exactly at it, base/max/threshold fields changed and repaired, race),
 *   the present / lost_beyond / lost_race split, and each BTS branch's
 *   from/to/flags against the record bytes. Index choices include the exact
 *   boundaries (threshold, absolute maximum, one byte either side); the
 *   sink can move the index during the drain (the CPU appending records:
 *   the race path). LLVMFuzzerTestOneInput (fuzz_main.c) dispatches here.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include "fake_cpu.h"
#include "fuzz.h"

struct sink_state {
    uint64_t taken, calls;
    uint8_t refuse_mask;
    /* BTS content oracle: the buffer and record size (0: not checked) */
    const unsigned char *recs;
    uint32_t rec;
    bool rec32;
    bool bad_branch;
    /* race: on call number race_at, store race_idx into the index field */
    uint64_t race_at;
    uint64_t race_idx;
    union ds_area *area;
    bool pebs, lay32;
};

static uint64_t ld(const unsigned char *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static void sink_common(struct sink_state *st)
{
    st->calls++;
    if (st->race_at && st->calls == st->race_at) {
        if (st->lay32) {
            uint32_t *a = (uint32_t *)&st->area->a32 + (st->pebs ? 4 : 0);
            a[1] = (uint32_t)st->race_idx;
        } else {
            uint64_t *a = (uint64_t *)&st->area->a64 + (st->pebs ? 4 : 0);
            a[1] = st->race_idx;
        }
    }
}

static int pebs_sink(void *a, const struct ds_pebs_sample *s)
{
    struct sink_state *st = a;
    volatile uint64_t touch = s->ip ^ s->gpr[DS_GPR_R15] ^ s->tsc;
    if (s->lbr && s->lbr_count)
        touch ^= s->lbr[s->lbr_count - 1].info; /* must lie inside the buffer */
    if (s->xmm)
        touch ^= s->xmm->xmm[31];
    (void)touch;
    sink_common(st);
    if (st->refuse_mask & (1u << (st->calls & 7)))
        return 1;
    st->taken++;
    return 0;
}

static int bts_sink(void *a, const struct ds_bts_branch *b)
{
    struct sink_state *st = a;
    if (st->rec) {
        /* SDM "Branch Trace Store (BTS)": from, to, flags; bit 4 predicted */
        const unsigned char *r = st->recs + (size_t)st->calls * st->rec;
        unsigned w = st->rec32 ? 4 : 8;
        uint64_t fl = ld(r + 2 * w, w);
        if (b->from != ld(r, w) || b->to != ld(r + w, w) || b->flags != fl ||
            b->predicted != ((fl >> 4) & 1))
            st->bad_branch = true;
    }
    sink_common(st);
    if (st->refuse_mask & (1u << (st->calls & 7)))
        return 1;
    st->taken++;
    return 0;
}

static void fail(const char *what)
{
    fuzz_fail("fuzz_drain", what);
}

/*
 * The oracle: what a drain must report, from the SDM's description of the
 * DS fields and the pebs.h contract only. B = base linear set up, N = buffer
 * bytes, R = record size, T = threshold field set up; fields as the harness
 * left them before the drain; race = the index value the "CPU" stored during
 * the walk (valid when raced).
 */
struct drain_oracle {
    uint32_t anomalies;
    uint64_t present, lost_beyond, inbuf, lost_race;
};

static void oracle(uint64_t B, uint64_t N, uint32_t R, uint64_t T, const uint64_t f[4], bool raced,
                   uint64_t race, struct drain_oracle *o)
{
    memset(o, 0, sizeof(*o));
    if (f[0] != B)
        o->anomalies |= DS_DRAIN_BASE_CHANGED;
    if (f[2] != B + N)
        o->anomalies |= DS_DRAIN_MAX_CHANGED;
    if (f[3] != T)
        o->anomalies |= DS_DRAIN_THRESH_CHANGED;
    uint64_t idx = f[1];
    if (idx < B) {
        o->anomalies |= DS_DRAIN_INDEX_BELOW_BASE;
    } else {
        uint64_t off = idx - B, nrec = N / R;
        if (off % R)
            o->anomalies |= DS_DRAIN_INDEX_MISALIGNED;
        if (off > N)
            o->anomalies |= DS_DRAIN_INDEX_PAST_MAX;
        if (off == N)
            o->anomalies |= DS_DRAIN_FULL;
        o->present = off / R;
        o->inbuf = o->present < nrec ? o->present : nrec;
        o->lost_beyond = o->present - o->inbuf;
    }
    /* records the CPU appended during the walk: index moved forward from a
     * sane value and stays within the buffer */
    if (raced && idx >= B && race > idx && race <= B + N && (race - idx) / R) {
        o->lost_race = (race - idx) / R;
        o->anomalies |= DS_DRAIN_RACE;
    }
}

int fuzz_drain(struct in *in)
{
    static struct fake_cpu f;
    static struct ds_cpu cpu;
    static struct ds_ctx ctx;
    static union ds_area area __attribute__((aligned(64)));

    unsigned prof = (unsigned)take(in, 1) % 8;
    unsigned what = (unsigned)take(in, 1) % 3; /* 0 PEBS, 1 BTS threshold, 2 BTS circular */
    uint8_t refuse = (uint8_t)take(in, 1);
    uint64_t data_cfg = take(in, 1) & 0xF;
    data_cfg |= (take(in, 1) & 0x1F) << 24; /* 1..32 LBR entries (PEBS_DATA_CFG 28:24 = n - 1) */
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
    uint32_t nrec = mg + 1 + (uint32_t)(take(in, 1) % 6);
    size_t bytes = (size_t)rec * nrec;
    unsigned char *buf = malloc(bytes);
    if (!buf)
        return 0;
    uint32_t thr = what == 2 ? 0 : 1 + (uint32_t)(take(in, 1) % (nrec - mg));

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
        fprintf(stderr, "setup failed: %s (prof %u what %u data_cfg %#llx)\n", ds_errname(e), prof, what,
                (unsigned long long)data_cfg);
        abort(); /* every generated configuration is valid */
    }
    /* DS management fields first (fixed size), then the record bytes (rest
     * of the input, zero padded): index relative to base (signed), raw, or
     * at an exact boundary; base/max/threshold raw or as set up. */
    bool pebs = what == 0;
    uint64_t base = pebs ? ctx.pebs.linear : ctx.bts.linear;
    uint8_t mode = (uint8_t)take(in, 1);
    uint8_t mode2 = (uint8_t)take(in, 1);
    int64_t rel = (int64_t)(int32_t)take(in, 4);
    uint64_t rawidx = take(in, 8);
    uint64_t fbase = take(in, 8), fmax = take(in, 8), fthr = take(in, 8);
    int lie_at = (int)(take(in, 1) % 8);
    uint8_t bsel = (uint8_t)take(in, 1);
    uint8_t race_at = (uint8_t)take(in, 1), race_sel = (uint8_t)take(in, 1);
    uint64_t idx = (mode & 1) ? rawidx : base + (uint64_t)rel;
    if (mode2 & 1) {
        /* exact boundaries: record 0, the threshold, the last record, the
         * absolute maximum, one past it; then -1, 0 or +1 byte */
        uint64_t k[5] = { 0, thr, nrec - 1, nrec, nrec + 1 };
        idx = base + k[bsel % 5] * rec + (uint64_t)(int64_t)((int)(bsel / 5 % 3) - 1);
    }
    size_t nb = in->n < bytes ? in->n : bytes;
    memcpy(buf, in->p, nb);
    memset(buf + nb, 0, bytes - nb);
    bool lay32 = lay == DS_LAYOUT_32;
    if (lay32) {
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
    int chain = -1; /* records in a valid chain that ends at the index; -1 unknown */
    if (pebs && adaptive && (mode & 0x10)) {
        size_t pos = 0;
        int k;
        if (!(mode & 0x20))
            lie_at = -1;
        for (k = 0; pos + 32 <= bytes; k++) {
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
            if (lay32)
                area.a32.pebs_index = (uint32_t)idx;
            else
                area.a64.pebs_index = idx;
            if (lie_at < 0 || lie_at >= k)
                chain = k;
        }
    }

    /* the fields as the drain will find them (before the race) */
    uint64_t fld[4];
    for (int i = 0; i < 4; i++)
        fld[i] = lay32 ? ((uint32_t *)&area.a32)[(pebs ? 4 : 0) + i] : ((uint64_t *)&area.a64)[(pebs ? 4 : 0) + i];
    /* setup values, from the SDM: max = base + bytes, threshold = base +
     * thr records (interrupt when the index reaches it); no threshold: one
     * record past the maximum (area.h, BTS circular: bts.h) */
    uint64_t T = thr ? base + (uint64_t)thr * rec : base + bytes + rec;
    if (lay32)
        T &= 0xFFFFFFFFull;

    struct sink_state ss;
    memset(&ss, 0, sizeof(ss));
    ss.refuse_mask = refuse;
    ss.area = &area;
    ss.pebs = pebs;
    ss.lay32 = lay32;
    if (what == 1) {
        ss.recs = buf;
        ss.rec = rec;
        ss.rec32 = lay32;
    }
    if ((mode2 & 2) && what != 2) {
        /* the CPU appends while the drain walks: on sink call race_at the
         * index moves to base + (seen records + 0..3) records (+1 byte) */
        ss.race_at = 1 + race_at % 4;
        ss.race_idx = fld[1] + (uint64_t)(race_sel % 4) * rec + ((race_sel & 4) ? 1 : 0);
        if (race_sel & 8)
            ss.race_idx = base + (uint64_t)(race_sel >> 4) * rec; /* anywhere, maybe backwards */
        if (lay32)
            ss.race_idx &= 0xFFFFFFFFull;
    }
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
    if (ss.bad_branch)
        fail("BTS branch differs from the record bytes");
    uint64_t now[4];
    for (int i = 0; i < 4; i++)
        now[i] = lay32 ? ((uint32_t *)&area.a32)[(pebs ? 4 : 0) + i] : ((uint64_t *)&area.a64)[(pebs ? 4 : 0) + i];
    if (now[1] != base)
        fail("index not reset to base");
    if (now[0] != base || now[2] != (lay32 ? (uint32_t)(base + bytes) : base + bytes) || now[3] != T)
        fail("base/max/threshold not repaired to the setup values");
    bool raced = ss.race_at && ss.calls >= ss.race_at;

    struct drain_oracle o;
    oracle(base, bytes, rec, T, fld, raced, ss.race_idx, &o);
    const uint32_t fields = DS_DRAIN_BASE_CHANGED | DS_DRAIN_MAX_CHANGED | DS_DRAIN_THRESH_CHANGED;
    if ((st.anomalies & fields) != (o.anomalies & fields))
        fail("field-changed anomaly flags differ from the oracle");
    if (!adaptive && what != 2) {
        if (st.anomalies != o.anomalies)
            fail("anomaly flags differ from the oracle");
        if (st.present != o.present + o.lost_race || st.lost_beyond != o.lost_beyond || st.lost_race != o.lost_race)
            fail("present / lost_beyond / lost_race differ from the oracle");
        if (st.lost_corrupt || st.records + st.lost_rejected != o.inbuf)
            fail("records in the buffer differ from the oracle");
    } else if (adaptive && pebs) {
        const uint32_t idxf = DS_DRAIN_INDEX_BELOW_BASE | DS_DRAIN_INDEX_PAST_MAX | DS_DRAIN_FULL | DS_DRAIN_RACE;
        if ((st.anomalies & idxf) != (o.anomalies & idxf))
            fail("adaptive: index anomaly flags differ from the oracle");
        uint64_t want_beyond = 0;
        if (idx >= base && idx - base > bytes)
            want_beyond = (idx - base - bytes + rec - 1) / rec; /* ceil, pebs.h */
        if (st.lost_beyond != want_beyond || st.lost_race != o.lost_race)
            fail("adaptive: lost_beyond / lost_race differ from the oracle");
        if (chain >= 0 && (st.present != (uint64_t)chain + o.lost_race || st.lost_corrupt ||
                           (st.anomalies & (DS_DRAIN_SIZE_LIE | DS_DRAIN_INDEX_MISALIGNED))))
            fail("adaptive: a valid chain was not drained whole");
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

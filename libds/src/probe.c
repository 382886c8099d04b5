/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Functional probe: does what CPUID advertises actually work? (QEMU TCG
 * advertises nothing of DS but other emulators/hypervisors advertise and
 * drop writes; reference README "Hard facts".)
 */
#include <ds/probe.h>
#include <ds/bts.h>
#include <ds/arch_pebs.h>
#include "area_fields.h"

#define NB_MSR_BPU_COUNTER0 0x300u   /* netburst.md: counter i at 0x300 + i */
#define NB_MSR_BPU_CCCR0    0x360u   /* its CCCR; bit 12 = Enable */
#define NB_CCCR_ENABLE      (1ull << 12)
#define NB_PEBS_ENABLE_BITS ((1ull << 24) | (1ull << 25) | (1ull << 26))
#define EVTSEL_EN           (1ull << 22)

/* Test patterns: page aligned, canonical, below 4 GiB (valid in both layouts). */
#define DS_AREA_PATTERN     0x00000000C0DE5000ull
#define COUNTER_PATTERN     0x00000000005A5A5Aull  /* positive as a 32-bit value */

/*
 * DEBUGCTL bits that mean "BTS is on" (TR|BTS; NetBurst MSR_DEBUGCTLA has
 * them at 2/3): read-only use for the busy check, kept here so that the
 * check works in a DS_CONFIG_BTS=0 build too.
 */
static uint64_t bts_on_bits(const struct ds_cpu *cpu)
{
    return cpu->caps.netburst ? DS_NB_DEBUGCTLA_TR | DS_NB_DEBUGCTLA_BTS : DS_DEBUGCTL_TR | DS_DEBUGCTL_BTS;
}

static void item(struct ds_probe_item *it, enum ds_probe_verdict v, int reason)
{
    it->verdict = v;
    it->reason = reason;
}

static void item_msr(struct ds_probe_item *it, enum ds_probe_verdict v, int reason, uint32_t msr)
{
    item(it, v, reason);
    it->msr = msr;
}

/* Identification's result for one capability MSR (ds_cpu_identify, cpu.h). */
static void ident_item(struct ds_probe_item *it, int err, uint32_t msr)
{
    it->restored = true; /* never written */
    if (err == DS_OK)
        item_msr(it, DS_PROBE_WORKING, DS_OK, msr);
    else if (err == DS_ERR_MSR_FAULT)
        item_msr(it, DS_PROBE_FAULT, err, msr);
    else
        item_msr(it, DS_PROBE_NOT_ADVERTISED, err, msr);
}

/* Why BTS is not advertised, stating only what was read (issue 10 item 16):
 * BTS_UNAVAILABLE only when IA32_MISC_ENABLE was read and has the bit. */
static void bts_not_advertised(const struct ds_caps *c, struct ds_probe_item *it)
{
    if (!c->has_misc_enable)
        item_msr(it, DS_PROBE_NOT_ADVERTISED, c->misc_enable_err, DS_MSR_IA32_MISC_ENABLE);
    else
        item_msr(it, DS_PROBE_NOT_ADVERTISED, DS_ERR_BTS_UNAVAILABLE, DS_MSR_IA32_MISC_ENABLE);
}

/* Write @pattern to @msr, read it back, restore @prior through @restore_msr. */
static void hold_test(struct ds_cpu *cpu, uint32_t msr, uint32_t restore_msr, uint64_t pattern,
                      uint64_t mask, struct ds_probe_item *it)
{
    uint64_t prior, v;
    it->msr = msr;
    if (ds_msr_read(cpu, msr, &prior)) {
        item(it, DS_PROBE_FAULT, DS_ERR_MSR_FAULT);
        it->restored = true; /* nothing written */
        return;
    }
    if ((prior & mask) == pattern)
        pattern ^= 0x1000; /* make sure the write changes the value */
    it->wrote = pattern;
    if (ds_msr_write(cpu, msr, pattern)) {
        item(it, DS_PROBE_FAULT, DS_ERR_MSR_FAULT);
        it->restored = true;
        return;
    }
    if (ds_msr_read(cpu, msr, &v)) {
        item(it, DS_PROBE_FAULT, DS_ERR_MSR_FAULT);
        v = ~pattern;
    } else {
        it->read_back = v;
        if ((v & mask) == pattern)
            item(it, DS_PROBE_WORKING, DS_OK);
        else
            item(it, DS_PROBE_INERT, DS_ERR_NOT_WORKING);
    }
    uint64_t check;
    it->restored = ds_msr_write(cpu, restore_msr, prior) == DS_OK && ds_msr_read(cpu, msr, &check) == DS_OK &&
                   (check & mask) == (prior & mask);
}

#if DS_CONFIG_BTS && DS_CONFIG_NETBURST
#define PROBE_BTS_NB_OK 1
#else
#define PROBE_BTS_NB_OK 0
#endif

#if DS_CONFIG_BTS
/* Set up a circular BTS buffer in the caller's scratch (SDM Vol. 3B "Setting
 * Up the BTS Buffer"); false with @it's verdict when it cannot be tested. */
static bool probe_bts_setup(struct ds_cpu *cpu, const struct ds_probe_bts_scratch *s, struct ds_ctx *ctx,
                            struct ds_probe_item *it)
{
    struct ds_area_config cfg;

    ds__zero(ctx, sizeof(*ctx));
    ds__zero(&cfg, sizeof(cfg));
    cfg.area = s->area;
    cfg.area_linear = s->area_linear;
    cfg.bts.mem = s->buf;
    cfg.bts.linear = s->buf_linear;
    cfg.bts.bytes = s->buf_bytes;
    cfg.bts.thresh_records = 0; /* circular: no interrupt */
    int e = ds_area_setup(ctx, cpu, &cfg);
    if (e) {
        item(it, DS_PROBE_NOT_TESTED, e);
        it->restored = true;
        return false;
    }
    if (ctx->bts.nrec < 8) {
        item(it, DS_PROBE_NOT_TESTED, DS_ERR_BUF_SMALL);
        it->restored = true;
        return false;
    }
    return true;
}

/* Stop: put DEBUGCTL back exactly as it was (BTS was verified off), read the
 * BTS index, uninstall; true when DEBUGCTL and IA32_DS_AREA read back as before. */
static bool probe_bts_stop(struct ds_cpu *cpu, struct ds_ctx *ctx, uint64_t dbg_prior, uint64_t *idx)
{
    uint64_t dbg_after, area_after;
    bool ok = ds_msr_write(cpu, DS_MSR_IA32_DEBUGCTL, dbg_prior) == DS_OK;
    ctx->bts_enabled = false;
    *idx = ds__area_get(ctx, false, DS__INDEX);
    ok = ds_area_uninstall(ctx) == DS_OK && ok;
    ok = ok && ds_msr_read(cpu, DS_MSR_IA32_DEBUGCTL, &dbg_after) == DS_OK && dbg_after == dbg_prior;
    ok = ok && ds_msr_read(cpu, DS_MSR_IA32_DS_AREA, &area_after) == DS_OK && area_after == ctx->saved_ds_area;
    return ok;
}

static void probe_bts(struct ds_cpu *cpu, const struct ds_probe_bts_scratch *s, struct ds_probe_item *it)
{
    struct ds_ctx ctx;
    uint64_t dbg_prior, idx;

    if (!probe_bts_setup(cpu, s, &ctx, it))
        return;
    if (ds_msr_read(cpu, DS_MSR_IA32_DEBUGCTL, &dbg_prior)) {
        item_msr(it, DS_PROBE_FAULT, DS_ERR_MSR_FAULT, DS_MSR_IA32_DEBUGCTL);
        it->restored = true;
        return;
    }
    int e = ds_area_install(&ctx);
    if (e) {
        item(it, DS_PROBE_FAULT, e);
        it->restored = true; /* install writes nothing on failure... */
        return;
    }
    e = ds_bts_enable(&ctx, 0);
    if (e == DS_OK && s->exercise)
        s->exercise(s->arg);
    it->restored = probe_bts_stop(cpu, &ctx, dbg_prior, &idx);
    it->wrote = ds_bts_debugctl_bits(cpu, 0);
    it->read_back = idx;
    if (e) {
        item(it, DS_PROBE_FAULT, e);
        return;
    }
    if (idx != ctx.bts.linear)
        item(it, DS_PROBE_WORKING, DS_OK);
    else
        item(it, DS_PROBE_INERT, DS_ERR_NOT_WORKING);
}
#endif /* DS_CONFIG_BTS */

/* PERF_CAPABILITIES.PEBS_FMT 0xF: architectural PEBS, where IA32_PEBS_ENABLE
 * and MSR_PEBS_DATA_CFG do not exist (Linux "perf/x86/intel: Initialize
 * architectural PEBS": "no longer existed for arch-PEBS"; intel_pebs_init
 * keys the DS-area path on the format) and the DS area holds no PEBS state. */
static bool arch_pebs_fmt(const struct ds_caps *c)
{
    return c->has_perf_caps && c->pebs_format == DS_APEBS_PEBS_FMT;
}

/* IA32_DS_AREA (SDM Vol. 3B "DS Save Area"): not touched while BTS
 * (DEBUGCTL TR|BTS) or DS-area PEBS (IA32_PEBS_ENABLE, never read on an
 * arch-PEBS CPU) is on; else a hold test. */
static void probe_ds_area(struct ds_cpu *cpu, struct ds_probe_item *it)
{
    const struct ds_caps *c = &cpu->caps;
    it->restored = true;
    if (!c->ds) {
        item(it, DS_PROBE_NOT_ADVERTISED, DS_ERR_NO_DS);
        return;
    }
    bool busy = false;
    uint32_t fault = 0;
    uint64_t v;
    if (c->bts_advertised) {
        if (ds_msr_read(cpu, DS_MSR_IA32_DEBUGCTL, &v))
            fault = DS_MSR_IA32_DEBUGCTL;
        else if (v & bts_on_bits(cpu))
            busy = true;
    }
    if (c->pebs_advertised && !arch_pebs_fmt(c) && !fault) {
        if (ds_msr_read(cpu, DS_MSR_IA32_PEBS_ENABLE, &v))
            fault = DS_MSR_IA32_PEBS_ENABLE;
        else if (c->netburst ? (v & NB_PEBS_ENABLE_BITS) != 0 : v != 0)
            busy = true;
    }
    if (fault)
        item_msr(it, DS_PROBE_FAULT, DS_ERR_MSR_FAULT, fault);
    else if (busy)
        item(it, DS_PROBE_BUSY, DS_ERR_DS_BUSY);
    else
        hold_test(cpu, DS_MSR_IA32_DS_AREA, DS_MSR_IA32_DS_AREA, DS_AREA_PATTERN, ~0ull, it);
}

/* Architectural PEBS (Linux init_arch_pebs_on_cpu / intel_pmu_drain_arch_pebs):
 * IA32_PEBS_INDEX read, busy while its EN bit is set (someone's records go
 * to their buffer); else IA32_PEBS_BASE holds a 4 KiB-aligned address below
 * 4 GiB with size code 0 (valid for any MAXPHYADDR >= 32; INDEX.EN is 0, so
 * nothing is written there). */
static void probe_arch_pebs(struct ds_cpu *cpu, struct ds_probe_item *it)
{
    it->restored = true;
#if DS_CONFIG_PEBS
    struct ds_arch_pebs_caps caps;
    uint64_t idx;
    int e = ds_arch_pebs_detect(cpu, &caps);
    if (e)
        item(it, DS_PROBE_NOT_ADVERTISED, e);
    else if (ds_msr_read(cpu, DS_MSR_IA32_PEBS_INDEX, &idx))
        item_msr(it, DS_PROBE_FAULT, DS_ERR_MSR_FAULT, DS_MSR_IA32_PEBS_INDEX);
    else if (idx & DS_APEBS_INDEX_EN)
        item_msr(it, DS_PROBE_BUSY, DS_ERR_DS_BUSY, DS_MSR_IA32_PEBS_INDEX);
    else
        hold_test(cpu, DS_MSR_IA32_PEBS_BASE, DS_MSR_IA32_PEBS_BASE, DS_AREA_PATTERN, ~0ull, it);
#else
    (void)cpu;
    item(it, DS_PROBE_NOT_TESTED, DS_ERR_UNSUPPORTED); /* compiled out (ds/config.h) */
#endif
}

/* NetBurst: MSR_BPU_COUNTER0 unless its CCCR is enabled (netburst.md; SDM
 * Vol. 3B "Performance Monitoring (Processors Based on Intel NetBurst
 * Microarchitecture)"). */
static void probe_counter_nb(struct ds_cpu *cpu, struct ds_probe_item *it)
{
    const struct ds_caps *c = &cpu->caps;
    uint64_t cccr;
    if (!DS_CONFIG_NETBURST)
        item(it, DS_PROBE_NOT_TESTED, DS_ERR_UNSUPPORTED); /* ds/config.h */
    else if (!c->has_misc_enable) /* NetBurst perfmon is MISC_ENABLE[7]: say it was not read */
        item_msr(it, DS_PROBE_NOT_ADVERTISED, c->misc_enable_err, DS_MSR_IA32_MISC_ENABLE);
    else if (!c->perfmon_available)
        item_msr(it, DS_PROBE_NOT_ADVERTISED, DS_ERR_NO_PERFMON, DS_MSR_IA32_MISC_ENABLE);
    else if (ds_msr_read(cpu, NB_MSR_BPU_CCCR0, &cccr))
        item_msr(it, DS_PROBE_FAULT, DS_ERR_MSR_FAULT, NB_MSR_BPU_CCCR0);
    else if (cccr & NB_CCCR_ENABLE)
        item(it, DS_PROBE_BUSY, DS_ERR_DS_BUSY);
    else /* NetBurst counters are 40 bits and written in full */
        hold_test(cpu, NB_MSR_BPU_COUNTER0, NB_MSR_BPU_COUNTER0, COUNTER_PATTERN, (1ull << 40) - 1, it);
}

/* A counter: architectural IA32_PMC0 unless IA32_PERFEVTSEL0.EN is set,
 * written back through IA32_A_PMC0 with full-width writes (SDM Vol. 3B
 * "Architectural Performance Monitoring", "Full-Width Writes"). */
static void probe_counter(struct ds_cpu *cpu, struct ds_probe_item *it)
{
    const struct ds_caps *c = &cpu->caps;
    it->restored = true;
    if (c->netburst) {
        probe_counter_nb(cpu, it);
    } else if (c->has_leaf_0a && c->gp_counters >= 1 && c->gp_width) {
        uint64_t sel;
        uint64_t mask = c->gp_width >= 64 ? ~0ull : ((1ull << c->gp_width) - 1);
        if (ds_msr_read(cpu, DS_MSR_IA32_PERFEVTSEL0, &sel))
            item_msr(it, DS_PROBE_FAULT, DS_ERR_MSR_FAULT, DS_MSR_IA32_PERFEVTSEL0);
        else if (sel & EVTSEL_EN)
            item(it, DS_PROBE_BUSY, DS_ERR_DS_BUSY);
        else
            hold_test(cpu, DS_MSR_IA32_PMC0, c->fw_write ? DS_MSR_IA32_A_PMC0 : DS_MSR_IA32_PMC0,
                      COUNTER_PATTERN, mask, it);
    } else {
        item(it, DS_PROBE_NOT_ADVERTISED, DS_ERR_NO_PERFMON);
    }
}

/* BTS (SDM Vol. 3B "Branch Trace Store"): after the IA32_DS_AREA item
 * @ds_area, which a busy or faulting DS area makes this one's verdict. */
static void probe_bts_item(struct ds_cpu *cpu, const struct ds_probe_bts_scratch *bts_scratch,
                           const struct ds_probe_item *ds_area, struct ds_probe_item *it)
{
    const struct ds_caps *c = &cpu->caps;
    it->restored = true;
    if (!c->ds)
        item(it, DS_PROBE_NOT_ADVERTISED, DS_ERR_NO_DS);
    else if (!c->bts_advertised)
        bts_not_advertised(c, it);
    else if (ds_area->verdict == DS_PROBE_BUSY || ds_area->verdict == DS_PROBE_FAULT)
        item_msr(it, ds_area->verdict, ds_area->reason, ds_area->msr);
    else if (!DS_CONFIG_BTS || (c->netburst && !PROBE_BTS_NB_OK))
        item(it, DS_PROBE_NOT_TESTED, DS_ERR_UNSUPPORTED); /* compiled out (ds/config.h) */
    else if (!bts_scratch || !bts_scratch->area || !bts_scratch->buf)
        item(it, DS_PROBE_NOT_TESTED, DS_ERR_NOT_GIVEN); /* optional: ds_probe runs without it */
#if DS_CONFIG_BTS
    else
        probe_bts(cpu, bts_scratch, it);
#endif
}

DS_COLD int ds_probe(struct ds_cpu *cpu, const struct ds_probe_bts_scratch *bts_scratch, struct ds_probe_result *out)
{
    if (!cpu || !out)
        return DS_ERR_NULL;
    if (!cpu->identified)
        return DS_ERR_NOT_IDENTIFIED;
    ds__zero(out, sizeof(*out));
    const struct ds_caps *c = &cpu->caps;
    ident_item(&out->misc_enable, c->misc_enable_err, DS_MSR_IA32_MISC_ENABLE);
    ident_item(&out->perf_caps, c->perf_caps_err, DS_MSR_IA32_PERF_CAPABILITIES);
    if (c->vendor != DS_VENDOR_INTEL) {
        item(&out->ds_area, DS_PROBE_NOT_ADVERTISED, DS_ERR_NOT_INTEL);
        item(&out->counter, DS_PROBE_NOT_ADVERTISED, DS_ERR_NOT_INTEL);
        item(&out->bts, DS_PROBE_NOT_ADVERTISED, DS_ERR_NOT_INTEL);
        item(&out->arch_pebs, DS_PROBE_NOT_ADVERTISED, DS_ERR_NOT_INTEL);
        out->ds_area.restored = out->counter.restored = out->bts.restored = out->arch_pebs.restored = true;
        return DS_OK;
    }
    probe_ds_area(cpu, &out->ds_area);
    probe_counter(cpu, &out->counter);
    probe_bts_item(cpu, bts_scratch, &out->ds_area, &out->bts);
    probe_arch_pebs(cpu, &out->arch_pebs);
    return DS_OK;
}

DS_COLD const char *ds_probe_verdict_name(enum ds_probe_verdict v)
{
    switch (v) {
    case DS_PROBE_NOT_ADVERTISED: return "not advertised";
    case DS_PROBE_WORKING: return "working";
    case DS_PROBE_INERT: return "inert";
    case DS_PROBE_FAULT: return "fault";
    case DS_PROBE_BUSY: return "busy";
    case DS_PROBE_NOT_TESTED: return "not tested";
    }
    return "?";
}

#if DS_CONFIG_FORMAT
/* The MSRs a probe item can name (msr.h numbers). */
static const char *msr_name(uint32_t msr)
{
    switch (msr) {
    case DS_MSR_IA32_MISC_ENABLE: return "IA32_MISC_ENABLE (0x1A0)";
    case DS_MSR_IA32_PERF_CAPABILITIES: return "IA32_PERF_CAPABILITIES (0x345)";
    case DS_MSR_IA32_DS_AREA: return "IA32_DS_AREA (0x600)";
    case DS_MSR_IA32_DEBUGCTL: return "IA32_DEBUGCTL (0x1D9)";
    case DS_MSR_IA32_PEBS_ENABLE: return "IA32_PEBS_ENABLE (0x3F1)";
    case DS_MSR_IA32_PEBS_BASE: return "IA32_PEBS_BASE (0x3F4)";
    case DS_MSR_IA32_PEBS_INDEX: return "IA32_PEBS_INDEX (0x3F5)";
    case DS_MSR_IA32_PERFEVTSEL0: return "IA32_PERFEVTSEL0 (0x186)";
    case DS_MSR_IA32_PMC0: return "IA32_PMC0 (0xC1)";
    case DS_MSR_IA32_A_PMC0: return "IA32_A_PMC0 (0x4C1)";
#if DS_CONFIG_NETBURST && DS_CONFIG_NETBURST_TABLES /* NetBurst names compiled out otherwise (ds/config.h) */
    case NB_MSR_BPU_COUNTER0: return "MSR_BPU_COUNTER0 (0x300)";
    case NB_MSR_BPU_CCCR0: return "MSR_BPU_CCCR0 (0x360)";
#endif
    }
    return "MSR";
}

static void line(struct ds__sb *sb, const char *k, const struct ds_probe_item *it)
{
    ds__sb_puts(sb, k);
    ds__sb_puts(sb, ": ");
    ds__sb_puts(sb, ds_probe_verdict_name(it->verdict));
    ds__sb_puts(sb, " (");
    if (it->msr && it->reason != DS_OK) {
        ds__sb_puts(sb, msr_name(it->msr));
        ds__sb_puts(sb, ": ");
    }
    /* DS_ERR_NOT_GIVEN: only the BTS item, for ds_probe's optional bts_scratch */
    ds__sb_puts(sb, it->reason == DS_ERR_NOT_GIVEN ? "bts_scratch not given: it is optional; pass one to run the BTS test"
                                                   : ds__reason_text(it->reason));
    ds__sb_puts(sb, it->restored ? ")\n" : "; prior value NOT restored)\n");
}

DS_COLD int ds_probe_format(const struct ds_probe_result *r, char *buf, size_t len)
{
    struct ds__sb sb;
    if (!r || !buf)
        return DS_ERR_NULL;
    if (!len)
        return DS_ERR_BUFSZ;
    ds__sb_init(&sb, buf, len);
    line(&sb, "ds_area", &r->ds_area);
    line(&sb, "counter", &r->counter);
    line(&sb, "bts", &r->bts);
    line(&sb, "arch_pebs", &r->arch_pebs);
    line(&sb, "misc_enable", &r->misc_enable);
    line(&sb, "perf_capabilities", &r->perf_caps);
    return sb.truncated ? DS_ERR_BUFSZ : DS_OK;
}
#else /* !DS_CONFIG_FORMAT: renderers compiled out (ds/config.h) */
DS_COLD int ds_probe_format(const struct ds_probe_result *r, char *buf, size_t len)
{
    (void)r;
    if (buf && len)
        buf[0] = '\0';
    return DS_ERR_UNSUPPORTED;
}
#endif /* DS_CONFIG_FORMAT */

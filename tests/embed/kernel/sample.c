/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The embed kernel's sample step: libds records Branch Trace Store samples
 * on the reference model of the DS hardware (model/), with the DS save
 * area and the BTS buffer in this kernel's higher-half .bss.
 *
 * The model plays the CPU: libds reaches it through the model's ds_msr_ops
 * adapter, and the model writes BTS records into the buffer through
 * mem_read/mem_write below, which accept only the DS area and the BTS buffer
 * (any other address is "unmapped": the model then skips the record and
 * counts a memory fault, which the check below would catch). The branches
 * fed to the model are real addresses of this kernel's functions, so the
 * records carry top-2-GiB addresses end to end.
 *
 * The second step (session_step) samples instructions with PEBS through
 * the session API (session.h, issue 16) on EVERY model profile: the
 * README's "Sampling in ten lines" (copied from tests/embed/porting/
 * pmi_kernel.c, native MSR access) with the model's backend instead.
 *
 * Built only when the model sources and the libds BTS API are present
 * (CMakeLists.txt: EMBED_SAMPLE).
 */
#include <ds/ds.h>
#include <ds/area.h>
#include <ds/bts.h>
#include <ds/session.h>
#include "dsmodel.h"
#include "ds_model_ops.h"
#include "embed.h"

#define NBR 10u        /* branches fed */
#define NREC 64u       /* BTS buffer records */
#define THRESH 8u      /* PMI after this many records */

static struct dsm_cpu mcpu;
static union ds_area area __attribute__((aligned(4096)));
static struct ds_bts_rec64 bts_buf[NREC] __attribute__((aligned(4096)));
static struct ds_bts_branch got[NREC];
static unsigned pmis, pmi_reasons;

static bool mapped(uint64_t linear, size_t len)
{
    uint64_t a = (uintptr_t)&area, b = (uintptr_t)bts_buf;
    return (linear >= a && linear + len <= a + sizeof(area)) ||
           (linear >= b && linear + len <= b + sizeof(bts_buf));
}

static int mem_read(void *ctx, uint64_t linear, void *buf, size_t len)
{
    (void)ctx;
    if (!mapped(linear, len))
        return 1;
    memcpy(buf, (const void *)(uintptr_t)linear, len);
    return 0;
}

static int mem_write(void *ctx, uint64_t linear, const void *buf, size_t len)
{
    (void)ctx;
    if (!mapped(linear, len))
        return 1;
    memcpy((void *)(uintptr_t)linear, buf, len);
    return 0;
}

static const struct dsm_mem_ops mem_ops = {mem_read, mem_write};

/* The model's PMI: what the LVT would deliver. Counted, checked below. */
static void on_pmi(void *ctx, uint32_t reasons)
{
    (void)ctx;
    pmis++;
    pmi_reasons |= reasons;
}

/* Branch i: from inside one of this kernel's functions to another. */
static uint64_t br_from(unsigned i) { return (uintptr_t)&kmain + 16 * i; }
static uint64_t br_to(unsigned i) { return (uintptr_t)&sample_run + 4 * i; }

static void session_all(void);

void sample_run(void)
{
    struct ds_cpu cpu;
    struct ds_ctx ctx;
    int err;

    err = dsm_init(&mcpu, DSM_SKYLAKE, &mem_ops, NULL);
    check(err == DSM_OK, "model: a Skylake-profile CPU");
    dsm_set_pmi(&mcpu, on_pmi, NULL);
    err = ds_model_cpu_init(&cpu, &mcpu);
    if (err == DS_OK)
        err = ds_cpu_identify(&cpu);
    check(err == DS_OK && cpu.caps.ds && cpu.caps.bts_advertised,
          "model: libds identifies DS and BTS through the model's MSR backend");

    struct ds_area_config cfg;
    memset(&cfg, 0, sizeof(cfg));
    memset(&ctx, 0, sizeof(ctx));
    cfg.area = &area;
    cfg.bts.mem = bts_buf;
    cfg.bts.bytes = sizeof(bts_buf);
    cfg.bts.thresh_records = THRESH;
    err = ds_area_setup(&ctx, &cpu, &cfg);
    kprintf("# ds_area_setup: %s, layout %u, BTS %u records of %u bytes at %p\n", ds_errname(err),
            (unsigned)ctx.layout, ctx.bts.nrec, ctx.bts.rec_size, (void *)bts_buf);
    check(err == DS_OK && ctx.layout == DS_LAYOUT_64, "ds_area_setup: 64-bit DS area in .bss above 2^63");
    err = ds_area_install(&ctx);
    uint64_t ds_area_msr = 0;
    dsm_rdmsr(&mcpu, DS_MSR_IA32_DS_AREA, &ds_area_msr);
    check(err == DS_OK && ds_area_msr == (uintptr_t)&area, "ds_area_install: IA32_DS_AREA = the area's address");
    err = ds_bts_enable(&ctx, DS_BTS_INT);
    check(err == DS_OK, "ds_bts_enable(DS_BTS_INT)");

    for (unsigned i = 0; i < NBR; i++) {
        struct dsm_event ev;
        memset(&ev, 0, sizeof(ev));
        ev.ip = br_from(i);
        ev.next_ip = ev.ip + 2;
        ev.flags = DSM_EV_BRANCH | DSM_EV_TAKEN;
        ev.br_kind = DSM_BR_JCC;
        ev.br_to = br_to(i);
        ev.cpl = 0;
        dsm_retire(&mcpu, &ev);
    }
    check(pmis >= 1 && (pmi_reasons & DSM_PMI_BTS), "the BTS threshold raised a PMI");

    err = ds_bts_disable(&ctx);
    check(err == DS_OK, "ds_bts_disable");
    size_t n = 0;
    struct ds_drain_stats st;
    memset(&st, 0, sizeof(st));
    err = ds_bts_drain_array(&ctx, got, NREC, &n, &st);
    kprintf("# ds_bts_drain_array: %s, %u records, lost %u/%u/%u/%u; model wrote %u, skipped %u, mem faults %u\n",
            ds_errname(err), (unsigned)n, (unsigned)st.lost_beyond, (unsigned)st.lost_corrupt,
            (unsigned)st.lost_rejected, (unsigned)st.lost_race, (unsigned)dsm_stats(&mcpu)->bts_written,
            (unsigned)dsm_stats(&mcpu)->bts_skipped, (unsigned)dsm_stats(&mcpu)->mem_faults);
    bool same = err == DS_OK && n == NBR;
    for (unsigned i = 0; same && i < NBR; i++)
        same = got[i].from == br_from(i) && got[i].to == br_to(i);
    for (unsigned i = 0; i < n && i < 3; i++)
        kprintf("BTS record %u: from %p to %p flags %lx\n", i, (void *)(uintptr_t)got[i].from,
                (void *)(uintptr_t)got[i].to, (unsigned long long)got[i].flags);
    check(same, "BTS sample recorded on the reference model: every branch, in order, higher-half addresses");
    check(dsm_stats(&mcpu)->mem_faults == 0, "the model wrote only inside the DS area and BTS buffer");

    err = ds_area_uninstall(&ctx);
    dsm_rdmsr(&mcpu, DS_MSR_IA32_DS_AREA, &ds_area_msr);
    check(err == DS_OK && ds_area_msr == 0, "ds_area_uninstall restores IA32_DS_AREA");
    session_all();
}

/* --- the session step: instructions sampled with PEBS on every profile ---- */

#define PERIOD 100u    /* sample every 100 instructions */
#define NINSN 1000u    /* instructions retired per profile */
#define SES_PHYS 0x100000ull /* the region's "physical" address (arch PEBS writes physical memory) */

static struct dsm_cpu model;
static struct ds_cpu kcpu;
static struct ds_session ses;
static unsigned char buf[32 * 1024] __attribute__((aligned(4096)));
static uint64_t cur_ip;
static unsigned n_samples, n_bad;

/* The region at its linear address (DS-area PEBS) and at its physical
 * address (architectural PEBS): this higher-half kernel's .bss is not
 * identity-mapped, so the model writes through the adapter's memory
 * operations over the region (ds_model_mem_ops, docs/porting.md section 10),
 * never through the physical address as a pointer. */
static struct ds_model_mem ses_mm;

static uint64_t insn_ip(unsigned i) { return (uintptr_t)&kmain + 4 * (i % 64); }

static void on_sample(void *arg, const struct ds_session_sample *s)
{
    (void)arg;
    n_samples++;
    bool in = s->ip >= insn_ip(0) && s->ip <= insn_ip(63) + 4;
    if (s->req != 0 || !s->pebs || !in)
        n_bad++;
}

/* The model's PMI is this kernel's PMI handler. */
static void on_pmi_session(void *ctx, uint32_t reasons)
{
    (void)ctx;
    (void)reasons;
    ds_session_pmi(&ses, cur_ip, NULL);
}

/* What each profile must answer (the model's profiles, dsmodel.h): neither
 * DS nor perfmon (none-ds) -> DS_ERR_SESSION_NO_PMU from init, the cause
 * first (issue 29); perfmon without DS (kvm-skl) -> DS_ERR_SESSION_NO_DS; NetBurst has PEBS only for replay-tagged events, not
 * for instructions -> DS_ERR_SESSION_NOT_PRECISE; every other profile samples. */
static int expected(enum dsm_profile p)
{
    switch (p) {
    case DSM_NONE_DS:
        return DS_ERR_SESSION_NO_PMU;
    case DSM_KVM_SKL:
        return DS_ERR_SESSION_NO_DS;
    case DSM_NETBURST_M2:
    case DSM_NETBURST_M3:
    case DSM_NETBURST_M4_64:
        return DS_ERR_SESSION_NOT_PRECISE;
    default:
        return DS_OK;
    }
}

/* The ten libds calls of the README, on one model profile (the model's
 * backend instead of NULL, NULL). */
static int session_step(void)
{
    int e = ds_cpu_init(&kcpu, &ds_model_msr_ops, &model);
    ds_cpu_set_ia32e(&kcpu, model.ia32e); /* the model's mode, as ds_model_cpu_init does */
    if (e == DS_OK)
        e = ds_cpu_identify(&kcpu);
    struct ds_session_config cfg = {.mem = buf, .bytes = sizeof(buf), .on_sample = on_sample};
    cfg.mem_phys = SES_PHYS;                  /* not identity-mapped (see ses_mm) */
    cfg.pebs_flags = DS_PMC_PEBS_ALLOW_ERRATA; /* the model has no Merom errata */
    if (e == DS_OK)
        e = ds_session_init(&ses, &kcpu, &cfg);
    struct ds_request rq = {.event = DS_EVENT_INSTRUCTIONS, .period = PERIOD, .mode = DS_SAMPLE_PRECISE};
    if (e == DS_OK)
        e = ds_session_add(&ses, &rq, NULL);
    if (e == DS_OK)
        e = ds_session_start(&ses);
    return e;
}

static void session_profile(enum dsm_profile p)
{
    memset(&ses, 0, sizeof(ses));
    memset(buf, 0, sizeof(buf));
    n_samples = n_bad = 0;
    if (ds_model_mem_init(&ses_mm, buf, SES_PHYS, sizeof(buf)) != DS_OK ||
        dsm_init(&model, p, &ds_model_mem_ops, &ses_mm) != DSM_OK) {
        check(0, "model profile");
        return;
    }
    dsm_set_pmi(&model, on_pmi_session, NULL);
    int e = session_step();
    if (e != DS_OK) {
        kprintf("# session %s: %s (%s)\n", dsm_profile_name(p), ds_errname(e), ds_strerror(e));
        check(e == expected(p), "session: the specific error on a profile without PEBS for instructions");
        if (ses.started)
            ds_session_teardown(&ses);
        return;
    }
    for (unsigned i = 0; i < NINSN; i++) {
        struct dsm_event ev;
        memset(&ev, 0, sizeof(ev));
        ev.ip = cur_ip = insn_ip(i);
        ev.next_ip = ev.ip + 4;
        dsm_retire(&model, &ev);
    }
    e = ds_session_stop(&ses);
    if (e == DS_OK)
        e = ds_session_teardown(&ses);
    char d[512];
    ds_session_describe(&ses, d, sizeof(d));
    kprintf("# session %s: %u samples (model wrote %u PEBS records), %s\n%s", dsm_profile_name(p), n_samples,
            (unsigned)dsm_stats(&model)->pebs_written, ds_errname(e), d);
    check(expected(p) == DS_OK && e == DS_OK && n_bad == 0 && n_samples == dsm_pebs_expected(NINSN, PERIOD) &&
              n_samples == dsm_stats(&model)->pebs_written,
          "session: instructions sampled with PEBS (floor((1000 - 1) / 100) = 9, the model's rule), "
          "every record delivered to request 0");
}

static void session_all(void)
{
    for (unsigned p = 0; p < DSM_PROFILE__COUNT; p++)
        session_profile((enum dsm_profile)p);
}

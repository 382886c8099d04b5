/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The adapter's memory operations for a kernel (ds_model_ops.h
 * ds_model_mem_ops, issue 29): a session on the model whose region has a
 * physical address other than its pointer (cfg.mem_phys, needed for
 * architectural PEBS) gets every record, with no memory fault, on an
 * arch-PEBS profile and on DS-area PEBS profiles; physical address 0 is
 * expressible; an access outside both windows is refused, never
 * dereferenced. With dsm_identity_mem_ops the model wrote arch-PEBS records
 * through the physical address as a pointer (xv6: a page fault in id_write;
 * this host: SIGSEGV).
 * Expected counts: the model's documented rule dsm_pebs_expected()
 * (dsmodel.h: floor((n - 1) / period) records for n events).
 */
#include "check.h"
#include <ds/ds.h>
#include <ds/session.h>
#include "ds_model_ops.h"

#define PHYS 0x100000ull /* "physical" address of the region: not a host pointer */
#define PERIOD 100u
#define NINSN 1000u

static _Alignas(4096) unsigned char buf[64 * 1024];
static struct ds_model_mem mm;
static struct dsm_cpu model;
static struct ds_cpu cpu;
static struct ds_session ses;
static uint64_t cur_ip;
static unsigned samples, pmi_err;

static void on_sample(void *arg, const struct ds_session_sample *s)
{
    (void)arg;
    (void)s;
    samples++;
}

static void on_pmi(void *ctx, uint32_t reasons)
{
    (void)ctx;
    (void)reasons;
    int e = ds_session_pmi(&ses, cur_ip, NULL);
    if (e != DS_OK)
        pmi_err++;
}

/* The model as this kernel's PMU (docs/porting.md section 10). */
static int model_up(enum dsm_profile p)
{
    int e = ds_model_mem_init(&mm, buf, PHYS, sizeof buf);  /* the region at its pointer and at PHYS */
    if (e == DS_OK && dsm_init(&model, p, &ds_model_mem_ops, &mm) != DSM_OK)
        e = DS_ERR_INVAL;
    dsm_set_pmi(&model, on_pmi, NULL);                      /* the model's PMI: your PMI handler */
    if (e == DS_OK)
        e = ds_model_cpu_init(&cpu, &model);                /* libds's MSRs and CPUID go to the model */
    if (e == DS_OK)
        e = ds_cpu_identify(&cpu);
    return e;
}

static void run(enum dsm_profile p, bool want_apebs)
{
    const char *pn = dsm_profile_name(p);
    memset(&ses, 0, sizeof ses);
    memset(buf, 0, sizeof buf);
    samples = pmi_err = 0;
    CHECK_EQ(model_up(p), DS_OK, "%s: model, libds on it, identify", pn);
    struct ds_session_config cfg = {.mem = buf, .bytes = sizeof buf, .on_sample = on_sample};
    cfg.mem_phys = PHYS;
    cfg.pebs_flags = DS_PMC_PEBS_ALLOW_ERRATA;
    CHECK_EQ(ds_session_init(&ses, &cpu, &cfg), DS_OK, "%s: session init", pn);
    struct ds_request rq = {.event = DS_EVENT_INSTRUCTIONS, .period = PERIOD, .mode = DS_SAMPLE_PRECISE};
    CHECK_EQ(ds_session_add(&ses, &rq, NULL), DS_OK, "%s: add", pn);
    CHECK_EQ(ses.req[0].how, want_apebs ? DS_HOW_APEBS : DS_HOW_PEBS, "%s: served by %s", pn,
             want_apebs ? "arch PEBS" : "DS-area PEBS");
    int e = ds_session_start(&ses);
    CHECK_EQ(e, DS_OK, "%s: start (%s)", pn, ds_errname(e));
    if (e != DS_OK)
        return;
    for (unsigned i = 0; i < NINSN; i++) {
        struct dsm_event ev;
        memset(&ev, 0, sizeof ev);
        ev.ip = cur_ip = 0x401000 + 4 * (i % 64);
        ev.next_ip = ev.ip + 4;
        dsm_retire(&model, &ev);
    }
    CHECK_EQ(ds_session_stop(&ses), DS_OK, "%s: stop", pn);
    CHECK_EQ(ds_session_teardown(&ses), DS_OK, "%s: teardown", pn);
    CHECK_EQ(dsm_stats(&model)->mem_faults, 0, "%s: no memory fault", pn);
    CHECK_EQ(dsm_stats(&model)->pebs_written, dsm_pebs_expected(NINSN, PERIOD), "%s: records written", pn);
    CHECK_EQ(samples, dsm_pebs_expected(NINSN, PERIOD), "%s: every record delivered", pn);
    CHECK_EQ(pmi_err, 0, "%s: every PMI handled", pn);
}

/* The operations alone: windows, boundaries, physical 0, refusals. */
static void test_ops(void)
{
    struct ds_model_mem m;
    unsigned char b4[4] = {1, 2, 3, 4}, r4[4];
    CHECK_EQ(ds_model_mem_init(NULL, buf, 0, 16), DS_ERR_NULL, "NULL mem");
    CHECK_EQ(ds_model_mem_init(&m, NULL, 0, 16), DS_ERR_NULL, "NULL virt");
    CHECK_EQ(ds_model_mem_init(&m, buf, 0, 0), DS_ERR_INVAL, "0 bytes");
    CHECK_EQ(ds_model_mem_init(&m, buf, ~0ull - 7, 16), DS_ERR_INVAL, "physical window wraps");
    CHECK_EQ(ds_model_mem_init(&m, buf, ~0ull - 15, 16), DS_OK, "physical window ends at 2^64 - 1");
    CHECK_EQ(ds_model_mem_init(&m, buf, 0, sizeof buf), DS_OK, "physical address 0");
    memset(buf, 0, sizeof buf);
    CHECK_EQ(ds_model_mem_ops.write(&m, 0, b4, 4), 0, "write at physical 0");
    CHECK(memcmp(buf, b4, 4) == 0, "landed at the region's start");
    CHECK_EQ(ds_model_mem_ops.write(&m, sizeof buf - 4, b4, 4), 0, "last 4 bytes (physical)");
    CHECK_EQ(ds_model_mem_ops.write(&m, sizeof buf - 3, b4, 4), -1, "one byte beyond (physical)");
    CHECK_EQ(ds_model_mem_ops.write(&m, (uintptr_t)buf + sizeof buf - 4, b4, 4), 0, "last 4 bytes (linear)");
    CHECK_EQ(ds_model_mem_ops.read(&m, (uintptr_t)buf + sizeof buf - 3, r4, 4), -1, "one byte beyond (linear)");
    CHECK_EQ(ds_model_mem_ops.read(&m, (uintptr_t)buf - 1, r4, 4), -1, "one byte before (linear)");
    CHECK_EQ(ds_model_mem_ops.read(&m, sizeof buf - 4, r4, 4), 0, "read back (physical)");
    CHECK(memcmp(r4, b4, 4) == 0, "same bytes");
    CHECK_EQ(ds_model_mem_ops.read(&m, 0, r4, sizeof buf + 1), -1, "longer than the region");
    CHECK_EQ(ds_model_mem_ops.read(&m, ~0ull - 1, r4, 4), -1, "an address near 2^64 (no wrap)");
    CHECK_EQ(ds_model_mem_ops.read(NULL, 0, r4, 4), -1, "NULL ctx");
}

int main(void)
{
    test_ops();
    run(DSM_PTL_P, true);
    run(DSM_PTL_E, true);
    run(DSM_SKYLAKE, false);
    run(DSM_ICELAKE, false);
    return check_summary();
}

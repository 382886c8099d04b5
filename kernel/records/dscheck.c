/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The PEBS record checks shared by the test kernel's flows and libds.ko's
 * (dscheck.h): the format 6 counters group, NetBurst's tagged loads.
 */
#include <ds/msr.h>
#include <ds/netburst.h>
#include <ds/pebs.h>
#include "dscheck.h"

#define CNTR_DATA_CFG (DS_PEBS_DATA_CFG_CNTRS | ((uint64_t)DSCHECK_CNTR_GP_MASK << DS_PEBS_DATA_CFG_GP_SHIFT) | \
                       ((uint64_t)DSCHECK_CNTR_FIXED_MASK << DS_PEBS_DATA_CFG_FIX_SHIFT))

uint64_t dscheck_data_cfg(uint32_t groups, unsigned lbr_depth)
{
    uint64_t dc = 0;
    if (groups & DS_GROUP_MEM)
        dc |= DS_PEBS_DATACFG_MEMINFO;
    if (groups & DS_GROUP_GPRS)
        dc |= DS_PEBS_DATACFG_GPRS;
    if (groups & DS_GROUP_LBR)
        dc |= DS_PEBS_DATACFG_LBRS | ((uint64_t)((lbr_depth ? lbr_depth : 1) - 1) << DS_PEBS_DATACFG_LBR_SHIFT);
    if (groups & DS_GROUP_CNTR)
        dc |= CNTR_DATA_CFG;
    if (groups & DS_GROUP_METRICS)
        dc |= DS_PEBS_DATA_CFG_METRICS;
    return dc;
}

bool dscheck_cntr_requests(struct ds_session *s, uint8_t evsel, uint8_t umask)
{
    struct ds_request c = {0};
    unsigned a = 0, b = 0;
    c.mode = DS_COUNT;
    c.raw.set = true;
    c.raw.evsel = evsel;
    c.raw.umask = umask;
    c.raw.nb_metric = -1;
    bool ok = ds_session_add(s, &c, &a) == DS_OK;
    c.raw.set = false;
    c.event = DS_EVENT_INSTRUCTIONS;
    ok = ok && ds_session_add(s, &c, &b) == DS_OK;
    ok = ok && s->req[a].kind == DS_CTR_GP && s->req[a].idx == 1 && s->req[b].kind == DS_CTR_FIXED &&
         s->req[b].idx == 0;
    return ok && (!s->cpu->caps.perf_metrics || ds_msr_write(s->cpu, 0x329, DSCHECK_METRICS_SEED) == DS_OK);
}

void dscheck_nb_tagged_loads(struct ds_request *rq)
{
    rq->raw.set = true;
    rq->raw.nb_event = "replay_event";
    rq->raw.nb_mask = "NBOGUS";
    rq->raw.nb_metric = DS_NB_METRIC_1STL_CACHE_LOAD_MISS;
}

/* Metrics of record @i (i > 0): the model updates IA32_PERF_METRICS to
 * Retiring FFH and slots grow by exactly a period; hardware updates it
 * (never the seed) and slots grow by at least a period. */
static bool metrics_ok(const struct dscheck_run *run, const struct dsrec_pebs *r, uint32_t i)
{
    uint64_t d = r[i].slots - r[i - 1].slots;
    if (run->exact)
        return r[i].metrics == DSCHECK_METRICS_MODEL && d == run->period;
    return r[i].metrics != DSCHECK_METRICS_SEED && d >= run->period;
}

void dscheck_cntr(const struct dscheck_run *run, const struct dsrec_pebs *r, uint32_t n, uint64_t data_cfg)
{
    uint32_t bad_mask = 0, bad_size = 0, bad_step = 0, bad_met = 0;
    uint32_t want_size = ds_pebs_record_size(DS_PEBS_FMT_6, data_cfg);
    bool met = (data_cfg & DS_PEBS_DATA_CFG_METRICS) != 0;
    unsigned p = (unsigned)run->period;
    const char *how = run->exact ? "exactly " : "at least ";
    for (uint32_t i = 0; i < n; i++) {
        if (!(r[i].hdr & DSREC_ADAPTIVE_CNTRS) || r[i].cntr_gp_mask != DSCHECK_CNTR_GP_MASK ||
            r[i].cntr_fixed_mask != DSCHECK_CNTR_FIXED_MASK || r[i].has_metrics != met)
            bad_mask++;
        if (met && i && !metrics_ok(run, r, i))
            bad_met++;
        if ((r[i].hdr >> DSREC_ADAPTIVE_SIZE_SHIFT) != want_size)
            bad_size++;
        if (i) {
            uint64_t d1 = r[i].cntr_gp[1] - r[i - 1].cntr_gp[1];
            uint64_t d2 = r[i].cntr_fixed[0] - r[i - 1].cntr_fixed[0];
            if (run->exact ? (d1 != run->period || d2 != run->period) : (d1 < run->period || d2 < run->period))
                bad_step++;
        }
    }
    run->check(run->ctx, n > 1 && bad_mask == 0,
               "%s: all %u records carry the counters group of PMC0, PMC1 and fixed 0 (%u without)", run->name, n,
               bad_mask);
    run->check(run->ctx, bad_size == 0, "%s: record size %u = 32 + 32 + 144 + 16 + 3 * 8%s (counters group counted; %u differ)",
               run->name, want_size, met ? " + 16 (slots, metrics)" : "", bad_size);
    if (met)
        run->check(run->ctx, n > 1 && bad_met == 0,
                   "%s: metrics in every record: slots (fixed 3) grow by %s%u, PERF_METRICS %s (%u off)", run->name,
                   how, p, run->exact ? "Retiring FFH" : "updated", bad_met);
    run->check(run->ctx, n > 1 && bad_step == 0,
               "%s: PMC1 and fixed 0 grow by %s%u events from record to record (%u steps off)", run->name, how, p,
               bad_step);
}

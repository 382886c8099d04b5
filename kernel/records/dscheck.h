/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The checks of a flow's PEBS records that the test kernel (kernel/e2e) and
 * libds.ko (linux/) make alike, with the same check text: each caller hands
 * its own check-line function (a TAP "ok" / "not ok" line counted in its
 * log) and the records it collected (struct dsrec_pebs, records.h).
 * Expectations are written here from the SDM and Linux, never read back
 * from libds; the requests these checks need go through libds's public
 * session API only.
 *
 *  - the format 6 counters group (Linux setup_pebs_adaptive_sample_data):
 *    PMC0 samples (PEBS), PMC1 counts the same event from 0 without a PMI
 *    and fixed counter 0 counts INST_RETIRED.ANY from 0; MSR_PEBS_DATA_CFG
 *    bit 4 with GP mask PMC0|PMC1 (bits 47:32) and fixed mask fixed 0
 *    (55:48) puts the three values into every record. With
 *    PERF_CAPABILITIES.PERF_METRICS also bit 5: TOPDOWN.SLOTS (fixed 3, from
 *    0) and IA32_PERF_METRICS (329H, set to DSCHECK_METRICS_SEED before the
 *    run) follow the counters. The session sets GLOBAL_CTRL bit 48
 *    (EN_PERF_METRICS, Linux intel_set_masks), so the model updates
 *    PERF_METRICS over the seed: every slot retires there, Retiring (bits
 *    7:0) FFH and the other metrics 0 (model/include/dsmodel.h);
 *  - NetBurst's replay-tagged loads request (dscheck_nb_tagged_loads).
 */
#ifndef DSCHECK_H
#define DSCHECK_H

#include <stdbool.h>
#include <stdint.h>
#include <ds/session.h>
#include "records.h"

/* One check line of the caller's log: @ok passes, @fmt (printf subset:
 * %u %s) says what was checked. Returns @ok. */
typedef bool (*dscheck_fn)(void *ctx, bool ok, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The run the records come from. */
struct dscheck_run {
    const char *name;          /* DSLOG run name, the first word of every check */
    uint64_t period;           /* the PEBS counter's period */
    bool exact;                /* the model: deltas exactly; hardware: at least */
    dscheck_fn check;
    void *ctx;
};

#define DSCHECK_METRICS_SEED 0x0807060504030201ull
#define DSCHECK_METRICS_MODEL 0xFFull
#define DSCHECK_CNTR_GP_MASK 0x3u
#define DSCHECK_CNTR_FIXED_MASK 0x1u

/* The MSR_PEBS_DATA_CFG a PEBS request's @groups mean (SDM "Adaptive PEBS
 * Record Format" bits; DS_GROUP_LBR: @lbr_depth entries; DS_GROUP_CNTR: the
 * counters group of PMC0, PMC1 and fixed 0 above): what a region is sized
 * with (ds_pebs_record_size) and the record size the checks expect. */
uint64_t dscheck_data_cfg(uint32_t groups, unsigned lbr_depth);

/* The counters group's counting side as session requests (DS_COUNT, no
 * PMI), after the PEBS request on PMC0: raw @evsel/@umask on PMC1 and
 * instructions on fixed 0 (the session counts slots on fixed 3 itself for
 * DS_GROUP_METRICS); with PERF_METRICS, IA32_PERF_METRICS seeded (a record
 * still holding the seed was never updated). False if a request failed or
 * landed elsewhere. */
bool dscheck_cntr_requests(struct ds_session *s, uint8_t evsel, uint8_t umask);

/* NetBurst's PEBS on loads (no generic PEBS load event there, libds
 * event.c): replay_event NBOGUS with 1stL_cache_load_miss_retired replay
 * tagging, as a raw NetBurst request (netburst.h; SDM Vol. 3B ch. 19
 * replay-tagging metrics). The loads a flow feeds the model are L1 misses
 * (data source 3, "L2 hit"), so every load is tagged. */
void dscheck_nb_tagged_loads(struct ds_request *rq);

/* Every record carries the counters group with exactly the masks asked for
 * (and the metrics where @data_cfg has them), its size counts the group,
 * and PMC1 / fixed 0 (the event is instructions) grow between records by
 * exactly one period (exact) or at least one (hardware: skid and the PMI
 * path count as well). */
void dscheck_cntr(const struct dscheck_run *run, const struct dsrec_pebs *r, uint32_t n, uint64_t data_cfg);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Sessions' private header (issue 26): what the session files share.
 *   session.c           lifecycle: init, add, start, stop, teardown
 *   session_place.c     placement: events, counters, PEBS format, groups,
 *                       the start plan, the buffers carved from the region
 *   session_msr.c       MSR save, programming in do_run's order, restore
 *   session_pmi.c       PMI routing: drain sinks, overflow hook, pmi_setup
 *   session_describe.c  ds_session_describe
 * Only public libds functions are called (plus ds_msr_read/_write to save
 * and restore MSRs).
 */
#ifndef DS_SESSION_INT_H
#define DS_SESSION_INT_H

#include <ds/session.h>
#include <ds/msr.h>
#include "util.h"

#define SES_PAGE 4096u
#define SES_SLOTS_FIXED 3u /* TOPDOWN.SLOTS: fixed counter 3 (SDM "Performance Metrics"; Linux INTEL_PMC_IDX_FIXED_SLOTS) */
#define SES_EN_PERF_METRICS (1ull << 48) /* IA32_PERF_GLOBAL_CTRL (Linux GLOBAL_CTRL_EN_PERF_METRICS) */
#define SES_FIXED_BITS(g) (((g) >> 32) & 0xFFFFull) /* fixed counters of a GLOBAL_CTRL value, not bit 48 */
#define SES_GROUPS_KNOWN (DS_GROUP_ALL | DS_GROUP_CNTR | DS_GROUP_METRICS)

static inline bool fam6(const struct ds_cpu *cpu) { return !cpu->caps.netburst; }

/* Request i of @s, in the order added, while @go holds: the one request
 * loop of the session files. Slots from nreq on are always zero (ds_session_add
 * fills req[nreq] only on success) and most loops skip DS_HOW_NONE, so a
 * bound mutated in one loop alone (< -> <=) was equivalent there; written
 * once, every loop (used_counters among them) sees it (issue 10). */
#define SES_FOR_REQ(s, i, go) for (unsigned i = 0; (go) && i < (s)->nreq; i++)

static inline bool has_how(const struct ds_session *s, enum ds_session_how h)
{
    SES_FOR_REQ(s, i, true)
        if (s->req[i].how == h)
            return true;
    return false;
}

static inline bool v2(const struct ds_session *s)
{
    return fam6(s->cpu) && s->cpu->caps.perfmon_version >= 2;
}

static inline uint64_t req_bit(const struct ds_session_req *r)
{
    return r->kind == DS_CTR_FIXED ? 1ull << (32 + r->idx) : 1ull << r->idx;
}

static inline bool is_pebs(const struct ds_session_req *r)
{
    return r->how == DS_HOW_PEBS || r->how == DS_HOW_APEBS || r->how == DS_HOW_NB_PEBS;
}

/* A fixed-counter request's IA32_FIXED_CTR_CTRL field (SDM Vol. 3B
 * "IA32_FIXED_CTR_CTRL": 4 bits per counter, OS bit 0, USR bit 1), from its
 * EVTSEL's OS/USR bits: what session_msr.c programs, describe prints. */
static inline unsigned ses_fixed_ctrl(const struct ds_session_req *r)
{
    return ((r->evtsel & DS_EVTSEL_OS) ? DS_FIXED_OS : 0) | ((r->evtsel & DS_EVTSEL_USR) ? DS_FIXED_USR : 0);
}

/* Arch PEBS with a counters group in some request: every counter of the
 * session is a member of it (the group records s->gctl's counters). */
static inline bool apebs_cntr(const struct ds_session *s)
{
    SES_FOR_REQ(s, i, s->use_apebs)
        if (s->req[i].how == DS_HOW_APEBS && (s->req[i].rq.groups & (DS_GROUP_CNTR | DS_GROUP_METRICS)))
            return true;
    return false;
}

/* session.c */
/* Linear-address width >= 57 (CPUID 80000008H:EAX[15:8]): init's region
 * check and setup_area's DS area (session_place.c). */
bool ds__ses_lin_la57(const struct ds_cpu *cpu);

/* session_place.c */
/* ds_session_add's two counter paths: DS_COUNT, and sampling (PEBS for
 * AUTO/PRECISE, else overflow); @r filled, nothing marked in @s. */
int ds__ses_add_count(struct ds_session *s, struct ds_session_req *r);
int ds__ses_add_counter_req(struct ds_session *s, struct ds_session_req *r);
/* The PEBS format all PEBS requests share (s->fmt once chosen), else the
 * CPU's; DS_ERR_SESSION_NO_DS where it has no PEBS at all. */
int ds__ses_pebs_format(struct ds_session *s, enum ds_pebs_fmt *f);
/* @r's start and reload values for r->rq.period, validated as add does
 * (DS_ERR_SESSION_BAD_PERIOD): ds_session_set_period. */
int ds__ses_period_values(struct ds_session *s, struct ds_session_req *r);
/* start: freeze, GLOBAL_CTRL and PEBS bits, data_cfg, one_pebs, use_area/_apebs. */
void ds__ses_plan(struct ds_session *s);
/* The adaptive MSR_PEBS_DATA_CFG of the requests (plan; describe). */
uint64_t ds__ses_data_cfg(const struct ds_session *s);
/* The region's split and record counts, from @s alone (no MSR, nothing
 * written): carve sets the buffers up from it, describe shows it before
 * start. Errors: DS_ERR_SESSION_BUF_SMALL, ds_pebs_thresh_margin's. */
struct ses_bufplan {
    bool area, apebs;                    /* a DS area page / an arch-PEBS part */
    uint64_t off, pp, bp;                /* skipped to 4 KiB, PEBS part, BTS part (bytes) */
    uint32_t pebs_n, pebs_rsz, pebs_thr; /* DS-area PEBS records, record size, threshold (records) */
    uint32_t bts_n, bts_rsz, bts_thr;    /* BTS records, record size, threshold (0: circular) */
    unsigned apebs_code;                 /* arch PEBS buffer 4 KiB << code */
};
int ds__ses_bufplan(const struct ds_session *s, uint64_t data_cfg, struct ses_bufplan *o);
/* start: the region split into DS area, PEBS and BTS parts (memory only). */
int ds__ses_carve(struct ds_session *s);
/* Arch-PEBS CFG_C group bits of a request's groups. */
uint64_t ds__ses_apebs_groups(const struct ds_session *s, uint32_t g);

/* session_msr.c */
/* Every MSR start will write, read once (reads only). */
int ds__ses_save_all(struct ds_session *s);
/* Everything after the saves, in do_run's order. */
int ds__ses_program_all(struct ds_session *s);
/* Saved MSRs written back, newest first; failed ones stay saved. */
int ds__ses_restore_saved(struct ds_session *s);

/* session_pmi.c */
/* ds_pmi_init with the session's sinks and hook, the freeze bit. */
int ds__ses_pmi_setup(struct ds_session *s);

#endif /* DS_SESSION_INT_H */

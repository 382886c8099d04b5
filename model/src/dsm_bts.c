/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dsmodel: Branch Trace Store (SDM Vol. 3B "Branch Trace Store (BTS)"): when
 * a taken branch writes a BTS record, the record layout (12 or 24 bytes), and
 * the BTINT threshold PMI. Includes no libds header.
 */
#include "dsmodel_int.h"

uint32_t dsm_bts_record_size(const struct dsm_cpu *c) { return dsm_ds64(c) ? 24 : 12; }

static void bts_record(struct dsm_cpu *c, const struct dsm_event *ev, bool btint)
{
    uint8_t rec[24];
    uint32_t size = dsm_bts_record_size(c);
    /* flags bit 4 = predicted; not supported on Core/Atom (SDM), the model
     * reports it only on NetBurst. */
    uint64_t flags = (c->kind == K_NB && !(ev->flags & DSM_EV_MISPRED)) ? 0x10 : 0;
    if (size == 24) {
        put64(rec, ev->ip);
        put64(rec + 8, ev->br_to);
        put64(rec + 16, flags);
    } else {
        uint32_t w[3] = { (uint32_t)ev->ip, (uint32_t)ev->br_to, (uint32_t)flags };
        for (int i = 0; i < 3; i++)
            for (int b = 0; b < 4; b++)
                rec[4 * i + b] = (uint8_t)(w[i] >> (8 * b));
    }
    bool crossed;
    if (dsm__ds_append(c, 0, rec, size, !btint, &crossed)) {
        c->st.bts_written++;
        if (crossed && btint)
            c->pmi_pending |= DSM_PMI_BTS;
    } else {
        c->st.bts_skipped++;
    }
}

/* A taken branch: a BTS record with DEBUGCTL TR and BTS set, unless the
 * BTS_OFF_OS/BTS_OFF_USR bit of the branch's CPL is set (SDM "Branch Trace
 * Store"; NetBurst has its own DEBUGCTL bit positions). */
void dsm__bts_taken(struct dsm_cpu *c, const struct dsm_event *ev)
{
    bool nb = c->kind == K_NB;
    uint64_t d = c->debugctl;
    uint64_t tr = nb ? DSM_NBDBG_TR : DSM_DBG_TR, bts = nb ? DSM_NBDBG_BTS : DSM_DBG_BTS;
    uint64_t off_os = nb ? DSM_NBDBG_OFF_OS : DSM_DBG_BTS_OFF_OS;
    uint64_t off_usr = nb ? DSM_NBDBG_OFF_USR : DSM_DBG_BTS_OFF_USR;
    uint64_t btint = nb ? DSM_NBDBG_BTINT : DSM_DBG_BTINT;
    if ((d & tr) && (d & bts) && has_bts(c) && !((ev->cpl == 0) ? (d & off_os) : (d & off_usr)))
        bts_record(c, ev, (d & btint) != 0);
}

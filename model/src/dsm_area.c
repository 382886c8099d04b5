/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dsmodel: the DS save area (SDM Vol. 3B "DS Save Area"; reference
 * ds-area.md): IA32_DS_AREA, the BTS/PEBS buffer management fields, counter
 * reset slots, and appending one record for BTS and PEBS. Includes no libds
 * header.
 */
#include "dsmodel_int.h"

static bool canonical(const struct dsm_cpu *c, uint64_t v)
{
    if (!c->lm)
        return (v >> 32) == 0;
    uint64_t top = v >> 47;
    return top == 0 || top == 0x1FFFF;
}

/* IA32_DS_AREA (600H): with CPUID.1:EDX.DS, canonical linear address. */
int dsm__msr_ds_area(struct dsm_cpu *c, uint32_t msr, bool wr, uint64_t *v)
{
    (void)msr;
    if (!has_ds(c))
        return DSM_GP;
    if (wr) {
        if (!canonical(c, *v))
            return DSM_GP;
        c->ds_area = *v;
    } else {
        *v = c->ds_area;
    }
    return DSM_OK;
}

/* Field i (0 BTS base, 1 index, 2 max, 3 thresh, 4 PEBS base, 5 index, 6 max,
 * 7 thresh) of the DS buffer management area (SDM "DS Save Area" figures). */
static int ds_read_fields(struct dsm_cpu *c, unsigned first, uint64_t out[4])
{
    if (!c->mem) {
        c->st.mem_faults++;
        return -1;
    }
    if (dsm_ds64(c)) {
        if (c->mem->read(c->mem_ctx, c->ds_area + 8 * first, out, 32)) {
            c->st.mem_faults++;
            return -1;
        }
        return 0;
    }
    uint32_t f[4];
    if (c->mem->read(c->mem_ctx, (c->ds_area + 4 * first) & 0xFFFFFFFFull, f, 16)) {
        c->st.mem_faults++;
        return -1;
    }
    for (int i = 0; i < 4; i++)
        out[i] = f[i];
    return 0;
}

static int ds_write_index(struct dsm_cpu *c, unsigned field, uint64_t val)
{
    int rc;
    if (dsm_ds64(c)) {
        rc = c->mem->write(c->mem_ctx, c->ds_area + 8 * field, &val, 8);
    } else {
        uint32_t v32 = (uint32_t)val;
        rc = c->mem->write(c->mem_ctx, (c->ds_area + 4 * field) & 0xFFFFFFFFull, &v32, 4);
    }
    if (rc)
        c->st.mem_faults++;
    return rc;
}

/* Counter-reset slot (reference ds-area.md): 64-bit 0x40 + 8*slot, 32-bit
 * 0x20 + 8*slot (NetBurst: 40-bit value, low dword 0x20, high 0x24). */
uint64_t dsm__ds_reset_value(struct dsm_cpu *c, unsigned slot)
{
    uint64_t v = 0;
    uint64_t a = dsm_ds64(c) ? c->ds_area + 0x40 + 8ull * slot : (c->ds_area + 0x20 + 8ull * slot) & 0xFFFFFFFFull;
    if (!c->mem || c->mem->read(c->mem_ctx, a, &v, 8)) {
        c->st.mem_faults++;
        return 0;
    }
    return v;
}

/* Append one record; shared by PEBS (base field 4) and BTS (base field 0).
 * Returns 1 written, 0 skipped. *crossed set when the index is at or past
 * the interrupt threshold after this record. */
int dsm__ds_append(struct dsm_cpu *c, unsigned first, const void *rec, uint32_t size, bool circular,
                    bool *crossed)
{
    uint64_t f[4];
    *crossed = false;
    if (ds_read_fields(c, first, f))
        return 0;
    uint64_t base = f[0], idx = f[1], max = f[2], thr = f[3];
    if (!dsm_ds64(c)) {
        base &= 0xFFFFFFFFull;
    }
    if (idx < base || idx + size > max) {
        if (!circular || base + size > max)
            return 0;
        idx = base;   /* BTINT = 0: the BTS buffer wraps to its base */
        c->st.bts_wraps++;
    }
    if (c->mem->write(c->mem_ctx, idx, rec, size)) {
        c->st.mem_faults++;
        return 0;
    }
    uint64_t nidx = idx + size;
    if (ds_write_index(c, first + 1, nidx))
        return 0;
    /* The CPU compares after every record: each record that leaves the
     * index at or beyond the threshold requests the PMI (the handler resets
     * the index; until then the LVT mask holds further PMIs off). */
    if (nidx >= thr)
        *crossed = true;
    return 1;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* Shared fixture for the DS tests: a fake CPU, an area, BTS/PEBS buffers. */
#ifndef TEST_DS_ENV_H
#define TEST_DS_ENV_H

#include "fake_cpu.h"

#define ENV_BTS_BYTES (64 * 24)
#define ENV_PEBS_BYTES (16 * 0xC8 * 4)

struct env {
    struct fake_cpu f;
    struct ds_cpu cpu;
    struct ds_ctx ctx;
    struct ds_area_config cfg;
    _Alignas(64) union ds_area area;
    _Alignas(64) unsigned char bts[ENV_BTS_BYTES + 64];
    _Alignas(64) unsigned char pebs[ENV_PEBS_BYTES + 64];
};

/* Identify @e->f (already filled with a profile) and fill a valid default config:
 * BTS 64 records threshold 32, PEBS 16 records of the CPU's format, threshold 1. */
static inline void env_identify(struct env *e, int ia32e)
{
    memset(&e->cpu, 0, sizeof(e->cpu));
    memset(&e->ctx, 0, sizeof(e->ctx));
    ds_cpu_init(&e->cpu, &fake_ops, &e->f);
    if (ia32e >= 0)
        ds_cpu_set_ia32e(&e->cpu, ia32e != 0);
    ds_cpu_identify(&e->cpu);
    memset(&e->cfg, 0, sizeof(e->cfg));
    e->cfg.area = &e->area;
    enum ds_layout lay = DS_LAYOUT_64;
    ds_area_layout(&e->cpu, &lay);
    uint32_t btsz = lay == DS_LAYOUT_32 ? 12 : 24;
    e->cfg.bts.mem = e->bts;
    e->cfg.bts.bytes = 64 * btsz;
    e->cfg.bts.thresh_records = 32;
    enum ds_pebs_fmt fmt = DS_PEBS_FMT_NONE;
    if (e->cpu.caps.pebs_advertised && ds_pebs_format_select(&e->cpu, lay, &fmt) == DS_OK) {
        e->cfg.pebs.mem = e->pebs;
        e->cfg.pebs.bytes = 16 * ds_pebs_record_size(fmt, 0);
        e->cfg.pebs.thresh_records = 1;
    }
    if (lay == DS_LAYOUT_32) {
        /* 32-bit layout on a 64-bit host: give the CPU a fake low linear range. */
        e->cfg.area_linear = 0x10000;
        e->cfg.bts.linear = 0x20000;
        e->cfg.pebs.linear = 0x40000;
    }
}

#endif

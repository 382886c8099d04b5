/* SPDX-License-Identifier: BSD-2-Clause */
/* Host helpers for model tests: a fake linear address range backed by a host
 * buffer (so the 32-bit DS layout can be tested on a 64-bit host), event
 * builders and little-endian readers. */
#ifndef MODEL_UTIL_H
#define MODEL_UTIL_H

#include <stdint.h>
#include <string.h>
#include "dsmodel.h"

struct fake_mem {
    uint64_t base;        /* linear address of buf[0] */
    uint8_t *buf;
    size_t size;
    unsigned long reads, writes, faults;
};

static int fm_read(void *ctx, uint64_t lin, void *out, size_t len)
{
    struct fake_mem *m = ctx;
    if (lin < m->base || lin - m->base > m->size || len > m->size - (lin - m->base)) {
        m->faults++;
        return -1;
    }
    memcpy(out, m->buf + (lin - m->base), len);
    m->reads++;
    return 0;
}

static int fm_write(void *ctx, uint64_t lin, const void *in, size_t len)
{
    struct fake_mem *m = ctx;
    if (lin < m->base || lin - m->base > m->size || len > m->size - (lin - m->base)) {
        m->faults++;
        return -1;
    }
    memcpy(m->buf + (lin - m->base), in, len);
    m->writes++;
    return 0;
}

static const struct dsm_mem_ops fm_ops = { fm_read, fm_write };

/* A model CPU of profile p over a cleared fake memory block at linear base. */
static inline int fm_cpu_init(struct dsm_cpu *c, enum dsm_profile p, struct fake_mem *m, uint8_t *blk, size_t n,
                              uint64_t base)
{
    memset(blk, 0, n);
    m->base = base;
    m->buf = blk;
    m->size = n;
    return dsm_init(c, p, &fm_ops, m);
}

static inline uint64_t rd64(const struct fake_mem *m, uint64_t lin)
{
    uint64_t v;
    memcpy(&v, m->buf + (lin - m->base), 8);
    return v;
}
static inline uint32_t rd32(const struct fake_mem *m, uint64_t lin)
{
    uint32_t v;
    memcpy(&v, m->buf + (lin - m->base), 4);
    return v;
}
static inline void wr64(struct fake_mem *m, uint64_t lin, uint64_t v) { memcpy(m->buf + (lin - m->base), &v, 8); }
static inline void wr32(struct fake_mem *m, uint64_t lin, uint32_t v) { memcpy(m->buf + (lin - m->base), &v, 4); }

/* DS management area written by "software" (the test), SDM layouts. */
static inline void ds_setup(struct fake_mem *m, uint64_t area, bool ds64, uint64_t bts_base, uint64_t bts_max,
                            uint64_t bts_thr, uint64_t pebs_base, uint64_t pebs_max, uint64_t pebs_thr)
{
    uint64_t f[8] = { bts_base, bts_base, bts_max, bts_thr, pebs_base, pebs_base, pebs_max, pebs_thr };
    for (int i = 0; i < 8; i++) {
        if (ds64)
            wr64(m, area + 8 * i, f[i]);
        else
            wr32(m, area + 4 * i, (uint32_t)f[i]);
    }
}

/* A plain instruction at ip (length 4), user mode, recognisable registers. */
static inline struct dsm_event ev_plain(uint64_t ip)
{
    struct dsm_event e;
    memset(&e, 0, sizeof(e));
    e.ip = ip;
    e.next_ip = ip + 4;
    e.cpl = 3;
    for (int k = 0; k < DSM_R__COUNT; k++)
        e.regs[k] = 0x1000ull * (k + 1) + ip;
    e.regs[DSM_R_FLAGS] = 0x202;
    e.tsc = ip * 3;
    return e;
}

static inline struct dsm_event ev_branch(uint64_t ip, uint64_t to, bool mispred)
{
    struct dsm_event e = ev_plain(ip);
    e.flags = DSM_EV_BRANCH | DSM_EV_TAKEN | (mispred ? DSM_EV_MISPRED : 0);
    e.br_kind = DSM_BR_NEAR_REL_JMP;
    e.br_to = to;
    e.next_ip = to;
    return e;
}

static inline struct dsm_event ev_load(uint64_t ip, uint64_t addr, uint32_t lat, uint32_t src)
{
    struct dsm_event e = ev_plain(ip);
    e.flags = DSM_EV_LOAD;
    e.load_addr = addr;
    e.load_latency = lat;
    e.data_src = src;
    return e;
}

#endif

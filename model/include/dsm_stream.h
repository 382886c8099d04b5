/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Deterministic pseudo-random instruction streams for the model (soak tests,
 * benchmarks, kernel self-tests). Freestanding, header-only, no globals:
 * xorshift64* seeded by the caller, so a failing run is replayed from the
 * printed seed.
 */
#ifndef DSM_STREAM_H
#define DSM_STREAM_H

#include <stdint.h>
#include "dsmodel.h"

struct dsm_stream {
    uint64_t state;
    uint64_t ip;
    uint32_t branch_pct, load_pct, mispred_pct, kernel_pct;  /* 0..100 */
};

static inline uint64_t dsm_rand(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1Dull;
}

/* Uniform in [lo, hi] (hi >= lo). */
static inline uint64_t dsm_rand_range(uint64_t *s, uint64_t lo, uint64_t hi)
{
    return lo + dsm_rand(s) % (hi - lo + 1);
}

static inline void dsm_stream_init(struct dsm_stream *st, uint64_t seed, uint64_t ip)
{
    st->state = seed ? seed : 0x9E3779B97F4A7C15ull;
    st->ip = ip;
    st->branch_pct = 15;
    st->load_pct = 25;
    st->mispred_pct = 5;
    st->kernel_pct = 0;
}

/* Register k (DSM_R_*) of the instruction at ip: distinct in the low 32 bits
 * and in the high bits, so a swapped register shows in 32- and 64-bit records. */
static inline uint64_t dsm_stream_reg(uint64_t ip, unsigned k)
{
    return ip ^ ((uint64_t)k << 56) ^ ((uint64_t)k << 24);
}

/* Fill *ev with the next instruction; returns ev. Registers are derived from
 * the IP (dsm_stream_reg) so records can be checked against the stream. */
static inline struct dsm_event *dsm_stream_next(struct dsm_stream *st, struct dsm_event *ev)
{
    uint64_t r = dsm_rand(&st->state);
    unsigned a = (unsigned)(r % 100), b = (unsigned)((r >> 8) % 100), c = (unsigned)((r >> 16) % 100),
             d = (unsigned)((r >> 24) % 100);
    ev->ip = st->ip;
    ev->next_ip = st->ip + 1 + ((r >> 32) & 7);
    for (int k = 0; k < DSM_R__COUNT; k++)
        ev->regs[k] = dsm_stream_reg(st->ip, (unsigned)k);
    ev->regs[DSM_R_FLAGS] = 0x202;
    ev->flags = 0;
    ev->cpl = d < st->kernel_pct ? 0 : 3;
    ev->br_kind = DSM_BR_JCC;
    ev->br_to = 0;
    ev->load_addr = 0;
    ev->load_latency = 0;
    ev->data_src = 0;
    ev->tsc = st->ip * 2;
    ev->xmm = 0;
    if (a < st->branch_pct) {
        ev->flags |= DSM_EV_BRANCH | DSM_EV_TAKEN;
        if (b < st->mispred_pct)
            ev->flags |= DSM_EV_MISPRED;
        ev->br_kind = (uint8_t)((r >> 40) % 7);
        ev->br_to = 0x400000 + ((r >> 20) & 0xFFFF0);
        ev->next_ip = ev->br_to;
    } else if (c < st->load_pct) {
        ev->flags |= DSM_EV_LOAD;
        ev->load_addr = 0x10000000 + ((r >> 12) & 0xFFFF8);
        ev->load_latency = (uint32_t)((r >> 44) & 0x1FF);
        ev->data_src = (uint32_t)((r >> 53) & 0xF);
    }
    st->ip = ev->next_ip;
    return ev;
}

#endif

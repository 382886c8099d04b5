/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The e2e flows' per-CPU state (one struct e2e per CPU, issue 13; E is the
 * calling CPU's) and two helpers every flow file uses. See flow.h.
 */
#include "flow.h"

K_PERCPU(struct e2e, e2e_cpus);

struct e2e *e2e_self(void) { return &e2e_cpus[k_smp_self()]; }
struct e2e *e2e_cpu(unsigned i) { return &e2e_cpus[i]; }

void zero(void *v, size_t n)
{
    volatile uint8_t *p = v;
    for (size_t i = 0; i < n; i++)
        p[i] = 0;
}

uint64_t lost_of(const struct ds_drain_stats *s)
{
    return s->lost_beyond + s->lost_corrupt + s->lost_rejected + s->lost_race;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* PMI plumbing: LVT PC, fixed-vector and NMI delivery. See k/pmi.h. */
#include <k/pmi.h>
#include <k/lapic.h>
#include <k/console.h>
#include <k/percpu.h>
#include <stddef.h>

/* Per CPU (issue 13): CPUs running the e2e flows at once each pick fixed or
 * NMI delivery for their own LVT PC. */
K_PERCPU(volatile enum k_pmi_mode, modes); /* after k_smp_setup */
#define cur_mode (modes[k_smp_self()])
static k_pmi_fn pmi_fn;
static void *pmi_ctx;
static volatile unsigned n_fixed, n_nmi, n_unclaimed;
static struct {
    k_nmi_fn fn;
    void *ctx;
} nmi_handlers[4];

uint32_t k_pmi_lvt_value(void)
{
    return cur_mode == K_PMI_NMI ? K_LVT_DM_NMI | K_VEC_PMI : K_LVT_DM_FIXED | K_VEC_PMI;
}

void k_pmi_arm(void) { k_lapic_lvt_pc_write(k_pmi_lvt_value()); }
void k_pmi_disarm(void) { k_lapic_lvt_pc_write(k_pmi_lvt_value() | K_LVT_MASKED); }

static void pmi_vector(struct k_trap_frame *f, void *ctx)
{
    (void)ctx;
    __atomic_fetch_add(&n_fixed, 1u, __ATOMIC_RELAXED);
    if (pmi_fn)
        pmi_fn(f, false, pmi_ctx);
    k_lapic_eoi();
    /* The CPU masked LVT PC when it raised the PMI: re-arm. */
    k_pmi_arm();
}

static void nmi_vector(struct k_trap_frame *f, void *ctx)
{
    (void)ctx;
    bool claimed = false;
    if (cur_mode == K_PMI_NMI) {
        if (pmi_fn && pmi_fn(f, true, pmi_ctx)) {
            claimed = true;
            __atomic_fetch_add(&n_nmi, 1u, __ATOMIC_RELAXED);
        }
    }
    for (size_t i = 0; i < sizeof(nmi_handlers) / sizeof(nmi_handlers[0]); i++)
        if (nmi_handlers[i].fn && nmi_handlers[i].fn(f, nmi_handlers[i].ctx))
            claimed = true;
    if (!claimed) {
        __atomic_fetch_add(&n_unclaimed, 1u, __ATOMIC_RELAXED);
        kprintf("# NMI not claimed by any handler (%u so far)\n", n_unclaimed);
    }
    if (cur_mode == K_PMI_NMI)
        k_pmi_arm();
}

void k_pmi_init(enum k_pmi_mode m)
{
    for (unsigned i = 0; i < k_smp_slots(); i++)
        modes[i] = m;
    k_trap_register(K_VEC_PMI, pmi_vector, NULL);
    k_trap_register(K_VEC_NMI, nmi_vector, NULL);
    k_pmi_disarm();
}

void k_pmi_set_mode(enum k_pmi_mode m)
{
    bool masked = k_lapic_lvt_pc_read() & K_LVT_MASKED;
    cur_mode = m;
    k_lapic_lvt_pc_write(k_pmi_lvt_value() | (masked ? K_LVT_MASKED : 0));
}

enum k_pmi_mode k_pmi_mode(void) { return cur_mode; }
const char *k_pmi_mode_name(enum k_pmi_mode m) { return m == K_PMI_NMI ? "nmi" : "fixed"; }

k_pmi_fn k_pmi_register(k_pmi_fn fn, void *ctx, void **out_old_ctx)
{
    k_pmi_fn old = pmi_fn;
    if (out_old_ctx)
        *out_old_ctx = pmi_ctx;
    pmi_fn = NULL;
    pmi_ctx = ctx;
    pmi_fn = fn;
    return old;
}

unsigned k_pmi_fixed_count(void) { return n_fixed; }
unsigned k_pmi_nmi_count(void) { return n_nmi; }
unsigned k_nmi_unclaimed_count(void) { return n_unclaimed; }

int k_nmi_register(k_nmi_fn fn, void *ctx)
{
    for (size_t i = 0; i < sizeof(nmi_handlers) / sizeof(nmi_handlers[0]); i++) {
        if (!nmi_handlers[i].fn) {
            nmi_handlers[i].ctx = ctx;
            nmi_handlers[i].fn = fn;
            return 0;
        }
    }
    return -1;
}

void k_nmi_unregister(k_nmi_fn fn)
{
    for (size_t i = 0; i < sizeof(nmi_handlers) / sizeof(nmi_handlers[0]); i++)
        if (nmi_handlers[i].fn == fn)
            nmi_handlers[i].fn = NULL;
}

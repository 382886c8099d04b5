/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * PMI plumbing: a self-IPI on the PMI vector reaches the registered PMI
 * handler, is EOI'd and LVT PC is re-armed; an NMI-mode delivery (NMI
 * self-IPI) reaches the PMI handler from the NMI handler and re-arms LVT PC.
 * No counter overflows here: a real PMI needs a PMU (none under TCG); the
 * counter groups drive real PMIs through the same plumbing.
 */
#include <k/ktest.h>
#include <k/lapic.h>
#include <k/pmi.h>
#include <k/io.h>
#include <k/cmdline.h>
#include <k/safe.h>
#include <stdint.h>

static volatile unsigned hits, nmi_hits;
static volatile bool in_service_seen;

static bool on_pmi(struct k_trap_frame *f, bool in_nmi, void *ctx)
{
    (void)f;
    (void)ctx;
    if (in_nmi) {
        nmi_hits++;
    } else {
        hits++;
        in_service_seen = k_lapic_in_service(K_VEC_PMI);
    }
    return true;
}

static void wait_for(volatile unsigned *p, unsigned want)
{
    for (unsigned i = 0; i < 10000000 && *p < want; i++)
        k_pause();
}

static void test_pmi(void)
{
    if (k_lapic_mode() == K_LAPIC_NONE) {
        ktest_skip("no usable local APIC: %s", k_lapic_absent_reason());
        return;
    }
    enum k_pmi_mode saved = k_pmi_mode();
    void *old_ctx;
    k_pmi_fn old = k_pmi_register(on_pmi, NULL, &old_ctx);

    uint32_t t = k_lapic_read(K_APIC_LVT_TIMER);
    ktest_check(t & K_LVT_MASKED, "LAPIC timer LVT masked (0x%x)", t);

    /* LVT PC is writable and reads back. */
    k_lapic_lvt_pc_write(K_LVT_MASKED | K_LVT_DM_FIXED | K_VEC_PMI);
    uint32_t lvt = k_lapic_lvt_pc_read();
    ktest_check((lvt & (K_LVT_MASKED | K_LVT_DM_MASK | K_LVT_VECTOR_MASK)) == (K_LVT_MASKED | K_VEC_PMI),
                "LVT PC written masked/fixed/0x%x reads back 0x%x", K_VEC_PMI, lvt);

    /* Fixed delivery. LVT PC masked first, as the CPU leaves it after a PMI. */
    k_pmi_set_mode(K_PMI_FIXED);
    k_pmi_disarm();
    hits = 0;
    unsigned before = k_pmi_fixed_count();
    k_lapic_self_ipi(K_VEC_PMI);
    wait_for(&hits, 1);
    ktest_check(hits == 1 && k_pmi_fixed_count() == before + 1, "fixed self-IPI on vector 0x%x reached the PMI handler (%u)",
                K_VEC_PMI, hits);
    if (in_service_seen)
        ktest_ok("PMI vector was in service inside the handler");
    else
        /* Seen under nested KVM on an Intel host (xAPIC and x2APIC): the
         * virtual ISR read inside the handler returned 0 although the
         * interrupt was delivered and its EOI worked. Bare metal must show it. */
        ktest_deviation("PMI vector not shown in service inside the handler");
    ktest_check(!k_lapic_in_service(K_VEC_PMI), "PMI vector EOI'd (ISR bit clear)");
    lvt = k_lapic_lvt_pc_read();
    ktest_check(!(lvt & K_LVT_MASKED) && (lvt & K_LVT_VECTOR_MASK) == K_VEC_PMI &&
                    (lvt & K_LVT_DM_MASK) == K_LVT_DM_FIXED,
                "LVT PC re-armed after the PMI (0x%x)", lvt);
    /* A second one gets through: the first was really EOI'd. */
    k_lapic_self_ipi(K_VEC_PMI);
    wait_for(&hits, 2);
    ktest_check(hits == 2, "second fixed PMI delivered (%u)", hits);

    /* NMI delivery. */
    k_pmi_set_mode(K_PMI_NMI);
    k_pmi_disarm();
    nmi_hits = 0;
    before = k_pmi_nmi_count();
    k_lapic_self_nmi();
    wait_for(&nmi_hits, 1);
    ktest_check(nmi_hits == 1 && k_pmi_nmi_count() == before + 1, "NMI self-IPI reached the PMI handler in NMI context (%u)",
                nmi_hits);
    lvt = k_lapic_lvt_pc_read();
    ktest_check(!(lvt & K_LVT_MASKED) && (lvt & K_LVT_DM_MASK) == K_LVT_DM_NMI,
                "LVT PC re-armed with NMI delivery after the NMI (0x%x)", lvt);
    ktest_check(hits == 2, "NMI did not go through the fixed vector (%u)", hits);

    k_pmi_disarm();
    k_pmi_register(old, old_ctx, NULL);
    k_pmi_set_mode(saved);
    k_pmi_disarm();

    uint32_t c[4];
    __asm__ volatile("cpuid" : "=a"(c[0]), "=b"(c[1]), "=c"(c[2]), "=d"(c[3]) : "a"(1), "c"(0));
    if (!(c[2] & (1u << 21)))
        ktest_skip("x2APIC mode not exercised: CPUID does not offer x2APIC");
    else
        ktest_check(k_lapic_mode() == K_LAPIC_X2APIC || k_opt_is("apic", "xapic"), "x2APIC mode in use when offered (%s)",
                    k_lapic_mode_name());
}
KTEST(pmi, test_pmi);

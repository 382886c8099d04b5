/* SPDX-License-Identifier: BSD-2-Clause */
/* Local APIC in xAPIC or x2APIC mode. See k/lapic.h. */
#include <k/lapic.h>
#include <k/safe.h>
#include <k/vector.h>
#include <k/io.h>
#include <k/console.h>
#include <stdint.h>

static enum k_lapic_mode mode;
static uintptr_t mmio;
static const char *absent = "k_lapic_init() not called";
static char absent_buf[96];

const char *k_lapic_absent_reason(void) { return mode == K_LAPIC_NONE ? absent : ""; }

uint32_t k_lapic_read(uint32_t reg)
{
    if (mode == K_LAPIC_X2APIC)
        return (uint32_t)k_rdmsr(0x800u + (reg >> 4));
    if (mode == K_LAPIC_XAPIC)
        return *(volatile uint32_t *)(mmio + reg);
    return 0;
}

void k_lapic_write(uint32_t reg, uint32_t val)
{
    if (mode == K_LAPIC_X2APIC)
        k_wrmsr(0x800u + (reg >> 4), val);
    else if (mode == K_LAPIC_XAPIC)
        *(volatile uint32_t *)(mmio + reg) = val;
}

enum k_lapic_mode k_lapic_mode(void) { return mode; }

const char *k_lapic_mode_name(void)
{
    return mode == K_LAPIC_X2APIC ? "x2APIC" : mode == K_LAPIC_XAPIC ? "xAPIC" : "none";
}

int k_lapic_init(bool allow_x2apic)
{
    uint32_t r[4];
    k_cpuid(1, 0, r);
    if (!(r[3] & (1u << 9))) {
        absent = "CPUID.01H:EDX.APIC[9] = 0 (no local APIC, or disabled by firmware)";
        return -1;
    }
    bool x2 = allow_x2apic && (r[2] & (1u << 21));
    uint64_t base = 0;
    int fr = k_rdmsr_safe(K_MSR_IA32_APIC_BASE, &base);
    if (fr) {
        k_snprintf(absent_buf, sizeof absent_buf, "RDMSR IA32_APIC_BASE faults (%s)", k_trap_name(K_SAFE_VECTOR(fr)));
        absent = absent_buf;
        return -1;
    }
    /* Firmware may hand over in x2APIC mode. Leaving it needs a pass
     * through the disabled state (SDM "x2APIC State Transitions"), which
     * also resets the APIC: stay in x2APIC mode instead. */
    if ((base & (K_APIC_BASE_EN | K_APIC_BASE_EXTD)) == (K_APIC_BASE_EN | K_APIC_BASE_EXTD))
        x2 = true;
    uint64_t phys = base & 0xFFFFFF000ull;
    if (!x2 && phys >= (1ull << 32)) {
        k_snprintf(absent_buf, sizeof absent_buf, "xAPIC MMIO page 0x%llx is above 4 GiB (not mapped)",
                   (unsigned long long)phys);
        absent = absent_buf;
        return -1; /* only the first 4 GiB are mapped */
    }
    base |= K_APIC_BASE_EN;
    uint64_t back = 0;
    if (k_wrmsr_safe(K_MSR_IA32_APIC_BASE, base) || k_rdmsr_safe(K_MSR_IA32_APIC_BASE, &back) ||
        !(back & K_APIC_BASE_EN)) {
        absent = "IA32_APIC_BASE.EN does not stay set (APIC disabled by firmware)";
        return -1;
    }
    if (x2) {
        /* xAPIC -> x2APIC: EN must already be set (SDM "x2APIC State Transitions"). */
        k_wrmsr(K_MSR_IA32_APIC_BASE, base | K_APIC_BASE_EXTD);
        mode = K_LAPIC_X2APIC;
    } else {
        mmio = (uintptr_t)phys;
        mode = K_LAPIC_XAPIC;
    }
    k_lapic_write(K_APIC_SVR, K_SVR_ENABLE | K_VEC_SPURIOUS);
    k_lapic_timer_mask();
    k_lapic_write(K_APIC_TIMER_ICR, 0);
    k_lapic_write(K_APIC_LVT_LINT0, K_LVT_MASKED);
    k_lapic_write(K_APIC_LVT_ERROR, K_LVT_MASKED | K_VEC_LVT_ERROR);
    k_lapic_write(K_APIC_LVT_PC, K_LVT_MASKED | K_VEC_PMI);
    k_lapic_write(K_APIC_TPR, 0);
    /* Retire anything a firmware left in service. */
    for (int n = 0; n < 256; n++) {
        bool any = false;
        for (int i = 0; i < 8; i++)
            any |= k_lapic_read(K_APIC_ISR0 + 0x10 * i) != 0;
        if (!any)
            break;
        k_lapic_eoi(); /* retires the highest-priority in-service vector */
    }
    return 0;
}

uint32_t k_lapic_id(void)
{
    uint32_t id = k_lapic_read(K_APIC_ID);
    return mode == K_LAPIC_X2APIC ? id : id >> 24;
}

void k_lapic_eoi(void) { k_lapic_write(K_APIC_EOI, 0); }
uint32_t k_lapic_lvt_pc_read(void)
{
    /* No APIC: report the LVT masked, so that no caller waits for a PMI
     * that nothing can deliver (issue 14: e2e spun on a read of 0). */
    return mode == K_LAPIC_NONE ? K_LVT_MASKED : k_lapic_read(K_APIC_LVT_PC);
}
void k_lapic_lvt_pc_write(uint32_t val) { k_lapic_write(K_APIC_LVT_PC, val); }

void k_lapic_timer_mask(void)
{
    k_lapic_write(K_APIC_LVT_TIMER, K_LVT_MASKED | K_VEC_TIMER);
}

bool k_lapic_in_service(unsigned vector)
{
    vector &= 0xFF;
    return (k_lapic_read(K_APIC_ISR0 + 0x10 * (vector / 32)) >> (vector % 32)) & 1;
}

int k_lapic_send_ipi(uint32_t id, uint32_t lo)
{
    if (mode == K_LAPIC_X2APIC) {
        k_wrmsr(0x830, ((uint64_t)id << 32) | lo);
        return 0;
    }
    if (mode != K_LAPIC_XAPIC || id > 0xFF)
        return -1;
    for (unsigned i = 0; i < 1000000 && (k_lapic_read(K_APIC_ICR_LO) & K_ICR_BUSY); i++)
        k_pause();
    k_lapic_write(K_APIC_ICR_HI, id << 24);
    k_lapic_write(K_APIC_ICR_LO, lo);
    for (unsigned i = 0; i < 1000000; i++) {
        if (!(k_lapic_read(K_APIC_ICR_LO) & K_ICR_BUSY))
            return 0;
        k_pause();
    }
    return -1;
}

static void send_ipi(uint32_t lo) { k_lapic_send_ipi(k_lapic_id(), lo); }

void k_lapic_self_ipi(unsigned vector)
{
    send_ipi(K_ICR_DM_FIXED | K_ICR_LEVEL_ASSERT | (vector & 0xFF));
}

void k_lapic_self_nmi(void)
{
    send_ipi(K_ICR_DM_NMI | K_ICR_LEVEL_ASSERT);
}

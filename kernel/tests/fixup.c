/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Exception fixup: protected RDMSR/WRMSR/RDPMC report a fault and the
 * kernel continues; a protected access that does not fault returns the
 * value. Also: #DB and #BP handlers can be registered (single step).
 */
#include <k/ktest.h>
#include <k/safe.h>
#include <k/trap.h>
#include <k/io.h>
#include <k/lapic.h>
#include <stddef.h>
#include <stdint.h>

#define MSR_EFER           0xC0000080u
#define MSR_KERNEL_GS_BASE 0xC0000102u

static const char *vec_name(int r)
{
    return r ? k_trap_name(K_SAFE_VECTOR(r)) : "no fault";
}


static void no_fault(const char *what)
{
    /* The SDM-mandated #GP did not happen: see ktest_deviation() for why
     * "no hypervisor bit" is not taken to mean bare metal. */
    ktest_deviation("%s did not fault (expected #GP)", what);
}

/* The kernel continued and a good access still works (no false fault). */
static void good_accesses(void)
{
    uint64_t v = 0;
    int r;
    /* IA32_SYSENTER_CS (MSR 174H, SDM Vol. 4; present where CPUID.01H:EDX.SEP[11],
     * unused by this kernel) keeps a value written to it, then is restored. */
    uint32_t f1[4];
    k_cpuid(1, 0, f1);
    if (f1[3] & (1u << 11)) {
        uint64_t saved = 0, got = 0;
        r = k_rdmsr_safe(0x174u, &saved);
        int rw = k_wrmsr_safe(0x174u, 0x5A58u);
        int rr = k_rdmsr_safe(0x174u, &got);
        k_wrmsr_safe(0x174u, saved);
        ktest_check(!r && !rw && !rr && got == 0x5A58u, "rdmsr/wrmsr_safe(IA32_SYSENTER_CS) round trip 0x%llx, %s",
                    (unsigned long long)got, vec_name(r ? r : rw ? rw : rr));
    } else {
        ktest_skip("good-MSR round trip not checked: CPUID.01H:EDX.SEP[11] = 0 (no IA32_SYSENTER_CS)");
    }
    /* IA32_APIC_BASE.EN: set by k_lapic_init where there is an APIC. */
    if (k_lapic_mode() == K_LAPIC_NONE) {
        ktest_skip("IA32_APIC_BASE.EN not checked: no usable local APIC (%s)", k_lapic_absent_reason());
    } else {
        r = k_rdmsr_safe(K_MSR_IA32_APIC_BASE, &v);
        ktest_check(r == 0 && (v & K_APIC_BASE_EN), "rdmsr_safe(IA32_APIC_BASE) = 0x%llx, %s",
                    (unsigned long long)v, vec_name(r));
    }
}

/* WRMSR with a reserved bit: #GP on hardware (SDM "WRMSR": reserved
 * bits set). QEMU TCG silently ignores reserved EFER bits. */
static void efer_reserved(void)
{
    uint32_t c[4];
    k_cpuid(0x80000000u, 0, c);
    if (c[0] < 0x80000001u)
        return;
    k_cpuid(0x80000001u, 0, c);
    bool efer = (c[3] & ((1u << 29) | (1u << 20) | (1u << 11))) != 0; /* LM, NX, SYSCALL */
    if (!efer)
        return;
    uint64_t efer_v = 0;
    int r = k_rdmsr_safe(MSR_EFER, &efer_v);
    ktest_check(r == 0, "rdmsr_safe(EFER) = 0x%llx, %s", (unsigned long long)efer_v, vec_name(r));
    r = k_wrmsr_safe(MSR_EFER, efer_v | (1ull << 63));
    if (r)
        ktest_check(K_SAFE_VECTOR(r) == K_VEC_GP, "wrmsr_safe(EFER, reserved bit 63) faulted: %s",
                    vec_name(r));
    else
        no_fault("wrmsr_safe(EFER, reserved bit 63)");
}

/* Accesses the SDM says fault: a non-canonical KERNEL_GS_BASE (x86_64), an
 * x2APIC MSR while the APIC is in xAPIC mode. */
static void sdm_faults(void)
{
    uint64_t v = 0;
    int r;
    efer_reserved();
#if defined(__x86_64__)
    /* Non-canonical base: #GP on hardware (SDM "WRMSR"). */
    uint64_t old = 0;
    k_rdmsr_safe(MSR_KERNEL_GS_BASE, &old);
    r = k_wrmsr_safe(MSR_KERNEL_GS_BASE, 0x8000000000000000ull);
    if (r)
        ktest_check(K_SAFE_VECTOR(r) == K_VEC_GP, "wrmsr_safe(KERNEL_GS_BASE, non-canonical) faulted: %s",
                    vec_name(r));
    else
        no_fault("wrmsr_safe(KERNEL_GS_BASE, non-canonical)");
    k_wrmsr_safe(MSR_KERNEL_GS_BASE, old);
#endif

    /* x2APIC MSR while the APIC is in xAPIC mode: #GP on hardware (SDM
     * "x2APIC Register Availability"). */
    if (k_lapic_mode() == K_LAPIC_XAPIC) {
        r = k_rdmsr_safe(0x802, &v);
        if (r)
            ktest_check(K_SAFE_VECTOR(r) == K_VEC_GP, "rdmsr_safe(x2APIC ID 0x802) in xAPIC mode faulted: %s",
                        vec_name(r));
        else
            no_fault("rdmsr_safe(x2APIC MSR 0x802) in xAPIC mode");
    }
}

static void test_fixup(void)
{
    uint64_t v = 0xdead;
    int r;

    /* A guaranteed fault: RDPMC with an invalid counter index raises #GP on
     * hardware; under QEMU TCG every RDPMC raises #UD. */
    r = k_rdpmc_safe(0x7FFFFFFFu, &v);
    ktest_check(r && (K_SAFE_VECTOR(r) == K_VEC_GP || K_SAFE_VECTOR(r) == K_VEC_UD) && v == 0,
                "rdpmc_safe(0x7fffffff) faulted: %s", vec_name(r));
    good_accesses();
    sdm_faults();

    /* Several faults in a row: the mechanism keeps working. */
    int faults = 0;
    for (int i = 0; i < 8; i++)
        faults += k_rdpmc_safe(0x7FFFFFF0u + (uint32_t)i, &v) != 0;
    ktest_check(faults == 8, "8 consecutive protected faults caught (%d)", faults);
}
KTEST(fixup, test_fixup);

/* --- #DB single step and #BP through registered handlers ------------------ */
static volatile unsigned db_hits, bp_hits;

static void on_db(struct k_trap_frame *f, void *ctx)
{
    (void)ctx;
    if (++db_hits >= 4)
        f->flags &= ~(unsigned long)K_FLAGS_TF;
}

static void on_bp(struct k_trap_frame *f, void *ctx)
{
    (void)ctx;
    (void)f; /* #BP is a trap: ip already points after int3 */
    bp_hits++;
}

static void test_traps(void)
{
    k_trap_register(K_VEC_DB, on_db, NULL);
    db_hits = 0;
    /* Set TF: single-step traps after each following instruction until the
     * handler clears TF in the saved flags. */
    __asm__ volatile("pushf\n orl $0x100, (%%" 
#if defined(__x86_64__)
                     "rsp"
#else
                     "esp"
#endif
                     ")\n popf\n nop\n nop\n nop\n nop\n nop\n nop\n" ::: "memory", "cc");
    k_trap_register(K_VEC_DB, NULL, NULL);
    ktest_check(db_hits == 4 && !(k_read_flags() & K_FLAGS_TF), "#DB single step: %u traps, TF cleared by handler",
                db_hits);

    k_trap_register(K_VEC_BP, on_bp, NULL);
    __asm__ volatile("int3" ::: "memory");
    k_trap_register(K_VEC_BP, NULL, NULL);
    ktest_check(bp_hits == 1, "#BP via registered handler: %u", bp_hits);
}
KTEST(traps, test_traps);

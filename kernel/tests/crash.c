/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Deliberate failures, run only when named (tests=crash_ud, crash_triple,
 * hang, fail_check, crash_df). The boot tests use them to prove that an unhandled
 * exception is reported with a failing exit, and that the harness rejects
 * a triple fault, a hang and a failed check.
 */
#include <k/ktest.h>
#include <stdint.h>
#include <k/trap.h>

static void crash_ud(void)
{
    ktest_ok("about to execute ud2 without protection");
    __asm__ volatile("ud2");
    ktest_fail("still running after ud2");
}
KTEST_EXPLICIT(crash_ud, crash_ud);

static void crash_triple(void)
{
    ktest_ok("about to load an empty IDT and raise #BP (triple fault)");
    struct {
        uint16_t limit;
        uintptr_t base;
    } __attribute__((packed)) idt = { 0, 0 };
    __asm__ volatile("lidt %0; int3" : : "m"(idt));
    ktest_fail("still running after a triple fault");
}
KTEST_EXPLICIT(crash_triple, crash_triple);

static void hang(void)
{
    ktest_ok("about to halt with interrupts off (the harness must time out)");
    for (;;)
        __asm__ volatile("cli; hlt");
}
KTEST_EXPLICIT(hang, hang);

static void fail_check(void)
{
    ktest_fail("a deliberately failing check (the harness must reject the run)");
}
KTEST_EXPLICIT(fail_check, fail_check);

static void crash_df(void)
{
    ktest_ok("about to mark the #GP gate not present and raise #GP (double fault)");
    k_trap_set_present(K_VEC_GP, false);
    /* A selector beyond the GDT limit: #GP; its gate is not present: #NP
     * while delivering #GP, i.e. a double fault. */
    __asm__ volatile("mov %0, %%ds" : : "r"(0xFFF8) : "memory");
    ktest_fail("still running after a double fault");
}
KTEST_EXPLICIT(crash_df, crash_df);

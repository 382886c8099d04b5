/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Kernel test registry and reporting (kvm-unit-tests style).
 *
 * A test file under kernel/tests/ registers a group with
 *     static void my_tests(void) { ktest_check(x == 1, "x is one"); }
 *     KTEST(mygroup, my_tests);
 * and is picked up by the glob in kernel/CMakeLists.txt. Groups run in
 * alphabetical order of their names. `tests=` on the kernel command line
 * selects groups: `tests=all` (default: every group not marked explicit),
 * or a comma list `tests=fixup,pmi`. KTEST_EXPLICIT groups (e.g. ones that
 * crash the kernel on purpose) run only when named.
 *
 * Each check prints one line:
 *     ok N - group: text
 *     not ok N - group: text
 *     ok N - group: # SKIP reason
 * and the run ends with "N passed, N failed, N skipped". A run in which no
 * check passed counts as failed.
 */
#ifndef K_KTEST_H
#define K_KTEST_H

#include <stdbool.h>

struct ktest {
    const char *group;
    void (*fn)(void);
    unsigned flags;
};
#define KTEST_F_EXPLICIT 1u

#define KTEST_DEFINE_(name, func, fl)                                              \
    static const struct ktest ktest_desc_##name                                   \
        __attribute__((used, section(".ktests." #name), aligned(sizeof(void *)))) = \
        { #name, func, fl }
#define KTEST(name, func) KTEST_DEFINE_(name, func, 0)
#define KTEST_EXPLICIT(name, func) KTEST_DEFINE_(name, func, KTEST_F_EXPLICIT)

void ktest_ok(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ktest_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints "ok N - group: # SKIP reason" (the text is the reason). */
void ktest_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * A behaviour the SDM requires did not happen (a #GP that did not come, an
 * ISR bit not shown). Bare metal must show it; a hypervisor or an emulator
 * may not, and a clear CPUID.01H:ECX[31] (hypervisor bit) does not prove
 * bare metal: emulators without it exist (QEMU TCG with `-cpu ...,
 * -hypervisor`, Bochs, a hypervisor that hides it). So this is "not ok"
 * only where the user says the machine is bare metal (`baremetal=1`), and
 * otherwise a SKIP that names the hypervisor bit's value (issue 14).
 */
void ktest_deviation(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* ok if cond, else not ok; returns cond. */
bool ktest_check(bool cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Run the groups selected by `tests=`; returns the number of groups run. */
unsigned ktest_run_selected(void);
/* Whether group @group runs in this boot (tests=, KTEST_F_EXPLICIT). */
bool ktest_group_selected(const char *group);
/* Print the summary line and exit (k/exit.h) with the verdict. */
void ktest_finish(void) __attribute__((noreturn));
unsigned ktest_failed_count(void);

#endif

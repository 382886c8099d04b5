/* SPDX-License-Identifier: BSD-2-Clause */
/* SMP (issue 13): what each CPU reported about itself (kernel/src/smp.c).
 * Every AP that started read its own local APIC ID = the MADT's, ran
 * ds_cpu_identify on itself successfully, and found the same vendor as the
 * BSP (a hybrid part differs in leaf 0AH/1AH, never in vendor). */
#include <k/ktest.h>
#include <k/kernel.h>
#include <k/cmdline.h>
#include <k/console.h>
#include <k/smp.h>
#include <k/string.h>
#include "../e2e/e2e.h"

static void test_smp(void)
{
    unsigned n = k_smp_count(), up = 0, failed = 0;
    if (!k_smp_enumerated() || n < 2) {
        ktest_skip("one CPU (smp=off, no MADT, or -smp 1): %u CPU(s) known", n);
        return;
    }
    for (unsigned i = 1; i < n; i++) {
        const struct k_smp_cpu *c = k_smp_cpu(i);
        char num[12];
        k_snprintf(num, sizeof num, "%u", i);
        bool told_fail = k_opt_list_has("smp_fail", num);
        if (c->state == K_SMP_SKIPPED) {
            ktest_check(c->why != 0, "cpu %u (APIC id %u) not started, reason: %s", i, c->apic_id, c->why);
            continue;
        }
        if (told_fail) {
            ktest_check(c->state == K_SMP_FAILED, "cpu %u (APIC id %u): smp_fail= made it not answer: reported as failed (%s)",
                        i, c->apic_id, c->why ? c->why : "?");
            failed++;
            continue;
        }
        if (!ktest_check(c->state == K_SMP_IDENTIFIED, "cpu %u (APIC id %u) started and identified itself", i, c->apic_id))
            continue;
        up++;
        ktest_check(c->apic_id_seen == c->apic_id, "cpu %u: its local APIC reads id %u, the MADT says %u", i,
                    c->apic_id_seen, c->apic_id);
        ktest_check(c->identify_err == DS_OK, "cpu %u: ds_cpu_identify on that CPU: %s", i, ds_strerror(c->identify_err));
        ktest_check(k_strcmp(c->cpu.caps.vendor_str, k_cpu.caps.vendor_str) == 0,
                    "cpu %u: vendor \"%s\" = the boot CPU's", i, c->cpu.caps.vendor_str);
    }
    ktest_ok("%u AP(s) identified, %u failed on purpose, of %u CPU(s)", up, failed, n);
}
KTEST(smp, test_smp);

/* The e2e flows (kernel/e2e) on each AP in turn, on that CPU: its own local
 * APIC delivers its PMIs, single-stepping traps on it, and k_cpu is, for the
 * run, the struct ds_cpu that the AP identified on itself (restored after).
 * One CPU at a time: e2e's state is not per CPU (concurrent runs are issue
 * 13's remaining part). */
static void e2e_on_aps(void)
{
    unsigned n = k_smp_count(), ran = 0;
    if (!k_smp_enumerated() || n < 2) {
        ktest_skip("one CPU (smp=off, no MADT, or -smp 1): no AP to run e2e on");
        return;
    }
    struct ds_cpu bsp = k_cpu;
    int bsp_err = k_cpu_identify_err;
    for (unsigned i = 1; i < n; i++) {
        const struct k_smp_cpu *c = k_smp_cpu(i);
        if (c->state != K_SMP_IDENTIFIED)
            continue;
        /* cpu_profile.N=a+b: this AP's model profiles (a hybrid machine
         * under the model: e.g. icelake on the BSP, atom on cpu 1). */
        char key[24], prof[128];
        k_snprintf(key, sizeof key, "cpu_profile.%u", i);
        const char *pl = k_opt_str(key, prof, sizeof prof, NULL);
        for (char *p = prof; pl && *p; p++)
            if (*p == '+')
                *p = ',';
        kprintf("#\n# ******** e2e on cpu %u (APIC id %u)%s%s ********\n", i, c->apic_id,
                pl ? ", profiles " : "", pl ? prof : "");
        k_cpu = c->cpu;
        k_cpu_identify_err = c->identify_err;
        k_e2e_profile_override = pl;
        int r = k_smp_run_on(i, k_e2e_run);
        k_e2e_profile_override = NULL;
        k_cpu = bsp;
        k_cpu_identify_err = bsp_err;
        if (ktest_check(r == 0, "e2e ran on cpu %u (APIC id %u)", i, c->apic_id))
            ran++;
    }
    if (!ran)
        ktest_skip("no AP running (all skipped or failed)");
}
KTEST(smp_e2e, e2e_on_aps);

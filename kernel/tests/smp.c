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

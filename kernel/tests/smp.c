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
#include <k/verdict.h>
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

/* The e2e flows (kernel/e2e) on every CPU at once (issue 13), the BSP
 * included: each CPU single-steps the workloads into its own model CPU, its
 * own local APIC delivers its PMIs, it uses the struct ds_cpu it identified
 * on itself, writes its own logs (HDR cpu=) and runs every check of the e2e
 * group on its own records (lines "cpuN profile/..."). After the join: each
 * CPU that was posted ran, wrote at least one log and failed no check.
 * cpu_profile.N=a+b gives CPU N its own model profiles (a hybrid machine
 * under the model: e.g. alderlake_p on the BSP, alderlake_e on cpu 1). */
struct prof {
    char s[128];
};
K_PERCPU(struct prof, prof);
K_PERCPU(const char *, pl);
K_PERCPU(bool, take);
K_PERCPU(struct k_e2e_cpu_result, res);

/* Under TCG each CPU's flows take seconds: at most e2e_cpus= CPUs (default
 * E2E_CPUS_DEFAULT, 0: all) run them; the verdict says how many (issue 24). */
#define E2E_CPUS_DEFAULT 16

static void e2e_on_all(void)
{
    unsigned n = k_smp_slots(), ran = 0, running = 0, up = 0;
    unsigned cap = (unsigned)k_opt_u64("e2e_cpus", E2E_CPUS_DEFAULT);
    if (!k_smp_enumerated() || k_smp_count() < 2) {
        ktest_skip("one CPU (smp=off, no MADT, or -smp 1): the e2e group runs it");
        return;
    }
    for (unsigned i = 0; i < n; i++) {
        const struct k_smp_cpu *c = k_smp_cpu(i);
        take[i] = false;
        pl[i] = NULL;
        if (c->state != K_SMP_IDENTIFIED)
            continue;
        up++;
        if (cap && running >= cap)
            continue;
        take[i] = true;
        running++;
        char key[24];
        k_snprintf(key, sizeof key, "cpu_profile.%u", i);
        pl[i] = k_opt_str(key, prof[i].s, sizeof prof[i].s, NULL);
        for (char *p = prof[i].s; pl[i] && *p; p++)
            if (*p == '+')
                *p = ',';
        kprintf("#\n# ******** e2e on cpu %u (APIC id %u)%s%s ********\n", i, c->apic_id,
                pl[i] ? ", profiles " : "", pl[i] ? prof[i].s : "");
    }
    if (running < up) {
        kprintf("# smp_e2e: the flows run on %u of %u running CPU(s) (e2e_cpus=%u; e2e_cpus=0: all)\n", running, up, cap);
        k_verdict_note("smp_e2e: e2e flows on %u of %u CPUs (e2e_cpus=%u)", running, up, cap);
    }
    unsigned got = k_e2e_run_all(pl, take, res);
    for (unsigned i = 0; i < n; i++) {
        const struct k_smp_cpu *c = k_smp_cpu(i);
        if (!take[i])
            continue;
        if (ktest_check(res[i].ran && res[i].logs > 0 && res[i].failed == 0,
                        "e2e ran on cpu %u (APIC id %u): %u log(s), %u checks passed, %u failed, %u skipped", i,
                        c->apic_id, res[i].logs, res[i].passed, res[i].failed, res[i].skipped))
            ran++;
    }
    ktest_check(got == running && ran == running, "%u of %u running CPU(s) ran the e2e flows", ran, running);
    /* At the same time: every CPU started before any finished (TSC; QEMU's
     * TSC is the host clock on every vCPU, real CPUs keep theirs in step).
     * Each CPU's flows take seconds under TCG, so even a host that runs the
     * vCPU threads in turns overlaps them; the flows run one after the
     * other fail this. */
    uint64_t last_start = 0, first_end = ~0ull;
    for (unsigned i = 0; i < n; i++)
        if (res[i].ran) {
            last_start = res[i].t0 > last_start ? res[i].t0 : last_start;
            first_end = res[i].t1 < first_end ? res[i].t1 : first_end;
        }
    ktest_check(last_start < first_end, "the e2e flows of all %u CPU(s) overlapped in time (last start %s first end, TSC)",
                got, last_start < first_end ? "before" : "after");
}
KTEST(smp_e2e, e2e_on_all);

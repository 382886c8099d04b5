// SPDX-License-Identifier: BSD-2-Clause
/*
 * libds.ko: module parameters, owning the PMU, the per-CPU dispatch, the
 * NMI handler and the debugfs log (/sys/kernel/debug/libds/log).
 *
 *   insmod libds.ko [backend=hw|model|bare] [profiles=skylake,icelake,.../ptl-e,...] [cpus=N] [log_kib=K]
 *
 * The flows run once, at load, on every online CPU (cpus=N: the first N),
 * each pinned to its CPU (work_on_cpu) with interrupts off around each
 * run. backend=hw (default) owns the real PMU: it refuses to load while
 * Linux perf or the NMI watchdog hold a counter (reserve_perfctr_nmi, the
 * reservation perf's own x86_reserve_hardware takes) or while any counter,
 * PEBS, arch PEBS, BTS or LBR is enabled on a CPU it would use. backend=model
 * touches no real PMU MSR: libds drives the reference model (model/).
 * Every MSR a session writes is written back at its teardown, error paths
 * included (session.h); the module checks it after every run.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/workqueue.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/utsname.h>
#include <asm/processor.h>
#include <asm/nmi.h>
#include <asm/apic.h>
#include <asm/msr-index.h>
#include <asm/perf_event.h>
#include <asm/io.h>
#include "ldk.h"

static char *backend = "hw";
module_param(backend, charp, 0444);
MODULE_PARM_DESC(backend, "hw (the real PMU, default), model (the reference model, any CPU) or bare "
                          "(wl_loop(300) x bare_loops, no libds, no PMU access: for perf record)");
static unsigned int bare_loops = 1000;
module_param(bare_loops, uint, 0444);
MODULE_PARM_DESC(bare_loops, "backend=bare: how many times to run wl_loop(300) on each CPU");
static char *profiles = "skylake,icelake,ptl-p,netburst-m4-64";
module_param(profiles, charp, 0444);
MODULE_PARM_DESC(profiles, "backend=model: model profiles to run, comma-separated; a/b: the first CPU a, the "
                           "second b, ... (hybrid parts: alderlake-p/alderlake-e)");
static unsigned int cpus;
module_param(cpus, uint, 0444);
MODULE_PARM_DESC(cpus, "run on the first N online CPUs only (0 = all)");

static unsigned int log_kib = LDK_LOG_KIB;
module_param(log_kib, uint, 0444);
MODULE_PARM_DESC(log_kib, "each CPU's log in KiB (4-65536, default 512); a full log drops its further "
                          "lines and ends with a 'not ok' line that says how many");

static struct ldk_cpu *ldk_cpus[NR_CPUS];
static unsigned int ldk_reserved;           /* GP counters reserved from perf */
static bool ldk_nmi_on, ldk_step_on;
static char *ldk_log;
static size_t ldk_loglen;
static struct dentry *ldk_dir;

struct ldk_cpu *ldk_this(void)
{
    return ldk_cpus[raw_smp_processor_id()];
}

/* The PMI: the session's, or not ours (NMI_DONE passes it on to perf and
 * the other NMI_LOCAL handlers). Linux delivers PMIs as NMIs through LVT
 * PC, which the CPU masks on delivery; unmask it as Linux's own handler does
 * (intel_pmu_handle_irq: apic_write(APIC_LVTPC, APIC_DM_NMI)). */
static int ldk_nmi(unsigned int cmd, struct pt_regs *regs)
{
    struct ldk_cpu *c = ldk_this();
    struct ds_pmi_result res;
    int e;
    (void)cmd;
    if (!c || !c->live || c->model)
        return NMI_DONE;
    e = ds_session_pmi(&c->ses, regs->ip, &res);
    if (e == DS_ERR_SESSION_SPURIOUS)
        return NMI_DONE;
    c->pmis++;
    if (e != DS_OK)
        c->pmi_err++;
    apic_write(APIC_LVTPC, APIC_DM_NMI);
    return NMI_HANDLED;
}

static void ldk_free_cpu(struct ldk_cpu *c)
{
    if (!c)
        return;
    if (c->mem)
        free_pages_exact(c->mem, LDK_MEM_BYTES);
    kfree(c->m);
    vfree(c->log);
    kvfree(c->pebs);
    kvfree(c->pebs_ip);
    kvfree(c->bts);
    kvfree(c->snap);
    kvfree(c->tk_from);
    kvfree(c->tk_to);
    kfree(c->chase);
    kvfree(c);
}

/* One CPU's state. The session region: physically contiguous pages (arch
 * PEBS writes physical memory; libds's DS area and buffers are carved out
 * of it), kernel memory mapped on every CPU in the kernel page tables. */
static struct ldk_cpu *ldk_alloc_cpu(unsigned int cpu)
{
    struct ldk_cpu *c = kvzalloc(sizeof(*c), GFP_KERNEL);
    if (!c)
        return NULL;
    c->cpu = cpu;
    c->model = !strcmp(backend, "model");
    c->bare = strcmp(backend, "bare") ? 0 : max(bare_loops, 1u);
    c->mem = alloc_pages_exact(LDK_MEM_BYTES, GFP_KERNEL | __GFP_ZERO);
    c->logcap = (size_t)log_kib * 1024;
    c->log = vzalloc(c->logcap);
    c->pebs = kvcalloc(LDK_MAX_PEBS, sizeof(*c->pebs), GFP_KERNEL);
    c->pebs_ip = kvcalloc(LDK_MAX_PEBS, sizeof(*c->pebs_ip), GFP_KERNEL);
    c->bts = kvcalloc(LDK_MAX_BTS, sizeof(*c->bts), GFP_KERNEL);
    c->snap = kvcalloc(LDK_MAX_SNAP, sizeof(*c->snap), GFP_KERNEL);
    c->tk_from = kvcalloc(LDK_MAX_BTS, sizeof(u64), GFP_KERNEL);
    c->tk_to = kvcalloc(LDK_MAX_BTS, sizeof(u64), GFP_KERNEL);
    c->chase = kcalloc(LDK_CHASE_LEN, sizeof(u32), GFP_KERNEL);
    if (c->model)
        c->m = kzalloc(sizeof(*c->m), GFP_KERNEL);
    if (!c->mem || !c->log || !c->pebs || !c->pebs_ip || !c->bts || !c->snap || !c->tk_from || !c->tk_to ||
        !c->chase || (c->model && !c->m)) {
        ldk_free_cpu(c);
        return NULL;
    }
    c->phys = virt_to_phys(c->mem);
    /* wl_chase's array: idx -> (17 idx + 5) mod 64, one cycle through all 64
     * (full-period linear congruential map: 5 odd, 17 - 1 divisible by 4) */
    for (unsigned int i = 0; i < LDK_CHASE_LEN; i++)
        c->chase[i] = (i * 17u + 5u) % LDK_CHASE_LEN;
    return c;
}

/* On the CPU: identify it (reads CPUID and, on Intel, MISC_ENABLE and
 * PERF_CAPABILITIES only). */
static long ldk_identify_on(void *arg)
{
    struct ldk_cpu *c = arg;
    c->apic = read_apic_id();
    c->host_err = ds_cpu_init(&c->host, &ldk_msr_ops, NULL);
    if (c->host_err == DS_OK)
        c->host_err = ds_cpu_identify(&c->host);
    return 0;
}

/* On the CPU, with perf kept off the counters already (ldk_reserve): is
 * anything enabled? */
static long ldk_busy_on(void *arg)
{
    struct ldk_cpu *c = arg;
    struct ldk_busy b;
    ldk_pmu_busy(&c->host, &b);
    if (!b.busy)
        return 0;
    pr_err("libds: cpu%u: the PMU is in use: %s\n", c->cpu, b.why);
    return -EBUSY;
}

static long ldk_flows_on(void *arg)
{
    struct ldk_cpu *c = arg;
    ldk_flows(c, profiles);
    return 0;
}

/* Keep perf (and the perf-based NMI watchdog) off the counters while the
 * module owns them: the reservation x86_reserve_hardware takes for perf.
 * Fails when perf holds them (an event exists, the NMI watchdog is on). */
static int ldk_reserve(unsigned int ngp)
{
    for (ldk_reserved = 0; ldk_reserved < ngp; ldk_reserved++) {
        if (!reserve_perfctr_nmi(MSR_ARCH_PERFMON_PERFCTR0 + ldk_reserved))
            return -EBUSY;
        if (!reserve_evntsel_nmi(MSR_ARCH_PERFMON_EVENTSEL0 + ldk_reserved)) {
            release_perfctr_nmi(MSR_ARCH_PERFMON_PERFCTR0 + ldk_reserved);
            return -EBUSY;
        }
    }
    return 0;
}

static void ldk_release(void)
{
    while (ldk_reserved) {
        ldk_reserved--;
        release_evntsel_nmi(MSR_ARCH_PERFMON_EVENTSEL0 + ldk_reserved);
        release_perfctr_nmi(MSR_ARCH_PERFMON_PERFCTR0 + ldk_reserved);
    }
}

static ssize_t ldk_log_read(struct file *f, char __user *buf, size_t len, loff_t *pos)
{
    (void)f;
    return simple_read_from_buffer(buf, len, pos, ldk_log, ldk_loglen);
}

static const struct file_operations ldk_log_fops = {
    .owner = THIS_MODULE,
    .read = ldk_log_read,
    .llseek = default_llseek,
};

/* The CPUs' logs, one after the other, into the debugfs file. */
static int ldk_publish(void)
{
    size_t n = 0;
    unsigned int cpu;
    u32 passed = 0, failed = 0, skipped = 0;
    for_each_possible_cpu(cpu)
        if (ldk_cpus[cpu])
            n += ldk_cpus[cpu]->loglen;
    ldk_log = vmalloc(n + 256 + 160 * num_possible_cpus()); /* header, a "log full" line per CPU */
    if (!ldk_log)
        return -ENOMEM;
    ldk_loglen = scnprintf(ldk_log, 256, "# libds.ko: Linux %s, %s, backend=%s\n", init_utsname()->release,
                           boot_cpu_data.x86_model_id, backend);
    for_each_possible_cpu(cpu) {
        struct ldk_cpu *c = ldk_cpus[cpu];
        if (!c)
            continue;
        memcpy(ldk_log + ldk_loglen, c->log, c->loglen);
        ldk_loglen += c->loglen;
        passed += c->tot_passed;
        failed += c->tot_failed;
        skipped += c->tot_skipped;
        if (c->log_over) { /* lost lines are a failed run, never a quiet warning */
            ldk_loglen += scnprintf(ldk_log + ldk_loglen, 160,
                                    "not ok %u - cpu%u log full: %u writes dropped (log_kib=%u: load with a larger one)\n",
                                    ++c->tap, cpu, c->log_over, log_kib);
            failed++;
            pr_warn("libds: cpu%u: log full, %u writes dropped\n", cpu, c->log_over);
        }
    }
    ldk_dir = debugfs_create_dir("libds", NULL);
    debugfs_create_file("log", 0400, ldk_dir, NULL, &ldk_log_fops);
    pr_info("libds: backend=%s: %u checks passed, %u failed, %u skipped; see /sys/kernel/debug/libds/log\n",
            backend, passed, failed, skipped);
    return 0;
}

static void ldk_cleanup(void)
{
    unsigned int cpu;
    debugfs_remove_recursive(ldk_dir);
    if (ldk_nmi_on)
        unregister_nmi_handler(NMI_LOCAL, "libds");
    if (ldk_step_on)
        ldk_step_unregister();
    ldk_release();
    for_each_possible_cpu(cpu) {
        ldk_free_cpu(ldk_cpus[cpu]);
        ldk_cpus[cpu] = NULL;
    }
    vfree(ldk_log);
    ldk_log = NULL;
    ldk_loglen = 0;
}

static int ldk_setup_cpus(void)
{
    unsigned int cpu, n = 0;
    for_each_online_cpu(cpu) {
        if (cpus && n >= cpus)
            break;
        ldk_cpus[cpu] = ldk_alloc_cpu(cpu);
        if (!ldk_cpus[cpu])
            return -ENOMEM;
        ldk_cpus[cpu]->seq = n++;
        work_on_cpu(cpu, ldk_identify_on, ldk_cpus[cpu]);
    }
    return 0;
}

/* backend=hw: keep perf off the GP counters (the most any CPU has: hybrid
 * E-cores may have fewer), then look for anything enabled on each CPU
 * used; the reservation first, so no perf event starts in between. */
static int ldk_own_pmu(void)
{
    unsigned int cpu, ngp = 0;
    int err = 0;
    for_each_possible_cpu(cpu) {
        struct ldk_cpu *c = ldk_cpus[cpu];
        if (c && !c->host_err && c->host.caps.vendor == DS_VENDOR_INTEL)
            ngp = max_t(unsigned int, ngp, c->host.caps.gp_counters);
    }
    if (ngp && ldk_reserve(ngp)) {
        pr_err("libds: refusing to start: perf or the NMI watchdog holds the counters. Stop perf and set "
               "sysctl kernel.nmi_watchdog=0, then load libds.ko again\n");
        return -EBUSY;
    }
    for_each_possible_cpu(cpu)
        if (ldk_cpus[cpu] && work_on_cpu(cpu, ldk_busy_on, ldk_cpus[cpu]))
            err = -EBUSY;
    if (err)
        pr_err("libds: refusing to start: a counter, PEBS, BTS or LBR is enabled (above). Stop perf "
               "(perf record/stat/top) and the NMI watchdog (sysctl kernel.nmi_watchdog=0), then load libds.ko "
               "again\n");
    return err;
}

static int __init ldk_init(void)
{
    unsigned int cpu;
    int err;
    if (strcmp(backend, "hw") && strcmp(backend, "model") && strcmp(backend, "bare")) {
        pr_err("libds: backend=%s: use backend=hw, model or bare\n", backend);
        return -EINVAL;
    }
    if (log_kib < 4 || log_kib > 65536) {
        pr_err("libds: log_kib=%u: use 4 to 65536 (KiB per CPU)\n", log_kib);
        return -EINVAL;
    }
    cpus_read_lock();
    err = ldk_setup_cpus();
    if (!err && !strcmp(backend, "hw"))
        err = ldk_own_pmu();
    if (!err) {
        err = register_nmi_handler(NMI_LOCAL, ldk_nmi, 0, "libds");
        ldk_nmi_on = !err;
    }
    if (!err && !strcmp(backend, "model")) {
        err = ldk_step_register();
        ldk_step_on = !err;
    }
    if (!err)
        for_each_possible_cpu(cpu)
            if (ldk_cpus[cpu])
                work_on_cpu(cpu, ldk_flows_on, ldk_cpus[cpu]);
    cpus_read_unlock();
    if (!err)
        err = ldk_publish();
    if (err)
        ldk_cleanup();
    return err;
}

static void __exit ldk_exit(void)
{
    ldk_cleanup();
    pr_info("libds: unloaded\n");
}

module_init(ldk_init);
module_exit(ldk_exit);
MODULE_LICENSE("Dual BSD/GPL");
MODULE_DESCRIPTION("libds test flows (PEBS, BTS, LBR) on the PMU of every CPU, or on libds's reference model");

/* SPDX-License-Identifier: BSD-2-Clause */
/* Application processor startup. See k/smp.h. */
#include <k/smp.h>
#include <k/acpi.h>
#include <k/kernel.h>
#include <k/gdt.h>
#include <k/cmdline.h>
#include <k/console.h>
#include <k/io.h>
#include <k/lapic.h>
#include <k/mem.h>
#include <k/safe.h>
#include <k/string.h>
#include <k/trap.h>

#define AP_STACK 16384 /* = the BSP's KERNEL_STACK_SIZE (boot/multiboot.inc) */

/* Per AP: everything it runs on. Never touched by another CPU once the AP
 * runs, except the BSP reading `state`/`cpu` after the AP published them. */
struct ap_area {
    uint8_t stack[AP_STACK] __attribute__((aligned(16)));
    uint8_t df_stack[K_DF_STACK] __attribute__((aligned(16)));
    struct k_cpu_tables tables; /* its GDT and TSS (k/gdt.h) */
};

K_PERCPU(struct ap_area, areas);
static struct k_smp_cpu *cpus;  /* ncpus entries from k_mem_alloc; cpu0 before k_smp_setup */
static struct k_smp_cpu cpu0;
static unsigned ncpus;
static bool enumerated;
/* What k_smp_setup found, for k_smp_start to print. */
static struct k_acpi_madt_info madt;
static enum { SETUP_OFF, SETUP_NO_APIC, SETUP_NO_LIST, SETUP_MPTABLE, SETUP_MADT, SETUP_TRAMP } setup_how;
static const char *madt_error;
static char nomem_why[160];
static struct {
    uint16_t limit;
    uintptr_t base;
} __attribute__((packed)) bsp_idt;
static bool ap_x2apic;

unsigned k_smp_count(void) { return ncpus; }
const struct k_smp_cpu *k_smp_cpu(unsigned i) { return i < ncpus ? &cpus[i] : 0; }
bool k_smp_enumerated(void) { return enumerated; }

/* PIT channel 2, mode 0, polled through port 0x61 bit 5 (the method of
 * Linux's pit_calibrate_tsc); 1193182 Hz, at most 50 ms per count. A
 * machine without a PIT ends the wait after a bounded number of polls. */
static void delay_us(unsigned us)
{
    while (us) {
        unsigned c = us > 50000 ? 50000 : us;
        us -= c;
        uint32_t cnt = (uint32_t)((uint64_t)c * 1193182u / 1000000u);
        if (!cnt)
            cnt = 1;
        outb(0x61, (uint8_t)((inb(0x61) & ~0x02) | 0x01));
        outb(0x43, 0xB0);
        outb(0x42, (uint8_t)cnt);
        outb(0x42, (uint8_t)(cnt >> 8));
        for (unsigned long i = 0; i < 100000000ul && !(inb(0x61) & 0x20); i++)
            k_pause();
    }
}

static void wake_handler(struct k_trap_frame *f, void *ctx)
{
    (void)f;
    (void)ctx;
    k_lapic_eoi();
}

/* Parked AP: halt with interrupts on (only K_VEC_SMP_WAKE is ever sent
 * here); after each wake-up run the posted call, if any. STI's interrupt
 * shadow makes "sti; hlt" atomic: a wake-up IPI that is already pending is
 * taken inside the HLT, not lost before it. */
static void ap_wait_calls(struct k_smp_cpu *c) __attribute__((noreturn));
static void ap_wait_calls(struct k_smp_cpu *c)
{
    for (;;) {
        __asm__ volatile("sti; hlt; cli" ::: "memory");
        void (*fn)(void) = __atomic_load_n(&c->call, __ATOMIC_ACQUIRE);
        if (!fn)
            continue;
        k_sti();
        fn();
        k_cli();
        __atomic_store_n(&c->call, (void (*)(void))0, __ATOMIC_RELAXED);
        __atomic_add_fetch(&c->calls_done, 1, __ATOMIC_RELEASE);
    }
}

int k_smp_post(unsigned i, void (*fn)(void))
{
    if (i == 0 || i >= ncpus || cpus[i].state != K_SMP_IDENTIFIED || !fn)
        return -1;
    struct k_smp_cpu *c = &cpus[i];
    if (__atomic_load_n(&c->call, __ATOMIC_ACQUIRE))
        return -1; /* a call is still running there */
    c->posted = __atomic_load_n(&c->calls_done, __ATOMIC_ACQUIRE);
    __atomic_store_n(&c->call, fn, __ATOMIC_RELEASE);
    if (k_lapic_send_ipi(c->apic_id, K_ICR_DM_FIXED | K_ICR_LEVEL_ASSERT | K_VEC_SMP_WAKE)) {
        __atomic_store_n(&c->call, (void (*)(void))0, __ATOMIC_RELEASE);
        return -1;
    }
    return 0;
}

void k_smp_wait(unsigned i)
{
    struct k_smp_cpu *c = &cpus[i];
    while (i < ncpus && __atomic_load_n(&c->calls_done, __ATOMIC_ACQUIRE) == c->posted)
        k_pause();
}

int k_smp_run_on(unsigned i, void (*fn)(void))
{
    if (k_smp_post(i, fn))
        return -1;
    k_smp_wait(i);
    return 0;
}

/* First C code on the AP (called by the trampoline). Interrupts stay off. */
static void ap_main(struct k_smp_cpu *c) __attribute__((noreturn, used));
static void ap_main(struct k_smp_cpu *c)
{
    k_gdt_load_ap(&areas[c->index].tables, areas[c->index].df_stack + K_DF_STACK);
    __asm__ volatile("lidt %0" : : "m"(bsp_idt));
    __atomic_store_n(&c->state, K_SMP_RUNNING, __ATOMIC_RELEASE);
    /* The APIC statics in lapic.c are the BSP's values; the BSP waits for
     * this AP, so nothing else runs k_lapic_* meanwhile. */
    k_lapic_init(ap_x2apic);
    c->apic_id_seen = k_lapic_id();
    int err = ds_cpu_init(&c->cpu, &k_ds_msr_ops, NULL);
    if (err == DS_OK)
        err = ds_cpu_identify(&c->cpu);   /* CPUID and MSRs of THIS CPU */
    c->identify_err = err;
    __atomic_store_n(&c->state, K_SMP_IDENTIFIED, __ATOMIC_RELEASE);
    ap_wait_calls(c);
}

static bool wait_state(struct k_smp_cpu *c, int at_least, unsigned ms)
{
    for (unsigned t = 0; t < ms; t++) {
        if (__atomic_load_n(&c->state, __ATOMIC_ACQUIRE) >= at_least)
            return true;
        delay_us(1000);
    }
    return __atomic_load_n(&c->state, __ATOMIC_ACQUIRE) >= at_least;
}

/* SDM Vol. 3A "Typical AP Initialization Sequence" (MP initialization
 * protocol): INIT IPI, 10 ms, STARTUP IPI, 200 us, second STARTUP IPI
 * (only if the first did not start it), 200 us. */
static bool start_ap(struct k_smp_cpu *c)
{
    volatile struct k_ap_tramp_params *p =
        (volatile struct k_ap_tramp_params *)(uintptr_t)(K_AP_TRAMP_BASE + (k_ap_tramp_params - k_ap_tramp_start));
    p->cr3 = k_read_cr3();
    p->cr4 = k_read_cr4();
    p->stack = (uintptr_t)(areas[c->index].stack + AP_STACK);
    p->entry = (uintptr_t)ap_main;
    p->arg = (uintptr_t)c;
    uint32_t sipi = K_ICR_DM_STARTUP | K_ICR_LEVEL_ASSERT | (K_AP_TRAMP_BASE >> 12);
    char num[12];
    k_snprintf(num, sizeof num, "%u", c->index);
    if (k_opt_list_has("smp_fail", num)) /* test hook: a CPU that never answers */
        sipi = K_ICR_DM_STARTUP | K_ICR_LEVEL_ASSERT | (K_AP_DEAD_BASE >> 12);
    if (k_lapic_send_ipi(c->apic_id, K_ICR_DM_INIT | K_ICR_LEVEL_ASSERT)) {
        c->why = "INIT IPI not delivered";
        return false;
    }
    delay_us(10000);
    for (int n = 0; n < 2 && __atomic_load_n(&c->state, __ATOMIC_ACQUIRE) < K_SMP_RUNNING; n++) {
        k_lapic_send_ipi(c->apic_id, sipi);
        delay_us(200);
    }
    if (!wait_state(c, K_SMP_RUNNING, K_SMP_START_TIMEOUT_MS)) {
        /* Hold it in wait-for-SIPI: a late start must not run on the
         * next AP's trampoline parameters. */
        k_lapic_send_ipi(c->apic_id, K_ICR_DM_INIT | K_ICR_LEVEL_ASSERT);
        c->why = "no answer to INIT-SIPI-SIPI";
        return false;
    }
    if (!wait_state(c, K_SMP_IDENTIFIED, K_SMP_START_TIMEOUT_MS)) {
        c->why = "started, but did not finish identification";
        return false;
    }
    return true;
}

/* Why CPU @n (logical number, APIC id @id) is not to be started, or NULL. */
static const char *excluded(unsigned n, uint32_t id, unsigned max)
{
    char num[12];
    if (max && n >= max)
        return "smp= limit";
    k_snprintf(num, sizeof num, "%u", n);
    if (k_opt("cpus", 0) && !k_opt_list_has("cpus", num))
        return "not in cpus=";
    if (id >= 0xFF && k_lapic_mode() != K_LAPIC_X2APIC)
        return "APIC ID 255 or above needs x2APIC mode (CPUID.01H:ECX.x2APIC[21] = 0, or apic=xapic)";
    return 0;
}

static void report(const struct k_smp_cpu *c, const char *bsp_caps)
{
    static char buf[2048];
    if (c->state != K_SMP_IDENTIFIED) {
        kprintf("# smp: cpu %u (APIC id %u): %s: %s; the run continues\n", c->index, c->apic_id,
                c->state == K_SMP_SKIPPED ? "not started" : "FAILED to start", c->why);
        return;
    }
    kprintf("# smp: cpu %u (APIC id %u, reads %u): started, ds_cpu_identify: %s\n", c->index, c->apic_id,
            c->apic_id_seen, ds_strerror(c->identify_err));
    if (c->identify_err != DS_OK)
        return;
    ds_caps_format(&c->cpu.caps, buf, sizeof buf);
    if (k_strcmp(buf, bsp_caps) == 0) {
        kprintf("# smp: cpu %u capability report: identical to cpu 0's\n", c->index);
        return;
    }
    for (char *p = buf; *p;) {
        char *e = p;
        while (*e && *e != '\n')
            e++;
        char ch = *e;
        *e = '\0';
        kprintf("#   cpu%u: %s\n", c->index, p);
        if (!ch)
            break;
        p = e + 1;
    }
}

static void *alloc8(size_t n) { return k_mem_alloc(n, 8); }

/* The CPU table: the BSP first, then the list's CPUs in its order. */
static void enumerate(const struct k_acpi_madt_info *m, unsigned max)
{
    uint32_t bsp = k_lapic_id();
    struct k_smp_cpu *t = alloc8((m->ncpus + 1) * sizeof(*t));
    if (!t)
        return; /* cpu0 alone; k_smp_start reports it */
    t[0] = cpu0;
    cpus = t;
    ncpus = 1;
    for (unsigned i = 0; i < m->ncpus; i++) {
        if (m->cpu[i].apic_id == bsp)
            continue;
        struct k_smp_cpu *c = &cpus[ncpus];
        c->index = ncpus;
        c->apic_id = m->cpu[i].apic_id;
        c->why = excluded(ncpus, c->apic_id, max);
        c->state = c->why ? K_SMP_SKIPPED : K_SMP_ABSENT;
        ncpus++;
    }
}

/* Per-CPU state for every CPU that may run, or as many as fit; the others
 * are reported (nomem_why) and not started. False: not even the boot CPU's
 * fits (said here; the caller fails the run). */
static bool size_percpu(void)
{
    unsigned want = 1;
    for (unsigned i = 1; i < ncpus; i++)
        if (cpus[i].state != K_SMP_SKIPPED)
            want = i + 1;
    uint64_t largest = k_mem_largest();
    unsigned n = want;
    while (n > 1 && k_percpu_bytes(n) + 4096 > largest)
        n--;
    if (!k_percpu_alloc(n)) {
        kprintf("# smp: FAILED: the boot CPU's per-CPU state (%lu KiB) does not fit in free RAM "
                "(largest free block %lu KiB of %lu KiB; memory map: %s)\n", (unsigned long)(k_percpu_bytes(1) >> 10),
                (unsigned long)(largest >> 10), (unsigned long)(k_mem_total() >> 10), k_boot.mem_source);
        return false;
    }
    k_percpu_set_areas(areas, sizeof(struct ap_area));
    if (n == want)
        return true;
    k_snprintf(nomem_why, sizeof nomem_why,
               "per-CPU state does not fit in memory (%lu KiB per CPU; %u of %u CPU(s) fit in the largest free block, "
               "%lu KiB, of %lu KiB free RAM)", (unsigned long)(k_percpu_bytes(1) >> 10), n, want,
               (unsigned long)(largest >> 10), (unsigned long)(k_mem_total() >> 10));
    for (unsigned i = n; i < ncpus; i++)
        if (cpus[i].state != K_SMP_SKIPPED) {
            cpus[i].state = K_SMP_SKIPPED;
            cpus[i].why = nomem_why;
        }
    return true;
}

static bool overlaps(uintptr_t a, size_t n)
{
    return k_boot.info < a + n && k_boot.info + k_boot.info_size > a;
}

/* The trampoline and the halt bytes overwrite low memory: refuse if the
 * loader put its information block there (QEMU's multiboot1 loader uses
 * 0x9500, just past them; a UEFI GRUB may use anything). */
static bool tramp_clash(void)
{
    size_t tsz = (size_t)(k_ap_tramp_end - k_ap_tramp_start);
    return overlaps(K_AP_TRAMP_BASE, tsz) || overlaps(K_AP_DEAD_BASE, 4);
}

bool k_smp_setup(void)
{
    uint32_t bsp = k_lapic_mode() != K_LAPIC_NONE ? k_lapic_id() : 0;
    cpu0 = (struct k_smp_cpu){ .index = 0, .apic_id = bsp, .apic_id_seen = bsp, .state = K_SMP_IDENTIFIED };
    cpus = &cpu0;
    ncpus = 1;
    if (k_opt_is("smp", "off")) {
        setup_how = SETUP_OFF;
    } else if (k_lapic_mode() == K_LAPIC_NONE) {
        setup_how = SETUP_NO_APIC;
    } else {
        bool mp_only = k_opt_is("smp_enum", "mptable");
        setup_how = SETUP_MADT;
        if (mp_only || k_acpi_madt(k_boot.acpi_rsdp, k_boot.acpi_rsdp_src, &madt, alloc8)) {
            madt_error = mp_only ? 0 : madt.error;
            setup_how = k_mptable_cpus(&madt, alloc8) ? SETUP_NO_LIST : SETUP_MPTABLE;
        }
        if ((setup_how == SETUP_MADT || setup_how == SETUP_MPTABLE) && tramp_clash()) {
            setup_how = SETUP_TRAMP;
        } else if (setup_how == SETUP_MADT || setup_how == SETUP_MPTABLE) {
            enumerated = true;
            enumerate(&madt, (unsigned)k_opt_u64("smp", 0));
        }
    }
    return size_percpu();
}

/* What k_smp_setup found; false: the boot CPU only. */
static bool report_setup(void)
{
    switch (setup_how) {
    case SETUP_OFF:
        kprintf("# smp: off (smp=off): the boot CPU only\n");
        return false;
    case SETUP_NO_APIC:
        kprintf("# smp: no usable local APIC: the boot CPU only\n");
        return false;
    case SETUP_NO_LIST:
    case SETUP_MPTABLE:
        if (madt_error)
            kprintf("# smp: no MADT: %s; trying the MP table\n", madt_error);
        if (setup_how == SETUP_NO_LIST) {
            kprintf("# smp: no CPU list: %s; the boot CPU only\n", madt.error);
            return false;
        }
        kprintf("# smp: MP floating pointer at 0x%lx (spec 1.%u), %u processor(s) usable of %u listed\n",
                (unsigned long)madt.rsdp, madt.revision, madt.ncpus, madt.nlisted);
        break;
    default:
        kprintf("# smp: ACPI RSDP at 0x%lx (%s, revision %u), MADT: %u processor(s) usable of %u listed\n",
                (unsigned long)madt.rsdp, madt.rsdp_source, madt.revision, madt.ncpus, madt.nlisted);
        if (madt.nx2 || madt.nignored)
            kprintf("# smp: MADT: %u from x2APIC entries, %u invalid entries ignored, highest APIC id %u\n",
                    madt.nx2, madt.nignored, madt.max_id);
        break;
    }
    if (setup_how == SETUP_TRAMP) {
        kprintf("# smp: boot information at 0x%lx (%lu bytes) overlaps the AP trampoline at 0x%x: the boot CPU only\n",
                (unsigned long)k_boot.info, (unsigned long)k_boot.info_size, K_AP_TRAMP_BASE);
        return false;
    }
    if (ncpus == 1 && madt.ncpus > 1) {
        kprintf("# smp: no memory for a table of %u CPUs: the boot CPU only\n", madt.ncpus);
        return false;
    }
    kprintf("# smp: per-CPU state %lu KiB per CPU, %u CPU slot(s), from free RAM (%s: %u RAM range(s), %lu KiB free)\n",
            (unsigned long)(k_percpu_bytes(1) >> 10), k_smp_slots(), k_boot.mem_source, k_boot.nram,
            (unsigned long)(k_mem_total() >> 10));
    return true;
}

void k_smp_start(void)
{
    static char bsp_caps[2048];
    cpus[0].identify_err = k_cpu_identify_err;
    cpus[0].cpu = k_cpu;
    if (!report_setup())
        return;
    size_t tsz = (size_t)(k_ap_tramp_end - k_ap_tramp_start);
    memcpy((void *)(uintptr_t)K_AP_TRAMP_BASE, k_ap_tramp_start, tsz);
    static const uint8_t dead[4] = { 0xFA, 0xF4, 0xEB, 0xFD }; /* 1: cli; hlt; jmp 1b */
    memcpy((void *)(uintptr_t)K_AP_DEAD_BASE, dead, sizeof dead);
    __asm__ volatile("sidt %0" : "=m"(bsp_idt));
    k_trap_register(K_VEC_SMP_WAKE, wake_handler, 0);
    ap_x2apic = k_lapic_mode() == K_LAPIC_X2APIC;
    if (k_cpu_identify_err == DS_OK)
        ds_caps_format(&k_cpu.caps, bsp_caps, sizeof bsp_caps);
    kprintf("# smp: cpu 0 (APIC id %u): the boot CPU\n", cpus[0].apic_id);
    unsigned up = 1;
    for (unsigned i = 1; i < ncpus; i++) {
        struct k_smp_cpu *c = &cpus[i];
        if (c->state != K_SMP_SKIPPED && !start_ap(c) && c->state < K_SMP_RUNNING)
            c->state = K_SMP_FAILED;
        up += c->state == K_SMP_IDENTIFIED;
        report(c, bsp_caps);
    }
    kprintf("# smp: %u of %u CPU(s) running (%s)\n", up, ncpus, k_lapic_mode_name());
}

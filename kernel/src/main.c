/* SPDX-License-Identifier: BSD-2-Clause */
/* Test kernel main: platform bring-up, capability report, test groups. */
#include <k/kernel.h>
#include <k/boot.h>
#include <k/cmdline.h>
#include <k/console.h>
#include <k/fbcon.h>
#include <k/io.h>
#include <k/ktest.h>
#include <k/lapic.h>
#include <k/pmi.h>
#include <k/safe.h>
#include <k/smp.h>
#include <k/trap.h>
#include <k/verdict.h>

/* 8259A: remap to K_VEC_PIC_BASE.. and mask every line (the kernel uses the
 * local APIC only; a spurious IRQ7/15 then lands on a known vector). */
static void pic_disable(void)
{
    outb(0x20, 0x11);
    outb(0xA0, 0x11);
    outb(0x21, K_VEC_PIC_BASE);
    outb(0xA1, K_VEC_PIC_BASE + 8);
    outb(0x21, 4);
    outb(0xA1, 2);
    outb(0x21, 1);
    outb(0xA1, 1);
    outb(0x21, 0xFF);
    outb(0xA1, 0xFF);
}

static void capability_report(void)
{
    static char buf[2048];
    k_ds_set_gp_msr((uint32_t)k_opt_u64("msr_gp", 0));
    if (k_ds_get_gp_msr())
        kprintf("# msr_gp=0x%x: libds's backend reports this MSR as #GP (simulated hypervisor)\n",
                k_ds_get_gp_msr());
    int err = ds_cpu_init(&k_cpu, &k_ds_msr_ops, NULL);
    if (err == DS_OK)
        err = ds_cpu_identify(&k_cpu);
    k_cpu_identify_err = err;
    kprintf("# capability report (libds %s, ds_cpu_identify: %s)\n", DS_VERSION_STRING, ds_strerror(err));
    if (err != DS_OK) {
        k_verdict_cpu("ds_cpu_identify: %s", ds_strerror(err));
        return;
    }
    k_verdict_cpu("%s %02X_%02XH%s%s", k_cpu.caps.vendor_str, k_cpu.caps.display_family, k_cpu.caps.display_model,
                  k_cpu.caps.hybrid ? ", hybrid, this core: " : "",
                  k_cpu.caps.hybrid ? (k_cpu.caps.core_type == 0x40 ? "Core" : k_cpu.caps.core_type == 0x20 ? "Atom" : "?") : "");
    int ferr = ds_caps_format(&k_cpu.caps, buf, sizeof(buf));
    for (char *p = buf; *p;) {
        char *e = p;
        while (*e && *e != '\n')
            e++;
        char c = *e;
        *e = '\0';
        kprintf("#   %s\n", p);
        if (!c)
            break;
        p = e + 1;
    }
    if (ferr != DS_OK)
        kprintf("# (report truncated: %s)\n", ds_strerror(ferr));
}

void kmain(uint32_t magic, uintptr_t info);

void kmain(uint32_t magic, uintptr_t info)
{
    k_entry_flags = k_read_flags();
    k_console_init();
    int perr = k_boot_parse(magic, info, &k_boot);
    k_cmdline_set(k_boot.cmdline);
    k_console_set_vga(k_boot.vga_text);
    bool fb = !k_boot.vga_text && k_fbcon_init(&k_boot);
    k_console_set_debugcon(k_opt_is("debugcon", "1"));

    kprintf("\nlibds test kernel (%s), libds %s\n", K_ARCH, DS_VERSION_STRING);
    kprintf("# boot: %s, loader \"%s\", %s, console: %s%s\n", k_boot.protocol, k_boot.loader,
            k_boot.efi ? "UEFI" : "BIOS/direct", k_console_has_serial() ? "COM1" : "no COM1",
            k_boot.vga_text ? " + VGA text" : fb ? " + framebuffer" : "");
    if (fb)
        kprintf("# framebuffer: %ux%u, %u bpp, pitch %u, at 0x%llx; %ux%u text cells\n", k_boot.fb_width,
                k_boot.fb_height, k_boot.fb_bpp, k_boot.fb_pitch, (unsigned long long)k_boot.fb_addr,
                k_fbcon_cols(), k_fbcon_rows());
    kprintf("# cmdline: \"%s\"\n", k_cmdline());
    if (perr)
        kprintf("# unknown boot magic 0x%x: no boot information\n", magic);

    pic_disable();
    k_trap_init();
    bool allow_x2 = !k_opt_is("apic", "xapic");
    int lapic_err = k_lapic_init(allow_x2);
    if (!k_smp_setup()) { /* the CPU list and the per-CPU state (k/smp.h) */
        ktest_fail("per-CPU state for the boot CPU does not fit in memory");
        ktest_finish();
    }
    if (lapic_err == 0) {
        kprintf("# local APIC: %s, id %u, version 0x%x\n", k_lapic_mode_name(), k_lapic_id(),
                k_lapic_read(K_APIC_VERSION));
        k_pmi_init(k_opt_is("pmi", "nmi") ? K_PMI_NMI : K_PMI_FIXED);
        kprintf("# PMI: vector 0x%x, delivery %s (LVT PC masked until armed)\n", K_VEC_PMI,
                k_pmi_mode_name(k_pmi_mode()));
    } else {
        kprintf("# local APIC: none usable: %s; groups that need interrupts skip\n", k_lapic_absent_reason());
    }
    k_sti();

    capability_report();
    k_smp_start(); /* APs identify themselves and park (k/smp.h) */

    unsigned groups = ktest_run_selected();
    kprintf("# %u test group(s) run; interrupts without handler: %u, spurious: %u, unclaimed NMIs: %u\n",
            groups, k_trap_unexpected_count(), k_trap_spurious_count(), k_nmi_unclaimed_count());
    ktest_finish();
}

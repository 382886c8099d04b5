/* SPDX-License-Identifier: BSD-2-Clause */
/* Ending a run. See k/exit.h. */
#include <k/exit.h>
#include <k/cmdline.h>
#include <k/console.h>
#include <k/io.h>
#include <stdint.h>

void k_halt_forever(void)
{
    for (;;)
        __asm__ volatile("cli; hlt");
}

void k_exit(bool success)
{
    k_cli();
    if (k_opt_is("exit", "halt")) {
        kprintf("# verdict: %s; halted (exit=halt)\n", success ? "PASS" : "FAIL");
        k_halt_forever();
    }
    if (k_opt_is("exit", "reboot")) {
        kprintf("# verdict: %s; rebooting (exit=reboot)\n", success ? "PASS" : "FAIL");
        for (unsigned i = 0; i < 100000 && (inb(0x64) & 2); i++)
            ;
        outb(0x64, 0xFE); /* 8042 pulse reset line */
        /* Still here: triple fault (empty IDT, then an exception). */
        struct {
            uint16_t limit;
            uintptr_t base;
        } __attribute__((packed)) null_idt = { 0, 0 };
        __asm__ volatile("lidt %0; int3" : : "m"(null_idt));
        k_halt_forever();
    }
    outl(K_DEBUG_EXIT_PORT, success ? K_EXIT_CODE_PASS : K_EXIT_CODE_FAIL);
    /* Not under QEMU (or no isa-debug-exit device): stop here. */
    kprintf("# verdict: %s; halted\n", success ? "PASS" : "FAIL");
    k_halt_forever();
}

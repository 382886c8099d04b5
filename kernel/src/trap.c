/* SPDX-License-Identifier: BSD-2-Clause */
/* IDT, trap dispatch, exception reports, fixup lookup. See k/trap.h. */
#include <k/trap.h>
#include <k/safe.h>
#include <k/gdt.h>
#include <k/console.h>
#include <k/lapic.h>
#include <k/exit.h>
#include <k/ktest.h>
#include <k/io.h>
#include <k/string.h>
#include <stdint.h>

extern char k_isr_stubs[];
extern const struct k_fixup __kfixup_start[], __kfixup_end[];

static struct {
    k_trap_fn fn;
    void *ctx;
} handlers[256];
static unsigned unexpected, spurious;
static volatile int in_fatal;

#if defined(__x86_64__)
/* SDM Vol. 3A "64-Bit Mode IDT": 16-byte interrupt gate, type 0xE. */
struct idt_gate {
    uint16_t off0, sel;
    uint8_t ist, type;
    uint16_t off1;
    uint32_t off2, zero;
};
_Static_assert(sizeof(struct idt_gate) == 16, "gate size");
#else
/* SDM Vol. 3A "IDT Descriptors": 8-byte 32-bit interrupt gate, type 0xE. */
struct idt_gate {
    uint16_t off0, sel;
    uint8_t zero, type;
    uint16_t off1;
};
_Static_assert(sizeof(struct idt_gate) == 8, "gate size");
#endif

static struct idt_gate idt[256] __attribute__((aligned(16)));

void k_trap_init(void)
{
    for (unsigned v = 0; v < 256; v++) {
        uintptr_t a = (uintptr_t)(k_isr_stubs + 16 * v);
        struct idt_gate *g = &idt[v];
        memset(g, 0, sizeof(*g));
        g->off0 = (uint16_t)a;
        g->sel = K_GDT_KERNEL_CS;
        g->type = 0x8E; /* present, DPL 0, interrupt gate */
        g->off1 = (uint16_t)(a >> 16);
#if defined(__x86_64__)
        g->off2 = (uint32_t)((uint64_t)a >> 32);
        if (v == K_VEC_DF)
            g->ist = 1;
#endif
    }
    k_gdt_load_bsp(); /* k/gdt.h: #DF on its own stack */
#if !defined(__x86_64__)
    /* #DF: task gate (type 5) to the #DF TSS. */
    memset(&idt[K_VEC_DF], 0, sizeof(idt[K_VEC_DF]));
    idt[K_VEC_DF].sel = K_GDT_DF_TASK;
    idt[K_VEC_DF].type = 0x85;
#endif
    struct {
        uint16_t limit;
        uintptr_t base;
    } __attribute__((packed)) d = { sizeof(idt) - 1, (uintptr_t)idt };
    __asm__ volatile("lidt %0" : : "m"(d));
}

void k_trap_set_present(unsigned vector, bool present)
{
    if (vector < 256)
        idt[vector].type = (uint8_t)((idt[vector].type & 0x7F) | (present ? 0x80 : 0));
}

int k_trap_register(unsigned vector, k_trap_fn fn, void *ctx)
{
    if (vector > 255)
        return -1;
    unsigned long fl = k_read_flags();
    k_cli();
    handlers[vector].fn = NULL;
    handlers[vector].ctx = ctx;
    handlers[vector].fn = fn;
    if (fl & K_FLAGS_IF)
        k_sti();
    return 0;
}

unsigned long k_fixup_find(unsigned long ip)
{
    for (const struct k_fixup *f = __kfixup_start; f < __kfixup_end; f++)
        if (f->insn == ip)
            return f->resume;
    return 0;
}

void k_trap_dump(const struct k_trap_frame *f)
{
#if defined(__x86_64__)
    kprintf("  vector %lu (%s) error 0x%lx\n", (unsigned long)f->vector, k_trap_name((unsigned)f->vector),
            (unsigned long)f->error);
    kprintf("  rip %016lx cs %04lx rflags %016lx rsp %016lx ss %04lx\n", f->ip, f->cs, f->flags, f->sp, f->ss);
    kprintf("  rax %016lx rbx %016lx rcx %016lx rdx %016lx\n", f->ax, f->bx, f->cx, f->dx);
    kprintf("  rsi %016lx rdi %016lx rbp %016lx r8  %016lx\n", f->si, f->di, f->bp, f->r8);
    kprintf("  r9  %016lx r10 %016lx r11 %016lx r12 %016lx\n", f->r9, f->r10, f->r11, f->r12);
    kprintf("  r13 %016lx r14 %016lx r15 %016lx\n", f->r13, f->r14, f->r15);
    kprintf("  cr0 %016lx cr2 %016lx cr3 %016lx cr4 %016lx\n", k_read_cr0(), k_read_cr2(), k_read_cr3(),
            k_read_cr4());
#else
    kprintf("  vector %u (%s) error 0x%x\n", (unsigned)f->vector, k_trap_name(f->vector), (unsigned)f->error);
    kprintf("  eip %08x cs %04x eflags %08x\n", (unsigned)f->ip, (unsigned)f->cs, (unsigned)f->flags);
    kprintf("  eax %08x ebx %08x ecx %08x edx %08x\n", (unsigned)f->ax, (unsigned)f->bx, (unsigned)f->cx,
            (unsigned)f->dx);
    kprintf("  esi %08x edi %08x ebp %08x esp %08lx\n", (unsigned)f->si, (unsigned)f->di, (unsigned)f->bp,
            (unsigned long)((uintptr_t)f + sizeof(*f)));
    kprintf("  cr0 %08lx cr2 %08lx cr3 %08lx cr4 %08lx\n", k_read_cr0(), k_read_cr2(), k_read_cr3(),
            k_read_cr4());
#endif
}

unsigned k_trap_unexpected_count(void) { return unexpected; }
unsigned k_trap_spurious_count(void) { return spurious; }

void k_trap_dispatch(struct k_trap_frame *f)
{
    unsigned v = (unsigned)f->vector;

    if (v < 32) {
        unsigned long resume = k_fixup_find((unsigned long)f->ip);
        if (resume) {
            f->ip = resume;
            f->di = (unsigned long)K_SAFE_FAULT(v);
            return;
        }
    }
    if (handlers[v].fn) {
        handlers[v].fn(f, handlers[v].ctx);
        return;
    }
    if (v == K_VEC_SPURIOUS) {
        spurious++; /* no EOI for the spurious vector */
        return;
    }
    if (v < 32) {
        if (in_fatal++) {
            /* An exception while reporting one: stop here. */
            kputs("\nnested exception while reporting an exception\n");
            k_exit(false);
        }
        kputc('\n');
        ktest_fail("unhandled exception %s at ip 0x%lx", k_trap_name(v), (unsigned long)f->ip);
        k_trap_dump(f);
        ktest_finish();
    }
    unexpected++;
    kprintf("# unexpected interrupt vector 0x%x (%u so far)\n", v, unexpected);
    if (v >= K_VEC_PIC_BASE + 0 && v < K_VEC_PIC_BASE + 16) {
        /* A (spurious) 8259 interrupt: IRQ7/IRQ15 need no EOI; others do. */
        if (v >= K_VEC_PIC_BASE + 8)
            outb(0xA0, 0x20);
        outb(0x20, 0x20);
    }
    k_lapic_eoi();
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* The GDT and TSS of every CPU. See k/gdt.h. */
#include <k/gdt.h>
#include <k/console.h>
#include <k/io.h>
#include <k/ktest.h>
#include <k/string.h>
#include <stdbool.h>

static struct k_cpu_tables bsp;
static uint8_t bsp_df_stack[K_DF_STACK] __attribute__((aligned(16)));

#if defined(__x86_64__)
static void load(struct k_cpu_tables *t, uint8_t *df_top)
{
    static const uint64_t tmpl[4] = { 0, 0x00CF9A000000FFFFull, 0x00CF92000000FFFFull, 0x00AF9A000000FFFFull };
    uint64_t base = (uintptr_t)&t->tss, limit = sizeof(t->tss) - 1;
    memcpy(t->gdt, tmpl, sizeof(tmpl)); /* 0x08 code32, 0x10 data, 0x18 code64 */
    t->tss.ist[0] = (uintptr_t)df_top;  /* #DF on IST1 */
    t->tss.iomap_base = sizeof(t->tss);
    /* SDM "TSS Descriptor in 64-bit mode": type 9 (available 64-bit TSS) */
    t->gdt[4] = (limit & 0xFFFF) | ((base & 0xFFFFFF) << 16) | (0x89ull << 40) | ((limit >> 16 & 0xF) << 48) |
                ((base >> 24 & 0xFF) << 56);
    t->gdt[5] = base >> 32;
    t->gdt[6] = 0;
    struct {
        uint16_t limit;
        uint64_t base;
    } __attribute__((packed)) d = { sizeof(t->gdt) - 1, (uintptr_t)t->gdt };
    __asm__ volatile("lgdt %0" : : "m"(d));
    __asm__ volatile("ltr %w0" : : "r"(0x20));
}

void k_gdt_load_bsp(void) { load(&bsp, bsp_df_stack + sizeof(bsp_df_stack)); }
void k_gdt_load_ap(struct k_cpu_tables *t, uint8_t *df_top) { load(t, df_top); }
#else
static uint64_t tss_desc(const struct k_tss32 *t)
{
    uint64_t base = (uintptr_t)t, limit = sizeof(*t) - 1;
    /* SDM "TSS Descriptor": type 9 (available 32-bit TSS), present */
    return (limit & 0xFFFF) | ((base & 0xFFFFFF) << 16) | (0x89ull << 40) | ((limit >> 16 & 0xF) << 48) |
           ((base >> 24 & 0xFF) << 56);
}

/* The boot CPU's #DF task: the task switch saved the interrupted state in
 * its tss_main. */
static void df_task(void) __attribute__((noreturn, used));
static void df_task(void)
{
    kputs("\n");
    ktest_fail("unhandled exception #DF double fault at ip 0x%x (via task gate)", (unsigned)bsp.tss_main.eip);
    kprintf("  eax %08x ebx %08x ecx %08x edx %08x\n", (unsigned)bsp.tss_main.eax, (unsigned)bsp.tss_main.ebx,
            (unsigned)bsp.tss_main.ecx, (unsigned)bsp.tss_main.edx);
    kprintf("  esi %08x edi %08x ebp %08x esp %08x eflags %08x\n", (unsigned)bsp.tss_main.esi,
            (unsigned)bsp.tss_main.edi, (unsigned)bsp.tss_main.ebp, (unsigned)bsp.tss_main.esp,
            (unsigned)bsp.tss_main.eflags);
    ktest_finish();
}

static void ap_df_task(void) __attribute__((noreturn, used));
static void ap_df_task(void)
{
    kputs("\n");
    ktest_fail("unhandled exception #DF double fault on an application processor (via task gate)");
    ktest_finish();
}

/* 0x18 the CPU's TSS, 0x20 the #DF task's TSS, which the shared IDT's task
 * gate names: each CPU's #DF switches to its own #DF task. */
static void load(struct k_cpu_tables *t, uint8_t *df_top, void (*task)(void))
{
    memset(&t->tss_main, 0, sizeof(t->tss_main));
    memset(&t->tss_df, 0, sizeof(t->tss_df));
    t->tss_main.iomap_base = sizeof(struct k_tss32);
    t->tss_df.iomap_base = sizeof(struct k_tss32);
    t->tss_df.eip = (uintptr_t)task;
    t->tss_df.esp = (uintptr_t)(df_top - 16);
    t->tss_df.eflags = 0x2; /* IF = 0 */
    t->tss_df.cs = 0x08;
    t->tss_df.ds = t->tss_df.es = t->tss_df.ss = t->tss_df.fs = t->tss_df.gs = 0x10;
    t->tss_df.cr3 = (uint32_t)k_read_cr3();
    t->gdt[0] = 0;
    t->gdt[1] = 0x00CF9A000000FFFFull; /* 0x08 code32 */
    t->gdt[2] = 0x00CF92000000FFFFull; /* 0x10 data */
    t->gdt[3] = tss_desc(&t->tss_main);
    t->gdt[4] = tss_desc(&t->tss_df);
    struct {
        uint16_t limit;
        uint32_t base;
    } __attribute__((packed)) d = { sizeof(t->gdt) - 1, (uintptr_t)t->gdt };
    __asm__ volatile("lgdt %0" : : "m"(d));
    __asm__ volatile("ltr %w0" : : "r"(0x18));
}

void k_gdt_load_bsp(void) { load(&bsp, bsp_df_stack + sizeof(bsp_df_stack), df_task); }
void k_gdt_load_ap(struct k_cpu_tables *t, uint8_t *df_top) { load(t, df_top, ap_df_task); }
#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The embed test kernel: a higher-half x86_64 kernel built the way hobby
 * kernels are (own linker script, PVH entry, -mcmodel=kernel, own IDT and
 * serial console) that uses libds only through the installed package
 * (find_package(libds) -> libds::ds). It proves that libds assumes nothing
 * of the project's own kernel: not its memory layout, code model, console,
 * IDT or fault-fixup mechanism.
 *
 * Output: one `ok N - ...` / `not ok N - ...` / `ok N - ... # SKIP ...` line
 * per check, then `N passed, N failed, N skipped`; exit through
 * isa-debug-exit (port 0xf4): 0x10 = all passed (QEMU status 33), 0x11 =
 * a failure (35).
 */
#include <ds/ds.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include "embed.h"

#define KVMA 0xffffffff80000000ull
#define EXIT_PASS 0x10
#define EXIT_FAIL 0x11

/* ---- the compiler may emit calls to these; libds itself needs none ---- */
void *memset(void *d, int c, size_t n)
{
    unsigned char *p = d;
    while (n--)
        *p++ = (unsigned char)c;
    return d;
}

void *memcpy(void *d, const void *s, size_t n)
{
    unsigned char *p = d;
    const unsigned char *q = s;
    while (n--)
        *p++ = *q++;
    return d;
}

/* ---- ports, serial console (COM1, 115200 8N1, polled) ---- */
static inline void outb(uint16_t port, uint8_t v) { __asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port)); }
static inline uint8_t inb(uint16_t port)
{
    uint8_t v;
    __asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
    return v;
}

#define COM1 0x3F8
static void con_init(void)
{
    outb(COM1 + 1, 0x00); /* no interrupts */
    outb(COM1 + 3, 0x80); /* DLAB */
    outb(COM1 + 0, 0x01); /* divisor 1: 115200 */
    outb(COM1 + 1, 0x00);
    outb(COM1 + 3, 0x03); /* 8N1 */
    outb(COM1 + 2, 0xC7); /* FIFO */
    outb(COM1 + 4, 0x03); /* DTR, RTS */
}

static void con_putc(char c)
{
    if (c == '\n')
        con_putc('\r');
    for (unsigned spin = 0; spin < 100000 && !(inb(COM1 + 5) & 0x20); spin++)
        ;
    outb(COM1, (uint8_t)c);
}

static void con_puts(const char *s)
{
    while (*s)
        con_putc(*s++);
}

static void con_num(uint64_t v, unsigned base, int width)
{
    char tmp[24];
    int n = 0;
    do {
        tmp[n++] = "0123456789abcdef"[v % base];
        v /= base;
    } while (v);
    while (width-- > n)
        con_putc('0');
    while (n)
        con_putc(tmp[--n]);
}

/* %s %c %d %u %x %lx %llx %p, nothing else */
void kprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    for (; *fmt; fmt++) {
        if (*fmt != '%') {
            con_putc(*fmt);
            continue;
        }
        int lng = 0;
        fmt++;
        while (*fmt == 'l') {
            lng = 1;
            fmt++;
        }
        switch (*fmt) {
        case 's': con_puts(va_arg(ap, const char *)); break;
        case 'c': con_putc((char)va_arg(ap, int)); break;
        case 'd': {
            long long v = lng ? va_arg(ap, long long) : va_arg(ap, int);
            if (v < 0) {
                con_putc('-');
                v = -v;
            }
            con_num((uint64_t)v, 10, 0);
            break;
        }
        case 'u': con_num(lng ? va_arg(ap, unsigned long long) : va_arg(ap, unsigned), 10, 0); break;
        case 'x': con_num(lng ? va_arg(ap, unsigned long long) : va_arg(ap, unsigned), 16, 0); break;
        case 'p': con_puts("0x"); con_num((uintptr_t)va_arg(ap, void *), 16, 16); break;
        default: con_putc('%'); con_putc(*fmt); break;
        }
    }
    va_end(ap);
}

static void qemu_exit(uint8_t code)
{
    outb(0xf4, code);
    for (;;)
        __asm__ volatile("cli; hlt");
}

/* ---- IDT and exception fixups ---- */
struct frame {
    uint64_t r15, r14, r13, r12, r11, r10, r9, r8, rbp, rdi, rsi, rdx, rcx, rbx, rax;
    uint64_t vector, error, rip, cs, rflags, rsp, ss;
};

struct idt_gate {
    uint16_t off_lo, sel;
    uint8_t ist, type;
    uint16_t off_mid;
    uint32_t off_hi, zero;
};
_Static_assert(sizeof(struct idt_gate) == 16, "IDT gate is 16 bytes in long mode");

static struct idt_gate idt[32] __attribute__((aligned(16)));
extern const uint64_t isr_stubs[32];

/* {instruction that may fault, where to resume}; see SAFE_INSN */
struct ex_entry {
    uint64_t insn, fixup;
};
extern const struct ex_entry __ex_table_start[], __ex_table_end[];
static volatile uint64_t ex_vector; /* last fixed-up fault: vector + 1, 0 = none */

void trap(struct frame *f);
void trap(struct frame *f)
{
    for (const struct ex_entry *e = __ex_table_start; e < __ex_table_end; e++)
        if (e->insn == f->rip) {
            ex_vector = f->vector + 1;
            f->rip = e->fixup;
            return;
        }
    kprintf("\nnot ok - unexpected exception %u error %lx at rip %p (rsp %p)\n", (unsigned)f->vector,
            (unsigned long long)f->error, (void *)f->rip, (void *)f->rsp);
    qemu_exit(EXIT_FAIL);
}

static void idt_init(void)
{
    for (int i = 0; i < 32; i++) {
        uint64_t a = isr_stubs[i];
        idt[i].off_lo = (uint16_t)a;
        idt[i].sel = 0x08;
        idt[i].ist = 0;
        idt[i].type = 0x8E; /* present, DPL 0, 64-bit interrupt gate */
        idt[i].off_mid = (uint16_t)(a >> 16);
        idt[i].off_hi = (uint32_t)(a >> 32);
        idt[i].zero = 0;
    }
    struct __attribute__((packed)) {
        uint16_t limit;
        uint64_t base;
    } p = {sizeof(idt) - 1, (uint64_t)idt};
    __asm__ volatile("lidt %0" : : "m"(p));
}

/* One instruction that may fault; on a fault the handler resumes at 2: */
#define SAFE_INSN(insn, ...)                                   \
    __asm__ volatile("1: " insn "\n2:\n"                       \
                     ".pushsection .ex_table, \"a\"\n"         \
                     ".balign 8\n.quad 1b, 2b\n.popsection"    \
                     __VA_ARGS__ : "memory")

/* ---- the libds MSR backend: fault-safe, counts accesses ---- */
struct backend_stats {
    unsigned reads, writes, faults;
};

static int be_read(void *ctx, uint32_t msr, uint64_t *out)
{
    struct backend_stats *st = ctx;
    uint32_t lo = 0, hi = 0;
    st->reads++;
    ex_vector = 0;
    SAFE_INSN("rdmsr", : "+a"(lo), "+d"(hi) : "c"(msr));
    if (ex_vector) {
        st->faults++;
        return DS_ERR_MSR_FAULT;
    }
    *out = ((uint64_t)hi << 32) | lo;
    return DS_OK;
}

static int be_write(void *ctx, uint32_t msr, uint64_t val)
{
    struct backend_stats *st = ctx;
    st->writes++;
    ex_vector = 0;
    SAFE_INSN("wrmsr", : : "c"(msr), "a"((uint32_t)val), "d"((uint32_t)(val >> 32)));
    if (ex_vector) {
        st->faults++;
        return DS_ERR_MSR_FAULT;
    }
    return DS_OK;
}

static const struct ds_msr_ops backend = {be_read, be_write, NULL /* native CPUID */};

/* ---- TAP-ish reporting ---- */
static unsigned n_pass, n_fail, n_skip, n_test;

void check(int cond, const char *what)
{
    n_test++;
    if (cond) {
        n_pass++;
        kprintf("ok %u - %s\n", n_test, what);
    } else {
        n_fail++;
        kprintf("not ok %u - %s\n", n_test, what);
    }
}

__attribute__((unused)) static void skip(const char *what, const char *why)
{
    n_test++;
    n_skip++;
    kprintf("ok %u - %s # SKIP %s\n", n_test, what, why);
}

/* struct hvm_start_info (Xen public/arch-x86/hvm/start_info.h) */
#define HVM_START_MAGIC 0x336ec578u
struct hvm_start_info {
    uint32_t magic, version, flags, nr_modules;
    uint64_t modlist_paddr, cmdline_paddr, rsdp_paddr, memmap_paddr;
    uint32_t memmap_entries, reserved;
};

static char caps_text[2048];

void kmain(uint32_t start_info_phys)
{
    con_init();
    idt_init();
    kprintf("embed kernel: higher-half x86_64, -mcmodel=kernel, libds %s via find_package\n",
            DS_VERSION_STRING);

    check((uint64_t)(uintptr_t)&kmain >= KVMA && (uint64_t)(uintptr_t)&ds_cpu_identify >= KVMA,
          "kernel runs in the top 2 GiB");
    kprintf("# kmain %p, ds_cpu_identify %p, ds_strerror table entry %p\n", (void *)&kmain,
            (void *)&ds_cpu_identify, (const void *)ds_strerror(DS_ERR_INVAL));

    /* The identity map is gone (entry.S): a low address faults (#PF). */
    uint32_t low = 0;
    ex_vector = 0;
    SAFE_INSN("movl (%1), %0", : "=r"(low) : "r"((uintptr_t)0x100000));
    check(ex_vector == 14 + 1, "low memory is unmapped before libds runs");
    const struct hvm_start_info *si = (const void *)(uintptr_t)(KVMA + start_info_phys);
    check(start_info_phys != 0 && si->magic == HVM_START_MAGIC, "PVH start_info magic");

    /* The fixup mechanism the backend relies on: RDPMC of a counter that does
     * not exist faults (#GP on hardware, #UD under QEMU TCG) and is caught. */
    uint32_t lo = 0, hi = 0;
    ex_vector = 0;
    SAFE_INSN("rdpmc", : "+a"(lo), "+d"(hi) : "c"(0x7fffffffu));
    check(ex_vector == 13 + 1 || ex_vector == 6 + 1, "fault-safe access reports RDPMC of a missing counter as a fault");

    struct backend_stats stats = {0, 0, 0};
    struct ds_cpu cpu;
    int err = ds_cpu_init(&cpu, &backend, &stats);
    kprintf("# ds_cpu_init: %s\n", ds_errname(err));
    check(err == DS_OK && cpu.ia32e, "ds_cpu_init with a fault-safe backend (IA-32e)");

    err = ds_cpu_identify(&cpu);
    kprintf("# ds_cpu_identify: %s (%s); backend: %u reads, %u writes, %u faults\n", ds_errname(err),
            ds_strerror(err), stats.reads, stats.writes, stats.faults);
    check(err == DS_OK && cpu.identified, "ds_cpu_identify");
    check(cpu.caps.vendor != DS_VENDOR_INTEL || stats.reads >= 1,
          "an Intel CPU's IA32_MISC_ENABLE was read through the backend");

    err = ds_caps_format(&cpu.caps, caps_text, sizeof(caps_text));
    check(err == DS_OK, "ds_caps_format");
    kprintf("%s", caps_text);

    err = ds_cpu_identify(NULL);
    check(err == DS_ERR_NULL, "ds_cpu_identify(NULL) returns DS_ERR_NULL");

#if EMBED_SAMPLE
    sample_run();
#else
    skip("BTS sample recorded on the reference model",
         "this tree has no reference model (model/) or the libds package has no BTS API");
#endif

    kprintf("%u passed, %u failed, %u skipped\n", n_pass, n_fail, n_skip);
    qemu_exit(n_fail ? EXIT_FAIL : EXIT_PASS);
}

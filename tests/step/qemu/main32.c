/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_step_qemu_i386: the i386 workloads single-stepped for real, in ring 0
 * of a 32-bit protected-mode guest (QEMU -kernel, multiboot1), with EFLAGS.TF
 * and a #DB handler exactly as the test kernel does it. Every step goes
 * through step_feed() in STEP_MODE_32; totals must equal workloads.h (built
 * with __i386__, so WL_ARG_LOADS counts the stack-argument loads), and the
 * chased load addresses must follow the array. Results go to COM1 as
 * ok/not ok lines and "N passed, N failed, N skipped"; the exit code leaves
 * through isa-debug-exit at port 0xf4 (QEMU exits with (code << 1) | 1).
 *
 * This is test scaffolding, not the kernel: it has globals and its own tiny
 * IDT. The kernel's platform code (another branch) owns the real IDT/APIC.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "feed.h"
#include "workloads.h"

extern void step32_db_stub(void);
#define F(n) extern void step32_fault_##n(void);
F(0) F(2) F(3) F(4) F(5) F(6) F(7) F(8) F(9) F(10) F(11) F(12) F(13) F(14) F(15) F(16) F(17) F(18) F(19)
#undef F
extern uint32_t step32_run(const void *fn, uint32_t a0, uint32_t a1, uint32_t a2);
extern const char step32_ret[];

/* --- port I/O, serial, exit ----------------------------------------------- */
static inline void outb(uint16_t port, uint8_t v) { __asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port)); }
static inline uint8_t inb(uint16_t port) { uint8_t v; __asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port)); return v; }

static void putc_(char c)
{
    for (int i = 0; i < 100000 && !(inb(0x3F8 + 5) & 0x20); i++)
        ;
    outb(0x3F8, (uint8_t)c);
}
static void puts_(const char *s) { while (*s) { if (*s == '\n') putc_('\r'); putc_(*s++); } }
static void putu(uint64_t v)
{
    char b[24];
    int i = 0;
    do { b[i++] = (char)('0' + v % 10); v /= 10; } while (v);
    while (i) putc_(b[--i]);
}
static void putx(uint64_t v)
{
    puts_("0x");
    for (int s = 28; s >= 0; s -= 4)
        putc_("0123456789abcdef"[(v >> s) & 15]);
}
static void qemu_exit(uint32_t code)
{
    __asm__ volatile("outl %0, %1" : : "a"(code), "Nd"((uint16_t)0xF4));
    for (;;)
        __asm__ volatile("cli; hlt");
}

/* --- checks ------------------------------------------------------------------ */
static unsigned npass, nfail;
static void check(bool ok, const char *what, const char *detail, uint64_t got, uint64_t want)
{
    if (ok) {
        npass++;
        return;
    }
    nfail++;
    puts_("not ok "); putu(npass + nfail); puts_(" - "); puts_(what); puts_(": "); puts_(detail);
    puts_(" got "); putu(got); puts_(" want "); putu(want); puts_("\n");
}

/* --- IDT -------------------------------------------------------------------- */
struct idt_gate { uint16_t off_lo, sel; uint8_t zero, type; uint16_t off_hi; } __attribute__((packed));
static struct idt_gate idt[32];
static void set_gate(unsigned v, void (*fn)(void))
{
    uint16_t cs;
    __asm__ volatile("movw %%cs, %0" : "=r"(cs));
    uint32_t a = (uint32_t)(uintptr_t)fn;
    idt[v] = (struct idt_gate){(uint16_t)a, cs, 0, 0x8E, (uint16_t)(a >> 16)};
}

/* PUSHAL frame followed by the CPU's ring-0 interrupt frame. */
struct frame { uint32_t edi, esi, ebp, esp0, ebx, edx, ecx, eax, eip, cs, eflags; };

void step32_fault(uint32_t vec, struct frame *f);
void step32_fault(uint32_t vec, struct frame *f)
{
    puts_("not ok - unexpected exception "); putu(vec); puts_(" at "); putx(f->eip); puts_("\n");
    puts_("0 passed, 1 failed, 0 skipped\n");
    qemu_exit(1);
}

/* --- the stepping state ------------------------------------------------------ */
#define MAXLOADS 1024
static struct {
    uint32_t lo, hi;
    bool have_prev;
    struct step_regs prev;
    uint64_t insns, taken, jcc_taken, jcc_not_taken, jmp_direct, jmp_indirect, call_direct,
        call_indirect, ret, loads, mispred, bad;
    uint32_t load_addr[MAXLOADS];
} S;

static void frame_to_regs(const struct frame *f, struct step_regs *r)
{
    for (unsigned i = 0; i < 16; i++)
        r->gpr[i] = 0;
    for (unsigned i = 0; i < 6; i++)
        r->seg_base[i] = 0; /* flat multiboot segments */
    r->gpr[STEP_R_AX] = f->eax; r->gpr[STEP_R_CX] = f->ecx;
    r->gpr[STEP_R_DX] = f->edx; r->gpr[STEP_R_BX] = f->ebx;
    r->gpr[STEP_R_SP] = (uint32_t)(uintptr_t)&f->eflags + 4; /* ring 0: no SS:ESP pushed */
    r->gpr[STEP_R_BP] = f->ebp; r->gpr[STEP_R_SI] = f->esi; r->gpr[STEP_R_DI] = f->edi;
    r->ip = f->eip;
    r->flags = f->eflags;
}

void step32_db(struct frame *f);
void step32_db(struct frame *f)
{
    struct step_regs cur;
    frame_to_regs(f, &cur);
    if (S.have_prev && S.prev.ip >= S.lo && S.prev.ip < S.hi) {
        struct step_event ev;
        enum step_err e = step_feed(&S.prev, &cur, STEP_MODE_32, 0,
                                    (const uint8_t *)(uintptr_t)S.prev.ip, STEP_INSN_MAX, &ev);
        if (e != STEP_OK || (ev.flags & (STEP_EV_UNDECODED | STEP_EV_MISMATCH)) || !(ev.flags & STEP_EV_RETIRED)) {
            puts_("# bad step at "); putx(S.prev.ip); puts_("\n");
            S.bad++;
        }
        S.insns++;
        if (ev.flags & STEP_EV_TAKEN) {
            S.taken++;
            switch (ev.br_kind) {
            case STEP_BR_JCC: S.jcc_taken++; break;
            case STEP_BR_JMP_REL: S.jmp_direct++; break;
            case STEP_BR_JMP_IND: S.jmp_indirect++; break;
            case STEP_BR_CALL_REL: S.call_direct++; break;
            case STEP_BR_CALL_IND: S.call_indirect++; break;
            case STEP_BR_RET: S.ret++; break;
            default: S.bad++; break;
            }
        } else if (ev.flags & STEP_EV_BRANCH) {
            S.jcc_not_taken++;
        }
        if (ev.flags & STEP_EV_MISPRED)
            S.mispred++;
        if (ev.flags & STEP_EV_LOAD) {
            if (S.loads < MAXLOADS)
                S.load_addr[S.loads] = (uint32_t)ev.load_addr;
            S.loads++;
        }
    } else if (S.have_prev) {
        S.bad++; /* a step outside the workload before its return */
    }
    if (cur.ip == (uint32_t)(uintptr_t)step32_ret) {
        f->eflags &= ~0x100u; /* back in step32_run: stop stepping */
        S.have_prev = false;
    } else {
        S.prev = cur;
        S.have_prev = true;
    }
}

static uint32_t run(const char *what, const void *fn, const char *end, uint32_t a0, uint32_t a1,
                    uint32_t a2, const struct wl_expect *x)
{
    uint32_t *z = (uint32_t *)&S;
    for (size_t i = 0; i < sizeof S / 4; i++)
        z[i] = 0;
    unsigned fail0 = nfail;
    S.lo = (uint32_t)(uintptr_t)fn;
    S.hi = (uint32_t)(uintptr_t)end;
    uint32_t r = step32_run(fn, a0, a1, a2);
    check(S.bad == 0, what, "every step decoded, in range, landing as decoded", S.bad, 0);
    check(S.insns == x->insns, what, "instructions", S.insns, x->insns);
    check(S.taken == x->taken, what, "taken branches", S.taken, x->taken);
    check(S.jcc_taken == x->jcc_taken, what, "Jcc taken", S.jcc_taken, x->jcc_taken);
    check(S.jcc_not_taken == x->jcc_not_taken, what, "Jcc not taken", S.jcc_not_taken, x->jcc_not_taken);
    check(S.jmp_direct == x->jmp_direct, what, "JMP rel", S.jmp_direct, x->jmp_direct);
    check(S.jmp_indirect == x->jmp_indirect, what, "JMP indirect", S.jmp_indirect, x->jmp_indirect);
    check(S.call_direct == x->call_direct, what, "CALL rel", S.call_direct, x->call_direct);
    check(S.call_indirect == x->call_indirect, what, "CALL indirect", S.call_indirect, x->call_indirect);
    check(S.ret == x->ret, what, "RET", S.ret, x->ret);
    check(S.loads == x->loads, what, "loads", S.loads, x->loads);
    check(S.mispred == x->mispred, what, "mispredicted", S.mispred, x->mispred);
    puts_(nfail != fail0 ? "# failed: " : "# "); puts_(what); puts_(" stepped: "); putu(S.insns); puts_(" instructions\n");
    return r;
}

static uint32_t arr[64];

void step32_main(void);
void step32_main(void)
{
    static const uint32_t ns[] = {0, 1, 2, 7, 100};
    struct wl_expect x;

    set_gate(1, step32_db_stub);
#define G(n) set_gate(n, step32_fault_##n);
    G(0) G(2) G(3) G(4) G(5) G(6) G(7) G(8) G(9) G(10) G(11) G(12) G(13) G(14) G(15) G(16) G(17) G(18) G(19)
#undef G
    struct { uint16_t limit; uint32_t base; } __attribute__((packed)) idtr = {sizeof idt - 1, (uint32_t)(uintptr_t)idt};
    __asm__ volatile("lidt %0" : : "m"(idtr));
    puts_("# step_qemu_i386: i386 workloads single-stepped in ring 0\n");

    for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
        wl_loop_expect(ns[k], &x);
        uint32_t r = run("wl_loop", (const void *)wl_loop, wl_loop_end, ns[k], 0, 0, &x);
        check(r == ns[k], "wl_loop", "result", r, ns[k]);
        wl_calls_expect(ns[k], &x);
        r = run("wl_calls", (const void *)wl_calls, wl_calls_end, ns[k], 0, 0, &x);
        check(r == 9 * ns[k], "wl_calls", "result", r, 9 * ns[k]);
        wl_lfsr_expect(0xACE1u + (uint32_t)k, ns[k] * 3, &x);
        r = run("wl_lfsr", (const void *)wl_lfsr, wl_lfsr_end, 0xACE1u + (uint32_t)k, ns[k] * 3, 0, &x);
        uint32_t s = 0xACE1u + (uint32_t)k;
        for (uint32_t i = 0; i < ns[k] * 3; i++)
            s = wl_lfsr_next(s);
        check(r == s, "wl_lfsr", "result", r, s);
    }
    for (uint32_t i = 0; i < 64; i++)
        arr[i] = (i + 23u) % 64u;
    static const uint32_t steps[] = {0, 1, 64, 200};
    for (size_t k = 0; k < sizeof steps / sizeof steps[0]; k++) {
        wl_chase_expect(steps[k], &x);
        uint32_t r = run("wl_chase", (const void *)wl_chase, wl_chase_end, (uint32_t)(uintptr_t)arr, 3, steps[k], &x);
        uint32_t idx = 3, bad = 0;
        /* the first WL_ARG_LOADS(3) loads are the arguments */
        for (uint32_t i = 0; i < steps[k] && 3 + i < MAXLOADS; i++) {
            if (S.load_addr[3 + i] != (uint32_t)(uintptr_t)&arr[idx])
                bad++;
            idx = arr[idx];
        }
        check(bad == 0, "wl_chase", "load addresses follow the chain", bad, 0);
        check(r == idx, "wl_chase", "result", r, idx);
    }
    puts_(nfail ? "not ok - step_qemu_i386\n" : "ok - step_qemu_i386\n");
    putu(npass); puts_(" passed, "); putu(nfail); puts_(" failed, 0 skipped\n");
    qemu_exit(nfail ? 1 : 0);
}

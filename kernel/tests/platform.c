/* SPDX-License-Identifier: BSD-2-Clause */
/* Kernel support code: k_snprintf formats and command-line parsing. */
#include <stdarg.h>
#include <k/ktest.h>
#include <k/console.h>
#include <k/cmdline.h>
#include <k/string.h>
#include <k/kernel.h>

static bool fmt_is(const char *want, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool fmt_is(const char *want, const char *fmt, ...)
{
    char buf[96];
    va_list ap;
    va_start(ap, fmt);
    k_vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    if (k_strcmp(buf, want) != 0) {
        kprintf("# format \"%s\": got \"%s\", want \"%s\"\n", fmt, buf, want);
        return false;
    }
    return true;
}

static void test_printf(void)
{
    ktest_check(fmt_is("-42 4294967295 ff FF", "%d %u %x %X", -42, 4294967295u, 255u, 255u), "%%d %%u %%x %%X");
    ktest_check(fmt_is("0000beef|  7|7  |", "%08x|%3d|%-3d|", 0xbeefu, 7, 7), "width, 0 and - flags");
    ktest_check(fmt_is("fedcba9876543210 18446744073709551615", "%llx %llu", 0xfedcba9876543210ull, ~0ull),
                "%%llx %%llu");
    ktest_check(fmt_is("-9223372036854775808", "%lld", (long long)(-9223372036854775807ll - 1)), "%%lld minimum");
    ktest_check(fmt_is(sizeof(void *) == 8 ? "0x00000000000abcde" : "0x000abcde", "%p", (void *)0xabcde), "%%p");
    const char *volatile nul = NULL; /* hidden from -Wformat-overflow */
    ktest_check(fmt_is("a:x:(null):%", "%s:%c:%s:%%", "a", 'x', nul), "%%s %%c %%%%");
    char small[4];
    int n = k_snprintf(small, sizeof(small), "%s", "abcdef");
    ktest_check(n == 6 && k_strcmp(small, "abc") == 0, "k_snprintf truncates and NUL-terminates");
}
KTEST(printf, test_printf);

static void test_cmdline(void)
{
    static char saved[1024];
    const char *cur = k_cmdline();
    size_t i;
    for (i = 0; cur[i] && i < sizeof(saved) - 1; i++)
        saved[i] = cur[i];
    saved[i] = '\0';

    k_cmdline_set("/boot/k.elf  tests=a,bb,c pmi=nmi flag n=0x1F big=99999999999999999999 pmi=fixed");
    size_t len;
    const char *v = k_opt("tests", &len);
    ktest_check(v && len == 6, "k_opt(tests) found, length %u", (unsigned)len);
    ktest_check(k_opt_list_has("tests", "bb") && k_opt_list_has("tests", "c") && !k_opt_list_has("tests", "b"),
                "comma list membership");
    ktest_check(k_opt_is("pmi", "fixed") && !k_opt_is("pmi", "nmi"), "last occurrence of a key wins");
    ktest_check(k_opt("flag", &len) && len == 0 && !k_opt("fla", &len) && !k_opt("missing", &len), "flags and absent keys");
    ktest_check(k_opt_u64("n", 7) == 0x1F && k_opt_u64("big", 7) == 7 && k_opt_u64("tests", 7) == 7,
                "numbers: hex, overflow and junk give the default");
    char buf[4];
    ktest_check(k_strcmp(k_opt_str("pmi", buf, sizeof(buf), "dflt"), "dflt") == 0, "k_opt_str too small gives default");

    k_cmdline_set(saved);
    ktest_check(k_strcmp(k_cmdline(), saved) == 0, "command line restored");
}
KTEST(cmdline, test_cmdline);

/*
 * The state the entry code (boot/<arch>/entry.S) promises, checked against
 * the SDM's definitions (Vol. 3A "Control Registers", Vol. 1 "EFLAGS
 * Register"), not against the entry code's constants:
 *  - CR0: PE, NE (set: a VMX guest without unrestricted guest needs it),
 *    PG (both kernels; the i386 one with an identity map), WP; CD, NW, TS,
 *    EM clear.
 *  - EFLAGS as kmain found it: bit 1 set; reserved bits 3, 5, 15, 22-31
 *    clear; the system flags TF, IF, DF, IOPL, NT, RF, VM, AC, VIF, VIP, ID
 *    clear (Multiboot defines only IF and VM; the entry clears the rest).
 *    The status flags (CF PF AF ZF SF OF) are whatever the last instruction
 *    left and are not checked.
 * Under QEMU the loaders hand over clean EFLAGS, so here the EFLAGS check
 * cannot tell a normalising entry from a lucky one; CR0.NE (clear after
 * QEMU's loaders) and the i386 CR0.PG are what fail without the entry code.
 */
#define CR0_PE (1ul << 0)
#define CR0_EM (1ul << 2)
#define CR0_TS (1ul << 3)
#define CR0_NE (1ul << 5)
#define CR0_WP (1ul << 16)
#define CR0_NW (1ul << 29)
#define CR0_CD (1ul << 30)
#define CR0_PG (1ul << 31)
#define FL_RESERVED0 ((1ul << 3) | (1ul << 5) | (1ul << 15) | 0xFFC00000ul)
#define FL_SYSTEM (0x100ul | 0x200ul | 0x400ul | 0x3000ul | 0x4000ul | 0x10000ul | 0x20000ul | 0x40000ul | \
                   0x80000ul | 0x100000ul | 0x200000ul) /* TF IF DF IOPL NT RF VM AC VIF VIP ID */

static void test_boot(void)
{
    ktest_check(k_boot.protocol[0] != 'u', "booted via %s (%s)", k_boot.protocol, K_ARCH);
    unsigned long cr0;
    __asm__ volatile("mov %%cr0, %0" : "=r"(cr0));
#if defined(__x86_64__)
    ktest_check(cr0 & CR0_PG, "long mode with paging (CR0 0x%lx)", cr0);
#else
    unsigned long cr4;
    __asm__ volatile("mov %%cr4, %0" : "=r"(cr4));
    ktest_check((cr0 & CR0_PE) && (cr0 & CR0_PG) && !(cr4 & (1ul << 5)),
                "32-bit protected mode, 32-bit paging on, never PG = 0 (CR0 0x%lx, CR4 0x%lx)", cr0, cr4);
#endif
    ktest_check((cr0 & (CR0_NE | CR0_WP)) == (CR0_NE | CR0_WP), "CR0.NE and CR0.WP set (CR0 0x%lx)", cr0);
    ktest_check(!(cr0 & (CR0_CD | CR0_NW | CR0_TS | CR0_EM)), "CR0.CD, NW, TS, EM clear (CR0 0x%lx)", cr0);
    unsigned long fl = k_entry_flags & 0xFFFFFFFFul;
    ktest_check((fl & 2) && !(fl & FL_RESERVED0) && !(fl & FL_SYSTEM),
                "EFLAGS at kmain 0x%lx: bit 1 set, reserved and system flags clear", fl);
}
KTEST(boot, test_boot);

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

static void test_boot(void)
{
    ktest_check(k_boot.protocol[0] != 'u', "booted via %s (%s)", k_boot.protocol, K_ARCH);
#if defined(__x86_64__)
    unsigned long cr0;
    __asm__ volatile("mov %%cr0, %0" : "=r"(cr0));
    ktest_check(cr0 & 0x80000000ul, "long mode with paging (CR0 0x%lx)", cr0);
#else
    unsigned long cr0;
    __asm__ volatile("mov %%cr0, %0" : "=r"(cr0));
    ktest_check((cr0 & 1) && !(cr0 & 0x80000000ul), "32-bit protected mode, paging off (CR0 0x%lx)", cr0);
#endif
}
KTEST(boot, test_boot);

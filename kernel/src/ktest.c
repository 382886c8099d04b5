/* SPDX-License-Identifier: BSD-2-Clause */
/* Test registry and reporting. See k/ktest.h. */
#include <k/ktest.h>
#include <k/console.h>
#include <k/cmdline.h>
#include <k/exit.h>
#include <k/safe.h>
#include <k/spin.h>
#include <k/string.h>
#include <k/verdict.h>
#include <stdarg.h>

extern const struct ktest __ktests_start[], __ktests_end[];

static unsigned n_pass, n_fail, n_skip, n_line;
static const char *cur_group = "boot";

/* Several CPUs may report at once (issue 13, e2e on every CPU): the line
 * number, the verdict's count and the line itself under one lock. */
static struct k_spin lock;

static void line(const char *status, const char *marker, const char *fmt, va_list ap)
{
    bool taken = k_spin_lock(&lock);
    k_verdict_count(cur_group, status[0] == 'n' ? 1 : *marker ? 2 : 0);
    kprintf("%s %u - %s: %s", status, ++n_line, cur_group, marker);
    kvprintf(fmt, ap);
    kputc('\n');
    k_spin_unlock(&lock, taken);
}

static void count(unsigned *n) { __atomic_fetch_add(n, 1u, __ATOMIC_RELAXED); }

void ktest_ok(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    count(&n_pass);
    line("ok", "", fmt, ap);
    va_end(ap);
}

void ktest_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    count(&n_fail);
    line("not ok", "", fmt, ap);
    va_end(ap);
}

void ktest_skip(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    count(&n_skip);
    line("ok", "# SKIP ", fmt, ap);
    va_end(ap);
}

void ktest_deviation(const char *fmt, ...)
{
    char what[160];
    va_list ap;
    va_start(ap, fmt);
    k_vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (k_opt_is("baremetal", "1"))
        ktest_fail("%s on bare metal (baremetal=1): the SDM requires it", what);
    else
        ktest_skip("%s: not the SDM's behaviour; CPUID hypervisor bit %s, so a hypervisor or an emulator "
                   "(boot with baremetal=1 on real hardware to make this a failure)",
                   what, k_under_hypervisor() ? "set" : "clear");
}

bool ktest_check(bool cond, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    count(cond ? &n_pass : &n_fail);
    line(cond ? "ok" : "not ok", "", fmt, ap);
    va_end(ap);
    return cond;
}

unsigned ktest_failed_count(void) { return n_fail; }

static bool selected(const struct ktest *t)
{
    size_t len;
    if (k_opt_list_has("tests", t->group))
        return true;
    if (t->flags & KTEST_F_EXPLICIT)
        return false;
    return !k_opt("tests", &len) || k_opt_list_has("tests", "all");
}

bool ktest_group_selected(const char *group)
{
    for (const struct ktest *t = __ktests_start; t < __ktests_end; t++)
        if (!k_strcmp(t->group, group))
            return selected(t);
    return false;
}

unsigned ktest_run_selected(void)
{
    unsigned groups = 0;
    for (const struct ktest *t = __ktests_start; t < __ktests_end; t++) {
        if (!selected(t))
            continue;
        groups++;
        cur_group = t->group;
        kprintf("# group %s\n", t->group);
        t->fn();
        cur_group = "boot";
    }
    return groups;
}

void ktest_finish(void)
{
    if (n_pass + n_fail == 0) {
        char sel[64];
        ktest_fail("no check ran (tests=%s)", k_opt_str("tests", sel, sizeof(sel), "all"));
    }
    k_verdict_show(n_pass, n_fail, n_skip); /* before the summary line, which stays the last */
    kprintf("%u passed, %u failed, %u skipped\n", n_pass, n_fail, n_skip);
    k_exit(n_fail == 0);
}

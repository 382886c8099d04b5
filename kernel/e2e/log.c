/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The check lines of the e2e flows and their DSLOG output: check/need (ktest
 * lines counted per log), one HDR..END log per profile (log_begin/log_end;
 * the HDR names the TSC frequency, tsc_khz=, found once;
 * with CPUs running at once each CPU collects its log and writes it whole),
 * and a run's records, LOST and RUN lines (print_run). See flow.h.
 */
#include <stdarg.h>

#include "flow.h"

/* The verdict's tables are shared by the CPUs (k/verdict.h is not locked). */
static struct k_spin verdict_lock;

bool vcheck(bool cond, const char *fmt, va_list ap)
{
    char buf[200];
    k_vsnprintf(buf, sizeof buf, fmt, ap);
    if (cond)
        E.passed++;
    else
        E.failed++;
    return ktest_check(cond, "%s%s/%s", E.tag, E.prof_name, buf);
}

bool check(bool cond, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cond = vcheck(cond, fmt, ap);
    va_end(ap);
    return cond;
}

/* A precondition of the run (setup step): prints only when it fails. */
bool need(bool cond, const char *fmt, ...)
{
    char buf[200];
    va_list ap;
    if (cond)
        return true;
    va_start(ap, fmt);
    k_vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    E.failed++;
    ktest_fail("%s%s/%s", E.tag, E.prof_name, buf);
    return false;
}

/* --- DSLOG output --------------------------------------------------------- */

/* DSLOG output. With CPUs running at once (k_e2e_run_all) a log must still
 * be one HDR..END block (docs/records.md: the record lines carry no CPU), so
 * each CPU collects its log in memory and writes it whole at log_end. */
static void log_flush(void)
{
    k_console_write_block(E.logbuf, E.loglen);
    E.loglen = 0;
}

static void rec_write(void *ctx, const char *s, size_t n)
{
    (void)ctx;
    if (!E.log_buffered) {
        for (size_t i = 0; i < n; i++)
            kputc(s[i]);
        return;
    }
    if (E.loglen + n > sizeof E.logbuf) { /* too long: out early, other CPUs' lines may split it */
        E.log_over++;
        log_flush();
    }
    for (size_t i = 0; i < n && E.loglen < sizeof E.logbuf; i++)
        E.logbuf[E.loglen++] = s[i];
}

/* Turn any text into a DSLOG name token ([A-Za-z0-9_.:+-], <= 31). */
static void tokenize(char *dst, size_t len, const char *src)
{
    size_t i = 0;
    for (; src && src[i] && i + 1 < len && i < DSREC_NAME_MAX; i++) {
        char c = src[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '_' || c == '.' || c == ':' || c == '+' || c == '-';
        dst[i] = ok ? c : '-';
    }
    dst[i] = 0;
    if (!i && len > 1) {
        dst[0] = '?';
        dst[1] = 0;
    }
}

/* The TSC frequency in kHz (issue 27: one time base for perf.data), as Linux
 * finds it: CPUID 15H on Intel (crystal clock from ECX, or from the 16H base
 * frequency when ECX is 0: native_calibrate_tsc), else measured over 10 ms of
 * PIT channel 2 (pit_calibrate_tsc's method). 0: neither works. */
static uint32_t tsc_khz_find(void)
{
    uint32_t c[4];
    k_cpuid(0, 0, c);
    if (c[0] >= 0x15 && c[1] == 0x756E6547 && c[3] == 0x49656E69 && c[2] == 0x6C65746E) { /* GenuineIntel */
        uint32_t max = c[0], d[4];
        k_cpuid(0x15, 0, d);
        uint64_t crystal = d[2] / 1000u;
        if (d[0] && d[1] && !crystal && max >= 0x16) {
            uint32_t f[4];
            k_cpuid(0x16, 0, f);
            crystal = (uint64_t)f[0] * 1000u * d[0] / d[1];
        }
        if (d[0] && d[1] && crystal)
            return (uint32_t)(crystal * d[1] / d[0]);
    }
    uint16_t cnt = 11932; /* 10 ms of 1193182 Hz */
    outb(0x61, (uint8_t)((inb(0x61) & ~0x02) | 0x01));
    outb(0x43, 0xB0);
    outb(0x42, (uint8_t)cnt);
    outb(0x42, (uint8_t)(cnt >> 8));
    uint64_t t0 = k_rdtsc();
    unsigned long i = 0;
    for (; i < 100000000ul && !(inb(0x61) & 0x20); i++)
        k_pause();
    uint64_t t1 = k_rdtsc();
    return i < 100000000ul && t1 > t0 ? (uint32_t)((t1 - t0) / 10u) : 0;
}

/* Found once (the PIT is shared), under tsc_lock. */
static struct k_spin tsc_lock;
static uint32_t tsc_khz_cached;

void log_begin(const char *backend, const char *profile, const char *why)
{
    char *kname = E.kname, *prof = E.profbuf, *whyt = E.whyt, *vlabel = E.vlabel;
    k_snprintf(kname, sizeof E.kname, "libds-%s.elf", K_ARCH);
    tokenize(prof, sizeof E.profbuf, profile);
    tokenize(whyt, sizeof E.whyt, why);
    dsrec_init(&E.out, rec_write, NULL);
    struct dsrec_header h = {K_ARCH, backend, prof, kname, whyt, false, 0, 0};
    h.has_cpu = k_lapic_mode() != K_LAPIC_NONE; /* the CPU running this log (issue 13) */
    h.cpu = k_lapic_id();
    bool tl = k_spin_lock(&tsc_lock);
    if (!tsc_khz_cached)
        tsc_khz_cached = tsc_khz_find();
    h.tsc_khz = tsc_khz_cached;
    k_spin_unlock(&tsc_lock, tl);
    dsrec_header(&E.out, &h);
    /* the verdict's per-run line: "cpuN profile" with several CPUs */
    if (h.has_cpu && k_smp_count() > 1)
        k_snprintf(vlabel, sizeof E.vlabel, "cpu%u %s", h.cpu, prof);
    else
        k_snprintf(vlabel, sizeof E.vlabel, "%s", prof);
    E.profile = vlabel;
    bool vt = k_spin_lock(&verdict_lock);
    k_verdict_backend(backend, why);
    k_spin_unlock(&verdict_lock, vt);
    E.passed = E.failed = E.skipped = 0;
}

void log_end(void)
{
    dsrec_end(&E.out, E.passed, E.failed, E.skipped);
    if (E.log_buffered) {
        log_flush();
        if (E.log_over)
            kprintf("# e2e: %s%s: the log outgrew its %u-byte buffer %u time(s): written in parts\n", E.tag,
                    E.prof_name, E2E_LOG_BYTES, E.log_over);
        E.log_over = 0;
    }
    E.logs++;
    E.tot_passed += E.passed;
    E.tot_failed += E.failed;
    E.tot_skipped += E.skipped;
}

/* Print the collected records, LOST lines and the RUN line. */
void print_run(const struct run_cfg *rc, uint64_t events, uint64_t samples_expected)
{
    for (uint32_t i = 0; i < E.npebs; i++) {
        enum dsrec_err de = dsrec_pebs(&E.out, rc->name, i, &E.pebs[i]);
        if (de)
            check(false, "%s: DSLOG PEBS line %u rejected (%d)", rc->name, i, de);
    }
    for (uint32_t i = 0; i < E.nbts; i++) {
        struct dsrec_bts b = {E.bts[i].from, E.bts[i].to, E.bts[i].flags};
        dsrec_bts(&E.out, rc->name, i, &b);
    }
    for (uint32_t k = 0; k < E.nsnap && k < PRINT_SNAP; k++) {
        const struct snap *s = &E.snap[k];
        if (s->err || !s->n)
            continue;
        uint32_t no = dsrec_lbr_snapshot(&E.out);
        for (uint32_t i = 0; i < s->n; i++) {
            struct dsrec_lbr l = {0};
            l.snap = no;
            l.idx = i;
            l.of = s->n;
            l.from = s->e[i].from;
            l.to = s->e[i].to;
            l.has_mispred = s->e[i].has_mispred;
            l.mispred = s->e[i].mispred;
            l.has_cycles = s->e[i].has_cycles;
            l.cycles = s->e[i].cycles;
            /* lbrfmt= only where IA32_PERF_CAPABILITIES[5:0] was read. */
            l.lbrfmt = E.cpu->caps.has_perf_caps && !E.cpu->caps.netburst ? (int32_t)E.cpu->caps.lbr_format : -1;
            dsrec_lbr(&E.out, rc->name, &l);
        }
    }
    if (rc->pebs) {
        struct dsrec_lost l = {DSREC_KIND_PEBS, "drain", lost_of(&E.pst)};
        dsrec_lost(&E.out, rc->name, &l);
    }
    if (rc->bts) {
        struct dsrec_lost l = {DSREC_KIND_BTS, (E.bst.anomalies & DS_DRAIN_WRAPPED) ? "wrap" : "drain",
                               lost_of(&E.bst)};
        dsrec_lost(&E.out, rc->name, &l);
    }
    struct dsrec_run r = {rc->name, rc->kind, wl_name(rc->wl), events, rc->period, samples_expected};
    unsigned records = E.out.run_records;
    dsrec_run(&E.out, &r);
    bool vt = k_spin_lock(&verdict_lock);
    k_verdict_run(E.profile, rc->name, records);
    k_spin_unlock(&verdict_lock, vt);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dsinfo cpu [--cpuid-dump FILE] [--json]: what libds makes of a machine.
 *
 * Live (Linux): for every logical CPU this process may run on, pin to it
 * (sched_setaffinity), run ds_cpu_identify() with CPUID executed there and
 * IA32_MISC_ENABLE / IA32_PERF_CAPABILITIES read through /dev/cpu/N/msr when
 * that is readable (root + the msr module); when it is not, say why. With
 * --cpuid-dump FILE the same from a real CPU's dump (cpuid_dump.h; MSRs not in
 * the dump are unknown). Prints the capability report the test kernel prints
 * and what libds would choose: DS layout, PEBS record format (or
 * architectural PEBS enumerated), LBR source, counters. Logical CPUs with the
 * same capabilities are reported once ("cpus 0-3").
 */
#define _GNU_SOURCE 1 /* sched_setaffinity, CPU_SET */
#include "dsinfo_cpu.h"
#include "cpuid_dump.h"
#include <ds/ds.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__i386__) || defined(__x86_64__)
#include <cpuid.h>
#define DSINFO_NATIVE_CPUID 1
#endif
#if defined(__has_include)
#if __has_include(<ds/pebs.h>)
#include <ds/pebs.h>
#define DSINFO_CPU_PEBS 1
#endif
#endif

/* --- live backend: CPUID on the pinned CPU, MSRs via /dev/cpu/N/msr -------- */

struct live {
    int cpu;
    int fd;               /* /dev/cpu/N/msr, -1 if not open */
    int open_errno;       /* why not */
    struct { uint32_t msr; int err; } tried[4]; /* reads: 0 ok, else errno */
    unsigned ntried;
};

static void note(struct live *l, uint32_t msr, int err)
{
    if (l->ntried < 4) {
        l->tried[l->ntried].msr = msr;
        l->tried[l->ntried].err = err;
        l->ntried++;
    }
}

static int live_read(void *ctx, uint32_t msr, uint64_t *out)
{
    struct live *l = ctx;
    if (l->fd < 0) {
        note(l, msr, l->open_errno);
        return DS_ERR_MSR_FAULT;
    }
    uint64_t v;
    if (pread(l->fd, &v, sizeof v, msr) != (ssize_t)sizeof v) {
        note(l, msr, errno ? errno : EIO); /* EIO: RDMSR faulted (#GP) in the kernel */
        return DS_ERR_MSR_FAULT;
    }
    note(l, msr, 0);
    *out = v;
    return DS_OK;
}

static int live_write(void *ctx, uint32_t msr, uint64_t val)
{
    (void)ctx; (void)msr; (void)val;
    return DS_ERR_MSR_FAULT; /* dsinfo never writes an MSR */
}

static void live_cpuid(void *ctx, uint32_t leaf, uint32_t sub, uint32_t out[4])
{
    (void)ctx;
#ifdef DSINFO_NATIVE_CPUID
    __cpuid_count(leaf, sub, out[0], out[1], out[2], out[3]); /* this thread is pinned */
#else
    (void)leaf; (void)sub;
    out[0] = out[1] = out[2] = out[3] = 0;
#endif
}

static const struct ds_msr_ops live_ops = {live_read, live_write, live_cpuid};

static const char *why_not(int err)
{
    switch (err) {
    case ENOENT: case ENXIO: case ENODEV: return "no /dev/cpu/N/msr (msr module not loaded: modprobe msr)";
    case EACCES: case EPERM: return "permission denied (needs root / CAP_SYS_RAWIO)";
    case EIO: return "RDMSR faulted (#GP): the CPU or the hypervisor refuses this MSR";
    default: return strerror(err);
    }
}

/* --- one logical CPU: identification and libds's choices --------------------- */

struct result {
    long cpu;             /* logical CPU number (dump: header index or ordinal) */
    int err;              /* ds_cpu_identify */
    struct ds_cpu c;
    struct live l;        /* live only */
    bool live;
    unsigned unknown;     /* dump only: MSR reads the dump could not answer */
};

static void choices(const struct ds_cpu *cpu, FILE *o, bool js)
{
    const struct ds_caps *c = &cpu->caps;
    enum ds_layout lay = DS_LAYOUT_64;
    int le = ds_area_layout(cpu, &lay);
    const char *pebs = "none";
    char pbuf[96];
    int pe = DS_ERR_UNSUPPORTED;
#ifdef DSINFO_CPU_PEBS
    enum ds_pebs_fmt f = DS_PEBS_FMT_NONE;
    pe = le ? le : ds_pebs_format_select(cpu, lay, &f);
    if (pe == DS_OK) {
        if (f == DS_PEBS_FMT_NB32 || f == DS_PEBS_FMT_NB64)
            snprintf(pbuf, sizeof pbuf, "NetBurst %s", f == DS_PEBS_FMT_NB32 ? "32-bit" : "64-bit");
        else if (f == DS_PEBS_FMT_ARCH)
            snprintf(pbuf, sizeof pbuf, "architectural PEBS (arch_pebs.h: IA32_PEBS_BASE/INDEX, CFG_C)");
        else
            snprintf(pbuf, sizeof pbuf, "format %d%s", f - DS_PEBS_FMT_0, ds_pebs_fmt_adaptive(f) ? " (adaptive)" : "");
        pebs = pbuf;
    }
#endif
    const struct ds_lbr_model *m = NULL;
    int lbe = ds_lbr_lookup(c->display_family, c->display_model, &m);
    if (c->vendor != DS_VENDOR_INTEL)
        lbe = DS_ERR_NOT_INTEL; /* the model tables are Intel's */
    char lbr[160];
    if (c->arch_lbr)
        snprintf(lbr, sizeof lbr, "Arch LBR (CPUID.07H:EDX[19]), depth %u (CPUID.1CH)", c->arch_lbr_depth);
    else if (lbe == DS_OK)
        snprintf(lbr, sizeof lbr, "model table row %02X_%02XH %s, %u entries", m->family, m->model, m->uarch,
                 m->depth);
    else
        snprintf(lbr, sizeof lbr, "none (%s)", ds_strerror(lbe));
    bool arch_pebs = c->has_leaf_23 && (c->leaf23_subleaves & DS_LEAF23_SUB_PEBS_CAPS);
    /* Format 6 counters group (MSR_PEBS_DATA_CFG bit 4, GP mask [47:32], fixed
     * mask [55:48]; metrics bit 5 with PERF_CAPABILITIES.PERF_METRICS: Linux
     * intel_pmu_init / pebs_update_adaptive_cfg): the counters it can snapshot. */
    bool cntr = false;
#ifdef DSINFO_CPU_PEBS
    cntr = pe == DS_OK && f == DS_PEBS_FMT_6 && c->pebs_baseline;
#endif
    uint32_t cgp = c->gp_mask & 0xFFFFu, cfx = c->fixed_mask & 0xFFu;
    if (js) {
        fprintf(o, ",\"choice\":{\"ds_layout\":%s,\"pebs\":\"%s\",\"pebs_error\":\"%s\",\"arch_pebs_enumerated\":%s,"
                   "\"lbr\":\"%s\",\"gp_mask\":\"0x%X\",\"gp_width\":%u,\"fixed_mask\":\"0x%X\",\"fixed_width\":%u",
                le ? "null" : lay == DS_LAYOUT_64 ? "64" : "32", pebs, pe ? ds_errname(pe) : "",
                arch_pebs ? "true" : "false", lbr, c->gp_mask, c->gp_width, c->fixed_mask, c->fixed_width);
        if (cntr)
            fprintf(o, ",\"pebs_counters_group\":{\"gp_mask\":\"0x%X\",\"fixed_mask\":\"0x%X\",\"metrics\":%s}",
                    cgp, cfx, c->perf_metrics ? "true" : "false");
        fprintf(o, "}");
        return;
    }
    fprintf(o, "  libds chooses:\n");
    fprintf(o, "    DS layout: %s\n", le ? ds_strerror(le) : lay == DS_LAYOUT_64 ? "64-bit" : "32-bit");
    if (pe == DS_OK) {
        fprintf(o, "    PEBS: %s\n", pebs);
        if (cntr)
            fprintf(o, "    PEBS counters group: GP mask 0x%X, fixed mask 0x%X (MSR_PEBS_DATA_CFG bit 4), "
                       "metrics %s (bit 5, PERF_CAPABILITIES.PERF_METRICS)\n",
                    cgp, cfx, c->perf_metrics ? "yes" : "no");
    } else if (pe == DS_ERR_PEBS_CAPS_UNREAD) /* PDCM set, the MSR was not readable: format unknown */
        fprintf(o, "    PEBS: unknown (IA32_PERF_CAPABILITIES not read: %s)\n", ds_strerror(c->perf_caps_err));
    else if (pe == DS_ERR_MISC_ENABLE_UNREAD) /* availability unknown, not "unavailable" */
        fprintf(o, "    PEBS: unknown (IA32_MISC_ENABLE not read: %s)\n", ds_strerror(c->misc_enable_err));
    else
        fprintf(o, "    PEBS: none (%s)\n", ds_strerror(pe));
    if (arch_pebs)
        fprintf(o, "    architectural PEBS: enumerated (CPUID 23H.4 EBX 0x%08X); libds uses it where "
                   "IA32_PERF_CAPABILITIES.PEBS_FMT = 0FH\n",
                c->arch_pebs_caps);
    fprintf(o, "    LBR: %s\n", lbr);
    fprintf(o, "    counters: perfmon v%u, GP mask 0x%X x %u bits, fixed mask 0x%X x %u bits\n", c->perfmon_version,
            c->gp_mask, c->gp_width, c->fixed_mask, c->fixed_width);
}

static void jesc(FILE *o, const char *s)
{
    fputc('"', o);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(o, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(o, "\\u%04x", (unsigned char)*s);
        else
            fputc(*s, o);
    }
    fputc('"', o);
}

static void msr_lines(const struct result *r, FILE *o, bool js)
{
    if (js) {
        fprintf(o, ",\"msr_access\":");
        if (!r->live) {
            fprintf(o, "\"cpuid dump: MSRs not in the dump are unknown (%u unknown reads)\"", r->unknown);
            return;
        }
        fprintf(o, "[");
        for (unsigned i = 0; i < r->l.ntried; i++) {
            fprintf(o, "%s{\"msr\":\"0x%X\",\"read\":%s,\"why\":", i ? "," : "", r->l.tried[i].msr,
                    r->l.tried[i].err ? "false" : "true");
            jesc(o, r->l.tried[i].err ? why_not(r->l.tried[i].err) : "");
            fputc('}', o);
        }
        fprintf(o, "]");
        return;
    }
    if (!r->live) {
        fprintf(o, "  MSRs: from the dump where it lists them; %u read(s) unknown (not in the dump: the report's "
                   "\"faulted\" means unknown here)\n", r->unknown);
        return;
    }
    if (r->l.fd < 0)
        fprintf(o, "  MSRs: /dev/cpu/%d/msr not readable: %s\n", r->cpu < 0 ? 0 : (int)r->cpu, why_not(r->l.open_errno));
    if (!r->l.ntried)
        fprintf(o, "  MSRs: libds read none (%s)\n", ds_strerror(r->c.caps.misc_enable_err));
    for (unsigned i = 0; i < r->l.ntried; i++)
        fprintf(o, "  MSR 0x%X: %s\n", r->l.tried[i].msr, r->l.tried[i].err ? why_not(r->l.tried[i].err) : "read");
}

/* "0-1,10-13" (text) or "0,1,10,11,12,13" (JSON) for the members of a group. */
static void cpu_list(FILE *o, const struct result *rs, const size_t *mem, size_t nm, bool js)
{
    for (size_t i = 0; i < nm; i++) {
        long c = rs[mem[i]].cpu;
        if (js) {
            fprintf(o, "%s%ld", i ? "," : "", c);
            continue;
        }
        size_t j = i;
        while (j + 1 < nm && rs[mem[j + 1]].cpu == rs[mem[j]].cpu + 1)
            j++;
        if (j > i)
            fprintf(o, "%s%ld-%ld", i ? "," : "", c, rs[mem[j]].cpu);
        else
            fprintf(o, "%s%ld", i ? "," : "", c);
        i = j;
    }
}

static void report(const struct result *rs, const size_t *mem, size_t nm, FILE *o, bool js, bool first)
{
    static char rep[8192];
    const struct result *r = &rs[mem[0]];
    ds_caps_format(&r->c.caps, rep, sizeof rep);
    if (js) {
        fprintf(o, "%s{\"cpus\":[", first ? "" : ",");
        cpu_list(o, rs, mem, nm, true);
        fprintf(o, "],\"identify\":\"%s\",\"vendor\":", ds_errname(r->err));
        jesc(o, r->c.caps.vendor_str);
        fprintf(o, ",\"display_family_model\":\"%02X_%02XH\",\"hybrid\":%s,\"core_type\":%u,\"native_model_id\":%u",
                r->c.caps.display_family & 0xFFu, r->c.caps.display_model, r->c.caps.hybrid ? "true" : "false",
                r->c.caps.core_type, r->c.caps.native_model_id);
        fprintf(o, ",\"pmu_kind\":\"%s\"", ds_pmu_kind_name(r->c.caps.pmu_kind));
        msr_lines(r, o, true);
        choices(&r->c, o, true);
        fprintf(o, ",\"report\":");
        jesc(o, rep);
        fputc('}', o);
        return;
    }
    fprintf(o, nm > 1 ? "cpus " : "cpu ");
    cpu_list(o, rs, mem, nm, false);
    fprintf(o, nm > 1 ? " (same capabilities):\n" : ":\n");
    fprintf(o, "  ds_cpu_identify: %s\n", ds_strerror(r->err));
    msr_lines(r, o, false);
    fprintf(o, "  capability report:\n");
    for (char *p = rep; *p;) {
        char *e = strchr(p, '\n');
        fprintf(o, "    %.*s\n", e ? (int)(e - p) : (int)strlen(p), p);
        if (!e)
            break;
        p = e + 1;
    }
    choices(&r->c, o, false);
}

static bool same(const struct result *a, const struct result *b)
{
    return a->err == b->err && !memcmp(&a->c.caps, &b->c.caps, sizeof(a->c.caps)) && a->l.ntried == b->l.ntried &&
           a->l.open_errno == b->l.open_errno && !memcmp(a->l.tried, b->l.tried, sizeof(a->l.tried)) &&
           a->unknown == b->unknown;
}

/* Logical CPUs with identical capabilities (and MSR outcome) are reported once. */
static void print_all(struct result *rs, size_t n, const char *src, bool js)
{
    size_t *mem = calloc(n ? n : 1, sizeof(*mem));
    bool *done = calloc(n ? n : 1, sizeof(*done));
    if (!mem || !done) {
        free(mem);
        free(done);
        return;
    }
    if (js) {
        printf("{\"source\":");
        jesc(stdout, src);
        printf(",\"groups\":[");
    } else {
        printf("source: %s\n", src);
    }
    bool first = true;
    for (size_t i = 0; i < n; i++) {
        if (done[i])
            continue;
        size_t nm = 0;
        for (size_t j = i; j < n; j++)
            if (!done[j] && same(&rs[i], &rs[j])) {
                done[j] = true;
                mem[nm++] = j;
            }
        report(rs, mem, nm, stdout, js, first);
        first = false;
    }
    if (js)
        printf("]}\n");
    free(mem);
    free(done);
}

static int from_dump(const char *file, bool js)
{
    struct cpuid_dump d;
    char err[512];
    if (cpuid_dump_load(file, &d, err, sizeof err)) {
        fprintf(stderr, "dsinfo: %s\n", err);
        return 1;
    }
    struct result *rs = calloc(d.ncpus, sizeof(*rs));
    if (!rs) {
        cpuid_dump_free(&d);
        return 1;
    }
    for (size_t i = 0; i < d.ncpus; i++) {
        struct cpuid_replay rp;
        uint32_t ext[4];
        cpuid_replay_init(&rp, &d, i);
        rs[i].cpu = d.cpus[i].index >= 0 ? d.cpus[i].index : (long)i;
        ds_cpu_init(&rs[i].c, &cpuid_replay_ops, &rp);
        cpuid_dump_cpuid(&d.cpus[i], 0x80000001u, 0, ext); /* IA-32e iff LM */
        ds_cpu_set_ia32e(&rs[i].c, (ext[3] >> 29) & 1);
        rs[i].err = ds_cpu_identify(&rs[i].c);
        rs[i].c.ops = NULL; /* the replay context dies here: keep only the caps */
        rs[i].c.ops_ctx = NULL;
        rs[i].unknown = rp.unknown_reads;
        rs[i].l.fd = -1;
    }
    char src[600];
    snprintf(src, sizeof src, "cpuid dump %s (%zu logical CPUs)", file, d.ncpus);
    print_all(rs, d.ncpus, src, js);
    free(rs);
    cpuid_dump_free(&d);
    return 0;
}

static int live(bool js)
{
#if defined(__linux__) && defined(DSINFO_NATIVE_CPUID)
    cpu_set_t orig;
    if (sched_getaffinity(0, sizeof orig, &orig)) {
        fprintf(stderr, "dsinfo: sched_getaffinity: %s\n", strerror(errno));
        return 1;
    }
    size_t n = (size_t)CPU_COUNT(&orig), k = 0;
    struct result *rs = calloc(n ? n : 1, sizeof(*rs));
    if (!rs)
        return 1;
    for (int cpu = 0; cpu < CPU_SETSIZE && k < n; cpu++) {
        if (!CPU_ISSET(cpu, &orig))
            continue;
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        if (sched_setaffinity(0, sizeof one, &one)) {
            fprintf(stderr, "dsinfo: cannot pin to cpu %d: %s\n", cpu, strerror(errno));
            continue;
        }
        struct result *r = &rs[k++];
        char path[64];
        r->live = true;
        r->cpu = cpu;
        r->l.cpu = cpu;
        snprintf(path, sizeof path, "/dev/cpu/%d/msr", cpu);
        r->l.fd = open(path, O_RDONLY);
        r->l.open_errno = r->l.fd < 0 ? errno : 0;
        ds_cpu_init(&r->c, &live_ops, &r->l);
        r->err = ds_cpu_identify(&r->c);
        if (r->l.fd >= 0)
            close(r->l.fd);
        r->c.ops_ctx = NULL;
    }
    sched_setaffinity(0, sizeof orig, &orig);
    print_all(rs, k, "this machine: CPUID on each logical CPU (sched_setaffinity), MSRs via /dev/cpu/N/msr", js);
    free(rs);
    return k ? 0 : 1;
#else
    (void)js;
    fprintf(stderr, "dsinfo: cpu without --cpuid-dump needs Linux on x86 (CPUID, sched_setaffinity)\n");
    return 1;
#endif
}

int dsinfo_cmd_cpu(int argc, char **argv, bool js, const char *dump)
{
    (void)argv;
    if (argc != 0)
        return 2;
    return dump ? from_dump(dump, js) : live(js);
}

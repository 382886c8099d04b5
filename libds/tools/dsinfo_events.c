/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dsinfo events [--cpuid-dump FILE] [--json]: the microarchitecture libds
 * sees (ds_uarch_of) and the six generic events there (ds_event_lookup):
 * encoding, fixed counter, whether PEBS can sample it, vendor name, source.
 * Logical CPUs with the same answer are printed once (hybrid parts: one
 * group per core type). Live: CPUID on each logical CPU this process may run
 * on (sched_setaffinity); no MSR is read (the lookup needs none).
 */
#define _GNU_SOURCE 1 /* sched_setaffinity, CPU_SET */
#include "dsinfo_events.h"
#include "cpuid_dump.h"
#include <ds/ds.h>
#include <ds/event.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__i386__) || defined(__x86_64__)
#include <cpuid.h>
#define DSINFO_EV_NATIVE 1
#endif

struct ev_cpu {
    long cpu;
    int ident;                        /* ds_cpu_identify */
    int uerr;                         /* ds_uarch_of */
    enum ds_uarch u;
    uint16_t fam;
    uint8_t model;
    int lerr[DS_EVENT__COUNT];        /* ds_event_lookup per event */
    struct ds_event_desc d[DS_EVENT__COUNT];
};

static void ev_fill(struct ev_cpu *e, struct ds_cpu *c, long n)
{
    memset(e, 0, sizeof(*e));
    e->cpu = n;
    e->ident = ds_cpu_identify(c);
    e->uerr = ds_uarch_of(c, &e->u);
    e->fam = c->caps.display_family;
    e->model = c->caps.display_model;
    for (int ev = 1; ev < DS_EVENT__COUNT; ev++)
        e->lerr[ev] = ds_event_lookup(c, (enum ds_event)ev, &e->d[ev]);
}

static bool ev_same(const struct ev_cpu *a, const struct ev_cpu *b)
{
    if (a->ident != b->ident || a->uerr != b->uerr || a->u != b->u || a->fam != b->fam || a->model != b->model)
        return false;
    for (int ev = 1; ev < DS_EVENT__COUNT; ev++)
        if (a->lerr[ev] != b->lerr[ev] || (a->lerr[ev] == DS_OK && a->d[ev].name != b->d[ev].name))
            return false;
    return true;
}

static void jstr(const char *s)
{
    putchar('"');
    for (; s && *s; s++) {
        if (*s == '"' || *s == '\\')
            printf("\\%c", *s);
        else
            putchar(*s);
    }
    putchar('"');
}

static const char *precise_text(const struct ds_event_desc *d, char *buf, size_t n)
{
    switch (d->precise) {
    case DS_PRECISE_GP: return "PEBS on a GP counter";
    case DS_PRECISE_FIXED: snprintf(buf, n, "PEBS on fixed counter %d (or a GP counter)", d->fixed); return buf;
    case DS_PRECISE_NETBURST: snprintf(buf, n, "NetBurst PEBS (replay-tagging metric %d)", d->nb_metric); return buf;
    default: return "no PEBS (counter-overflow sampling only)";
    }
}

static void row_text(int ev, int err, const struct ds_event_desc *d)
{
    char buf[96];
    if (err != DS_OK) {
        printf("  %-14s %s (%s)\n", ds_event_name((enum ds_event)ev), ds_errname(err), ds_strerror(err));
        return;
    }
    if (d->nb_event)
        printf("  %-14s %s:%s", ds_event_name(d->event), d->nb_event, d->nb_mask);
    else
        printf("  %-14s %02XH/%02XH", ds_event_name(d->event), d->evsel, d->umask);
    if (d->nb_tag_event)
        printf(" tagged by %s:%s", d->nb_tag_event, d->nb_tag_mask);
    if (d->fixed >= 0)
        printf("  fixed %d", d->fixed);
    printf("  %s  %s", precise_text(d, buf, sizeof buf), d->name);
    if (d->ll_evsel)
        printf("  load latency %02XH/%02XH", d->ll_evsel, d->ll_umask);
    printf("\n  %-14s source: %s\n", "", d->source);
}

static void row_json(int ev, int err, const struct ds_event_desc *d)
{
    static const char *const pn[] = { "none", "gp", "fixed", "netburst" };
    printf("{\"event\":\"%s\",\"error\":\"%s\"", ds_event_name((enum ds_event)ev), ds_errname(err));
    if (err == DS_OK) {
        if (d->nb_event) {
            printf(",\"nb_event\":");
            jstr(d->nb_event);
            printf(",\"nb_mask\":");
            jstr(d->nb_mask);
            printf(",\"nb_metric\":%d", d->nb_metric);
        } else {
            printf(",\"evsel\":\"0x%02X\",\"umask\":\"0x%02X\"", d->evsel, d->umask);
        }
        printf(",\"fixed\":%d,\"precise\":\"%s\",\"ll_evsel\":\"0x%02X\",\"ll_umask\":\"0x%02X\",\"name\":", d->fixed,
               pn[d->precise <= DS_PRECISE_NETBURST ? d->precise : 0], d->ll_evsel, d->ll_umask);
        jstr(d->name);
        printf(",\"source\":");
        jstr(d->source);
    }
    putchar('}');
}

static void group(const struct ev_cpu *rs, const size_t *mem, size_t nm, bool js, bool first)
{
    const struct ev_cpu *e = &rs[mem[0]];
    if (js) {
        printf("%s{\"cpus\":[", first ? "" : ",");
        for (size_t i = 0; i < nm; i++)
            printf("%s%ld", i ? "," : "", rs[mem[i]].cpu);
        printf("],\"display_family_model\":\"%02X_%02XH\",\"uarch\":\"%s\",\"error\":\"%s\",\"events\":[",
               e->fam, e->model, ds_uarch_name(e->u), ds_errname(e->ident ? e->ident : e->uerr));
        for (int ev = 1; ev < DS_EVENT__COUNT; ev++) {
            printf("%s", ev > 1 ? "," : "");
            row_json(ev, e->lerr[ev], &e->d[ev]);
        }
        printf("]}");
        return;
    }
    printf("cpus");
    for (size_t i = 0; i < nm; i++)
        printf("%s%ld", i ? "," : " ", rs[mem[i]].cpu);
    if (e->ident || e->uerr) {
        int err = e->ident ? e->ident : e->uerr;
        printf(": %02X_%02XH uarch unknown: %s (%s)\n", e->fam, e->model, ds_errname(err), ds_strerror(err));
        return;
    }
    printf(": %02X_%02XH uarch %s\n", e->fam, e->model, ds_uarch_name(e->u));
    for (int ev = 1; ev < DS_EVENT__COUNT; ev++)
        row_text(ev, e->lerr[ev], &e->d[ev]);
}

/* Print groups of equal answers (a CPU outside the table is an answer too:
 * its group says why, as dsinfo cpu reports a failed identification). */
static int print_all(const struct ev_cpu *rs, size_t n, const char *src, bool js)
{
    size_t *mem = calloc(n ? n : 1, sizeof(*mem));
    bool *done = calloc(n ? n : 1, sizeof(*done));
    if (!mem || !done) {
        free(mem);
        free(done);
        return 1;
    }
    if (js) {
        printf("{\"source\":");
        jstr(src);
        printf(",\"groups\":[");
    } else {
        printf("source: %s\n", src);
    }
    for (size_t i = 0, g = 0; i < n; i++) {
        if (done[i])
            continue;
        size_t nm = 0;
        for (size_t j = i; j < n; j++)
            if (!done[j] && ev_same(&rs[i], &rs[j])) {
                done[j] = true;
                mem[nm++] = j;
            }
        group(rs, mem, nm, js, g++ == 0);
    }
    if (js)
        printf("]}\n");
    free(mem);
    free(done);
    return n ? 0 : 1;
}

static int from_dump(const char *file, bool js)
{
    struct cpuid_dump d;
    char err[512], src[600];
    if (cpuid_dump_load(file, &d, err, sizeof err)) {
        fprintf(stderr, "dsinfo: %s\n", err);
        return 1;
    }
    struct ev_cpu *rs = calloc(d.ncpus ? d.ncpus : 1, sizeof(*rs));
    if (!rs) {
        cpuid_dump_free(&d);
        return 1;
    }
    for (size_t i = 0; i < d.ncpus; i++) {
        struct cpuid_replay rp;
        struct ds_cpu c;
        cpuid_replay_init(&rp, &d, i);
        ds_cpu_init(&c, &cpuid_replay_ops, &rp);
        ev_fill(&rs[i], &c, d.cpus[i].index >= 0 ? d.cpus[i].index : (long)i);
    }
    snprintf(src, sizeof src, "cpuid dump %s (%zu logical CPUs)", file, d.ncpus);
    int rc = print_all(rs, d.ncpus, src, js);
    free(rs);
    cpuid_dump_free(&d);
    return rc;
}

static int no_msr(void *ctx, uint32_t msr, uint64_t *out)
{
    (void)ctx; (void)msr; (void)out;
    return DS_ERR_MSR_FAULT; /* the event table needs no MSR */
}

static int no_wrmsr(void *ctx, uint32_t msr, uint64_t val)
{
    (void)ctx; (void)msr; (void)val;
    return DS_ERR_MSR_FAULT;
}

static void native_cpuid(void *ctx, uint32_t leaf, uint32_t sub, uint32_t out[4])
{
    (void)ctx;
#ifdef DSINFO_EV_NATIVE
    __cpuid_count(leaf, sub, out[0], out[1], out[2], out[3]); /* this thread is pinned */
#else
    (void)leaf; (void)sub;
    out[0] = out[1] = out[2] = out[3] = 0;
#endif
}

static const struct ds_msr_ops cpuid_only_ops = { no_msr, no_wrmsr, native_cpuid };

static int live(bool js)
{
#if defined(__linux__) && defined(DSINFO_EV_NATIVE)
    cpu_set_t orig;
    if (sched_getaffinity(0, sizeof orig, &orig)) {
        fprintf(stderr, "dsinfo: sched_getaffinity: %s\n", strerror(errno));
        return 1;
    }
    size_t n = (size_t)CPU_COUNT(&orig), k = 0;
    struct ev_cpu *rs = calloc(n ? n : 1, sizeof(*rs));
    if (!rs)
        return 1;
    for (int cpu = 0; cpu < CPU_SETSIZE && k < n; cpu++) {
        cpu_set_t one;
        if (!CPU_ISSET(cpu, &orig))
            continue;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        if (sched_setaffinity(0, sizeof one, &one))
            continue;
        struct ds_cpu c;
        ds_cpu_init(&c, &cpuid_only_ops, NULL);
        ev_fill(&rs[k++], &c, cpu);
    }
    sched_setaffinity(0, sizeof orig, &orig);
    int rc = print_all(rs, k, "this machine: CPUID on each logical CPU (sched_setaffinity), no MSR read", js);
    free(rs);
    return rc;
#else
    (void)js;
    fprintf(stderr, "dsinfo: events without --cpuid-dump needs Linux on x86 (CPUID, sched_setaffinity)\n");
    return 1;
#endif
}

int dsinfo_cmd_events(bool js, const char *dump)
{
    return dump ? from_dump(dump, js) : live(js);
}

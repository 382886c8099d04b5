/* SPDX-License-Identifier: BSD-2-Clause */
/* CPUID replay from a real processor's dump (format and rules: cpuid_dump.h). */
#include "cpuid_dump.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool hexn(const char *s, int n, uint32_t *out)
{
    uint32_t v = 0;
    for (int i = 0; i < n; i++) {
        if (!isxdigit((unsigned char)s[i]))
            return false;
        v = v << 4 | (uint32_t)(isdigit((unsigned char)s[i]) ? s[i] - '0' : (tolower((unsigned char)s[i]) - 'a' + 10));
    }
    *out = v;
    return true;
}

static struct cpuid_dump_cpu *new_cpu(struct cpuid_dump *d, long index)
{
    if (d->ncpus == d->cap) {
        size_t n = d->cap ? d->cap * 2 : 16;
        struct cpuid_dump_cpu *p = realloc(d->cpus, n * sizeof(*p));
        if (!p)
            return NULL;
        d->cpus = p;
        d->cap = n;
    }
    struct cpuid_dump_cpu *c = &d->cpus[d->ncpus++];
    memset(c, 0, sizeof(*c));
    c->index = index;
    return c;
}

static const struct cpuid_dump_leaf *find_leaf(const struct cpuid_dump_cpu *c, uint32_t leaf, uint32_t sub)
{
    for (size_t i = 0; i < c->nleaves; i++)
        if (c->leaves[i].leaf == leaf && c->leaves[i].sub == sub)
            return &c->leaves[i];
    return NULL;
}

static int add_leaf(struct cpuid_dump_cpu *c, uint32_t leaf, bool tagged, uint32_t sub, const uint32_t r[4])
{
    if (!tagged) { /* untagged repeats are sub-leaves 0, 1, 2... in file order */
        sub = 0;
        for (size_t i = 0; i < c->nleaves; i++)
            if (c->leaves[i].leaf == leaf)
                sub++;
    }
    if (find_leaf(c, leaf, sub))
        return 0; /* first value wins */
    if (c->nleaves == c->cap) {
        size_t n = c->cap ? c->cap * 2 : 64;
        struct cpuid_dump_leaf *p = realloc(c->leaves, n * sizeof(*p));
        if (!p)
            return -1;
        c->leaves = p;
        c->cap = n;
    }
    struct cpuid_dump_leaf *l = &c->leaves[c->nleaves++];
    l->leaf = leaf;
    l->sub = sub;
    l->tagged = tagged;
    memcpy(l->r, r, sizeof(l->r));
    return 0;
}

static int add_msr(struct cpuid_dump_cpu *c, uint32_t msr, uint64_t val)
{
    for (size_t i = 0; i < c->nmsrs; i++)
        if (c->msrs[i].msr == msr)
            return 0;
    if (c->nmsrs == c->mcap) {
        size_t n = c->mcap ? c->mcap * 2 : 32;
        struct cpuid_dump_msr *p = realloc(c->msrs, n * sizeof(*p));
        if (!p)
            return -1;
        c->msrs = p;
        c->mcap = n;
    }
    c->msrs[c->nmsrs].msr = msr;
    c->msrs[c->nmsrs].val = val;
    c->nmsrs++;
    return 0;
}

/* "CPUID LLLLLLLL[:] AAAAAAAA-BBBBBBBB-CCCCCCCC-DDDDDDDD [SL ss]" */
static bool parse_cpuid(const char *s, uint32_t *leaf, uint32_t r[4], bool *tagged, uint32_t *sub)
{
    if (strncmp(s, "CPUID ", 6) || !hexn(s + 6, 8, leaf))
        return false;
    s += 14;
    if (*s == ':')
        s++;
    if (!isspace((unsigned char)*s))
        return false;
    while (isspace((unsigned char)*s))
        s++;
    for (int i = 0; i < 4; i++) {
        if (!hexn(s, 8, &r[i]))
            return false;
        s += 8;
        if (i < 3 && *s++ != '-')
            return false;
    }
    const char *sl = strstr(s, "[SL ");
    *tagged = false;
    if (sl) {
        char *end;
        unsigned long v = strtoul(sl + 4, &end, 16);
        if (end != sl + 4 && *end == ']') {
            *tagged = true;
            *sub = (uint32_t)v;
        }
    }
    return true;
}

/* "MSR RRRRRRRR: hhhh-hhhh-hhhh-hhhh" (most significant group first) */
static bool parse_msr(const char *s, uint32_t *msr, uint64_t *val)
{
    uint32_t g;
    if (strncmp(s, "MSR ", 4) || !hexn(s + 4, 8, msr) || s[12] != ':')
        return false;
    s += 13;
    while (isspace((unsigned char)*s))
        s++;
    *val = 0;
    for (int i = 0; i < 4; i++) {
        if (!hexn(s, 4, &g))
            return false;
        *val = *val << 16 | g;
        s += 4;
        if (i < 3 && *s++ != '-')
            return false;
    }
    return true;
}

static long header_cpu(const char *s)
{
    const char *h = strstr(s, "CPU #");
    return h ? strtol(h + 5, NULL, 10) : -1;
}

#define NO_CPU (-1L)
#define GLOBAL_CPU (-2L)

static long cpu_by_index(const struct cpuid_dump *d, long index)
{
    for (size_t i = 0; i < d->ncpus; i++)
        if (d->cpus[i].index == index)
            return (long)i;
    return NO_CPU;
}

/* Parser state: CPUs are indices, since adding a CPU may move the array. */
struct pstate {
    long cur;   /* CPU receiving CPUID lines */
    long msrs;  /* CPU receiving MSR lines, or GLOBAL_CPU */
};

static struct cpuid_dump_cpu *at(struct cpuid_dump *d, long i)
{
    return i == GLOBAL_CPU ? &d->global : i == NO_CPU ? NULL : &d->cpus[i];
}

static int start_cpu(struct cpuid_dump *d, struct pstate *st, long index)
{
    if (!new_cpu(d, index))
        return -1;
    st->cur = st->msrs = (long)d->ncpus - 1;
    return 0;
}

static int parse_line(struct cpuid_dump *d, char *line, struct pstate *st)
{
    uint32_t leaf, sub = 0, r[4], msr;
    uint64_t val;
    bool tagged;
    size_t n = strlen(line);
    while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
        line[--n] = '\0';
    if (!strncmp(line, "------[", 7)) {
        long idx = strstr(line, "Logical CPU #") ? header_cpu(line) : -1;
        if (strstr(line, "MSR Registers")) {
            st->msrs = idx >= 0 ? cpu_by_index(d, idx) : GLOBAL_CPU;
            st->cur = NO_CPU;
            return 0;
        }
        if (idx >= 0)
            return start_cpu(d, st, idx);
        st->cur = st->msrs = NO_CPU;
        return 0;
    }
    if (!strncmp(line, "CPUID Registers (CPU #", 22))
        return start_cpu(d, st, header_cpu(line));
    if (parse_cpuid(line, &leaf, r, &tagged, &sub)) {
        if (st->cur == NO_CPU || (leaf == 0 && (!tagged || sub == 0) && find_leaf(at(d, st->cur), 0, 0)))
            if (start_cpu(d, st, -1))
                return -1;
        return add_leaf(at(d, st->cur), leaf, tagged, sub, r);
    }
    if (parse_msr(line, &msr, &val) && st->msrs != NO_CPU)
        return add_msr(at(d, st->msrs), msr, val);
    return 0;
}

int cpuid_dump_load(const char *path, struct cpuid_dump *d, char *err, size_t errlen)
{
    char line[512];
    struct pstate st = {NO_CPU, NO_CPU};
    memset(d, 0, sizeof(*d));
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open", path);
        return -1;
    }
    while (fgets(line, sizeof line, f)) {
        if (parse_line(d, line, &st)) {
            fclose(f);
            snprintf(err, errlen, "%s: out of memory", path);
            cpuid_dump_free(d);
            return -1;
        }
    }
    fclose(f);
    /* Drop CPUs that got a header but no CPUID line. */
    size_t k = 0;
    for (size_t i = 0; i < d->ncpus; i++) {
        if (d->cpus[i].nleaves)
            d->cpus[k++] = d->cpus[i];
        else {
            free(d->cpus[i].leaves);
            free(d->cpus[i].msrs);
        }
    }
    d->ncpus = k;
    if (!d->ncpus) {
        snprintf(err, errlen, "%s: no \"CPUID LLLLLLLL: EAX-EBX-ECX-EDX\" line", path);
        cpuid_dump_free(d);
        return -1;
    }
    return 0;
}

void cpuid_dump_free(struct cpuid_dump *d)
{
    for (size_t i = 0; i < d->ncpus; i++) {
        free(d->cpus[i].leaves);
        free(d->cpus[i].msrs);
    }
    free(d->cpus);
    free(d->global.leaves);
    free(d->global.msrs);
    memset(d, 0, sizeof(*d));
}

/* Leaves whose output depends on ECX (SDM Vol. 2A CPUID; AMD APM for 8000001DH). */
static bool has_subleaves(uint32_t leaf)
{
    switch (leaf) {
    case 0x4: case 0x7: case 0xB: case 0xD: case 0xF: case 0x10: case 0x12: case 0x14:
    case 0x17: case 0x18: case 0x1B: case 0x1D: case 0x1E: case 0x1F: case 0x20: case 0x23:
    case 0x24: case 0x8000001D: case 0x80000020: case 0x80000026:
        return true;
    default:
        return false;
    }
}

void cpuid_dump_cpuid(const struct cpuid_dump_cpu *c, uint32_t leaf, uint32_t sub, uint32_t out[4])
{
    const struct cpuid_dump_leaf *l = find_leaf(c, leaf, sub);
    if (!l && !has_subleaves(leaf))
        l = find_leaf(c, leaf, 0);
    if (l)
        memcpy(out, l->r, sizeof(l->r));
    else
        out[0] = out[1] = out[2] = out[3] = 0;
}

bool cpuid_dump_msr(const struct cpuid_dump *d, const struct cpuid_dump_cpu *c, uint32_t msr, uint64_t *out)
{
    const struct cpuid_dump_cpu *src[2] = {c, &d->global};
    for (int s = 0; s < 2; s++)
        for (size_t i = 0; src[s] && i < src[s]->nmsrs; i++)
            if (src[s]->msrs[i].msr == msr) {
                *out = src[s]->msrs[i].val;
                return true;
            }
    return false;
}

void cpuid_replay_init(struct cpuid_replay *r, const struct cpuid_dump *d, size_t cpu)
{
    memset(r, 0, sizeof(*r));
    r->dump = d;
    r->cpu = &d->cpus[cpu];
}

static int replay_read(void *ctx, uint32_t msr, uint64_t *out)
{
    struct cpuid_replay *r = ctx;
    if (cpuid_dump_msr(r->dump, r->cpu, msr, out)) {
        r->msr_reads++;
        return DS_OK;
    }
    if (r->unknown_reads < sizeof(r->unknown) / sizeof(r->unknown[0]))
        r->unknown[r->unknown_reads] = msr;
    r->unknown_reads++;
    return DS_ERR_MSR_FAULT; /* unknown: never a made-up zero */
}

static int replay_write(void *ctx, uint32_t msr, uint64_t val)
{
    struct cpuid_replay *r = ctx;
    (void)msr;
    (void)val;
    r->writes++;
    return DS_ERR_MSR_FAULT;
}

static void replay_cpuid(void *ctx, uint32_t leaf, uint32_t sub, uint32_t out[4])
{
    struct cpuid_replay *r = ctx;
    cpuid_dump_cpuid(r->cpu, leaf, sub, out);
}

const struct ds_msr_ops cpuid_replay_ops = {replay_read, replay_write, replay_cpuid};

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Real silicon as the test oracle (issue 11): identify every logical CPU of
 * every CPUID dump in a directory (scanned at run time: a new dump is picked
 * up without code changes) through the CPUID-replay backend
 * (libds/tools/cpuid_dump.h), and check libds's answer against
 * tests/cpuid/expect.txt, a hand transcription (sources in its comments).
 *
 * Usage: test_cpuid_replay DUMP_DIR EXPECT_FILE
 * Exit: 0 pass, 1 fail, 77 skip (DUMP_DIR absent: a fresh clone without
 * ../shared; the reason is printed, ctest shows the test as skipped).
 *
 * Checks per logical CPU: ds_cpu_identify() succeeds and writes nothing;
 * the vendor and CPUID.01H:EAX signature equal the file name's (the InstLatx64
 * naming: vendor string + 7 hex digits of the signature); then against the
 * expectations: DisplayFamily_DisplayModel, DS layout, IA32_MISC_ENABLE
 * (the dump's value, or unknown -> faulted and absent, never zero),
 * IA32_PERF_CAPABILITIES (never in a dump: unknown -> absent on a PDCM part),
 * BTS/PEBS advertised, and per core type: perfmon version, GP/fixed counter
 * bitmaps and widths, Arch LBR depth; the capability report renders and
 * shows the core type. A dump without an expect.txt entry gets the
 * expectation-free checks and a "no expectations" note; an entry without its
 * dump fails (nothing may pass silently).
 */
#include <ds/ds.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cpuid_dump.h"

#define MAX_PARTS 128
#define MAX_TYPES 4

struct exp_type {
    char name[8];
    unsigned cpus, perfmon, gpw, fixw, archlbr;
    unsigned long gp, fixed;
    unsigned seen;
};

struct exp_part {
    char file[160];
    char vendor[16], dfdm[8];
    unsigned cpus, layout;
    bool misc_known;
    unsigned long long misc;
    int bts, pebs;
    int lbr;           /* legacy LBR stack depth of the model-table row; 0 = not checked (arch, AMD) */
    struct exp_type types[MAX_TYPES];
    unsigned ntypes;
    bool found;
};

static struct exp_part parts[MAX_PARTS];
static unsigned nparts;
static unsigned failures, checks;

static void fail(const char *fmt, ...)
{
    va_list ap;
    failures++;
    printf("FAIL: ");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
}

#define EXPECT(cond, ...) do { checks++; if (!(cond)) fail(__VA_ARGS__); } while (0)

static int parse_type(struct exp_part *p, char *rest, unsigned line)
{
    if (p->ntypes == MAX_TYPES)
        return -1;
    struct exp_type *t = &p->types[p->ntypes++];
    memset(t, 0, sizeof(*t));
    char *tok = strtok(rest, " \t");
    if (!tok || strlen(tok) >= sizeof(t->name))
        return -1;
    strcpy(t->name, tok);
    unsigned have = 0;
    while ((tok = strtok(NULL, " \t"))) {
        char *eq = strchr(tok, '=');
        if (!eq)
            return -1;
        *eq++ = '\0';
        unsigned long v = strtoul(eq, NULL, 0);
        if (!strcmp(tok, "cpus")) t->cpus = (unsigned)v, have |= 1;
        else if (!strcmp(tok, "perfmon")) t->perfmon = (unsigned)v, have |= 2;
        else if (!strcmp(tok, "gp")) t->gp = v, have |= 4;
        else if (!strcmp(tok, "gpw")) t->gpw = (unsigned)v, have |= 8;
        else if (!strcmp(tok, "fixed")) t->fixed = v, have |= 16;
        else if (!strcmp(tok, "fixw")) t->fixw = (unsigned)v, have |= 32;
        else if (!strcmp(tok, "archlbr")) t->archlbr = (unsigned)v, have |= 64;
        else
            return -1;
    }
    if (have != 127)
        fprintf(stderr, "expect.txt:%u: a type line needs cpus perfmon gp gpw fixed fixw archlbr\n", line);
    return have == 127 ? 0 : -1;
}

static int load_expect(const char *path)
{
    char buf[512];
    unsigned line = 0;
    struct exp_part *p = NULL;
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
        return -1;
    }
    while (fgets(buf, sizeof buf, f)) {
        line++;
        buf[strcspn(buf, "\r\n")] = '\0';
        char *key = strtok(buf, " \t");
        if (!key || key[0] == '#')
            continue;
        char *val = strtok(NULL, "");
        bool ok = val != NULL;
        if (!strcmp(key, "dump")) {
            if (nparts == MAX_PARTS || !ok || strlen(val) >= sizeof(p->file))
                ok = false;
            else {
                p = &parts[nparts++];
                memset(p, 0, sizeof(*p));
                p->bts = p->pebs = -1;
                strcpy(p->file, val);
            }
        } else if (!p || !ok) {
            ok = false;
        } else if (!strcmp(key, "vendor")) {
            ok = strlen(val) < sizeof(p->vendor) && strcpy(p->vendor, val);
        } else if (!strcmp(key, "dfdm")) {
            ok = strlen(val) < sizeof(p->dfdm) && strcpy(p->dfdm, val);
        } else if (!strcmp(key, "cpus")) {
            p->cpus = (unsigned)strtoul(val, NULL, 0);
        } else if (!strcmp(key, "layout")) {
            p->layout = (unsigned)strtoul(val, NULL, 0);
        } else if (!strcmp(key, "misc_enable")) {
            p->misc_known = strcmp(val, "unknown") != 0;
            p->misc = strtoull(val, NULL, 0);
        } else if (!strcmp(key, "lbr")) {
            p->lbr = !strcmp(val, "arch") || !strcmp(val, "none") ? 0 : atoi(val);
            ok = p->lbr > 0 || !strcmp(val, "arch") || !strcmp(val, "none");
        } else if (!strcmp(key, "bts")) {
            p->bts = atoi(val);
        } else if (!strcmp(key, "pebs")) {
            p->pebs = atoi(val);
        } else if (!strcmp(key, "type")) {
            ok = parse_type(p, val, line) == 0;
        } else {
            ok = false;
        }
        if (!ok) {
            fprintf(stderr, "%s:%u: bad line\n", path, line);
            fclose(f);
            return -1;
        }
    }
    fclose(f);
    return 0;
}

static struct exp_part *find_part(const char *file)
{
    for (unsigned i = 0; i < nparts; i++)
        if (!strcmp(parts[i].file, file))
            return &parts[i];
    return NULL;
}

static const char *type_name(const struct ds_caps *c)
{
    if (!c->has_leaf_1a)
        return "none";
    return c->core_type == DS_CORE_TYPE_CORE ? "core" : c->core_type == DS_CORE_TYPE_ATOM ? "atom" : "other";
}

/* Checks that need no expectation: the file name says vendor and signature. */
static void check_name(const char *file, unsigned i, const struct ds_cpu *cpu, const struct cpuid_replay *r)
{
    const struct ds_caps *c = &cpu->caps;
    char sig[8];
    EXPECT(strncmp(file, c->vendor_str, 12) == 0, "%s cpu %u: vendor \"%s\" is not the file name's", file, i,
           c->vendor_str);
    if (strlen(file) > 19) {
        memcpy(sig, file + 12, 7);
        sig[7] = '\0';
        EXPECT(strtoul(sig, NULL, 16) == c->signature, "%s cpu %u: CPUID.01H:EAX 0x%X, file name says 0x%s", file,
               i, c->signature, sig);
    }
    EXPECT(r->writes == 0, "%s cpu %u: identification wrote %u MSRs", file, i, r->writes);
    bool intel = c->vendor == DS_VENDOR_INTEL;
    EXPECT(intel || (r->msr_reads + r->unknown_reads) == 0, "%s cpu %u: MSR read on a non-Intel CPU", file, i);
    /* not in a real dump: unknown, so absent, never zero; a synthetic fixture may
     * list 345H (tests/cpuid/fixtures): then exactly that value */
    uint64_t pc = 0;
    bool listed = cpuid_dump_msr(r->dump, r->cpu, 0x345, &pc);
    if (intel && c->pdcm && !listed)
        EXPECT(!c->has_perf_caps && c->perf_caps_err == DS_ERR_MSR_FAULT, "%s cpu %u: PERF_CAPABILITIES not unknown",
               file, i);
    if (intel && c->pdcm && listed)
        EXPECT(c->has_perf_caps && c->perf_caps == pc, "%s cpu %u: PERF_CAPABILITIES 0x%llx, dump lists 0x%llx", file,
               i, (unsigned long long)c->perf_caps, (unsigned long long)pc);
    static char rep[8192];
    EXPECT(ds_caps_format(c, rep, sizeof rep) == DS_OK, "%s cpu %u: capability report", file, i);
    if (c->has_leaf_1a) {
        char want[32];
        snprintf(want, sizeof want, "core_type: %s (", type_name(c));
        EXPECT(strstr(rep, want) != NULL, "%s cpu %u: report lacks \"%s\"", file, i, want);
    }
}

static void check_cpu(struct exp_part *p, unsigned i, const struct ds_cpu *cpu, const struct cpuid_dump *d)
{
    const struct ds_caps *c = &cpu->caps;
    char dfdm[16];
    enum ds_layout lay;
    snprintf(dfdm, sizeof dfdm, "%02X_%02XH", (unsigned)c->display_family & 0xFFu, c->display_model);
    EXPECT(!strcmp(p->vendor, c->vendor_str), "%s cpu %u: vendor %s, want %s", p->file, i, c->vendor_str, p->vendor);
    EXPECT(!strcmp(p->dfdm, dfdm), "%s cpu %u: DisplayFamily_DisplayModel %s, want %s", p->file, i, dfdm, p->dfdm);
    EXPECT(ds_area_layout(cpu, &lay) == DS_OK && (lay == DS_LAYOUT_64 ? 64u : 32u) == p->layout,
           "%s cpu %u: DS layout, want %u-bit", p->file, i, p->layout);
    if (p->misc_known)
        EXPECT(c->has_misc_enable && c->misc_enable == p->misc, "%s cpu %u: MISC_ENABLE 0x%llx, want 0x%llx", p->file,
               i, (unsigned long long)c->misc_enable, p->misc);
    else if (c->vendor == DS_VENDOR_INTEL)
        EXPECT(!c->has_misc_enable && c->misc_enable_err == DS_ERR_MSR_FAULT,
               "%s cpu %u: MISC_ENABLE unknown in the dump must be absent (faulted)", p->file, i);
    EXPECT(p->bts < 0 || c->bts_advertised == (p->bts == 1), "%s cpu %u: bts advertised %d", p->file, i,
           c->bts_advertised);
    EXPECT(p->pebs < 0 || c->pebs_advertised == (p->pebs == 1), "%s cpu %u: pebs advertised %d", p->file, i,
           c->pebs_advertised);
    if (p->lbr) { /* legacy LBR: the DisplayFamily_DisplayModel row (SDM Table 17-4) */
        const struct ds_lbr_model *m = NULL;
        int e = ds_lbr_lookup(c->display_family, c->display_model, &m);
        EXPECT(!c->arch_lbr && e == DS_OK && !(m->flags & DS_LBR_F_ARCH) && m->depth == p->lbr,
               "%s cpu %u: LBR row %s depth %u, want a legacy row of %d entries", p->file, i, ds_errname(e),
               m ? m->depth : 0, p->lbr);
    }
    struct exp_type *t = NULL;
    for (unsigned k = 0; k < p->ntypes; k++)
        if (!strcmp(p->types[k].name, type_name(c)))
            t = &p->types[k];
    EXPECT(t != NULL, "%s cpu %u: core type %s not expected", p->file, i, type_name(c));
    if (!t)
        return;
    t->seen++;
    EXPECT(c->perfmon_version == t->perfmon, "%s cpu %u (%s): perfmon v%u, want v%u", p->file, i, t->name,
           c->perfmon_version, t->perfmon);
    EXPECT(c->gp_mask == t->gp && c->gp_width == t->gpw, "%s cpu %u (%s): GP 0x%X x %u bits, want 0x%lX x %u",
           p->file, i, t->name, c->gp_mask, c->gp_width, t->gp, t->gpw);
    EXPECT(c->fixed_mask == t->fixed && c->fixed_width == t->fixw,
           "%s cpu %u (%s): fixed 0x%X x %u bits, want 0x%lX x %u", p->file, i, t->name, c->fixed_mask,
           c->fixed_width, t->fixed, t->fixw);
    EXPECT(c->arch_lbr == (t->archlbr != 0) && c->arch_lbr_depth == t->archlbr,
           "%s cpu %u (%s): Arch LBR %d depth %u, want %u", p->file, i, t->name, c->arch_lbr, c->arch_lbr_depth,
           t->archlbr);
    (void)d;
}

static void run_dump(const char *dir, const char *file)
{
    char path[4096], err[512];
    struct cpuid_dump d;
    snprintf(path, sizeof path, "%s/%s", dir, file);
    if (cpuid_dump_load(path, &d, err, sizeof err)) {
        fail("%s", err);
        return;
    }
    struct exp_part *p = find_part(file);
    unsigned before = failures;
    for (size_t i = 0; i < d.ncpus; i++) {
        struct cpuid_replay r;
        struct ds_cpu cpu;
        uint32_t ext[4];
        cpuid_replay_init(&r, &d, i);
        EXPECT(ds_cpu_init(&cpu, &cpuid_replay_ops, &r) == DS_OK, "%s cpu %zu: init", file, i);
        cpuid_dump_cpuid(&d.cpus[i], 0x80000001u, 0, ext); /* IA-32e iff CPUID 80000001H:EDX.LM */
        ds_cpu_set_ia32e(&cpu, (ext[3] >> 29) & 1);
        int e = ds_cpu_identify(&cpu);
        EXPECT(e == DS_OK && cpu.identified, "%s cpu %zu: ds_cpu_identify: %s", file, i, ds_errname(e));
        check_name(file, (unsigned)i, &cpu, &r);
        if (p)
            check_cpu(p, (unsigned)i, &cpu, &d);
    }
    if (p) {
        p->found = true;
        EXPECT(d.ncpus == p->cpus, "%s: %zu logical CPUs, want %u", file, d.ncpus, p->cpus);
        for (unsigned k = 0; k < p->ntypes; k++)
            EXPECT(p->types[k].seen == p->types[k].cpus, "%s: %u CPUs of type %s, want %u", file,
                   p->types[k].seen, p->types[k].name, p->types[k].cpus);
    }
    printf("%s %s: %zu logical CPUs%s\n", failures == before ? "ok" : "not ok", file, d.ncpus,
           p ? "" : " (no expect.txt entry: vendor/signature/no-error checks only)");
    cpuid_dump_free(&d);
}

static int cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_cpuid_replay DUMP_DIR EXPECT_FILE\n");
        return 2;
    }
    DIR *dir = opendir(argv[1]);
    if (!dir) {
        printf("SKIP: CPUID dump directory %s: %s (a clone without ../shared/cpuid; configure with "
               "-DLIBDS_CPUID_DUMP_DIR=DIR to run this test)\n", argv[1], strerror(errno));
        return 77;
    }
    if (load_expect(argv[2])) {
        closedir(dir);
        return 1;
    }
    char *names[1024];
    size_t n = 0;
    struct dirent *de;
    while ((de = readdir(dir)) && n < 1024) {
        size_t l = strlen(de->d_name);
        if (l > 10 && !strcmp(de->d_name + l - 10, "_CPUID.txt") && de->d_name[0] != '.')
            names[n++] = strdup(de->d_name);
        else if (l > 4 && !strcmp(de->d_name + l - 4, ".txt"))
            printf("# ignored %s: not named VENDORsssssss_NAME_CPUID.txt like the InstLatx64 dumps\n", de->d_name);
    }
    closedir(dir);
    qsort(names, n, sizeof names[0], cmp);
    EXPECT(n > 0, "%s holds no *_CPUID.txt dump", argv[1]);
    for (size_t i = 0; i < n; i++) {
        run_dump(argv[1], names[i]);
        free(names[i]);
    }
    for (unsigned i = 0; i < nparts; i++)
        EXPECT(parts[i].found, "expect.txt names %s, which is not in %s", parts[i].file, argv[1]);
    printf("%zu dumps, %u checks, %u failed\n", n, checks, failures);
    return failures ? 1 : 0;
}

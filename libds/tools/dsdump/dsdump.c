/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dsdump: read a libds test-kernel serial log (DSLOG format, docs/records.md),
 * check and decode every record, symbolize IPs against the kernel ELF (libelf),
 * and print a perf-report-like sample table, the BTS trace, LBR stacks, lost
 * record counts; or JSON / CSV; optionally an SVG hot-spot chart.
 */
#include "dslog.h"
#include "perfdata.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_ERRORS_SHOWN 50

/* ---------- symbols (libelf) ---------- */

struct sym {
    uint64_t addr, size;
    char *name;
    int func; /* STT_FUNC */
};

struct symtab {
    struct sym *v;
    size_t n;
};

static int sym_cmp(const void *a, const void *b)
{
    const struct sym *x = a, *y = b;
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    if (x->func != y->func) /* functions first among equals */
        return y->func - x->func;
    return (x->size < y->size) - (x->size > y->size);
}

/* Opens path as an ELF file for reading. Returns the handle (*fd set), or NULL with err set. */
static Elf *open_elf(const char *path, int *fd, char *err, size_t errsz)
{
    if (elf_version(EV_CURRENT) == EV_NONE) {
        snprintf(err, errsz, "libelf: %s", elf_errmsg(-1));
        return NULL;
    }
    *fd = open(path, O_RDONLY);
    if (*fd < 0) {
        snprintf(err, errsz, "%s: %s", path, strerror(errno));
        return NULL;
    }
    Elf *e = elf_begin(*fd, ELF_C_READ, NULL);
    if (!e || elf_kind(e) != ELF_K_ELF) {
        snprintf(err, errsz, "%s: not an ELF file (%s)", path, elf_errmsg(-1));
        if (e)
            elf_end(e);
        close(*fd);
        return NULL;
    }
    return e;
}

/* The symbol table section: the full .symtab, else .dynsym; NULL if neither. */
static Elf_Scn *pick_symtab(Elf *e, GElf_Shdr *picksh)
{
    Elf_Scn *scn = NULL, *pick = NULL;
    GElf_Shdr sh;
    memset(picksh, 0, sizeof *picksh);
    while ((scn = elf_nextscn(e, scn))) {
        if (!gelf_getshdr(scn, &sh))
            continue;
        if (sh.sh_type == SHT_SYMTAB || (sh.sh_type == SHT_DYNSYM && !pick)) {
            pick = scn;
            *picksh = sh;
        }
    }
    return pick;
}

/* Copies the named, defined function / object / no-type symbols of the table
 * section pick into st (local .L and $ mapping labels skipped), sorted. */
static void collect_syms(Elf *e, Elf_Scn *pick, const GElf_Shdr *picksh, struct symtab *st)
{
    Elf_Data *d = elf_getdata(pick, NULL);
    size_t cnt = picksh->sh_entsize ? picksh->sh_size / picksh->sh_entsize : 0;
    st->v = calloc(cnt ? cnt : 1, sizeof *st->v);
    for (size_t i = 0; d && i < cnt; i++) {
        GElf_Sym s;
        if (!gelf_getsym(d, (int)i, &s))
            continue;
        int type = GELF_ST_TYPE(s.st_info);
        if (type != STT_FUNC && type != STT_NOTYPE && type != STT_OBJECT)
            continue;
        if (s.st_shndx == SHN_UNDEF || s.st_shndx == SHN_ABS)
            continue;
        const char *name = elf_strptr(e, picksh->sh_link, s.st_name);
        if (!name || !name[0] || name[0] == '$' || !strncmp(name, ".L", 2))
            continue;
        st->v[st->n].addr = s.st_value;
        st->v[st->n].size = s.st_size;
        st->v[st->n].func = type == STT_FUNC;
        st->v[st->n].name = strdup(name);
        st->n++;
    }
    qsort(st->v, st->n, sizeof *st->v, sym_cmp);
}

static int load_symbols(const char *path, struct symtab *st, char *err, size_t errsz)
{
    memset(st, 0, sizeof *st);
    int fd;
    Elf *e = open_elf(path, &fd, err, errsz);
    if (!e)
        return -1;
    GElf_Shdr picksh;
    Elf_Scn *pick = pick_symtab(e, &picksh);
    if (!pick) {
        snprintf(err, errsz, "%s: no symbol table (stripped?)", path);
        elf_end(e);
        close(fd);
        return -1;
    }
    collect_syms(e, pick, &picksh, st);
    elf_end(e);
    close(fd);
    return 0;
}

/* The symbol containing ip (sized), else the nearest preceding size-0 label. */
static const struct sym *sym_find(const struct symtab *st, uint64_t ip)
{
    size_t lo = 0, hi = st->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (st->v[mid].addr <= ip)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (!lo)
        return NULL;
    const struct sym *label = NULL;
    for (size_t i = lo; i-- > 0;) {
        const struct sym *s = &st->v[i];
        if (s->size && ip < s->addr + s->size)
            return s;
        if (!s->size && !label)
            label = s;
        if (lo - i > 64)
            break;
    }
    /* A label only counts if no sized symbol ends between it and ip. */
    if (label) {
        for (size_t i = lo; i-- > 0 && st->v[i].addr >= label->addr;)
            if (st->v[i].size && st->v[i].addr + st->v[i].size <= ip && st->v[i].addr >= label->addr)
                return NULL;
    }
    return label;
}

static void symbolize(const struct symtab *st, uint64_t ip, char *buf, size_t n, char *name_only, size_t nn)
{
    const struct sym *s = st ? sym_find(st, ip) : NULL;
    if (s) {
        snprintf(buf, n, "%s+0x%" PRIx64, s->name, ip - s->addr);
        if (name_only)
            snprintf(name_only, nn, "%s", s->name);
    } else {
        snprintf(buf, n, "0x%" PRIx64, ip);
        if (name_only)
            snprintf(name_only, nn, "%s", st ? "[unknown]" : buf);
    }
}

/* ---------- storage ---------- */

struct item {
    struct dslog_rec r;
    unsigned long line;
    unsigned log; /* index of the HDR it belongs to */
};

struct items {
    struct item *v;
    size_t n, cap;
};

static struct item *push(struct items *it)
{
    if (it->n == it->cap) {
        it->cap = it->cap ? it->cap * 2 : 256;
        it->v = realloc(it->v, it->cap * sizeof *it->v);
        if (!it->v) {
            fprintf(stderr, "dsdump: out of memory\n");
            exit(2);
        }
    }
    return &it->v[it->n++];
}

struct err {
    unsigned long line;
    char msg[512];
};

struct state {
    struct items items;
    struct err *errs;
    size_t nerr, caperr;
    const char *input;
    const struct symtab *syms;
};

static void add_error(struct state *S, unsigned long line, const char *msg)
{
    if (S->nerr == S->caperr) {
        S->caperr = S->caperr ? 2 * S->caperr : 16;
        S->errs = realloc(S->errs, S->caperr * sizeof *S->errs);
    }
    S->errs[S->nerr].line = line;
    snprintf(S->errs[S->nerr].msg, sizeof S->errs[S->nerr].msg, "%s", msg);
    S->nerr++;
    if (S->nerr <= MAX_ERRORS_SHOWN) {
        if (line)
            fprintf(stderr, "dsdump: %s:%lu: error: %s\n", S->input, line, msg);
        else
            fprintf(stderr, "dsdump: %s: error: %s\n", S->input, msg);
    } else if (S->nerr == MAX_ERRORS_SHOWN + 1) {
        fprintf(stderr, "dsdump: %s: further errors not shown\n", S->input);
    }
}

/* ---------- aggregation ---------- */

struct symcount {
    char name[256];
    uint64_t n;
};

struct run {
    unsigned log;
    char name[DSLOG_NAME_MAX + 1];
    const struct dslog_rec *summary; /* RUN line, or NULL */
    uint64_t pebs, bts, lbr;
    struct symcount *syms;
    size_t nsyms, capsyms;
    size_t first, last; /* BTS/LBR items of this run, chained through runs.next; NONE if none */
    uint64_t cntr;      /* PEBS records with the fmt 6 counters group */
    const struct dslog_rec *cntr_first, *cntr_last;
};

#define NONE ((size_t)-1)

/* Open-addressing map from (tag, string) to an index, so that aggregation is
 * linear in the number of records whatever the number of runs and symbols. */
struct hent {
    uint64_t h;
    size_t tag, val;
    char *key; /* owned; NULL: slot free */
};

struct hmap {
    struct hent *v;
    size_t cap, n;
};

static uint64_t hmap_hash(size_t tag, const char *key)
{
    uint64_t h = 0xcbf29ce484222325ull ^ (uint64_t)tag;
    for (; *key; key++)
        h = (h ^ (unsigned char)*key) * 0x100000001b3ull;
    return h;
}

static void oom(void)
{
    fprintf(stderr, "dsdump: out of memory\n");
    exit(2);
}

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n);
    if (!p)
        oom();
    return p;
}

/* The value slot for (tag, key); a new entry gets value NONE. */
static size_t *hmap_get(struct hmap *m, size_t tag, const char *key)
{
    if (2 * (m->n + 1) > m->cap) {
        struct hmap g = {.cap = m->cap ? 2 * m->cap : 64};
        g.v = xrealloc(NULL, g.cap * sizeof *g.v);
        memset(g.v, 0, g.cap * sizeof *g.v);
        for (size_t i = 0; i < m->cap; i++) {
            if (!m->v[i].key)
                continue;
            size_t j = m->v[i].h & (g.cap - 1);
            while (g.v[j].key)
                j = (j + 1) & (g.cap - 1);
            g.v[j] = m->v[i];
        }
        free(m->v);
        g.n = m->n;
        *m = g;
    }
    uint64_t h = hmap_hash(tag, key);
    size_t j = h & (m->cap - 1);
    for (; m->v[j].key; j = (j + 1) & (m->cap - 1))
        if (m->v[j].h == h && m->v[j].tag == tag && !strcmp(m->v[j].key, key))
            return &m->v[j].val;
    m->v[j] = (struct hent){.h = h, .tag = tag, .val = NONE, .key = strdup(key)};
    if (!m->v[j].key)
        oom();
    m->n++;
    return &m->v[j].val;
}

static void hmap_free(struct hmap *m)
{
    for (size_t i = 0; i < m->cap; i++)
        free(m->v[i].key);
    free(m->v);
}

struct runs {
    struct run *v;
    size_t n, cap;
    size_t *next;             /* per item: next BTS/LBR item of the same run, or NONE */
    size_t *run_of;           /* per item: its run (PEBS/BTS/LBR/LOST lines), or NONE */
    const struct dslog_rec **hdr; /* per log: its HDR line (NULL if none) */
    unsigned nlogs;
    struct hmap byname, bysym; /* (log, run name) -> run; (run, symbol) -> symcount */
};

static struct run *run_get(struct runs *R, unsigned log, const char *name)
{
    size_t *slot = hmap_get(&R->byname, log, name);
    if (*slot != NONE)
        return &R->v[*slot];
    if (R->n == R->cap) {
        R->cap = R->cap ? 2 * R->cap : 64;
        R->v = xrealloc(R->v, R->cap * sizeof *R->v);
    }
    *slot = R->n;
    struct run *r = &R->v[R->n++];
    memset(r, 0, sizeof *r);
    r->log = log;
    r->first = r->last = NONE;
    snprintf(r->name, sizeof r->name, "%s", name);
    return r;
}

static int symcount_cmp(const void *a, const void *b)
{
    const struct symcount *x = a, *y = b;
    if (x->n != y->n)
        return x->n < y->n ? 1 : -1;
    return strcmp(x->name, y->name);
}

static uint64_t sample_ip(const struct dslog_rec *r)
{
    /* EventingIP (fmt >= 2) is the instruction that caused the event; RIP may be the next one. */
    return dslog_has(r, K_EVENTING_IP) ? r->v[K_EVENTING_IP] : r->v[K_IP];
}

static void count_symbol(struct runs *R, struct run *ru, const char *name)
{
    size_t *slot = hmap_get(&R->bysym, (size_t)(ru - R->v), name);
    if (*slot == NONE) {
        if (ru->nsyms == ru->capsyms) {
            ru->capsyms = ru->capsyms ? 2 * ru->capsyms : 8;
            ru->syms = xrealloc(ru->syms, ru->capsyms * sizeof *ru->syms);
        }
        *slot = ru->nsyms++;
        snprintf(ru->syms[*slot].name, sizeof ru->syms[*slot].name, "%s", name);
        ru->syms[*slot].n = 0;
    }
    ru->syms[*slot].n++;
}

/* One pass over the records: runs, per-run symbol counts, per-run chains of
 * BTS/LBR items (so the listings below are linear too), profiles per log. */
static void aggregate(struct state *S, struct runs *R)
{
    R->next = xrealloc(NULL, (S->items.n + 1) * sizeof *R->next);
    R->run_of = xrealloc(NULL, (S->items.n + 1) * sizeof *R->run_of);
    for (size_t i = 0; i < S->items.n; i++) {
        const struct item *it = &S->items.v[i];
        const struct dslog_rec *r = &it->r;
        R->next[i] = R->run_of[i] = NONE;
        if (r->type == DSLOG_HDR) {
            R->hdr = xrealloc(R->hdr, (it->log + 1) * sizeof *R->hdr);
            for (unsigned l = R->nlogs; l <= it->log; l++)
                R->hdr[l] = NULL;
            R->hdr[it->log] = r;
            R->nlogs = R->nlogs > it->log + 1 ? R->nlogs : it->log + 1;
            continue;
        }
        if (r->type == DSLOG_LOST) { /* the run, if it has records; LOST creates none */
            R->run_of[i] = *hmap_get(&R->byname, it->log, r->s[K_RUN]);
            continue;
        }
        if (r->type == DSLOG_RUN) {
            run_get(R, it->log, r->s[K_NAME])->summary = r;
            continue;
        }
        if (r->type != DSLOG_PEBS && r->type != DSLOG_BTS && r->type != DSLOG_LBR)
            continue;
        struct run *ru = run_get(R, it->log, r->s[K_RUN]);
        R->run_of[i] = (size_t)(ru - R->v);
        if (r->type == DSLOG_PEBS) {
            ru->pebs++;
            if (r->v[K_FMT] == 6 && (r->v[K_HDR] & DSLOG_ADAPTIVE_CNTR_GROUP)) {
                ru->cntr++;
                ru->cntr_first = ru->cntr_first ? ru->cntr_first : r;
                ru->cntr_last = r;
            }
            char full[300], name[256];
            symbolize(S->syms, sample_ip(r), full, sizeof full, name, sizeof name);
            count_symbol(R, ru, name);
            continue;
        }
        r->type == DSLOG_BTS ? ru->bts++ : ru->lbr++;
        if (ru->last == NONE)
            ru->first = i;
        else
            R->next[ru->last] = i;
        ru->last = i;
    }
    for (size_t i = 0; i < R->n; i++)
        if (R->v[i].nsyms)
            qsort(R->v[i].syms, R->v[i].nsyms, sizeof *R->v[i].syms, symcount_cmp);
}

static void runs_free(struct runs *R)
{
    for (size_t i = 0; i < R->n; i++)
        free(R->v[i].syms);
    free(R->v);
    free(R->next);
    free(R->run_of);
    free(R->hdr);
    hmap_free(&R->byname);
    hmap_free(&R->bysym);
}

static const char *fmt_name(uint64_t f, char *b)
{
    if (f == DSLOG_FMT_NB32)
        return "nb32";
    if (f == DSLOG_FMT_NB64)
        return "nb64";
    if (f == DSLOG_FMT_ARCH)
        return "arch";
    sprintf(b, "%u", (unsigned)f);
    return b;
}

/* With several logs in one input (one HDR..END per model profile), a run is
 * named "<log>:<profile>/<run>". */
static void run_label(const struct runs *R, unsigned log, const char *name, char *b, size_t n)
{
    if (R->nlogs > 1)
        snprintf(b, n, "%u:%s/%s", log, log < R->nlogs && R->hdr[log] ? R->hdr[log]->s[K_PROFILE] : "?", name);
    else
        snprintf(b, n, "%s", name);
}

/* ---------- CPUs (issue 13) ---------- */

/* Every record of a log belongs to the CPU of its HDR cpu= (docs/records.md,
 * version rule); a log without cpu= is grouped as CPU_NONE. */
#define CPU_NONE (-1LL)

static long long log_cpu(const struct runs *R, unsigned log)
{
    const struct dslog_rec *h = log < R->nlogs ? R->hdr[log] : NULL;
    return h && dslog_has(h, K_CPU) ? (long long)h->v[K_CPU] : CPU_NONE;
}

static int ll_cmp(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

static int lost_kind(const char *kind)
{
    return !strcmp(kind, "pebs") ? 0 : !strcmp(kind, "bts") ? 1 : 2;
}

struct cpustat {
    unsigned logs;
    uint64_t runs, pebs, bts, lbr, lost[3]; /* lost: pebs, bts, lbr */
};

/* A list of indexes (runs, LOST items or logs) in input order. */
struct idxs {
    size_t *v, n;
};

/* The input's logs grouped by CPU: n distinct CPUs (ascending, CPU_NONE
 * first); for group g its runs, LOST items and logs in input order, and
 * its sums. Built in one pass (counting sort), so the report stays linear
 * in the records whatever the number of CPUs. */
struct cpugroups {
    long long *cpu;
    size_t n;
    struct idxs *runs, *lost, *logs;
    struct cpustat *st;
    size_t *store; /* the index arrays of all groups */
    size_t *rank;  /* per log: its group */
    long *snaps;   /* per log (+1): LBR snapshots shown (print_lbr) */
};

static size_t cpu_rank(const struct cpugroups *G, long long c)
{
    const long long *p = bsearch(&c, G->cpu, G->n, sizeof *G->cpu, ll_cmp);
    return p ? (size_t)(p - G->cpu) : 0;
}

/* Put index i (of rank rk) at the end of group rk's list, sized by a first counting pass. */
static void group_put(struct idxs *l, size_t rk, size_t i, int counting)
{
    if (counting)
        l[rk].n++;
    else
        l[rk].v[l[rk].n++] = i;
}

static size_t log_rank(const struct runs *R, const struct cpugroups *G, unsigned log)
{
    return log < R->nlogs ? G->rank[log] : 0;
}

static void groups_fill(const struct state *S, const struct runs *R, struct cpugroups *G, int counting)
{
    for (unsigned l = 0; l < R->nlogs; l++)
        group_put(G->logs, G->rank[l], l, counting);
    for (size_t i = 0; i < R->n; i++)
        group_put(G->runs, log_rank(R, G, R->v[i].log), i, counting);
    for (size_t j = 0; j < S->items.n; j++)
        if (S->items.v[j].r.type == DSLOG_LOST)
            group_put(G->lost, log_rank(R, G, S->items.v[j].log), j, counting);
}

static void groups_build(const struct state *S, const struct runs *R, struct cpugroups *G)
{
    memset(G, 0, sizeof *G);
    G->cpu = xrealloc(NULL, (R->nlogs + 1) * sizeof *G->cpu);
    for (unsigned l = 0; l < R->nlogs; l++)
        G->cpu[l] = log_cpu(R, l);
    qsort(G->cpu, R->nlogs, sizeof *G->cpu, ll_cmp);
    for (unsigned l = 0; l < R->nlogs; l++)
        if (!G->n || G->cpu[G->n - 1] != G->cpu[l])
            G->cpu[G->n++] = G->cpu[l];
    if (!G->n) /* no HDR: one group of everything */
        G->cpu[G->n++] = CPU_NONE;
    G->rank = xrealloc(NULL, (R->nlogs + 1) * sizeof *G->rank);
    G->snaps = xrealloc(NULL, (R->nlogs + 1) * sizeof *G->snaps);
    memset(G->snaps, 0, (R->nlogs + 1) * sizeof *G->snaps);
    for (unsigned l = 0; l < R->nlogs; l++)
        G->rank[l] = cpu_rank(G, log_cpu(R, l));
    size_t k = G->n + 1;
    G->runs = xrealloc(NULL, 3 * k * sizeof *G->runs);
    memset(G->runs, 0, 3 * k * sizeof *G->runs);
    G->lost = G->runs + k;
    G->logs = G->lost + k;
    groups_fill(S, R, G, 1);
    size_t total = 0;
    for (size_t g = 0; g < 3 * k; g++)
        total += G->runs[g].n;
    G->store = xrealloc(NULL, (total + 1) * sizeof *G->store);
    for (size_t g = 0, at = 0; g < 3 * k; g++) {
        G->runs[g].v = G->store + at;
        at += G->runs[g].n;
        G->runs[g].n = 0;
    }
    groups_fill(S, R, G, 0);
    G->st = xrealloc(NULL, k * sizeof *G->st);
    memset(G->st, 0, k * sizeof *G->st);
    for (size_t g = 0; g < G->n; g++) {
        struct cpustat *st = &G->st[g];
        st->logs = (unsigned)G->logs[g].n;
        st->runs = G->runs[g].n;
        for (size_t i = 0; i < G->runs[g].n; i++) {
            const struct run *ru = &R->v[G->runs[g].v[i]];
            st->pebs += ru->pebs;
            st->bts += ru->bts;
            st->lbr += ru->lbr;
        }
        for (size_t i = 0; i < G->lost[g].n; i++) {
            const struct dslog_rec *r = &S->items.v[G->lost[g].v[i]].r;
            st->lost[lost_kind(r->s[K_KIND])] += r->v[K_COUNT];
        }
    }
}

static void groups_free(struct cpugroups *G)
{
    free(G->cpu);
    free(G->runs);
    free(G->store);
    free(G->st);
    free(G->rank);
    free(G->snaps);
}

/* ---------- text ---------- */

/* One counters-group snapshot: "seq N: gp0=0x.. fixed1=0x.. slots=0x.. metrics=0x..". */
static void print_cntr(FILE *f, const char *what, const struct dslog_rec *r)
{
    fprintf(f, "#   %s seq %" PRIu64 ":", what, r->v[K_SEQ]);
    for (unsigned n = 0; n < 16; n++)
        if (r->cntr_gp_mask >> n & 1)
            fprintf(f, " gp%u=0x%" PRIx64, n, r->cntr_gp[n]);
    for (unsigned n = 0; n < 8; n++)
        if (r->cntr_fixed_mask >> n & 1)
            fprintf(f, " fixed%u=0x%" PRIx64, n, r->cntr_fixed[n]);
    if (dslog_has(r, K_SLOTS))
        fprintf(f, " slots=0x%" PRIx64 " metrics=0x%" PRIx64, r->v[K_SLOTS], r->v[K_METRICS]);
    fprintf(f, "\n");
}

/* LBR snapshots of the runs in rl (of the logs in ll): at most lbr_limit
 * snapshots per log and lbr_entries entries per snapshot (negative: all);
 * snaps counts per log (R->nlogs + 1 slots, zero at first). */
static void print_lbr(const struct state *S, const struct runs *R, const struct idxs *rl, const struct idxs *ll,
                      long *snaps, long lbr_limit, long lbr_entries)
{
    for (size_t x = 0; x < rl->n; x++) {
        const struct run *ru = &R->v[rl->v[x]];
        if (!ru->lbr)
            continue;
        char lb[80];
        run_label(R, ru->log, ru->name, lb, sizeof lb);
        uint64_t cur = UINT64_MAX;
        long shown = 0;
        for (size_t j = ru->first; j != NONE; j = R->next[j]) {
            const struct dslog_rec *r = &S->items.v[j].r;
            if (r->type != DSLOG_LBR)
                continue;
            if (r->v[K_SNAP] != cur) {
                if (lbr_limit >= 0 && snaps[ru->log < R->nlogs ? ru->log : R->nlogs]++ >= lbr_limit)
                    break;
                cur = r->v[K_SNAP];
                shown = 0;
                printf("\n# LBR run %s snapshot %" PRIu64 " (%" PRIu64 " entries, newest first)\n", lb, cur,
                       r->v[K_OF]);
            }
            if (lbr_entries >= 0 && shown++ >= lbr_entries) {
                if (shown == lbr_entries + 1)
                    printf("  ... (%" PRIu64 " entries in all; --lbr-entries)\n", r->v[K_OF]);
                continue;
            }
            char a[300], b[300];
            symbolize(S->syms, r->v[K_FROM], a, sizeof a, NULL, 0);
            symbolize(S->syms, r->v[K_TO], b, sizeof b, NULL, 0);
            printf("  [%2" PRIu64 "] %s -> %s", r->v[K_IDX], a, b);
            if (dslog_has(r, K_MISPRED))
                printf("  %s", r->v[K_MISPRED] ? "mispredicted" : "predicted");
            if (dslog_has(r, K_CYCLES))
                printf("  cycles=%" PRIu64, r->v[K_CYCLES]);
            printf("\n");
        }
    }
    long total = 0;
    for (size_t x = 0; x < ll->n; x++)
        total += lbr_limit >= 0 && snaps[ll->v[x]] > lbr_limit;
    if (!R->nlogs) /* no HDR: the records count under slot nlogs */
        total += lbr_limit >= 0 && snaps[R->nlogs] > lbr_limit;
    if (total)
        printf("  ... (more LBR snapshots in %ld log(s); --lbr-limit)\n", total);
}

static void print_pebs_tables(const struct runs *R, const struct idxs *rl)
{
    for (size_t x = 0; x < rl->n; x++) {
        const struct run *ru = &R->v[rl->v[x]];
        if (!ru->pebs)
            continue;
        char lb[80];
        run_label(R, ru->log, ru->name, lb, sizeof lb);
        printf("\n# PEBS run %s: %" PRIu64 " samples", lb, ru->pebs);
        if (ru->summary)
            printf(" (kind=%s events=%" PRIu64 " period=%" PRIu64 " expected samples=%" PRIu64 ")",
                   ru->summary->s[K_KIND], ru->summary->v[K_EVENTS], ru->summary->v[K_PERIOD],
                   ru->summary->v[K_SAMPLES]);
        printf("\n# %9s %9s  %-32s %s\n", "Overhead", "Samples", "Symbol", "");
        for (size_t k = 0; k < ru->nsyms; k++) {
            double pct = 100.0 * (double)ru->syms[k].n / (double)ru->pebs;
            int bar = (int)(pct / 2.0 + 0.5);
            char bars[51];
            memset(bars, '#', (size_t)bar);
            bars[bar] = 0;
            printf("  %8.2f%% %9" PRIu64 "  %-32s %s\n", pct, ru->syms[k].n, ru->syms[k].name, bars);
        }
        if (ru->cntr) {
            printf("# counters group (PEBS format 6) in %" PRIu64 " of %" PRIu64 " records\n", ru->cntr, ru->pebs);
            print_cntr(stdout, "first", ru->cntr_first);
            if (ru->cntr > 1)
                print_cntr(stdout, "last ", ru->cntr_last);
        }
    }
}

static void print_bts(const struct state *S, const struct runs *R, const struct idxs *rl, long bts_limit)
{
    for (size_t x = 0; x < rl->n; x++) {
        const struct run *ru = &R->v[rl->v[x]];
        if (!ru->bts)
            continue;
        char lb[80];
        run_label(R, ru->log, ru->name, lb, sizeof lb);
        printf("\n# BTS run %s: %" PRIu64 " branches\n", lb, ru->bts);
        long shown = 0;
        for (size_t j = ru->first; j != NONE; j = R->next[j]) {
            const struct item *it = &S->items.v[j];
            if (it->r.type != DSLOG_BTS)
                continue;
            if (bts_limit >= 0 && shown >= bts_limit) {
                printf("  ... (%" PRIu64 " more; --limit)\n", ru->bts - (uint64_t)shown);
                break;
            }
            char a[300], b[300];
            symbolize(S->syms, it->r.v[K_FROM], a, sizeof a, NULL, 0);
            symbolize(S->syms, it->r.v[K_TO], b, sizeof b, NULL, 0);
            printf("  %6" PRIu64 "  %s -> %s%s\n", it->r.v[K_SEQ], a, b, it->r.v[K_PRED] ? "  (predicted)" : "");
            shown++;
        }
    }
}

/* The LOST lines in ll. */
static void print_lost(const struct state *S, const struct runs *R, const struct idxs *ll)
{
    for (size_t x = 0; x < ll->n; x++) {
        size_t j = ll->v[x];
        const struct dslog_rec *r = &S->items.v[j].r;
        if (!x)
            printf("\n# Lost records\n");
        char lb[80];
        run_label(R, S->items.v[j].log, r->s[K_RUN], lb, sizeof lb);
        printf("  run %-20s kind=%-4s reason=%-12s count=%" PRIu64 "\n", lb, r->s[K_KIND], r->s[K_REASON],
               r->v[K_COUNT]);
    }
}

static void print_sections(const struct state *S, const struct runs *R, const struct cpugroups *G, size_t g,
                           long bts_limit, long lbr_limit, long lbr_entries)
{
    print_pebs_tables(R, &G->runs[g]);
    print_bts(S, R, &G->runs[g], bts_limit);
    print_lbr(S, R, &G->runs[g], &G->logs[g], G->snaps, lbr_limit, lbr_entries);
    print_lost(S, R, &G->lost[g]);
}

static void cpu_name(long long cpu, char *b, size_t n)
{
    if (cpu == CPU_NONE)
        snprintf(b, n, "?");
    else
        snprintf(b, n, "%lld", cpu);
}

/* With logs of several CPUs: a summary row per CPU, then one block per CPU
 * (issue 13: dsdump groups the records per CPU). */
static void print_per_cpu(const struct state *S, const struct runs *R, const struct cpugroups *G, long bts_limit,
                          long lbr_limit, long lbr_entries)
{
    printf("\n# Per CPU (HDR cpu=; ? = a log without cpu=): %zu CPUs\n", G->n);
    printf("# %5s %5s %5s %9s %9s %9s %9s %9s %9s\n", "cpu", "logs", "runs", "pebs", "bts", "lbr", "lost.pebs",
           "lost.bts", "lost.lbr");
    for (size_t g = 0; g < G->n; g++) {
        const struct cpustat *st = &G->st[g];
        char nm[24];
        cpu_name(G->cpu[g], nm, sizeof nm);
        printf("  %5s %5u %5" PRIu64 " %9" PRIu64 " %9" PRIu64 " %9" PRIu64 " %9" PRIu64 " %9" PRIu64 " %9" PRIu64
               "\n", nm, st->logs, st->runs, st->pebs, st->bts, st->lbr, st->lost[0], st->lost[1], st->lost[2]);
    }
    for (size_t g = 0; g < G->n; g++) {
        char nm[24];
        cpu_name(G->cpu[g], nm, sizeof nm);
        printf("\n## CPU %s: logs", nm);
        for (size_t x = 0; x < G->logs[g].n; x++) {
            size_t l = G->logs[g].v[x];
            printf(" %zu:%s", l, R->hdr[l] ? R->hdr[l]->s[K_PROFILE] : "?");
        }
        printf("\n");
        print_sections(S, R, G, g, bts_limit, lbr_limit, lbr_entries);
        const struct cpustat *st = &G->st[g];
        printf("\n# Lost on cpu %s: pebs=%" PRIu64 " bts=%" PRIu64 " lbr=%" PRIu64 "\n", nm, st->lost[0], st->lost[1],
               st->lost[2]);
    }
}

static void print_text(const struct state *S, const struct runs *R, const struct cpugroups *G, long bts_limit,
                       long lbr_limit, long lbr_entries)
{
    for (size_t i = 0; i < S->items.n; i++) {
        const struct dslog_rec *r = &S->items.v[i].r;
        if (r->type != DSLOG_HDR)
            continue;
        printf("DSLOG v1 log %u (line %lu): arch=%s backend=%s profile=%s kernel=%s%s%s", S->items.v[i].log,
               S->items.v[i].line, r->s[K_ARCH], r->s[K_BACKEND], r->s[K_PROFILE], r->s[K_KERNEL],
               dslog_has(r, K_WHY) ? " why=" : "", dslog_has(r, K_WHY) ? r->s[K_WHY] : "");
        if (dslog_has(r, K_CPU))
            printf(" cpu=%llu", (unsigned long long)r->v[K_CPU]);
        printf("\n");
    }
    uint64_t lost[3] = {0, 0, 0};
    for (size_t g = 0; g < G->n; g++)
        for (int k = 0; k < 3; k++)
            lost[k] += G->st[g].lost[k];
    if (G->n > 1)
        print_per_cpu(S, R, G, bts_limit, lbr_limit, lbr_entries);
    else
        print_sections(S, R, G, 0, bts_limit, lbr_limit, lbr_entries);
    printf("\n# Lost: pebs=%" PRIu64 " bts=%" PRIu64 " lbr=%" PRIu64 "\n", lost[0], lost[1], lost[2]);
    for (size_t j = 0; j < S->items.n; j++) {
        const struct dslog_rec *r = &S->items.v[j].r;
        if (r->type == DSLOG_END)
            printf("# END (line %lu): runs=%" PRIu64 " records=%" PRIu64 " kernel tests passed=%" PRIu64
                   " failed=%" PRIu64 " skipped=%" PRIu64 "\n",
                   S->items.v[j].line, r->v[K_RUNS], r->v[K_RECORDS], r->v[K_PASSED], r->v[K_FAILED], r->v[K_SKIPPED]);
    }
    if (S->nerr)
        printf("# %zu error(s) in the log; the records above are the well-formed ones\n", S->nerr);
}

/* ---------- text escaping ---------- */

/* Length of the well-formed UTF-8 sequence at s (Unicode 15, Table 3-7:
 * no overlongs, no surrogates, nothing above U+10FFFF), or 0 if s does not
 * start one. Logs come off serial cables: line noise is expected. */
static size_t utf8_len(const unsigned char *s)
{
    unsigned char c = s[0];
    unsigned char lo = 0x80, hi = 0xBF;
    size_t n;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        n = 2;
    else if (c >= 0xE0 && c <= 0xEF)
        n = 3, lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    else if (c >= 0xF0 && c <= 0xF4)
        n = 4, lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    else
        return 0;
    if (s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xBF)
            return 0;
    return n;
}

/* ---------- JSON ---------- */

/* A JSON string (RFC 8259) of s; every byte that is not part of well-formed
 * UTF-8 becomes U+FFFD, so the document stays valid whatever the log held. */
static void jstr(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        size_t n = utf8_len(p);
        if (!n) {
            fputs("\\ufffd", f);
            p++;
        } else if (*p == '"' || *p == '\\') {
            fprintf(f, "\\%c", *p++);
        } else if (*p < 0x20 || *p == 0x7F) {
            fprintf(f, "\\u%04x", *p++);
        } else {
            fwrite(p, 1, n, f);
            p += n;
        }
    }
    fputc('"', f);
}

/* The PEBS record groups as JSON members: xmm, lbr, cntr_gp / cntr_fixed. */
static void json_groups(FILE *f, const struct dslog_rec *r)
{
    if (r->have_xmm) {
        fprintf(f, ",\"xmm\":[");
        for (int i = 0; i < 16; i++)
            fprintf(f, "%s\"0x%016" PRIx64 "%016" PRIx64 "\"", i ? "," : "", r->xmm[i][1], r->xmm[i][0]);
        fprintf(f, "]");
    }
    if (r->lbr_count) {
        fprintf(f, ",\"lbr\":[");
        for (uint32_t i = 0; i < r->lbr_count; i++)
            fprintf(f, "%s{\"from\":\"0x%" PRIx64 "\",\"to\":\"0x%" PRIx64 "\",\"info\":\"0x%" PRIx64 "\"}",
                    i ? "," : "", r->lbr[i][0], r->lbr[i][1], r->lbr[i][2]);
        fprintf(f, "]");
    }
    if (r->cntr_gp_mask || r->cntr_fixed_mask) {   /* fmt 6 counters group: {"N":"0x.."} */
        for (int g = 0; g < 2; g++) {
            uint32_t m = g ? r->cntr_fixed_mask : r->cntr_gp_mask;
            fprintf(f, ",\"%s\":{", g ? "cntr_fixed" : "cntr_gp");
            for (unsigned n = 0, first = 1; n < (g ? 8u : 16u); n++)
                if (m >> n & 1) {
                    fprintf(f, "%s\"%u\":\"0x%" PRIx64 "\"", first ? "" : ",", n, g ? r->cntr_fixed[n] : r->cntr_gp[n]);
                    first = 0;
                }
            fprintf(f, "}");
        }
    }
}

static void json_record(FILE *f, const struct state *S, const struct runs *R, const struct item *it)
{
    const struct dslog_rec *r = &it->r;
    fprintf(f, "{\"line\":%lu,\"log\":%u,", it->line, it->log);
    if (log_cpu(R, it->log) != CPU_NONE) /* the CPU of the record's log (issue 13) */
        fprintf(f, "\"cpu\":%lld,", log_cpu(R, it->log));
    fprintf(f, "\"type\":");
    jstr(f, dslog_type_name(r->type));
    for (int k = 0; k < K__COUNT; k++) {
        if (!dslog_has(r, (enum dslog_key)k))
            continue;
        fprintf(f, ",\"%s\":", dslog_key_name((enum dslog_key)k));
        char b[32];
        switch (dslog_key_kind((enum dslog_key)k)) {
        case V_STR: jstr(f, r->s[k]); break;
        case V_HEX: fprintf(f, "\"0x%" PRIx64 "\"", r->v[k]); break;
        case V_FMT: jstr(f, fmt_name(r->v[k], b)); break;
        default: fprintf(f, "%" PRIu64, r->v[k]);
        }
    }
    json_groups(f, r);
    char a[300];
    if (r->type == DSLOG_PEBS) {
        symbolize(S->syms, sample_ip(r), a, sizeof a, NULL, 0);
        fprintf(f, ",\"symbol\":");
        jstr(f, a);
    } else if (r->type == DSLOG_BTS || r->type == DSLOG_LBR) {
        symbolize(S->syms, r->v[K_FROM], a, sizeof a, NULL, 0);
        fprintf(f, ",\"from_symbol\":");
        jstr(f, a);
        symbolize(S->syms, r->v[K_TO], a, sizeof a, NULL, 0);
        fprintf(f, ",\"to_symbol\":");
        jstr(f, a);
    }
    fprintf(f, "}");
}

/* "cpus": one entry per CPU of the input (HDR cpu=; null for logs without it). */
static void json_cpus(FILE *f, const struct cpugroups *G)
{
    fprintf(f, "],\n\"cpus\":[");
    for (size_t g = 0; g < G->n; g++) {
        const struct cpustat *st = &G->st[g];
        if (!st->logs) /* no HDR in the input: no CPU to name */
            continue;
        fprintf(f, "%s\n {\"cpu\":", g ? "," : "");
        G->cpu[g] == CPU_NONE ? fprintf(f, "null") : fprintf(f, "%lld", G->cpu[g]);
        fprintf(f, ",\"logs\":[");
        for (size_t x = 0; x < G->logs[g].n; x++)
            fprintf(f, "%s%zu", x ? "," : "", G->logs[g].v[x]);
        fprintf(f, "],\"runs\":%" PRIu64 ",\"pebs_records\":%" PRIu64 ",\"bts_records\":%" PRIu64
                   ",\"lbr_records\":%" PRIu64 ",\"lost\":{\"pebs\":%" PRIu64 ",\"bts\":%" PRIu64
                   ",\"lbr\":%" PRIu64 "}}",
                st->runs, st->pebs, st->bts, st->lbr, st->lost[0], st->lost[1], st->lost[2]);
    }
}

static void print_json(const struct state *S, const struct runs *R, const struct cpugroups *G)
{
    FILE *f = stdout;
    fprintf(f, "{\"format_version\":%u,\"input\":", DSLOG_VERSION);
    jstr(f, S->input);
    fprintf(f, ",\n\"runs\":[");
    for (size_t i = 0; i < R->n; i++) {
        const struct run *ru = &R->v[i];
        fprintf(f, "%s\n {\"log\":%u,\"name\":", i ? "," : "", ru->log);
        jstr(f, ru->name);
        const struct dslog_rec *h = ru->log < R->nlogs ? R->hdr[ru->log] : NULL;
        if (h && dslog_has(h, K_CPU)) /* the CPU that ran the log (HDR cpu=, issue 13) */
            fprintf(f, ",\"cpu\":%" PRIu64, h->v[K_CPU]);
        if (ru->summary) {
            fprintf(f, ",\"kind\":");
            jstr(f, ru->summary->s[K_KIND]);
            fprintf(f, ",\"events\":%" PRIu64 ",\"period\":%" PRIu64 ",\"samples\":%" PRIu64 ",\"records\":%" PRIu64,
                    ru->summary->v[K_EVENTS], ru->summary->v[K_PERIOD], ru->summary->v[K_SAMPLES],
                    ru->summary->v[K_RECORDS]);
        }
        fprintf(f, ",\"pebs_records\":%" PRIu64 ",\"bts_records\":%" PRIu64 ",\"lbr_records\":%" PRIu64
                   ",\"symbols\":[", ru->pebs, ru->bts, ru->lbr);
        for (size_t k = 0; k < ru->nsyms; k++) {
            fprintf(f, "%s{\"symbol\":", k ? "," : "");
            jstr(f, ru->syms[k].name);
            fprintf(f, ",\"samples\":%" PRIu64 ",\"percent\":%.2f}", ru->syms[k].n,
                    100.0 * (double)ru->syms[k].n / (double)ru->pebs);
        }
        fprintf(f, "]}");
    }
    fprintf(f, "],\n\"records\":[");
    for (size_t i = 0; i < S->items.n; i++) {
        fprintf(f, "%s\n ", i ? "," : "");
        json_record(f, S, R, &S->items.v[i]);
    }
    json_cpus(f, G);
    fprintf(f, "],\n\"errors\":[");
    for (size_t i = 0; i < S->nerr; i++) {
        fprintf(f, "%s\n {\"line\":%lu,\"message\":", i ? "," : "", S->errs[i].line);
        jstr(f, S->errs[i].msg);
        fprintf(f, "}");
    }
    fprintf(f, "]}\n");
}

/* ---------- CSV ---------- */

static void csv_field(const char *s)
{
    if (strpbrk(s, ",\"\n")) {
        putchar('"');
        for (; *s; s++) {
            if (*s == '"')
                putchar('"');
            putchar(*s);
        }
        putchar('"');
    } else {
        fputs(s, stdout);
    }
}

static void print_csv(const struct state *S, const struct runs *R)
{
    printf("log,run,symbol,samples,percent,cpu\n"); /* cpu: HDR cpu= of the log, empty without it */
    for (size_t i = 0; i < R->n; i++) {
        const struct run *ru = &R->v[i];
        for (size_t k = 0; k < ru->nsyms; k++) {
            printf("%u,", ru->log);
            csv_field(ru->name);
            putchar(',');
            csv_field(ru->syms[k].name);
            printf(",%" PRIu64 ",%.2f,", ru->syms[k].n, 100.0 * (double)ru->syms[k].n / (double)ru->pebs);
            if (log_cpu(R, ru->log) != CPU_NONE)
                printf("%lld", log_cpu(R, ru->log));
            putchar('\n');
        }
    }
    (void)S;
}

/* ---------- SVG ---------- */

/* XML character data; ill-formed UTF-8 becomes U+FFFD, controls are dropped
 * (XML 1.0 forbids them). */
static void xml_text(FILE *f, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        size_t n = utf8_len(p);
        switch (n ? *p : 0) {
        case 0: fputs("\xEF\xBF\xBD", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        default:
            if (*p >= 0x20)
                fwrite(p, 1, n, f);
        }
        p += n ? n : 1;
    }
}

static int write_svg(const char *path, const struct state *S, const struct runs *R)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    const int top = 20, row = 18, width = 900, label_w = 300, bar_w = 480;
    int rows = 1;
    for (size_t i = 0; i < R->n; i++)
        if (R->v[i].pebs)
            rows += 2 + (int)(R->v[i].nsyms > 20 ? 20 : R->v[i].nsyms);
    int height = top + rows * row + 10;
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
               "font-family=\"monospace\" font-size=\"12\">\n", width, height, width, height);
    fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"white\"/>\n", width, height);
    fprintf(f, "<text x=\"10\" y=\"%d\" font-weight=\"bold\">PEBS hot spots: ", top);
    xml_text(f, S->input);
    fprintf(f, "</text>\n");
    int y = top + row;
    for (size_t i = 0; i < R->n; i++) {
        const struct run *ru = &R->v[i];
        if (!ru->pebs)
            continue;
        char lb[80];
        run_label(R, ru->log, ru->name, lb, sizeof lb);
        y += row;
        fprintf(f, "<text x=\"10\" y=\"%d\" font-weight=\"bold\">run ", y);
        xml_text(f, lb);
        fprintf(f, " (%" PRIu64 " samples)</text>\n", ru->pebs);
        for (size_t k = 0; k < ru->nsyms && k < 20; k++) {
            y += row;
            double frac = (double)ru->syms[k].n / (double)ru->pebs;
            int w = (int)(frac * bar_w + 0.5);
            int red = 80 + (int)(frac * 175);
            fprintf(f, "<g><title>");
            xml_text(f, ru->syms[k].name);
            fprintf(f, ": %" PRIu64 " samples</title>", ru->syms[k].n);
            fprintf(f, "<text x=\"20\" y=\"%d\">", y);
            char nm[40];
            snprintf(nm, sizeof nm, "%.38s", ru->syms[k].name);
            xml_text(f, nm);
            fprintf(f, "</text><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"rgb(%d,60,40)\"/>",
                    label_w, y - row + 5, w > 0 ? w : 1, row - 4, red);
            fprintf(f, "<text x=\"%d\" y=\"%d\">%.2f%%</text></g>\n", label_w + bar_w + 10, y, 100.0 * frac);
        }
        y += row / 2;
    }
    fprintf(f, "</svg>\n");
    return fclose(f);
}

/* ---------- perf.data ---------- */

static int write_perf(const char *path, const struct state *S, const struct runs *R, const struct pd_elf *elf,
                      int argc, char **argv, char *err, size_t errsz)
{
    struct pd_item *items = xrealloc(NULL, (S->items.n + 1) * sizeof *items);
    struct pd_run *runs = xrealloc(NULL, (R->n + 1) * sizeof *runs);
    for (size_t i = 0; i < S->items.n; i++)
        items[i] = (struct pd_item){&S->items.v[i].r, R->run_of[i] == NONE ? PD_NONE : R->run_of[i], S->items.v[i].log};
    for (size_t i = 0; i < R->n; i++)
        runs[i] = (struct pd_run){R->v[i].name, R->v[i].log, R->v[i].summary, R->v[i].pebs, R->v[i].bts, R->v[i].lbr};
    char cmd[1024] = "";
    for (int i = 0; i < argc; i++) {
        size_t n = strlen(cmd);
        snprintf(cmd + n, sizeof cmd - n, "%s%s", i ? " " : "", argv[i]);
    }
    struct pd_input in = {.items = items, .nitems = S->items.n, .runs = runs, .nruns = R->n,
                          .hdrs = R->hdr, .nlogs = R->nlogs, .elf = *elf, .cmdline = cmd};
    int rc = pd_write(path, &in, err, errsz);
    free(items);
    free(runs);
    return rc;
}

/* ---------- main ---------- */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: dsdump [options] [LOG|-]\n"
            "Read a libds test-kernel serial log (DSLOG format version %u, docs/records.md)\n"
            "from LOG or standard input, check and decode every record and report them.\n"
            "\n"
            "  -e, --elf FILE   symbolize IPs with FILE's symbol table (ELF32 or ELF64)\n"
            "      --json       print everything as one JSON document\n"
            "      --csv        print the sample table as CSV (log,run,symbol,samples,percent,cpu)\n"
            "      --svg FILE   also write an SVG hot-spot chart of the sample table to FILE\n"
            "      --limit N    show at most N BTS branches per run in the text report\n"
            "      --lbr-limit N  show at most N LBR snapshots per log in the text report\n"
            "      --lbr-entries N  show at most N entries of each LBR snapshot\n"
            "      --perf-data FILE  also write the records as a perf.data file for perf report,\n"
            "                   perf script and perf annotate (with -e: symbols and build-id)\n"
            "  -h, --help       this text\n"
            "\n"
            "With logs of several CPUs (HDR cpu=) the report has one block per CPU.\n"
            "Lines without 'DSLOG ' are other serial output and are skipped. Errors name\n"
            "the line; every well-formed record is still reported.\n"
            "Exit status: 0 log complete and well-formed, 1 errors in the log, 2 usage or I/O error.\n",
            DSLOG_VERSION);
}

/* ---------- main: options, reading the log, output ---------- */

struct opts {
    const char *elf, *svg, *in, *perf;
    int json, csv;
    long limit, lbr_limit, lbr_entries;
};

/* --limit / --lbr-limit / --lbr-entries: a non-negative decimal. 0 or 2 (exit code). */
static int parse_count(struct opts *o, const char *opt, const char *val)
{
    char *end;
    long v = strtol(val, &end, 10);
    if (!*val || *end || v < 0) {
        fprintf(stderr, "dsdump: bad %s '%s'\n", opt, val);
        return 2;
    }
    *(!strcmp(opt, "--limit") ? &o->limit : !strcmp(opt, "--lbr-limit") ? &o->lbr_limit : &o->lbr_entries) = v;
    return 0;
}

/* Fills o from the command line. Returns -1 to go on, else the exit code. */
static int parse_args(int argc, char **argv, struct opts *o)
{
    *o = (struct opts){.limit = -1, .lbr_limit = -1, .lbr_entries = -1};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if ((!strcmp(a, "-e") || !strcmp(a, "--elf")) && i + 1 < argc) {
            o->elf = argv[++i];
        } else if (!strcmp(a, "--json")) {
            o->json = 1;
        } else if (!strcmp(a, "--csv")) {
            o->csv = 1;
        } else if (!strcmp(a, "--svg") && i + 1 < argc) {
            o->svg = argv[++i];
        } else if (!strcmp(a, "--perf-data") && i + 1 < argc) {
            o->perf = argv[++i];
        } else if ((!strcmp(a, "--limit") || !strcmp(a, "--lbr-limit") || !strcmp(a, "--lbr-entries")) &&
                   i + 1 < argc) {
            if (parse_count(o, a, argv[++i]))
                return 2;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "dsdump: unknown or incomplete option '%s'\n", a);
            usage(stderr);
            return 2;
        } else if (!o->in) {
            o->in = a;
        } else {
            fprintf(stderr, "dsdump: more than one input given\n");
            return 2;
        }
    }
    if (o->json && o->csv) {
        fprintf(stderr, "dsdump: --json and --csv exclude each other\n");
        return 2;
    }
    return -1;
}

/* Feeds every line of fin to the DSLOG reader and keeps the good records in
 * S->items. Closes fin (unless stdin). Returns 0, or 2 on a read error. */
static int read_log(FILE *fin, struct state *S, char *err, size_t errsz)
{
    struct dslog_reader rd;
    dslog_reader_init(&rd);
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int unknown_noted = 0;
    struct item *tmp = calloc(1, sizeof *tmp);
    while ((n = getline(&line, &cap, fin)) >= 0) {
        if (memchr(line, 0, (size_t)n) && memmem(line, (size_t)n, "DSLOG ", 6)) {
            rd.line++;
            add_error(S, rd.line, "NUL byte in a DSLOG line");
            continue;
        }
        enum dslog_status s = dslog_feed(&rd, line, (size_t)n, &tmp->r, err, errsz);
        if (s == DSLOG_NOT_RECORD)
            continue;
        if (s == DSLOG_BAD || s == DSLOG_OK_BUT)
            add_error(S, rd.line, err);
        if (s == DSLOG_OK || s == DSLOG_OK_BUT) {
            if (tmp->r.unknown_keys && unknown_noted++ < 5)
                fprintf(stderr, "dsdump: %s:%lu: note: %u unknown key(s) ignored, first '%s' (newer kernel?)\n",
                        S->input, rd.line, tmp->r.unknown_keys, tmp->r.first_unknown);
            struct item *it = push(&S->items);
            it->r = tmp->r;
            it->line = rd.line;
            it->log = (unsigned)(rd.logs ? rd.logs - 1 : 0);
        }
    }
    int ioerr = ferror(fin);
    free(line);
    free(tmp);
    if (fin != stdin)
        fclose(fin);
    if (ioerr) {
        fprintf(stderr, "dsdump: %s: read error\n", S->input);
        return 2;
    }
    if (!dslog_finish(&rd, err, errsz))
        add_error(S, 0, err);
    return 0;
}

/* Prints the chosen report, then writes the SVG and perf.data files asked for.
 * Returns the exit code: 1 if the log had errors, 2 if an output failed. */
static int write_outputs(const struct opts *o, struct state *S, struct runs *R, const struct pd_elf *pelf,
                         int argc, char **argv, char *err, size_t errsz)
{
    struct cpugroups G;
    groups_build(S, R, &G);
    if (o->json)
        print_json(S, R, &G);
    else if (o->csv)
        print_csv(S, R);
    else
        print_text(S, R, &G, o->limit, o->lbr_limit, o->lbr_entries);
    groups_free(&G);
    int rc = S->nerr ? 1 : 0;
    if (o->svg && write_svg(o->svg, S, R)) {
        fprintf(stderr, "dsdump: %s: %s\n", o->svg, strerror(errno));
        rc = 2;
    }
    if (o->perf && write_perf(o->perf, S, R, pelf, argc, argv, err, errsz)) {
        fprintf(stderr, "dsdump: %s\n", err);
        rc = 2;
    }
    if (fflush(stdout))
        rc = 2;
    return rc;
}

int main(int argc, char **argv)
{
    struct opts o;
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0)
        return rc;
    FILE *fin = stdin;
    if (o.in && strcmp(o.in, "-")) {
        fin = fopen(o.in, "r");
        if (!fin) {
            fprintf(stderr, "dsdump: %s: %s\n", o.in, strerror(errno));
            return 2;
        }
    }
    struct symtab st;
    char err[512];
    struct state S = {.input = o.in && strcmp(o.in, "-") ? o.in : "<stdin>"};
    struct pd_elf pelf = {0};
    static char elfpath[4096];
    if (o.elf) {
        if (load_symbols(o.elf, &st, err, sizeof err) ||
            (o.perf && pd_elf_read(o.elf, &pelf, elfpath, sizeof elfpath, err, sizeof err))) {
            fprintf(stderr, "dsdump: %s\n", err);
            return 2;
        }
        S.syms = &st;
    }
    if (read_log(fin, &S, err, sizeof err))
        return 2;
    struct runs R = {0};
    aggregate(&S, &R);
    rc = write_outputs(&o, &S, &R, &pelf, argc, argv, err, sizeof err);
    runs_free(&R);
    free(S.items.v);
    free(S.errs);
    if (S.syms) {
        for (size_t i = 0; i < st.n; i++)
            free(st.v[i].name);
        free(st.v);
    }
    return rc;
}

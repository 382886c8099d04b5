/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * perf.data writer (see perfdata.h). Layouts transcribed from Linux
 * tools/perf/Documentation/perf.data-file-format.txt and
 * include/uapi/linux/perf_event.h; every size is asserted below.
 *
 * How the test kernel's records become a perf session:
 *  - the kernel is one process (pid 1, comm "libds-kernel") whose executable
 *    mapping is the kernel ELF's executable PT_LOAD segment, so perf
 *    symbolizes and annotates IPs against the ELF (its build-id, when it has
 *    one, goes into the BUILD_ID feature so perf checks it is the right file);
 *  - each run becomes one event per kind of record it holds (PEBS, BTS, LBR),
 *    named "<run>" ("<profile>/<run>" with several logs), "branches/<run>" for
 *    BTS and "lbr/<run>" for the LBR snapshots taken during the run,
 *    with the event period the kernel logged;
 *  - PEBS records: IP (EventingIP where the format has it), time (TSC where the
 *    record has a non-zero one, else the record's position in the log), period,
 *    ADDR = data linear address, WEIGHT = load latency, the GPRs as interrupt
 *    registers, and the adaptive LBR group as a branch stack;
 *  - BTS records: IP = from, ADDR = to, in log order;
 *  - LBR snapshots: one sample per snapshot, its branch stack newest first, IP =
 *    the newest branch's target (the PMI's own IP is not logged);
 *  - LOST lines with a non-zero count: PERF_RECORD_LOST on the run's event.
 */
#include "perfdata.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- file layout (perf.data-file-format.txt) ---- */

struct pf_section {
    uint64_t offset, size;
};

struct pf_header {
    char magic[8]; /* "PERFILE2" */
    uint64_t size; /* of this header */
    uint64_t attr_size; /* of one entry of the attrs section */
    struct pf_section attrs, data, event_types;
    uint64_t features[4]; /* HEADER_* feature bitmap */
};

/* struct perf_event_attr up to PERF_ATTR_SIZE_VER5 (112 bytes). */
struct pf_attr {
    uint32_t type, size;
    uint64_t config, sample_period, sample_type, read_format, flags;
    uint32_t wakeup_events, bp_type;
    uint64_t config1, config2, branch_sample_type, sample_regs_user;
    uint32_t sample_stack_user;
    int32_t clockid;
    uint64_t sample_regs_intr;
    uint32_t aux_watermark;
    uint16_t sample_max_stack, reserved_2;
};

struct pf_file_attr {
    struct pf_attr attr;
    struct pf_section ids;
};

struct pf_ev_header {
    uint32_t type;
    uint16_t misc, size;
};

struct pf_build_id {
    struct pf_ev_header header;
    int32_t pid;
    uint8_t build_id[24]; /* 20 bytes, padded to 8 */
    /* char filename[], NUL-padded to a multiple of 64 */
};

_Static_assert(sizeof(struct pf_section) == 16, "perf_file_section");
_Static_assert(sizeof(struct pf_header) == 104, "perf_file_header");
_Static_assert(sizeof(struct pf_attr) == 112, "perf_event_attr VER5");
_Static_assert(sizeof(struct pf_file_attr) == 128, "perf_file_attr");
_Static_assert(sizeof(struct pf_ev_header) == 8, "perf_event_header");
_Static_assert(sizeof(struct pf_build_id) == 36 || sizeof(struct pf_build_id) == 40, "build_id_event");

enum { PF_TYPE_HARDWARE = 0, PF_TYPE_RAW = 4, PF_HW_BRANCH_INSTRUCTIONS = 4 };
enum { PF_RECORD_MMAP = 1, PF_RECORD_COMM = 3, PF_RECORD_SAMPLE = 9, PF_RECORD_LOST_SAMPLES = 13 };
enum { PF_MISC_USER = 2 };
#define PF_S_IP (1ull << 0)
#define PF_S_TID (1ull << 1)
#define PF_S_TIME (1ull << 2)
#define PF_S_ADDR (1ull << 3)
#define PF_S_CPU (1ull << 7)
#define PF_S_PERIOD (1ull << 8)
#define PF_S_BRANCH_STACK (1ull << 11)
#define PF_S_WEIGHT (1ull << 14)
#define PF_S_IDENTIFIER (1ull << 16)
#define PF_S_REGS_INTR (1ull << 18)
#define PF_BRANCH_ANY (1ull << 3)
#define PF_ATTR_EXCLUDE_KERNEL (1ull << 5) /* the kernel is mapped as a process: no kernel map */
#define PF_ATTR_PRECISE_IP(n) ((uint64_t)(n) << 15)
#define PF_ATTR_SAMPLE_ID_ALL (1ull << 18) /* COMM, MMAP, LOST_SAMPLES carry a sample_id: their CPU and time */
enum { PF_REGS_ABI_NONE = 0, PF_REGS_ABI_32 = 1, PF_REGS_ABI_64 = 2 };
/* arch/x86/include/uapi/asm/perf_regs.h: AX BX CX DX SI DI BP SP IP FLAGS (0-9), R8-R15 (16-23). */
#define PF_REGS_MASK32 0x3FFull
#define PF_REGS_MASK64 0xFF03FFull
enum {
    HEADER_BUILD_ID = 2, HEADER_HOSTNAME = 3, HEADER_OSRELEASE = 4, HEADER_VERSION = 5, HEADER_ARCH = 6,
    HEADER_NRCPUS = 7, HEADER_CPUDESC = 8, HEADER_CMDLINE = 11, HEADER_EVENT_DESC = 12,
};
#define PF_PID 1u

/* ---- growable byte buffer ---- */

static int write_all(int fd, const void *p, size_t n)
{
    const uint8_t *c = p;
    while (n) {
        ssize_t k = write(fd, c, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        c += k, n -= (size_t)k;
    }
    return 0;
}

/* The data section is streamed (issue 27 item 7: perf.data is larger than
 * the log): with stream set, a record that starts past STREAM_AT buffered
 * bytes first writes them to fd. */
struct buf {
    uint8_t *p;
    size_t n, cap;
    int oom;
    int stream, fd, ioerr; /* ioerr: errno of a failed write */
    uint64_t flushed;      /* bytes written to fd */
};

#define STREAM_AT 65536u

static void buf_flush(struct buf *b)
{
    if (!b->stream || b->oom || b->ioerr || !b->n)
        return;
    if (write_all(b->fd, b->p, b->n))
        b->ioerr = errno ? errno : EIO;
    b->flushed += b->n;
    b->n = 0;
}

static void put(struct buf *b, const void *d, size_t n)
{
    if (b->oom)
        return;
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->n + n)
            cap *= 2;
        uint8_t *p = realloc(b->p, cap);
        if (!p) {
            b->oom = 1;
            return;
        }
        b->p = p, b->cap = cap;
    }
    memcpy(b->p + b->n, d, n);
    b->n += n;
}

static void put64(struct buf *b, uint64_t v) { put(b, &v, 8); }
static void put32(struct buf *b, uint32_t v) { put(b, &v, 4); }

static void pad(struct buf *b, size_t align)
{
    static const uint8_t zero[64];
    put(b, zero, (align - b->n % align) % align);
}

/* struct perf_header_string: u32 len (NUL included, padded to 64), bytes. */
static void put_hstr(struct buf *b, const char *s)
{
    size_t n = strlen(s) + 1, len = (n + 63) / 64 * 64;
    put32(b, (uint32_t)len);
    size_t at = b->n;
    put(b, s, n);
    pad(b, 1);
    static const uint8_t zero[64];
    put(b, zero, len - (b->n - at));
}

/* ---- events: one per (run, kind) present ---- */

enum { K_PEBS, K_BTS, K_LBR, K_KINDS };

struct ev {
    int used;
    struct pf_attr attr; /* (its name: ev_name) */
};

struct wr {
    const struct pd_input *in;
    struct ev *ev; /* nruns * K_KINDS */
    struct buf data;
    uint64_t *last;   /* per log: the time (ns) of its CPU's latest record so far, shared by the CPU's logs */
    unsigned *slot;   /* per log: index of its CPU among the distinct CPUs (its "last" is last[slot]) */
    unsigned ncpus;   /* distinct CPUs */
    uint32_t max_cpu; /* highest CPU number */
    uint64_t first_id; /* the first event's id: the sample_id of COMM and MMAP */
};

static uint64_t ev_id(size_t run, int kind) { return (uint64_t)run * K_KINDS + (uint64_t)kind + 1; }

/* The HDR cpu= of a log: the CPU of its records (0 without cpu=). */
static uint32_t log_cpu(const struct pd_input *in, unsigned log)
{
    return log < in->nlogs && in->logs[log].has_cpu ? in->logs[log].cpu : 0;
}

static int log_is32(const struct pd_input *in, unsigned log)
{
    return log < in->nlogs && in->logs[log].present && !strcmp(in->logs[log].arch, "i386");
}

/* An event's name: "<run>" ("<profile>/<run>" with several logs) for PEBS,
 * "branches/..." for BTS, "lbr/..." for LBR snapshots. */
static void ev_name(const struct wr *w, size_t run, int kind, char *b, size_t n)
{
    const struct pd_run *ru = &w->in->runs[run];
    const char *prof = w->in->nlogs > 1 && ru->log < w->in->nlogs && w->in->logs[ru->log].present
                           ? w->in->logs[ru->log].profile : NULL;
    char label[80];
    snprintf(label, sizeof label, "%s%s%s", prof ? prof : "", prof ? "/" : "", ru->name);
    snprintf(b, n, "%s%s", kind == K_BTS ? "branches/" : kind == K_LBR ? "lbr/" : "", label);
}

static void ev_define(struct wr *w, size_t run, int kind, int branch_stack)
{
    const struct pd_run *ru = &w->in->runs[run];
    struct ev *e = &w->ev[run * K_KINDS + kind];
    struct pf_attr *a = &e->attr;
    e->used = 1;
    a->size = sizeof *a;
    a->flags = PF_ATTR_EXCLUDE_KERNEL | PF_ATTR_SAMPLE_ID_ALL;
    /* The same fields for every event, so that perf script -F ip,sym,addr,iregs
     * works on the whole file (an event without one of them makes it refuse). */
    a->sample_type = PF_S_IDENTIFIER | PF_S_IP | PF_S_TID | PF_S_TIME | PF_S_ADDR | PF_S_CPU | PF_S_PERIOD |
                     PF_S_WEIGHT | PF_S_REGS_INTR;
    a->sample_regs_intr = log_is32(w->in, ru->log) ? PF_REGS_MASK32 : PF_REGS_MASK64;
    uint64_t period = ru->period ? ru->period : 1;
    switch (kind) {
    case K_PEBS:
        a->type = PF_TYPE_RAW;
        a->sample_period = period;
        a->flags |= PF_ATTR_PRECISE_IP(2);
        break;
    case K_BTS: /* what perf itself uses for BTS: branch instructions, period 1 */
        a->type = PF_TYPE_HARDWARE;
        a->config = PF_HW_BRANCH_INSTRUCTIONS;
        a->sample_period = 1;
        break;
    default:
        a->type = PF_TYPE_RAW;
        a->sample_period = period;
    }
    if (branch_stack) {
        a->sample_type |= PF_S_BRANCH_STACK;
        a->branch_sample_type = PF_BRANCH_ANY;
    }
}

static void define_events(struct wr *w)
{
    const struct pd_input *in = w->in;
    unsigned char *lbr_group = calloc(in->nruns + 1, 1); /* run has PEBS records with an LBR group */
    if (!lbr_group) {
        w->data.oom = 1;
        return;
    }
    struct dslog_rec buf;
    for (size_t i = 0; i < in->nitems; i++)
        if (in->items[i].run != PD_NONE && in->items[i].type == DSLOG_PEBS && in->rec(in->ctx, i, &buf)->lbr_count)
            lbr_group[in->items[i].run] = 1;
    for (size_t r = 0; r < in->nruns; r++) {
        const struct pd_run *ru = &in->runs[r];
        if (ru->pebs)
            ev_define(w, r, K_PEBS, lbr_group[r]);
        if (ru->bts)
            ev_define(w, r, K_BTS, 0);
        if (ru->lbr)
            ev_define(w, r, K_LBR, 1);
    }
    free(lbr_group);
}

/* The distinct CPUs of the logs (HDR cpu=): a slot each for its clock. */
struct logcpu {
    uint32_t cpu;
    unsigned log;
};

static int logcpu_cmp(const void *a, const void *b)
{
    const struct logcpu *x = a, *y = b;
    return x->cpu != y->cpu ? (x->cpu > y->cpu) - (x->cpu < y->cpu) : (x->log > y->log) - (x->log < y->log);
}

static int cpus_init(struct wr *w)
{
    const struct pd_input *in = w->in;
    struct logcpu *lc = calloc(in->nlogs + 1, sizeof *lc);
    w->slot = calloc(in->nlogs + 1, sizeof *w->slot);
    w->last = calloc(in->nlogs + 1, sizeof *w->last);
    if (!lc || !w->slot || !w->last) {
        free(lc);
        return -1;
    }
    for (unsigned l = 0; l < in->nlogs; l++)
        lc[l] = (struct logcpu){log_cpu(in, l), l};
    qsort(lc, in->nlogs, sizeof *lc, logcpu_cmp);
    for (unsigned i = 0; i < in->nlogs; i++) {
        if (!i || lc[i].cpu != lc[i - 1].cpu)
            w->ncpus++;
        w->slot[lc[i].log] = w->ncpus - 1;
        w->max_cpu = lc[i].cpu;
    }
    free(lc);
    for (size_t i = 0; i < in->nruns * K_KINDS && !w->first_id; i++)
        if (w->ev[i].used)
            w->first_id = ev_id(i / K_KINDS, (int)(i % K_KINDS));
    return 0;
}

/* ---- records ---- */

static void put_header(struct buf *b, uint32_t type, uint16_t misc, size_t size)
{
    if (b->n >= STREAM_AT)
        buf_flush(b);
    struct pf_ev_header h = {type, misc, (uint16_t)size};
    put(b, &h, sizeof h);
}

/* struct sample_id of sample_type TID | TIME | CPU | IDENTIFIER (sample_id_all). */
#define PF_SAMPLE_ID_SIZE 32u
static void put_sample_id(struct buf *b, uint64_t time, uint32_t cpu, uint64_t id)
{
    put32(b, PF_PID);
    put32(b, PF_PID);
    put64(b, time);
    put32(b, cpu);
    put32(b, 0);
    put64(b, id);
}

static void put_comm_mmap(struct wr *w)
{
    static const char comm[16] = "libds-kernel";
    put_header(&w->data, PF_RECORD_COMM, 0, 8 + 8 + sizeof comm + PF_SAMPLE_ID_SIZE);
    put32(&w->data, PF_PID);
    put32(&w->data, PF_PID);
    put(&w->data, comm, sizeof comm);
    put_sample_id(&w->data, 0, 0, w->first_id);
    const struct pd_elf *e = &w->in->elf;
    if (!e->path)
        return;
    size_t fn = (strlen(e->path) + 1 + 7) / 8 * 8;
    put_header(&w->data, PF_RECORD_MMAP, PF_MISC_USER, 8 + 8 + 24 + fn + PF_SAMPLE_ID_SIZE);
    put32(&w->data, PF_PID);
    put32(&w->data, PF_PID);
    put64(&w->data, e->start);
    put64(&w->data, e->len);
    put64(&w->data, e->pgoff);
    size_t at = w->data.n;
    put(&w->data, e->path, strlen(e->path) + 1);
    static const uint8_t zero[8];
    put(&w->data, zero, fn - (w->data.n - at));
    put_sample_id(&w->data, 0, 0, w->first_id);
}

struct branch {
    uint64_t from, to, flags;
};

/* perf_branch_entry flags: mispred bit 0, predicted bit 1; cycles [19:4] left 0
 * (issue 27 item 3): with a non-zero cycles field, perf 6.1 `report -b --sort
 * symbol_from` (or symbol_to, with any other keys) reads freed memory and
 * segfaults (valgrind: an invalid read 88 bytes into a freed 120-byte block),
 * on any file with such entries, symbols resolved or not; with cycles 0 it
 * does not. dsdump's LBR output keeps the cycle counts. */
static uint64_t branch_flags(int mispred)
{
    return mispred ? 1u : 2u;
}

struct sample {
    size_t run;
    int kind;
    uint32_t cpu;
    uint64_t ip, time, addr, weight;
    const struct dslog_rec *regs; /* record with GPRs, or NULL */
    const struct branch *br;
    size_t nbr;
};

static void put_regs(struct buf *b, const struct dslog_rec *r, uint64_t mask)
{
    static const enum dslog_key order[24] = {K_AX, K_BX, K_CX, K_DX, K_SI, K_DI, K_BP, K_SP, K_IP, K_FLAGS,
                                             [16] = K_R8, K_R9, K_R10, K_R11, K_R12, K_R13, K_R14, K_R15};
    if (!r || !dslog_has(r, K_AX)) {
        put64(b, PF_REGS_ABI_NONE);
        return;
    }
    put64(b, mask == PF_REGS_MASK32 ? PF_REGS_ABI_32 : PF_REGS_ABI_64);
    for (int i = 0; i < 24; i++)
        if (mask >> i & 1)
            put64(b, r->v[order[i]]);
}

static void put_sample(struct wr *w, const struct sample *s)
{
    const struct pf_attr *a = &w->ev[s->run * K_KINDS + s->kind].attr;
    struct buf *b = &w->data;
    put_header(b, PF_RECORD_SAMPLE, PF_MISC_USER, 0); /* size patched below */
    size_t at = b->n - sizeof(struct pf_ev_header);
    put64(b, ev_id(s->run, s->kind));
    put64(b, s->ip);
    put32(b, PF_PID);
    put32(b, PF_PID);
    put64(b, s->time);
    put64(b, s->addr);
    put32(b, s->cpu);
    put32(b, 0); /* reserved */
    put64(b, a->sample_period);
    if (a->sample_type & PF_S_BRANCH_STACK) {
        put64(b, s->nbr);
        for (size_t i = 0; i < s->nbr; i++)
            put(b, &s->br[i], sizeof s->br[i]);
    }
    put64(b, s->weight);
    put_regs(b, s->regs, a->sample_regs_intr);
    if (!b->oom)
        ((struct pf_ev_header *)(void *)(b->p + at))->size = (uint16_t)(b->n - at);
}

/* One time base (issue 27 item 2): nanoseconds of the TSC, converted with the
 * HDR's tsc_khz (ticks * 10^6 / kHz); without tsc_khz a tick counts as 1 ns (a
 * 1 GHz TSC, the documented fallback). A record without a TSC (BTS, LBR, PEBS
 * formats 0/1) takes its CPU's latest time + 1 ns, and every record at least
 * that: times rise strictly per CPU in log order. */
static uint64_t item_time(struct wr *w, const struct pd_item *it, const struct dslog_rec *r)
{
    unsigned log = it->log < w->in->nlogs ? it->log : 0;
    uint64_t *last = &w->last[w->in->nlogs ? w->slot[log] : 0], t = 0;
    if (dslog_has(r, K_TSC) && r->v[K_TSC]) {
        uint64_t tsc = r->v[K_TSC], khz = log < w->in->nlogs ? w->in->logs[log].tsc_khz : 0;
        t = khz ? (uint64_t)((unsigned __int128)tsc * 1000000u / khz) : tsc;
    }
    if (t <= *last)
        t = *last + 1;
    *last = t;
    return t;
}

static uint32_t item_cpu(const struct wr *w, const struct pd_item *it) { return log_cpu(w->in, it->log); }

static void pebs_sample(struct wr *w, const struct pd_item *it, const struct dslog_rec *r)
{
    struct branch br[DSLOG_LBR_MAX];
    for (uint32_t k = 0; k < r->lbr_count && k < DSLOG_LBR_MAX; k++) /* LBR_INFO: MISPRED [63] */
        br[k] = (struct branch){r->lbr[k][0], r->lbr[k][1], branch_flags((int)(r->lbr[k][2] >> 63))};
    struct sample s = {
        .run = it->run, .kind = K_PEBS,
        .ip = dslog_has(r, K_EVENTING_IP) ? r->v[K_EVENTING_IP] : r->v[K_IP],
        .cpu = item_cpu(w, it), .time = item_time(w, it, r),
        .addr = dslog_has(r, K_DATA_LA) ? r->v[K_DATA_LA] : 0,
        .weight = dslog_has(r, K_LATENCY) ? r->v[K_LATENCY] : 0,
        .regs = r, .br = br, .nbr = r->lbr_count,
    };
    put_sample(w, &s);
}

/* LBR lines of one snapshot come in a row, newest (idx 0) first. */
static size_t lbr_sample(struct wr *w, size_t i)
{
    const struct pd_item *first = &w->in->items[i];
    struct branch br[DSLOG_LBR_MAX];
    struct dslog_rec buf;
    const struct dslog_rec *r = w->in->rec(w->in->ctx, i, &buf);
    uint64_t snap = r->v[K_SNAP];
    struct sample s = {.run = first->run, .kind = K_LBR, .cpu = item_cpu(w, first), .time = item_time(w, first, r)};
    size_t n = 0, j = i;
    for (; j < w->in->nitems && n < DSLOG_LBR_MAX; j++) {
        const struct pd_item *it = &w->in->items[j];
        if (it->type != DSLOG_LBR || it->run != first->run)
            break;
        r = w->in->rec(w->in->ctx, j, &buf);
        if (r->v[K_SNAP] != snap || (j > i && r->v[K_IDX] == 0))
            break;
        br[n++] = (struct branch){r->v[K_FROM], r->v[K_TO], branch_flags(dslog_has(r, K_MISPRED) && r->v[K_MISPRED])};
    }
    s.ip = br[0].to, s.br = br, s.nbr = n;
    put_sample(w, &s);
    return j;
}

static void lost_record(struct wr *w, const struct pd_item *it, const struct dslog_rec *r)
{
    const char *k = r->s[K_KIND];
    int kind = !strcmp(k, "pebs") ? K_PEBS : !strcmp(k, "bts") ? K_BTS : K_LBR;
    if (!r->v[K_COUNT] || it->run == PD_NONE)
        return;
    if (!w->ev[it->run * K_KINDS + kind].used) { /* lost everything: the event still exists */
        for (kind = 0; kind < K_KINDS && !w->ev[it->run * K_KINDS + kind].used; kind++)
            ;
        if (kind == K_KINDS)
            return;
    }
    /* PERF_RECORD_LOST_SAMPLES, as the kernel writes for samples it dropped:
     * perf report's "Total Lost Samples", per event and CPU in perf script. */
    put_header(&w->data, PF_RECORD_LOST_SAMPLES, 0, 8 + 8 + PF_SAMPLE_ID_SIZE);
    put64(&w->data, r->v[K_COUNT]);
    put_sample_id(&w->data, item_time(w, it, r), item_cpu(w, it), ev_id(it->run, kind));
}

static void write_records(struct wr *w)
{
    put_comm_mmap(w);
    struct dslog_rec buf;
    for (size_t i = 0; i < w->in->nitems;) {
        const struct pd_item *it = &w->in->items[i];
        if (it->type == DSLOG_LBR && it->run != PD_NONE) {
            i = lbr_sample(w, i);
            continue;
        }
        const struct dslog_rec *r = it->type == DSLOG_PEBS || it->type == DSLOG_BTS || it->type == DSLOG_LOST
                                        ? w->in->rec(w->in->ctx, i, &buf) : NULL;
        if (it->type == DSLOG_PEBS && it->run != PD_NONE)
            pebs_sample(w, it, r);
        else if (it->type == DSLOG_BTS && it->run != PD_NONE)
            put_sample(w, &(struct sample){.run = it->run, .kind = K_BTS, .ip = r->v[K_FROM],
                                           .addr = r->v[K_TO], .cpu = item_cpu(w, it),
                                           .time = item_time(w, it, r)});
        else if (it->type == DSLOG_LOST)
            lost_record(w, it, r);
        i++;
    }
}

/* ---- feature sections ---- */

static void feat_build_id(struct wr *w, struct buf *b)
{
    const struct pd_elf *e = &w->in->elf;
    size_t fn = (strlen(e->path) + 1 + 63) / 64 * 64;
    struct pf_build_id be = {.header = {0, PF_MISC_USER, (uint16_t)(sizeof be + fn)}, .pid = -1 /* host */};
    memcpy(be.build_id, e->build_id, e->build_id_len);
    put(b, &be, sizeof be);
    size_t at = b->n;
    put(b, e->path, strlen(e->path) + 1);
    static const uint8_t zero[64];
    put(b, zero, fn - (b->n - at));
}

static void feat_cpudesc(struct wr *w, struct buf *b)
{
    char d[1024] = "";
    for (unsigned l = 0; l < w->in->nlogs; l++) {
        const struct pd_log *h = &w->in->logs[l];
        if (!h->present)
            continue;
        size_t n = strlen(d);
        snprintf(d + n, sizeof d - n, "%slog %u: profile=%s backend=%s%s%s", n ? "; " : "", l, h->profile,
                 h->backend, h->has_why ? " why=" : "", h->has_why ? h->why : "");
    }
    put_hstr(b, d[0] ? d : "libds test kernel (no HDR line)");
}

static void feat_event_desc(struct wr *w, struct buf *b)
{
    uint32_t n = 0;
    for (size_t i = 0; i < w->in->nruns * K_KINDS; i++)
        n += (uint32_t)w->ev[i].used;
    put32(b, n);
    put32(b, sizeof(struct pf_attr));
    for (size_t i = 0; i < w->in->nruns * K_KINDS; i++) {
        if (!w->ev[i].used)
            continue;
        put(b, &w->ev[i].attr, sizeof w->ev[i].attr);
        put32(b, 1);
        char name[96];
        ev_name(w, i / K_KINDS, (int)(i % K_KINDS), name, sizeof name);
        put_hstr(b, name);
        put64(b, ev_id(i / K_KINDS, (int)(i % K_KINDS)));
    }
}

/* Feature data in bit order; returns the bitmap. */
static void write_features(struct wr *w, struct buf *feat, uint64_t bitmap[4], struct pf_section *sec, int *nsec)
{
    const struct pd_log *h = w->in->nlogs && w->in->logs[0].present ? &w->in->logs[0] : NULL;
    *nsec = 0;
    for (int bit = 0; bit < 64; bit++) {
        size_t at = feat->n;
        switch (bit) {
        case HEADER_BUILD_ID:
            if (!w->in->elf.path || !w->in->elf.build_id_len)
                continue;
            feat_build_id(w, feat);
            break;
        case HEADER_HOSTNAME: put_hstr(feat, "libds-test-kernel"); break;
        case HEADER_OSRELEASE: put_hstr(feat, h ? h->kernel : "?"); break;
        case HEADER_VERSION: put_hstr(feat, "dsdump (DSLOG 1)"); break;
        case HEADER_ARCH: put_hstr(feat, h && !strcmp(h->arch, "i386") ? "i386" : "x86_64"); break;
        case HEADER_NRCPUS: /* nr_cpus_available (the highest CPU + 1), nr_cpus_online */
            put32(feat, w->max_cpu + 1), put32(feat, w->ncpus ? w->ncpus : 1);
            break;
        case HEADER_CPUDESC: feat_cpudesc(w, feat); break;
        case HEADER_CMDLINE: put32(feat, 1), put_hstr(feat, w->in->cmdline ? w->in->cmdline : "dsdump"); break;
        case HEADER_EVENT_DESC: feat_event_desc(w, feat); break;
        default: continue;
        }
        bitmap[bit / 64] |= 1ull << (bit % 64);
        sec[*nsec] = (struct pf_section){at, feat->n - at};
        (*nsec)++;
    }
}

/* The file header, the attrs and their ids, streamed to b (at offset 0). */
static void write_head(const struct wr *w, struct buf *b, const struct pf_header *h, uint64_t ids_off)
{
    put(b, h, sizeof *h);
    size_t k = 0, n = w->in->nruns * K_KINDS;
    for (size_t i = 0; i < n; i++) {
        if (!w->ev[i].used)
            continue;
        struct pf_file_attr fa = {.attr = w->ev[i].attr, .ids = {ids_off + 8 * k++, 8}};
        put(b, &fa, sizeof fa);
        if (b->n >= STREAM_AT)
            buf_flush(b);
    }
    for (size_t i = 0; i < n; i++)
        if (w->ev[i].used)
            put64(b, ev_id(i / K_KINDS, (int)(i % K_KINDS)));
    buf_flush(b);
}

int pd_write(const char *path, const struct pd_input *in, char *err, size_t errsz)
{
    struct wr w = {.in = in};
    w.ev = calloc(in->nruns * K_KINDS + 1, sizeof *w.ev);
    struct buf head = {0}, feat = {0};
    int rc = -1, fd = -1;
    if (!w.ev)
        goto oom;
    define_events(&w);
    if (cpus_init(&w))
        goto oom;
    size_t nattr = 0;
    for (size_t i = 0; i < in->nruns * K_KINDS; i++)
        nattr += (size_t)w.ev[i].used;
    uint64_t attrs_off = sizeof(struct pf_header), ids_off = attrs_off + nattr * sizeof(struct pf_file_attr);
    uint64_t data_off = ids_off + nattr * 8;
    /* the data section first (streamed), then the feature sections, then the header */
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || lseek(fd, (off_t)data_off, SEEK_SET) < 0)
        goto ioerr;
    w.data.stream = 1, w.data.fd = fd;
    write_records(&w);
    buf_flush(&w.data);
    if (w.data.oom)
        goto oom;
    if (w.data.ioerr) {
        errno = w.data.ioerr;
        goto ioerr;
    }
    struct pf_header h = {.magic = "PERFILE2", .size = sizeof h, .attr_size = sizeof(struct pf_file_attr)};
    h.attrs = (struct pf_section){attrs_off, nattr * sizeof(struct pf_file_attr)};
    h.data = (struct pf_section){data_off, w.data.flushed};
    struct pf_section sec[64];
    int nsec;
    write_features(&w, &feat, h.features, sec, &nsec);
    uint64_t feat_off = data_off + w.data.flushed + (uint64_t)nsec * sizeof(struct pf_section);
    for (int i = 0; i < nsec; i++)
        sec[i].offset += feat_off;

    if (feat.oom)
        goto oom;
    if (write_all(fd, sec, (size_t)nsec * sizeof *sec) || write_all(fd, feat.p, feat.n) || lseek(fd, 0, SEEK_SET) < 0)
        goto ioerr;
    head.stream = 1, head.fd = fd;
    write_head(&w, &head, &h, ids_off);
    if (head.oom)
        goto oom;
    if (head.ioerr) {
        errno = head.ioerr;
        goto ioerr;
    }
    int cl = close(fd);
    fd = -1;
    if (cl)
        goto ioerr;
    rc = 0;
    goto out;
ioerr:
    snprintf(err, errsz, "%s: %s", path, strerror(errno));
    goto out;
oom:
    snprintf(err, errsz, "out of memory");
out:
    if (fd >= 0)
        close(fd);
    free(w.ev);
    free(w.slot);
    free(w.last);
    free(w.data.p);
    free(head.p);
    free(feat.p);
    return rc;
}

/* ---- the ELF's mapping and build-id ---- */

static void read_build_id(Elf *e, struct pd_elf *out)
{
    Elf_Scn *scn = NULL;
    GElf_Shdr sh;
    while ((scn = elf_nextscn(e, scn))) {
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
            continue;
        Elf_Data *d = elf_getdata(scn, NULL);
        GElf_Nhdr nh;
        size_t off = 0, noff, doff;
        while (d && (off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
            if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && !memcmp((char *)d->d_buf + noff, "GNU", 4) &&
                nh.n_descsz <= sizeof out->build_id) {
                memcpy(out->build_id, (char *)d->d_buf + doff, nh.n_descsz);
                out->build_id_len = nh.n_descsz;
                return;
            }
        }
    }
}

int pd_elf_read(const char *path, struct pd_elf *out, char *pathbuf, size_t pathsz, char *err, size_t errsz)
{
    memset(out, 0, sizeof *out);
    if (!realpath(path, pathbuf) || strlen(pathbuf) >= pathsz) {
        snprintf(err, errsz, "%s: %s", path, strerror(errno));
        return -1;
    }
    int fd = open(path, O_RDONLY);
    Elf *e = fd >= 0 && elf_version(EV_CURRENT) != EV_NONE ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
    size_t nph = 0;
    if (!e || elf_getphdrnum(e, &nph)) {
        snprintf(err, errsz, "%s: not an ELF file with program headers", path);
        goto fail;
    }
    for (size_t i = 0; i < nph; i++) {
        GElf_Phdr ph;
        if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
            out->start = ph.p_vaddr, out->len = ph.p_memsz, out->pgoff = ph.p_offset;
            break;
        }
    }
    if (!out->len) {
        snprintf(err, errsz, "%s: no executable PT_LOAD segment", path);
        goto fail;
    }
    read_build_id(e, out);
    out->path = pathbuf;
    elf_end(e);
    close(fd);
    return 0;
fail:
    if (e)
        elf_end(e);
    if (fd >= 0)
        close(fd);
    return -1;
}

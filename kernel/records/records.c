/* SPDX-License-Identifier: BSD-2-Clause */
/* DSLOG record printer (docs/records.md, version 1). Freestanding: no libc. */
#include "records.h"

uint32_t dsrec_fnv1a(uint32_t h, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        h ^= (uint8_t)s[i];
        h *= 0x01000193u;
    }
    return h;
}

static size_t slen(const char *s)
{
    size_t n = 0;
    while (s[n])
        n++;
    return n;
}

/* Names: 1..DSREC_NAME_MAX characters of [A-Za-z0-9_.:+-]. */
static bool name_ok(const char *s)
{
    if (!s || !s[0])
        return false;
    size_t n = 0;
    for (; s[n]; n++) {
        char c = s[n];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '_' || c == '.' || c == ':' || c == '+' || c == '-';
        if (!ok || n >= DSREC_NAME_MAX)
            return false;
    }
    return true;
}

static void put(struct dsrec_out *o, const char *s, size_t n)
{
    if (!n)
        return;
    o->hash = dsrec_fnv1a(o->hash, s, n);
    o->write(o->ctx, s, n);
}

static void puts_(struct dsrec_out *o, const char *s)
{
    put(o, s, slen(s));
}

static void put_hex(struct dsrec_out *o, uint64_t v)
{
    char b[18];
    int i = 18;
    do {
        b[--i] = "0123456789abcdef"[v & 15];
        v >>= 4;
    } while (v);
    b[--i] = 'x';
    b[--i] = '0';
    put(o, b + i, (size_t)(18 - i));
}

static void put_dec(struct dsrec_out *o, uint64_t v)
{
    char b[20];
    int i = 20;
    do {
        /* 64-bit division would need libgcc's __udivdi3 on i386: divide by 10 by hand. */
        uint64_t q = 0, r = 0;
        for (int bit = 63; bit >= 0; bit--) {
            r = (r << 1) | ((v >> bit) & 1);
            if (r >= 10) {
                r -= 10;
                q |= 1ull << bit;
            }
        }
        b[--i] = (char)('0' + r);
        v = q;
    } while (v);
    put(o, b + i, (size_t)(20 - i));
}

/* " key=0x..." */
static void kv_hex(struct dsrec_out *o, const char *k, uint64_t v)
{
    put(o, " ", 1);
    puts_(o, k);
    put(o, "=", 1);
    put_hex(o, v);
}

static void kv_dec(struct dsrec_out *o, const char *k, uint64_t v)
{
    put(o, " ", 1);
    puts_(o, k);
    put(o, "=", 1);
    put_dec(o, v);
}

static void kv_str(struct dsrec_out *o, const char *k, const char *v)
{
    put(o, " ", 1);
    puts_(o, k);
    put(o, "=", 1);
    puts_(o, v);
}

static void line_begin(struct dsrec_out *o, const char *type)
{
    o->hash = DSREC_FNV_INIT;
    puts_(o, "DSLOG 1 ");
    puts_(o, type);
}

static void line_end(struct dsrec_out *o)
{
    char b[13];
    uint32_t h = o->hash;
    b[0] = ' ';
    b[1] = 'c';
    b[2] = 'k';
    b[3] = '=';
    for (int i = 0; i < 8; i++)
        b[4 + i] = "0123456789abcdef"[(h >> (28 - 4 * i)) & 15];
    b[12] = '\n';
    o->write(o->ctx, b, 13);
}

enum dsrec_err dsrec_init(struct dsrec_out *o, dsrec_write_fn write, void *ctx)
{
    if (!o || !write)
        return DSREC_ERR_NULL;
    o->write = write;
    o->ctx = ctx;
    o->hash = DSREC_FNV_INIT;
    o->header_done = false;
    o->ended = false;
    o->run_records = 0;
    o->total_records = 0;
    o->runs = 0;
    o->lbr_snap = 0;
    return DSREC_OK;
}

static enum dsrec_err ready(const struct dsrec_out *o)
{
    if (!o || !o->write)
        return DSREC_ERR_NULL;
    if (!o->header_done || o->ended)
        return DSREC_ERR_STATE;
    return DSREC_OK;
}

enum dsrec_err dsrec_header(struct dsrec_out *o, const struct dsrec_header *h)
{
    if (!o || !o->write || !h)
        return DSREC_ERR_NULL;
    if (!name_ok(h->arch) || !name_ok(h->backend) || !name_ok(h->profile) || !name_ok(h->kernel) ||
        (h->why && !name_ok(h->why)))
        return DSREC_ERR_NAME;
    line_begin(o, "HDR");
    kv_str(o, "arch", h->arch);
    kv_str(o, "backend", h->backend);
    kv_str(o, "profile", h->profile);
    kv_str(o, "kernel", h->kernel);
    if (h->why)
        kv_str(o, "why", h->why);
    if (h->has_cpu)
        kv_dec(o, "cpu", h->cpu);
    if (h->tsc_khz)
        kv_dec(o, "tsc_khz", h->tsc_khz);
    line_end(o);
    o->header_done = true;
    o->ended = false;
    o->run_records = o->total_records = o->runs = o->lbr_snap = 0;
    return DSREC_OK;
}

static void record_done(struct dsrec_out *o)
{
    o->run_records++;
    o->total_records++;
}

static void gprs(struct dsrec_out *o, const struct dsrec_pebs *r, bool r8_15)
{
    static const char *const rn[8] = {"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15"};
    kv_hex(o, "flags", r->flags);
    kv_hex(o, "ip", r->ip);
    kv_hex(o, "ax", r->ax);
    kv_hex(o, "bx", r->bx);
    kv_hex(o, "cx", r->cx);
    kv_hex(o, "dx", r->dx);
    kv_hex(o, "si", r->si);
    kv_hex(o, "di", r->di);
    kv_hex(o, "bp", r->bp);
    kv_hex(o, "sp", r->sp);
    if (r8_15)
        for (int i = 0; i < 8; i++)
            kv_hex(o, rn[i], r->r[i]);
}

static void meminfo(struct dsrec_out *o, const struct dsrec_pebs *r)
{
    kv_hex(o, "data_la", r->data_la);
    kv_hex(o, "dse", r->dse);
    kv_dec(o, "latency", r->latency);
}

/* Expected adaptive record size from the header's group bits (pebs-records.md group table). */
static uint64_t adaptive_size(uint64_t hdr, uint32_t lbr_count)
{
    uint64_t n = 32;
    if (hdr & DSREC_ADAPTIVE_MEMINFO)
        n += 32;
    if (hdr & DSREC_ADAPTIVE_GPRS)
        n += 144;
    if (hdr & DSREC_ADAPTIVE_XMM)
        n += 256;
    if (hdr & DSREC_ADAPTIVE_LBR)
        n += 24ull * lbr_count;
    return n;
}

static unsigned popc32(uint32_t v)
{
    unsigned n = 0;
    for (; v; v &= v - 1)
        n++;
    return n;
}

/* Format 6 counters group bytes (Linux pebs_update_adaptive_cfg): a 16-byte
 * header, one qword per GP and fixed counter, 2 with metrics; 0 without it. */
static uint64_t cntr_size(const struct dsrec_pebs *r)
{
    if (!(r->hdr & (DSREC_ADAPTIVE_CNTRS | DSREC_ADAPTIVE_METRICS)))
        return 0;
    return 16 + 8ull * (popc32(r->cntr_gp_mask) + popc32(r->cntr_fixed_mask)) + (r->has_metrics ? 16 : 0);
}

/* Adaptive header checks: LBR entries, counters group only on fmt 6 with
 * masks that fit DATA_CFG (GP 15:0, fixed 7:0), size = groups. */
static enum dsrec_err adaptive_check(const struct dsrec_pebs *r)
{
    bool lbr = (r->hdr & DSREC_ADAPTIVE_LBR) != 0;
    bool cntr = (r->hdr & (DSREC_ADAPTIVE_CNTRS | DSREC_ADAPTIVE_METRICS)) != 0;
    if (lbr ? (r->lbr_count < 1 || r->lbr_count > DSREC_PEBS_LBR_MAX) : r->lbr_count != 0)
        return DSREC_ERR_HDR;
    if (cntr && r->fmt != DSREC_PEBS_FMT6)
        return DSREC_ERR_HDR;   /* bits 4/5 are reserved on formats 4 and 5 */
    if (cntr && ((r->cntr_gp_mask >> 16) || (r->cntr_fixed_mask >> 8)))
        return DSREC_ERR_RANGE;
    if ((r->hdr >> DSREC_ADAPTIVE_SIZE_SHIFT) != adaptive_size(r->hdr, r->lbr_count) + cntr_size(r))
        return DSREC_ERR_HDR;
    return DSREC_OK;
}

/* gpN= / fixedN= per set mask bit (ascending), then slots= metrics=. */
static void cntr_fields(struct dsrec_out *o, const struct dsrec_pebs *r)
{
    for (uint32_t n = 0; n < 24; n++) {
        bool gp = n < 16;
        uint32_t i = gp ? n : n - 16;
        if (!((gp ? r->cntr_gp_mask : r->cntr_fixed_mask) >> i & 1))
            continue;
        put(o, gp ? " gp" : " fixed", gp ? 3 : 6);
        put_dec(o, i);
        put(o, "=", 1);
        put_hex(o, gp ? r->cntr_gp[i] : r->cntr_fixed[i]);
    }
    if (r->has_metrics) {
        kv_hex(o, "slots", r->slots);
        kv_hex(o, "metrics", r->metrics);
    }
}

/* xmm0..xmm15 = high:low as 32 hex digits. */
static void xmm_fields(struct dsrec_out *o, const struct dsrec_pebs *r)
{
    for (unsigned i = 0; i < 16; i++) {
        char k[6], v[35];
        k[0] = 'x';
        k[1] = 'm';
        k[2] = 'm';
        if (i < 10) {
            k[3] = (char)('0' + i);
            k[4] = 0;
        } else {
            k[3] = '1';
            k[4] = (char)('0' + i - 10);
            k[5] = 0;
        }
        v[0] = '0';
        v[1] = 'x';
        for (int j = 0; j < 32; j++) {
            uint64_t w = j < 16 ? r->xmm[i][1] : r->xmm[i][0];
            v[2 + j] = "0123456789abcdef"[(w >> (60 - 4 * (j & 15))) & 15];
        }
        v[34] = 0;
        kv_str(o, k, v);
    }
}

/* lbrN=from/to/info, entry 0 first. */
static void lbr_fields(struct dsrec_out *o, const struct dsrec_pebs *r)
{
    for (uint32_t i = 0; i < r->lbr_count; i++) {
        put(o, " lbr", 4);
        put_dec(o, i);
        put(o, "=", 1);
        put_hex(o, r->lbr[i].from);
        put(o, "/", 1);
        put_hex(o, r->lbr[i].to);
        put(o, "/", 1);
        put_hex(o, r->lbr[i].info);
    }
}

/* Smallest size a fmt=arch record with these groups can have: a 16-byte header
 * per fragment, basic 48, aux 64, GPRs 160, XER header + XMM 272, LBR header 48
 * + 24 per entry (Linux struct arch_pebs_*); the counters group adds more. */
static uint64_t arch_min_size(uint64_t hdr, uint32_t frags, uint32_t lbr_count)
{
    uint64_t n = 16ull * frags + 48;
    if (hdr & DSREC_ARCH_AUX)
        n += 64;
    if (hdr & DSREC_ARCH_GPR)
        n += 160;
    if (hdr & DSREC_ARCH_XMM)
        n += 272;
    if ((hdr >> DSREC_ARCH_LBR_SHIFT) & 3)
        n += 48 + 24ull * lbr_count;
    return n;
}

/* fmt=arch: header consistency (basic group, fragments, LBR entries, size). */
static enum dsrec_err arch_check(const struct dsrec_pebs *r)
{
    bool lbr = ((r->hdr >> DSREC_ARCH_LBR_SHIFT) & 3) != 0;
    if (!(r->hdr & DSREC_ARCH_BASIC) || r->frags < 1 || r->frags > 0xFFFF)
        return DSREC_ERR_HDR;
    if (lbr ? (r->lbr_count < 1 || r->lbr_count > DSREC_PEBS_LBR_MAX) : r->lbr_count != 0)
        return DSREC_ERR_HDR;
    uint64_t min = arch_min_size(r->hdr, r->frags, r->lbr_count), size = r->hdr & DSREC_ARCH_SIZE_MASK;
    if ((r->hdr & DSREC_ARCH_CNTR) ? size < min : size != min)
        return DSREC_ERR_HDR;
    return DSREC_OK;
}

/* fmt=arch fields (docs/records.md). */
static void arch_fields(struct dsrec_out *o, const struct dsrec_pebs *r)
{
    kv_hex(o, "hdr", r->hdr);
    kv_dec(o, "frags", r->frags);
    kv_hex(o, "eventing_ip", r->eventing_ip);
    kv_hex(o, "counters", r->counters);
    kv_hex(o, "tsc", r->tsc);
    if (r->hdr & DSREC_ARCH_AUX) {
        meminfo(o, r);
        kv_hex(o, "tsx", r->tsx);
    }
    if (r->hdr & DSREC_ARCH_GPR) {
        gprs(o, r, true);
        kv_hex(o, "ssp", r->ssp);
    }
    if (r->hdr & DSREC_ARCH_XMM)
        xmm_fields(o, r);
    if ((r->hdr >> DSREC_ARCH_LBR_SHIFT) & 3)
        lbr_fields(o, r);
}

/* The checks every record printer starts with: a ready output, a record, a valid run name. */
static enum dsrec_err record_args(const struct dsrec_out *o, const char *run, const void *rec)
{
    enum dsrec_err e = ready(o);
    if (e)
        return e;
    if (!rec || !run)
        return DSREC_ERR_NULL;
    if (!name_ok(run))
        return DSREC_ERR_NAME;
    return DSREC_OK;
}

/* The record's own checks: a known format, the format's fields in range. */
static enum dsrec_err pebs_check(const struct dsrec_pebs *r)
{
    enum dsrec_err e;
    bool adaptive = r->fmt >= DSREC_PEBS_FMT4 && r->fmt <= DSREC_PEBS_FMT6;
    if (r->fmt > DSREC_PEBS_FMT6 && r->fmt != DSREC_PEBS_NB32 && r->fmt != DSREC_PEBS_NB64 &&
        r->fmt != DSREC_PEBS_ARCH)
        return DSREC_ERR_FMT;
    if (r->fmt == DSREC_PEBS_ARCH && (e = arch_check(r)) != DSREC_OK)
        return e;
    if (r->counter < -1 || r->counter > 63)
        return DSREC_ERR_RANGE;
    if (adaptive) {
        if ((e = adaptive_check(r)) != DSREC_OK)
            return e;
    } else if (r->fmt == DSREC_PEBS_NB32) {
        /* 32-bit record: every field is 32 bits wide. */
        uint64_t all = r->flags | r->ip | r->ax | r->bx | r->cx | r->dx | r->si | r->di | r->bp | r->sp;
        if (all >> 32)
            return DSREC_ERR_RANGE;
    }
    return DSREC_OK;
}

/* The fields after counter=, per format. */
static void pebs_fields(struct dsrec_out *o, const struct dsrec_pebs *r)
{
    switch (r->fmt) {
    case DSREC_PEBS_ARCH:
        arch_fields(o, r);
        break;
    case DSREC_PEBS_NB32:
        gprs(o, r, false);
        break;
    case DSREC_PEBS_NB64:
    case DSREC_PEBS_FMT0:
        gprs(o, r, true);
        break;
    case DSREC_PEBS_FMT1:
    case DSREC_PEBS_FMT2:
    case DSREC_PEBS_FMT3:
        gprs(o, r, true);
        if (r->fmt == DSREC_PEBS_FMT3)
            kv_hex(o, "counters", r->counters);
        else
            kv_hex(o, "status", r->status);
        meminfo(o, r);
        if (r->fmt >= DSREC_PEBS_FMT2) {
            kv_hex(o, "eventing_ip", r->eventing_ip);
            kv_hex(o, "tsx", r->tsx);
        }
        if (r->fmt == DSREC_PEBS_FMT3)
            kv_hex(o, "tsc", r->tsc);
        break;
    default: /* 4, 5, 6: adaptive */
        kv_hex(o, "hdr", r->hdr);
        kv_hex(o, "eventing_ip", r->eventing_ip);
        kv_hex(o, "counters", r->counters);
        kv_hex(o, "tsc", r->tsc);
        if (r->hdr & DSREC_ADAPTIVE_MEMINFO) {
            meminfo(o, r);
            kv_hex(o, "tsx", r->tsx);
        }
        if (r->hdr & DSREC_ADAPTIVE_GPRS)
            gprs(o, r, true);
        if (r->hdr & DSREC_ADAPTIVE_XMM)
            xmm_fields(o, r);
        if (r->hdr & DSREC_ADAPTIVE_LBR)
            lbr_fields(o, r);
        if (r->hdr & (DSREC_ADAPTIVE_CNTRS | DSREC_ADAPTIVE_METRICS))
            cntr_fields(o, r);
        break;
    }
}

enum dsrec_err dsrec_pebs(struct dsrec_out *o, const char *run, uint32_t seq, const struct dsrec_pebs *r)
{
    enum dsrec_err e = record_args(o, run, r);
    if (e)
        return e;
    if ((e = pebs_check(r)) != DSREC_OK)
        return e;
    line_begin(o, "PEBS");
    kv_str(o, "run", run);
    kv_dec(o, "seq", seq);
    if (r->fmt == DSREC_PEBS_NB32)
        kv_str(o, "fmt", "nb32");
    else if (r->fmt == DSREC_PEBS_NB64)
        kv_str(o, "fmt", "nb64");
    else if (r->fmt == DSREC_PEBS_ARCH)
        kv_str(o, "fmt", "arch");
    else
        kv_dec(o, "fmt", r->fmt);
    if (r->counter >= 0)
        kv_dec(o, "counter", (uint64_t)r->counter);
    pebs_fields(o, r);
    line_end(o);
    record_done(o);
    return DSREC_OK;
}

enum dsrec_err dsrec_bts(struct dsrec_out *o, const char *run, uint32_t seq, const struct dsrec_bts *r)
{
    enum dsrec_err e = record_args(o, run, r);
    if (e)
        return e;
    line_begin(o, "BTS");
    kv_str(o, "run", run);
    kv_dec(o, "seq", seq);
    kv_hex(o, "from", r->from);
    kv_hex(o, "to", r->to);
    kv_dec(o, "pred", (r->flags >> 4) & 1);
    kv_hex(o, "flags", r->flags);
    line_end(o);
    record_done(o);
    return DSREC_OK;
}

uint32_t dsrec_lbr_snapshot(struct dsrec_out *o)
{
    return o ? o->lbr_snap++ : 0;
}

enum dsrec_err dsrec_lbr(struct dsrec_out *o, const char *run, const struct dsrec_lbr *r)
{
    enum dsrec_err e = record_args(o, run, r);
    if (e)
        return e;
    if (r->of < 1 || r->idx >= r->of || r->of > 64 || r->lbrfmt < -1 || r->lbrfmt > 63)
        return DSREC_ERR_RANGE;
    line_begin(o, "LBR");
    kv_str(o, "run", run);
    kv_dec(o, "snap", r->snap);
    kv_dec(o, "idx", r->idx);
    kv_dec(o, "of", r->of);
    kv_hex(o, "from", r->from);
    kv_hex(o, "to", r->to);
    if (r->has_mispred)
        kv_dec(o, "mispred", r->mispred ? 1 : 0);
    if (r->has_cycles)
        kv_dec(o, "cycles", r->cycles);
    if (r->has_info)
        kv_hex(o, "info", r->info);
    if (r->lbrfmt >= 0)
        kv_dec(o, "lbrfmt", (uint64_t)r->lbrfmt);
    line_end(o);
    record_done(o);
    return DSREC_OK;
}

static const char *kind_name(uint32_t k)
{
    switch (k) {
    case DSREC_KIND_PEBS: return "pebs";
    case DSREC_KIND_BTS: return "bts";
    case DSREC_KIND_LBR: return "lbr";
    default: return NULL;
    }
}

enum dsrec_err dsrec_lost(struct dsrec_out *o, const char *run, const struct dsrec_lost *l)
{
    enum dsrec_err e = record_args(o, run, l);
    if (e)
        return e;
    if (!name_ok(l->reason))
        return DSREC_ERR_NAME;
    const char *k = kind_name(l->kind);
    if (!k)
        return DSREC_ERR_RANGE;
    line_begin(o, "LOST");
    kv_str(o, "run", run);
    kv_str(o, "kind", k);
    kv_str(o, "reason", l->reason);
    kv_dec(o, "count", l->count);
    line_end(o);
    return DSREC_OK;
}

enum dsrec_err dsrec_run(struct dsrec_out *o, const struct dsrec_run *r)
{
    enum dsrec_err e = ready(o);
    if (e)
        return e;
    if (!r)
        return DSREC_ERR_NULL;
    if (!name_ok(r->name) || !name_ok(r->kind) || (r->workload && !name_ok(r->workload)))
        return DSREC_ERR_NAME;
    line_begin(o, "RUN");
    kv_str(o, "name", r->name);
    kv_str(o, "kind", r->kind);
    if (r->workload)
        kv_str(o, "workload", r->workload);
    kv_dec(o, "events", r->events);
    kv_dec(o, "period", r->period);
    kv_dec(o, "samples", r->samples);
    kv_dec(o, "records", o->run_records);
    line_end(o);
    o->run_records = 0;
    o->runs++;
    return DSREC_OK;
}

enum dsrec_err dsrec_end(struct dsrec_out *o, uint32_t passed, uint32_t failed, uint32_t skipped)
{
    enum dsrec_err e = ready(o);
    if (e)
        return e;
    line_begin(o, "END");
    kv_dec(o, "runs", o->runs);
    kv_dec(o, "records", o->total_records);
    kv_dec(o, "passed", passed);
    kv_dec(o, "failed", failed);
    kv_dec(o, "skipped", skipped);
    line_end(o);
    o->ended = true;
    return DSREC_OK;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* DSLOG version 1 reader (docs/records.md). */
#include "dslog.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define T(x) (1u << DSLOG_##x)

static const struct {
    const char *name;
    enum dslog_vkind kind;
    unsigned types; /* record types that define the key */
} keys[K__COUNT] = {
    [K_RUN] = {"run", V_STR, T(PEBS) | T(BTS) | T(LBR) | T(LOST)},
    [K_SEQ] = {"seq", V_DEC, T(PEBS) | T(BTS)},
    [K_FMT] = {"fmt", V_FMT, T(PEBS)},
    [K_COUNTER] = {"counter", V_DEC, T(PEBS)},
    [K_FLAGS] = {"flags", V_HEX, T(PEBS) | T(BTS)},
    [K_IP] = {"ip", V_HEX, T(PEBS)},
    [K_AX] = {"ax", V_HEX, T(PEBS)},
    [K_BX] = {"bx", V_HEX, T(PEBS)},
    [K_CX] = {"cx", V_HEX, T(PEBS)},
    [K_DX] = {"dx", V_HEX, T(PEBS)},
    [K_SI] = {"si", V_HEX, T(PEBS)},
    [K_DI] = {"di", V_HEX, T(PEBS)},
    [K_BP] = {"bp", V_HEX, T(PEBS)},
    [K_SP] = {"sp", V_HEX, T(PEBS)},
    [K_R8] = {"r8", V_HEX, T(PEBS)},
    [K_R9] = {"r9", V_HEX, T(PEBS)},
    [K_R10] = {"r10", V_HEX, T(PEBS)},
    [K_R11] = {"r11", V_HEX, T(PEBS)},
    [K_R12] = {"r12", V_HEX, T(PEBS)},
    [K_R13] = {"r13", V_HEX, T(PEBS)},
    [K_R14] = {"r14", V_HEX, T(PEBS)},
    [K_R15] = {"r15", V_HEX, T(PEBS)},
    [K_STATUS] = {"status", V_HEX, T(PEBS)},
    [K_COUNTERS] = {"counters", V_HEX, T(PEBS)},
    [K_DATA_LA] = {"data_la", V_HEX, T(PEBS)},
    [K_DSE] = {"dse", V_HEX, T(PEBS)},
    [K_LATENCY] = {"latency", V_DEC, T(PEBS)},
    [K_EVENTING_IP] = {"eventing_ip", V_HEX, T(PEBS)},
    [K_TSX] = {"tsx", V_HEX, T(PEBS)},
    [K_TSC] = {"tsc", V_HEX, T(PEBS)},
    [K_HDR] = {"hdr", V_HEX, T(PEBS)},
    [K_FROM] = {"from", V_HEX, T(BTS) | T(LBR)},
    [K_TO] = {"to", V_HEX, T(BTS) | T(LBR)},
    [K_PRED] = {"pred", V_BOOL, T(BTS)},
    [K_SNAP] = {"snap", V_DEC, T(LBR)},
    [K_IDX] = {"idx", V_DEC, T(LBR)},
    [K_OF] = {"of", V_DEC, T(LBR)},
    [K_MISPRED] = {"mispred", V_BOOL, T(LBR)},
    [K_CYCLES] = {"cycles", V_DEC, T(LBR)},
    [K_INFO] = {"info", V_HEX, T(LBR)},
    [K_LBRFMT] = {"lbrfmt", V_DEC, T(LBR)},
    [K_KIND] = {"kind", V_STR, T(LOST) | T(RUN)},
    [K_REASON] = {"reason", V_STR, T(LOST)},
    [K_COUNT] = {"count", V_DEC, T(LOST)},
    [K_NAME] = {"name", V_STR, T(RUN)},
    [K_WORKLOAD] = {"workload", V_STR, T(RUN)},
    [K_EVENTS] = {"events", V_DEC, T(RUN)},
    [K_PERIOD] = {"period", V_DEC, T(RUN)},
    [K_SAMPLES] = {"samples", V_DEC, T(RUN)},
    [K_RECORDS] = {"records", V_DEC, T(RUN) | T(END)},
    [K_ARCH] = {"arch", V_STR, T(HDR)},
    [K_BACKEND] = {"backend", V_STR, T(HDR)},
    [K_PROFILE] = {"profile", V_STR, T(HDR)},
    [K_KERNEL] = {"kernel", V_STR, T(HDR)},
    [K_WHY] = {"why", V_STR, T(HDR)},
    [K_RUNS] = {"runs", V_DEC, T(END)},
    [K_PASSED] = {"passed", V_DEC, T(END)},
    [K_FAILED] = {"failed", V_DEC, T(END)},
    [K_SKIPPED] = {"skipped", V_DEC, T(END)},
    [K_CPU] = {"cpu", V_DEC, T(HDR)},  /* optional: APIC ID of the CPU that ran the log (issue 13) */
    [K_FRAGS] = {"frags", V_DEC, T(PEBS)},
    [K_SSP] = {"ssp", V_HEX, T(PEBS)},
    [K_SLOTS] = {"slots", V_HEX, T(PEBS)},
    [K_METRICS] = {"metrics", V_HEX, T(PEBS)},
};
_Static_assert(K__COUNT <= 64, "dslog_rec.have is a 64-bit mask");

static const char *const type_names[DSLOG_TYPE__COUNT] = {"HDR", "RUN", "PEBS", "BTS", "LBR", "LOST", "END"};

#define B(k) (1ull << (k))
/* Keys every record of a type must carry (PEBS: plus the per-format set). */
static const uint64_t required[DSLOG_TYPE__COUNT] = {
    [DSLOG_HDR] = B(K_ARCH) | B(K_BACKEND) | B(K_PROFILE) | B(K_KERNEL),
    [DSLOG_RUN] = B(K_NAME) | B(K_KIND) | B(K_EVENTS) | B(K_PERIOD) | B(K_SAMPLES) | B(K_RECORDS),
    [DSLOG_PEBS] = B(K_RUN) | B(K_SEQ) | B(K_FMT),
    [DSLOG_BTS] = B(K_RUN) | B(K_SEQ) | B(K_FROM) | B(K_TO) | B(K_PRED) | B(K_FLAGS),
    [DSLOG_LBR] = B(K_RUN) | B(K_SNAP) | B(K_IDX) | B(K_OF) | B(K_FROM) | B(K_TO),
    [DSLOG_LOST] = B(K_RUN) | B(K_KIND) | B(K_REASON) | B(K_COUNT),
    [DSLOG_END] = B(K_RUNS) | B(K_RECORDS) | B(K_PASSED) | B(K_FAILED) | B(K_SKIPPED),
};

#define PEBS_GPR32 (B(K_FLAGS) | B(K_IP) | B(K_AX) | B(K_BX) | B(K_CX) | B(K_DX) | B(K_SI) | B(K_DI) | B(K_BP) | B(K_SP))
#define PEBS_GPR64 (PEBS_GPR32 | B(K_R8) | B(K_R9) | B(K_R10) | B(K_R11) | B(K_R12) | B(K_R13) | B(K_R14) | B(K_R15))
#define PEBS_MEM (B(K_DATA_LA) | B(K_DSE) | B(K_LATENCY))

const char *dslog_key_name(enum dslog_key k) { return (unsigned)k < K__COUNT ? keys[k].name : "?"; }
enum dslog_vkind dslog_key_kind(enum dslog_key k) { return keys[k].kind; }
const char *dslog_type_name(enum dslog_type t) { return (unsigned)t < DSLOG_TYPE__COUNT ? type_names[t] : "?"; }

uint32_t dslog_fnv1a(uint32_t h, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        h ^= (uint8_t)s[i];
        h *= 0x01000193u;
    }
    return h;
}

static void seterr(char *err, size_t errsz, const char *fmt, ...)
{
    if (!err || !errsz)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errsz, fmt, ap);
    va_end(ap);
}

void dslog_reader_init(struct dslog_reader *rd)
{
    memset(rd, 0, sizeof *rd);
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* "0x" + 1..maxd hex digits. */
static bool parse_hex(const char *s, size_t n, size_t maxd, uint64_t *out_hi, uint64_t *out_lo)
{
    if (n < 3 || s[0] != '0' || s[1] != 'x' || n - 2 > maxd)
        return false;
    uint64_t hi = 0, lo = 0;
    for (size_t i = 2; i < n; i++) {
        int d = hexval(s[i]);
        if (d < 0)
            return false;
        hi = (hi << 4) | (lo >> 60);
        lo = (lo << 4) | (uint64_t)d;
    }
    if (out_hi)
        *out_hi = hi;
    *out_lo = lo;
    return true;
}

static bool parse_dec(const char *s, size_t n, uint64_t *out)
{
    if (n < 1 || n > 20 || (n > 1 && s[0] == '0'))
        return false;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            return false;
        v = v * 10 + d;
    }
    *out = v;
    return true;
}

static bool name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
           c == ':' || c == '+' || c == '-';
}

static bool parse_name(const char *s, size_t n, char *out)
{
    if (n < 1 || n > DSLOG_NAME_MAX)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!name_char(s[i]))
            return false;
    memcpy(out, s, n);
    out[n] = 0;
    return true;
}

/* Adaptive record size implied by the header's group bits. */
static uint64_t adaptive_size(uint64_t hdr, uint32_t lbrs)
{
    uint64_t n = 32;
    if (hdr & DSLOG_ADAPTIVE_MEMINFO)
        n += 32;
    if (hdr & DSLOG_ADAPTIVE_GPRS)
        n += 144;
    if (hdr & DSLOG_ADAPTIVE_XMM)
        n += 256;
    if (hdr & DSLOG_ADAPTIVE_LBR)
        n += 24ull * lbrs;
    return n;
}

/* fmt 6 counters group bytes (Linux pebs_update_adaptive_cfg): 16-byte header,
 * a qword per counter read, 2 with slots/metrics; 0 when hdr has no group. */
static uint64_t cntr_size(const struct dslog_rec *r)
{
    if (!(r->v[K_HDR] & DSLOG_ADAPTIVE_CNTR_GROUP))
        return 0;
    return 16 + 8ull * (unsigned)(__builtin_popcount(r->cntr_gp_mask) + __builtin_popcount(r->cntr_fixed_mask)) +
           (dslog_has(r, K_SLOTS) ? 16 : 0);
}

/* fmt 4-6: the counters group keys agree with the header (docs/records.md). */
static bool check_cntr(const struct dslog_rec *r, uint64_t fmt, char *err, size_t errsz)
{
    uint64_t hdr = r->v[K_HDR];
    bool group = (hdr & DSLOG_ADAPTIVE_CNTR_GROUP) != 0;
    bool keys_in = r->cntr_gp_mask || r->cntr_fixed_mask || dslog_has(r, K_SLOTS) || dslog_has(r, K_METRICS);
    if (group && fmt != 6) {
        seterr(err, errsz, "hdr=0x%llx has bit 4/5 (counters group), reserved on fmt=%u",
               (unsigned long long)hdr, (unsigned)fmt);
        return false;
    }
    if (keys_in && !group) {
        seterr(err, errsz, "gpN/fixedN/slots/metrics given but hdr=0x%llx has no counters group (bits 4/5)",
               (unsigned long long)hdr);
        return false;
    }
    if (dslog_has(r, K_SLOTS) != dslog_has(r, K_METRICS)) {
        seterr(err, errsz, "counters group: slots= and metrics= go together");
        return false;
    }
    return true;
}

/* Per-format key set of a PEBS record (exact: required and the only ones allowed). */
static uint64_t pebs_keys(uint64_t fmt, uint64_t hdr)
{
    switch (fmt) {
    case DSLOG_FMT_NB32: return PEBS_GPR32;
    case DSLOG_FMT_NB64:
    case 0: return PEBS_GPR64;
    case 1: return PEBS_GPR64 | B(K_STATUS) | PEBS_MEM;
    case 2: return PEBS_GPR64 | B(K_STATUS) | PEBS_MEM | B(K_EVENTING_IP) | B(K_TSX);
    case 3: return PEBS_GPR64 | B(K_COUNTERS) | PEBS_MEM | B(K_EVENTING_IP) | B(K_TSX) | B(K_TSC);
    case DSLOG_FMT_ARCH: {
        uint64_t k = B(K_HDR) | B(K_FRAGS) | B(K_EVENTING_IP) | B(K_COUNTERS) | B(K_TSC);
        if (hdr & DSLOG_ARCH_AUX)
            k |= PEBS_MEM | B(K_TSX);
        if (hdr & DSLOG_ARCH_GPR)
            k |= PEBS_GPR64 | B(K_SSP);
        return k;
    }
    default: {
        uint64_t k = B(K_HDR) | B(K_EVENTING_IP) | B(K_COUNTERS) | B(K_TSC);
        if (hdr & DSLOG_ADAPTIVE_MEMINFO)
            k |= PEBS_MEM | B(K_TSX);
        if (hdr & DSLOG_ADAPTIVE_GPRS)
            k |= PEBS_GPR64;
        return k;
    }
    }
}

const char *dslog_fmt_name(uint64_t f, char *buf)
{
    if (f == DSLOG_FMT_NB32)
        return "nb32";
    if (f == DSLOG_FMT_NB64)
        return "nb64";
    if (f == DSLOG_FMT_ARCH)
        return "arch";
    sprintf(buf, "%u", (unsigned)f);
    return buf;
}

/* fmt=arch: the smallest record its groups make (a 16-byte header per
 * fragment, basic 48, aux 64, GPRs 160, XER + XMM 272, LBR header 48 + 24 per
 * entry: Linux struct arch_pebs_*); the counters group adds an unknown amount. */
static bool check_arch(const struct dslog_rec *r, char *err, size_t errsz)
{
    uint64_t hdr = r->v[K_HDR], frags = r->v[K_FRAGS];
    if (!(hdr & DSLOG_ARCH_BASIC) || frags < 1 || frags > 0xFFFF) {
        seterr(err, errsz, "fmt=arch hdr=0x%llx frags=%llu: no basic group or bad fragment count",
               (unsigned long long)hdr, (unsigned long long)frags);
        return false;
    }
    uint64_t n = 16 * frags + 48 + ((hdr & DSLOG_ARCH_AUX) ? 64 : 0) + ((hdr & DSLOG_ARCH_GPR) ? 160 : 0) +
                 ((hdr & DSLOG_ARCH_XMM) ? 272 : 0) + (r->lbr_count ? 48 + 24ull * r->lbr_count : 0);
    uint64_t size = hdr & 0xFFFF;
    if ((hdr & DSLOG_ARCH_CNTR) ? size < n : size != n) {
        seterr(err, errsz, "hdr=0x%llx says record size %llu but its groups, %llu fragments and %u LBR entries make %s%llu",
               (unsigned long long)hdr, (unsigned long long)size, (unsigned long long)frags, r->lbr_count,
               (hdr & DSLOG_ARCH_CNTR) ? "at least " : "", (unsigned long long)n);
        return false;
    }
    return true;
}

/* PEBS keys: hdr= present where the format has a record header, and no key
 * that is not a field of this format (set: its fields, from pebs_keys). */
static bool check_pebs_allowed(const struct dslog_rec *r, uint64_t fmt, uint64_t set, char *err, size_t errsz)
{
    uint64_t allowed = B(K_RUN) | B(K_SEQ) | B(K_FMT) | B(K_COUNTER) | set;
    if (fmt == 6 && (r->v[K_HDR] & DSLOG_ADAPTIVE_CNTR_GROUP))
        allowed |= B(K_SLOTS) | B(K_METRICS);   /* optional: the group's metrics */
    char fb[16];
    bool adaptive = fmt >= 4 && fmt <= 6;
    if ((adaptive || fmt == DSLOG_FMT_ARCH) && !dslog_has(r, K_HDR)) {
        seterr(err, errsz, "PEBS fmt=%s record has no hdr= (adaptive record header)", dslog_fmt_name(fmt, fb));
        return false;
    }
    for (int k = 0; k < K__COUNT; k++) {
        if (dslog_has(r, (enum dslog_key)k) && !(allowed & B(k))) {
            seterr(err, errsz, "key '%s' is not a field of PEBS fmt=%s", keys[k].name, dslog_fmt_name(fmt, fb));
            return false;
        }
    }
    return true;
}

/* PEBS groups announced by hdr (XMM, LBR, counters) against the keys given,
 * and the record size in hdr against the groups (adaptive and arch formats). */
static bool check_pebs_groups(const struct dslog_rec *r, uint64_t fmt, char *err, size_t errsz)
{
    char fb[16];
    uint64_t hdr = r->v[K_HDR];
    bool adaptive = fmt >= 4 && fmt <= 6, arch = fmt == DSLOG_FMT_ARCH;
    bool want_xmm = (adaptive && (hdr & DSLOG_ADAPTIVE_XMM)) || (arch && (hdr & DSLOG_ARCH_XMM));
    bool want_lbr = (adaptive && (hdr & DSLOG_ADAPTIVE_LBR)) || (arch && ((hdr >> DSLOG_ARCH_LBR_SHIFT) & 3));
    if (r->have_xmm != want_xmm) {
        seterr(err, errsz, r->have_xmm ? "xmm0..xmm15 given but fmt=%s hdr has no XMM group"
                                       : "XMM group announced by hdr but xmm0..xmm15 missing (fmt=%s)",
               dslog_fmt_name(fmt, fb));
        return false;
    }
    if (want_lbr ? r->lbr_count == 0 : r->lbr_count != 0) {
        seterr(err, errsz, r->lbr_count ? "lbrN= given but fmt=%s hdr has no LBR group"
                                        : "LBR group announced by hdr but no lbr0= entry (fmt=%s)",
               dslog_fmt_name(fmt, fb));
        return false;
    }
    if (adaptive ? !check_cntr(r, fmt, err, errsz) : (r->cntr_gp_mask || r->cntr_fixed_mask)) {
        if (!adaptive)
            seterr(err, errsz, "gpN/fixedN keys are not fields of PEBS fmt=%s", dslog_fmt_name(fmt, fb));
        return false;
    }
    if (adaptive && (hdr >> 48) != adaptive_size(hdr, r->lbr_count) + cntr_size(r)) {
        seterr(err, errsz, "hdr=0x%llx says record size %llu but its groups, %u LBR entries and %u counters "
                           "group values make %llu", (unsigned long long)hdr, (unsigned long long)(hdr >> 48),
               r->lbr_count, (unsigned)(__builtin_popcount(r->cntr_gp_mask) +
                                        __builtin_popcount(r->cntr_fixed_mask)),
               (unsigned long long)(adaptive_size(hdr, r->lbr_count) + cntr_size(r)));
        return false;
    }
    return !arch || check_arch(r, err, errsz);
}

/* PEBS values: 32-bit fields of the NetBurst format, counter= in 0..63. */
static bool check_pebs_values(const struct dslog_rec *r, uint64_t fmt, uint64_t set, char *err, size_t errsz)
{
    if (fmt == DSLOG_FMT_NB32)
        for (int k = 0; k < K__COUNT; k++)
            if ((set & B(k)) && (r->v[k] >> 32)) {
                seterr(err, errsz, "%s=0x%llx does not fit the 32-bit NetBurst record", keys[k].name,
                       (unsigned long long)r->v[k]);
                return false;
            }
    if (dslog_has(r, K_COUNTER) && r->v[K_COUNTER] > 63) {
        seterr(err, errsz, "counter=%llu out of range 0..63", (unsigned long long)r->v[K_COUNTER]);
        return false;
    }
    return true;
}

/* Semantic checks of one record (after all keys were read). Which keys a
 * non-PEBS record may carry is settled by parse_fields (keys[].types). */
static bool check_record(struct dslog_rec *r, char *err, size_t errsz)
{
    uint64_t need = required[r->type];
    if (r->type == DSLOG_PEBS && dslog_has(r, K_FMT)) {
        uint64_t fmt = r->v[K_FMT];
        uint64_t set = pebs_keys(fmt, r->v[K_HDR]);
        need |= set;
        if (!check_pebs_allowed(r, fmt, set, err, errsz) || !check_pebs_groups(r, fmt, err, errsz) ||
            !check_pebs_values(r, fmt, set, err, errsz))
            return false;
    }
    uint64_t missing = need & ~r->have;
    if (missing) {
        int k = __builtin_ctzll(missing);
        seterr(err, errsz, "%s record lacks required key '%s'", type_names[r->type], keys[k].name);
        return false;
    }
    if (r->type == DSLOG_BTS && r->v[K_PRED] != ((r->v[K_FLAGS] >> 4) & 1)) {
        seterr(err, errsz, "pred=%llu disagrees with flags=0x%llx bit 4", (unsigned long long)r->v[K_PRED],
               (unsigned long long)r->v[K_FLAGS]);
        return false;
    }
    if (r->type == DSLOG_LBR && (r->v[K_OF] < 1 || r->v[K_OF] > 64 || r->v[K_IDX] >= r->v[K_OF])) {
        seterr(err, errsz, "LBR idx=%llu of=%llu: need idx < of <= 64", (unsigned long long)r->v[K_IDX],
               (unsigned long long)r->v[K_OF]);
        return false;
    }
    if (r->type == DSLOG_LOST && strcmp(r->s[K_KIND], "pebs") && strcmp(r->s[K_KIND], "bts") &&
        strcmp(r->s[K_KIND], "lbr")) {
        seterr(err, errsz, "LOST kind=%s is not pebs, bts or lbr", r->s[K_KIND]);
        return false;
    }
    return true;
}

/* Parse "lbrN=0xF/0xT/0xI". */
static bool parse_lbr(struct dslog_rec *r, const char *k, size_t kn, const char *v, size_t vn, char *err, size_t errsz)
{
    uint64_t idx;
    if (!parse_dec(k + 3, kn - 3, &idx) || idx >= DSLOG_LBR_MAX) {
        seterr(err, errsz, "bad LBR entry key '%.*s' (lbr0..lbr31)", (int)kn, k);
        return false;
    }
    if (idx != r->lbr_count) {
        seterr(err, errsz, "LBR entry '%.*s' out of order (expected lbr%u)", (int)kn, k, r->lbr_count);
        return false;
    }
    uint64_t t[3];
    const char *p = v, *end = v + vn;
    for (int i = 0; i < 3; i++) {
        const char *q = p;
        while (q < end && *q != '/')
            q++;
        if (!parse_hex(p, (size_t)(q - p), 16, NULL, &t[i]) || (i < 2 ? q == end : q != end)) {
            seterr(err, errsz, "bad value '%.*s' for %.*s (want 0xFROM/0xTO/0xINFO)", (int)vn, v, (int)kn, k);
            return false;
        }
        p = q + 1;
    }
    memcpy(r->lbr[r->lbr_count++], t, sizeof t);
    return true;
}

/* Parse "gpN=0x.." (N 0..15) or "fixedN=0x.." (N 0..7): counters group values. */
static bool parse_cntr(struct dslog_rec *r, const char *k, size_t kn, const char *v, size_t vn, char *err, size_t errsz)
{
    bool gp = k[0] == 'g';
    size_t pre = gp ? 2 : 5;
    uint64_t i;
    if (!parse_dec(k + pre, kn - pre, &i) || i >= (gp ? 16u : 8u)) {
        seterr(err, errsz, "bad key '%.*s' (gp0..gp15, fixed0..fixed7)", (int)kn, k);
        return false;
    }
    uint32_t *mask = gp ? &r->cntr_gp_mask : &r->cntr_fixed_mask;
    if (*mask & (1u << i)) {
        seterr(err, errsz, "duplicate key '%.*s'", (int)kn, k);
        return false;
    }
    if (!parse_hex(v, vn, 16, NULL, gp ? &r->cntr_gp[i] : &r->cntr_fixed[i])) {
        seterr(err, errsz, "bad value '%.*s' for %.*s (want 0x + 1..16 hex digits)", (int)(vn > 40 ? 40 : vn), v,
               (int)kn, k);
        return false;
    }
    *mask |= 1u << i;
    return true;
}

static bool parse_xmm(struct dslog_rec *r, const char *k, size_t kn, const char *v, size_t vn, uint64_t *seen,
                      char *err, size_t errsz)
{
    uint64_t i;
    if (!parse_dec(k + 3, kn - 3, &i) || i > 15) {
        seterr(err, errsz, "bad key '%.*s' (xmm0..xmm15)", (int)kn, k);
        return false;
    }
    if (*seen & (1u << i)) {
        seterr(err, errsz, "duplicate key '%.*s'", (int)kn, k);
        return false;
    }
    if (vn != 34 || !parse_hex(v, vn, 32, &r->xmm[i][1], &r->xmm[i][0])) {
        seterr(err, errsz, "bad value '%.*s' for %.*s (want 0x + 32 hex digits)", (int)vn, v, (int)kn, k);
        return false;
    }
    *seen |= 1u << i;
    return true;
}

/* Is the key tok[0..kn) prefix followed by a digit (lbr0, xmm3, gp1, fixed0)? */
static bool indexed_key(const char *tok, size_t kn, const char *prefix, size_t pn)
{
    return kn > pn && !memcmp(tok, prefix, pn) && tok[pn] >= '0' && tok[pn] <= '9';
}

/* The value of a fmt= key: nb32, nb64, arch or 0..6. */
static bool parse_fmt(const char *v, size_t vn, uint64_t *out)
{
    if (vn == 4 && !memcmp(v, "nb32", 4)) {
        *out = DSLOG_FMT_NB32;
        return true;
    } else if (vn == 4 && !memcmp(v, "nb64", 4)) {
        *out = DSLOG_FMT_NB64;
        return true;
    } else if (vn == 4 && !memcmp(v, "arch", 4)) {
        *out = DSLOG_FMT_ARCH;
        return true;
    }
    return parse_dec(v, vn, out) && *out <= 6;
}

/* Parses v[0..vn) as the value of table key k into r->v[k] / r->s[k]. */
static bool parse_value(struct dslog_rec *r, int k, const char *v, size_t vn, char *err, size_t errsz)
{
    bool ok;
    switch (keys[k].kind) {
    case V_HEX: ok = parse_hex(v, vn, 16, NULL, &r->v[k]); break;
    case V_DEC: ok = parse_dec(v, vn, &r->v[k]); break;
    case V_BOOL: ok = vn == 1 && (v[0] == '0' || v[0] == '1'); r->v[k] = (uint64_t)(v[0] == '1'); break;
    case V_STR: ok = parse_name(v, vn, r->s[k]); break;
    case V_FMT: ok = parse_fmt(v, vn, &r->v[k]); break;
    default: ok = false;
    }
    if (!ok) {
        static const char *const want[] = {"0x + 1..16 hex digits", "a decimal number", "a name of 1..31 [A-Za-z0-9_.:+-]",
                                           "0 or 1", "nb32, nb64, arch or 0..6"};
        seterr(err, errsz, "bad value '%.*s' for key '%s' (want %s)", (int)(vn > 40 ? 40 : vn), v, keys[k].name,
               want[keys[k].kind]);
    }
    return ok;
}

/* One key=value of the keys[] table (not an indexed group key). An unknown
 * key is counted and ignored: a later minor revision may add keys. */
static bool parse_table_key(struct dslog_rec *r, const char *tok, size_t kn, const char *v, size_t vn, char *err,
                            size_t errsz)
{
    int k;
    for (k = 0; k < K__COUNT; k++)
        if ((keys[k].types & (1u << r->type)) && strlen(keys[k].name) == kn && !memcmp(keys[k].name, tok, kn))
            break;
    if (k == K__COUNT) {
        if (!r->unknown_keys++)
            snprintf(r->first_unknown, sizeof r->first_unknown, "%.*s", (int)(kn > 31 ? 31 : kn), tok);
        return true;
    }
    if (r->have & B(k)) {
        seterr(err, errsz, "duplicate key '%s'", keys[k].name);
        return false;
    }
    if (!parse_value(r, k, v, vn, err, errsz))
        return false;
    r->have |= B(k);
    return true;
}

/* HDR tsc_khz= (issue 27, an optional key added to version 1 like cpu=; apart
 * from the table, whose 64-bit mask is full): the TSC frequency in kHz, > 0. */
static bool parse_tsc_khz(struct dslog_rec *r, const char *v, size_t vn, char *err, size_t errsz)
{
    uint64_t khz;
    if (r->tsc_khz) {
        seterr(err, errsz, "duplicate key 'tsc_khz'");
        return false;
    }
    if (!parse_dec(v, vn, &khz) || !khz || khz > 0xFFFFFFFFull) {
        seterr(err, errsz, "bad value '%.*s' for key 'tsc_khz' (kHz, 1..4294967295)", (int)(vn > 24 ? 24 : vn), v);
        return false;
    }
    r->tsc_khz = khz;
    return true;
}

/* One key=value token: the PEBS indexed keys lbrN, xmmN, gpN, fixedN, HDR
 * tsc_khz, else a table key. */
static bool parse_key(struct dslog_rec *r, const char *tok, size_t kn, const char *v, size_t vn, uint64_t *xmm_seen,
                      char *err, size_t errsz)
{
    bool pebs = r->type == DSLOG_PEBS;
    if (pebs && indexed_key(tok, kn, "lbr", 3))
        return parse_lbr(r, tok, kn, v, vn, err, errsz);
    if (pebs && indexed_key(tok, kn, "xmm", 3))
        return parse_xmm(r, tok, kn, v, vn, xmm_seen, err, errsz);
    if (pebs && (indexed_key(tok, kn, "gp", 2) || indexed_key(tok, kn, "fixed", 5)))
        return parse_cntr(r, tok, kn, v, vn, err, errsz);
    if (r->type == DSLOG_HDR && kn == 7 && !memcmp(tok, "tsc_khz", 7))
        return parse_tsc_khz(r, v, vn, err, errsz);
    return parse_table_key(r, tok, kn, v, vn, err, errsz);
}

static bool parse_fields(struct dslog_rec *r, const char *p, const char *end, char *err, size_t errsz)
{
    uint64_t xmm_seen = 0;
    while (p < end) {
        if (*p != ' ') {
            seterr(err, errsz, "expected a space before '%.*s'", (int)(end - p > 20 ? 20 : end - p), p);
            return false;
        }
        p++;
        const char *tok = p;
        while (p < end && *p != ' ')
            p++;
        size_t tn = (size_t)(p - tok);
        const char *eq = memchr(tok, '=', tn);
        if (!eq || eq == tok) {
            seterr(err, errsz, "token '%.*s' is not key=value", (int)(tn > 40 ? 40 : tn), tok);
            return false;
        }
        size_t kn = (size_t)(eq - tok);
        if (!parse_key(r, tok, kn, eq + 1, tn - kn - 1, &xmm_seen, err, errsz))
            return false;
    }
    if (xmm_seen && xmm_seen != 0xffff) {
        seterr(err, errsz, "XMM group incomplete: xmm%d missing", __builtin_ctz(~(unsigned)xmm_seen & 0xffff));
        return false;
    }
    r->have_xmm = xmm_seen != 0;
    return true;
}

/* After "DSLOG ": the format version, then the checksum, last token
 * " ck=XXXXXXXX" over everything from 'D' up to the space before it. On
 * success *end drops the checksum and *q points at the space after the version. */
static bool check_envelope(const char *p, const char **end, const char **q, char *err, size_t errsz)
{
    const char *vs = *q = p + 6, *e = *end;
    while (*q < e && **q >= '0' && **q <= '9')
        (*q)++;
    uint64_t ver, ck;
    if (*q == vs || *q == e || **q != ' ' || !parse_dec(vs, (size_t)(*q - vs), &ver)) {
        seterr(err, errsz, "malformed DSLOG line: no format version after 'DSLOG'");
        return false;
    }
    if (ver != DSLOG_VERSION) {
        seterr(err, errsz, "unsupported DSLOG format version %llu (this dsdump reads version %u)",
               (unsigned long long)ver, DSLOG_VERSION);
        return false;
    }
    if (e - p < 13 || memcmp(e - 12, " ck=", 4)) {
        seterr(err, errsz, "no ' ck=' checksum at the end of the line (line truncated?)");
        return false;
    }
    if (!parse_hex((const char[]){'0', 'x', e[-8], e[-7], e[-6], e[-5], e[-4], e[-3], e[-2], e[-1]}, 10, 8, NULL,
                   &ck)) {
        seterr(err, errsz, "bad checksum '%.8s' (want 8 hex digits)", e - 8);
        return false;
    }
    *end = e -= 12;
    uint32_t h = dslog_fnv1a(0x811c9dc5u, p, (size_t)(e - p));
    if (h != ck) {
        seterr(err, errsz, "checksum mismatch (line says %08llx, content gives %08x): line corrupted, cut or "
                           "interleaved with other output", (unsigned long long)ck, h);
        return false;
    }
    return true;
}

/* The record type token at q (up to a space or end) into out->type; *q moves past it. */
static bool parse_type(struct dslog_rec *out, const char **q, const char *end, char *err, size_t errsz)
{
    const char *ts = *q;
    while (*q < end && **q != ' ')
        (*q)++;
    size_t tn = (size_t)(*q - ts);
    int t;
    for (t = 0; t < DSLOG_TYPE__COUNT; t++)
        if (strlen(type_names[t]) == tn && !memcmp(type_names[t], ts, tn))
            break;
    if (t == DSLOG_TYPE__COUNT) {
        seterr(err, errsz, "unknown record type '%.*s' in format version 1", (int)(tn > 20 ? 20 : tn), ts);
        return false;
    }
    out->type = (enum dslog_type)t;
    return true;
}

/* A HDR line starts a log (and notes a previous log left without END). */
static enum dslog_status stream_hdr(struct dslog_reader *rd, char *err, size_t errsz)
{
    bool open = rd->in_log && !rd->ended;
    unsigned long prev = rd->hdr_line;
    rd->in_log = true;
    rd->ended = false;
    rd->hdr_line = rd->line;
    rd->run_records = rd->total_records = rd->runs = 0;
    rd->logs++;
    if (open) {
        seterr(err, errsz, "new header, but the log begun at line %lu has no END line (truncated?)", prev);
        return DSLOG_OK_BUT;
    }
    return DSLOG_OK;
}

/* RUN and END lines: their counts against the record lines read. */
static enum dslog_status stream_counts(struct dslog_reader *rd, const struct dslog_rec *out, char *err, size_t errsz)
{
    if (out->type == DSLOG_RUN) {
        uint64_t got = rd->run_records;
        rd->run_records = 0;
        rd->runs++;
        if (got != out->v[K_RECORDS]) {
            seterr(err, errsz, "RUN name=%s says records=%llu, but %llu record lines were read since the previous "
                               "RUN (lines lost?)", out->s[K_NAME], (unsigned long long)out->v[K_RECORDS],
                   (unsigned long long)got);
            return DSLOG_OK_BUT;
        }
        return DSLOG_OK;
    }
    rd->ended = true;
    if (out->v[K_RUNS] != rd->runs || out->v[K_RECORDS] != rd->total_records) {
        seterr(err, errsz, "END says runs=%llu records=%llu, but %llu RUN and %llu record lines were read "
                           "(lines lost?)", (unsigned long long)out->v[K_RUNS],
               (unsigned long long)out->v[K_RECORDS], (unsigned long long)rd->runs,
               (unsigned long long)rd->total_records);
        return DSLOG_OK_BUT;
    }
    return DSLOG_OK;
}

/* Stream consistency of a well-formed record: inside a log begun by HDR and not ended. */
static enum dslog_status stream_check(struct dslog_reader *rd, const struct dslog_rec *out, char *err, size_t errsz)
{
    if (out->type == DSLOG_HDR)
        return stream_hdr(rd, err, errsz);
    if (!rd->in_log) {
        seterr(err, errsz, "%s record before any 'DSLOG 1 HDR' header line", type_names[out->type]);
        return DSLOG_BAD;
    }
    if (rd->ended) {
        seterr(err, errsz, "%s record after the END line of the log begun at line %lu", type_names[out->type],
               rd->hdr_line);
        return DSLOG_BAD;
    }
    switch (out->type) {
    case DSLOG_PEBS:
    case DSLOG_BTS:
    case DSLOG_LBR:
        rd->run_records++;
        rd->total_records++;
        return DSLOG_OK;
    case DSLOG_RUN:
    case DSLOG_END: return stream_counts(rd, out, err, errsz);
    default: return DSLOG_OK;
    }
}

enum dslog_status dslog_feed(struct dslog_reader *rd, const char *line, size_t len, struct dslog_rec *out,
                             char *err, size_t errsz)
{
    rd->line++;
    while (len && (line[len - 1] == '\r' || line[len - 1] == '\n'))
        len--;
    /* The record starts at "DSLOG " anywhere on the line (boot-loader escape codes may precede it). */
    const char *p = NULL;
    for (size_t i = 0; i + 6 <= len; i++)
        if (!memcmp(line + i, "DSLOG ", 6)) {
            p = line + i;
            break;
        }
    if (!p)
        return DSLOG_NOT_RECORD;
    const char *end = line + len, *q;
    memset(out, 0, sizeof *out);
    if (!check_envelope(p, &end, &q, err, errsz))
        return DSLOG_BAD;
    q++;
    if (!parse_type(out, &q, end, err, errsz) || !parse_fields(out, q, end, err, errsz) ||
        !check_record(out, err, errsz))
        return DSLOG_BAD;
    return stream_check(rd, out, err, errsz);
}

bool dslog_finish(struct dslog_reader *rd, char *err, size_t errsz)
{
    if (!rd->logs) {
        seterr(err, errsz, "no 'DSLOG 1 HDR' header line in the input (not a libds kernel log?)");
        return false;
    }
    if (!rd->ended) {
        seterr(err, errsz, "input ends without the END line of the log begun at line %lu (truncated log?)",
               rd->hdr_line);
        return false;
    }
    return true;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* Round trip of the kernel's DSLOG printer through dsdump's reader, every PEBS
 * format, plus the printer's and the reader's handling of bad input. */
#include "check.h"
#include "dslog.h"
#include "records.h"

static char buf[1 << 16];
static size_t blen;

static void sink(void *ctx, const char *s, size_t n)
{
    (void)ctx;
    if (blen + n < sizeof buf) {
        memcpy(buf + blen, s, n);
        blen += n;
    }
    buf[blen] = 0;
}

/* Feed every line of buf to rd; return the status of the last line, its record in *out. */
static enum dslog_status feed_all(struct dslog_reader *rd, struct dslog_rec *out, char *err, int *nlines)
{
    enum dslog_status s = DSLOG_NOT_RECORD;
    char *p = buf;
    *nlines = 0;
    while (*p) {
        char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        s = dslog_feed(rd, p, n, out, err, 256);
        (*nlines)++;
        p += n + (nl ? 1 : 0);
    }
    return s;
}

static struct dsrec_out o;
static struct dslog_reader rd;
static struct dslog_rec rec;
static char err[256];

static void start(void)
{
    blen = 0;
    buf[0] = 0;
    dsrec_init(&o, sink, NULL);
    dslog_reader_init(&rd);
    struct dsrec_header h = {"x86_64", "model", "skylake", "dskernel-x86_64.elf", "no-ds-cpuid", false, 0, 0};
    CHECK_EQ(dsrec_header(&o, &h), DSREC_OK, "header");
    int n;
    CHECK_EQ(feed_all(&rd, &rec, err, &n), DSLOG_OK, "header parses: %s", err);
    CHECK(!strcmp(rec.s[K_PROFILE], "skylake") && !strcmp(rec.s[K_WHY], "no-ds-cpuid"), "header strings");
    blen = 0;
    buf[0] = 0;
}

static uint64_t val(int i, int bits32)
{
    uint64_t v = 0x1000000000000000ull * (uint64_t)(i % 15 + 1) + 0x0123456789abull * (uint64_t)(i + 1);
    return bits32 ? (v & 0xffffffffu) : v;
}

static void roundtrip_pebs(unsigned fmt, uint64_t groups, uint32_t nlbr)
{
    static struct dsrec_pebs p;
    memset(&p, 0, sizeof p);
    int b32 = fmt == DSREC_PEBS_NB32;
    p.fmt = fmt;
    p.counter = 3;
    uint64_t *f[] = {&p.flags, &p.ip, &p.ax, &p.bx, &p.cx, &p.dx, &p.si, &p.di, &p.bp, &p.sp,
                     &p.r[0], &p.r[1], &p.r[2], &p.r[3], &p.r[4], &p.r[5], &p.r[6], &p.r[7],
                     &p.status, &p.counters, &p.data_la, &p.dse, &p.latency, &p.eventing_ip, &p.tsx, &p.tsc};
    enum dslog_key k[] = {K_FLAGS, K_IP, K_AX, K_BX, K_CX, K_DX, K_SI, K_DI, K_BP, K_SP,
                          K_R8, K_R9, K_R10, K_R11, K_R12, K_R13, K_R14, K_R15,
                          K_STATUS, K_COUNTERS, K_DATA_LA, K_DSE, K_LATENCY, K_EVENTING_IP, K_TSX, K_TSC};
    for (unsigned i = 0; i < sizeof f / sizeof f[0]; i++)
        *f[i] = val((int)i, b32);
    p.latency = 0; /* also check that zero survives */
    for (int i = 0; i < 16; i++) {
        p.xmm[i][0] = val(i + 40, 0);
        p.xmm[i][1] = val(i + 60, 0);
    }
    p.lbr_count = nlbr;
    for (uint32_t i = 0; i < nlbr; i++) {
        p.lbr[i].from = val((int)i + 80, 0);
        p.lbr[i].to = val((int)i + 81, 0);
        p.lbr[i].info = i;
    }
    uint32_t size = 32 + ((groups & 1) ? 32 : 0) + ((groups & 2) ? 144 : 0) + ((groups & 4) ? 256 : 0) +
                    ((groups & 8) ? 24 * nlbr : 0);
    p.hdr = (uint64_t)size << 48 | groups;
    CHECK_EQ(dsrec_pebs(&o, "run-1", 7, &p), DSREC_OK, "print fmt 0x%x groups 0x%llx", fmt, (unsigned long long)groups);
    int n;
    enum dslog_status s = feed_all(&rd, &rec, err, &n);
    CHECK_EQ(s, DSLOG_OK, "parse fmt 0x%x groups 0x%llx: %s\n    %s", fmt, (unsigned long long)groups, err, buf);
    CHECK_EQ(n, 1, "one line");
    if (s != DSLOG_OK)
        return;
    CHECK_EQ(rec.type, DSLOG_PEBS, "type");
    CHECK_EQ(rec.v[K_FMT], fmt, "fmt");
    CHECK_EQ(rec.v[K_SEQ], 7, "seq");
    CHECK_EQ(rec.v[K_COUNTER], 3, "counter");
    CHECK(!strcmp(rec.s[K_RUN], "run-1"), "run name");
    unsigned printed = 0;
    for (unsigned i = 0; i < sizeof k / sizeof k[0]; i++) {
        if (dslog_has(&rec, k[i])) {
            printed++;
            CHECK_EQ(rec.v[k[i]], *f[i], "fmt 0x%x field %s", fmt, dslog_key_name(k[i]));
        }
    }
    /* Expected number of fields per format (pebs-records.md). */
    unsigned want;
    switch (fmt) {
    case DSREC_PEBS_NB32: want = 10; break;
    case DSREC_PEBS_NB64: case 0: want = 18; break;
    case 1: want = 22; break;
    case 2: want = 24; break;
    case 3: want = 25; break;
    default: want = 3 + ((groups & 1) ? 4 : 0) + ((groups & 2) ? 18 : 0); break;
    }
    CHECK_EQ(printed, want, "field count fmt 0x%x groups 0x%llx", fmt, (unsigned long long)groups);
    if (fmt >= 4 && fmt <= 6)
        CHECK_EQ(rec.v[K_HDR], p.hdr, "hdr");
    CHECK_EQ(rec.have_xmm, (fmt >= 4 && fmt <= 6) && (groups & 4), "xmm presence");
    if (rec.have_xmm)
        for (int i = 0; i < 16; i++)
            CHECK(rec.xmm[i][0] == p.xmm[i][0] && rec.xmm[i][1] == p.xmm[i][1], "xmm%d", i);
    CHECK_EQ(rec.lbr_count, (fmt >= 4 && fmt <= 6) && (groups & 8) ? nlbr : 0, "lbr count");
    for (uint32_t i = 0; i < rec.lbr_count; i++)
        CHECK(rec.lbr[i][0] == p.lbr[i].from && rec.lbr[i][1] == p.lbr[i].to && rec.lbr[i][2] == p.lbr[i].info,
              "lbr%u", i);
    blen = 0;
    buf[0] = 0;
}

/* fmt=arch round trip: hdr = whole-record size and group bits (docs/records.md),
 * sizes from Linux struct arch_pebs_* (header 16 per fragment, basic 48, aux
 * 64, GPRs 160, XER + XMM 272, LBR 48 + 24 N). */
static void roundtrip_arch(uint64_t groups, uint32_t frags, uint32_t nlbr)
{
    static struct dsrec_pebs p;
    memset(&p, 0, sizeof p);
    p.fmt = DSREC_PEBS_ARCH;
    p.counter = 0;
    p.frags = frags;
    p.eventing_ip = 0xffffffff81001234ull;
    p.counters = 1;
    p.tsc = 0x123456789ull;
    p.data_la = 0x7000;
    p.dse = 2;
    p.latency = 33;
    p.tsx = 0;
    p.flags = 0x246;
    p.ip = 0xffffffff81001238ull;
    p.ax = 1; p.cx = 3; p.r[7] = 15;
    p.ssp = 0xffff880000f00000ull;
    for (int i = 0; i < 16; i++) {
        p.xmm[i][0] = val(i + 40, 0);
        p.xmm[i][1] = val(i + 60, 0);
    }
    p.lbr_count = nlbr;
    for (uint32_t i = 0; i < nlbr; i++)
        p.lbr[i] = (struct dsrec_lbr_triple){val((int)i + 80, 0), val((int)i + 81, 0), i};
    uint64_t size = 16ull * frags + 48 + ((groups & DSREC_ARCH_AUX) ? 64 : 0) + ((groups & DSREC_ARCH_GPR) ? 160 : 0) +
                    ((groups & DSREC_ARCH_XMM) ? 272 : 0) + (nlbr ? 48 + 24ull * nlbr : 0);
    p.hdr = DSREC_ARCH_BASIC | groups | size;
    CHECK_EQ(dsrec_pebs(&o, "arch-1", 2, &p), DSREC_OK, "print arch groups 0x%llx", (unsigned long long)groups);
    int n;
    enum dslog_status s = feed_all(&rd, &rec, err, &n);
    CHECK_EQ(s, DSLOG_OK, "parse arch groups 0x%llx: %s\n    %s", (unsigned long long)groups, err, buf);
    if (s == DSLOG_OK) {
        CHECK_EQ(rec.v[K_FMT], DSLOG_FMT_ARCH, "fmt=arch");
        CHECK(strstr(buf, " fmt=arch ") != NULL, "printed as fmt=arch");
        CHECK_EQ(rec.v[K_HDR], p.hdr, "hdr");
        CHECK_EQ(rec.v[K_FRAGS], frags, "frags");
        CHECK_EQ(rec.v[K_EVENTING_IP], p.eventing_ip, "eventing_ip");
        CHECK_EQ(dslog_has(&rec, K_DATA_LA), !!(groups & DSREC_ARCH_AUX), "aux fields");
        CHECK_EQ(dslog_has(&rec, K_SSP), !!(groups & DSREC_ARCH_GPR), "ssp with the GPR group");
        if (groups & DSREC_ARCH_GPR)
            CHECK(rec.v[K_SSP] == p.ssp && rec.v[K_CX] == 3 && rec.v[K_R15] == 15, "gprs, ssp");
        CHECK_EQ(rec.have_xmm, !!(groups & DSREC_ARCH_XMM), "xmm");
        CHECK_EQ(rec.lbr_count, nlbr, "lbr entries");
    }
    blen = 0;
    buf[0] = 0;
    /* the printer refuses a size that disagrees, and a record without basic group */
    p.hdr += 8;
    CHECK_EQ(dsrec_pebs(&o, "arch-1", 3, &p), DSREC_ERR_HDR, "arch size mismatch");
    p.hdr = (p.hdr - 8) & ~DSREC_ARCH_BASIC;
    CHECK_EQ(dsrec_pebs(&o, "arch-1", 3, &p), DSREC_ERR_HDR, "arch without basic group");
    CHECK_EQ(blen, 0, "nothing printed");
}

/* Format 6 counters group (issue 11): sizes from Linux pebs_update_adaptive_cfg
 * (struct pebs_cntr_header 16 bytes, one u64 per GP / fixed counter, 2 with
 * metrics), independent of the printer. Round trip, then the printer's and
 * the reader's refusals. */
static void expect_bad(const char *what, const char *line, const char *errpart);
static void fix_ck(char *line);
static void fmt6_cntr_case(uint64_t groups, uint32_t gp, uint32_t fx, bool met, uint64_t bytes)
{
    static struct dsrec_pebs p;
    memset(&p, 0, sizeof p);
    p.fmt = 6;
    p.counter = 0;
    p.eventing_ip = 0x401000;
    p.counters = 1;
    p.tsc = 0x99;
    p.cntr_gp_mask = gp;
    p.cntr_fixed_mask = fx;
    for (int i = 0; i < 16; i++)
        p.cntr_gp[i] = val(i + 100, 0);
    for (int i = 0; i < 8; i++)
        p.cntr_fixed[i] = val(i + 120, 0);
    p.has_metrics = met;
    p.slots = 0x1234567;
    p.metrics = 0x10203040506070ull;
    p.hdr = groups | (bytes << 48);
    CHECK_EQ(dsrec_pebs(&o, "c6", 1, &p), DSREC_OK, "print fmt 6 cntr gp=0x%x fixed=0x%x met=%d", gp, fx, met);
    int n;
    enum dslog_status s = feed_all(&rd, &rec, err, &n);
    CHECK_EQ(s, DSLOG_OK, "parse fmt 6 cntr: %s\n    %s", err, buf);
    CHECK(rec.cntr_gp_mask == gp && rec.cntr_fixed_mask == fx, "masks read back 0x%x/0x%x", rec.cntr_gp_mask,
          rec.cntr_fixed_mask);
    for (int i = 0; i < 16; i++)
        CHECK_EQ(rec.cntr_gp[i], (gp >> i & 1) ? p.cntr_gp[i] : 0, "gp%d", i);
    for (int i = 0; i < 8; i++)
        CHECK_EQ(rec.cntr_fixed[i], (fx >> i & 1) ? p.cntr_fixed[i] : 0, "fixed%d", i);
    CHECK_EQ(dslog_has(&rec, K_SLOTS), met, "slots key");
    CHECK_EQ(dslog_has(&rec, K_METRICS), met, "metrics key");
    if (met)
        CHECK(rec.v[K_SLOTS] == p.slots && rec.v[K_METRICS] == p.metrics, "slots/metrics values");
    blen = 0;
    buf[0] = 0;
    /* one qword more or less than the groups make: refused, nothing printed */
    p.hdr = groups | ((bytes + 8) << 48);
    CHECK_EQ(dsrec_pebs(&o, "c6", 1, &p), DSREC_ERR_HDR, "size +8");
    p.hdr = groups | ((bytes - 8) << 48);
    CHECK_EQ(dsrec_pebs(&o, "c6", 1, &p), DSREC_ERR_HDR, "size -8");
    p.hdr = groups | (bytes << 48);
    p.fmt = 5;   /* bits 4/5 are reserved on formats 4 and 5 */
    CHECK_EQ(dsrec_pebs(&o, "c6", 1, &p), DSREC_ERR_HDR, "counters group on fmt 5");
    CHECK_EQ(blen, 0, "nothing printed for a refused counters group");
}

static void fmt6_counters(void)
{
    start();
    /* bit 4, GP 0-1 + fixed 0: 32 + 16 + 3 * 8 */
    fmt6_cntr_case(DSREC_ADAPTIVE_CNTRS, 0x3, 0x1, false, 32 + 16 + 24);
    /* bits 4 + 5 with meminfo and GPRs, GP 0..15 and fixed 0..7 (the DATA_CFG limits), metrics */
    fmt6_cntr_case(DSREC_ADAPTIVE_CNTRS | DSREC_ADAPTIVE_METRICS | DSREC_ADAPTIVE_MEMINFO | DSREC_ADAPTIVE_GPRS,
                   0xFFFF, 0xFF, true, 32 + 32 + 144 + 16 + 8 * 24 + 16);
    /* metrics alone (bit 5): the group header, no counters, slots + metrics */
    fmt6_cntr_case(DSREC_ADAPTIVE_METRICS, 0, 0, true, 32 + 16 + 16);
    /* bit 4 with empty masks: just the 16-byte header */
    fmt6_cntr_case(DSREC_ADAPTIVE_CNTRS, 0, 0, false, 32 + 16);

    static struct dsrec_pebs p;
    memset(&p, 0, sizeof p);
    p.fmt = 6;
    p.counter = -1;
    p.hdr = DSREC_ADAPTIVE_CNTRS | ((32ull + 16 + 8) << 48);
    p.cntr_gp_mask = 1u << 16;   /* DATA_CFG names GP 0..15 only */
    CHECK_EQ(dsrec_pebs(&o, "c6", 1, &p), DSREC_ERR_RANGE, "GP mask bit 16");
    p.cntr_gp_mask = 0;
    p.cntr_fixed_mask = 1u << 8;   /* fixed 0..7 only */
    CHECK_EQ(dsrec_pebs(&o, "c6", 1, &p), DSREC_ERR_RANGE, "fixed mask bit 8");
    CHECK_EQ(blen, 0, "nothing printed");

    /* Reader: a valid line, then one change each. */
    char t[512];
#define C6 "DSLOG 1 PEBS run=r seq=0 fmt=6 hdr=0x%llx eventing_ip=0x1 counters=0x1 tsc=0x5%s ck=00000000"
    snprintf(t, sizeof t, C6, (unsigned long long)(DSREC_ADAPTIVE_CNTRS | ((32ull + 16 + 16) << 48)),
             " gp1=0x10 fixed2=0x20");
    fix_ck(t);
    struct dslog_reader r2;
    dslog_reader_init(&r2);
    r2.in_log = true;
    CHECK_EQ(dslog_feed(&r2, t, strlen(t), &rec, err, sizeof err), DSLOG_OK, "hand-written fmt 6 line: %s", err);
    CHECK(rec.cntr_gp_mask == 2 && rec.cntr_gp[1] == 0x10 && rec.cntr_fixed_mask == 4 && rec.cntr_fixed[2] == 0x20,
          "gp1, fixed2");
    snprintf(t, sizeof t, C6, (unsigned long long)(DSREC_ADAPTIVE_CNTRS | ((32ull + 16 + 16) << 48)), " gp1=0x10");
    fix_ck(t);
    expect_bad("fmt 6 size without fixed2", t, "make 56");
    snprintf(t, sizeof t, C6, (unsigned long long)((32ull + 8) << 48), " gp1=0x10");
    fix_ck(t);
    expect_bad("gpN without the group bit", t, "no counters group");
    snprintf(t, sizeof t, C6, (unsigned long long)(DSREC_ADAPTIVE_CNTRS | ((32ull + 16 + 16) << 48)),
             " gp16=0x10 fixed2=0x20");
    fix_ck(t);
    expect_bad("gp16", t, "gp0..gp15");
    snprintf(t, sizeof t, C6, (unsigned long long)(DSREC_ADAPTIVE_CNTRS | ((32ull + 16 + 16) << 48)),
             " gp1=0x10 fixed8=0x20");
    fix_ck(t);
    expect_bad("fixed8", t, "fixed0..fixed7");
    snprintf(t, sizeof t, C6, (unsigned long long)(DSREC_ADAPTIVE_CNTRS | ((32ull + 16 + 16) << 48)),
             " gp1=0x10 gp1=0x20");
    fix_ck(t);
    expect_bad("duplicate gp1", t, "duplicate key 'gp1'");
    snprintf(t, sizeof t, C6, (unsigned long long)(DSREC_ADAPTIVE_METRICS | ((32ull + 16 + 16) << 48)),
             " slots=0x10");
    fix_ck(t);
    expect_bad("slots without metrics", t, "go together");
    snprintf(t, sizeof t, C6, (unsigned long long)((32ull) << 48), " slots=0x10 metrics=0x1");
    fix_ck(t);
    expect_bad("slots without the group", t, "not a field of PEBS fmt=6");
    snprintf(t, sizeof t, C6, (unsigned long long)(DSREC_ADAPTIVE_CNTRS | ((32ull + 16 + 8) << 48)), " gp0=0x1");
    strstr(t, "fmt=6")[4] = '5';
    fix_ck(t);
    expect_bad("counters group on fmt 5", t, "reserved on fmt=5");
#undef C6
}

/* Print a line, corrupt it with f, and expect the reader to reject it. */
static void expect_bad(const char *what, const char *line, const char *errpart)
{
    struct dslog_reader r2;
    dslog_reader_init(&r2);
    r2.in_log = true;
    struct dslog_rec x;
    enum dslog_status s = dslog_feed(&r2, line, strlen(line), &x, err, sizeof err);
    CHECK_EQ(s, DSLOG_BAD, "%s must be rejected", what);
    CHECK(strstr(err, errpart) != NULL, "%s: error '%s' should mention '%s'", what, err, errpart);
}

/* Recompute the checksum of a line (to make malformed-but-checksummed lines). */
static void fix_ck(char *line)
{
    char *ck = strstr(line, " ck=");
    uint32_t h = dslog_fnv1a(DSREC_FNV_INIT, line, (size_t)(ck - line));
    char tmp[16];
    snprintf(tmp, sizeof tmp, "%08x", h);
    memcpy(ck + 4, tmp, 8);
}

/* HDR cpu= (issue 13): printed only when set, read back as a decimal; a
 * header without it (every log before issue 13) still parses, without it. */
static void header_cpu(void)
{
    uint32_t ids[] = {0, 3, 255, 256, 0xFFFFFFFFu};
    for (unsigned i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        blen = 0;
        buf[0] = 0;
        dsrec_init(&o, sink, NULL);
        dslog_reader_init(&rd);
        struct dsrec_header h = {"x86_64", "model", "skylake", "k.elf", NULL, false, 0, 0};
        h.has_cpu = true;
        h.cpu = ids[i];
        CHECK_EQ(dsrec_header(&o, &h), DSREC_OK, "header cpu=%u", ids[i]);
        char want[32];
        snprintf(want, sizeof want, " cpu=%u ck=", ids[i]);
        CHECK(strstr(buf, want) != NULL, "HDR line carries%s: %s", want, buf);
        int n;
        CHECK_EQ(feed_all(&rd, &rec, err, &n), DSLOG_OK, "header with cpu= parses: %s", err);
        CHECK(dslog_has(&rec, K_CPU) && rec.v[K_CPU] == ids[i], "cpu= read back as %u", ids[i]);
    }
    blen = 0;
    buf[0] = 0;
    dsrec_init(&o, sink, NULL);
    dslog_reader_init(&rd);
    struct dsrec_header h = {"x86_64", "model", "skylake", "k.elf", NULL, false, 0, 0};
    CHECK_EQ(dsrec_header(&o, &h), DSREC_OK, "header without cpu");
    CHECK(strstr(buf, "cpu=") == NULL, "no cpu= unless set: %s", buf);
    int n;
    CHECK_EQ(feed_all(&rd, &rec, err, &n), DSLOG_OK, "header without cpu= parses: %s", err);
    CHECK(!dslog_has(&rec, K_CPU), "no cpu key read");
}

/* HDR tsc_khz= (issue 27): printed when set, read back, 0 and > 32 bits and a
 * duplicate refused by the reader (each a hand-made line with its FNV-1a). */
static void header_tsc_khz(void)
{
    uint32_t khz[] = {1, 2400000, 0xFFFFFFFFu};
    int n;
    for (unsigned i = 0; i < 3; i++) {
        blen = 0;
        buf[0] = 0;
        dsrec_init(&o, sink, NULL);
        dslog_reader_init(&rd);
        struct dsrec_header h = {"x86_64", "model", "skylake", "k.elf", NULL, true, 1, khz[i]};
        CHECK_EQ(dsrec_header(&o, &h), DSREC_OK, "header tsc_khz=%u", khz[i]);
        char want[40];
        snprintf(want, sizeof want, " cpu=1 tsc_khz=%u ck=", khz[i]);
        CHECK(strstr(buf, want) != NULL, "HDR line carries%s: %s", want, buf);
        CHECK_EQ(feed_all(&rd, &rec, err, &n), DSLOG_OK, "header with tsc_khz= parses: %s", err);
        CHECK(rec.tsc_khz == khz[i] && rec.unknown_keys == 0, "tsc_khz= read back as %u", khz[i]);
    }
    static const char *const bad[] = {"tsc_khz=0", "tsc_khz=4294967296", "tsc_khz=1 tsc_khz=2", "tsc_khz=0x10"};
    for (unsigned i = 0; i < 4; i++) {
        char body[160];
        snprintf(body, sizeof body, "DSLOG 1 HDR arch=x86_64 backend=model profile=p kernel=k %s", bad[i]);
        blen = (size_t)snprintf(buf, sizeof buf, "%s ck=%08x\n", body, dsrec_fnv1a(0x811c9dc5u, body, strlen(body)));
        dslog_reader_init(&rd);
        CHECK_EQ(feed_all(&rd, &rec, err, &n), DSLOG_BAD, "%s refused", bad[i]);
        CHECK(strstr(err, "tsc_khz") != NULL, "%s: the error names tsc_khz: %s", bad[i], err);
    }
}

/* LBR idx/of bounds (docs/records.md: idx < of <= 64, Arch LBR's deepest
 * stack, CPUID.1CH EAX depth bitmap up to 64): of = 1 and of = 64 with its
 * last idx 63 round-trip; of = 0, of = 65 and idx = of are refused by the
 * reader with the cause. Mutant dslog.c `of > 64` -> `of >= 64` (sample
 * seed 20261127). */
static void lbr_idx_of_bounds(void)
{
    static const struct { uint32_t idx, of; } ok[] = {{0, 1}, {0, 64}, {63, 64}};
    for (unsigned i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        start();
        struct dsrec_lbr l = {dsrec_lbr_snapshot(&o), ok[i].idx, ok[i].of, 0x401000, 0x401020, true, false, false, 0,
                              false, 0, 31};
        CHECK_EQ(dsrec_lbr(&o, "r", &l), DSREC_OK, "print idx %u of %u", ok[i].idx, ok[i].of);
        int n;
        CHECK_EQ(feed_all(&rd, &rec, err, &n), DSLOG_OK, "read idx %u of %u: %s", ok[i].idx, ok[i].of, err);
        CHECK(rec.type == DSLOG_LBR && rec.v[K_IDX] == ok[i].idx && rec.v[K_OF] == ok[i].of, "idx %u of %u back",
              ok[i].idx, ok[i].of);
    }
    /* the last line printed is "... idx=63 of=64 ...": rewrite its bounds */
    static const char *bad[] = {" idx=0 of=0 ", " idx=0 of=65 ", " idx=64 of=64 ", " idx=65 of=65 "};
    char *at = strstr(buf, " idx=63 of=64 ");
    CHECK(at != NULL, "printed bounds: %s", buf);
    if (!at)
        return;
    char *nl = strchr(buf, '\n');
    if (nl)
        *nl = 0;
    for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char line[512];
        snprintf(line, sizeof line, "%.*s%s%s", (int)(at - buf), buf, bad[i], at + strlen(" idx=63 of=64 "));
        fix_ck(line);
        expect_bad(bad[i], line, "need idx < of <= 64");
    }
}

int main(void)
{
    header_cpu();
    header_tsc_khz();
    fmt6_counters();
    lbr_idx_of_bounds();
    /* Every PEBS format, and adaptive with every group combination. */
    start();
    unsigned fixed[] = {DSREC_PEBS_NB32, DSREC_PEBS_NB64, 0, 1, 2, 3};
    for (unsigned i = 0; i < 6; i++)
        roundtrip_pebs(fixed[i], 0, 0);
    for (unsigned fmt = 4; fmt <= 6; fmt++)
        for (uint64_t g = 0; g < 16; g++)
            roundtrip_pebs(fmt, g, (g & 8) ? (g == 15 ? 32 : 3) : 0);
    for (unsigned g = 0; g < 16; g++) { /* arch: aux, GPR, XMM, LBR in every combination */
        uint64_t bits = ((g & 1) ? DSREC_ARCH_AUX : 0) | ((g & 2) ? DSREC_ARCH_GPR : 0) |
                        ((g & 4) ? DSREC_ARCH_XMM : 0) | ((g & 8) ? 1ull << DSREC_ARCH_LBR_SHIFT : 0);
        roundtrip_arch(bits, 1 + (g & 1), (g & 8) ? 8 : 0);
    }

    /* BTS, LBR, LOST, RUN, END with stream counts. */
    struct dsrec_bts b = {0xffffffff81000010ull, 0xffffffff81000000ull, 0x10};
    CHECK_EQ(dsrec_bts(&o, "run-1", 0, &b), DSREC_OK, "bts");
    struct dsrec_lbr l = {dsrec_lbr_snapshot(&o), 1, 16, 0x401000, 0x401020, true, true, true, 77, true, 0x8000000000000000ull | 77, 5};
    CHECK_EQ(dsrec_lbr(&o, "run-1", &l), DSREC_OK, "lbr");
    struct dsrec_lost lost = {DSREC_KIND_PEBS, "overflow", 12};
    CHECK_EQ(dsrec_lost(&o, "run-1", &lost), DSREC_OK, "lost");
    struct dsrec_run run = {"run-1", "pebs", "workload_loop", 123456, 1000, 123};
    CHECK_EQ(dsrec_run(&o, &run), DSREC_OK, "run");
    CHECK_EQ(dsrec_end(&o, 10, 1, 2), DSREC_OK, "end");
    char *p = buf;
    enum dslog_status st[5];
    struct dslog_rec recs[5];
    int i = 0;
    while (*p && i < 5) {
        char *nl = strchr(p, '\n');
        st[i] = dslog_feed(&rd, p, (size_t)(nl - p), &recs[i], err, sizeof err);
        CHECK_EQ(st[i], DSLOG_OK, "line %d: %s", i, err);
        i++;
        p = nl + 1;
    }
    CHECK_EQ(i, 5, "five lines");
    CHECK(recs[0].type == DSLOG_BTS && recs[0].v[K_FROM] == b.from && recs[0].v[K_TO] == b.to &&
          recs[0].v[K_PRED] == 1 && recs[0].v[K_FLAGS] == 0x10, "bts fields");
    CHECK(recs[1].type == DSLOG_LBR && recs[1].v[K_IDX] == 1 && recs[1].v[K_OF] == 16 && recs[1].v[K_MISPRED] == 1 &&
          recs[1].v[K_CYCLES] == 77 && recs[1].v[K_INFO] == l.info && recs[1].v[K_LBRFMT] == 5, "lbr fields");
    CHECK(recs[2].type == DSLOG_LOST && !strcmp(recs[2].s[K_KIND], "pebs") && recs[2].v[K_COUNT] == 12 &&
          !strcmp(recs[2].s[K_REASON], "overflow"), "lost fields");
    CHECK(recs[3].type == DSLOG_RUN && recs[3].v[K_RECORDS] == 6 + 48 + 16 + 2 && recs[3].v[K_EVENTS] == 123456 &&
          !strcmp(recs[3].s[K_WORKLOAD], "workload_loop"), "run fields (records=%llu)",
          (unsigned long long)recs[3].v[K_RECORDS]);
    CHECK(recs[4].type == DSLOG_END && recs[4].v[K_RUNS] == 1 && recs[4].v[K_FAILED] == 1, "end fields");
    CHECK(dslog_finish(&rd, err, sizeof err), "log complete: %s", err);

    /* Printer rejects bad input and prints nothing. */
    start();
    static struct dsrec_pebs bad;
    memset(&bad, 0, sizeof bad);
    bad.fmt = 7;
    CHECK_EQ(dsrec_pebs(&o, "r", 0, &bad), DSREC_ERR_FMT, "fmt 7");
    bad.fmt = DSREC_PEBS_NB32;
    bad.ip = 1ull << 32;
    CHECK_EQ(dsrec_pebs(&o, "r", 0, &bad), DSREC_ERR_RANGE, "nb32 wide ip");
    bad.ip = 0;
    bad.counter = 64;
    CHECK_EQ(dsrec_pebs(&o, "r", 0, &bad), DSREC_ERR_RANGE, "counter 64");
    bad.counter = -1;
    bad.fmt = 4;
    bad.hdr = (32ull << 48) | DSREC_ADAPTIVE_GPRS;
    CHECK_EQ(dsrec_pebs(&o, "r", 0, &bad), DSREC_ERR_HDR, "adaptive size mismatch");
    bad.hdr = ((32ull + 24) << 48) | DSREC_ADAPTIVE_LBR;
    CHECK_EQ(dsrec_pebs(&o, "r", 0, &bad), DSREC_ERR_HDR, "LBR group, zero entries");
    bad.lbr_count = 33;
    bad.hdr = ((32ull + 24 * 33) << 48) | DSREC_ADAPTIVE_LBR;
    CHECK_EQ(dsrec_pebs(&o, "r", 0, &bad), DSREC_ERR_HDR, "33 LBR entries");
    bad.fmt = 0;
    CHECK_EQ(dsrec_pebs(&o, "bad name", 0, &bad), DSREC_ERR_NAME, "space in name");
    CHECK_EQ(dsrec_pebs(&o, "", 0, &bad), DSREC_ERR_NAME, "empty name");
    CHECK_EQ(dsrec_pebs(&o, "abcdefghijabcdefghijabcdefghij12", 0, &bad), DSREC_ERR_NAME, "32-char name");
    CHECK_EQ(dsrec_pebs(&o, "abcdefghijabcdefghijabcdefghij1", 0, &bad), DSREC_OK, "31-char name");
    blen = 0;
    CHECK_EQ(dsrec_pebs(&o, NULL, 0, &bad), DSREC_ERR_NULL, "NULL run");
    CHECK_EQ(dsrec_pebs(&o, "r", 0, NULL), DSREC_ERR_NULL, "NULL record");
    CHECK_EQ(dsrec_pebs(NULL, "r", 0, &bad), DSREC_ERR_NULL, "NULL out");
    struct dsrec_lbr bl = {0, 4, 4, 0, 0, false, false, false, 0, false, 0, -1};
    CHECK_EQ(dsrec_lbr(&o, "r", &bl), DSREC_ERR_RANGE, "idx == of");
    struct dsrec_lost bk = {7, "x", 1};
    CHECK_EQ(dsrec_lost(&o, "r", &bk), DSREC_ERR_RANGE, "bad kind");
    struct dsrec_header bh = {"x86_64", "model", "sky lake", "k", NULL, false, 0, 0};
    CHECK_EQ(dsrec_header(&o, &bh), DSREC_ERR_NAME, "bad profile");
    CHECK_EQ(blen, 0, "nothing printed for rejected input");
    CHECK_EQ(dsrec_init(NULL, sink, NULL), DSREC_ERR_NULL, "init NULL");
    CHECK_EQ(dsrec_init(&o, NULL, NULL), DSREC_ERR_NULL, "init NULL sink");
    dsrec_init(&o, sink, NULL);
    CHECK_EQ(dsrec_bts(&o, "r", 0, &b), DSREC_ERR_STATE, "record before header");
    CHECK_EQ(dsrec_end(&o, 0, 0, 0), DSREC_ERR_STATE, "end before header");
    CHECK_EQ(blen, 0, "nothing printed out of order");

    /* Reader rejects corrupted lines. */
    start();
    CHECK_EQ(dsrec_bts(&o, "r", 0, &b), DSREC_OK, "bts line");
    char line[512];
    snprintf(line, sizeof line, "%.500s", buf);
    line[strlen(line) - 1] = 0;
    char t[512];
    snprintf(t, sizeof t, "%s", line);
    t[20] ^= 1;
    expect_bad("flipped byte", t, "checksum mismatch");
    snprintf(t, sizeof t, "%.*s", (int)strlen(line) - 5, line);
    expect_bad("cut line", t, "no ' ck=' checksum");
    snprintf(t, sizeof t, "%s", line);
    memcpy(strstr(t, "from=0x") + 7, "zz", 2);
    fix_ck(t);
    expect_bad("bad hex", t, "bad value");
    snprintf(t, sizeof t, "%s", line);
    memcpy(strstr(t, "BTS"), "BXS", 3);
    fix_ck(t);
    expect_bad("unknown type", t, "unknown record type 'BXS'");
    snprintf(t, sizeof t, "%s", line);
    t[6] = '2';
    fix_ck(t);
    expect_bad("version 2", t, "unsupported DSLOG format version 2");
    snprintf(t, sizeof t, "%s", line);
    memcpy(strstr(t, "pred=1"), "pred=0", 6);
    fix_ck(t);
    expect_bad("pred vs flags", t, "disagrees");
    snprintf(t, sizeof t, "DSLOG 1 BTS run=r seq=0 from=0x1 to=0x2 pred=0 flags=0x0 from=0x3 ck=00000000");
    fix_ck(t);
    expect_bad("duplicate key", t, "duplicate key 'from'");
    snprintf(t, sizeof t, "DSLOG 1 BTS run=r seq=0 from=0x1 pred=0 flags=0x0 ck=00000000");
    fix_ck(t);
    expect_bad("missing key", t, "lacks required key 'to'");
    snprintf(t, sizeof t, "DSLOG 1 PEBS run=r seq=0 fmt=0 flags=0x0 ip=0x1 ax=0x0 bx=0x0 cx=0x0 dx=0x0 si=0x0 di=0x0 "
                          "bp=0x0 sp=0x0 r8=0x0 r9=0x0 r10=0x0 r11=0x0 r12=0x0 r13=0x0 r14=0x0 r15=0x0 tsc=0x5 ck=0");
    snprintf(t + strlen(t) - 1, 16, "00000000");
    fix_ck(t);
    expect_bad("field not of format", t, "not a field of PEBS fmt=0");
    snprintf(t, sizeof t, "DSLOG 1 PEBS run=r seq=0 fmt=7 hdr=0x20000000000000 eventing_ip=0x1 counters=0x1 "
                          "tsc=0x5 ck=00000000");
    fix_ck(t);
    expect_bad("fmt 7", t, "nb32, nb64, arch or 0..6");
    snprintf(t, sizeof t, "DSLOG 1 BTS run=r seq=0 from=0x1 to=0x2 pred=0 flags=0x0 future=yes ck=00000000");
    fix_ck(t);
    struct dslog_reader r3;
    dslog_reader_init(&r3);
    r3.in_log = true;
    CHECK_EQ(dslog_feed(&r3, t, strlen(t), &rec, err, sizeof err), DSLOG_OK, "unknown key ignored: %s", err);
    CHECK(rec.unknown_keys == 1 && !strcmp(rec.first_unknown, "future"), "unknown key counted");
    CHECK_EQ(dslog_feed(&r3, "ok 1 - PEBS works", 17, &rec, err, sizeof err), DSLOG_NOT_RECORD, "other output");
    /* Garbage before DSLOG on the same line (boot loader escape codes) is tolerated. */
    char g[600];
    snprintf(g, sizeof g, "\x1b[2J\x1b[H%s\r", line);
    CHECK_EQ(dslog_feed(&r3, g, strlen(g), &rec, err, sizeof err), DSLOG_OK, "prefix garbage + CR: %s", err);
    struct dslog_reader r4;
    dslog_reader_init(&r4);
    CHECK_EQ(dslog_feed(&r4, line, strlen(line), &rec, err, sizeof err), DSLOG_BAD, "record before header");
    CHECK(!dslog_finish(&r4, err, sizeof err) && strstr(err, "no 'DSLOG 1 HDR'"), "missing header at EOF");

    /* Mutations: every byte of a full adaptive line replaced by a few characters,
     * checksum fixed up: the reader must never crash (ASan/UBSan build) and must
     * either reject the line or return a record. */
    start();
    static struct dsrec_pebs big;
    memset(&big, 0, sizeof big);
    big.fmt = 4;
    big.counter = -1;
    big.lbr_count = 2;
    big.hdr = ((32ull + 32 + 144 + 256 + 48) << 48) | 15;
    CHECK_EQ(dsrec_pebs(&o, "m", 0, &big), DSREC_OK, "mutation base");
    static char base[4096], m[4096];
    snprintf(base, sizeof base, "%.4000s", buf);
    base[strlen(base) - 1] = 0;
    size_t blen_ = strlen(base);
    const char subst[] = {' ', '=', '/', 'x', '0', 'f', 'g', '\0', '9'};
    unsigned rejected = 0, accepted = 0;
    for (size_t pos = 0; pos + 13 < blen_; pos++) {
        for (unsigned j = 0; j < sizeof subst; j++) {
            memcpy(m, base, blen_ + 1);
            if (m[pos] == subst[j])
                continue;
            m[pos] = subst[j];
            if (subst[j] != '\0') {
                char *ck = strstr(m, " ck=");
                uint32_t h = dslog_fnv1a(DSREC_FNV_INIT, m, (size_t)(ck - m));
                char tmp[16];
                snprintf(tmp, sizeof tmp, "%08x", h);
                memcpy(ck + 4, tmp, 8);
            }
            struct dslog_reader r5;
            dslog_reader_init(&r5);
            r5.in_log = true;
            enum dslog_status st5 = dslog_feed(&r5, m, blen_, &rec, err, sizeof err);
            if (st5 == DSLOG_BAD)
                rejected++;
            else
                accepted++;
        }
    }
    CHECK(rejected > 1000, "most mutations rejected (%u rejected, %u accepted)", rejected, accepted);
    return check_summary();
}

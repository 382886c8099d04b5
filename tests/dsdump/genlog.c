/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Test helper: print a complete DSLOG log through the kernel's printer.
 *   dsrec_genlog FMT N@IP [N@IP ...]
 * FMT is a PEBS format (nb32, nb64, 0..6; 6 with the counters group: GP 0-1 =
 * 100 + seq, 200 + seq, fixed 0 = 300 + seq). For each N@IP it prints N PEBS
 * records at IP in run "hot"; then a BTS run "trace" with branches between
 * consecutive IPs, an LBR snapshot of the same branches (newest first), a
 * LOST line and the END line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "records.h"

static void sink(void *ctx, const char *s, size_t n)
{
    fwrite(s, 1, n, (FILE *)ctx);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: dsrec_genlog FMT N@IP...\n");
        return 2;
    }
    unsigned fmt = !strcmp(argv[1], "nb32") ? DSREC_PEBS_NB32 : !strcmp(argv[1], "nb64") ? DSREC_PEBS_NB64
                                                                                         : (unsigned)atoi(argv[1]);
    struct dsrec_out o;
    dsrec_init(&o, sink, stdout);
    char profile[32];
    snprintf(profile, sizeof profile, "test-%.20s", argv[1]);
    struct dsrec_header h = {fmt == DSREC_PEBS_NB32 ? "i386" : "x86_64", "model", profile, "genlog", NULL, false, 0, 0};
    if (dsrec_header(&o, &h))
        return 1;
    static struct dsrec_pebs p;
    uint64_t ips[64];
    int nip = 0;
    uint32_t seq = 0;
    uint64_t total = 0;
    for (int i = 2; i < argc && nip < 64; i++) {
        unsigned long n;
        unsigned long long ip;
        if (sscanf(argv[i], "%lu@%llx", &n, &ip) != 2)
            return 2;
        ips[nip++] = ip;
        for (unsigned long k = 0; k < n; k++) {
            memset(&p, 0, sizeof p);
            p.fmt = fmt;
            p.counter = 0;
            p.ip = p.eventing_ip = ip;
            p.flags = 0x202;
            if (fmt == DSREC_PEBS_FMT4 || fmt == DSREC_PEBS_FMT5)
                p.hdr = (32ull + 144) << 48 | DSREC_ADAPTIVE_GPRS;
            if (fmt == DSREC_PEBS_FMT6) {   /* counters group: 16-byte header + 3 qwords */
                p.hdr = (32ull + 144 + 16 + 24) << 48 | DSREC_ADAPTIVE_GPRS | DSREC_ADAPTIVE_CNTRS;
                p.cntr_gp_mask = 3;
                p.cntr_fixed_mask = 1;
                p.cntr_gp[0] = 100 + seq;
                p.cntr_gp[1] = 200 + seq;
                p.cntr_fixed[0] = 300 + seq;
            }
            if (dsrec_pebs(&o, "hot", seq++, &p))
                return 1;
            total++;
        }
    }
    struct dsrec_run r = {"hot", "pebs", "workload", total * 1000, 1000, total};
    dsrec_run(&o, &r);
    for (int i = 0; i + 1 < nip; i++) {
        struct dsrec_bts b = {ips[i], ips[i + 1], (i & 1) ? 0x10 : 0};
        dsrec_bts(&o, "trace", (uint32_t)i, &b);
    }
    uint32_t snap = dsrec_lbr_snapshot(&o);
    for (int i = 0; i + 1 < nip; i++) {
        int j = nip - 2 - i; /* newest first */
        struct dsrec_lbr l = {snap, (uint32_t)i, (uint32_t)(nip - 1), ips[j], ips[j + 1], true, i == 0, true,
                              (uint32_t)(10 + i), false, 0, 5};
        dsrec_lbr(&o, "trace", &l);
    }
    struct dsrec_lost lost = {DSREC_KIND_BTS, "wrap", 3};
    dsrec_lost(&o, "trace", &lost);
    struct dsrec_run r2 = {"trace", "bts", NULL, 0, 0, 0};
    dsrec_run(&o, &r2);
    dsrec_end(&o, 5, 0, 1);
    return 0;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* --json: the whole input as one JSON document. See out_json.h. */
#include "out_json.h"

#include "symtab.h"
#include "utf8.h"

#include <inttypes.h>
#include <stdio.h>

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

static void json_record(FILE *f, const struct input *S, const struct runs *R, size_t i)
{
    const struct item *it = &S->items.v[i];
    struct dslog_rec buf;
    const struct dslog_rec *r = item_rec(S, i, &buf);
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
        case V_FMT: jstr(f, dslog_fmt_name(r->v[k], b)); break;
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

void print_json(const struct input *S, const struct runs *R, const struct cpugroups *G)
{
    FILE *f = stdout;
    fprintf(f, "{\"format_version\":%u,\"input\":", DSLOG_VERSION);
    jstr(f, S->name);
    fprintf(f, ",\n\"runs\":[");
    for (size_t i = 0; i < R->n; i++) {
        const struct run *ru = &R->v[i];
        fprintf(f, "%s\n {\"log\":%u,\"name\":", i ? "," : "", ru->log);
        jstr(f, ru->name);
        if (log_cpu(R, ru->log) != CPU_NONE) /* the CPU that ran the log (HDR cpu=, issue 13) */
            fprintf(f, ",\"cpu\":%" PRIu64, (uint64_t)log_cpu(R, ru->log));
        struct dslog_rec buf;
        const struct dslog_rec *sum = run_summary(R, ru, &buf);
        if (sum) {
            fprintf(f, ",\"kind\":");
            jstr(f, sum->s[K_KIND]);
            fprintf(f, ",\"events\":%" PRIu64 ",\"period\":%" PRIu64 ",\"samples\":%" PRIu64 ",\"records\":%" PRIu64,
                    sum->v[K_EVENTS], sum->v[K_PERIOD], sum->v[K_SAMPLES], sum->v[K_RECORDS]);
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
        json_record(f, S, R, i);
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


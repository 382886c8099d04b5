/* SPDX-License-Identifier: BSD-2-Clause */
/* The command line: see options.h. */
#include "options.h"

#include "dslog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
            "      --junit FILE  also write the log's TAP checks as JUnit XML (one testcase per\n"
            "                   ok/not ok line, '# SKIP' as skipped) for CI systems\n"
            "      --limit N    show at most N BTS branches per run in the text report\n"
            "      --lbr-limit N  show at most N LBR snapshots per log in the text report\n"
            "      --lbr-entries N  show at most N entries of each LBR snapshot\n"
            "      --perf-data FILE  also write the records as a perf.data file for perf report,\n"
            "                   perf script and perf annotate (with -e: symbols and build-id);\n"
            "                   FILE must be seekable (written as it is made, header last)\n"
            "  -h, --help       this text\n"
            "\n"
            "With logs of several CPUs (HDR cpu=) the report has one block per CPU.\n"
            "Lines without 'DSLOG ' are other serial output and are skipped. Errors name\n"
            "the line; every well-formed record is still reported.\n"
            "Exit status: 0 log complete and well-formed, 1 errors in the log, 2 usage or I/O error.\n",
            DSLOG_VERSION);
}

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
int parse_args(int argc, char **argv, struct opts *o)
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
        } else if (!strcmp(a, "--junit") && i + 1 < argc) {
            o->junit = argv[++i];
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


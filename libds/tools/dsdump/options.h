/* SPDX-License-Identifier: BSD-2-Clause */
/* dsdump's command line. */
#ifndef DSDUMP_OPTIONS_H
#define DSDUMP_OPTIONS_H

struct opts {
    const char *elf, *svg, *in, *perf, *junit;
    int json, csv;
    long limit, lbr_limit, lbr_entries; /* -1: no limit */
};

/* Fills o from the command line (--help prints the usage on stdout; errors
 * are named on stderr). Returns -1 to go on, else the exit code (0 or 2). */
int parse_args(int argc, char **argv, struct opts *o);

#endif /* DSDUMP_OPTIONS_H */

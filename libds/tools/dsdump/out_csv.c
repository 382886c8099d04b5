/* SPDX-License-Identifier: BSD-2-Clause */
/* --csv: the sample table as CSV. See out_csv.h. */
#include "out_csv.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

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

void print_csv(const struct input *S, const struct runs *R)
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


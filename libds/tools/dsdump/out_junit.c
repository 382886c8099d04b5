/* SPDX-License-Identifier: BSD-2-Clause */
/* --junit (see out_junit.h). TAP: "ok N - text", "not ok N - text", a
 * directive "# SKIP why" makes an ok line a skipped check (TAP 13). */
#include "out_junit.h"

#include <stdlib.h>
#include <string.h>

static void xml_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '&') fputs("&amp;", f);
        else if (c == '<') fputs("&lt;", f);
        else if (c == '>') fputs("&gt;", f);
        else if (c == '"') fputs("&quot;", f);
        else if (c < 0x20 && c != '\t') fputc(' ', f);
        else fputc(c, f);
    }
}

int write_junit(const char *path, FILE *tap, const char *name, size_t nerr)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    unsigned long tests = 0, fails = nerr ? 1 : 0, skips = 0;
    char *line = NULL;
    size_t cap = 0;
    rewind(tap);
    while (getline(&line, &cap, tap) >= 0) {
        tests++;
        fails += !strncmp(line, "not ok ", 7);
        skips += !strncmp(line, "ok ", 3) && strstr(line, "# SKIP");
    }
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n<testsuite name=\"libds-kernel\" "
               "tests=\"%lu\" failures=\"%lu\" skipped=\"%lu\" errors=\"0\">\n", tests + 1, fails, skips);
    rewind(tap);
    while (getline(&line, &cap, tap) >= 0) {
        line[strcspn(line, "\r\n")] = 0;
        int bad = !strncmp(line, "not ok ", 7);
        char *text = strstr(line, " - ");
        text = text ? text + 3 : line;
        char *skip = strstr(text, "# SKIP");
        if (skip && !bad && skip > text)
            skip[-1] = 0;
        fputs("  <testcase classname=\"libds.kernel\" name=\"", f);
        xml_text(f, text);
        fputs("\">", f);
        if (bad) {
            fputs("<failure message=\"", f);
            xml_text(f, text);
            fputs("\"/>", f);
        } else if (skip) {
            fputs("<skipped message=\"", f);
            xml_text(f, skip + (skip[6] == ' ' ? 7 : 6));
            fputs("\"/>", f);
        }
        fputs("</testcase>\n", f);
    }
    fputs("  <testcase classname=\"libds.dsdump\" name=\"DSLOG records of ", f);
    xml_text(f, name);
    fputs(" well-formed\">", f);
    if (nerr)
        fprintf(f, "<failure message=\"%zu error(s) in the log (dsdump names each line)\"/>", nerr);
    fputs("</testcase>\n</testsuite>\n</testsuites>\n", f);
    free(line);
    return fclose(f) ? -1 : 0;
}

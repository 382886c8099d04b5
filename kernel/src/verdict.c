/* SPDX-License-Identifier: BSD-2-Clause */
/* The one-screen verdict (k/verdict.h). */
#include <k/console.h>
#include <k/kernel.h>
#include <k/fbcon.h>
#include <k/string.h>
#include <k/verdict.h>
#include <stdarg.h>

#define MAX_GROUPS 16
#define MAX_PROFILES 16
#define MAX_LINES 48
#define LINE 112

static struct {
    char cpu[LINE];
    char backend[LINE];
    char note[LINE];
    struct {
        const char *name;
        unsigned n[3];
    } group[MAX_GROUPS];
    unsigned ngroups, groups_lost;
    struct {
        char name[24];
        char runs[LINE]; /* "run records, run records, ..." */
    } prof[MAX_PROFILES];
    unsigned nprof, runs_lost;
} V;

void k_verdict_cpu(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    k_vsnprintf(V.cpu, sizeof V.cpu, fmt, ap);
    va_end(ap);
}

void k_verdict_note(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    k_vsnprintf(V.note, sizeof V.note, fmt, ap);
    va_end(ap);
}

void k_verdict_backend(const char *backend, const char *why)
{
    k_snprintf(V.backend, sizeof V.backend, "backend: %s (%s)", backend, why && *why ? why : "-");
}

void k_verdict_run(const char *profile, const char *run, unsigned records)
{
    unsigned i = 0;
    while (i < V.nprof && k_strcmp(V.prof[i].name, profile))
        i++;
    if (i == V.nprof) {
        if (V.nprof == MAX_PROFILES) {
            V.runs_lost++;
            return;
        }
        k_snprintf(V.prof[V.nprof++].name, sizeof V.prof[0].name, "%s", profile);
    }
    size_t len = k_strlen(V.prof[i].runs);
    int n = k_snprintf(V.prof[i].runs + len, sizeof V.prof[i].runs - len, "%s%s %u", len ? ", " : "", run, records);
    if (len + (size_t)n >= sizeof V.prof[i].runs - 1)
        V.runs_lost++;
}

void k_verdict_count(const char *group, int kind)
{
    unsigned i = 0;
    while (i < V.ngroups && V.group[i].name != group && k_strcmp(V.group[i].name, group))
        i++;
    if (i == V.ngroups) {
        if (V.ngroups == MAX_GROUPS) {
            V.groups_lost++;
            return;
        }
        V.group[V.ngroups++].name = group;
    }
    if (kind >= 0 && kind < 3)
        V.group[i].n[kind]++;
}

static unsigned add(char lines[][LINE], unsigned n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static unsigned add(char lines[][LINE], unsigned n, const char *fmt, ...)
{
    if (n >= MAX_LINES)
        return n;
    va_list ap;
    va_start(ap, fmt);
    k_vsnprintf(lines[n], LINE, fmt, ap);
    va_end(ap);
    return n + 1;
}

void k_verdict_show(unsigned passed, unsigned failed, unsigned skipped)
{
    static char lines[MAX_LINES][LINE];
    static const char *ptr[MAX_LINES];
    bool pass = failed == 0;
    unsigned n = 0;
    n = add(lines, n, "libds test kernel (%s): %s", K_ARCH, pass ? "PASS" : "FAIL");
    n = add(lines, n, "cpu: %s", V.cpu[0] ? V.cpu : "not identified");
    if (V.note[0])
        n = add(lines, n, "%s", V.note);
    if (V.backend[0])
        n = add(lines, n, "%s", V.backend);
    for (unsigned i = 0; i < V.ngroups; i++)
        n = add(lines, n, "group %-8s %3u passed %3u failed %3u skipped%s", V.group[i].name, V.group[i].n[0],
                V.group[i].n[1], V.group[i].n[2], V.group[i].n[1] ? "  <--" : "");
    if (V.groups_lost)
        n = add(lines, n, "(%u checks in groups beyond %u not itemised)", V.groups_lost, MAX_GROUPS);
    if (V.nprof)
        n = add(lines, n, "records per run:");
    for (unsigned i = 0; i < V.nprof; i++)
        n = add(lines, n, " %s: %s", V.prof[i].name, V.prof[i].runs);
    if (V.runs_lost)
        n = add(lines, n, "(%u runs not itemised)", V.runs_lost);
    n = add(lines, n, "%u passed, %u failed, %u skipped: %s", passed, failed, skipped, pass ? "PASS" : "FAIL");
    kprintf("# ==================== verdict ====================\n");
    for (unsigned i = 0; i < n; i++) {
        kprintf("# verdict | %s\n", lines[i]);
        ptr[i] = lines[i];
    }
    kprintf("# =================================================\n");
    k_fbcon_verdict(ptr, n, pass);
}

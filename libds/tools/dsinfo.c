/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dsinfo: print libds's hardware tables and decode records on the host.
 * Everything printed comes from libds itself (the same tables the library
 * programs hardware with), so the tool documents exactly what libds does.
 * Usage: dsinfo --help.
 */
#include <ds/ds.h>
#include "dsinfo_cpu.h"
#include "dsinfo_events.h"
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__has_include)
#if __has_include(<ds/pebs.h>)
#include <ds/pebs.h>
#define DSINFO_HAVE_PEBS 1
#endif
#endif

static const char usage_text[] =
    "usage: dsinfo [--json] COMMAND [ARGS]\n"
    "\n"
    "Print libds's tables and decode records. --json prints one JSON value.\n"
    "\n"
    "commands:\n"
    "  lbr FF_MMH              LBR stack of DisplayFamily_DisplayModel FF_MM (hex,\n"
    "                          e.g. 06_5EH or 0F_03H): depth, FROM/TO/INFO bases, TOS\n"
    "  lbr all                 every row of the LBR table\n"
    "  netburst events         every NetBurst event libds can program\n"
    "  netburst event NAME     one event: event select, CCCR select, ESCRs with\n"
    "                          their MSRs and counters, event-mask bits\n"
    "  msrs                    every MSR libds knows, with its address\n"
    "  pebs-format F           PEBS record layout of format F (0-6, nb32, nb64)\n"
    "  decode pebs F HEX...    decode one PEBS record of format F given as hex bytes\n"
    "                          in memory order (spaces allowed, e.g. \"c6 00 ...\")\n"
    "  cpu [--cpuid-dump FILE] what libds makes of this machine (CPUID on every logical\n"
    "                          CPU, IA32_MISC_ENABLE/IA32_PERF_CAPABILITIES via\n"
    "                          /dev/cpu/N/msr when readable) or of a CPUID dump: the\n"
    "                          capability report, PEBS format, LBR source, counters\n"
    "  events [--cpuid-dump FILE]\n"
    "                          the microarchitecture (per core type) and its generic\n"
    "                          events: encoding, fixed counter, PEBS or not, source\n"
    "  --help, -h              this text\n"
    "\n"
    "Exit status: 0 on success, 2 on bad arguments (usage printed on stderr),\n"
    "1 when the request is valid but cannot be answered (e.g. unknown model).\n";

static bool json;
static const char *cpuid_dump_file; /* dsinfo cpu --cpuid-dump FILE */

static int usage_error(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "dsinfo: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n\n%s", usage_text);
    return 2;
}

static void jstr(const char *s)
{
    putchar('"');
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            printf("\\%c", c);
        else if (c < 0x20)
            printf("\\u%04x", c);
        else
            putchar(c);
    }
    putchar('"');
}

/* --json's answer to a libds error: {"error":NAME,"message":TEXT} */
static void json_error(int e)
{
    printf("{\"error\":");
    jstr(ds_errname(e));
    printf(",\"message\":");
    jstr(ds_strerror(e));
    puts("}");
}

/* --- lbr ------------------------------------------------------------------ */

static bool parse_fm(const char *s, unsigned *fam, unsigned *model)
{
    /* FF_MM with an optional trailing H/h; hex digits only */
    char f[8], m[8];
    const char *us = strchr(s, '_');
    if (!us || us == s || us - s > 2)
        return false;
    memcpy(f, s, (size_t)(us - s));
    f[us - s] = '\0';
    size_t ml = strlen(us + 1);
    if (ml && (us[ml] == 'H' || us[ml] == 'h'))
        ml--;
    if (ml == 0 || ml > 2)
        return false;
    memcpy(m, us + 1, ml);
    m[ml] = '\0';
    for (char *p = f; *p; p++)
        if (!isxdigit((unsigned char)*p))
            return false;
    for (char *p = m; *p; p++)
        if (!isxdigit((unsigned char)*p))
            return false;
    *fam = (unsigned)strtoul(f, NULL, 16);
    *model = (unsigned)strtoul(m, NULL, 16);
    return true;
}

static void lbr_row(const struct ds_lbr_model *m, bool first)
{
    bool arch = m->flags & DS_LBR_F_ARCH;
    if (json) {
        printf("%s{\"display_family_model\":\"%02X_%02XH\",\"uarch\":", first ? "" : ",", m->family, m->model);
        jstr(m->uarch);
        printf(",\"arch_lbr\":%s,\"depth\":", arch ? "true" : "false");
        if (arch)
            printf("null");
        else
            printf("%u", m->depth);
        printf(",\"from_base\":\"0x%X\",\"to_base\":\"0x%X\",\"info_base\":", m->from_base, m->to_base);
        if (m->info_base)
            printf("\"0x%X\"", m->info_base);
        else
            printf("null");
        printf(",\"tos_msr\":");
        if (m->tos_msr)
            printf("\"0x%X\",\"tos_range\":[0,%u]", m->tos_msr, m->tos_max);
        else
            printf("null,\"tos_range\":null");
        printf(",\"packed\":%s,\"netburst\":%s,\"lbr_select\":%s,\"call_stack\":%s,\"unconfirmed\":%s}",
               m->flags & DS_LBR_F_PACKED ? "true" : "false", m->flags & DS_LBR_F_NETBURST ? "true" : "false",
               m->flags & DS_LBR_F_SELECT ? "true" : "false", m->flags & DS_LBR_F_CALLSTACK ? "true" : "false",
               m->flags & DS_LBR_F_UNCONFIRMED ? "true" : "false");
        return;
    }
    printf("%02X_%02XH  %-32s ", m->family, m->model, m->uarch);
    if (arch) {
        printf("Arch LBR (if CPUID.(07H,0):EDX[19]): depth from CPUID.1CH, FROM 0x%X, TO 0x%X, INFO 0x%X, "
               "no TOS (entry 0 newest)",
               m->from_base, m->to_base, m->info_base);
    } else {
        printf("%2u entries  ", m->depth);
        if (m->flags & DS_LBR_F_PACKED)
            printf("FROM/TO packed 0x%X..0x%X", m->from_base, m->from_base + m->depth - 1);
        else
            printf("FROM 0x%X  TO 0x%X", m->from_base, m->to_base);
        if (m->info_base)
            printf("  INFO 0x%X", m->info_base);
        printf("  TOS 0x%X (0-%u)", m->tos_msr, m->tos_max);
        if (m->flags & DS_LBR_F_SELECT)
            printf("  LBR_SELECT%s", m->flags & DS_LBR_F_CALLSTACK ? "+callstack" : "");
        if (m->flags & DS_LBR_F_NETBURST)
            printf("  (MSR_DEBUGCTLA)");
    }
    if (m->flags & DS_LBR_F_UNCONFIRMED)
        printf("  [unconfirmed]");
    putchar('\n');
}

static int cmd_lbr(int argc, char **argv)
{
    if (argc != 1)
        return usage_error("lbr takes one argument: FF_MMH or all");
    size_t n;
    const struct ds_lbr_model *rows = ds_lbr_models(&n);
    if (strcmp(argv[0], "all") == 0) {
        if (json)
            putchar('[');
        for (size_t i = 0; i < n; i++)
            lbr_row(&rows[i], i == 0);
        if (json)
            puts("]");
        return 0;
    }
    unsigned fam, model;
    if (!parse_fm(argv[0], &fam, &model))
        return usage_error("bad DisplayFamily_DisplayModel '%s' (want e.g. 06_5EH)", argv[0]);
    const struct ds_lbr_model *m;
    int e = ds_lbr_lookup((uint16_t)fam, (uint8_t)model, &m);
    if (e) {
        if (json) {
            json_error(e);
        } else {
            fprintf(stderr, "dsinfo: %02X_%02XH: %s\n", fam, model, ds_strerror(e));
        }
        return 1;
    }
    lbr_row(m, true);
    if (json)
        putchar('\n');
    return 0;
}

/* --- netburst -------------------------------------------------------------- */

static void nb_event(const struct ds_nb_event_info *ev, bool first, bool detail)
{
    size_t ne;
    const struct ds_nb_escr_info *es = ds_nb_escrs(&ne);
    if (json) {
        printf("%s{\"name\":", first ? "" : ",");
        jstr(ev->name);
        printf(",\"event_select\":\"0x%02X\",\"cccr_select\":%u,\"at_retirement\":%s,\"pebs\":%s,"
               "\"models_3_4_6_only\":%s,\"escrs\":[",
               ev->event_select, ev->cccr_select, ev->flags & DS_NB_EV_AT_RETIREMENT ? "true" : "false",
               ev->flags & DS_NB_EV_PEBS ? "true" : "false", ev->flags & DS_NB_EV_MODELS_346 ? "true" : "false");
        for (unsigned i = 0; i < ev->nescrs; i++) {
            const struct ds_nb_escr_info *e = &es[ev->escrs[i]];
            printf("%s{\"name\":", i ? "," : "");
            jstr(e->name);
            printf(",\"msr\":\"0x%X\",\"counters\":[", e->msr);
            for (unsigned k = 0; k < e->ncounters; k++)
                printf("%s%u", k ? "," : "", e->counters[k]);
            printf("]}");
        }
        printf("],\"masks\":[");
        for (unsigned i = 0; i < ev->nmasks; i++) {
            printf("%s{\"name\":", i ? "," : "");
            jstr(ev->masks[i].name);
            printf(",\"bit\":%u}", ev->masks[i].bit);
        }
        printf("]}");
        return;
    }
    if (!detail) {
        printf("%-28s select 0x%02X  CCCR select %u  ESCR %s%s%s%s%s\n", ev->name, ev->event_select,
               ev->cccr_select, es[ev->escrs[0]].name, ev->nescrs > 1 ? ", " : "",
               ev->nescrs > 1 ? es[ev->escrs[1]].name : "",
               ev->flags & DS_NB_EV_AT_RETIREMENT ? "  at-retirement" : "",
               ev->flags & DS_NB_EV_PEBS ? " PEBS" : "");
        return;
    }
    printf("event:          %s\n", ev->name);
    printf("event select:   0x%02X (ESCR[30:25])\n", ev->event_select);
    printf("CCCR select:    %u (CCCR[15:13])\n", ev->cccr_select);
    printf("kind:           %s%s%s\n", ev->flags & DS_NB_EV_AT_RETIREMENT ? "at-retirement" : "non-retirement",
           ev->flags & DS_NB_EV_PEBS ? ", PEBS-capable (IQ_COUNTER4/5 only)" : "",
           ev->flags & DS_NB_EV_MODELS_346 ? ", models 03H/04H/06H only" : "");
    for (unsigned i = 0; i < ev->nescrs; i++) {
        const struct ds_nb_escr_info *e = &es[ev->escrs[i]];
        printf("ESCR:           %s (0x%X) -> counters", e->name, e->msr);
        for (unsigned k = 0; k < e->ncounters; k++)
            printf(" %u", e->counters[k]);
        printf("%s\n", e->flags & DS_NB_ESCR_F_EARLY_ONLY ? " (models 01H-02H only)" : "");
    }
    printf("event mask:     ");
    for (unsigned i = 0; i < ev->nmasks; i++)
        printf("%s%s=bit %u", i ? ", " : "", ev->masks[i].name, ev->masks[i].bit);
    printf(" (ESCR[24:9])\n");
}

static int cmd_netburst(int argc, char **argv)
{
    size_t n;
    const struct ds_nb_event_info *ev = ds_nb_events(&n);
    if (argc == 1 && strcmp(argv[0], "events") == 0) {
        if (json)
            putchar('[');
        for (size_t i = 0; i < n; i++)
            nb_event(&ev[i], i == 0, false);
        if (json)
            puts("]");
        return 0;
    }
    if (argc == 2 && strcmp(argv[0], "event") == 0) {
        unsigned idx;
        if (ds_nb_event_find(argv[1], &idx) != DS_OK)
            return usage_error("unknown NetBurst event '%s' (see: dsinfo netburst events)", argv[1]);
        nb_event(&ev[idx], true, true);
        if (json)
            putchar('\n');
        return 0;
    }
    return usage_error("netburst takes 'events' or 'event NAME'");
}

/* --- msrs ------------------------------------------------------------------ */

struct msr_row {
    const char *name;
    uint32_t msr;
    const char *note;
};

static const struct msr_row msr_rows[] = {
    {"IA32_PMC0", DS_MSR_IA32_PMC0, "+n: GP counter n"},
    {"IA32_PERFEVTSEL0", DS_MSR_IA32_PERFEVTSEL0, "+n: event select n"},
    {"IA32_MISC_ENABLE", DS_MSR_IA32_MISC_ENABLE, "bit 7 perfmon, 11 BTS unavailable, 12 PEBS unavailable"},
    {"IA32_DEBUGCTL", DS_MSR_IA32_DEBUGCTL, "MSR_DEBUGCTLA on NetBurst (other layout)"},
    {"IA32_FIXED_CTR0", DS_MSR_IA32_FIXED_CTR0, "+m: fixed counter m"},
    {"IA32_PERF_CAPABILITIES", DS_MSR_IA32_PERF_CAPABILITIES, "present iff CPUID.01H:ECX.PDCM"},
    {"IA32_FIXED_CTR_CTRL", DS_MSR_IA32_FIXED_CTR_CTRL, ""},
    {"IA32_PERF_GLOBAL_STATUS", DS_MSR_IA32_PERF_GLOBAL_STATUS, "perfmon v2+"},
    {"IA32_PERF_GLOBAL_CTRL", DS_MSR_IA32_PERF_GLOBAL_CTRL, "perfmon v2+"},
    {"IA32_PERF_GLOBAL_OVF_CTRL", DS_MSR_IA32_PERF_GLOBAL_OVF_CTRL, "IA32_PERF_GLOBAL_STATUS_RESET on v4+"},
    {"IA32_PERF_GLOBAL_STATUS_SET", DS_MSR_IA32_PERF_GLOBAL_STATUS_SET, "perfmon v4+"},
    {"IA32_PERF_GLOBAL_INUSE", DS_MSR_IA32_PERF_GLOBAL_INUSE, "perfmon v4+"},
    {"IA32_PEBS_ENABLE", DS_MSR_IA32_PEBS_ENABLE, "MSR_PEBS_ENABLE on NetBurst (other layout)"},
    {"MSR_PEBS_MATRIX_VERT", DS_MSR_PEBS_MATRIX_VERT, "NetBurst only"},
    {"MSR_PEBS_DATA_CFG", DS_MSR_PEBS_DATA_CFG, "adaptive PEBS only (same address as MATRIX_VERT)"},
    {"MSR_PEBS_LD_LAT", DS_MSR_PEBS_LD_LAT, "Nehalem+"},
    {"MSR_PEBS_FRONTEND", DS_MSR_PEBS_FRONTEND, "Skylake+"},
    {"IA32_A_PMC0", DS_MSR_IA32_A_PMC0, "+n: full-width alias (PERF_CAPABILITIES[13])"},
    {"IA32_DS_AREA", DS_MSR_IA32_DS_AREA, ""},
    {"IA32_X2APIC_LVT_PMI", DS_MSR_IA32_X2APIC_LVT_PMI, "x2APIC LVT performance counter"},
    {"MSR_LBR_SELECT", DS_MSR_LBR_SELECT, "Nehalem+, Silvermont+"},
    {"MSR_LASTBRANCH_TOS", DS_MSR_LASTBRANCH_TOS, "family 6"},
    {"MSR_LASTBRANCH_TOS (NetBurst)", DS_MSR_NB_LASTBRANCH_TOS, ""},
    {"MSR_LASTBRANCH_0 (NetBurst 0-2)", DS_MSR_NB_LASTBRANCH_0, "0x1DB..0x1DE packed"},
    {"MSR_LASTBRANCH_0_FROM_IP (Core 2, Atom)", DS_MSR_CORE_LASTBRANCH_0_FROM_IP, "+i"},
    {"MSR_LASTBRANCH_0_TO_IP (Core 2, Atom)", DS_MSR_CORE_LASTBRANCH_0_TO_IP, "+i"},
    {"MSR_LASTBRANCH_0_FROM_IP", DS_MSR_LASTBRANCH_0_FROM_IP, "+i (Nehalem+, NetBurst 3+)"},
    {"MSR_LASTBRANCH_0_TO_IP", DS_MSR_LASTBRANCH_0_TO_IP, "+i"},
    {"MSR_LBR_INFO_0", DS_MSR_LBR_INFO_0, "+i (Skylake+, Goldmont Plus+)"},
    {"IA32_LBR_CTL", DS_MSR_IA32_LBR_CTL, "Arch LBR"},
    {"IA32_LBR_DEPTH", DS_MSR_IA32_LBR_DEPTH, "Arch LBR"},
    {"IA32_LBR_0_FROM_IP", DS_MSR_IA32_LBR_0_FROM_IP, "+x, Arch LBR"},
    {"IA32_LBR_0_TO_IP", DS_MSR_IA32_LBR_0_TO_IP, "+x, Arch LBR"},
    {"IA32_LBR_0_INFO", DS_MSR_IA32_LBR_0_INFO, "+x, Arch LBR"},
};

static void msr_line(const char *name, uint32_t msr, const char *note, bool *first)
{
    if (json) {
        printf("%s{\"name\":", *first ? "" : ",");
        jstr(name);
        printf(",\"msr\":\"0x%X\",\"note\":", msr);
        jstr(note);
        putchar('}');
    } else {
        printf("0x%04X  %-40s %s\n", msr, name, note);
    }
    *first = false;
}

static int cmd_msrs(int argc, char **argv)
{
    (void)argv;
    if (argc != 0)
        return usage_error("msrs takes no arguments");
    bool first = true;
    if (json)
        putchar('[');
    for (size_t i = 0; i < sizeof(msr_rows) / sizeof(msr_rows[0]); i++)
        msr_line(msr_rows[i].name, msr_rows[i].msr, msr_rows[i].note, &first);
    size_t n;
    const struct ds_nb_counter_info *c = ds_nb_counters(&n);
    for (size_t i = 0; i < n; i++)
        msr_line(c[i].name, c[i].msr, "NetBurst counter", &first);
    for (size_t i = 0; i < n; i++)
        msr_line(c[i].cccr_name, c[i].cccr_msr, "NetBurst CCCR", &first);
    const struct ds_nb_escr_info *e = ds_nb_escrs(&n);
    for (size_t i = 0; i < n; i++)
        msr_line(e[i].name, e[i].msr,
                 e[i].flags & DS_NB_ESCR_F_EARLY_ONLY ? "NetBurst ESCR (models 01H-02H only)" : "NetBurst ESCR",
                 &first);
    if (json)
        puts("]");
    return 0;
}

/* --- PEBS (needs pebs.h from the core facility) ------------------------------ */

#ifdef DSINFO_HAVE_PEBS
static bool parse_pebs_fmt(const char *s, enum ds_pebs_fmt *out)
{
    static const struct { const char *n; enum ds_pebs_fmt f; } t[] = {
        {"0", DS_PEBS_FMT_0}, {"1", DS_PEBS_FMT_1}, {"2", DS_PEBS_FMT_2}, {"3", DS_PEBS_FMT_3},
        {"4", DS_PEBS_FMT_4}, {"5", DS_PEBS_FMT_5}, {"6", DS_PEBS_FMT_6},
        {"nb32", DS_PEBS_FMT_NB32}, {"nb64", DS_PEBS_FMT_NB64},
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
        if (strcmp(s, t[i].n) == 0) {
            *out = t[i].f;
            return true;
        }
    return false;
}

/* reference pebs-records.md field offsets */
struct pebs_field {
    unsigned off;
    const char *name;
};
static const struct pebs_field gpr64[] = {
    {0x00, "RFLAGS"}, {0x08, "RIP"}, {0x10, "RAX"}, {0x18, "RBX"}, {0x20, "RCX"}, {0x28, "RDX"},
    {0x30, "RSI"}, {0x38, "RDI"}, {0x40, "RBP"}, {0x48, "RSP"}, {0x50, "R8"}, {0x58, "R9"},
    {0x60, "R10"}, {0x68, "R11"}, {0x70, "R12"}, {0x78, "R13"}, {0x80, "R14"}, {0x88, "R15"},
};
static const struct pebs_field nb32[] = {
    {0x00, "EFLAGS"}, {0x04, "EIP"}, {0x08, "EAX"}, {0x0C, "EBX"}, {0x10, "ECX"},
    {0x14, "EDX"}, {0x18, "ESI"}, {0x1C, "EDI"}, {0x20, "EBP"}, {0x24, "ESP"},
};
static const struct pebs_field ext[] = {
    {0x90, "IA32_PERF_GLOBAL_STATUS"}, {0x98, "data linear address"}, {0xA0, "data source"},
    {0xA8, "load latency"}, {0xB0, "EventingIP"}, {0xB8, "TX abort info"}, {0xC0, "TSC"},
};

static int cmd_pebs_format(int argc, char **argv)
{
    enum ds_pebs_fmt f;
    if (argc != 1 || !parse_pebs_fmt(argv[0], &f))
        return usage_error("pebs-format takes one format: 0-6, nb32 or nb64");
    uint32_t size = ds_pebs_record_size(f, 0);
    bool adaptive = ds_pebs_fmt_adaptive(f);
    if (json) {
        printf("{\"format\":");
        jstr(argv[0]);
        printf(",\"adaptive\":%s,\"record_size\":%u,", adaptive ? "true" : "false", size);
        if (adaptive) {
            printf("\"groups\":[{\"name\":\"basic\",\"size\":32,\"always\":true},"
                   "{\"name\":\"meminfo\",\"size\":32,\"data_cfg_bit\":0},"
                   "{\"name\":\"gprs\",\"size\":144,\"data_cfg_bit\":1},"
                   "{\"name\":\"xmm\",\"size\":256,\"data_cfg_bit\":2},"
                   "{\"name\":\"lbr\",\"size_per_entry\":24,\"data_cfg_bit\":3}],"
                   "\"max_record_size_32_lbrs\":%u}\n", ds_pebs_record_size(f, 0xF | (31ull << 24)));
            return 0;
        }
        printf("\"fields\":[");
        bool first = true;
        if (f == DS_PEBS_FMT_NB32) {
            for (size_t i = 0; i < sizeof(nb32) / sizeof(nb32[0]); i++, first = false)
                printf("%s{\"offset\":%u,\"size\":4,\"name\":\"%s\"}", first ? "" : ",", nb32[i].off, nb32[i].name);
        } else {
            for (size_t i = 0; i < sizeof(gpr64) / sizeof(gpr64[0]); i++, first = false)
                printf("%s{\"offset\":%u,\"size\":8,\"name\":\"%s\"}", first ? "" : ",", gpr64[i].off, gpr64[i].name);
            for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++)
                if (ext[i].off + 8 <= size)
                    printf(",{\"offset\":%u,\"size\":8,\"name\":\"%s\"}", ext[i].off,
                           f == DS_PEBS_FMT_3 && ext[i].off == 0x90 ? "applicable counters" : ext[i].name);
        }
        puts("]}");
        return 0;
    }
    printf("PEBS format %s: ", argv[0]);
    if (adaptive) {
        printf("adaptive, record size from the header (bits 63:48)\n");
        printf("  basic group   32 bytes (always): header, EventingIP, applicable counters, TSC\n");
        printf("  meminfo       32 bytes (MSR_PEBS_DATA_CFG bit 0)\n");
        printf("  gprs         144 bytes (bit 1; RCX, RDX, RBX order)\n");
        printf("  xmm          256 bytes (bit 2)\n");
        printf("  lbr          24 bytes per entry (bit 3; entries = bits 31:24 + 1)\n");
        printf("  maximum record (32 LBR entries): %u bytes\n", ds_pebs_record_size(f, 0xF | (31ull << 24)));
        return 0;
    }
    printf("%u bytes (0x%X)\n", size, size);
    if (f == DS_PEBS_FMT_NB32) {
        for (size_t i = 0; i < sizeof(nb32) / sizeof(nb32[0]); i++)
            printf("  0x%02X  %s\n", nb32[i].off, nb32[i].name);
        return 0;
    }
    for (size_t i = 0; i < sizeof(gpr64) / sizeof(gpr64[0]); i++)
        printf("  0x%02X  %s\n", gpr64[i].off, gpr64[i].name);
    for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++)
        if (ext[i].off + 8 <= size)
            printf("  0x%02X  %s\n", ext[i].off,
                   f == DS_PEBS_FMT_3 && ext[i].off == 0x90 ? "applicable counters" : ext[i].name);
    return 0;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = tolower(c);
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* The hex arguments argv[first..argc) into @buf: its length, or -1 after a usage error. */
static long parse_hex_args(int argc, char **argv, int first, uint8_t *buf, size_t cap)
{
    size_t n = 0;
    int hi = -1;
    for (int a = first; a < argc; a++) {
        const char *p = argv[a];
        if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
            p += 2;
        for (; *p; p++) {
            if (isspace((unsigned char)*p) || *p == ':' || *p == ',')
                continue;
            int v = hexval((unsigned char)*p);
            if (v < 0)
                return usage_error("bad hex digit '%c'", *p), -1;
            if (hi < 0) {
                hi = v;
            } else {
                if (n >= cap)
                    return usage_error("record longer than %zu bytes", cap), -1;
                buf[n++] = (uint8_t)(hi << 4 | v);
                hi = -1;
            }
        }
    }
    if (hi >= 0)
        return usage_error("odd number of hex digits"), -1;
    return (long)n;
}

static const char *const gname[DS_GPR__COUNT] = { "rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
                                                  "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15" };

static void decode_json(const char *fmt, const struct ds_pebs_sample *sp)
{
    const struct ds_pebs_sample s = *sp;
    printf("{\"format\":");
    jstr(fmt);
    printf(",\"size\":%u", s.size);
    if (s.present & DS_SAMPLE_IP)
        printf(",\"ip\":\"0x%llx\",\"ip_is_next\":%s", (unsigned long long)s.ip, s.ip_is_next ? "true" : "false");
    if (s.present & DS_SAMPLE_EVENTING_IP)
        printf(",\"eventing_ip\":\"0x%llx\"", (unsigned long long)s.eventing_ip);
    if (s.present & DS_SAMPLE_FLAGS)
        printf(",\"flags\":\"0x%llx\"", (unsigned long long)s.flags);
    if (s.present & DS_SAMPLE_GPRS) {
        printf(",\"gprs\":{");
        unsigned cnt = (s.present & DS_SAMPLE_GPRS32) ? 8 : DS_GPR__COUNT;
        for (unsigned i = 0; i < cnt; i++)
            printf("%s\"%s\":\"0x%llx\"", i ? "," : "", gname[i], (unsigned long long)s.gpr[i]);
        putchar('}');
    }
    if (s.present & (DS_SAMPLE_STATUS | DS_SAMPLE_APPLICABLE))
        printf(",\"%s\":\"0x%llx\"", s.present & DS_SAMPLE_STATUS ? "global_status" : "applicable_counters",
               (unsigned long long)s.counters);
    if (s.present & DS_SAMPLE_MEM)
        printf(",\"data_addr\":\"0x%llx\",\"data_source\":\"0x%llx\",\"latency\":%llu",
               (unsigned long long)s.data_addr, (unsigned long long)s.data_source,
               (unsigned long long)s.latency);
    if (s.present & DS_SAMPLE_TSX)
        printf(",\"tsx\":\"0x%llx\"", (unsigned long long)s.tsx);
    if (s.present & DS_SAMPLE_TSC)
        printf(",\"tsc\":%llu", (unsigned long long)s.tsc);
    if (s.present & DS_SAMPLE_LBR)
        printf(",\"lbr_count\":%u", s.lbr_count);
    puts("}");
}

static void decode_text(const char *fmt, const struct ds_pebs_sample *sp)
{
    const struct ds_pebs_sample s = *sp;
    printf("format %s, %u bytes\n", fmt, s.size);
    if (s.present & DS_SAMPLE_IP)
        printf("ip:           0x%llx%s\n", (unsigned long long)s.ip, s.ip_is_next ? " (next instruction)" : "");
    if (s.present & DS_SAMPLE_EVENTING_IP)
        printf("eventing ip:  0x%llx\n", (unsigned long long)s.eventing_ip);
    if (s.present & DS_SAMPLE_FLAGS)
        printf("flags:        0x%llx\n", (unsigned long long)s.flags);
    if (s.present & DS_SAMPLE_GPRS) {
        unsigned cnt = (s.present & DS_SAMPLE_GPRS32) ? 8 : DS_GPR__COUNT;
        for (unsigned i = 0; i < cnt; i++)
            printf("%-13s 0x%llx\n", gname[i], (unsigned long long)s.gpr[i]);
    }
    if (s.present & (DS_SAMPLE_STATUS | DS_SAMPLE_APPLICABLE))
        printf("%s 0x%llx\n", s.present & DS_SAMPLE_STATUS ? "global status:" : "applicable:  ",
               (unsigned long long)s.counters);
    if (s.present & DS_SAMPLE_MEM)
        printf("data address: 0x%llx\ndata source:  0x%llx\nlatency:      %llu\n", (unsigned long long)s.data_addr,
               (unsigned long long)s.data_source, (unsigned long long)s.latency);
    if (s.present & DS_SAMPLE_TSX)
        printf("tsx:          0x%llx\n", (unsigned long long)s.tsx);
    if (s.present & DS_SAMPLE_TSC)
        printf("tsc:          %llu\n", (unsigned long long)s.tsc);
    if (s.present & DS_SAMPLE_LBR)
        printf("lbr entries:  %u\n", s.lbr_count);
}

static int cmd_decode(int argc, char **argv)
{
    enum ds_pebs_fmt f;
    if (argc < 3 || strcmp(argv[0], "pebs") != 0)
        return usage_error("decode takes: pebs FORMAT HEX...");
    if (!parse_pebs_fmt(argv[1], &f))
        return usage_error("bad PEBS format '%s' (0-6, nb32, nb64)", argv[1]);
    static uint8_t buf[8192];
    long n = parse_hex_args(argc, argv, 2, buf, sizeof(buf));
    if (n < 0)
        return 2;
    struct ds_pebs_sample s;
    int e = ds_pebs_decode(f, buf, (size_t)n, false, &s);
    if (e) {
        if (json) {
            json_error(e);
        } else {
            fprintf(stderr, "dsinfo: cannot decode %ld bytes as format %s: %s\n", n, argv[1], ds_strerror(e));
        }
        return 1;
    }
    if (json)
        decode_json(argv[1], &s);
    else
        decode_text(argv[1], &s);
    return 0;
}
#else
static int no_pebs(void)
{
    fprintf(stderr, "dsinfo: this build has no PEBS decoder (libds/include/ds/pebs.h absent)\n");
    return 1;
}
static int cmd_pebs_format(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return no_pebs();
}
static int cmd_decode(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return no_pebs();
}
#endif

static int run(int n, char **args)
{
    if (n == 0)
        return usage_error("no command");
    const char *cmd = args[0];
    if (cpuid_dump_file && strcmp(cmd, "cpu") != 0 && strcmp(cmd, "events") != 0)
        return usage_error("--cpuid-dump is an option of cpu and events");
    if (strcmp(cmd, "lbr") == 0)
        return cmd_lbr(n - 1, args + 1);
    if (strcmp(cmd, "netburst") == 0)
        return cmd_netburst(n - 1, args + 1);
    if (strcmp(cmd, "msrs") == 0)
        return cmd_msrs(n - 1, args + 1);
    if (strcmp(cmd, "pebs-format") == 0)
        return cmd_pebs_format(n - 1, args + 1);
    if (strcmp(cmd, "decode") == 0)
        return cmd_decode(n - 1, args + 1);
    if (strcmp(cmd, "cpu") == 0) {
        if (n != 1)
            return usage_error("cpu takes no argument (a dump: --cpuid-dump FILE)");
        return dsinfo_cmd_cpu(0, NULL, json, cpuid_dump_file);
    }
    if (strcmp(cmd, "events") == 0) {
        if (n != 1)
            return usage_error("events takes no argument (a dump: --cpuid-dump FILE)");
        return dsinfo_cmd_events(json, cpuid_dump_file);
    }
    return usage_error("unknown command '%s'", cmd);
}

int main(int argc, char **argv)
{
    char **args = calloc((size_t)argc + 1, sizeof(*args));
    int n = 0, rc = -1;
    if (!args)
        return 1;
    for (int i = 1; i < argc && rc < 0; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            json = true;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(usage_text, stdout);
            rc = 0;
        } else if (strcmp(argv[i], "--cpuid-dump") == 0) {
            if (i + 1 >= argc)
                rc = usage_error("--cpuid-dump needs a FILE");
            else
                cpuid_dump_file = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1] == '-') {
            rc = usage_error("unknown option '%s'", argv[i]);
        } else {
            args[n++] = argv[i];
        }
    }
    if (rc < 0)
        rc = run(n, args);
    free(args);
    fflush(stdout);
    return rc;
}

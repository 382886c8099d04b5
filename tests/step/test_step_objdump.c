/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Cross-check of the classifier against GNU objdump, an independent decoder:
 * for every instruction objdump lists in the given disassembly files
 * (objdump -d --insn-width=16, produced by the build from compiler-generated
 * code: libds and the step/workload objects for i386 and x86_64, and this
 * test suite's own x86_64 code), step_decode() must return the same length
 * and a branch kind that agrees with objdump's mnemonic. VEX/EVEX-encoded
 * instructions must be reported as STEP_ERR_VEX.
 *
 * usage: test_step_objdump FILE.dis...   (exits 1 if a file has no
 * instructions, so an empty corpus cannot pass)
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "insn.h"

static const char *skip_prefix_words(const char *m)
{
    static const char *const words[] = {
        "bnd ", "notrack ", "rep ", "repz ", "repe ", "repnz ", "repne ", "lock ", "data16 ", "data32 ",
        "addr16 ", "addr32 ", "cs ", "ds ", "es ", "ss ", "fs ", "gs ", "rex ", "rex.W ", "rex.R ", "rex.X ",
        "rex.B ", "rex.WB ", "rex.WR ", "rex.WX ", "rex.RB ", "rex.XB ", "rex.RX ", "rex.WRB ", "rex.WXB ",
        "rex.WRX ", "rex.RXB ", "rex.WRXB ", "{disp32} ", "{disp8} ",
    };
    for (;;) {
        bool hit = false;
        while (*m == ' ')
            m++;
        for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
            size_t n = strlen(words[i]);
            if (strncmp(m, words[i], n) == 0) {
                m += n;
                hit = true;
            }
        }
        if (!hit)
            return m;
    }
}

/* Branch kind from an AT&T mnemonic as objdump prints it. */
static int kind_of(const char *m)
{
    char mn[32];
    size_t i = 0;
    while (m[i] && m[i] != ',' && !isspace((unsigned char)m[i]) && i < sizeof mn - 1) {
        mn[i] = m[i];
        i++;
    }
    mn[i] = '\0';
    const char *ops = m + i;
    while (*ops && *ops != ' ')
        ops++; /* ",pn"/",pt" hint suffix */
    while (*ops == ' ')
        ops++;
    bool ind = *ops == '*';

    if (!strcmp(mn, "jmp") || !strcmp(mn, "jmpq") || !strcmp(mn, "jmpl") || !strcmp(mn, "jmpw"))
        return ind ? STEP_BR_JMP_IND : STEP_BR_JMP_REL;
    if (!strcmp(mn, "call") || !strcmp(mn, "callq") || !strcmp(mn, "calll") || !strcmp(mn, "callw"))
        return ind ? STEP_BR_CALL_IND : STEP_BR_CALL_REL;
    if (!strcmp(mn, "ret") || !strcmp(mn, "retq") || !strcmp(mn, "retl") || !strcmp(mn, "retw"))
        return STEP_BR_RET;
    if (!strncmp(mn, "lret", 4) || !strncmp(mn, "ljmp", 4) || !strncmp(mn, "lcall", 5))
        return STEP_BR_FAR;
    if (!strcmp(mn, "jecxz") || !strcmp(mn, "jrcxz") || !strcmp(mn, "jcxz") || !strncmp(mn, "loop", 4))
        return STEP_BR_LOOP;
    if (mn[0] == 'j')
        return STEP_BR_JCC;
    if (!strcmp(mn, "int3") || !strcmp(mn, "int") || !strcmp(mn, "int1") || !strcmp(mn, "icebp") ||
        !strcmp(mn, "into") || !strncmp(mn, "iret", 4) || !strcmp(mn, "syscall") ||
        !strncmp(mn, "sysret", 6) || !strcmp(mn, "sysenter") || !strncmp(mn, "sysexit", 7) ||
        !strcmp(mn, "rsm"))
        return STEP_BR_OTHER;
    return STEP_BR_NONE;
}

static unsigned long long total, vex;

static int check_file(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        return -1;
    }
    char line[1024];
    unsigned mode = 0;
    unsigned long long n = 0;
    unsigned lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (strstr(line, "file format elf64-x86-64"))
            mode = STEP_MODE_64;
        else if (strstr(line, "file format elf32-i386"))
            mode = STEP_MODE_32;
        /* "  addr:\tbytes\tmnemonic" */
        char *t1 = strchr(line, '\t');
        if (!mode || !t1 || t1 == line || t1[-1] != ':')
            continue;
        char *t2 = strchr(t1 + 1, '\t');
        if (!t2)
            continue; /* continuation line or bytes only */
        *t2 = '\0';
        char *mn = t2 + 1;
        mn[strcspn(mn, "\n")] = '\0';
        if (strstr(mn, "(bad)") || mn[0] == '.')
            continue;
        uint8_t b[16];
        unsigned nb = 0;
        for (char *p = t1 + 1; *p && nb < sizeof b;) {
            while (*p == ' ')
                p++;
            if (!isxdigit((unsigned char)p[0]) || !isxdigit((unsigned char)p[1]))
                break;
            b[nb++] = (uint8_t)strtoul((char[3]){p[0], p[1], 0}, NULL, 16);
            p += 2;
        }
        if (nb == 0)
            continue;
        const char *m = skip_prefix_words(mn);
        if (*m == '\0' || (strncmp(m, "rex", 3) == 0 && strchr(m, ' ') == NULL))
            continue; /* a lone (ignored) prefix objdump printed on its own */
        struct step_insn in;
        enum step_err e;
        uint8_t *bp = b;
        if (b[0] == 0x9B && nb > 1) {
            /* objdump merges FWAIT with the x87 instruction after it
             * ("fstcw" = FWAIT + FNSTCW); architecturally, and for
             * single-stepping, they are two instructions. */
            e = step_decode(b, 1, mode, 0x10000, &in);
            CHECK(e == STEP_OK && in.len == 1 && in.kind == STEP_BR_NONE, "%s:%u: FWAIT of '%s'", path, lineno, mn);
            bp++;
            nb--;
        }
        e = step_decode(bp, nb, mode, 0x10000, &in);
        n++;
        if (e == STEP_ERR_VEX) {
            vex++;
            static const char *const bmi[] = {"andn", "bextr", "blsi", "blsmsk", "blsr", "bzhi",
                                               "mulx", "pdep", "pext", "rorx", "sarx", "shlx", "shrx"};
            bool ok = m[0] == 'v' || m[0] == 'k' || strchr(m, '{') != NULL;
            for (size_t w = 0; w < sizeof bmi / sizeof bmi[0]; w++)
                ok = ok || strncmp(m, bmi[w], strlen(bmi[w])) == 0;
            CHECK(ok, "%s:%u: VEX verdict for '%s'", path, lineno, mn);
            continue;
        }
        CHECK_EQ(e, STEP_OK, "%s:%u: decode '%s' (%s)", path, lineno, mn, step_strerror(e));
        if (e != STEP_OK)
            continue;
        CHECK_EQ(in.len, nb, "%s:%u: length of '%s'", path, lineno, mn);
        int k = kind_of(m);
        CHECK_EQ(in.kind, k, "%s:%u: kind of '%s' (decoder says %s)", path, lineno, mn, step_br_kind_name(in.kind));
    }
    fclose(f);
    printf("# %s: %llu instructions\n", path, n);
    total += n;
    return n ? 0 : -1;
}

int main(int argc, char **argv)
{
    int rc = 0;
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE.dis...\n", argv[0]);
        return 2;
    }
    for (int i = 1; i < argc; i++)
        if (check_file(argv[i]) != 0)
            rc = 1;
    printf("# %llu instructions checked, %llu VEX\n", total, vex);
    CHECK(rc == 0, "every corpus file had instructions");
    return check_summary();
}

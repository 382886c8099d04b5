/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The issue 11 profiles' CPUID words against the real dumps they were copied
 * from (shared/cpuid, InstLatx64 format: "CPUID LLLLLLLL: EAX-EBX-ECX-EDX
 * [SL ss]" per logical CPU). The model carries the words as constants (CI has
 * no dumps); this test catches a transcription error where the dumps exist
 * and SKIPs (exit 77) where they do not. Own parser: no libds code.
 * For each profile: the dump, the logical CPU whose CPUID.1AH:EAX matches
 * (or CPU #0), and which leaves/registers must equal the model's answer
 * (hybrid bit 07H EDX[15] masked where the dump's part is not hybrid).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "dsmodel.h"

#ifndef DSM_DUMP_DIR
#define DSM_DUMP_DIR "../shared/cpuid"
#endif

struct word { uint32_t leaf, sub; unsigned reg; uint32_t mask; };   /* reg 0..3 = EAX..EDX */

#define ALL 0xFFFFFFFFu
static const struct word w_common[] = {
    { 0x00, 0, 0, ALL }, { 0x01, 0, 0, ALL }, { 0x01, 0, 2, ALL }, { 0x01, 0, 3, ALL },
    { 0x0A, 0, 0, ALL }, { 0x0A, 0, 1, ALL }, { 0x0A, 0, 2, ALL }, { 0x0A, 0, 3, ALL },
    { 0x1C, 0, 0, ALL }, { 0x1C, 0, 1, ALL }, { 0x1C, 0, 2, ALL }, { 0x07, 0, 3, ALL },
};
static const struct word w_lnl[] = {
    { 0x1A, 0, 0, ALL }, { 0x23, 0, 0, ALL }, { 0x23, 0, 1, ALL }, { 0x23, 1, 0, ALL }, { 0x23, 1, 1, ALL },
    { 0x23, 3, 0, ALL },
};
/* Alder Lake P-core from the P-core-only 06_97H dump: 07H EDX without bit 15 */
static const struct word w_adlp[] = {
    { 0x00, 0, 0, ALL }, { 0x01, 0, 0, ALL }, { 0x01, 0, 2, ALL }, { 0x01, 0, 3, ALL },
    { 0x0A, 0, 0, ALL }, { 0x0A, 0, 1, ALL }, { 0x0A, 0, 2, ALL }, { 0x0A, 0, 3, ALL },
    { 0x1C, 0, 0, ALL }, { 0x1C, 0, 1, ALL }, { 0x1C, 0, 2, ALL }, { 0x07, 0, 3, ~(1u << 15) },
};
/* Lunar Lake E-core (Skymont): 1AH, 23H sub-leaves 0-3 EAX/EBX (23H.0 ECX and
 * 23H.2 ECX/EDX are not modelled) */
static const struct word w_lnle[] = {
    { 0x1A, 0, 0, ALL }, { 0x23, 0, 0, ALL }, { 0x23, 0, 1, ALL }, { 0x23, 1, 0, ALL }, { 0x23, 1, 1, ALL },
    { 0x23, 2, 0, ALL }, { 0x23, 2, 1, ALL }, { 0x23, 3, 0, ALL },
};
/* Arrow Lake-H P-core: the Arrow Lake-S dump's P-core words, less what the 285H
 * boot log says otherwise (signature 01H EAX, perfmon version 0AH EAX[7:0]) */
static const struct word w_arlh[] = {
    { 0x00, 0, 0, ALL }, { 0x01, 0, 2, ALL }, { 0x01, 0, 3, ALL }, { 0x0A, 0, 0, ~0xFFu }, { 0x0A, 0, 1, ALL },
    { 0x0A, 0, 2, ALL }, { 0x0A, 0, 3, ALL }, { 0x1C, 0, 0, ALL }, { 0x1C, 0, 1, ALL }, { 0x1C, 0, 2, ALL },
    { 0x07, 0, 3, ALL }, { 0x1A, 0, 0, ALL }, { 0x23, 0, 0, ALL }, { 0x23, 0, 1, ALL }, { 0x23, 1, 0, ALL },
    { 0x23, 1, 1, ALL }, { 0x23, 3, 0, ALL },
};
/* Alder Lake E-core: only leaf 1CH is taken from a dump (Meteor Lake E-core) */
static const struct word w_adle[] = { { 0x1C, 0, 0, ALL }, { 0x1C, 0, 1, ALL }, { 0x1C, 0, 2, ALL } };

struct pcase {
    enum dsm_profile p;
    const char *file;
    uint32_t l1a;                 /* pick the logical CPU with this 1AH:EAX; 0 = CPU #0 */
    const struct word *w;
    size_t nw;
};

#define N(a) (sizeof(a) / sizeof((a)[0]))
static const struct pcase C[] = {
    { DSM_SAPPHIRERAPIDS, "GenuineIntel00806F8_SapphireRapids_05_CPUID.txt", 0, w_common, N(w_common) },
    { DSM_LUNARLAKE, "GenuineIntel00B06D1_LunarLake_04_CPUID.txt", 0x40000003, w_common, N(w_common) },
    { DSM_LUNARLAKE, "GenuineIntel00B06D1_LunarLake_04_CPUID.txt", 0x40000003, w_lnl, N(w_lnl) },
    { DSM_ALDERLAKE_P, "GenuineIntel0090672_AlderLake_02_CPUID.txt", 0, w_adlp, N(w_adlp) },
    { DSM_ALDERLAKE_E, "GenuineIntel00A06A4_MeteorLake_07_CPUID.txt", 0x20000002, w_adle, N(w_adle) },
    { DSM_LUNARLAKE_E, "GenuineIntel00B06D1_LunarLake_04_CPUID.txt", 0x20000003, w_common, N(w_common) },
    { DSM_LUNARLAKE_E, "GenuineIntel00B06D1_LunarLake_04_CPUID.txt", 0x20000003, w_lnle, N(w_lnle) },
    { DSM_ARROWLAKE_H, "GenuineIntel00C0662_ArrowLake_07_CPUID.txt", 0x40000003, w_arlh, N(w_arlh) },
};

#define MAXL 256
struct leafv { uint32_t leaf, sub, r[4]; };
struct cpu { struct leafv l[MAXL]; unsigned n; };

/* Read logical CPUs of @path one at a time; return the first whose 1AH:EAX
 * equals @l1a (or the first CPU when 0). Leaves not listed read as zeros. */
static int load_cpu(const char *path, uint32_t l1a, struct cpu *out)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[512];
    struct cpu cur;
    bool have = false;
    memset(&cur, 0, sizeof cur);
    int found = -2;
    for (;;) {
        bool eof = !fgets(line, sizeof line, f);
        if (eof || strstr(line, "Logical CPU #")) {
            if (have) {
                uint32_t t = 0;
                for (unsigned i = 0; i < cur.n; i++)
                    if (cur.l[i].leaf == 0x1A)
                        t = cur.l[i].r[0];
                if (!l1a || t == l1a) {
                    *out = cur;
                    found = 0;
                    break;
                }
            }
            if (eof)
                break;
            memset(&cur, 0, sizeof cur);
            have = true;
            continue;
        }
        unsigned leaf, a, b, c, d, sub = 0;
        if (sscanf(line, "CPUID %x: %x-%x-%x-%x", &leaf, &a, &b, &c, &d) != 5 || cur.n >= MAXL)
            continue;
        const char *sl = strstr(line, "[SL ");
        if (sl)
            sscanf(sl, "[SL %x]", &sub);
        cur.l[cur.n++] = (struct leafv){ leaf, sub, { a, b, c, d } };
    }
    fclose(f);
    return found;
}

static uint32_t dump_word(const struct cpu *c, uint32_t leaf, uint32_t sub, unsigned reg)
{
    for (unsigned i = 0; i < c->n; i++)
        if (c->l[i].leaf == leaf && c->l[i].sub == sub)
            return c->l[i].r[reg];
    return 0;
}

int main(void)
{
    const char *dir = getenv("DSM_DUMP_DIR");
    if (!dir)
        dir = DSM_DUMP_DIR;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, C[0].file);
    FILE *probe = fopen(path, "r");
    if (!probe) {
        printf("SKIP: no CPUID dumps at %s (set DSM_DUMP_DIR)\n", dir);
        return 77;
    }
    fclose(probe);
    static struct cpu dc;
    static const char *const rn[4] = { "EAX", "EBX", "ECX", "EDX" };
    for (size_t i = 0; i < N(C); i++) {
        const struct pcase *x = &C[i];
        const char *n = dsm_profile_name(x->p);
        snprintf(path, sizeof path, "%s/%s", dir, x->file);
        CHECK_EQ(load_cpu(path, x->l1a, &dc), 0, "%s: logical CPU with 1AH %08X in %s", n, x->l1a, x->file);
        struct dsm_cpu m;
        CHECK_EQ(dsm_init(&m, x->p, NULL, NULL), DSM_OK, "init %s", n);
        for (size_t k = 0; k < x->nw; k++) {
            const struct word *w = &x->w[k];
            uint32_t out[4];
            dsm_cpuid(&m, w->leaf, w->sub, out);
            CHECK_EQ(out[w->reg] & w->mask, dump_word(&dc, w->leaf, w->sub, w->reg) & w->mask,
                     "%s: CPUID %02XH.%u %s = %s", n, w->leaf, w->sub, rn[w->reg], x->file);
        }
    }
    return check_summary();
}

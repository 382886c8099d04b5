/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * NetBurst ESCR/CCCR tables, allocator, programming sequence, PEBS/replay
 * tagging and PMI helper, against reference netburst.md (expected values are
 * typed here from the reference tables, not taken from libds).
 */
#include "check.h"
#include "fake_pmu.h"
#include "fault_sweep.h"

#define DS_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* reference netburst.md "ESCR MSRs" (SSU_ESCR1 excluded: unconfirmed) */
static const struct { const char *name; uint32_t msr; unsigned sel; int c[3]; } ref_escr[] = {
    {"MSR_BSU_ESCR0", 0x3A0, 7, {0, 1, -1}}, {"MSR_BSU_ESCR1", 0x3A1, 7, {2, 3, -1}},
    {"MSR_FSB_ESCR0", 0x3A2, 6, {0, 1, -1}}, {"MSR_FSB_ESCR1", 0x3A3, 6, {2, 3, -1}},
    {"MSR_FIRM_ESCR0", 0x3A4, 1, {8, 9, -1}}, {"MSR_FIRM_ESCR1", 0x3A5, 1, {10, 11, -1}},
    {"MSR_FLAME_ESCR0", 0x3A6, 0, {8, 9, -1}}, {"MSR_FLAME_ESCR1", 0x3A7, 0, {10, 11, -1}},
    {"MSR_DAC_ESCR0", 0x3A8, 5, {8, 9, -1}}, {"MSR_DAC_ESCR1", 0x3A9, 5, {10, 11, -1}},
    {"MSR_MOB_ESCR0", 0x3AA, 2, {0, 1, -1}}, {"MSR_MOB_ESCR1", 0x3AB, 2, {2, 3, -1}},
    {"MSR_PMH_ESCR0", 0x3AC, 4, {0, 1, -1}}, {"MSR_PMH_ESCR1", 0x3AD, 4, {2, 3, -1}},
    {"MSR_SAAT_ESCR0", 0x3AE, 2, {8, 9, -1}}, {"MSR_SAAT_ESCR1", 0x3AF, 2, {10, 11, -1}},
    {"MSR_U2L_ESCR0", 0x3B0, 3, {8, 9, -1}}, {"MSR_U2L_ESCR1", 0x3B1, 3, {10, 11, -1}},
    {"MSR_BPU_ESCR0", 0x3B2, 0, {0, 1, -1}}, {"MSR_BPU_ESCR1", 0x3B3, 0, {2, 3, -1}},
    {"MSR_IS_ESCR0", 0x3B4, 1, {0, 1, -1}}, {"MSR_IS_ESCR1", 0x3B5, 1, {2, 3, -1}},
    {"MSR_ITLB_ESCR0", 0x3B6, 3, {0, 1, -1}}, {"MSR_ITLB_ESCR1", 0x3B7, 3, {2, 3, -1}},
    {"MSR_CRU_ESCR0", 0x3B8, 4, {12, 13, 16}}, {"MSR_CRU_ESCR1", 0x3B9, 4, {14, 15, 17}},
    {"MSR_IQ_ESCR0", 0x3BA, 0, {12, 13, 16}}, {"MSR_IQ_ESCR1", 0x3BB, 0, {14, 15, 17}},
    {"MSR_RAT_ESCR0", 0x3BC, 2, {12, 13, 16}}, {"MSR_RAT_ESCR1", 0x3BD, 2, {14, 15, 17}},
    {"MSR_SSU_ESCR0", 0x3BE, 3, {12, 13, 16}},
    {"MSR_MS_ESCR0", 0x3C0, 0, {4, 5, -1}}, {"MSR_MS_ESCR1", 0x3C1, 0, {6, 7, -1}},
    {"MSR_TBPU_ESCR0", 0x3C2, 2, {4, 5, -1}}, {"MSR_TBPU_ESCR1", 0x3C3, 2, {6, 7, -1}},
    {"MSR_TC_ESCR0", 0x3C4, 1, {4, 5, -1}}, {"MSR_TC_ESCR1", 0x3C5, 1, {6, 7, -1}},
    {"MSR_IX_ESCR0", 0x3C8, 5, {0, 1, -1}}, {"MSR_IX_ESCR1", 0x3C9, 5, {2, 3, -1}},
    {"MSR_ALF_ESCR0", 0x3CA, 1, {12, 13, 16}}, {"MSR_ALF_ESCR1", 0x3CB, 1, {14, 15, 17}},
    {"MSR_CRU_ESCR2", 0x3CC, 5, {12, 13, 16}}, {"MSR_CRU_ESCR3", 0x3CD, 5, {14, 15, 17}},
    {"MSR_CRU_ESCR4", 0x3E0, 6, {12, 13, 16}}, {"MSR_CRU_ESCR5", 0x3E1, 6, {14, 15, 17}},
};

/* reference netburst.md "At-retirement events" */
static const struct { const char *name; const char *escr[2]; unsigned evsel, ccsel; uint32_t mask; bool pebs; } ref_ar[] = {
    {"front_end_event", {"MSR_CRU_ESCR2", "MSR_CRU_ESCR3"}, 0x08, 5, 0x3, true},
    {"execution_event", {"MSR_CRU_ESCR2", "MSR_CRU_ESCR3"}, 0x0C, 5, 0xFF, true},
    {"replay_event", {"MSR_CRU_ESCR2", "MSR_CRU_ESCR3"}, 0x09, 5, 0x3, true},
    {"instr_retired", {"MSR_CRU_ESCR0", "MSR_CRU_ESCR1"}, 0x02, 4, 0xF, false},
    {"uops_retired", {"MSR_CRU_ESCR0", "MSR_CRU_ESCR1"}, 0x01, 4, 0x3, false},
    {"uop_type", {"MSR_RAT_ESCR0", "MSR_RAT_ESCR1"}, 0x02, 2, 0x6, false},
    {"branch_retired", {"MSR_CRU_ESCR2", "MSR_CRU_ESCR3"}, 0x06, 5, 0xF, false},
    {"mispred_branch_retired", {"MSR_CRU_ESCR0", "MSR_CRU_ESCR1"}, 0x03, 4, 0x1, false},
    {"x87_assist", {"MSR_CRU_ESCR2", "MSR_CRU_ESCR3"}, 0x03, 5, 0x1F, false},
    {"machine_clear", {"MSR_CRU_ESCR2", "MSR_CRU_ESCR3"}, 0x02, 5, 0x1, false},
    {"instr_completed", {"MSR_CRU_ESCR0", "MSR_CRU_ESCR1"}, 0x07, 4, 0x3, false},
};

static void netburst_cpu(struct fake_pmu *f, struct ds_cpu *cpu, unsigned model, bool perfmon)
{
    fp_reset(f);
    /* family 0FH, model @model; DS present */
    fp_intel(f, 2, 0x00000F00u | (model << 4) | 1u, 0, (1u << 21) | (1u << 28));
    f->leaves[1].r[1] = 0x00020000; /* HTT + 2 logical processors: thread 1 exists */
    fp_set(f, DS_MSR_IA32_MISC_ENABLE, perfmon ? (1u << 7) : 0);
    for (unsigned i = 0; i < 18; i++) {
        fp_set(f, 0x300 + i, 0);
        fp_set(f, 0x360 + i, 0);
    }
    for (size_t i = 0; i < DS_ARRAY_SIZE(ref_escr); i++)
        fp_set(f, ref_escr[i].msr, 0);
    fp_set(f, 0x3F1, 0);
    fp_set(f, 0x3F2, 0);
    CHECK_EQ(fp_identify(f, cpu), DS_OK, "identify netburst");
    CHECK(cpu->caps.netburst, "netburst detected");
}


static void test_tables(void)
{
    size_t n;
    const struct ds_nb_counter_info *c = ds_nb_counters(&n);
    CHECK_EQ(n, 18, "18 counters");
    for (unsigned i = 0; i < n; i++) {
        CHECK_EQ(c[i].msr, 0x300 + i, "counter %u msr", i);
        CHECK_EQ(c[i].cccr_msr, 0x360 + i, "cccr %u msr", i);
    }
    CHECK(strcmp(c[16].name, "MSR_IQ_COUNTER4") == 0 && strcmp(c[17].cccr_name, "MSR_IQ_CCCR5") == 0, "names");
    const struct ds_nb_escr_info *e = ds_nb_escrs(&n);
    CHECK_EQ(n, 45, "45 ESCRs");
    CHECK_EQ(DS_ARRAY_SIZE(ref_escr), 45, "reference rows");
    for (size_t r = 0; r < DS_ARRAY_SIZE(ref_escr); r++) {
        unsigned idx;
        CHECK_EQ(ds_nb_escr_find(ref_escr[r].name, &idx), DS_OK, "find %s", ref_escr[r].name);
        CHECK_EQ(e[idx].msr, ref_escr[r].msr, "%s msr", ref_escr[r].name);
        CHECK_EQ(e[idx].select, ref_escr[r].sel, "%s select", ref_escr[r].name);
        unsigned nc = ref_escr[r].c[2] < 0 ? 2 : 3;
        CHECK_EQ(e[idx].ncounters, nc, "%s counter count", ref_escr[r].name);
        for (unsigned k = 0; k < nc; k++)
            CHECK_EQ(e[idx].counters[k], ref_escr[r].c[k], "%s counter %u", ref_escr[r].name, k);
        CHECK(e[idx].msr != DS_MSR_NB_SSU_ESCR1_UNCONFIRMED, "no SSU_ESCR1");
    }
    /* Counter -> ESCR view: within one counter, select values are unique (the CCCR
     * select must identify exactly one ESCR), as in the reference table. */
    for (unsigned ctr = 0; ctr < 18; ctr++) {
        unsigned seen = 0, count = 0;
        for (size_t i = 0; i < n; i++)
            for (unsigned k = 0; k < e[i].ncounters; k++)
                if (e[i].counters[k] == ctr) {
                    CHECK(!(seen & (1u << e[i].select)), "counter %u select %u unique", ctr, e[i].select);
                    seen |= 1u << e[i].select;
                    count++;
                }
        unsigned want = ctr < 4 ? 8 : ctr < 8 ? 3 : ctr < 12 ? 5 : 7;
        if (ctr == 14 || ctr == 15 || ctr == 17)
            want = 6; /* SSU_ESCR1 excluded */
        CHECK_EQ(count, want, "ESCRs usable with counter %u", ctr);
    }
    CHECK_EQ(ds_nb_escr_find("CRU_ESCR2", &(unsigned){0}), DS_OK, "find without MSR_ prefix");
    CHECK_EQ(ds_nb_escr_find("MSR_SSU_ESCR1", &(unsigned){0}), DS_ERR_NB_BAD_ESCR, "SSU_ESCR1 absent");
    CHECK_EQ(ds_nb_escr_find(NULL, &(unsigned){0}), DS_ERR_NULL, "null");

    const struct ds_nb_event_info *ev = ds_nb_events(&n);
    for (size_t i = 0; i < n; i++) {
        CHECK(ev[i].nescrs >= 1 && ev[i].nescrs <= 2, "%s escr count", ev[i].name);
        for (unsigned k = 0; k < ev[i].nescrs; k++)
            CHECK_EQ(e[ev[i].escrs[k]].select, ev[i].cccr_select, "%s: CCCR select matches ESCR %s",
                     ev[i].name, e[ev[i].escrs[k]].name);
        CHECK(ev[i].event_select < 64, "%s event select fits 6 bits", ev[i].name);
        for (unsigned k = 0; k < ev[i].nmasks; k++)
            CHECK(ev[i].masks[k].bit < 16, "%s mask bit fits", ev[i].name);
        unsigned idx;
        CHECK(ds_nb_event_find(ev[i].name, &idx) == DS_OK && idx == i, "find %s", ev[i].name);
    }
    for (size_t r = 0; r < DS_ARRAY_SIZE(ref_ar); r++) {
        unsigned idx, e0, e1;
        CHECK_EQ(ds_nb_event_find(ref_ar[r].name, &idx), DS_OK, "find %s", ref_ar[r].name);
        ds_nb_escr_find(ref_ar[r].escr[0], &e0);
        ds_nb_escr_find(ref_ar[r].escr[1], &e1);
        CHECK(ev[idx].nescrs == 2 && ev[idx].escrs[0] == e0 && ev[idx].escrs[1] == e1, "%s ESCRs", ref_ar[r].name);
        CHECK_EQ(ev[idx].event_select, ref_ar[r].evsel, "%s event select", ref_ar[r].name);
        CHECK_EQ(ev[idx].cccr_select, ref_ar[r].ccsel, "%s cccr select", ref_ar[r].name);
        uint32_t m = 0;
        for (unsigned k = 0; k < ev[idx].nmasks; k++)
            m |= 1u << ev[idx].masks[k].bit;
        CHECK_EQ(m, ref_ar[r].mask, "%s mask bits", ref_ar[r].name);
        CHECK(!!(ev[idx].flags & DS_NB_EV_PEBS) == ref_ar[r].pebs, "%s PEBS-capable", ref_ar[r].name);
        CHECK(ev[idx].flags & DS_NB_EV_AT_RETIREMENT, "%s at retirement", ref_ar[r].name);
    }
    CHECK_EQ(ds_nb_event_find("b2b_cycles", &(unsigned){0}), DS_ERR_NB_BAD_EVENT, "FSB select-3 events not offered");
    uint32_t mask;
    unsigned br;
    ds_nb_event_find("branch_retired", &br);
    CHECK_EQ(ds_nb_mask_parse(br, "MMNP|MMTM", &mask), DS_OK, "mask parse");
    CHECK_EQ(mask, 0x9, "MMNP|MMTM");
    CHECK_EQ(ds_nb_mask_parse(br, "MMNP,MMNM,MMTP,MMTM", &mask), DS_OK, "mask parse commas");
    CHECK_EQ(mask, 0xF, "all");
    CHECK_EQ(ds_nb_mask_parse(br, "MMXX", &mask), DS_ERR_NB_BAD_MASK, "bad mask name");
    CHECK_EQ(ds_nb_mask_parse(br, "MMN", &mask), DS_ERR_NB_BAD_MASK, "prefix is not a name");
    CHECK_EQ(ds_nb_mask_parse(br, "", &mask), DS_ERR_NB_BAD_MASK, "empty");
    /* issue 31: an empty name after a separator is as bad as one between */
    mask = 0x77;
    CHECK_EQ(ds_nb_mask_parse(br, "MMNP|", &mask), DS_ERR_NB_BAD_MASK, "trailing '|'");
    CHECK_EQ(ds_nb_mask_parse(br, "MMNP,", &mask), DS_ERR_NB_BAD_MASK, "trailing ','");
    CHECK_EQ(ds_nb_mask_parse(br, "MMNP||MMTM", &mask), DS_ERR_NB_BAD_MASK, "empty name between");
    CHECK_EQ(ds_nb_mask_parse(br, "|MMNP", &mask), DS_ERR_NB_BAD_MASK, "leading '|'");
    CHECK_EQ(mask, 0x77, "refusals leave the output alone");
    CHECK_EQ(ds_nb_mask_parse(9999, "MMNP", &mask), DS_ERR_NB_BAD_EVENT, "bad event");
}

static bool ref_drives(const char *escr_name, unsigned ctr)
{
    for (size_t r = 0; r < DS_ARRAY_SIZE(ref_escr); r++)
        if (strcmp(ref_escr[r].name, escr_name) == 0)
            for (int k = 0; k < 3; k++)
                if (ref_escr[r].c[k] == (int)ctr)
                    return true;
    return false;
}

/* Every event x every ESCR x every counter, both thread slots, on a model
 * with IQ_ESCRs (2) and one without (3). Allowed pairs program the exact
 * values; all others are rejected with no MSR access. */
static void test_every_pair(unsigned model)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    struct ds_nb_alloc a;
    size_t nev, nescr;
    const struct ds_nb_event_info *ev = ds_nb_events(&nev);
    const struct ds_nb_escr_info *es = ds_nb_escrs(&nescr);
    netburst_cpu(&f, &cpu, model, true);
    unsigned ok = 0, rejected = 0;
    for (unsigned thread = 0; thread < 2; thread++)
    for (unsigned i = 0; i < nev; i++) {
        uint32_t mask = 0;
        for (unsigned k = 0; k < ev[i].nmasks; k++)
            mask |= 1u << ev[i].masks[k].bit;
        for (unsigned e = 0; e < nescr; e++) {
            for (unsigned c = 0; c < 18; c++) {
                ds_nb_alloc_init(&a, (uint8_t)model, true);
                struct ds_nb_request rq = { .event = i, .mask = mask, .escr = (int)e, .counter = (int)c,
                                            .thread = thread, .os = true, .usr = true, .pmi = true };
                bool on_escr = false;
                for (unsigned k = 0; k < ev[i].nescrs; k++)
                    on_escr |= ev[i].escrs[k] == e;
                bool exists = !(strcmp(es[e].name, "MSR_IQ_ESCR0") == 0 || strcmp(es[e].name, "MSR_IQ_ESCR1") == 0) ||
                              model == 1 || model == 2;
                bool model_ok = !(ev[i].flags & DS_NB_EV_MODELS_346) || model == 3 || model == 4 || model == 6;
                bool drives = ref_drives(es[e].name, c);
                struct ds_nb_assignment as;
                fp_clear_log(&f);
                int r = ds_nb_program(&cpu, &a, &rq, 0x1234, &as);
                if (model_ok && exists && on_escr && drives) {
                    ok++;
                    CHECK_EQ(r, DS_OK, "%s on %s counter %u", ev[i].name, es[e].name, c);
                    if (r)
                        continue;
                    uint64_t escr_val = ((uint64_t)ev[i].event_select << 25) | ((uint64_t)mask << 9) |
                                        (thread ? 0x3 : 0xC);
                    uint64_t cccr_val = (1ull << 12) | ((uint64_t)es[e].select << 13) | (3ull << 16) |
                                        (thread ? 1ull << 27 : 1ull << 26);
                    CHECK_EQ(fp_get(&f, es[e].msr), escr_val, "%s ESCR value", ev[i].name);
                    CHECK_EQ(fp_get(&f, 0x360 + c), cccr_val, "%s CCCR value", ev[i].name);
                    CHECK_EQ(fp_get(&f, 0x300 + c), 0x1234, "counter value");
                    CHECK_EQ(fp_nwrites(&f, 0x300 + c), 2, "counter written twice (erratum)");
                    /* order: CCCR=0, ESCR, counter x2, CCCR */
                    CHECK(f.nlog == 5 && f.log[0].msr == 0x360 + c && f.log[0].val == 0 &&
                          f.log[1].msr == es[e].msr && f.log[4].msr == 0x360 + c, "write order");
                    CHECK(as.escr == e && as.counter == c && as.escr_val == escr_val && as.cccr_val == cccr_val,
                          "assignment");
                    CHECK_EQ(ds_nb_release(&cpu, &a, &as), DS_OK, "release");
                    CHECK(fp_get(&f, 0x360 + c) == 0 && fp_get(&f, es[e].msr) == 0, "released regs zero");
                    CHECK(a.escr_used == 0 && a.counter_used == 0, "allocator empty");
                } else {
                    rejected++;
                    int want = !model_ok ? DS_ERR_NB_MODEL : !exists ? DS_ERR_NB_BAD_ESCR
                               : !on_escr ? DS_ERR_NB_ESCR_EVENT : DS_ERR_NB_ESCR_COUNTER;
                    CHECK_EQ(r, want, "%s on %s counter %u rejected", ev[i].name, es[e].name, c);
                    CHECK_EQ(f.reads + f.writes, 0, "rejected before any MSR access");
                }
            }
        }
    }
    CHECK(ok > 100 && rejected > 1000, "coverage ok=%u rejected=%u", ok, rejected);
}

static void test_worked_example(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    struct ds_nb_alloc a;
    netburst_cpu(&f, &cpu, 3, true);
    ds_nb_alloc_init(&a, 3, false);
    unsigned br, cru2;
    ds_nb_event_find("branch_retired", &br);
    ds_nb_escr_find("MSR_CRU_ESCR2", &cru2);
    struct ds_nb_request rq = { .event = br, .mask = 0xF, .escr = (int)cru2, .counter = 12,
                                .os = true, .usr = true, .pmi = true };
    uint64_t start;
    CHECK_EQ(ds_nb_period(100000, &start), DS_OK, "period");
    CHECK_EQ(start, (0 - 100000ull) & 0xFFFFFFFFFFull, "start = -period mod 2^40");
    struct ds_nb_assignment as;
    CHECK_EQ(ds_nb_program(&cpu, &a, &rq, start, &as), DS_OK, "program");
    CHECK_EQ(fp_get(&f, 0x3CC), 0x0C001E0Cull, "SDM example ESCR");
    CHECK_EQ(fp_get(&f, 0x36C), 0x0403B000ull, "SDM example CCCR");
    CHECK_EQ(fp_get(&f, 0x30C), start, "counter");
    CHECK_EQ(ds_nb_period(0, &start), DS_ERR_PMC_PERIOD_ZERO, "period 0");
    CHECK_EQ(ds_nb_period(1ull << 39, &start), DS_OK, "period 2^39");
    CHECK_EQ(start, 1ull << 39, "2^39 start");
    CHECK_EQ(ds_nb_period((1ull << 39) + 1, &start), DS_ERR_PMC_PERIOD_WIDE, "period too wide");
    CHECK_EQ(ds_nb_period(1ull << 41, &start), DS_ERR_PMC_PERIOD_WIDE, "period wider than 40 bits");
    CHECK_EQ(ds_nb_period(5, NULL), DS_ERR_NULL, "null");
}

static void test_allocator(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    struct ds_nb_alloc a;
    netburst_cpu(&f, &cpu, 4, true);
    ds_nb_alloc_init(&a, 4, false);
    unsigned br;
    ds_nb_event_find("branch_retired", &br);
    struct ds_nb_request rq = { .event = br, .mask = 1, .escr = -1, .counter = -1, .os = true };
    struct ds_nb_assignment as[8];
    /* branch_retired: CRU_ESCR2 -> 12, 13, 16; CRU_ESCR3 -> 14, 15, 17. One ESCR per
     * event instance, so two instances fit, the third finds no free ESCR. */
    CHECK_EQ(ds_nb_program(&cpu, &a, &rq, 0, &as[0]), DS_OK, "first");
    CHECK_EQ(as[0].counter, 12, "first on counter 12");
    CHECK_EQ(ds_nb_program(&cpu, &a, &rq, 0, &as[1]), DS_OK, "second");
    CHECK_EQ(as[1].counter, 14, "second on CRU_ESCR3 / counter 14");
    fp_clear_log(&f);
    CHECK_EQ(ds_nb_program(&cpu, &a, &rq, 0, &as[2]), DS_ERR_NB_NO_FREE, "third: no free pair");
    CHECK_EQ(f.reads + f.writes, 0, "nothing touched");
    rq.escr = (int)as[0].escr;
    CHECK_EQ(ds_nb_program(&cpu, &a, &rq, 0, &as[2]), DS_ERR_NB_ESCR_BUSY, "ESCR busy");
    rq.escr = -1;
    rq.counter = 12;
    CHECK_EQ(ds_nb_program(&cpu, &a, &rq, 0, &as[2]), DS_ERR_NB_COUNTER_BUSY, "counter busy");
    /* an event on another ESCR (front_end_event also on CRU_ESCR2/3) is then full too */
    unsigned ir;
    ds_nb_event_find("instr_retired", &ir);
    struct ds_nb_request r2 = { .event = ir, .mask = 1, .escr = -1, .counter = -1, .usr = true };
    CHECK_EQ(ds_nb_program(&cpu, &a, &r2, 0, &as[3]), DS_OK, "instr_retired on CRU_ESCR0");
    CHECK_EQ(as[3].counter, 13, "next free counter of CRU_ESCR0 is 13");
    CHECK_EQ(ds_nb_release(&cpu, &a, &as[0]), DS_OK, "release");
    CHECK_EQ(ds_nb_release(&cpu, &a, &as[0]), DS_ERR_NB_NOT_ALLOCATED, "double release");
    /* BPU_CCCR1 (counter 1) is never chosen automatically */
    unsigned bsq;
    ds_nb_event_find("bsq_allocation", &bsq);
    struct ds_nb_request r3 = { .event = bsq, .mask = 1, .escr = -1, .counter = -1, .os = true };
    CHECK_EQ(ds_nb_program(&cpu, &a, &r3, 0, &as[4]), DS_OK, "bsq_allocation");
    CHECK_EQ(as[4].counter, 0, "counter 0");
    CHECK_EQ(ds_nb_release(&cpu, &a, &as[4]), DS_OK, "release");
    a.counter_used |= 1u << 0;
    CHECK_EQ(ds_nb_assign(&a, &r3, &as[4]), DS_ERR_NB_NO_FREE, "counter 1 avoided automatically");
    r3.counter = 1;
    CHECK_EQ(ds_nb_assign(&a, &r3, &as[4]), DS_OK, "explicit counter 1 honoured");
    /* bad inputs */
    struct ds_nb_request bad = rq;
    bad.counter = -1;
    bad.mask = 0;
    CHECK_EQ(ds_nb_assign(&a, &bad, &as[5]), DS_ERR_NB_BAD_MASK, "empty mask");
    bad.mask = 1u << 9;
    CHECK_EQ(ds_nb_assign(&a, &bad, &as[5]), DS_ERR_NB_BAD_MASK, "undefined mask bit");
    bad.mask = 1;
    bad.os = bad.usr = false;
    CHECK_EQ(ds_nb_assign(&a, &bad, &as[5]), DS_ERR_NB_BAD_FILTER, "no privilege level");
    bad.os = true;
    bad.threshold = 16;
    CHECK_EQ(ds_nb_assign(&a, &bad, &as[5]), DS_ERR_NB_BAD_FILTER, "threshold 16");
    bad.threshold = 0;
    bad.tag_value = 16;
    CHECK_EQ(ds_nb_assign(&a, &bad, &as[5]), DS_ERR_NB_BAD_FILTER, "tag 16");
    bad.tag_value = 0;
    bad.thread = 1;
    CHECK_EQ(ds_nb_assign(&a, &bad, &as[5]), DS_ERR_NB_BAD_THREAD, "thread 1 without HT");
    bad.thread = 2;
    CHECK_EQ(ds_nb_assign(&a, &bad, &as[5]), DS_ERR_NB_BAD_THREAD, "thread 2");
    bad.thread = 0;
    bad.event = 1000;
    CHECK_EQ(ds_nb_assign(&a, &bad, &as[5]), DS_ERR_NB_BAD_EVENT, "bad event");
    bad.event = br;
    bad.escr = 45;
    CHECK_EQ(ds_nb_assign(&a, &bad, &as[5]), DS_ERR_NB_BAD_ESCR, "escr 45");
    bad.escr = -2;
    CHECK_EQ(ds_nb_assign(&a, &bad, &as[5]), DS_ERR_NB_BAD_ESCR, "escr -2");
    bad.escr = -1;
    bad.counter = 18;
    CHECK_EQ(ds_nb_assign(&a, &bad, &as[5]), DS_ERR_NB_BAD_COUNTER, "counter 18");
    bad.counter = 0;
    CHECK_EQ(ds_nb_assign(&a, &bad, &as[5]), DS_ERR_NB_ESCR_COUNTER, "branch_retired cannot reach counter 0");
    CHECK_EQ(ds_nb_assign(NULL, &bad, &as[5]), DS_ERR_NULL, "null alloc");
    CHECK_EQ(ds_nb_assign(&a, NULL, &as[5]), DS_ERR_NULL, "null req");
    CHECK_EQ(ds_nb_assign(&a, &bad, NULL), DS_ERR_NULL, "null out");
    CHECK_EQ(ds_nb_alloc_init(NULL, 0, false), DS_ERR_NULL, "null init");
    /* filter fields land in the CCCR / ESCR */
    struct ds_nb_request fl = { .event = br, .mask = 1, .escr = -1, .counter = 15, .os = true,
                                .compare = true, .complement = true, .edge = true, .threshold = 9,
                                .cascade = true, .tag_enable = true, .tag_value = 5 };
    struct ds_nb_alloc fresh;
    ds_nb_alloc_init(&fresh, 4, false);
    CHECK_EQ(ds_nb_assign(&fresh, &fl, &as[6]), DS_OK, "filters");
    CHECK_EQ(as[6].cccr_val, (1ull << 12) | (5ull << 13) | (3ull << 16) | (1ull << 18) | (1ull << 19) |
                             (9ull << 20) | (1ull << 24) | (1ull << 30), "CCCR filter bits");
    CHECK_EQ(as[6].escr_val, (6ull << 25) | (1ull << 9) | (5ull << 5) | (1ull << 4) | (1ull << 3), "ESCR tag bits");
    /* start wider than 40 bits */
    rq.counter = 17;
    rq.escr = -1;
    fp_clear_log(&f);
    CHECK_EQ(ds_nb_program(&cpu, &a, &rq, 1ull << 40, &as[7]), DS_ERR_PMC_VALUE_WIDE, "start > 40 bits");
    CHECK_EQ(f.writes, 0, "no write");
}

static void test_cpu_checks(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    struct ds_nb_alloc a;
    struct ds_nb_assignment as;
    struct ds_nb_request rq = { .event = 0, .mask = 1, .escr = -1, .counter = -1, .os = true };
    uint32_t o;
    ds_nb_alloc_init(&a, 2, false);
    netburst_cpu(&f, &cpu, 2, false);
    CHECK_EQ(ds_nb_program(&cpu, &a, &rq, 0, &as), DS_ERR_NO_PERFMON, "MISC_ENABLE[7] clear");
    fp_reset(&f);
    fp_intel(&f, 0xA, 0x000506E3, 0, 1u << 21);
    fp_set(&f, DS_MSR_IA32_MISC_ENABLE, 1u << 7);
    CHECK_EQ(fp_identify(&f, &cpu), DS_OK, "skylake");
    CHECK_EQ(ds_nb_program(&cpu, &a, &rq, 0, &as), DS_ERR_NB_NOT_NETBURST, "not netburst");
    CHECK_EQ(ds_nb_pmi_scan(&cpu, 1, &o), DS_ERR_NB_NOT_NETBURST, "scan not netburst");
    CHECK_EQ(ds_nb_replay_tag(&cpu, 0, true), DS_ERR_NB_NOT_NETBURST, "tag not netburst");
    CHECK_EQ(f.reads + f.writes, 0, "nothing touched");
    ds_cpu_init(&cpu, &fp_ops, &f);
    CHECK_EQ(ds_nb_program(&cpu, &a, &rq, 0, &as), DS_ERR_NOT_IDENTIFIED, "not identified");
    CHECK_EQ(ds_nb_program(NULL, &a, &rq, 0, &as), DS_ERR_NULL, "null cpu");
}

static void test_pebs(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    struct ds_nb_alloc a;
    size_t nev;
    const struct ds_nb_event_info *ev = ds_nb_events(&nev);
    netburst_cpu(&f, &cpu, 3, true);
    unsigned pebs_ok = 0;
    for (unsigned ht = 0; ht < 2; ht++)
    for (unsigned thread = 0; thread < 2; thread++)
    for (unsigned i = 0; i < nev; i++)
        for (int c = -1; c < 18; c++) {
            ds_nb_alloc_init(&a, 3, ht);
            struct ds_nb_request rq = { .event = i, .mask = 1u << ev[i].masks[0].bit, .escr = -1,
                                        .counter = c, .thread = thread, .os = true, .pebs = true };
            struct ds_nb_assignment as;
            fp_clear_log(&f);
            int r = ds_nb_program(&cpu, &a, &rq, 0, &as);
            unsigned want_ctr = thread ? 17 : 16;
            if (thread && !ht) {
                CHECK_EQ(r, DS_ERR_NB_BAD_THREAD, "%s thread 1 without HT", ev[i].name);
            } else if (!(ev[i].flags & DS_NB_EV_PEBS)) {
                CHECK_EQ(r, DS_ERR_NB_PEBS_EVENT, "%s not PEBS-capable", ev[i].name);
            } else if (c >= 0 && (unsigned)c != want_ctr) {
                CHECK_EQ(r, DS_ERR_NB_PEBS_COUNTER, "%s PEBS on counter %d", ev[i].name, c);
            } else {
                CHECK_EQ(r, DS_OK, "%s PEBS thread %u", ev[i].name, thread);
                CHECK_EQ(as.counter, want_ctr, "PEBS on IQ_COUNTER%u", want_ctr - 12);
                pebs_ok++;
            }
            if (r != DS_OK)
                CHECK_EQ(f.reads + f.writes, 0, "rejected PEBS request touched nothing");
        }
    CHECK_EQ(pebs_ok, 3 * 2 * 3, "3 PEBS events x (T0 no-HT, T0 HT, T1 HT) x (auto, explicit)");
    /* explicit ESCR that cannot drive the PEBS counter of thread 1 */
    unsigned rep, cru2;
    ds_nb_event_find("replay_event", &rep);
    ds_nb_escr_find("MSR_CRU_ESCR2", &cru2);
    ds_nb_alloc_init(&a, 3, true);
    struct ds_nb_request rq = { .event = rep, .mask = 1, .escr = (int)cru2, .counter = -1, .thread = 1,
                                .os = true, .pebs = true };
    struct ds_nb_assignment as;
    CHECK_EQ(ds_nb_assign(&a, &rq, &as), DS_ERR_NB_PEBS_COUNTER, "CRU_ESCR2 cannot drive IQ_COUNTER5");
    a.counter_used = 1u << 16;
    rq.escr = -1;
    rq.thread = 0;
    CHECK_EQ(ds_nb_assign(&a, &rq, &as), DS_ERR_NB_NO_FREE, "IQ_COUNTER4 busy: no PEBS");
}

/* reference netburst.md replay-tagging table */
static const struct { uint32_t en, vert; } ref_metric[DS_NB_METRIC__COUNT] = {
    {0x1, 0x1}, {0x2, 0x1}, {0x4, 0x1}, {0x4, 0x2}, {0x4, 0x3}, {0x18000, 0x10},
    {0x200, 0x1}, {0x400, 0x1}, {0x400, 0x2},
};

static void test_replay_tag(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    netburst_cpu(&f, &cpu, 2, true);
    for (unsigned m = 0; m < DS_NB_METRIC__COUNT; m++) {
        const struct ds_nb_metric_info *mi;
        CHECK_EQ(ds_nb_metric_info(m, &mi), DS_OK, "metric %u", m);
        CHECK(mi->pebs_enable == ref_metric[m].en && mi->matrix_vert == ref_metric[m].vert, "metric %u table", m);
        for (int pebs = 0; pebs < 2; pebs++) {
            fp_clear_log(&f);
            CHECK_EQ(ds_nb_replay_tag(&cpu, m, pebs), DS_OK, "tag %u", m);
            CHECK_EQ(fp_get(&f, 0x3F2), ref_metric[m].vert, "MATRIX_VERT %u", m);
            CHECK_EQ(fp_get(&f, 0x3F1), ref_metric[m].en | (1u << 24) | (pebs ? 1u << 25 : 0),
                     "PEBS_ENABLE %u pebs=%d (bit 24 tag, bit 25 PEBS)", m, pebs);
            CHECK(f.nlog == 2 && f.log[0].msr == 0x3F2 && f.log[1].msr == 0x3F1, "vert before enable");
        }
    }
    CHECK_EQ(ds_nb_replay_tag(&cpu, DS_NB_METRIC__COUNT, true), DS_ERR_NB_BAD_METRIC, "bad metric");
    CHECK_EQ(ds_nb_metric_info(99, &(const struct ds_nb_metric_info *){0}), DS_ERR_NB_BAD_METRIC, "bad metric info");
    CHECK_EQ(ds_nb_replay_untag(&cpu), DS_OK, "untag");
    CHECK(fp_get(&f, 0x3F1) == 0 && fp_get(&f, 0x3F2) == 0, "untagged");
    /* PEBS unavailable */
    fp_set(&f, DS_MSR_IA32_MISC_ENABLE, (1u << 7) | (1u << 12));
    ds_cpu_identify(&cpu);
    fp_clear_log(&f);
    CHECK_EQ(ds_nb_replay_tag(&cpu, 0, true), DS_ERR_PEBS_UNAVAILABLE, "MISC_ENABLE[12]");
    CHECK_EQ(f.writes, 0, "nothing written");
}

static void test_pmi_scan(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    netburst_cpu(&f, &cpu, 3, true);
    uint64_t start;
    ds_nb_period(1000, &start);
    /* counter 12: OVF set; 14: OVF clear but wrapped (bit 39 clear); 16: still running */
    fp_set(&f, 0x36C, (1ull << 31) | (1ull << 12) | (5ull << 13));
    fp_set(&f, 0x30C, 5);
    fp_set(&f, 0x36E, (1ull << 12));
    fp_set(&f, 0x30E, 7);
    fp_set(&f, 0x370, (1ull << 12));
    fp_set(&f, 0x310, start + 10);
    uint32_t ovf;
    fp_clear_log(&f);
    CHECK_EQ(ds_nb_pmi_scan(&cpu, (1u << 12) | (1u << 14) | (1u << 16), &ovf), DS_OK, "scan");
    CHECK_EQ(ovf, (1u << 12) | (1u << 14), "overflowed counters");
    CHECK_EQ(fp_get(&f, 0x36C), (1ull << 12) | (5ull << 13), "OVF cleared, rest kept");
    CHECK_EQ(f.reads, 1 + 2 + 2, "reads: 1 for OVF counter, 2 for the others");
    CHECK_EQ(f.writes, 1, "one write: OVF clear");
    fp_clear_log(&f);
    CHECK_EQ(ds_nb_rearm(&cpu, 12, start), DS_OK, "rearm");
    CHECK_EQ(fp_nwrites(&f, 0x30C), 2, "rearm writes twice");
    CHECK_EQ(fp_get(&f, 0x30C), start, "rearm value");
    CHECK_EQ(ds_nb_rearm(&cpu, 18, start), DS_ERR_NB_BAD_COUNTER, "rearm bad counter");
    CHECK_EQ(ds_nb_rearm(&cpu, 0, 1ull << 40), DS_ERR_PMC_VALUE_WIDE, "rearm wide");
    CHECK_EQ(ds_nb_pmi_scan(&cpu, 1u << 18, &ovf), DS_ERR_NB_BAD_COUNTER, "scan bad mask");
    CHECK_EQ(ds_nb_pmi_scan(&cpu, 1, NULL), DS_ERR_NULL, "scan null");
    f.fault_msr = 0x36E;
    CHECK_EQ(ds_nb_pmi_scan(&cpu, (1u << 12) | (1u << 14), &ovf), DS_ERR_MSR_FAULT, "fault");
    f.fault_msr = 0;
}

static void test_fault_rollback(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    struct ds_nb_alloc a;
    netburst_cpu(&f, &cpu, 3, true);
    ds_nb_alloc_init(&a, 3, false);
    unsigned br;
    ds_nb_event_find("branch_retired", &br);
    struct ds_nb_request rq = { .event = br, .mask = 1, .escr = -1, .counter = 12, .os = true };
    struct ds_nb_assignment as;
    f.fault_msr = 0x30C;
    CHECK_EQ(ds_nb_program(&cpu, &a, &rq, 0, &as), DS_ERR_MSR_FAULT, "counter write faults");
    CHECK(a.escr_used == 0 && a.counter_used == 0, "nothing allocated after a fault");
    CHECK(fp_get(&f, 0x36C) == 0 && fp_get(&f, 0x3CC) == 0, "CCCR and ESCR back to 0");
}

/*
 * Issue 10 item 20: ds_nb_program takes model and Hyper-Threading from the
 * CPU, not from the allocator. CPUID.01H from the real dumps in
 * ../shared/cpuid: Northwood 00000F24 (EBX 00010809, EDX 3FEBFBFF: HTT set,
 * one logical processor), Prescott 00000F34 (EBX 00020800, EDX BFEBFBFF: two),
 * Cedar Mill 00000F65 (EBX 00010800, EDX BFEBFBFF: one). instr_completed
 * exists on models 03H/04H/06H only (SDM, reference netburst.md).
 */
static void test_nb_cpu_facts(void)
{
    static const struct { uint32_t sig, ebx, edx; bool ht, instr_completed; } dumps[] = {
        { 0x00000F24, 0x00010809, 0x3FEBFBFF, false, false },
        { 0x00000F34, 0x00020800, 0xBFEBFBFF, true, true },
        { 0x00000F65, 0x00010800, 0xBFEBFBFF, false, true },
    };
    unsigned ic, ir;
    CHECK_EQ(ds_nb_event_find("instr_completed", &ic), DS_OK, "instr_completed");
    CHECK_EQ(ds_nb_event_find("instr_retired", &ir), DS_OK, "instr_retired");
    for (size_t d = 0; d < DS_ARRAY_SIZE(dumps); d++) {
        struct fake_pmu f;
        struct ds_cpu cpu;
        netburst_cpu(&f, &cpu, 3, true);
        f.leaves[1].r[0] = dumps[d].sig;
        f.leaves[1].r[1] = dumps[d].ebx;
        f.leaves[1].r[3] = dumps[d].edx;
        CHECK_EQ(fp_identify(&f, &cpu), DS_OK, "identify %05x", dumps[d].sig);
        /* an allocator that claims model 03H and HT whatever the CPU is */
        struct ds_nb_alloc a;
        struct ds_nb_assignment as;
        ds_nb_alloc_init(&a, 3, true);
        struct ds_nb_request rq = { .event = ic, .mask = 1, .escr = -1, .counter = -1, .os = true };
        fp_clear_log(&f);
        int r = ds_nb_program(&cpu, &a, &rq, 0, &as);
        CHECK_EQ(r, dumps[d].instr_completed ? DS_OK : DS_ERR_NB_MODEL, "%05x instr_completed", dumps[d].sig);
        if (r)
            CHECK_EQ(f.writes, 0, "%05x: nothing written", dumps[d].sig);
        struct ds_nb_request r1 = { .event = ir, .mask = 1, .escr = -1, .counter = -1, .usr = true, .thread = 1 };
        fp_clear_log(&f);
        r = ds_nb_program(&cpu, &a, &r1, 0, &as);
        CHECK_EQ(r, dumps[d].ht ? DS_OK : DS_ERR_NB_BAD_THREAD, "%05x thread 1", dumps[d].sig);
        if (r)
            CHECK_EQ(f.writes, 0, "%05x: no thread-1 bits written", dumps[d].sig);
        /* and an allocator without HT still refuses thread 1 on an HT CPU */
        ds_nb_alloc_init(&a, 3, false);
        CHECK_EQ(ds_nb_program(&cpu, &a, &r1, 0, &as), DS_ERR_NB_BAD_THREAD, "%05x alloc without HT", dumps[d].sig);
    }
}

/* Issue 10 item 20: releasing an assignment whose ESCR and counter are both
 * allocated, but to different assignments, must not stop either. */
static void test_nb_release_mismatch(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    struct ds_nb_alloc a;
    netburst_cpu(&f, &cpu, 4, true);
    ds_nb_alloc_init(&a, 4, false);
    unsigned br;
    ds_nb_event_find("branch_retired", &br);
    struct ds_nb_request rq = { .event = br, .mask = 1, .escr = -1, .counter = -1, .os = true };
    struct ds_nb_assignment A, B, X;
    CHECK_EQ(ds_nb_program(&cpu, &a, &rq, 0, &A), DS_OK, "A");
    CHECK_EQ(ds_nb_program(&cpu, &a, &rq, 0, &B), DS_OK, "B");
    CHECK(A.escr != B.escr && A.counter != B.counter, "two pairs");
    uint64_t cccr_b = fp_get(&f, 0x360 + B.counter), escr_a = fp_get(&f, A.escr_msr);
    X = A;
    X.counter = B.counter; /* A's ESCR with B's counter */
    X.cccr_msr = B.cccr_msr;
    X.counter_msr = B.counter_msr;
    fp_clear_log(&f);
    CHECK_EQ(ds_nb_release(&cpu, &a, &X), DS_ERR_NB_MISMATCH, "mismatched release");
    CHECK_EQ(f.writes, 0, "nothing written");
    CHECK(cccr_b != 0 && fp_get(&f, 0x360 + B.counter) == cccr_b, "B's counter still enabled");
    CHECK(escr_a != 0 && fp_get(&f, A.escr_msr) == escr_a, "A's ESCR still set");
    CHECK(((a.escr_used >> A.escr) & 1) && ((a.counter_used >> B.counter) & 1), "both still allocated");
    CHECK_EQ(ds_nb_release(&cpu, &a, &A), DS_OK, "release A");
    CHECK_EQ(ds_nb_release(&cpu, &a, &B), DS_OK, "release B");
    CHECK(a.escr_used == 0 && a.counter_used == 0, "allocator empty");
    /* re-program on the freed pair: the pairing is recorded afresh */
    CHECK_EQ(ds_nb_program(&cpu, &a, &rq, 0, &A), DS_OK, "A again");
    CHECK_EQ(ds_nb_release(&cpu, &a, &A), DS_OK, "release A again");
}

/*
 * Issue 10 test strength: the 30 non-retirement events, transcribed
 * independently of libds from Linux arch/x86/include/asm/perf_event_p4.h
 * (P4_OPCODE_PACK(event select, CCCR select), the ESCR list in each
 * opcode's comment, P4_GEN_ESCR_EMASK bit positions), which follows SDM
 * Vol. 3B "Performance Monitoring Events for Intel Pentium 4" (non-retirement
 * table). Mask = OR of the event-mask bit positions. ESCR names as in
 * ref_escr above. bsq_active_entries (ESCR "guessed" in Linux) and the four
 * FSB select-3 events are not offered by libds and not listed.
 */
static const struct { const char *name; const char *escr[2]; unsigned evsel, ccsel; uint32_t mask; } ref_nr[] = {
    {"tc_deliver_mode", {"MSR_TC_ESCR0", "MSR_TC_ESCR1"}, 0x01, 1, 0x7F},
    {"bpu_fetch_request", {"MSR_BPU_ESCR0", "MSR_BPU_ESCR1"}, 0x03, 0, 0x1},
    {"itlb_reference", {"MSR_ITLB_ESCR0", "MSR_ITLB_ESCR1"}, 0x18, 3, 0x7},
    {"memory_cancel", {"MSR_DAC_ESCR0", "MSR_DAC_ESCR1"}, 0x02, 5, 0xC},
    {"memory_complete", {"MSR_SAAT_ESCR0", "MSR_SAAT_ESCR1"}, 0x08, 2, 0x3},
    {"load_port_replay", {"MSR_SAAT_ESCR0", "MSR_SAAT_ESCR1"}, 0x04, 2, 0x2},
    {"store_port_replay", {"MSR_SAAT_ESCR0", "MSR_SAAT_ESCR1"}, 0x05, 2, 0x2},
    {"mob_load_replay", {"MSR_MOB_ESCR0", "MSR_MOB_ESCR1"}, 0x03, 2, 0x3A},
    {"page_walk_type", {"MSR_PMH_ESCR0", "MSR_PMH_ESCR1"}, 0x01, 4, 0x3},
    {"bsq_cache_reference", {"MSR_BSU_ESCR0", "MSR_BSU_ESCR1"}, 0x0C, 7, 0x73F},
    {"ioq_allocation", {"MSR_FSB_ESCR0", "MSR_FSB_ESCR1"}, 0x03, 6, 0xEFE1},
    {"ioq_active_entries", {"MSR_FSB_ESCR1", NULL}, 0x1A, 6, 0xEFE1},
    {"fsb_data_activity", {"MSR_FSB_ESCR0", "MSR_FSB_ESCR1"}, 0x17, 6, 0x3F},
    {"bsq_allocation", {"MSR_BSU_ESCR0", NULL}, 0x05, 7, 0x3FEF},
    {"sse_input_assist", {"MSR_FIRM_ESCR0", "MSR_FIRM_ESCR1"}, 0x34, 1, 0x8000},
    {"packed_sp_uop", {"MSR_FIRM_ESCR0", "MSR_FIRM_ESCR1"}, 0x08, 1, 0x8000},
    {"packed_dp_uop", {"MSR_FIRM_ESCR0", "MSR_FIRM_ESCR1"}, 0x0C, 1, 0x8000},
    {"scalar_sp_uop", {"MSR_FIRM_ESCR0", "MSR_FIRM_ESCR1"}, 0x0A, 1, 0x8000},
    {"scalar_dp_uop", {"MSR_FIRM_ESCR0", "MSR_FIRM_ESCR1"}, 0x0E, 1, 0x8000},
    {"64bit_mmx_uop", {"MSR_FIRM_ESCR0", "MSR_FIRM_ESCR1"}, 0x02, 1, 0x8000},
    {"128bit_mmx_uop", {"MSR_FIRM_ESCR0", "MSR_FIRM_ESCR1"}, 0x1A, 1, 0x8000},
    {"x87_fp_uop", {"MSR_FIRM_ESCR0", "MSR_FIRM_ESCR1"}, 0x04, 1, 0x8000},
    {"tc_misc", {"MSR_TC_ESCR0", "MSR_TC_ESCR1"}, 0x06, 1, 0x10},
    {"global_power_events", {"MSR_FSB_ESCR0", "MSR_FSB_ESCR1"}, 0x13, 6, 0x1},
    {"tc_ms_xfer", {"MSR_MS_ESCR0", "MSR_MS_ESCR1"}, 0x05, 0, 0x1},
    {"uop_queue_writes", {"MSR_MS_ESCR0", "MSR_MS_ESCR1"}, 0x09, 0, 0x7},
    {"retired_mispred_branch_type", {"MSR_TBPU_ESCR0", "MSR_TBPU_ESCR1"}, 0x05, 2, 0x1E},
    {"retired_branch_type", {"MSR_TBPU_ESCR0", "MSR_TBPU_ESCR1"}, 0x04, 2, 0x1E},
    {"resource_stall", {"MSR_ALF_ESCR0", "MSR_ALF_ESCR1"}, 0x01, 1, 0x20},
    {"wc_buffer", {"MSR_DAC_ESCR0", "MSR_DAC_ESCR1"}, 0x05, 5, 0x3},
};

static void test_non_retirement_rows(void)
{
    size_t n;
    const struct ds_nb_event_info *ev = ds_nb_events(&n);
    unsigned libds_nr = 0;
    for (size_t i = 0; i < n; i++)
        if (!(ev[i].flags & DS_NB_EV_AT_RETIREMENT))
            libds_nr++;
    CHECK_EQ(libds_nr, DS_ARRAY_SIZE(ref_nr), "every libds non-retirement event is transcribed");
    for (size_t r = 0; r < DS_ARRAY_SIZE(ref_nr); r++) {
        unsigned idx, e0, e1 = 0;
        CHECK_EQ(ds_nb_event_find(ref_nr[r].name, &idx), DS_OK, "find %s", ref_nr[r].name);
        if (idx >= n)
            continue;
        unsigned want_n = ref_nr[r].escr[1] ? 2 : 1;
        CHECK_EQ(ds_nb_escr_find(ref_nr[r].escr[0], &e0), DS_OK, "%s escr0", ref_nr[r].name);
        if (want_n == 2)
            CHECK_EQ(ds_nb_escr_find(ref_nr[r].escr[1], &e1), DS_OK, "%s escr1", ref_nr[r].name);
        CHECK_EQ(ev[idx].nescrs, want_n, "%s ESCR count", ref_nr[r].name);
        CHECK(ev[idx].escrs[0] == e0 && (want_n == 1 || ev[idx].escrs[1] == e1), "%s ESCRs", ref_nr[r].name);
        CHECK_EQ(ev[idx].event_select, ref_nr[r].evsel, "%s event select", ref_nr[r].name);
        CHECK_EQ(ev[idx].cccr_select, ref_nr[r].ccsel, "%s CCCR select", ref_nr[r].name);
        uint32_t m = 0;
        for (unsigned k = 0; k < ev[idx].nmasks; k++)
            m |= 1u << ev[idx].masks[k].bit;
        CHECK_EQ(m, ref_nr[r].mask, "%s event-mask bits", ref_nr[r].name);
        CHECK(!(ev[idx].flags & (DS_NB_EV_AT_RETIREMENT | DS_NB_EV_PEBS)), "%s non-retirement, no PEBS", ref_nr[r].name);
        /* the CCCR select of the row equals the select of its ESCRs in the
         * independent ESCR table (ref_escr) */
        for (unsigned k = 0; k < want_n; k++)
            for (size_t q = 0; q < DS_ARRAY_SIZE(ref_escr); q++)
                if (strcmp(ref_escr[q].name, ref_nr[r].escr[k]) == 0)
                    CHECK_EQ(ref_escr[q].sel, ref_nr[r].ccsel, "%s: %s select", ref_nr[r].name, ref_nr[r].escr[k]);
    }
}

/*
 * Issue 10 test strength: a counter the event's ESCRs cannot drive is an
 * impossible pairing (DS_ERR_NB_ESCR_COUNTER) even while that counter is
 * busy, for every counter index, 0 included (ref_escr: branch_retired's
 * CRU_ESCR2/3 drive 12-17 only; BSU_ESCR0 drives 0 and 1).
 */
static void test_impossible_before_busy(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    struct ds_nb_alloc a;
    struct ds_nb_assignment as[20];
    netburst_cpu(&f, &cpu, 4, true);
    ds_nb_alloc_init(&a, 4, false);
    unsigned br, bsq, fsb;
    ds_nb_event_find("branch_retired", &br);
    ds_nb_event_find("bsq_cache_reference", &bsq);
    ds_nb_event_find("fsb_data_activity", &fsb);
    struct ds_nb_request busy = { .event = bsq, .mask = 1, .escr = -1, .counter = 0, .os = true };
    CHECK_EQ(ds_nb_program(&cpu, &a, &busy, 0, &as[0]), DS_OK, "bsq_cache_reference on counter 0");
    busy.event = fsb; /* FSB_ESCR1 drives 2, 3 */
    busy.counter = 2;
    CHECK_EQ(ds_nb_program(&cpu, &a, &busy, 0, &as[1]), DS_OK, "fsb_data_activity on counter 2");
    struct ds_nb_request rq = { .event = br, .mask = 1, .escr = -1, .os = true };
    for (int c = 0; c < 12; c++) {
        rq.counter = c;
        CHECK_EQ(ds_nb_program(&cpu, &a, &rq, 0, &as[2]), DS_ERR_NB_ESCR_COUNTER,
                 "branch_retired on counter %d (busy or not): impossible pairing", c);
    }
    busy.event = bsq;
    busy.counter = 0;
    CHECK_EQ(ds_nb_program(&cpu, &a, &busy, 0, &as[2]), DS_ERR_NB_COUNTER_BUSY, "possible pairing, counter busy");
    busy.counter = 1; /* BSU_ESCR0 is busy, BSU_ESCR1 drives 2, 3 only */
    CHECK_EQ(ds_nb_program(&cpu, &a, &busy, 0, &as[2]), DS_ERR_NB_NO_FREE, "counter 1: only through busy BSU_ESCR0");
}

/*
 * Issue 10 test strength (exact boundaries, independent expectation): the raw
 * interface accepts exactly the ESCR MSRs of ref_escr (reference netburst.md
 * "ESCR MSRs"; SSU_ESCR1 0x3BF excluded) and the IQ_ESCRs 0x3BA/0x3BB on
 * models 01H/02H only, for every MSR from 0x380 to 0x3FF (both ends of each
 * range, the gaps 0x3BF, 0x3C6-0x3C7, 0x3CE-0x3DF, 0x3E2+).
 */
static void test_raw_escr_range(void)
{
    static const unsigned models[] = { 2, 3 };
    for (size_t m = 0; m < DS_ARRAY_SIZE(models); m++) {
        struct fake_pmu f;
        struct ds_cpu cpu;
        netburst_cpu(&f, &cpu, models[m], true);
        for (uint32_t msr = 0x380; msr < 0x400; msr++) {
            bool want = false;
            for (size_t r = 0; r < DS_ARRAY_SIZE(ref_escr); r++)
                want |= ref_escr[r].msr == msr;
            if ((msr == 0x3BA || msr == 0x3BB) && models[m] > 2)
                want = false;
            int rp = ds_nb_program_raw(&cpu, 0, msr, 0, 0, 0);
            int rr = ds_nb_release_raw(&cpu, 0, msr);
            CHECK(want ? rp == DS_OK && rr == DS_OK : rp == DS_ERR_NB_BAD_ESCR && rr == DS_ERR_NB_BAD_ESCR,
                  "model %u raw ESCR %#x: %s (program %s, release %s)", models[m], msr, want ? "accepted" : "refused",
                  ds_errname(rp), ds_errname(rr));
        }
    }
}

/*
 * Issue 10 test strength (exact boundaries): the first index past the event
 * table is refused by every function taking an event index (one past the
 * end, not only 9999: ASan reports the read of events[n] otherwise).
 */
static void test_event_index_bound(void)
{
    size_t n;
    ds_nb_events(&n);
    struct ds_nb_alloc a;
    struct ds_nb_assignment as;
    uint32_t mask;
    ds_nb_alloc_init(&a, 3, true);
    CHECK_EQ(ds_nb_mask_parse((unsigned)n, "NBOGUS", &mask), DS_ERR_NB_BAD_EVENT, "mask_parse: event n");
    CHECK_EQ(ds_nb_mask_parse((unsigned)n - 1, "NBOGUS", &mask), DS_OK, "mask_parse: event n-1 (instr_completed)");
    struct ds_nb_request rq = { .event = (unsigned)n, .mask = 1, .escr = -1, .counter = -1, .os = true };
    CHECK_EQ(ds_nb_assign(&a, &rq, &as), DS_ERR_NB_BAD_EVENT, "assign: event n");
    rq.event = (unsigned)n - 1;
    CHECK_EQ(ds_nb_assign(&a, &rq, &as), DS_OK, "assign: event n-1");
    /* each pointer alone NULL (not only both) */
    CHECK_EQ(ds_nb_mask_parse(0, NULL, &mask), DS_ERR_NULL, "mask_parse: names NULL");
    CHECK_EQ(ds_nb_mask_parse(0, "DD", NULL), DS_ERR_NULL, "mask_parse: out NULL");
}

/* The replay-tagging metric index at the boundary: the SDM table "Metrics
 * That Utilize Replay Tagging Mechanism" has nine rows (1stL_cache_load_miss
 * .. split_store_retired), so index 8 is the last valid one and 9 the first
 * invalid, for ds_nb_metric_info and ds_nb_replay_tag (nothing written). */
static void test_metric_index_bound(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    const struct ds_nb_metric_info *mi = NULL;
    netburst_cpu(&f, &cpu, 2, true);
    CHECK_EQ(ds_nb_metric_info(8, &mi), DS_OK, "metric_info 8 (split_store_retired)");
    CHECK(mi && strcmp(mi->name, "split_store_retired") == 0, "metric 8 is split_store_retired");
    mi = NULL;
    CHECK_EQ(ds_nb_metric_info(9, &mi), DS_ERR_NB_BAD_METRIC, "metric_info 9");
    CHECK(mi == NULL, "out untouched");
    fp_clear_log(&f);
    CHECK_EQ(ds_nb_replay_tag(&cpu, 9, false), DS_ERR_NB_BAD_METRIC, "replay_tag 9");
    CHECK_EQ(f.writes, 0, "nothing written");
    CHECK_EQ(ds_nb_replay_tag(&cpu, 8, false), DS_OK, "replay_tag 8");
}

/* The MSR fault sweep (fault_sweep.h) over every netburst.h operation that
 * touches MSRs, on the 0F_03H fake (SDM worked example values of
 * test_worked_example, PMI-scan state of test_pmi_scan): each faulting
 * access, read-only or write-only fault answers DS_ERR_MSR_FAULT
 * (netburst.h contract) and no MSR whose read failed is written. */
static struct ds_nb_alloc sw_alloc;
static struct ds_nb_assignment sw_as;
static void nb3(struct fake_pmu *f, struct ds_cpu *cpu)
{
    netburst_cpu(f, cpu, 3, true);
    ds_nb_alloc_init(&sw_alloc, 3, false);
}
static struct ds_nb_request sw_req(void)
{
    unsigned br, cru2;
    ds_nb_event_find("branch_retired", &br);
    ds_nb_escr_find("MSR_CRU_ESCR2", &cru2);
    struct ds_nb_request rq = { .event = br, .mask = 0xF, .escr = (int)cru2, .counter = 12,
                                .os = true, .usr = true, .pmi = true };
    return rq;
}
static void nb3_programmed(struct fake_pmu *f, struct ds_cpu *cpu)
{
    nb3(f, cpu);
    struct ds_nb_request rq = sw_req();
    CHECK_EQ(ds_nb_program(cpu, &sw_alloc, &rq, 0xFFFFFF0000ull, &sw_as), DS_OK, "program for release");
}
static void nb3_overflowed(struct fake_pmu *f, struct ds_cpu *cpu)
{
    nb3(f, cpu);
    fp_set(f, 0x36C, (1ull << 31) | (1ull << 12) | (5ull << 13)); /* counter 12: CCCR.OVF */
    fp_set(f, 0x30C, 5);
    fp_set(f, 0x36E, 1ull << 12);                                /* counter 14: wrapped, OVF clear */
    fp_set(f, 0x30E, 7);
}
static int nop_program(struct ds_cpu *c)
{
    struct ds_nb_request rq = sw_req();
    return ds_nb_program(c, &sw_alloc, &rq, 0xFFFFFF0000ull, &sw_as);
}
static int nop_release(struct ds_cpu *c) { return ds_nb_release(c, &sw_alloc, &sw_as); }
static int nop_program_raw(struct ds_cpu *c) { return ds_nb_program_raw(c, 12, 0x3CC, 0x0C001E0C, 0x0403B000, 0x1234); }
static int nop_release_raw(struct ds_cpu *c) { return ds_nb_release_raw(c, 12, 0x3CC); }
static int nop_tag(struct ds_cpu *c) { return ds_nb_replay_tag(c, DS_NB_METRIC_1STL_CACHE_LOAD_MISS, true); }
static int nop_untag(struct ds_cpu *c) { return ds_nb_replay_untag(c); }
static int nop_scan(struct ds_cpu *c)
{
    uint32_t ovf;
    return ds_nb_pmi_scan(c, (1u << 12) | (1u << 14), &ovf);
}
static int nop_rearm(struct ds_cpu *c) { return ds_nb_rearm(c, 12, 0xFFFFFF0000ull); }

static void test_msr_fault_sweep(void)
{
    static const struct { const char *name; fs_mk_fn mk; fs_op_fn op; } ops[] = {
        { "nb_program", nb3, nop_program },         { "nb_release", nb3_programmed, nop_release },
        { "nb_program_raw", nb3, nop_program_raw }, { "nb_release_raw", nb3, nop_release_raw },
        { "nb_replay_tag", nb3, nop_tag },          { "nb_replay_untag", nb3, nop_untag },
        { "nb_pmi_scan", nb3_overflowed, nop_scan }, { "nb_rearm", nb3, nop_rearm },
    };
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
        for (int how = FS_ANY; how <= FS_WRITE; how++)
            fault_sweep(ops[i].name, ops[i].mk, ops[i].op, (enum fs_mode)how);
}

/*
 * mut3C (issue 10 test strength), clearing paths and exact boundaries of the
 * allocator and request checks. Expectations from SDM Vol. 3B NetBurst ESCR
 * layout (bit 0 T1_USR, 1 T1_OS, 2 T0_USR, 3 T0_OS, 4 tag enable, 8:5 tag
 * value) and CCCR layout (23:20 threshold, 26 OVF_PMI_T0, 27 OVF_PMI_T1),
 * netburst.h (threshold and tag value are 4-bit fields: 15 valid, 16 not).
 */
static void test_alloc_init_clears(void)
{
    struct ds_nb_alloc a;
    memset(&a, 0xA5, sizeof(a));
    CHECK_EQ(ds_nb_alloc_init(&a, 6, true), DS_OK, "init over a poisoned allocator");
    CHECK(a.escr_used == 0 && a.counter_used == 0, "nothing allocated");
    for (unsigned i = 0; i < 18; i++)
        CHECK_EQ(a.counter_escr[i], 0, "counter %u has no ESCR recorded", i);
    CHECK(a.display_model == 6 && a.ht, "model and HT kept");
}

static void test_thread_privilege_bits(void)
{
    struct ds_nb_alloc a;
    struct ds_nb_assignment as;
    unsigned br;
    ds_nb_event_find("branch_retired", &br);
    for (unsigned thread = 0; thread < 2; thread++)
        for (unsigned p = 1; p < 4; p++)
            for (unsigned pmi = 0; pmi < 2; pmi++) {
                bool os = p & 1, usr = p & 2;
                ds_nb_alloc_init(&a, 3, true);
                struct ds_nb_request rq = { .event = br, .mask = 1, .escr = -1, .counter = -1, .thread = thread,
                                            .os = os, .usr = usr, .pmi = pmi };
                CHECK_EQ(ds_nb_assign(&a, &rq, &as), DS_OK, "thread %u os %d usr %d", thread, os, usr);
                uint64_t priv = thread ? (os ? 1u << 1 : 0) | (usr ? 1u << 0 : 0)
                                       : (os ? 1u << 3 : 0) | (usr ? 1u << 2 : 0);
                CHECK_EQ(as.escr_val, (6ull << 25) | (1ull << 9) | priv, "thread %u os %d usr %d ESCR", thread, os, usr);
                uint64_t want_cccr = (1ull << 12) | (5ull << 13) | (3ull << 16) |
                                     (pmi ? (thread ? 1ull << 27 : 1ull << 26) : 0);
                CHECK_EQ(as.cccr_val, want_cccr, "thread %u pmi %u CCCR", thread, pmi);
            }
}

static void test_filter_field_maxima(void)
{
    struct ds_nb_alloc a;
    struct ds_nb_assignment as;
    unsigned br;
    ds_nb_event_find("branch_retired", &br);
    ds_nb_alloc_init(&a, 3, false);
    struct ds_nb_request rq = { .event = br, .mask = 1, .escr = -1, .counter = -1, .os = true,
                                .threshold = 15, .compare = true, .tag_enable = true, .tag_value = 15 };
    CHECK_EQ(ds_nb_assign(&a, &rq, &as), DS_OK, "threshold 15, tag 15");
    CHECK_EQ(as.cccr_val & (0xFull << 20), 0xFull << 20, "threshold 15 in CCCR[23:20]");
    CHECK_EQ(as.escr_val & 0x1F0ull, (0xFull << 5) | (1ull << 4), "tag 15 in ESCR[8:5], tag enable");
    rq.threshold = 16;
    CHECK_EQ(ds_nb_assign(&a, &rq, &as), DS_ERR_NB_BAD_FILTER, "threshold 16");
    rq.threshold = 15;
    rq.tag_value = 16;
    CHECK_EQ(ds_nb_assign(&a, &rq, &as), DS_ERR_NB_BAD_FILTER, "tag 16");
    rq.tag_value = 0;
    rq.counter = -2;
    CHECK_EQ(ds_nb_assign(&a, &rq, &as), DS_ERR_NB_BAD_COUNTER, "counter -2");
    rq.counter = 17; /* the last counter: CRU_ESCR3 drives IQ_COUNTER5 */
    CHECK_EQ(ds_nb_assign(&a, &rq, &as), DS_OK, "counter 17");
    CHECK_EQ(as.counter, 17, "on counter 17");
    rq.counter = -1;
    rq.escr = 44; /* the last ESCR (CRU_ESCR5): not one of branch_retired's */
    CHECK_EQ(ds_nb_assign(&a, &rq, &as), DS_ERR_NB_ESCR_EVENT, "escr 44 exists");
}

/*
 * Model gates at every display model 0-15 (SDM NetBurst event tables:
 * instr_completed on models 03H, 04H, 06H; reference netburst.md and
 * Linux perf_event_p4.h: IQ_ESCR0/1 on models 01H-02H only). No event of
 * the table uses IQ_ESCR0/1, so an existing IQ_ESCR is refused as not the
 * event's ESCR and a missing one as a bad ESCR; the raw interface refuses
 * the missing addresses.
 */
static void test_model_gates_every_model(void)
{
    unsigned ic, br, iq0, iq1;
    ds_nb_event_find("instr_completed", &ic);
    ds_nb_event_find("branch_retired", &br);
    ds_nb_escr_find("MSR_IQ_ESCR0", &iq0);
    ds_nb_escr_find("MSR_IQ_ESCR1", &iq1);
    for (unsigned model = 0; model < 16; model++) {
        struct ds_nb_alloc a;
        struct ds_nb_assignment as;
        ds_nb_alloc_init(&a, (uint8_t)model, false);
        bool ic_ok = model == 3 || model == 4 || model == 6, iq_ok = model == 1 || model == 2;
        struct ds_nb_request rq = { .event = ic, .mask = 1, .escr = -1, .counter = -1, .os = true };
        CHECK_EQ(ds_nb_assign(&a, &rq, &as), ic_ok ? DS_OK : DS_ERR_NB_MODEL, "model %u instr_completed", model);
        rq.event = br;
        rq.escr = (int)iq0;
        CHECK_EQ(ds_nb_assign(&a, &rq, &as), iq_ok ? DS_ERR_NB_ESCR_EVENT : DS_ERR_NB_BAD_ESCR, "model %u IQ_ESCR0", model);
        rq.escr = (int)iq1;
        CHECK_EQ(ds_nb_assign(&a, &rq, &as), iq_ok ? DS_ERR_NB_ESCR_EVENT : DS_ERR_NB_BAD_ESCR, "model %u IQ_ESCR1", model);
        struct fake_pmu f;
        struct ds_cpu cpu;
        netburst_cpu(&f, &cpu, model, true);
        fp_set(&f, 0x3BA, 0);
        fp_set(&f, 0x3BB, 0);
        CHECK_EQ(ds_nb_program_raw(&cpu, 12, 0x3BA, 0, 0, 0), iq_ok ? DS_OK : DS_ERR_NB_BAD_ESCR, "model %u raw 0x3BA", model);
        CHECK_EQ(ds_nb_release_raw(&cpu, 14, 0x3BB), iq_ok ? DS_OK : DS_ERR_NB_BAD_ESCR, "model %u raw 0x3BB", model);
    }
}

/*
 * mut3C: the overflow erratum check of ds_nb_pmi_scan at its exact bit.
 * NetBurst counters are 40 bits wide (SDM Vol. 3B NetBurst counters); a
 * sampling counter starts at 2^40 - period with period <= 2^39 (netburst.h
 * ds_nb_period), so bit 39 is set while it runs and clear once it wrapped
 * (Linux p4.c p4_pmu_clear_cccr_ovf tests that bit). 0x8000000000 (bit 39
 * only: the start value of period 2^39) still runs; 0x7FFFFFFFFF (bits
 * 38:0) has wrapped. Counter 17, the last one, is scanned too.
 */
static void test_pmi_scan_bit39(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    netburst_cpu(&f, &cpu, 3, true);
    fp_set(&f, 0x36C, 1ull << 12);
    fp_set(&f, 0x30C, 0x8000000000ull);
    fp_set(&f, 0x36D, 1ull << 12);
    fp_set(&f, 0x30D, 0x7FFFFFFFFFull);
    fp_set(&f, 0x371, (1ull << 31) | (1ull << 12));
    fp_set(&f, 0x311, 0xFFFFFFFFFFull);
    uint32_t ovf = 0xDEAD;
    CHECK_EQ(ds_nb_pmi_scan(&cpu, (1u << 12) | (1u << 13) | (1u << 17), &ovf), DS_OK, "scan");
    CHECK_EQ(ovf, (1u << 13) | (1u << 17), "bit 39 clear: wrapped; bit 39 set: running; 17: CCCR.OVF");
    CHECK_EQ(fp_get(&f, 0x371), 1ull << 12, "counter 17 OVF cleared");
    fp_set(&f, 0x30C, 0xFFFFFFFFFFull); /* all 40 bits: running */
    CHECK_EQ(ds_nb_pmi_scan(&cpu, 1u << 12, &ovf), DS_OK, "scan");
    CHECK_EQ(ovf, 0, "40-bit all-ones is running");
    CHECK_EQ(ds_nb_pmi_scan(&cpu, 0, &ovf), DS_OK, "nothing armed");
    CHECK_EQ(ovf, 0, "nothing armed: nothing overflowed");
}

/*
 * mut3C: ds_nb_release refuses indexes past the tables even when the
 * allocator bitmaps claim them (netburst.h: DS_ERR_NB_NOT_ALLOCATED for
 * @as not held by @a; 45 ESCRs, 18 counters), before any table access.
 */
static void test_release_index_bounds(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    struct ds_nb_alloc a;
    netburst_cpu(&f, &cpu, 3, true);
    ds_nb_alloc_init(&a, 3, false);
    a.escr_used = ~0ull;
    a.counter_used = ~0u;
    struct ds_nb_assignment as = { .escr = 45, .counter = 12 };
    a.counter_escr[12] = 46;
    fp_clear_log(&f);
    CHECK_EQ(ds_nb_release(&cpu, &a, &as), DS_ERR_NB_NOT_ALLOCATED, "ESCR index 45");
    as.escr = 44;
    as.counter = 18;
    CHECK_EQ(ds_nb_release(&cpu, &a, &as), DS_ERR_NB_NOT_ALLOCATED, "counter index 18");
    CHECK_EQ(f.writes, 0, "nothing written");
    as.counter = 17; /* last ESCR, last counter, recorded pairing: released */
    a.counter_escr[17] = 45;
    fp_set(&f, 0x3E1, 0x123);
    fp_set(&f, 0x371, 0x1000);
    CHECK_EQ(ds_nb_release(&cpu, &a, &as), DS_OK, "ESCR 44 / counter 17");
    CHECK(fp_get(&f, 0x3E1) == 0 && fp_get(&f, 0x371) == 0, "CRU_ESCR5 and IQ_CCCR5 cleared");
    CHECK(!((a.escr_used >> 44) & 1) && !((a.counter_used >> 17) & 1) && a.counter_escr[17] == 0, "freed");
    CHECK(((a.escr_used >> 43) & 1) && ((a.counter_used >> 16) & 1), "neighbours kept");
}

/*
 * mut3C: raw programming at the field boundaries (SDM Vol. 3B: ESCR bits
 * 30:0 defined, 63:31 reserved; CCCR bits 11:0 and 29:28 reserved, 31 is
 * the OVF flag, not programmable here, netburst.h), the counter index 17/18
 * and the exact write order and values (CCCR 0, ESCR, counter twice, CCCR).
 */
static void test_raw_boundaries(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    netburst_cpu(&f, &cpu, 3, true);
    const uint64_t escr_all = 0x7FFFFFFFull, cccr_all = 0x4FFFF000ull;
    fp_clear_log(&f);
    CHECK_EQ(ds_nb_program_raw(&cpu, 17, 0x3E1, escr_all, cccr_all, 0xFFFFFFFFFFull), DS_OK, "every defined bit");
    CHECK(f.nlog == 5 && f.log[0].msr == 0x371 && f.log[0].val == 0 && f.log[1].msr == 0x3E1 &&
          f.log[1].val == escr_all && f.log[2].msr == 0x311 && f.log[3].msr == 0x311 &&
          f.log[3].val == 0xFFFFFFFFFFull && f.log[4].msr == 0x371 && f.log[4].val == cccr_all, "raw write sequence");
    static const uint64_t bad_escr[] = { 1ull << 31, 1ull << 32, 1ull << 63 };
    static const uint64_t bad_cccr[] = { 1ull << 0, 1ull << 11, 1ull << 28, 1ull << 29, 1ull << 31, 1ull << 32 };
    for (size_t i = 0; i < DS_ARRAY_SIZE(bad_escr); i++) {
        fp_clear_log(&f);
        CHECK_EQ(ds_nb_program_raw(&cpu, 12, 0x3CC, bad_escr[i], 0x1000, 0), DS_ERR_PMC_RESERVED, "ESCR bit %#llx",
                 (unsigned long long)bad_escr[i]);
        CHECK_EQ(f.writes, 0, "nothing written");
    }
    for (size_t i = 0; i < DS_ARRAY_SIZE(bad_cccr); i++) {
        fp_clear_log(&f);
        CHECK_EQ(ds_nb_program_raw(&cpu, 12, 0x3CC, 0x0C001E0C, bad_cccr[i] | 0x1000, 0), DS_ERR_PMC_RESERVED,
                 "CCCR bit %#llx", (unsigned long long)bad_cccr[i]);
        CHECK_EQ(f.writes, 0, "nothing written");
    }
    CHECK_EQ(ds_nb_program_raw(&cpu, 18, 0x3CC, 0, 0, 0), DS_ERR_NB_BAD_COUNTER, "raw counter 18");
    CHECK_EQ(ds_nb_release_raw(&cpu, 18, 0x3CC), DS_ERR_NB_BAD_COUNTER, "raw release counter 18");
    CHECK_EQ(ds_nb_program_raw(&cpu, 12, 0x3CC, 0, 0, 1ull << 40), DS_ERR_PMC_VALUE_WIDE, "41-bit start");
    fp_clear_log(&f);
    CHECK_EQ(ds_nb_release_raw(&cpu, 17, 0x3E1), DS_OK, "raw release 17");
    CHECK(fp_get(&f, 0x371) == 0 && fp_get(&f, 0x3E1) == 0 && f.writes == 2, "CCCR and ESCR zeroed");
    CHECK_EQ(ds_nb_rearm(&cpu, 17, 0xFFFFFFFFFFull), DS_OK, "rearm counter 17 with 40 bits");
    CHECK_EQ(fp_get(&f, 0x311), 0xFFFFFFFFFFull, "rearm value");
}

/*
 * mut3C: replay tagging with PEBS needs the DS feature (CPUID.01H:EDX[21];
 * netburst.h: DS_ERR_NO_DS, pebs only); tagging for counting alone does not.
 */
static void test_replay_tag_needs_ds(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    netburst_cpu(&f, &cpu, 2, true);
    f.leaves[1].r[3] &= ~(1u << 21);
    CHECK_EQ(fp_identify(&f, &cpu), DS_OK, "identify without DS");
    fp_clear_log(&f);
    CHECK_EQ(ds_nb_replay_tag(&cpu, 0, true), DS_ERR_NO_DS, "PEBS tagging without DS");
    CHECK_EQ(f.writes, 0, "nothing written");
    CHECK_EQ(ds_nb_replay_tag(&cpu, 0, false), DS_OK, "counting-only tagging without DS");
    CHECK_EQ(fp_get(&f, 0x3F1), 0x1ull | (1u << 24), "PEBS_ENABLE: metric bit and UOP_TAG, no bit 25");
}

/*
 * mut3C: mask-name parsing edges (netburst.h: names separated by '|' or
 * ','; an unknown name is DS_ERR_NB_BAD_MASK): a name longer than a valid
 * one, an empty name between separators, both separators mixed.
 */
static void test_mask_parse_edges(void)
{
    unsigned br, ic;
    uint32_t mask = 0;
    ds_nb_event_find("branch_retired", &br);
    ds_nb_event_find("instr_completed", &ic);
    CHECK_EQ(ds_nb_mask_parse(br, "MMNPX", &mask), DS_ERR_NB_BAD_MASK, "longer than MMNP");
    CHECK_EQ(ds_nb_mask_parse(br, "MMNP||MMTM", &mask), DS_ERR_NB_BAD_MASK, "empty name");
    CHECK_EQ(ds_nb_mask_parse(br, "|MMNP", &mask), DS_ERR_NB_BAD_MASK, "leading separator");
    CHECK_EQ(ds_nb_mask_parse(br, "MMTM,MMNM|MMTP", &mask), DS_OK, "mixed separators");
    CHECK_EQ(mask, 0xE, "MMNM|MMTP|MMTM");
    CHECK_EQ(ds_nb_mask_parse(ic, "BOGUS", &mask), DS_OK, "last event, second name");
    CHECK_EQ(mask, 0x2, "BOGUS is bit 1");
    CHECK_EQ(ds_nb_mask_parse(0, "ID", &mask), DS_OK, "tc_deliver_mode last name");
    CHECK_EQ(mask, 0x40, "ID is bit 6");
    CHECK_EQ(ds_nb_event_find("branch_retire", &br), DS_ERR_NB_BAD_EVENT, "prefix of an event name");
    CHECK_EQ(ds_nb_event_find("branch_retiredX", &br), DS_ERR_NB_BAD_EVENT, "longer than an event name");
    CHECK_EQ(ds_nb_escr_find("CRU_ESCR", &br), DS_ERR_NB_BAD_ESCR, "prefix of an ESCR name");
    CHECK_EQ(ds_nb_event_find("branch_retired", NULL), DS_ERR_NULL, "event_find out NULL");
    CHECK_EQ(ds_nb_escr_find("MSR_CRU_ESCR2", NULL), DS_ERR_NULL, "escr_find out NULL");
}

/*
 * mut3C: an explicit counter is honoured exactly, also counter 0: with
 * BSU_ESCR0 (counters 0, 1) busy, bsq_cache_reference on counter 0 has no
 * free pair (BSU_ESCR1 drives 2, 3 only: reference netburst.md), it is not
 * moved to another counter.
 */
static void test_explicit_counter0(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    struct ds_nb_alloc a;
    struct ds_nb_assignment as;
    netburst_cpu(&f, &cpu, 3, true);
    ds_nb_alloc_init(&a, 3, false);
    unsigned bsq, bsu0;
    ds_nb_event_find("bsq_cache_reference", &bsq);
    ds_nb_escr_find("MSR_BSU_ESCR0", &bsu0);
    struct ds_nb_request rq = { .event = bsq, .mask = 1, .escr = (int)bsu0, .counter = 1, .os = true };
    CHECK_EQ(ds_nb_program(&cpu, &a, &rq, 0, &as), DS_OK, "BSU_ESCR0 on counter 1");
    rq.escr = -1;
    rq.counter = 0;
    CHECK_EQ(ds_nb_assign(&a, &rq, &as), DS_ERR_NB_NO_FREE, "counter 0 only through the busy BSU_ESCR0");
    rq.escr = 0; /* ESCR index 0 = BSU_ESCR0, explicit */
    CHECK_EQ(ds_nb_assign(&a, &rq, &as), DS_ERR_NB_ESCR_BUSY, "explicit ESCR 0 busy");
}

static void test_pebs_escr_impossible_before_busy(void);
static void test_explicit_escr0_honoured(void);
static void test_explicit_escr0_busy(void);
static void test_null_each_pointer(void);
/* The counter, ESCR and mask-bit names are char arrays in the rows (issue 28
 * item 6): each one NUL-terminated inside its array (a name exactly as long
 * as the array compiles silently without its NUL) and non-empty. */
static void test_name_arrays(void)
{
    size_t n, ne;
    const struct ds_nb_counter_info *c = ds_nb_counters(&n);
    for (size_t i = 0; i < n; i++)
        CHECK(memchr(c[i].name, 0, sizeof c[i].name) && c[i].name[0] && memchr(c[i].cccr_name, 0, sizeof c[i].cccr_name) &&
                  c[i].cccr_name[0], "counter %zu names terminated", i);
    const struct ds_nb_escr_info *e = ds_nb_escrs(&n);
    for (size_t i = 0; i < n; i++)
        CHECK(memchr(e[i].name, 0, sizeof e[i].name) && e[i].name[0], "ESCR %zu name terminated", i);
    const struct ds_nb_event_info *ev = ds_nb_events(&ne);
    size_t bits = 0;
    for (size_t i = 0; i < ne; i++)
        for (size_t k = 0; k < ev[i].nmasks; k++, bits++)
            CHECK(memchr(ev[i].masks[k].name, 0, sizeof ev[i].masks[k].name) && ev[i].masks[k].name[0],
                  "%s mask bit %zu name terminated", ev[i].name, k);
    CHECK(bits >= 100, "%zu mask bits seen", bits);
}

int main(void)
{
    test_tables();
    test_name_arrays();
    test_every_pair(2);
    test_every_pair(3);
    test_worked_example();
    test_allocator();
    test_cpu_checks();
    test_pebs();
    test_replay_tag();
    test_pmi_scan();
    test_fault_rollback();
    test_nb_cpu_facts();
    test_nb_release_mismatch();
    test_non_retirement_rows();
    test_impossible_before_busy();
    test_raw_escr_range();
    test_event_index_bound();
    test_metric_index_bound();
    test_msr_fault_sweep();
    test_alloc_init_clears();
    test_thread_privilege_bits();
    test_filter_field_maxima();
    test_model_gates_every_model();
    test_pmi_scan_bit39();
    test_release_index_bounds();
    test_raw_boundaries();
    test_replay_tag_needs_ds();
    test_mask_parse_edges();
    test_explicit_counter0();
    test_pebs_escr_impossible_before_busy();
    test_explicit_escr0_honoured();
    test_explicit_escr0_busy();
    test_null_each_pointer();
    return check_summary();
}

/*
 * mut4B: a PEBS request naming an ESCR that cannot drive the thread's PEBS
 * counter (IQ_COUNTER4 = 16 for logical CPU 0, IQ_COUNTER5 = 17 for 1; SDM
 * NetBurst PEBS and its Hyper-Threading section; ref_escr / netburst.md:
 * CRU_ESCR2 drives 12, 13, 16, CRU_ESCR3 14, 15, 17) is an impossible
 * pairing, DS_ERR_NB_PEBS_COUNTER, also while that ESCR is busy (impossible
 * before busy, as test_impossible_before_busy for plain counters); the
 * possible ESCR, busy, is DS_ERR_NB_ESCR_BUSY.
 */
static void test_pebs_escr_impossible_before_busy(void)
{
    struct ds_nb_alloc a;
    struct ds_nb_assignment as;
    unsigned rep, cru2, cru3;
    CHECK_EQ(ds_nb_event_find("replay_event", &rep), DS_OK, "replay_event");
    CHECK_EQ(ds_nb_escr_find("MSR_CRU_ESCR2", &cru2), DS_OK, "CRU_ESCR2");
    CHECK_EQ(ds_nb_escr_find("MSR_CRU_ESCR3", &cru3), DS_OK, "CRU_ESCR3");
    static const struct { unsigned thread; int wrong, right; } t[] = { { 0, 1, 0 }, { 1, 0, 1 } };
    for (unsigned i = 0; i < 2; i++) {
        unsigned wrong = t[i].wrong ? cru3 : cru2, right = t[i].right ? cru3 : cru2;
        ds_nb_alloc_init(&a, 3, true);
        a.escr_used = (1ull << cru2) | (1ull << cru3);
        struct ds_nb_request rq = { .event = rep, .mask = 1, .escr = (int)wrong, .counter = -1,
                                    .thread = t[i].thread, .os = true, .pebs = true };
        CHECK_EQ(ds_nb_assign(&a, &rq, &as), DS_ERR_NB_PEBS_COUNTER,
                 "thread %u: busy ESCR that cannot drive the PEBS counter", t[i].thread);
        rq.escr = (int)right;
        CHECK_EQ(ds_nb_assign(&a, &rq, &as), DS_ERR_NB_ESCR_BUSY, "thread %u: the right ESCR, busy", t[i].thread);
        a.escr_used = 0;
        CHECK_EQ(ds_nb_assign(&a, &rq, &as), DS_OK, "thread %u: the right ESCR, free", t[i].thread);
        CHECK_EQ(as.counter, t[i].thread ? 17 : 16, "thread %u: its PEBS counter", t[i].thread);
    }
}

/*
 * mut4B: an explicit ESCR is honoured when it is table row 0 too. ESCR 0 is
 * MSR_BSU_ESCR0 (3A0H), which drives counters 0 and 1 only; BSU_ESCR1 drives
 * 2 and 3 (ref_escr / netburst.md). bsq_cache_reference runs on either. With
 * ESCR 0 named, counter automatic and counter 0 busy, nothing is left (the
 * automatic choice skips counter 1, netburst.h ds_nb_assign): DS_ERR_NB_NO_FREE,
 * never a silent move to BSU_ESCR1 / counter 2; counter 0 free: ESCR 0,
 * counter 0.
 */
static void test_explicit_escr0_honoured(void)
{
    struct ds_nb_alloc a;
    struct ds_nb_assignment as;
    unsigned bsq, bsu0;
    CHECK_EQ(ds_nb_event_find("bsq_cache_reference", &bsq), DS_OK, "bsq_cache_reference");
    CHECK_EQ(ds_nb_escr_find("MSR_BSU_ESCR0", &bsu0), DS_OK, "BSU_ESCR0");
    CHECK_EQ(bsu0, 0, "BSU_ESCR0 is row 0");
    ds_nb_alloc_init(&a, 3, false);
    struct ds_nb_request rq = { .event = bsq, .mask = 1, .escr = 0, .counter = -1, .os = true };
    CHECK_EQ(ds_nb_assign(&a, &rq, &as), DS_OK, "ESCR 0, counter 0 free");
    CHECK_EQ(as.escr, 0, "ESCR 0 taken");
    CHECK_EQ(as.counter, 0, "counter 0");
    a.counter_used = 1u << 0;
    memset(&as, 0, sizeof as);
    CHECK_EQ(ds_nb_assign(&a, &rq, &as), DS_ERR_NB_NO_FREE, "ESCR 0 named, counter 0 busy: no free pair");
    rq.escr = -1;
    CHECK_EQ(ds_nb_assign(&a, &rq, &as), DS_OK, "any ESCR: BSU_ESCR1");
    CHECK_EQ(as.escr, 1, "BSU_ESCR1");
    CHECK_EQ(as.counter, 2, "counter 2");
}

/*
 * mut4B: the explicit-ESCR checks at ESCR index 0 (BSU_ESCR0, counters 0
 * and 1) while it is busy: with counter 2 named (BSU_ESCR1's, never ESCR
 * 0's) the pairing is impossible, DS_ERR_NB_ESCR_COUNTER before busy;
 * with counter 0 or automatic, DS_ERR_NB_ESCR_BUSY (not NO_FREE), as for
 * any other ESCR row (netburst.h ds_nb_assign errors).
 */
static void test_explicit_escr0_busy(void)
{
    struct ds_nb_alloc a;
    struct ds_nb_assignment as;
    unsigned bsq;
    CHECK_EQ(ds_nb_event_find("bsq_cache_reference", &bsq), DS_OK, "bsq_cache_reference");
    ds_nb_alloc_init(&a, 3, false);
    a.escr_used = 1u << 0;
    struct ds_nb_request rq = { .event = bsq, .mask = 1, .escr = 0, .counter = 2, .os = true };
    CHECK_EQ(ds_nb_assign(&a, &rq, &as), DS_ERR_NB_ESCR_COUNTER, "ESCR 0 busy, counter 2: impossible first");
    rq.counter = 0;
    CHECK_EQ(ds_nb_assign(&a, &rq, &as), DS_ERR_NB_ESCR_BUSY, "ESCR 0 busy, counter 0");
    rq.counter = -1;
    CHECK_EQ(ds_nb_assign(&a, &rq, &as), DS_ERR_NB_ESCR_BUSY, "ESCR 0 busy, counter automatic");
}

/*
 * netburst.h: every pointer argument NULL on its own is DS_ERR_NULL, and
 * nothing reaches an MSR (a check written `!a && !b` would pass a single
 * NULL on to a dereference). The valid calls around them show the other
 * arguments were good. Hunting seed 9401: ds_nb_release `!a || !as` ->
 * `&&` survived.
 */
static void test_null_each_pointer(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    struct ds_nb_alloc a;
    unsigned br = 0, ix = 0;
    netburst_cpu(&f, &cpu, 4, true);
    ds_nb_alloc_init(&a, 4, false);
    CHECK_EQ(ds_nb_event_find(NULL, &ix), DS_ERR_NULL, "event_find: name NULL");
    CHECK_EQ(ds_nb_event_find("branch_retired", NULL), DS_ERR_NULL, "event_find: out NULL");
    CHECK_EQ(ds_nb_event_find("branch_retired", &br), DS_OK, "event_find");
    CHECK_EQ(ds_nb_escr_find("MSR_CRU_ESCR2", NULL), DS_ERR_NULL, "escr_find: out NULL");
    CHECK_EQ(ds_nb_escr_find("MSR_CRU_ESCR2", &ix), DS_OK, "escr_find");
    CHECK_EQ(ds_nb_mask_parse(br, "MMNP", NULL), DS_ERR_NULL, "mask_parse: out NULL");
    struct ds_nb_request rq = { .event = br, .mask = 1, .escr = -1, .counter = -1, .os = true };
    struct ds_nb_assignment as;
    fp_clear_log(&f);
    CHECK_EQ(ds_nb_program(&cpu, NULL, &rq, 0, &as), DS_ERR_NULL, "program: alloc NULL");
    CHECK_EQ(ds_nb_program(&cpu, &a, NULL, 0, &as), DS_ERR_NULL, "program: request NULL");
    CHECK_EQ(ds_nb_program(&cpu, &a, &rq, 0, NULL), DS_ERR_NULL, "program: out NULL");
    CHECK_EQ(f.writes, 0, "no MSR written by the refused programs");
    CHECK_EQ(ds_nb_program(&cpu, &a, &rq, 0, &as), DS_OK, "program");
    fp_clear_log(&f);
    CHECK_EQ(ds_nb_release(&cpu, NULL, &as), DS_ERR_NULL, "release: alloc NULL");
    CHECK_EQ(ds_nb_release(&cpu, &a, NULL), DS_ERR_NULL, "release: assignment NULL");
    CHECK_EQ(f.writes, 0, "no MSR written by the refused releases");
    CHECK_EQ(ds_nb_release(&cpu, &a, &as), DS_OK, "release");
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * step_to_dsm(): the feed's event mapped onto the reference model's event
 * (built only when model/include/dsmodel.h exists). Each field is
 * checked, including the register reordering into PEBS order.
 */
#include "check.h"
#include "feed.h"
#include "step_dsm.h"

int main(void)
{
    struct step_regs b = {0}, a = {0};
    struct step_event ev;
    struct dsm_event d;
    static const uint8_t add[] = {0x03, 0x44, 0x24, 0x08}; /* add eax,[rsp+8] */
    static const uint8_t jz[] = {0x74, 0x10}, call[] = {0xFF, 0xD1}, rep[] = {0xF3, 0xA4};

    b.ip = 0x1000;
    b.gpr[STEP_R_SP] = 0x8000;
    a.ip = 0x1004;
    for (unsigned i = 0; i < 16; i++)
        a.gpr[i] = 0x100 + i;
    a.flags = 0x202;
    CHECK_EQ(step_feed(&b, &a, STEP_MODE_64, 3, add, sizeof add, &ev), STEP_OK, "feed load");
    CHECK(step_to_dsm(&ev, 7, 1, 0x1234, &d), "retired: feed it");
    CHECK_EQ(d.ip, 0x1000, "ip");
    CHECK_EQ(d.next_ip, 0x1004, "next_ip");
    CHECK_EQ(d.flags, DSM_EV_LOAD, "load only");
    CHECK_EQ(d.load_addr, 0x8008, "load address");
    CHECK_EQ(d.load_latency, 7, "latency passed through");
    CHECK_EQ(d.data_src, 1, "data source passed through");
    CHECK_EQ(d.tsc, 0x1234, "tsc");
    CHECK_EQ(d.cpl, 3, "cpl");
    CHECK_EQ(d.regs[DSM_R_FLAGS], 0x202, "flags");
    CHECK_EQ(d.regs[DSM_R_AX], 0x100, "rax");
    CHECK_EQ(d.regs[DSM_R_BX], 0x103, "rbx (PEBS order)");
    CHECK_EQ(d.regs[DSM_R_CX], 0x101, "rcx");
    CHECK_EQ(d.regs[DSM_R_DX], 0x102, "rdx");
    CHECK_EQ(d.regs[DSM_R_SI], 0x106, "rsi");
    CHECK_EQ(d.regs[DSM_R_DI], 0x107, "rdi");
    CHECK_EQ(d.regs[DSM_R_BP], 0x105, "rbp");
    CHECK_EQ(d.regs[DSM_R_SP], 0x104, "rsp");
    CHECK_EQ(d.regs[DSM_R_R8 + 7], 0x10F, "r15");

    a.ip = 0x1012;
    CHECK_EQ(step_feed(&b, &a, STEP_MODE_64, 0, jz, sizeof jz, &ev), STEP_OK, "feed jz");
    CHECK(step_to_dsm(&ev, 0, 0, 0, &d), "jz retired");
    CHECK_EQ(d.flags, DSM_EV_BRANCH | DSM_EV_TAKEN | DSM_EV_MISPRED, "forward taken jz");
    CHECK_EQ(d.br_kind, DSM_BR_JCC, "jcc");
    CHECK_EQ(d.br_to, 0x1012, "to");

    a.ip = 0x5000;
    CHECK_EQ(step_feed(&b, &a, STEP_MODE_64, 0, call, sizeof call, &ev), STEP_OK, "feed call");
    CHECK(step_to_dsm(&ev, 0, 0, 0, &d), "call retired");
    CHECK_EQ(d.br_kind, DSM_BR_NEAR_IND_CALL, "indirect call");
    CHECK_EQ(d.flags, DSM_EV_BRANCH | DSM_EV_TAKEN, "taken, predicted");

    a.ip = 0x1000;
    CHECK_EQ(step_feed(&b, &a, STEP_MODE_64, 0, rep, sizeof rep, &ev), STEP_OK, "feed rep");
    CHECK(!step_to_dsm(&ev, 0, 0, 0, &d), "REP iteration: nothing retired");

    static const unsigned kinds[][2] = {
        {STEP_BR_JCC, DSM_BR_JCC}, {STEP_BR_LOOP, DSM_BR_JCC}, {STEP_BR_JMP_REL, DSM_BR_NEAR_REL_JMP},
        {STEP_BR_JMP_IND, DSM_BR_NEAR_IND_JMP}, {STEP_BR_CALL_REL, DSM_BR_NEAR_REL_CALL},
        {STEP_BR_CALL_IND, DSM_BR_NEAR_IND_CALL}, {STEP_BR_RET, DSM_BR_NEAR_RET},
        {STEP_BR_FAR, DSM_BR_FAR}, {STEP_BR_OTHER, DSM_BR_FAR}};
    for (unsigned i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        CHECK_EQ(step_dsm_br_kind(kinds[i][0]), kinds[i][1], "kind %u", kinds[i][0]);
    return check_summary();
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Table tests of the single-step classifier (kernel/step/insn.c) and of the
 * feed (kernel/step/feed.c): branch kinds, lengths, prefixes, targets, memory
 * operands and their linear addresses, in 32-bit and 64-bit mode, plus every
 * bad input. Encodings are written from the Intel SDM Vol. 2 opcode tables.
 */
#include "check.h"
#include "feed.h"
#include "insn.h"

#define M32 STEP_MODE_32
#define M64 STEP_MODE_64
#define IP0 0x1000u

struct tc {
    const char *what;
    unsigned mode;
    uint64_t ip;          /* 0: IP0 */
    uint8_t b[16];
    unsigned n;
    int err;              /* expected return */
    unsigned len, kind;
    uint32_t set, clr;    /* flags that must be set / clear */
    uint64_t target;      /* checked when set has STEP_I_REL */
    int mem_size;         /* checked when >= 0 */
};

#define E(...) {__VA_ARGS__}, sizeof((uint8_t[]){__VA_ARGS__})
#define NB STEP_BR_NONE
#define REL STEP_I_REL
#define COND STEP_I_COND
#define MEM STEP_I_MEM
#define LD STEP_I_LOAD
#define ST STEP_I_STORE
#define SIB STEP_I_SIB
#define RIP STEP_I_RIPREL

static const struct tc cases[] = {
    /* --- conditional branches ------------------------------------------------ */
    {"jz rel8", M64, 0, E(0x74, 0x05), 0, 2, STEP_BR_JCC, REL | COND, MEM, IP0 + 7, -1},
    {"jnz rel8 to itself", M64, 0, E(0x75, 0xFE), 0, 2, STEP_BR_JCC, REL | COND, 0, IP0, -1},
    {"jnz rel32 backward", M64, 0, E(0x0F, 0x85, 0xF4, 0xFF, 0xFF, 0xFF), 0, 6, STEP_BR_JCC, REL | COND, 0, IP0 + 6 - 12, -1},
    {"jcc rel32 32-bit", M32, 0, E(0x0F, 0x8C, 0x00, 0x01, 0x00, 0x00), 0, 6, STEP_BR_JCC, REL | COND, 0, IP0 + 6 + 0x100, -1},
    {"2E hint on jz", M64, 0, E(0x2E, 0x74, 0x05), 0, 3, STEP_BR_JCC, STEP_I_HINT_NT, STEP_I_HINT_T, IP0 + 8, -1},
    {"3E hint on jz rel32", M64, 0, E(0x3E, 0x0F, 0x84, 0x00, 0x01, 0x00, 0x00), 0, 7, STEP_BR_JCC, STEP_I_HINT_T | REL, STEP_I_HINT_NT, IP0 + 7 + 0x100, -1},
    {"2E then 3E: last wins", M64, 0, E(0x2E, 0x3E, 0x74, 0x00), 0, 4, STEP_BR_JCC, STEP_I_HINT_T, STEP_I_HINT_NT, IP0 + 4, -1},
    {"66 jcc rel32 64-bit (Intel: ignored)", M64, 0, E(0x66, 0x0F, 0x85, 0x10, 0x00, 0x00, 0x00), 0, 7, STEP_BR_JCC, REL | STEP_I_OPSIZE, 0, IP0 + 7 + 0x10, -1},
    {"66 jcc rel16 32-bit", M32, 0, E(0x66, 0x0F, 0x85, 0x10, 0x00), 0, 5, STEP_BR_JCC, REL, 0, IP0 + 5 + 0x10, -1},
    {"66 jmp rel8 32-bit wraps to 16 bits", M32, 0x1FFF0, E(0x66, 0xEB, 0x10), 0, 3, STEP_BR_JMP_REL, REL, COND, 0x0003, -1},
    {"jmp rel32 wraps at 4 GiB (32-bit)", M32, 0xFFFFFFF0u, E(0xE9, 0x20, 0x00, 0x00, 0x00), 0, 5, STEP_BR_JMP_REL, REL, 0, 0x15, -1},
    {"jmp rel32 negative, kernel address", M64, 0xFFFFFFFF80001000ull, E(0xE9, 0x00, 0xF0, 0xFF, 0xFF), 0, 5, STEP_BR_JMP_REL, REL, 0, 0xFFFFFFFF80000005ull, -1},
    {"jmp rel8 -128", M64, 0, E(0xEB, 0x80), 0, 2, STEP_BR_JMP_REL, REL, COND, IP0 + 2 - 128, -1},
    {"loop", M64, 0, E(0xE2, 0xFE), 0, 2, STEP_BR_LOOP, REL | COND, 0, IP0, -1},
    {"loopne", M64, 0, E(0xE0, 0x10), 0, 2, STEP_BR_LOOP, REL | COND, 0, IP0 + 0x12, -1},
    {"loope", M32, 0, E(0xE1, 0x10), 0, 2, STEP_BR_LOOP, REL | COND, 0, IP0 + 0x12, -1},
    {"jrcxz", M64, 0, E(0xE3, 0x05), 0, 2, STEP_BR_LOOP, REL | COND, STEP_I_ADDRSIZE, IP0 + 7, -1},
    {"67 jecxz (64-bit)", M64, 0, E(0x67, 0xE3, 0x05), 0, 3, STEP_BR_LOOP, REL | COND | STEP_I_ADDRSIZE, 0, IP0 + 8, -1},
    /* --- unconditional near branches ------------------------------------------ */
    {"call rel32", M64, 0, E(0xE8, 0x00, 0x00, 0x00, 0x00), 0, 5, STEP_BR_CALL_REL, REL, COND, IP0 + 5, -1},
    {"66 call rel16 (32-bit)", M32, 0, E(0x66, 0xE8, 0x00, 0x10), 0, 4, STEP_BR_CALL_REL, REL, 0, IP0 + 4 + 0x1000, -1},
    {"bnd call rel32", M64, 0, E(0xF2, 0xE8, 0x00, 0x00, 0x00, 0x00), 0, 6, STEP_BR_CALL_REL, REL | STEP_I_BND, 0, IP0 + 6, -1},
    {"call *rcx", M64, 0, E(0xFF, 0xD1), 0, 2, STEP_BR_CALL_IND, STEP_I_MODRM, MEM | REL, 0, -1},
    {"call *[rip+0x10]", M64, 0, E(0xFF, 0x15, 0x10, 0x00, 0x00, 0x00), 0, 6, STEP_BR_CALL_IND, MEM | LD | RIP, ST, 0, 8},
    {"call *[eax] 32-bit", M32, 0, E(0xFF, 0x10), 0, 2, STEP_BR_CALL_IND, MEM | LD, RIP, 0, 4},
    {"jmp *r11", M64, 0, E(0x41, 0xFF, 0xE3), 0, 3, STEP_BR_JMP_IND, 0, MEM | STEP_I_NOTRACK, 0, -1},
    {"notrack jmp *rax", M64, 0, E(0x3E, 0xFF, 0xE0), 0, 3, STEP_BR_JMP_IND, STEP_I_NOTRACK, 0, 0, -1},
    {"jmp *[rax+rbx*8+0x12345678]", M64, 0, E(0xFF, 0xA4, 0xD8, 0x78, 0x56, 0x34, 0x12), 0, 7, STEP_BR_JMP_IND, MEM | LD | SIB, 0, 0, 8},
    {"ret", M64, 0, E(0xC3), 0, 1, STEP_BR_RET, 0, REL | COND, 0, -1},
    {"ret imm16", M64, 0, E(0xC2, 0x08, 0x00), 0, 3, STEP_BR_RET, 0, 0, 0, -1},
    {"rep ret", M64, 0, E(0xF3, 0xC3), 0, 2, STEP_BR_RET, STEP_I_REP, 0, 0, -1},
    {"rex.w ret", M64, 0, E(0x48, 0xC3), 0, 2, STEP_BR_RET, 0, 0, 0, -1},
    /* --- far and other ------------------------------------------------------- */
    {"retf", M64, 0, E(0xCB), 0, 1, STEP_BR_FAR, 0, 0, 0, -1},
    {"retf imm16", M32, 0, E(0xCA, 0x04, 0x00), 0, 3, STEP_BR_FAR, 0, 0, 0, -1},
    {"jmp far [rsp]", M64, 0, E(0xFF, 0x2C, 0x24), 0, 3, STEP_BR_FAR, MEM | LD | SIB, 0, 0, 6},
    {"call far [rip]", M64, 0, E(0xFF, 0x1D, 0x00, 0x00, 0x00, 0x00), 0, 6, STEP_BR_FAR, MEM | RIP, 0, 0, -1},
    {"jmp ptr16:32 (32-bit)", M32, 0, E(0xEA, 0x00, 0x10, 0x00, 0x00, 0x08, 0x00), 0, 7, STEP_BR_FAR, 0, REL, 0, -1},
    {"66 jmp ptr16:16 (32-bit)", M32, 0, E(0x66, 0xEA, 0x00, 0x10, 0x08, 0x00), 0, 6, STEP_BR_FAR, 0, 0, 0, -1},
    {"call ptr16:32 (32-bit)", M32, 0, E(0x9A, 0x00, 0x10, 0x00, 0x00, 0x08, 0x00), 0, 7, STEP_BR_FAR, 0, 0, 0, -1},
    {"int3", M64, 0, E(0xCC), 0, 1, STEP_BR_OTHER, 0, 0, 0, -1},
    {"int 0x80", M32, 0, E(0xCD, 0x80), 0, 2, STEP_BR_OTHER, 0, 0, 0, -1},
    {"int1", M64, 0, E(0xF1), 0, 1, STEP_BR_OTHER, 0, 0, 0, -1},
    {"into (32-bit)", M32, 0, E(0xCE), 0, 1, STEP_BR_OTHER, 0, 0, 0, -1},
    {"iret", M32, 0, E(0xCF), 0, 1, STEP_BR_OTHER, 0, 0, 0, -1},
    {"iretq", M64, 0, E(0x48, 0xCF), 0, 2, STEP_BR_OTHER, 0, 0, 0, -1},
    {"syscall", M64, 0, E(0x0F, 0x05), 0, 2, STEP_BR_OTHER, 0, 0, 0, -1},
    {"sysret", M64, 0, E(0x48, 0x0F, 0x07), 0, 3, STEP_BR_OTHER, 0, 0, 0, -1},
    {"sysenter", M32, 0, E(0x0F, 0x34), 0, 2, STEP_BR_OTHER, 0, 0, 0, -1},
    {"sysexit", M32, 0, E(0x0F, 0x35), 0, 2, STEP_BR_OTHER, 0, 0, 0, -1},
    /* --- non-branches: lengths, ModRM/SIB/disp, immediates --------------------- */
    {"nop", M64, 0, E(0x90), 0, 1, NB, 0, MEM | STEP_I_MODRM, 0, -1},
    {"ud2", M64, 0, E(0x0F, 0x0B), 0, 2, NB, 0, 0, 0, -1},
    {"mov eax,[rdx+rax*4]", M64, 0, E(0x8B, 0x04, 0x82), 0, 3, NB, MEM | LD | SIB, ST | RIP, 0, 4},
    {"add eax,[rsp+8]", M64, 0, E(0x03, 0x44, 0x24, 0x08), 0, 4, NB, MEM | LD | SIB, ST, 0, 4},
    {"lea rcx,[rip+0]", M64, 0, E(0x48, 0x8D, 0x0D, 0x00, 0x00, 0x00, 0x00), 0, 7, NB, MEM | RIP, LD | ST, 0, -1},
    {"mov rax, imm64", M64, 0, E(0x48, 0xB8, 1, 2, 3, 4, 5, 6, 7, 8), 0, 10, NB, 0, 0, 0, -1},
    {"66 mov ax, imm16", M64, 0, E(0x66, 0xB8, 0x34, 0x12), 0, 4, NB, STEP_I_OPSIZE, 0, 0, -1},
    {"mov eax, imm32 (32-bit)", M32, 0, E(0xB8, 1, 2, 3, 4), 0, 5, NB, 0, 0, 0, -1},
    {"mov rax, simm32", M64, 0, E(0x48, 0xC7, 0xC0, 1, 2, 3, 4), 0, 7, NB, 0, MEM, 0, -1},
    {"mov word [rax], imm16", M64, 0, E(0x66, 0xC7, 0x00, 0x34, 0x12), 0, 5, NB, MEM | ST, LD, 0, 2},
    {"mov [rbx], al", M64, 0, E(0x88, 0x03), 0, 2, NB, MEM | ST, LD, 0, 1},
    {"add [rbx], eax (rmw)", M64, 0, E(0x01, 0x03), 0, 2, NB, MEM | LD | ST, 0, 0, 4},
    {"cmp [rbx], rax (load)", M64, 0, E(0x48, 0x39, 0x03), 0, 3, NB, MEM | LD, ST, 0, 8},
    {"cmp dword [rax], imm8", M64, 0, E(0x83, 0x38, 0x05), 0, 3, NB, MEM | LD, ST, 0, 4},
    {"add dword [rax], imm32", M64, 0, E(0x81, 0x00, 1, 2, 3, 4), 0, 6, NB, MEM | LD | ST, 0, 0, 4},
    {"test byte [rax], imm8", M64, 0, E(0xF6, 0x00, 0x12), 0, 3, NB, MEM | LD, ST, 0, 1},
    {"test eax, imm32 (F7 /0)", M64, 0, E(0xF7, 0xC0, 1, 2, 3, 4), 0, 6, NB, 0, MEM, 0, -1},
    {"test ax, imm16 (66 F7 /0)", M64, 0, E(0x66, 0xF7, 0xC0, 1, 2), 0, 5, NB, 0, 0, 0, -1},
    {"not eax (F7 /2, no imm)", M64, 0, E(0xF7, 0xD0), 0, 2, NB, 0, 0, 0, -1},
    {"not byte [rax] (rmw)", M64, 0, E(0xF6, 0x10), 0, 2, NB, MEM | LD | ST, 0, 0, 1},
    {"div dword [rcx]", M64, 0, E(0xF7, 0x31), 0, 2, NB, MEM | LD, ST, 0, 4},
    {"mov eax,[disp32] (32-bit absolute)", M32, 0, E(0x8B, 0x05, 0, 0x10, 0, 0), 0, 6, NB, MEM | LD, RIP | SIB, 0, 4},
    {"mov eax,[disp32] via SIB", M64, 0, E(0x8B, 0x04, 0x25, 0, 0x10, 0, 0), 0, 7, NB, MEM | LD | SIB, RIP, 0, 4},
    {"mov eax,[rax*1+disp32] (SIB base 101, mod 00)", M64, 0, E(0x8B, 0x04, 0x05, 0, 0x10, 0, 0), 0, 7, NB, SIB, 0, 0, 4},
    {"mov eax,[rbp+rax+8] (SIB base 101, mod 01)", M64, 0, E(0x8B, 0x44, 0x05, 0x08), 0, 4, NB, SIB, 0, 0, 4},
    {"mov eax,[rax+r12] (REX.X index 12)", M64, 0, E(0x42, 0x8B, 0x04, 0x20), 0, 4, NB, SIB, 0, 0, 4},
    {"mov eax,[r12] (needs SIB)", M64, 0, E(0x41, 0x8B, 0x04, 0x24), 0, 4, NB, SIB, 0, 0, 4},
    {"mov eax,[r13+0] (disp8)", M64, 0, E(0x41, 0x8B, 0x45, 0x00), 0, 4, NB, MEM, SIB | RIP, 0, 4},
    {"mov eax,[rbp+disp32]", M64, 0, E(0x8B, 0x85, 0, 1, 0, 0), 0, 6, NB, MEM, RIP, 0, 4},
    {"67 mov eax,[edi] (64-bit)", M64, 0, E(0x67, 0x8B, 0x07), 0, 3, NB, MEM | STEP_I_ADDRSIZE, 0, 0, 4},
    {"67 mov eax,[bx] (32-bit: 16-bit addressing)", M32, 0, E(0x67, 0x8B, 0x07), 0, 3, NB, MEM | LD, SIB, 0, 4},
    {"67 mov eax,[disp16]", M32, 0, E(0x67, 0x8B, 0x06, 0x34, 0x12), 0, 5, NB, MEM, 0, 0, 4},
    {"67 mov eax,[bx+disp8]", M32, 0, E(0x67, 0x8B, 0x47, 0x10), 0, 4, NB, MEM, 0, 0, 4},
    {"67 mov eax,[bx+disp16]", M32, 0, E(0x67, 0x8B, 0x87, 0x34, 0x12), 0, 5, NB, MEM, 0, 0, 4},
    {"67 mov eax,[esp] is [si] in 16-bit (no SIB)", M32, 0, E(0x67, 0x8B, 0x04), 0, 3, NB, MEM, SIB, 0, 4},
    {"mov eax, moffs64", M64, 0, E(0xA1, 1, 2, 3, 4, 5, 6, 7, 8), 0, 9, NB, MEM | LD | STEP_I_MOFFS, STEP_I_MODRM, 0, 4},
    {"67 mov eax, moffs32 (64-bit)", M64, 0, E(0x67, 0xA1, 1, 2, 3, 4), 0, 6, NB, MEM | LD | STEP_I_MOFFS, 0, 0, 4},
    {"mov eax, moffs32 (32-bit)", M32, 0, E(0xA1, 1, 2, 3, 4), 0, 5, NB, MEM | LD | STEP_I_MOFFS, 0, 0, 4},
    {"67 mov eax, moffs16 (32-bit)", M32, 0, E(0x67, 0xA1, 1, 2), 0, 4, NB, MEM | LD | STEP_I_MOFFS, 0, 0, 4},
    {"mov moffs, al (store)", M32, 0, E(0xA2, 1, 2, 3, 4), 0, 5, NB, MEM | ST | STEP_I_MOFFS, LD, 0, 1},
    {"movzx eax, byte [rdx+rcx]", M64, 0, E(0x0F, 0xB6, 0x04, 0x0A), 0, 4, NB, MEM | LD | SIB, 0, 0, 1},
    {"movsx eax, word [rax]", M64, 0, E(0x0F, 0xBF, 0x00), 0, 3, NB, MEM | LD, 0, 0, 2},
    {"movsxd rax, [rdi]", M64, 0, E(0x48, 0x63, 0x07), 0, 3, NB, MEM | LD, 0, 0, 4},
    {"cmovz eax, [rdi]", M64, 0, E(0x0F, 0x44, 0x07), 0, 3, NB, MEM | LD, 0, 0, 4},
    {"setz [rdi]", M64, 0, E(0x0F, 0x94, 0x07), 0, 3, NB, MEM | ST, LD, 0, 1},
    {"nopl [rax+rax+0]", M64, 0, E(0x0F, 0x1F, 0x44, 0x00, 0x00), 0, 5, NB, MEM, LD | ST, 0, -1},
    {"nopw [rax+rax+disp32]", M64, 0, E(0x66, 0x0F, 0x1F, 0x84, 0x00, 0, 0, 0, 0), 0, 9, NB, MEM, LD | ST, 0, -1},
    {"endbr64", M64, 0, E(0xF3, 0x0F, 0x1E, 0xFA), 0, 4, NB, 0, MEM, 0, -1},
    {"mov rax, cr0", M64, 0, E(0x0F, 0x20, 0xC0), 0, 3, NB, 0, MEM, 0, -1},
    {"mov cr: mod 00 rm 101 has no disp", M64, 0, E(0x0F, 0x22, 0x05), 0, 3, NB, 0, MEM | RIP, 0, -1},
    {"palignr (0F 3A, imm8)", M64, 0, E(0x66, 0x0F, 0x3A, 0x0F, 0xC1, 0x08), 0, 6, NB, 0, 0, 0, -1},
    {"pshufb (0F 38)", M64, 0, E(0x66, 0x0F, 0x38, 0x00, 0xC1), 0, 5, NB, 0, 0, 0, -1},
    {"movbe eax,[rdi]", M64, 0, E(0x0F, 0x38, 0xF0, 0x07), 0, 4, NB, MEM | LD, ST, 0, 4},
    {"movbe [rdi],eax", M64, 0, E(0x0F, 0x38, 0xF1, 0x07), 0, 4, NB, MEM | ST, LD, 0, 4},
    {"enter 16, 1", M64, 0, E(0xC8, 0x10, 0x00, 0x01), 0, 4, NB, 0, 0, 0, -1},
    {"bt eax, 5", M64, 0, E(0x0F, 0xBA, 0xE0, 0x05), 0, 4, NB, 0, 0, 0, -1},
    {"3DNow! pfadd", M32, 0, E(0x0F, 0x0F, 0xC1, 0x9E), 0, 4, NB, 0, 0, 0, -1},
    {"pshufw mm, [rax], imm8", M64, 0, E(0x0F, 0x70, 0x00, 0x1B), 0, 4, NB, MEM, LD | ST, 0, -1},
    {"push imm32", M64, 0, E(0x68, 1, 2, 3, 4), 0, 5, NB, 0, 0, 0, -1},
    {"push imm8", M64, 0, E(0x6A, 0x07), 0, 2, NB, 0, 0, 0, -1},
    {"imul eax, [rbx], imm8", M64, 0, E(0x6B, 0x03, 0x07), 0, 3, NB, MEM | LD, ST, 0, 4},
    {"xbegin rel32 (not a branch here)", M64, 0, E(0xC7, 0xF8, 0, 0, 0, 0), 0, 6, NB, 0, REL, 0, -1},
    {"inc eax (40, 32-bit)", M32, 0, E(0x40), 0, 1, NB, 0, 0, 0, -1},
    {"push es (32-bit)", M32, 0, E(0x06), 0, 1, NB, 0, 0, 0, -1},
    {"lds eax,[esi] (C5, mod != 11, 32-bit)", M32, 0, E(0xC5, 0x06), 0, 2, NB, MEM | LD, 0, 0, 6},
    {"les eax,[eax] (C4, mod != 11, 32-bit)", M32, 0, E(0xC4, 0x00), 0, 2, NB, MEM | LD, 0, 0, 6},
    {"bound eax,[esi] (62, mod != 11, 32-bit)", M32, 0, E(0x62, 0x06), 0, 2, NB, MEM | LD, 0, 0, 8},
    {"pop rax via 8F /0", M64, 0, E(0x8F, 0xC0), 0, 2, NB, 0, MEM, 0, -1},
    {"pop [rax] via 8F /0", M64, 0, E(0x8F, 0x00), 0, 2, NB, MEM | ST, LD, 0, 8},
    {"fs: mov eax,[0]", M64, 0, E(0x64, 0x8B, 0x04, 0x25, 0, 0, 0, 0), 0, 8, NB, MEM | LD | SIB, 0, 0, 4},
    /* --- prefixes ----------------------------------------------------------- */
    {"eleven legacy prefixes", M64, 0, E(0x66, 0x67, 0x2E, 0x3E, 0x26, 0x64, 0x65, 0x36, 0xF0, 0xF2, 0xF3, 0x90), 0, 12, NB,
     STEP_I_OPSIZE | STEP_I_ADDRSIZE | STEP_I_LOCK | STEP_I_REP | STEP_I_REPNE, 0, 0, -1},
    {"REX before 66 is ignored", M64, 0, E(0x48, 0x66, 0xB8, 0x34, 0x12), 0, 5, NB, STEP_I_OPSIZE, 0, 0, -1},
    {"66 then REX.W: REX.W wins", M64, 0, E(0x66, 0x48, 0xB8, 1, 2, 3, 4, 5, 6, 7, 8), 0, 11, NB, STEP_I_OPSIZE, 0, 0, -1},
    {"two REX: the last counts", M64, 0, E(0x48, 0x40, 0xB8, 1, 2, 3, 4), 0, 7, NB, 0, 0, 0, -1},
    {"rep movsb", M64, 0, E(0xF3, 0xA4), 0, 2, NB, STEP_I_REP | STEP_I_STRING, MEM, 0, -1},
    {"14 prefixes + opcode = 15 bytes", M64, 0, E(0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x90), 0, 15, NB, 0, 0, 0, -1},
    {"15 prefixes + opcode: too long", M64, 0, E(0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x90), STEP_ERR_TOOLONG, 0, NB, 0, 0, 0, -1},
    {"disp pushes past 15 bytes", M64, 0, E(0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x81, 0x80, 0, 0, 0, 0), STEP_ERR_TOOLONG, 0, NB, 0, 0, 0, -1},
    /* --- truncated ----------------------------------------------------------- */
    {"jnz rel32 truncated", M64, 0, E(0x0F, 0x85, 0x00, 0x00), STEP_ERR_TRUNC, 0, NB, 0, 0, 0, -1},
    {"call truncated after opcode", M64, 0, E(0xE8), STEP_ERR_TRUNC, 0, NB, 0, 0, 0, -1},
    {"lone REX", M64, 0, E(0x48), STEP_ERR_TRUNC, 0, NB, 0, 0, 0, -1},
    {"lone 0F", M64, 0, E(0x0F), STEP_ERR_TRUNC, 0, NB, 0, 0, 0, -1},
    {"0F 38 without opcode", M64, 0, E(0x0F, 0x38), STEP_ERR_TRUNC, 0, NB, 0, 0, 0, -1},
    {"missing SIB", M64, 0, E(0x8B, 0x04), STEP_ERR_TRUNC, 0, NB, 0, 0, 0, -1},
    {"missing disp32 byte", M64, 0, E(0x8B, 0x05, 0, 0, 0), STEP_ERR_TRUNC, 0, NB, 0, 0, 0, -1},
    {"missing imm", M64, 0, E(0xB8, 0, 0, 0), STEP_ERR_TRUNC, 0, NB, 0, 0, 0, -1},
    {"C5 needs its next byte in 32-bit mode", M32, 0, E(0xC5), STEP_ERR_TRUNC, 0, NB, 0, 0, 0, -1},
    /* --- VEX/EVEX/XOP/REX2 ---------------------------------------------------- */
    {"vzeroupper (C5)", M64, 0, E(0xC5, 0xF8, 0x77), STEP_ERR_VEX, 0, NB, 0, 0, 0, -1},
    {"vpbroadcastd (C4)", M64, 0, E(0xC4, 0xE2, 0x79, 0x58, 0x07), STEP_ERR_VEX, 0, NB, 0, 0, 0, -1},
    {"EVEX (62) 64-bit", M64, 0, E(0x62, 0xF1, 0x7C, 0x48, 0x10, 0x07), STEP_ERR_VEX, 0, NB, 0, 0, 0, -1},
    {"VEX (C5, mod 11) 32-bit", M32, 0, E(0xC5, 0xF8, 0x77), STEP_ERR_VEX, 0, NB, 0, 0, 0, -1},
    {"EVEX (62, mod 11) 32-bit", M32, 0, E(0x62, 0xF1, 0x7C, 0x48, 0x10, 0x07), STEP_ERR_VEX, 0, NB, 0, 0, 0, -1},
    {"XOP (8F, reg != 0)", M64, 0, E(0x8F, 0xE8, 0x78, 0xC0, 0xC1, 0x05), STEP_ERR_VEX, 0, NB, 0, 0, 0, -1},
    {"REX2 (D5) 64-bit", M64, 0, E(0xD5, 0x10, 0x8B, 0x07), STEP_ERR_VEX, 0, NB, 0, 0, 0, -1},
    {"VEX after 66 prefix", M64, 0, E(0x66, 0xC5, 0xF9, 0x6F, 0x07), STEP_ERR_VEX, 0, NB, STEP_I_OPSIZE, 0, 0, -1},
    /* --- undefined / invalid in mode ------------------------------------------- */
    {"0F 04", M64, 0, E(0x0F, 0x04), STEP_ERR_UNDEF, 0, NB, 0, 0, 0, -1},
    {"0F 24", M32, 0, E(0x0F, 0x24, 0xC0), STEP_ERR_UNDEF, 0, NB, 0, 0, 0, -1},
    {"0F 3B", M64, 0, E(0x0F, 0x3B), STEP_ERR_UNDEF, 0, NB, 0, 0, 0, -1},
    {"D6", M32, 0, E(0xD6), STEP_ERR_UNDEF, 0, NB, 0, 0, 0, -1},
    {"push es in 64-bit", M64, 0, E(0x06), STEP_ERR_UNDEF, 0, NB, 0, 0, 0, -1},
    {"into in 64-bit", M64, 0, E(0xCE), STEP_ERR_UNDEF, 0, NB, 0, 0, 0, -1},
    {"jmp ptr16:32 in 64-bit", M64, 0, E(0xEA, 0, 0, 0, 0, 0, 0), STEP_ERR_UNDEF, 0, NB, 0, 0, 0, -1},
    {"call ptr16:32 in 64-bit", M64, 0, E(0x9A, 0, 0, 0, 0, 0, 0), STEP_ERR_UNDEF, 0, NB, 0, 0, 0, -1},
    {"FF /3 with a register operand", M64, 0, E(0xFF, 0xD8), STEP_ERR_UNDEF, 0, NB, 0, 0, 0, -1},
    {"FF /5 with a register operand", M32, 0, E(0xFF, 0xE8), STEP_ERR_UNDEF, 0, NB, 0, 0, 0, -1},
    {"lea with a register operand", M64, 0, E(0x8D, 0xC0), STEP_ERR_UNDEF, 0, NB, 0, 0, 0, -1},
};

static void test_table(void)
{
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const struct tc *t = &cases[k];
        struct step_insn in;
        uint64_t ip = t->ip ? t->ip : IP0;
        enum step_err e = step_decode(t->b, t->n, t->mode, ip, &in);
        CHECK_EQ(e, t->err, "%s: return", t->what);
        if ((int)e != t->err || e != STEP_OK) {
            if (e != STEP_OK)
                CHECK_EQ(in.len, 0, "%s: len 0 on error", t->what);
            continue;
        }
        CHECK_EQ(in.len, t->len, "%s: length", t->what);
        CHECK_EQ(in.kind, t->kind, "%s: kind (%s)", t->what, step_br_kind_name(in.kind));
        CHECK_EQ(in.flags & t->set, t->set, "%s: flags set (have 0x%x)", t->what, in.flags);
        CHECK_EQ(in.flags & t->clr, 0, "%s: flags clear (have 0x%x)", t->what, in.flags);
        if (t->set & STEP_I_REL)
            CHECK_EQ(in.target, t->target, "%s: target", t->what);
        if (t->mem_size >= 0)
            CHECK_EQ(in.mem_size, t->mem_size, "%s: memory size", t->what);
        /* Decoding must not depend on bytes beyond the instruction, nor read
         * past avail: with exactly len bytes it decodes the same. */
        struct step_insn in2;
        CHECK_EQ(step_decode(t->b, in.len, t->mode, ip, &in2), STEP_OK, "%s: exact bytes", t->what);
        CHECK_EQ(in2.len, in.len, "%s: exact bytes length", t->what);
        if (in.len > 0) {
            CHECK_EQ(step_decode(t->b, in.len - 1u, t->mode, ip, &in2), STEP_ERR_TRUNC,
                     "%s: one byte short", t->what);
        }
    }
}

/* Spot checks of fields beyond the table's columns. */
static void test_fields(void)
{
    struct step_insn in;
    static const uint8_t a[] = {0x48, 0x66, 0xB8, 0x34, 0x12};
    CHECK_EQ(step_decode(a, sizeof a, M64, 0, &in), STEP_OK, "rex ignored");
    CHECK_EQ(in.rex, 0, "REX before a legacy prefix is dropped");
    CHECK_EQ(in.opsize, 2, "opsize 16");
    CHECK_EQ(in.nprefix, 2, "two prefix bytes");

    static const uint8_t b[] = {0x26, 0x64, 0x8B, 0x00};
    CHECK_EQ(step_decode(b, sizeof b, M32, 0, &in), STEP_OK, "two segment prefixes");
    CHECK_EQ(in.seg, STEP_SEG_FS, "the last segment prefix counts");

    static const uint8_t c[] = {0x0F, 0x85, 0xF4, 0xFF, 0xFF, 0xFF};
    CHECK_EQ(step_decode(c, sizeof c, M64, 0x5000, &in), STEP_OK, "jnz rel32");
    CHECK_EQ(in.rel, -12, "rel sign-extended");
    CHECK_EQ(in.map, 1, "0F map");
    CHECK_EQ(in.opcode, 0x85, "opcode");
    CHECK_EQ(in.ip, 0x5000, "ip recorded");

    static const uint8_t d[] = {0x8B, 0x44, 0x24, 0xF8};
    CHECK_EQ(step_decode(d, sizeof d, M64, 0, &in), STEP_OK, "disp8 negative");
    CHECK_EQ(in.disp, -8, "disp8 sign-extended");
    CHECK_EQ(in.modrm, 0x44, "modrm");
    CHECK_EQ(in.sib, 0x24, "sib");

    static const uint8_t e[] = {0x90};
    CHECK_EQ(step_decode(e, sizeof e, M32, 0x123456789ull, &in), STEP_OK, "ip truncated in 32-bit mode");
    CHECK_EQ(in.ip, 0x23456789u, "ip & 0xFFFFFFFF");

    /* Bad arguments. */
    CHECK_EQ(step_decode(e, 1, 16, 0, &in), STEP_ERR_INVAL, "mode 16 refused");
    CHECK_EQ(step_decode(e, 1, 0, 0, &in), STEP_ERR_INVAL, "mode 0 refused");
    CHECK_EQ(step_decode(NULL, 1, M64, 0, &in), STEP_ERR_NULL, "NULL code");
    CHECK_EQ(step_decode(e, 1, M64, 0, NULL), STEP_ERR_NULL, "NULL out");
    CHECK_EQ(step_decode(e, 0, M64, 0, &in), STEP_ERR_TRUNC, "zero bytes");

    CHECK(step_br_kind_name(STEP_BR_JCC)[0] == 'j', "kind name");
    CHECK(step_br_kind_name(99)[0] == '?', "unknown kind name");
    for (unsigned i = 0; i <= STEP_ERR__COUNT; i++)
        CHECK(step_strerror(i) != NULL && step_strerror(i)[0] != '\0', "strerror %u", i);
}

struct mc {
    const char *what;
    unsigned mode;
    uint64_t ip;
    uint8_t b[16];
    unsigned n;
    struct step_regs r;
    uint64_t want;
};

#define GPR(...) .gpr = {__VA_ARGS__}

static const struct mc mcases[] = {
    {"[rdx+rax*4]", M64, 0, E(0x8B, 0x04, 0x82), {GPR([0] = 3, [2] = 0x1000)}, 0x100C},
    {"[rsp+8]", M64, 0, E(0x03, 0x44, 0x24, 0x08), {GPR([4] = 0x7fff0000)}, 0x7fff0008},
    {"lea [rip+0x10]", M64, 0x400000, E(0x48, 0x8D, 0x0D, 0x10, 0, 0, 0), {GPR(0)}, 0x400017},
    {"rip-relative backwards", M64, 0x400000, E(0x8B, 0x05, 0xF0, 0xFF, 0xFF, 0xFF), {GPR(0)}, 0x400006 - 0x10},
    {"67 eip-relative wraps to 32 bits", M64, 0xFFFFFFF8u, E(0x67, 0x8B, 0x05, 0x10, 0, 0, 0), {GPR(0)}, 0xF},
    {"fs:[0x10]", M64, 0, E(0x64, 0x8B, 0x04, 0x25, 0x10, 0, 0, 0), {GPR(0), .seg_base = {[STEP_SEG_FS] = 0x700000000000ull}}, 0x700000000010ull},
    {"gs:[rax]", M64, 0, E(0x65, 0x8B, 0x00), {GPR([0] = 8), .seg_base = {[STEP_SEG_GS] = 0x100}}, 0x108},
    {"ds: base ignored in 64-bit mode", M64, 0, E(0x3E, 0x8B, 0x00), {GPR([0] = 0x40), .seg_base = {[STEP_SEG_DS] = 0x5000}}, 0x40},
    {"[disp32] sign-extended", M64, 0, E(0x8B, 0x04, 0x25, 0xF0, 0xFF, 0xFF, 0xFF), {GPR(0)}, 0xFFFFFFFFFFFFFFF0ull},
    {"67 [edi] truncates", M64, 0, E(0x67, 0x8B, 0x07), {GPR([7] = 0x123456789ull)}, 0x23456789},
    {"[rax+r12*4]", M64, 0, E(0x42, 0x8B, 0x04, 0xA0), {GPR([0] = 0x100, [12] = 0x10)}, 0x140},
    {"SIB no index no base", M64, 0, E(0x8B, 0x04, 0x65, 0x00, 0x20, 0, 0), {GPR([4] = 0x999, [5] = 0x777)}, 0x2000},
    {"[rax*2+disp32]", M64, 0, E(0x8B, 0x04, 0x45, 0x00, 0x10, 0, 0), {GPR([0] = 0x8, [5] = 0x777)}, 0x1010},
    {"[r13-8]", M64, 0, E(0x41, 0x8B, 0x45, 0xF8), {GPR([13] = 0x2000)}, 0x1FF8},
    {"[r8+r15*8+0x100]", M64, 0, E(0x43, 0x8B, 0x84, 0xF8, 0x00, 0x01, 0, 0), {GPR([8] = 0x1000, [15] = 2)}, 0x1110},
    {"moffs64", M64, 0, E(0xA1, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11), {GPR(0)}, 0x1122334455667788ull},
    {"fs: moffs64", M64, 0, E(0x64, 0xA1, 0x10, 0, 0, 0, 0, 0, 0, 0), {GPR(0), .seg_base = {[STEP_SEG_FS] = 0x1000}}, 0x1010},
    {"call *[rax+8]", M64, 0, E(0xFF, 0x50, 0x08), {GPR([0] = 0x3000)}, 0x3008},
    {"32: [edx+eax*4], upper bits ignored", M32, 0, E(0x8B, 0x04, 0x82), {GPR([0] = 0xdead000000000003ull, [2] = 0xbeef00000001000ull)}, 0x100C},
    {"32: [disp32] absolute", M32, 0x5555, E(0x8B, 0x05, 0x00, 0x10, 0, 0), {GPR(0)}, 0x1000},
    {"32: [disp32] + DS base", M32, 0, E(0x8B, 0x05, 0x00, 0x10, 0, 0), {GPR(0), .seg_base = {[STEP_SEG_DS] = 0x10000}}, 0x11000},
    {"32: [ebp+8] uses SS", M32, 0, E(0x8B, 0x45, 0x08), {GPR([5] = 0x2000), .seg_base = {[STEP_SEG_SS] = 0x100, [STEP_SEG_DS] = 0x9999}}, 0x2108},
    {"32: [esp+4] uses SS", M32, 0, E(0x8B, 0x44, 0x24, 0x04), {GPR([4] = 0x2000), .seg_base = {[STEP_SEG_SS] = 0x100, [STEP_SEG_DS] = 0x9999}}, 0x2104},
    {"32: fs:[eax]", M32, 0, E(0x64, 0x8B, 0x00), {GPR([0] = 0x10), .seg_base = {[STEP_SEG_FS] = 0x2000}}, 0x2010},
    {"32: ds override on [ebp]", M32, 0, E(0x3E, 0x8B, 0x45, 0x00), {GPR([5] = 0x10), .seg_base = {[STEP_SEG_SS] = 0x100, [STEP_SEG_DS] = 0x2000}}, 0x2010},
    {"32: wraps at 4 GiB", M32, 0, E(0x8B, 0x40, 0x10), {GPR([0] = 0xFFFFFFF8u)}, 0x8},
    {"32: segment base wraps at 4 GiB", M32, 0, E(0x8B, 0x00), {GPR([0] = 0x20), .seg_base = {[STEP_SEG_DS] = 0xFFFFFFF0u}}, 0x10},
    {"16: [bx+si]", M32, 0, E(0x67, 0x8B, 0x00), {GPR([3] = 0x10, [6] = 0x20)}, 0x30},
    {"16: [bp-2] wraps, SS", M32, 0, E(0x67, 0x8B, 0x46, 0xFE), {GPR([5] = 0), .seg_base = {[STEP_SEG_SS] = 0x40000}}, 0x4FFFE},
    {"16: [disp16]", M32, 0, E(0x67, 0x8B, 0x06, 0x34, 0x12), {GPR([5] = 0x5555)}, 0x1234},
    {"16: [bx+si-1] wraps", M32, 0, E(0x67, 0x8B, 0x40, 0xFF), {GPR(0)}, 0xFFFF},
    {"16: [bp+di+0x1234]", M32, 0, E(0x67, 0x8B, 0x83, 0x34, 0x12), {GPR([5] = 0x10, [7] = 0x1)}, 0x1245},
    {"16: [si] ignores upper bits", M32, 0, E(0x67, 0x8B, 0x04), {GPR([6] = 0x12340010)}, 0x10},
};

static void test_mem_addr(void)
{
    for (size_t k = 0; k < sizeof mcases / sizeof mcases[0]; k++) {
        const struct mc *t = &mcases[k];
        struct step_insn in;
        uint64_t lin = 0xABCD;
        CHECK_EQ(step_decode(t->b, t->n, t->mode, t->ip, &in), STEP_OK, "%s: decode", t->what);
        CHECK_EQ(step_mem_addr(&in, &t->r, &lin), STEP_OK, "%s: mem_addr", t->what);
        CHECK_EQ(lin, t->want, "%s: linear address", t->what);
    }
    struct step_insn in;
    struct step_regs r = {0};
    uint64_t lin = 0x77;
    static const uint8_t nop[] = {0x90}, movreg[] = {0x89, 0xC0};
    CHECK_EQ(step_decode(nop, 1, M64, 0, &in), STEP_OK, "nop");
    CHECK_EQ(step_mem_addr(&in, &r, &lin), STEP_ERR_NOMEM, "nop has no memory operand");
    CHECK_EQ(lin, 0x77, "output untouched");
    CHECK_EQ(step_decode(movreg, 2, M64, 0, &in), STEP_OK, "mov eax, eax");
    CHECK_EQ(step_mem_addr(&in, &r, &lin), STEP_ERR_NOMEM, "register form has no memory operand");
    CHECK_EQ(step_mem_addr(NULL, &r, &lin), STEP_ERR_NULL, "NULL insn");
    CHECK_EQ(step_mem_addr(&in, NULL, &lin), STEP_ERR_NULL, "NULL regs");
    CHECK_EQ(step_mem_addr(&in, &r, NULL), STEP_ERR_NULL, "NULL out");
    in.flags |= STEP_I_MEM;
    in.mode = 16;
    CHECK_EQ(step_mem_addr(&in, &r, &lin), STEP_ERR_INVAL, "bad mode in insn");
}

static enum step_err feed(unsigned mode, uint64_t ip, uint64_t next, const uint8_t *b, size_t n,
                          const struct step_regs *pre, struct step_event *ev)
{
    struct step_regs before = pre ? *pre : (struct step_regs){0};
    struct step_regs after = before;
    before.ip = ip;
    after.ip = next;
    after.gpr[0] = 0x1111;
    after.gpr[9] = 0x9999;
    after.flags = 0x246;
    return step_feed(&before, &after, mode, 3, b, n, ev);
}

static void test_feed(void)
{
    struct step_event ev;
    static const uint8_t jz_fwd[] = {0x74, 0x10}, jnz_back[] = {0x75, 0xF0};
    const uint32_t br = STEP_EV_RETIRED | STEP_EV_BRANCH | STEP_EV_COND;

    CHECK_EQ(feed(M64, 0x1000, 0x1012, jz_fwd, 2, NULL, &ev), STEP_OK, "jz taken");
    CHECK_EQ(ev.flags, br | STEP_EV_TAKEN | STEP_EV_MISPRED, "forward taken: mispredicted");
    CHECK_EQ(ev.br_from, 0x1000, "from = branch IP");
    CHECK_EQ(ev.br_to, 0x1012, "to = next IP");
    CHECK_EQ(ev.br_kind, STEP_BR_JCC, "kind");
    CHECK_EQ(ev.len, 2, "len");
    CHECK_EQ(ev.cpl, 3, "cpl");
    CHECK_EQ(ev.gpr[0], 0x1111, "registers after");
    CHECK_EQ(ev.gpr[9], 0x9999, "r9 after (64-bit)");
    CHECK_EQ(ev.flags_after, 0x246, "rflags after");

    CHECK_EQ(feed(M64, 0x1000, 0x1002, jz_fwd, 2, NULL, &ev), STEP_OK, "jz not taken");
    CHECK_EQ(ev.flags, br, "forward not taken: predicted");
    CHECK_EQ(ev.br_from | ev.br_to, 0, "no branch record");

    CHECK_EQ(feed(M64, 0x1000, 0x0FF2, jnz_back, 2, NULL, &ev), STEP_OK, "jnz taken");
    CHECK_EQ(ev.flags, br | STEP_EV_TAKEN, "backward taken: predicted");
    CHECK_EQ(feed(M64, 0x1000, 0x1002, jnz_back, 2, NULL, &ev), STEP_OK, "jnz not taken");
    CHECK_EQ(ev.flags, br | STEP_EV_MISPRED, "backward not taken: mispredicted");
    CHECK_EQ(feed(M64, 0x1000, 0x2000, jnz_back, 2, NULL, &ev), STEP_OK, "jnz elsewhere");
    CHECK(ev.flags & STEP_EV_MISMATCH, "taken to a place that is not the target");

    static const uint8_t ret[] = {0xC3}, call[] = {0xE8, 0x10, 0, 0, 0};
    CHECK_EQ(feed(M64, 0x1000, 0x5555, ret, 1, NULL, &ev), STEP_OK, "ret");
    CHECK_EQ(ev.flags, STEP_EV_RETIRED | STEP_EV_BRANCH | STEP_EV_TAKEN, "ret taken, never mispredicted");
    CHECK_EQ(ev.br_to, 0x5555, "ret target");
    CHECK_EQ(feed(M64, 0x1000, 0x1015, call, 5, NULL, &ev), STEP_OK, "call");
    CHECK_EQ(ev.flags, STEP_EV_RETIRED | STEP_EV_BRANCH | STEP_EV_TAKEN, "call taken");
    CHECK_EQ(feed(M64, 0x1000, 0x1005, call, 5, NULL, &ev), STEP_OK, "call to the wrong place");
    CHECK(ev.flags & STEP_EV_MISMATCH, "call mismatch");

    static const uint8_t add[] = {0x03, 0x44, 0x24, 0x08};
    struct step_regs pre = {0};
    pre.gpr[STEP_R_SP] = 0x7000;
    CHECK_EQ(feed(M64, 0x1000, 0x1004, add, 4, &pre, &ev), STEP_OK, "load");
    CHECK_EQ(ev.flags, STEP_EV_RETIRED | STEP_EV_LOAD, "plain load");
    CHECK_EQ(ev.load_addr, 0x7008, "load address from the registers before");
    CHECK_EQ(ev.load_size, 4, "load size");
    CHECK_EQ(feed(M64, 0x1000, 0x2000, add, 4, &pre, &ev), STEP_OK, "non-branch jumps");
    CHECK(ev.flags & STEP_EV_MISMATCH, "non-branch landing elsewhere is flagged");

    static const uint8_t addm[] = {0x01, 0x03}; /* add [rbx], eax */
    pre.gpr[STEP_R_BX] = 0x4440;
    CHECK_EQ(feed(M64, 0x1000, 0x1002, addm, 2, &pre, &ev), STEP_OK, "rmw");
    CHECK_EQ(ev.flags, STEP_EV_RETIRED | STEP_EV_LOAD | STEP_EV_STORE, "rmw: load and store");
    CHECK_EQ(ev.store_addr, 0x4440, "store address");

    static const uint8_t rep[] = {0xF3, 0xA4};
    CHECK_EQ(feed(M64, 0x1000, 0x1000, rep, 2, NULL, &ev), STEP_OK, "rep iteration");
    CHECK_EQ(ev.flags, STEP_EV_REP_ITER, "rep iteration does not retire");
    CHECK_EQ(feed(M64, 0x1000, 0x1002, rep, 2, NULL, &ev), STEP_OK, "rep done");
    CHECK_EQ(ev.flags, STEP_EV_RETIRED, "last rep iteration retires");

    static const uint8_t vex[] = {0xC5, 0xF8, 0x77}, ud[] = {0x0F, 0x04}, jcc_short[] = {0x0F, 0x85};
    CHECK_EQ(feed(M64, 0x1000, 0x1003, vex, 3, NULL, &ev), STEP_OK, "vex");
    CHECK_EQ(ev.flags, STEP_EV_RETIRED | STEP_EV_UNDECODED | STEP_EV_VEX, "vex: undecoded non-branch");
    CHECK_EQ(ev.next_ip, 0x1003, "vex next ip kept");
    CHECK_EQ(feed(M64, 0x1000, 0x1002, ud, 2, NULL, &ev), STEP_ERR_UNDEF, "undefined");
    CHECK_EQ(ev.flags, STEP_EV_RETIRED | STEP_EV_UNDECODED, "undefined described");
    CHECK_EQ(feed(M64, 0x1000, 0x1006, jcc_short, 2, NULL, &ev), STEP_ERR_TRUNC, "truncated");
    CHECK(ev.flags & STEP_EV_UNDECODED, "truncated: undecoded");

    /* 32-bit mode: IPs and registers masked, R8..R15 absent. */
    struct step_regs b32 = {0}, a32 = {0};
    b32.ip = 0xAB00001000ull;
    a32.ip = 0xAB00001012ull;
    a32.gpr[0] = 0xFFFFFFFF00000005ull;
    a32.gpr[8] = 7;
    CHECK_EQ(step_feed(&b32, &a32, M32, 0, jz_fwd, 2, &ev), STEP_OK, "32-bit jz");
    CHECK_EQ(ev.ip, 0x1000, "ip masked");
    CHECK_EQ(ev.br_to, 0x1012, "to masked");
    CHECK_EQ(ev.gpr[0], 5, "eax masked");
    CHECK_EQ(ev.gpr[8], 0, "no r8 in 32-bit mode");
    CHECK_EQ(ev.mode, M32, "mode");
    CHECK_EQ(ev.cpl, 0, "cpl 0");

    /* Bad arguments. */
    CHECK_EQ(step_feed(&b32, &a32, M32, 4, jz_fwd, 2, &ev), STEP_ERR_INVAL, "cpl 4");
    CHECK_EQ(step_feed(&b32, &a32, 16, 0, jz_fwd, 2, &ev), STEP_ERR_INVAL, "mode 16");
    CHECK_EQ(step_feed(NULL, &a32, M32, 0, jz_fwd, 2, &ev), STEP_ERR_NULL, "NULL before");
    CHECK_EQ(step_feed(&b32, NULL, M32, 0, jz_fwd, 2, &ev), STEP_ERR_NULL, "NULL after");
    CHECK_EQ(step_feed(&b32, &a32, M32, 0, NULL, 2, &ev), STEP_ERR_NULL, "NULL code");
    CHECK_EQ(step_feed(&b32, &a32, M32, 0, jz_fwd, 2, NULL), STEP_ERR_NULL, "NULL out");
}


/* Random bytes (fixed seed, printed): the decoder never reads past avail
 * (ASan), never reports a length beyond 15 or beyond avail, decodes the same
 * with exactly len bytes, and step_mem_addr/step_feed accept whatever it
 * produced. */
static void test_random(void)
{
    uint64_t x = 0x9E3779B97F4A7C15ull;
    unsigned long bad = 0, ok = 0;
    printf("# random decode seed 0x%llx\n", (unsigned long long)x);
    for (unsigned it = 0; it < 200000; it++) {
        uint8_t b[16];
        for (unsigned i = 0; i < sizeof b; i++) {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            b[i] = (uint8_t)x;
        }
        unsigned mode = (it & 1) ? M64 : M32;
        size_t avail = 1 + (size_t)((x >> 40) % 16);
        uint8_t *heap = malloc(avail); /* exact size: ASan catches over-reads */
        memcpy(heap, b, avail);
        struct step_insn in, in2;
        enum step_err e = step_decode(heap, avail, mode, x, &in);
        if (e == STEP_OK) {
            ok++;
            if (in.len == 0 || in.len > avail || in.len > STEP_INSN_MAX || in.nprefix >= in.len)
                bad++;
            if (step_decode(heap, in.len, mode, x, &in2) != STEP_OK || in2.len != in.len ||
                in2.kind != in.kind || in2.flags != in.flags || in2.target != in.target)
                bad++;
            struct step_regs r = {0};
            uint64_t lin;
            enum step_err me = step_mem_addr(&in, &r, &lin);
            if ((me == STEP_OK) != ((in.flags & STEP_I_MEM) != 0))
                bad++;
            struct step_event ev;
            struct step_regs a = r;
            a.ip = in.ip + in.len;
            r.ip = in.ip;
            if (step_feed(&r, &a, mode, 0, heap, avail, &ev) != STEP_OK)
                bad++;
        } else if (e != STEP_ERR_TRUNC && e != STEP_ERR_TOOLONG && e != STEP_ERR_VEX && e != STEP_ERR_UNDEF) {
            bad++;
        } else if (in.len != 0) {
            bad++;
        }
        free(heap);
    }
    CHECK_EQ(bad, 0, "random decode invariants");
    CHECK(ok > 100000, "most random byte strings decode (%lu)", ok);
}

int main(void)
{
    test_table();
    test_random();
    test_fields();
    test_mem_addr();
    test_feed();
    return check_summary();
}

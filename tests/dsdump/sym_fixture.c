/* SPDX-License-Identifier: BSD-2-Clause */
/* Known functions for dsdump's symbolization test (linked as ELF32 and ELF64). */
__attribute__((noinline)) int func_hot(int x) { int s = 0; for (int i = 0; i < x; i++) s += i * x; return s; }
__attribute__((noinline)) int func_cold(int x) { return func_hot(x) + 1; }
__attribute__((noinline)) int func_mid(int x) { return func_cold(x) * 3 + func_hot(x - 1); }
void _start(void) { for (;;) func_mid(7); }

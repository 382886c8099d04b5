/* SPDX-License-Identifier: BSD-2-Clause */
/* <stdint.h> for libds compiled inside the Linux kernel (kbuild uses
 * -nostdinc): the fixed-width types come from <linux/types.h>. */
#ifndef LDK_STDINT_H
#define LDK_STDINT_H
#include <linux/types.h>
#include <linux/limits.h>
#define UINT8_MAX U8_MAX
#define UINT16_MAX U16_MAX
#define UINT32_MAX U32_MAX
#define UINT64_MAX U64_MAX
#define INT32_MAX S32_MAX
#define INT64_MAX S64_MAX
#define UINTPTR_MAX ULONG_MAX
#define UINT64_C(c) c##ULL
#define UINT32_C(c) c##U
#define INT64_C(c) c##LL
#endif

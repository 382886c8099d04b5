/* SPDX-License-Identifier: BSD-2-Clause */
/* <stddef.h> for libds inside the Linux kernel: size_t, NULL, offsetof. */
#ifndef LDK_STDDEF_H
#define LDK_STDDEF_H
#include <linux/types.h>
#include <linux/stddef.h>
#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/* <string.h> for the model inside the Linux kernel: memcpy/memset/memcmp/strcmp are the kernel's. */
#ifndef LDK_STRING_H
#define LDK_STRING_H
#include <linux/string.h>
#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/* <stdbool.h> for libds inside the Linux kernel: bool/true/false are the kernel's. */
#ifndef LDK_STDBOOL_H
#define LDK_STDBOOL_H
#include <linux/types.h>
#include <linux/stddef.h>
#endif

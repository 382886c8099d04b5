/* SPDX-License-Identifier: BSD-2-Clause */
/* <stdarg.h> for libds inside the Linux kernel (5.15+ has <linux/stdarg.h>). */
#ifndef LDK_STDARG_H
#define LDK_STDARG_H
#include <linux/stdarg.h>
#endif

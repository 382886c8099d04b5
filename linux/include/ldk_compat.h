/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Forced first (after the kernel's own -include files) into libds's and the
 * model's objects only (linux/Kbuild). The kernel defines `noinline` as a
 * macro (include/linux/compiler_attributes.h), which breaks the GCC
 * attribute spelling __attribute__((noinline)) that libds uses; libds's
 * sources are compiled as they are, so the macro is dropped for them.
 */
#undef noinline

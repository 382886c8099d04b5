/* SPDX-License-Identifier: BSD-2-Clause */
/* Minimal host test reporting: one line per check, summary "N passed, N failed". */
#ifndef TEST_CHECK_H
#define TEST_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

static int check_passed, check_failed;

#define CHECK(cond, ...)                                                          \
    do {                                                                          \
        if (cond) {                                                               \
            check_passed++;                                                       \
        } else {                                                                  \
            check_failed++;                                                       \
            printf("not ok %d - %s:%d: ", check_passed + check_failed, __FILE__, __LINE__); \
            printf(__VA_ARGS__);                                                  \
            printf("  [%s]\n", #cond);                                            \
        }                                                                         \
    } while (0)

#define CHECK_EQ(a, b, ...)                                                                   \
    do {                                                                                      \
        unsigned long long _a = (unsigned long long)(a), _b = (unsigned long long)(b);        \
        CHECK(_a == _b, __VA_ARGS__);                                                         \
        if (_a != _b)                                                                         \
            printf("    got 0x%llx, want 0x%llx\n", _a, _b);                                  \
    } while (0)

static inline int check_summary(void)
{
    printf("%d passed, %d failed\n", check_passed, check_failed);
    return check_failed ? 1 : 0;
}

#endif

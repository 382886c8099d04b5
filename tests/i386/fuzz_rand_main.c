/* SPDX-License-Identifier: BSD-2-Clause */
/* Random-input driver for tests/fuzz/fuzz_drain.c where libFuzzer is not available (i386): fixed seed, N inputs. */
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int main(int argc, char **argv)
{
    unsigned long n = argc > 1 ? strtoul(argv[1], 0, 0) : 200000;
    static uint8_t buf[4096];
    srand(12345);
    for (unsigned long i = 0; i < n; i++) {
        size_t len = (size_t)(rand() % (int)sizeof(buf));
        for (size_t j = 0; j < len; j++)
            buf[j] = (uint8_t)(rand() >> 7);
        LLVMFuzzerTestOneInput(buf, len);
    }
    printf("%lu inputs\n", n);
    return 0;
}

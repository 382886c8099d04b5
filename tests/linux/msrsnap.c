// SPDX-License-Identifier: BSD-2-Clause
/*
 * msrsnap: print the perfmon / DS / LBR MSRs of every CPU as Linux's msr
 * driver reads them (/dev/cpu/N/msr, pread at the MSR number), one line
 * "cpuN 0xMSR 0xVALUE" or "cpuN 0xMSR fault". Built static for the
 * linux.qemu initramfs; run before loading libds.ko and after unloading
 * it, and the two outputs must be equal (docs/design.md "On Linux").
 * The list is the SDM's (Vol. 4), not libds's: DEBUGCTL, DS_AREA, PEBS
 * enables and configuration, the global and fixed controls, EVTSEL0-7,
 * LBR_SELECT / TOS, Arch LBR CTL, arch-PEBS base / index, CFG_C of GP0-1,
 * NetBurst IQ_CCCR4/5 and CRU_ESCR2/3, MISC_ENABLE.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

static const uint32_t msrs[] = {
    0x1D9, 0x600, 0x3F1, 0x3F2, 0x3F6, 0x3F7, 0x38D, 0x38F, 0x186, 0x187, 0x188, 0x189, 0x18A, 0x18B,
    0x18C, 0x18D, 0x1C8, 0x1C9, 0x14CE, 0x3F4, 0x3F5, 0x1903, 0x1907, 0x370, 0x371, 0x3B2, 0x3B3, 0x1A0,
};

int main(void)
{
    int any = 0;
    for (int cpu = 0; cpu < 256; cpu++) {
        char path[64];
        snprintf(path, sizeof path, "/dev/cpu/%d/msr", cpu);
        int fd = open(path, O_RDONLY);
        if (fd < 0)
            continue;
        any = 1;
        for (unsigned i = 0; i < sizeof msrs / sizeof msrs[0]; i++) {
            uint64_t v;
            if (pread(fd, &v, sizeof v, msrs[i]) == (ssize_t)sizeof v)
                printf("cpu%d 0x%x 0x%llx\n", cpu, msrs[i], (unsigned long long)v);
            else
                printf("cpu%d 0x%x fault\n", cpu, msrs[i]);
        }
        close(fd);
    }
    if (!any) {
        fprintf(stderr, "msrsnap: no /dev/cpu/N/msr (load the msr module)\n");
        return 1;
    }
    return 0;
}

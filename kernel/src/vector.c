/* SPDX-License-Identifier: BSD-2-Clause */
/* Exception vector names. See k/vector.h. */
#include <k/vector.h>

static const char *const names[32] = {
    "#DE divide error", "#DB debug", "NMI", "#BP breakpoint", "#OF overflow",
    "#BR bound range", "#UD invalid opcode", "#NM device not available",
    "#DF double fault", "coprocessor segment overrun", "#TS invalid TSS",
    "#NP segment not present", "#SS stack fault", "#GP general protection",
    "#PF page fault", "reserved 15", "#MF x87 error", "#AC alignment check",
    "#MC machine check", "#XM SIMD exception", "#VE virtualization", "#CP control protection",
    "reserved 22", "reserved 23", "reserved 24", "reserved 25", "reserved 26",
    "reserved 27", "#HV hypervisor injection", "#VC VMM communication", "#SX security",
    "reserved 31",
};

const char *k_trap_name(unsigned vector)
{
    return vector < 32 ? names[vector] : "IRQ";
}

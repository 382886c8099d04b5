/* SPDX-License-Identifier: BSD-2-Clause */
/* Spin lock. See k/spin.h. */
#include <k/spin.h>
#include <k/percpu.h>

bool k_spin_lock(struct k_spin *l)
{
    int me = (int)k_smp_self() + 1;
    if (__atomic_load_n(&l->owner, __ATOMIC_ACQUIRE) == me)
        return false; /* this CPU holds it: an NMI on top of the holder */
    int free = 0;
    while (!__atomic_compare_exchange_n(&l->owner, &free, me, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
        free = 0;
        __asm__ volatile("pause" ::: "memory");
    }
    return true;
}

void k_spin_unlock(struct k_spin *l, bool taken)
{
    if (taken)
        __atomic_store_n(&l->owner, 0, __ATOMIC_RELEASE);
}

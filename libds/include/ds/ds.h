/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libds umbrella header: includes every facility header.
 *
 * Contract conventions. Every public function's comment in these headers
 * states, in this order: what it does and its preconditions; every error
 * it returns (an `int` holding an enum ds_err: DS_OK is 0, errors are
 * positive; "Errors:" lists them, checked in the order given where that
 * matters); and a closing line of the form
 *   MSRs: reads IA32_PERF_GLOBAL_STATUS (0x38E); writes none. NMI-safe: yes.
 * naming every MSR it may read or write by SDM name and address, or "none"
 * (memory only, or pure). CPUID executed is named there too. MSR accesses
 * go through the cpu's backend (msr.h): "NMI-safe: yes" assumes the backend
 * is, and "NMI-safe: no, because ..." gives the reason (usually: it
 * rewrites state an NMI-time call reads, or it is a non-atomic
 * read-modify-write of a register the PMI handler also writes).
 * Rules that hold for every function and are not repeated per function:
 *  - a NULL pointer argument that the function needs gives DS_ERR_NULL
 *    and nothing is written;
 *  - a function whose facility is compiled out (ds/config.h: DS_CONFIG_*
 *    = 0) keeps its signature, touches no MSR and returns
 *    DS_ERR_UNSUPPORTED, zeroing the outputs it can (value-returning ones
 *    return 0 / NULL); where only part of a facility is compiled out (e.g.
 *    NetBurst layouts) the comment says so;
 *  - on an error, output parameters may have been cleared (zero, or an
 *    empty sample/string) but nothing else the caller owns has changed,
 *    unless the comment says what remains written (MSR faults in the
 *    middle of a write sequence, partial results);
 *  - a backend fault is always reported as DS_ERR_MSR_FAULT, never as the
 *    backend's own value;
 *  - no function allocates, takes a lock or loops without a bound.
 */
#ifndef DS_DS_H
#define DS_DS_H

#define DS_VERSION_MAJOR 0
#define DS_VERSION_MINOR 1
#define DS_VERSION_PATCH 0
#define DS_VERSION_STRING "0.1.0"

#include <ds/config.h>
#include <ds/err.h>
#include <ds/msr.h>
#include <ds/cpu.h>
#include <ds/probe.h>
#include <ds/area.h>
#include <ds/pebs.h>
#include <ds/bts.h>
#include <ds/pmi.h>
#include <ds/pmc.h>
#include <ds/netburst.h>
#include <ds/lbr.h>
#include <ds/arch_pebs.h>
#include <ds/event.h>
#include <ds/session.h>
#include <ds/lvt.h>

#endif /* DS_DS_H */

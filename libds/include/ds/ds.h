/* SPDX-License-Identifier: BSD-2-Clause */
/* libds umbrella header: includes every facility header. */
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

#endif /* DS_DS_H */

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libds build configuration: the options an embedding kernel may set.
 *
 * The defaults below need no editing: everything is compiled in, assertions
 * are off. To change an option, do ONE of:
 *
 *   - define it on the compiler command line for the libds sources AND for
 *     the kernel files that include <ds/...> (they must agree):
 *         -DDS_CONFIG_NETBURST=0
 *     (CMake: set LIBDS_CONFIG_DEFINITIONS "DS_CONFIG_NETBURST=0" before
 *     add_subdirectory(libds); it is then propagated to users of libds::ds);
 *   - or write your own header and name it with
 *         -DDS_CONFIG_HEADER='"my_ds_config.h"'
 *     it is included first, before any default here is applied.
 *
 * Each option is 0 (off) or 1 (on); any other value is a compile error.
 * Turning a facility off removes its code (the source file compiles to
 * nothing) and its functions from the headers; it never changes a layout,
 * an error code's value or the behaviour of what remains.
 *
 * Status (libds 0.1): every option is defined and checked here. Acting
 * today: DS_CONFIG_FORMAT (ds_caps_format) and DS_CONFIG_ASSERT (DS_ASSERT).
 * The facility options (AREA, BTS, PEBS, PMI, PMC, LBR, NETBURST,
 * NETBURST_TABLES) are not yet wired into the facility sources, which were
 * written in parallel: until they are, setting one to 0 removes nothing.
 * docs/porting.md "Configuration" keeps the current list.
 *
 * This header includes nothing and may be included from any libds header.
 */
#ifndef DS_CONFIG_H
#define DS_CONFIG_H

#ifdef DS_CONFIG_HEADER
#include DS_CONFIG_HEADER
#endif

/* --- Facilities ------------------------------------------------------------ */

/* DS save area setup/install (area.h). Needed by BTS and PEBS. */
#ifndef DS_CONFIG_AREA
#define DS_CONFIG_AREA 1
#endif

/* Branch Trace Store buffers and drain (bts.h). Requires DS_CONFIG_AREA. */
#ifndef DS_CONFIG_BTS
#define DS_CONFIG_BTS 1
#endif

/* PEBS buffers, record formats and decoding (pebs.h). Requires DS_CONFIG_AREA. */
#ifndef DS_CONFIG_PEBS
#define DS_CONFIG_PEBS 1
#endif

/* PMI helpers: status decoding, acknowledge, shared DS ISR (pmi.h). */
#ifndef DS_CONFIG_PMI
#define DS_CONFIG_PMI 1
#endif

/* Architectural / Core counters, fixed counters (pmc.h). */
#ifndef DS_CONFIG_PMC
#define DS_CONFIG_PMC 1
#endif

/* Last Branch Record stacks (lbr.h). */
#ifndef DS_CONFIG_LBR
#define DS_CONFIG_LBR 1
#endif

/*
 * NetBurst (family 0FH: Pentium 4, Xeon, Pentium D) support: ESCR/CCCR
 * programming, DEBUGCTLA, the 40/144-byte PEBS records (netburst.h).
 * With 0, a NetBurst CPU is identified as such and every NetBurst-only
 * operation returns DS_ERR_UNSUPPORTED.
 */
#ifndef DS_CONFIG_NETBURST
#define DS_CONFIG_NETBURST 1
#endif

/*
 * NetBurst event tables (ESCR select values, counter bindings, event
 * names): the largest read-only data in libds. With 0 the caller supplies
 * raw ESCR/CCCR values and the by-name lookups return DS_ERR_UNSUPPORTED.
 * Ignored (forced off) when DS_CONFIG_NETBURST is 0.
 */
#ifndef DS_CONFIG_NETBURST_TABLES
#define DS_CONFIG_NETBURST_TABLES DS_CONFIG_NETBURST
#endif

/*
 * Text renderers (ds_caps_format and the record/sample formatters). With 0
 * they are still declared and return DS_ERR_UNSUPPORTED after writing an
 * empty string, so a kernel without a console loses no code size to them.
 */
#ifndef DS_CONFIG_FORMAT
#define DS_CONFIG_FORMAT 1
#endif

/* --- Assertions -------------------------------------------------------------- */

/*
 * Internal consistency assertions (invariants libds itself maintains, never
 * argument checks: bad arguments always return an error code, whatever this
 * option says). 0: compiled out. 1: a failed assertion calls
 * DS_CONFIG_ASSERT_FAIL(expr, file, line), which must not return.
 */
#ifndef DS_CONFIG_ASSERT
#define DS_CONFIG_ASSERT 0
#endif

/*
 * What a failed assertion does. Default: execute UD2 (__builtin_trap()),
 * which the kernel sees as #UD at the failing instruction. A kernel may
 * define it to call its own panic function, e.g.
 *     -DDS_CONFIG_ASSERT_FAIL(e,f,l)=my_panic(e,f,l)
 * That function runs in whatever context libds was called from (possibly
 * an NMI handler).
 */
#ifndef DS_CONFIG_ASSERT_FAIL
#define DS_CONFIG_ASSERT_FAIL(expr, file, line) __builtin_trap()
#endif

#if DS_CONFIG_ASSERT
#define DS_ASSERT(cond) \
    ((cond) ? (void)0 : (void)(DS_CONFIG_ASSERT_FAIL(#cond, __FILE__, __LINE__)))
#else
/* Not evaluated; still type-checked, and its variables count as used. */
#define DS_ASSERT(cond) ((void)sizeof((cond) ? 1 : 0))
#endif

/* --- Consistency checks -------------------------------------------------------- */

#define DS__CONFIG_BOOL(x) ((x) == 0 || (x) == 1)
#if !DS__CONFIG_BOOL(DS_CONFIG_AREA) || !DS__CONFIG_BOOL(DS_CONFIG_BTS) || \
    !DS__CONFIG_BOOL(DS_CONFIG_PEBS) || !DS__CONFIG_BOOL(DS_CONFIG_PMI) || \
    !DS__CONFIG_BOOL(DS_CONFIG_PMC) || !DS__CONFIG_BOOL(DS_CONFIG_LBR) || \
    !DS__CONFIG_BOOL(DS_CONFIG_NETBURST) || !DS__CONFIG_BOOL(DS_CONFIG_NETBURST_TABLES) || \
    !DS__CONFIG_BOOL(DS_CONFIG_FORMAT) || !DS__CONFIG_BOOL(DS_CONFIG_ASSERT)
#error "libds: every DS_CONFIG_* option must be 0 or 1 (see ds/config.h)"
#endif
#if (DS_CONFIG_BTS || DS_CONFIG_PEBS) && !DS_CONFIG_AREA
#error "libds: DS_CONFIG_BTS and DS_CONFIG_PEBS need DS_CONFIG_AREA=1"
#endif
#if DS_CONFIG_NETBURST_TABLES && !DS_CONFIG_NETBURST
#error "libds: DS_CONFIG_NETBURST_TABLES=1 needs DS_CONFIG_NETBURST=1"
#endif

#endif /* DS_CONFIG_H */

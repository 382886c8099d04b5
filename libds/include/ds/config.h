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
 * Turning a facility off compiles out its code and its read-only tables;
 * every public function stays declared and linkable (a kernel that calls it
 * still links) and returns DS_ERR_UNSUPPORTED after clearing its outputs
 * (out-pointers zeroed, text buffers emptied); the few functions without an
 * error return answer as for unusable input (ds_bts_debugctl_bits 0,
 * ds_pebs_record_size 0, ds_pmi_ack_mask 0, table getters NULL with count
 * 0). Turning an option off never changes a layout, a structure, an error
 * code's value or the contract of any function left in. Core files (err.c, cpu.c:
 * identification and MSR/CPUID dispatch) have no optional part; ds_linear_canonical and
 * ds_probe_verdict_name stay in every configuration.
 *
 * Measured (tests/config, ctest config.*; gcc 12 -O2, libds_i386.a /
 * libds_x86_64.a flags, `size` text+data with .rodata): defaults 64188 /
 * 54757 bytes. Saved by one option alone (i386 / x86_64):
 *   FORMAT=0 4204 / 3806, NETBURST_TABLES=0 9637 / 10633,
 *   NETBURST=0 13442 / 13394, LBR=0 6677 / 6132, PMC=0 6089 / 3384,
 *   PMI=0 3923 / 2993, PEBS=0 9083 / 5716, BTS=0 4198 / 3281,
 *   AREA=0 (with BTS=0 PEBS=0) 19113 / 12333.
 * Only AREA+BTS+PMI: 27558 / 24005 bytes; everything off: 14427 / 15019.
 * docs/porting.md "Configuration" has the same table.
 *
 * This header includes nothing and may be included from any libds header.
 */
#ifndef DS_CONFIG_H
#define DS_CONFIG_H

#ifdef DS_CONFIG_HEADER
#include DS_CONFIG_HEADER
#endif

/* --- Facilities ------------------------------------------------------------ */

/*
 * DS save area setup/install (area.h). Needed by BTS and PEBS. With 0:
 * ds_area_layout/setup/set_reset/install/uninstall return
 * DS_ERR_UNSUPPORTED (setup zeroes the context: never set up), so nothing
 * can hold a DS buffer; ds_probe still tests IA32_DS_AREA (an MSR
 * write/read-back, no area code) and reports BTS "not tested".
 */
#ifndef DS_CONFIG_AREA
#define DS_CONFIG_AREA 1
#endif

/*
 * Branch Trace Store (bts.h) and its drain. Requires DS_CONFIG_AREA. With 0:
 * every bts.h function returns DS_ERR_UNSUPPORTED (ds_bts_debugctl_bits 0),
 * ds_area_setup refuses a BTS buffer with DS_ERR_UNSUPPORTED, the PMI
 * handler has no BTS path and ds_probe reports BTS "not tested".
 */
#ifndef DS_CONFIG_BTS
#define DS_CONFIG_BTS 1
#endif

/*
 * PEBS (pebs.h): format choice, record sizes, decoder, drain. Requires
 * DS_CONFIG_AREA. With 0: every pebs.h function returns DS_ERR_UNSUPPORTED
 * (ds_pebs_record_size 0), ds_area_setup refuses a PEBS buffer and
 * ds_area_set_reset returns DS_ERR_UNSUPPORTED, the PMI handler has no
 * PEBS path, and the PEBS enables of pmc.h (ds_pmc_pebs_*,
 * ds_pmc_core2_pebs_event) return DS_ERR_UNSUPPORTED.
 */
#ifndef DS_CONFIG_PEBS
#define DS_CONFIG_PEBS 1
#endif

/*
 * PMI helpers (pmi.h): status decoding, acknowledge, freeze, the shared DS
 * ISR. With 0 every pmi.h function returns DS_ERR_UNSUPPORTED
 * (ds_pmi_ack_mask 0; ds_pmi_handle clears its result, so handled = false).
 * The drains stay callable from the kernel's own handler.
 */
#ifndef DS_CONFIG_PMI
#define DS_CONFIG_PMI 1
#endif

/*
 * Architectural / Core counters, fixed counters, PEBS enables (pmc.h).
 * With 0 every pmc.h function returns DS_ERR_UNSUPPORTED. NetBurst does
 * not depend on it (ds_nb_period has its own copy of the arithmetic).
 */
#ifndef DS_CONFIG_PMC
#define DS_CONFIG_PMC 1
#endif

/*
 * Last Branch Record stacks (lbr.h): the model table, decoder, enable and
 * reader. With 0 every lbr.h function returns DS_ERR_UNSUPPORTED
 * (ds_lbr_models NULL, count 0).
 */
#ifndef DS_CONFIG_LBR
#define DS_CONFIG_LBR 1
#endif

/*
 * NetBurst (family 0FH: Pentium 4, Xeon, Pentium D) support: ESCR/CCCR
 * programming, DEBUGCTLA, the 40/144-byte PEBS records (netburst.h).
 * With 0, a NetBurst CPU is still identified as such (caps.netburst) and
 * every NetBurst-only operation returns DS_ERR_UNSUPPORTED: all of
 * netburst.h; BTS enable/disable on NetBurst (MSR_DEBUGCTLA); the NetBurst
 * PEBS formats (ds_pebs_format_select on NetBurst, so ds_area_setup with a
 * PEBS buffer there; decode/attribute of DS_PEBS_FMT_NB32/NB64, record size
 * 0); the NetBurst LBR rows (ds_lbr_lookup for family 0FH, and every
 * lbr.h call with a DS_LBR_F_NETBURST model); ds_probe's NetBurst counter
 * and BTS items are "not tested". A DS area with a BTS buffer can still be
 * set up on NetBurst (the area itself is not NetBurst-specific).
 */
#ifndef DS_CONFIG_NETBURST
#define DS_CONFIG_NETBURST 1
#endif

/*
 * NetBurst event tables: the counter, ESCR (select values, counter
 * bindings) and event/mask tables with their names, the largest read-only
 * data in libds. With 0: ds_nb_counters/escrs/events return NULL (count 0);
 * ds_nb_event_find, ds_nb_escr_find, ds_nb_mask_parse and the allocator
 * (ds_nb_alloc_init, ds_nb_assign, ds_nb_program, ds_nb_release: it chooses
 * from the tables) return DS_ERR_UNSUPPORTED. What remains: raw programming
 * with caller-supplied ESCR/CCCR values (ds_nb_program_raw,
 * ds_nb_release_raw, which check addresses and reserved bits but not the
 * ESCR/counter binding), ds_nb_period, the PMI scan and re-arm, and replay
 * tagging with its small metric table (ds_nb_metric_info, ds_nb_replay_tag:
 * NetBurst PEBS needs it). Defaults to DS_CONFIG_NETBURST; setting it to 1
 * with DS_CONFIG_NETBURST=0 is a compile error.
 */
#ifndef DS_CONFIG_NETBURST_TABLES
#define DS_CONFIG_NETBURST_TABLES DS_CONFIG_NETBURST
#endif

/*
 * Text renderers: ds_caps_format and ds_probe_format, and the text builder
 * behind them (fmt.c). With 0 both are still declared and return
 * DS_ERR_UNSUPPORTED after writing an empty string (when len > 0), so a
 * kernel without a console loses no code size to them. (libds has no
 * other renderer; the record printers are in the host tools.)
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

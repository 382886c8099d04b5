# SPDX-License-Identifier: BSD-2-Clause
# Plain source list for embedders (Make, Meson, CMake): compile these with your
# kernel's flags plus -ffreestanding -mno-red-zone -mgeneral-regs-only, and add
# LIBDS_INCLUDE_DIR to the include path. No other file is needed.
set(LIBDS_INCLUDE_DIR ${CMAKE_CURRENT_LIST_DIR}/include)
set(LIBDS_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/src/err.c
  ${CMAKE_CURRENT_LIST_DIR}/src/fmt.c
  ${CMAKE_CURRENT_LIST_DIR}/src/cpu.c
  ${CMAKE_CURRENT_LIST_DIR}/src/pmc.c
  ${CMAKE_CURRENT_LIST_DIR}/src/pmc_pebs.c
  ${CMAKE_CURRENT_LIST_DIR}/src/netburst.c
  ${CMAKE_CURRENT_LIST_DIR}/src/lbr.c
  ${CMAKE_CURRENT_LIST_DIR}/src/area.c
  ${CMAKE_CURRENT_LIST_DIR}/src/area_setup.c
  ${CMAKE_CURRENT_LIST_DIR}/src/drain.c
  ${CMAKE_CURRENT_LIST_DIR}/src/pebs.c
  ${CMAKE_CURRENT_LIST_DIR}/src/pebs_fixed.c
  ${CMAKE_CURRENT_LIST_DIR}/src/pebs_adaptive.c
  ${CMAKE_CURRENT_LIST_DIR}/src/bts.c
  ${CMAKE_CURRENT_LIST_DIR}/src/pmi.c
  ${CMAKE_CURRENT_LIST_DIR}/src/probe.c
  ${CMAKE_CURRENT_LIST_DIR}/src/arch_pebs.c
  ${CMAKE_CURRENT_LIST_DIR}/src/arch_pebs_setup.c
  ${CMAKE_CURRENT_LIST_DIR}/src/pebs_select.c
  ${CMAKE_CURRENT_LIST_DIR}/src/session.c
  ${CMAKE_CURRENT_LIST_DIR}/src/session_place.c
  ${CMAKE_CURRENT_LIST_DIR}/src/session_msr.c
  ${CMAKE_CURRENT_LIST_DIR}/src/session_pmi.c
  ${CMAKE_CURRENT_LIST_DIR}/src/session_describe.c
  ${CMAKE_CURRENT_LIST_DIR}/src/event.c
)

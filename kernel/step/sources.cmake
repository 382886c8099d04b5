# SPDX-License-Identifier: BSD-2-Clause
# Single-step classifier and feed (freestanding C) and the workloads, for the
# test kernels and the host tests. Plain lists, like libds/sources.cmake.
set(STEP_DIR ${CMAKE_CURRENT_LIST_DIR})
set(STEP_SOURCES ${STEP_DIR}/insn.c ${STEP_DIR}/feed.c)
set(STEP_INCLUDE_DIR ${STEP_DIR})
get_filename_component(WL_DIR ${CMAKE_CURRENT_LIST_DIR}/../workloads ABSOLUTE)
set(WL_INCLUDE_DIR ${WL_DIR})
set(WL_SOURCES_i386 ${WL_DIR}/workloads_i386.S)
set(WL_SOURCES_x86_64 ${WL_DIR}/workloads_x86_64.S)

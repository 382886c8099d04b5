# SPDX-License-Identifier: BSD-2-Clause
# The DSLOG record printer (docs/records.md) and the record checks the
# flows share (dscheck.c) for the test kernels: the kernel
# build adds ${DSREC_SOURCES} to its sources and ${DSREC_INCLUDE_DIR} to its
# include path, with the kernel's own freestanding flags.
set(DSREC_SOURCES ${CMAKE_CURRENT_LIST_DIR}/records.c ${CMAKE_CURRENT_LIST_DIR}/dscheck.c)
set(DSREC_INCLUDE_DIR ${CMAKE_CURRENT_LIST_DIR})

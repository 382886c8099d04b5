# SPDX-License-Identifier: BSD-2-Clause
# Plain source list of the reference model and its libds adapter: the single
# list every build uses (model/CMakeLists.txt, the test kernels through
# dsmodel_<arch>, the installed libds-model package; tests/embed's make.sh
# checks the Make snippet's model/src/*.c against it). For a foreign kernel
# that uses the model as an emulated Intel PMU (docs/porting.md section 10):
# compile DSMODEL_KERNEL_SOURCES with the kernel's flags plus -ffreestanding
# -mno-red-zone -mgeneral-regs-only, with DSMODEL_INCLUDE_DIRS and libds's
# include directory on the include path, and link them with libds.
# DSMODEL_MODEL_SOURCES is the model alone (no libds at all); src/dsmodel_int.h
# is its private header (found next to the sources, no include path needed).
set(DSMODEL_INCLUDE_DIRS ${CMAKE_CURRENT_LIST_DIR}/include ${CMAKE_CURRENT_LIST_DIR}/adapter)
set(DSMODEL_MODEL_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/src/dsmodel.c
  ${CMAKE_CURRENT_LIST_DIR}/src/dsm_dispatch.c
  ${CMAKE_CURRENT_LIST_DIR}/src/dsm_pmc.c
  ${CMAKE_CURRENT_LIST_DIR}/src/dsm_event.c
  ${CMAKE_CURRENT_LIST_DIR}/src/dsm_area.c
  ${CMAKE_CURRENT_LIST_DIR}/src/dsm_pebs.c
  ${CMAKE_CURRENT_LIST_DIR}/src/dsm_archpebs.c
  ${CMAKE_CURRENT_LIST_DIR}/src/dsm_bts.c
  ${CMAKE_CURRENT_LIST_DIR}/src/dsm_lbr.c
  ${CMAKE_CURRENT_LIST_DIR}/src/dsm_netburst.c
  ${CMAKE_CURRENT_LIST_DIR}/src/dsm_identity.c
)
set(DSMODEL_KERNEL_SOURCES ${DSMODEL_MODEL_SOURCES}
  ${CMAKE_CURRENT_LIST_DIR}/adapter/ds_model_ops.c
)

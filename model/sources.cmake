# SPDX-License-Identifier: BSD-2-Clause
# Plain source list of the reference model and its libds adapter, for a
# foreign kernel that uses the model as an emulated Intel PMU (docs/porting.md
# section 10): compile these with the kernel's flags plus -ffreestanding
# -mno-red-zone -mgeneral-regs-only, with DSMODEL_INCLUDE_DIRS and libds's
# include directory on the include path, and link them with libds.
set(DSMODEL_INCLUDE_DIRS ${CMAKE_CURRENT_LIST_DIR}/include ${CMAKE_CURRENT_LIST_DIR}/adapter)
set(DSMODEL_KERNEL_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/src/dsmodel.c
  ${CMAKE_CURRENT_LIST_DIR}/src/dsm_identity.c
  ${CMAKE_CURRENT_LIST_DIR}/src/dsm_archpebs.c
  ${CMAKE_CURRENT_LIST_DIR}/adapter/ds_model_ops.c
)

# SPDX-License-Identifier: BSD-2-Clause
# End-to-end kernel tests (ctest label "e2e"), included from kernel/CMakeLists.txt:
# both kernels in model mode under QEMU -kernel, SeaBIOS (ISO) and OVMF (ISO),
# with the harness checking the DSLOG records and dsdump's symbolized output.
find_program(LIBDS_QEMU qemu-system-x86_64)
if(NOT LIBDS_QEMU OR NOT TARGET dsdump)
  message(WARNING "qemu-system-x86_64 or dsdump missing: e2e kernel tests not registered")
  return()
endif()
set(_e2e ${PROJECT_SOURCE_DIR}/tests/e2e-kernel/e2e-kernel.sh)
foreach(arch i386 x86_64)
  foreach(m "kernel;60" "bios;90" "uefi;180")
    list(GET m 0 _mode)
    list(GET m 1 _tmo)
    math(EXPR _t "${_tmo} * ${LIBDS_BOOT_TIMEOUT_SCALE}")
    math(EXPR _ct "${_t} + 60")
    add_test(NAME e2e.${arch}.${_mode}
             COMMAND ${_e2e} --build ${CMAKE_BINARY_DIR} --arch ${arch} --mode ${_mode} --timeout ${_t}
                     --dsdump $<TARGET_FILE:dsdump>)
    set_tests_properties(e2e.${arch}.${_mode} PROPERTIES LABELS "e2e;boot" TIMEOUT ${_ct})
  endforeach()
endforeach()

# Every CPU (issue 13): the e2e flows on every CPU at once (group smp_e2e),
# each log tagged cpu=; dsdump reads all of them. Every group runs (--smp in
# -kernel mode) and the whole serial log is printed, so this one boot also
# makes the checks of an -smp 2 boot of every group (LIBDS_SMP_E2E_RE_<arch>_2,
# tests/boot/boot.cmake; that was boot.<arch>.kernel.smp2, the same boot).
foreach(arch i386 x86_64)
  math(EXPR _t "180 * ${LIBDS_BOOT_TIMEOUT_SCALE}")
  math(EXPR _ct "${_t} + 60")
  add_test(NAME e2e.${arch}.kernel.smp2
           COMMAND ${_e2e} --build ${CMAKE_BINARY_DIR} --arch ${arch} --mode kernel --timeout ${_t} --smp 2
                   --dsdump $<TARGET_FILE:dsdump>)
  set_tests_properties(e2e.${arch}.kernel.smp2 PROPERTIES LABELS "e2e;boot" TIMEOUT ${_ct}
    PASS_REGULAR_EXPRESSION "${LIBDS_SMP_E2E_RE_${arch}_2}.*boot.sh: PASS.*e2e-kernel.sh: 2 CPUs, [1-9][0-9]* logs each.*e2e-kernel.sh: PASS")
endforeach()

# scripts/run.sh's report on one screen (issue 27 item 8): the e2e flows on 2 CPUs.
math(EXPR _t "300 * ${LIBDS_BOOT_TIMEOUT_SCALE}")
add_test(NAME run.report COMMAND ${PROJECT_SOURCE_DIR}/tests/e2e-kernel/runsh-report.sh ${CMAKE_BINARY_DIR})
set_tests_properties(run.report PROPERTIES LABELS "e2e;boot" TIMEOUT ${_t})

# Start order (COST: seconds in a full scripts/test.sh on 2 cores; ctest starts
# the costliest first, tests/boot/boot.cmake).
set_tests_properties(e2e.x86_64.kernel.smp2 PROPERTIES COST 23)
set_tests_properties(e2e.i386.kernel.smp2 e2e.x86_64.uefi PROPERTIES COST 13)
set_tests_properties(e2e.i386.uefi PROPERTIES COST 10)

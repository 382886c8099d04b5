# SPDX-License-Identifier: BSD-2-Clause
# QEMU boot tests (ctest label "boot"), included from kernel/CMakeLists.txt.
# The matrix {i386, x86_64} x {SeaBIOS ISO, OVMF ISO, direct -kernel} (the
# two ISO columns are e2e.<arch>.bios|uefi, tests/e2e-kernel/e2e.cmake), plus
# runs that prove the harness rejects a crash, a triple fault, a hang and a
# failed check. LIBDS_BOOT_TIMEOUT_SCALE multiplies every timeout.
# COST: ctest starts the most costly tests first (a fresh clone has no
# CTestCostData.txt), so that two cores end together; the figures are the
# seconds each took under scripts/test.sh on 2 cores.
find_program(LIBDS_QEMU qemu-system-x86_64)
if(NOT LIBDS_QEMU)
  message(WARNING "qemu-system-x86_64 not found: boot tests not registered")
  return()
endif()
set(LIBDS_BOOT_TIMEOUT_SCALE 1 CACHE STRING "Multiplier for QEMU boot test timeouts")
set(_boot ${PROJECT_SOURCE_DIR}/tests/boot/boot.sh)

function(libds_boot_test name arch mode tmo)
  math(EXPR _t "${tmo} * ${LIBDS_BOOT_TIMEOUT_SCALE}")
  math(EXPR _ct "${_t} + 30")
  add_test(NAME boot.${name}
           COMMAND ${_boot} --build ${CMAKE_BINARY_DIR} --arch ${arch} --mode ${mode} --timeout ${_t} ${ARGN})
  set_tests_properties(boot.${name} PROPERTIES LABELS boot TIMEOUT ${_ct})
endfunction()

# Every group on one CPU: -kernel here; the ISO on SeaBIOS and on OVMF is
# booted by e2e.<arch>.bios|uefi with boot.sh and the same arguments (every
# boot.sh check), which then check the records and dsdump on that log: one
# boot, not two (boot.<arch>.bios|uefi were those same boots).
foreach(arch i386 x86_64)
  libds_boot_test(${arch}.kernel ${arch} kernel 60)
  libds_boot_test(${arch}.kernel.pmi_nmi ${arch} kernel 60 --append "pmi=nmi apic=xapic")
  libds_boot_test(${arch}.crash_ud ${arch} kernel 60 --append tests=crash_ud --expect crash)
endforeach()

# The harness itself: each run must be rejected for the stated reason.
libds_boot_test(harness.triple_fault x86_64 kernel 60 --append tests=crash_triple)
set_tests_properties(boot.harness.triple_fault PROPERTIES PASS_REGULAR_EXPRESSION "boot.sh: FAIL: triple fault")
libds_boot_test(harness.hang i386 kernel 8 --append tests=hang)
set_tests_properties(boot.harness.hang PROPERTIES PASS_REGULAR_EXPRESSION "boot.sh: FAIL: hang")
libds_boot_test(harness.failed_check i386 kernel 60 --append tests=fail_check)
set_tests_properties(boot.harness.failed_check PROPERTIES PASS_REGULAR_EXPRESSION "boot.sh: FAIL: kernel reported failure")
libds_boot_test(harness.no_tests x86_64 kernel 60 --append tests=nosuchgroup)
set_tests_properties(boot.harness.no_tests PROPERTIES PASS_REGULAR_EXPRESSION "boot.sh: FAIL: kernel reported failure")
# A double fault is reported (x86_64: #DF on IST1; i386: #DF task gate).
foreach(arch i386 x86_64)
  libds_boot_test(${arch}.crash_df ${arch} kernel 60 --append tests=crash_df --expect crash)
  set_tests_properties(boot.${arch}.crash_df PROPERTIES PASS_REGULAR_EXPRESSION "unhandled exception #DF double fault.*boot.sh: PASS")
endforeach()

# Entry hardening (issue 14). Old CPUs: the entry checks CPUID before any C
# code runs (-march=i686 code has CMOV) and refuses the CPU with a message.
# A hypervisor that refuses 32-bit paging (#GP at the entry's MOV to CR0,
# as KVM PVM did on the lent 06_CFH VM, issue 14) must be reported, not a
# silent triple fault: the test build raises a #GP at that point.
libds_boot_test(i386.paging_refused i386 kernel 30 --expect unsupported
  --elf $<TARGET_FILE:kernel_i386_pgrefused>)
set_tests_properties(boot.i386.paging_refused PROPERTIES PASS_REGULAR_EXPRESSION
  "this CPU cannot run it: MOV to CR0 setting PG \\(32-bit paging\\) raised #GP: .*halted.*boot.sh: PASS")
# Which hosts' KVM the scripts use (scripts/kvm-host.sh; KVM PVM is refused).
add_test(NAME boot.kvm_host COMMAND ${PROJECT_SOURCE_DIR}/tests/boot/kvmhost_test.sh ${CMAKE_BINARY_DIR})
set_tests_properties(boot.kvm_host PROPERTIES LABELS boot TIMEOUT 120)
libds_boot_test(i386.cpu_486 i386 kernel 30 --cpu 486 --expect unsupported)
set_tests_properties(boot.i386.cpu_486 PROPERTIES PASS_REGULAR_EXPRESSION "lacks TSC CMOV .*boot.sh: PASS")
libds_boot_test(i386.cpu_pentium i386 kernel 30 --cpu pentium --expect unsupported)
set_tests_properties(boot.i386.cpu_pentium PROPERTIES PASS_REGULAR_EXPRESSION "lacks CMOV .*boot.sh: PASS")
libds_boot_test(x86_64.cpu_pentium x86_64 kernel 30 --cpu pentium --expect unsupported)
set_tests_properties(boot.x86_64.cpu_pentium PROPERTIES PASS_REGULAR_EXPRESSION "no long mode.*boot.sh: PASS")
# No PSE: the i386 identity map in 4 KiB pages (CR4.PSE stays 0).
libds_boot_test(i386.no_pse i386 kernel 60 --cpu qemu32,-pse)
set_tests_properties(boot.i386.no_pse PROPERTIES PASS_REGULAR_EXPRESSION "paging on, never PG = 0 \\(CR0 0x[0-9a-f]+, CR4 0x0\\).*boot.sh: PASS")
# No local APIC (issue 14): every group that needs one skips with the reason,
# 0 failed, and quickly (the e2e group used to spin for minutes).
libds_boot_test(i386.no_apic i386 kernel 20 --cpu qemu32,-apic)
libds_boot_test(x86_64.no_apic x86_64 kernel 20 --cpu qemu64,-apic)
foreach(arch i386 x86_64)
  set_tests_properties(boot.${arch}.no_apic PROPERTIES PASS_REGULAR_EXPRESSION
    "e2e: # SKIP no usable local APIC \\(CPUID.01H:EDX.APIC.9. = 0.*fixup: # SKIP IA32_APIC_BASE.EN not checked.*pmi: # SKIP no usable local APIC.*boot.sh: PASS")
endforeach()
# No hypervisor bit is not bare metal: TCG's missing #GPs stay SKIPs.
libds_boot_test(x86_64.no_hypervisor_bit x86_64 kernel 60 --cpu qemu64,-hypervisor)
set_tests_properties(boot.x86_64.no_hypervisor_bit PROPERTIES PASS_REGULAR_EXPRESSION
  "fixup: # SKIP wrmsr_safe\\(EFER, reserved bit 63\\) did not fault.*hypervisor bit clear.*boot.sh: PASS")
# A hypervisor that advertises an MSR and #GPs on it (issue 10 item 15): with msr_gp=0x1A0
# the kernel's libds backend faults IA32_MISC_ENABLE on an Intel-vendor CPU. Identification
# must succeed, the report and the probe name the MSR, and the run ends with 0 failed.
libds_boot_test(x86_64.msr_gp x86_64 kernel 90 --cpu Skylake-Client --append "tests=caps,e2e profile=skylake msr_gp=0x1a0")
set_tests_properties(boot.x86_64.msr_gp PROPERTIES PASS_REGULAR_EXPRESSION
  "ds_cpu_identify: success\\).*vendor: GenuineIntel.*misc_enable: absent \\(IA32_MISC_ENABLE \\(0x1A0\\): MSR access faulted \\(#GP\\)\\).*caps: IA32_MISC_ENABLE \\(0x1a0\\) advertised, #GP simulated.*misc_enable: fault \\(IA32_MISC_ENABLE \\(0x1A0\\): MSR access faulted \\(#GP\\)\\).* 0 failed.*boot.sh: PASS")

# Bochs 2.7 with the Bochs BIOS and the LGPL VGA BIOS (issue 24): GRUB's VBE
# mode set for the framebuffer tag corrupted its heap there; the BIOS entries
# keep VGA text. Both ISOs, a short group list; SKIP (77) without Bochs.
foreach(arch i386 x86_64)
  math(EXPR _t "240 * ${LIBDS_BOOT_TIMEOUT_SCALE}")
  math(EXPR _ct "${_t} + 30")
  add_test(NAME boot.${arch}.bochs_bios
           COMMAND ${PROJECT_SOURCE_DIR}/tests/boot/bochs.sh ${CMAKE_BINARY_DIR}/libds-bochs-${arch}.iso ${arch} ${_t})
  set_tests_properties(boot.${arch}.bochs_bios PROPERTIES LABELS boot TIMEOUT ${_ct} SKIP_RETURN_CODE 77)
endforeach()
# A NetBurst CPU model (Bochs's Pentium 4 Celeron D 336, family 0FH).
add_test(NAME boot.i386.bochs_bios_netburst
         COMMAND ${PROJECT_SOURCE_DIR}/tests/boot/bochs.sh ${CMAKE_BINARY_DIR}/libds-bochs-i386.iso i386 ${_t}
                 p4_prescott_celeron_336)
set_tests_properties(boot.i386.bochs_bios_netburst PROPERTIES LABELS boot TIMEOUT ${_ct} SKIP_RETURN_CODE 77
                     PASS_REGULAR_EXPRESSION "cpu: GenuineIntel 0F_04H.*bochs.sh: PASS")

# The verdict read by OCR off a screenshot (issue 24 item 3; screenocr.py,
# tesseract): PASS/FAIL, the CPU line and the per-group counts from the
# picture, compared with serial. A framebuffer screendump is first matched
# pixel-exact against the kernel's font (screencheck.py fb), the same picture.
# SKIP (77) without tesseract (after that pixel-exact check).
function(libds_screen_ocr name arch mode tmo)
  math(EXPR _t "${tmo} * ${LIBDS_BOOT_TIMEOUT_SCALE}")
  math(EXPR _ct "${_t} + 30")
  add_test(NAME boot.${arch}.screen_${name}
           COMMAND ${PROJECT_SOURCE_DIR}/tests/boot/screen.sh ${CMAKE_BINARY_DIR} ${arch} ${mode} ${_t}
                   ${LIBDS_CONSOLE_FONT} --ocr ${ARGN})
  set_tests_properties(boot.${arch}.screen_${name} PROPERTIES LABELS boot TIMEOUT ${_ct} SKIP_RETURN_CODE 77)
endfunction()

# The one-screen verdict (issue 14), read off the screen: the VGA text
# buffer (SeaBIOS) cell by cell, then by OCR (QEMU draws it with the VGA
# BIOS font), from one boot (screen_ocr_bios; the cell-by-cell check was
# boot.<arch>.screen_bios, a second boot of the same ISO); the framebuffer
# (OVMF at its own 800x600, the e2e verdict) pixel-exact and by OCR, both
# kernels.
foreach(arch i386 x86_64)
  libds_screen_ocr(uefi ${arch} uefi 240)
  libds_screen_ocr(ocr_bios ${arch} bios 120)
endforeach()
# The GOP framebuffer at three sizes the menu asks GRUB for (x86_64).
foreach(res 1024x768 1280x800 1920x1080)
  libds_screen_ocr(ocr_uefi_${res} x86_64 uefi 240 --iso libds-screen-x86_64-${res} --size ${res})
endforeach()

# What an -smp N run of every group with smp_e2e must print (also
# e2e.<arch>.kernel.smp2's, tests/e2e-kernel/e2e.cmake, which boots so).
foreach(arch i386 x86_64)
  foreach(n 2 4)
    set(LIBDS_SMP_E2E_RE_${arch}_${n}
      "smp: cpu 1 \\(APIC id 1, reads 1\\): started, ds_cpu_identify: success.*# smp: ${n} of ${n} CPU\\(s\\) running.*# \\*+ e2e on cpu 1 \\(APIC id 1\\).*DSLOG 1 HDR arch=${arch} backend=model profile=[a-z0-9_]+ kernel=libds-${arch}.elf why=[^ ]+ cpu=1 tsc_khz=[0-9]+ ck=.*ok [0-9]+ - smp_e2e: e2e ran on cpu 1 \\(APIC id 1\\)")
  endforeach()
endforeach()

# SMP (issue 13): APs started with INIT-SIPI-SIPI from the ACPI MADT, each
# identifies itself with ds_cpu_identify (kernel/src/smp.c). Multi-threaded
# TCG (boot.sh --smp). QEMU 7.2 TCG has no x2APIC (it drops +x2apic with a
# warning), so x2APIC AP startup is not exercised here.
foreach(arch i386 x86_64)
  # The e2e flows on all 4 CPUs at once (group smp_e2e), every group, one
  # model profile per CPU (LIBDS_SMP4_PROFILES_<arch>, kernel/CMakeLists.txt:
  # skylake, icelake, core2, NetBurst): 4 PEBS formats at once on 4 CPUs.
  # Every default profile on 2 CPUs at once, every group: e2e.<arch>.kernel.smp2
  # (which also checks this test's lines for -smp 2).
  # Every default profile on 4 CPUs took 54 s (x86_64) under TCG on 2 cores.
  libds_boot_test(${arch}.kernel.smp4 ${arch} kernel 120 --smp 4 --append "${LIBDS_SMP4_PROFILES_${arch}}")
  set_tests_properties(boot.${arch}.kernel.smp4 PROPERTIES PASS_REGULAR_EXPRESSION
    "${LIBDS_SMP_E2E_RE_${arch}_4}.*ok [0-9]+ - smp_e2e: e2e ran on cpu 3 \\(APIC id 3\\).*boot.sh: PASS")
  # ISO: GRUB's multiboot2 ACPI tag (x86_64) / multiboot1 BIOS-area search (i386);
  # libds-smp-<arch>.iso: every group, the same one profile per CPU as above.
  libds_boot_test(${arch}.bios.smp4 ${arch} bios 120 --smp 4 --iso libds-smp-${arch})
  set_tests_properties(boot.${arch}.bios.smp4 PROPERTIES PASS_REGULAR_EXPRESSION
    "# smp: 4 of 4 CPU\\(s\\) running.*# \\*+ e2e on cpu 3 \\(APIC id 3\\), profiles netburst_m.*ok [0-9]+ - smp_e2e: e2e ran on cpu 3 \\(APIC id 3\\).*boot.sh: PASS")
  # OVMF: GRUB's ACPI tag on UEFI; the same ISO, so cpu 0 skylake, cpu 1 icelake
  # (every default profile on 2 CPUs: e2e.<arch>.kernel.smp2).
  libds_boot_test(${arch}.uefi.smp2 ${arch} uefi 240 --smp 2 --iso libds-smp-${arch})
  set_tests_properties(boot.${arch}.uefi.smp2 PROPERTIES PASS_REGULAR_EXPRESSION
    "# smp: 2 of 2 CPU\\(s\\) running.*# \\*+ e2e on cpu 1 \\(APIC id 1\\), profiles icelake.*ok [0-9]+ - smp_e2e: e2e ran on cpu 1 \\(APIC id 1\\).*boot.sh: PASS")
  # One AP told not to start: reported, the run passes on the others.
  libds_boot_test(${arch}.kernel.smp4_cpus ${arch} kernel 90 --smp 4 --append "cpus=0,2,3 tests=caps")
  set_tests_properties(boot.${arch}.kernel.smp4_cpus PROPERTIES PASS_REGULAR_EXPRESSION
    "cpu 1 \\(APIC id 1\\): not started: not in cpus=; the run continues.*# smp: 3 of 4 CPU\\(s\\) running.*boot.sh: PASS")
  libds_boot_test(${arch}.kernel.smp_off ${arch} kernel 60 --smp 4 --append "smp=off tests=caps")
  set_tests_properties(boot.${arch}.kernel.smp_off PROPERTIES PASS_REGULAR_EXPRESSION
    "# smp: off \\(smp=off\\).*boot.sh: PASS")
  libds_boot_test(${arch}.kernel.smp_limit ${arch} kernel 90 --smp 4 --append "smp=2 tests=caps")
  set_tests_properties(boot.${arch}.kernel.smp_limit PROPERTIES PASS_REGULAR_EXPRESSION
    "cpu 2 \\(APIC id 2\\): not started: smp= limit.*# smp: 2 of 4 CPU\\(s\\) running.*boot.sh: PASS")
endforeach()
# q35: ACPI (MADT) only, no MP table.
libds_boot_test(x86_64.kernel.smp4_q35 x86_64 kernel 120 --smp 4 --machine q35 --append tests=caps)
set_tests_properties(boot.x86_64.kernel.smp4_q35 PROPERTIES PASS_REGULAR_EXPRESSION
  "# smp: 4 of 4 CPU\\(s\\) running.*boot.sh: PASS")
# Every CPU, not the first 16 (issue 24): 64 CPUs on q35 (MADT only), the
# per-CPU state sized at boot from the MADT and taken from the memory map;
# every AP identifies itself (group smp) and runs libds at the same time as
# the others (smp_conc). The e2e flows are not run here (time: under TCG
# each CPU's flows take seconds). About 7 s on the 2-core host.
foreach(arch i386 x86_64)
  libds_boot_test(${arch}.kernel.smp64_q35 ${arch} kernel 60 --smp 64 --machine q35 --append tests=smp,smp_conc)
  set_tests_properties(boot.${arch}.kernel.smp64_q35 PROPERTIES PASS_REGULAR_EXPRESSION
    "MADT: 64 processor\\(s\\) usable of 64 listed.*# smp: per-CPU state [0-9]+ KiB per CPU, 64 CPU slot\\(s\\), from free RAM.*smp: cpu 63 \\(APIC id 63, reads 63\\): started, ds_cpu_identify: success.*# smp: 64 of 64 CPU\\(s\\) running.*ok [0-9]+ - smp: 63 AP\\(s\\) identified, 0 failed on purpose, of 64 CPU\\(s\\).*ok [0-9]+ - smp_conc: 64 CPU\\(s\\) ran libds at the same time \\(63 APs posted \\+ the BSP\\).*boot.sh: PASS")
  # Little RAM (-m 20M): not every CPU's per-CPU state fits; those CPUs are
  # reported with the reason and the run passes on the others.
  libds_boot_test(${arch}.kernel.smp64_lowmem ${arch} kernel 60 --smp 64 --mem 20M --append tests=smp)
  set_tests_properties(boot.${arch}.kernel.smp64_lowmem PROPERTIES PASS_REGULAR_EXPRESSION
    "smp: cpu 63 \\(APIC id 63\\): not started: per-CPU state does not fit in memory \\([0-9]+ KiB per CPU; [0-9]+ of 64 CPU\\(s\\) fit in the largest free block, [0-9]+ KiB, of [0-9]+ KiB free RAM\\); the run continues.*# smp: [1-5][0-9] of 64 CPU\\(s\\) running.*ok [0-9]+ - smp: cpu 63 \\(APIC id 63\\) not started, reason: per-CPU state does not fit.*boot.sh: PASS")
endforeach()
# The e2e flows on at most e2e_cpus= CPUs (default 16): the others are left
# out with a line, and the verdict says so.
libds_boot_test(x86_64.kernel.smp2_e2e_cap x86_64 kernel 60 --smp 2
                --append "tests=smp_e2e e2e_cpus=1 profile=skylake")
set_tests_properties(boot.x86_64.kernel.smp2_e2e_cap PROPERTIES PASS_REGULAR_EXPRESSION
  "# smp_e2e: the flows run on 1 of 2 running CPU\\(s\\) \\(e2e_cpus=1; e2e_cpus=0: all\\).*ok [0-9]+ - smp_e2e: e2e ran on cpu 0 \\(APIC id 0\\).*ok [0-9]+ - smp_e2e: 1 of 1 running CPU\\(s\\) ran the e2e flows.*# verdict \\| smp_e2e: e2e flows on 1 of 2 CPUs \\(e2e_cpus=1\\).*boot.sh: PASS")
# Without PSE the i386 entry's 4 KiB page tables come from the memory map:
# with too little RAM it says so before any C runs.
libds_boot_test(i386.no_pse_lowmem i386 kernel 30 --cpu qemu32,-pse --mem 5M --expect unsupported)
set_tests_properties(boot.i386.no_pse_lowmem PROPERTIES PASS_REGULAR_EXPRESSION
  "no PSE \\(CPUID.01H:EDX\\[3\\] = 0\\), and the memory map has no free 4 MiB for 4 KiB page tables; halted.*boot.sh: PASS")
# A CPU that never answers (smp_fail= sends its SIPIs to a halt-only page):
# reported as failed after the timeout, re-INITed, the next AP still starts.
foreach(arch i386 x86_64)
  libds_boot_test(${arch}.kernel.smp4_fail ${arch} kernel 90 --smp 4 --append "smp_fail=2 tests=smp")
  set_tests_properties(boot.${arch}.kernel.smp4_fail PROPERTIES PASS_REGULAR_EXPRESSION
    "cpu 2 \\(APIC id 2\\): FAILED to start: no answer to INIT-SIPI-SIPI; the run continues.*cpu 3 \\(APIC id 3, reads 3\\): started.*# smp: 3 of 4 CPU\\(s\\) running.*ok [0-9]+ - smp: 2 AP\\(s\\) identified, 1 failed on purpose.*boot.sh: PASS")
endforeach()
# No ACPI (acpi=off): the MP specification table is the CPU list. SeaBIOS
# lists only the first logical CPU of each package there, so one CPU per
# socket (sockets=4).
foreach(arch i386 x86_64)
  libds_boot_test(${arch}.kernel.smp4_mptable ${arch} kernel 90 --smp 4,sockets=4,cores=1,threads=1
                  --machine pc,acpi=off --append tests=smp)
  set_tests_properties(boot.${arch}.kernel.smp4_mptable PROPERTIES PASS_REGULAR_EXPRESSION
    "# smp: no MADT: no RSDP.*trying the MP table.*# smp: MP floating pointer at 0x[0-9a-f]+ \\(spec 1.4\\), 4 processor\\(s\\) usable of 4 listed.*# smp: 4 of 4 CPU\\(s\\) running.*ok [0-9]+ - smp: 3 AP\\(s\\) identified.*boot.sh: PASS")
endforeach()
# Hybrid pair under the model (issue 13): one part, two core types, run at
# the same time: the BSP runs the Alder Lake P-core profile, the AP the
# E-core profile (cpu_profile.N=, '+' separates several); each CPU reports
# the core type of CPUID leaf 1AH (SDM: 40H Core, 20H Atom; the profiles'
# words come from the shared/cpuid Alder Lake dumps) and each log's HDR
# names its CPU and profile.
foreach(arch i386 x86_64)
  libds_boot_test(${arch}.kernel.smp2_hybrid ${arch} kernel 150 --smp 2
                  --append "tests=e2e,smp_e2e profile=alderlake_p cpu_profile.1=alderlake_e")
  # Concurrent CPUs: each CPU's lines may come first, hence (cpu0.*cpu1|cpu1.*cpu0).
  set(_p0 "# e2e: cpu0 model profile alderlake_p: family 6 model 97, [^,]+, [^,]+, [^,]+, LBR [^,]+, core type 40H \\(Core\\)")
  set(_p1 "# e2e: cpu1 model profile alderlake_e: family 6 model 97, [^,]+, [^,]+, [^,]+, LBR [^,]+, core type 20H \\(Atom\\)")
  set(_v0 "# verdict \\|  cpu0 alderlake_p: pebs-")
  set(_v1 "# verdict \\|  cpu1 alderlake_e: pebs-")
  set_tests_properties(boot.${arch}.kernel.smp2_hybrid PROPERTIES PASS_REGULAR_EXPRESSION
    "e2e on cpu 1 \\(APIC id 1\\), profiles alderlake_e .*(${_p0}.*${_p1}|${_p1}.*${_p0}).*ok [0-9]+ - smp_e2e: e2e ran on cpu 1 .*(${_v0}.*${_v1}|${_v1}.*${_v0}).*boot.sh: PASS")
endforeach()
# libds on every CPU at the same time (kernel/tests/smp_conc.c): one model
# CPU per CPU, PMIs through each CPU's own APIC, counts checked per CPU.
foreach(arch i386 x86_64)
  libds_boot_test(${arch}.kernel.smp4_conc ${arch} kernel 120 --smp 4 --append tests=smp_conc)
  set_tests_properties(boot.${arch}.kernel.smp4_conc PROPERTIES PASS_REGULAR_EXPRESSION
    "ok [0-9]+ - smp_conc: cpu 3 core2 \\(06_0FH\\): every sampled IP in this CPU's window \\(0 outside\\).*ok [0-9]+ - smp_conc: 4 CPU\\(s\\) ran libds at the same time.*boot.sh: PASS")
endforeach()
# KVM guests as they are (issue 14): the model profiles kvm_spr (PEBS format 4,
# the Sapphire Rapids host's, basic-only, no LBR, no BTS, no freeze-on-PMI) and
# kvm_skl (no PEBS, no BTS, legacy LBR format 5) run end to end; every facility the guest lacks is a SKIP
# with its reason, never a failure. kvm_spr's records are basic-only: header
# size field (bits 63:48) 32 bytes, no group bits. Instructions sample on PMC1:
# a Sapphire Rapids host is Golden Cove, whose INST_RETIRED PEBS is PMC1-7 only
# (Linux intel_glc_pebs_event_constraints 0xc0/0xfe), and the basic-only guest
# has no fixed-counter PEBS.
foreach(arch x86_64 i386)
  libds_boot_test(${arch}.kvm_spr ${arch} kernel 90 --append "tests=caps,e2e profile=kvm_spr")
  set_tests_properties(boot.${arch}.kvm_spr PROPERTIES PASS_REGULAR_EXPRESSION
    "model profile kvm_spr: family 6 model 8f, perfmon v2, PEBS fmt 4.*# SKIP kvm_spr: freeze on PMI: DEBUGCTL.FREEZE_PERFMON_ON_PMI faults.*# SKIP kvm_spr: LBR run: no LBR on this CPU.*# SKIP kvm_spr: BTS runs: BTS not advertised.*DSLOG 1 PEBS run=pebs-loop-fixed seq=0 fmt=4 counter=1 hdr=0x20000000000000 .*RUN name=pebs-loop-fixed kind=pebs .* records=[1-9][0-9]* .*RUN name=pebs-chase-nmi-freeze kind=pebs .* records=[1-9][0-9]* .* 0 failed, 3 skipped: PASS.*boot.sh: PASS")
  libds_boot_test(${arch}.kvm_skl ${arch} kernel 90 --append "tests=caps,e2e profile=kvm_skl")
  set_tests_properties(boot.${arch}.kvm_skl PROPERTIES PASS_REGULAR_EXPRESSION
    "model profile kvm_skl: family 6 model 5e, perfmon v2, .*# SKIP kvm_skl: freeze on PMI: DEBUGCTL.FREEZE_PERFMON_ON_PMI faults.*# SKIP kvm_skl: PEBS runs: PEBS not advertised.*# SKIP kvm_skl: BTS runs: BTS not advertised.*RUN name=lbr-calls kind=lbr .* 0 failed, 3 skipped: PASS.*boot.sh: PASS")
endforeach()
# Lunar Lake E-core (issue 11, model profile lunarlake_e: Skymont, CPUID 23H.1 fixed
# bitmap 77H with no fixed 3, PEBS format 6): every e2e run, including the counters
# group run on fixed 0 and PMC1.
libds_boot_test(x86_64.lunarlake_e x86_64 kernel 90 --append "tests=caps,e2e profile=lunarlake_e")
set_tests_properties(boot.x86_64.lunarlake_e PROPERTIES PASS_REGULAR_EXPRESSION
  "model profile lunarlake_e: family 6 model bd, perfmon v6, PEBS fmt 6, 64-bit DS layout, LBR Lunar Lake-M \\(Arch LBR\\).*DSLOG 1 PEBS run=pebs-loop-cntr seq=0 fmt=6 .* gp0=0x[0-9a-f]+ gp1=0x[0-9a-f]+ fixed0=0x[0-9a-f]+ ck=.*RUN name=pebs-loop-cntr kind=pebs .* records=19 .* 0 failed, 0 skipped: PASS.*boot.sh: PASS")
# Arrow Lake-H P-core (model profile arrowlake_h: PEBS format 5 with PEBS_BASELINE,
# the boot log of a Core Ultra 9 285H, docs/design.md "Which CPUs write which PEBS
# format"): the profile= name selects it (kernel/e2e/profile.c) and its PEBS runs
# write format 5 records, the fixed-counter run (counter 32) reloading from DS
# slot 32 + m. Not in the default lists (e2e run time unchanged).
libds_boot_test(x86_64.arrowlake_h x86_64 kernel 90 --append "tests=caps,e2e profile=arrowlake_h")
set_tests_properties(boot.x86_64.arrowlake_h PROPERTIES PASS_REGULAR_EXPRESSION
  "model profile arrowlake_h: family 6 model c5, perfmon v5, PEBS fmt 5, 64-bit DS layout, LBR Arrow Lake-H \\(Arch LBR\\).*DSLOG 1 PEBS run=pebs-loop-fixed seq=0 fmt=5 counter=32 .*RUN name=pebs-loop-fixed kind=pebs .* records=[1-9][0-9]* .* 0 failed, 0 skipped: PASS.*boot.sh: PASS")

# Start order (COST, see the top): the longest boot tests, seconds in a full
# scripts/test.sh on 2 cores; the others default to 0 and follow.
set_tests_properties(boot.i386.screen_uefi boot.x86_64.screen_uefi PROPERTIES COST 14)
set_tests_properties(boot.i386.screen_ocr_bios boot.x86_64.screen_ocr_bios boot.x86_64.screen_ocr_uefi_1024x768
                     boot.x86_64.screen_ocr_uefi_1280x800 boot.x86_64.screen_ocr_uefi_1920x1080 PROPERTIES COST 10)
set_tests_properties(boot.i386.uefi.smp2 boot.x86_64.uefi.smp2 PROPERTIES COST 9)
set_tests_properties(boot.harness.hang boot.i386.kernel.smp4 boot.i386.bios.smp4 boot.x86_64.kernel.smp4
                     boot.x86_64.bios.smp4 PROPERTIES COST 8)

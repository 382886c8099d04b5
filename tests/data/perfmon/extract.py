#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Extract the perfmon facts tests/host/test_perfmon.c checks event.c and
pmc.c against, from a checkout of github.com/intel/perfmon (BSD-3-Clause,
see LICENSE.perfmon next to this script; the commit is in COMMIT).

Usage: extract.py PERFMON_GIT_DIR COMMIT > events.tsv

One line per event: file, EventName, EventCode, UMask, CounterMask, Invert,
PEBS (perfmon "PEBS", or "Precise" where the file has that field instead),
Counter, PEBScounters ("-" where absent). Codes and masks are written as
two hex digits. Kept: the event codes libds's generic events and PEBS
counter rules name (FILTER_CODES), and every PEBS event of Bonnell (whose
PEBS rule is "any event", checked event by event).
"""
import json
import subprocess
import sys

FILES = [
    "BNL/events/bonnell_core.json", "SLM/events/Silvermont_core.json",
    "KNL/events/knightslanding_core.json", "GLM/events/goldmont_core.json",
    "GLP/events/goldmontplus_core.json", "EHL/events/elkhartlake_core.json",
    "SNR/events/snowridgex_core.json", "NHM-EP/events/NehalemEP_core.json",
    "NHM-EX/events/NehalemEX_core.json", "WSM-EP-SP/events/WestmereEP-SP_core.json",
    "WSM-EP-DP/events/WestmereEP-DP_core.json", "WSM-EX/events/WestmereEX_core.json",
    "SNB/events/sandybridge_core.json", "JKT/events/Jaketown_core.json",
    "IVB/events/ivybridge_core.json", "IVT/events/ivytown_core.json",
    "HSW/events/haswell_core.json", "HSX/events/haswellx_core.json",
    "BDW/events/broadwell_core.json", "BDX/events/broadwellx_core.json",
    "BDW-DE/events/broadwellde_core.json", "SKL/events/skylake_core.json",
    "SKX/events/skylakex_core.json", "CLX/events/cascadelakex_core.json",
    "ICL/events/icelake_core.json", "ICX/events/icelakex_core.json",
    "TGL/events/tigerlake_core.json", "RKL/events/rocketlake_core.json",
    "SPR/events/sapphirerapids_core.json", "EMR/events/emeraldrapids_core.json",
    "ADL/events/alderlake_goldencove_core.json", "ADL/events/alderlake_gracemont_core.json",
    "MTL/events/meteorlake_redwoodcove_core.json", "GNR/events/graniterapids_core.json",
    "MTL/events/meteorlake_crestmont_core.json", "SRF/events/sierraforest_core.json",
    "GRR/events/grandridge_core.json", "ARL/events/arrowlake_crestmont_core.json",
    "LNL/events/lunarlake_lioncove_core.json", "ARL/events/arrowlake_lioncove_core.json",
    "LNL/events/lunarlake_skymont_core.json", "ARL/events/arrowlake_skymont_core.json",
    "PTL/events/pantherlake_cougarcove_core.json", "PTL/events/pantherlake_darkmont_core.json",
    "CWF/events/clearwaterforest_core.json", "NVL/events/novalake_coyotecove_core.json",
    "NVL/events/novalake_arcticwolf_core.json",
]
# INST_RETIRED, BR_INST/BR_MISP_RETIRED, CPU_CLK_UNHALTED, MEM_*_RETIRED loads/
# stores (D0H; Silvermont/KNL 04H; Nehalem 0BH), load latency (CDH, 0BH/10H, D0H/05H)
FILTER_CODES = {0x04, 0x0B, 0x3C, 0xC0, 0xC4, 0xC5, 0xCD, 0xD0}


def num(s):
    return int(str(s).split(",")[0], 16) if str(s).lower().startswith("0x") else int(str(s).split(",")[0])


def main():
    git, commit = sys.argv[1], sys.argv[2]
    out = sys.stdout
    for path in FILES:
        data = json.loads(subprocess.check_output(["git", "-C", git, "show", commit + ":" + path]))
        for e in data["Events"]:
            code, umask = num(e["EventCode"]), num(e.get("UMask", "0"))
            pebs = e.get("PEBS", e.get("Precise", "0")) or "0"
            if code not in FILTER_CODES and not (path.startswith("BNL/") and pebs != "0"):
                continue
            row = [path, e["EventName"], "%02X" % code, "%02X" % umask, str(num(e.get("CounterMask", "0"))),
                   str(num(e.get("Invert", "0"))), pebs, e.get("Counter", "-").replace(" ", ""),
                   (e.get("PEBScounters") or "-").replace(" ", "")]
            out.write("\t".join(row) + "\n")


if __name__ == "__main__":
    main()

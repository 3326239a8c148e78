#pragma once
// The fleet file of the Redfish tests: three racks on two CDUs, named as a facility might (a1, a2
// on CDU-A's connectors 1 and 2, b1 on CDU-B), each with its own leak detectors.

namespace watchfloor::testing {

inline constexpr const char* kRedfishFleet =
    "region us-east\n"
    "rack a1 cdu=CDU-A connector=1 leak_detectors=LD-A1-[1-2]\n"
    "rack a2 cdu=CDU-A connector=2 leak_detectors=LD-A2-[1-2]\n"
    "rack b1 row=2 cdu=CDU-B connector=1 leak_detectors=LD-B1-rope,LD-B1-tray\n";

}  // namespace watchfloor::testing

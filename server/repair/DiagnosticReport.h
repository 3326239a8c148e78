#pragma once
// What a tray diagnostic found, read from the tool's own output: DCGM's `dcgmi diag` prints a boxed
// table by default and a JSON document with `-j`; a site's burn-in command is expected to print one
// of the two. The layouts are DCGM's (docs/domain/break-fix.md, samples in testbeds/break-fix/).
// Both readers are total: any text gives a report, and text that is neither layout says so in
// `error` rather than passing for a clean run.

#include "watchfloor/v1/control.pb.h"

#include <string>
#include <string_view>
#include <vector>

namespace watchfloor::server::repair {

struct DiagnosticReport {
    std::vector<watchfloor::v1::DiagnosticTest> tests;  // in the order the tool printed them
    std::string error;                                  // why no test could be read; "" when some were

    // The run as a whole: FAIL if any test failed, WARN if any warned, PASS if any passed, else
    // UNSPECIFIED (nothing read).
    watchfloor::v1::DiagnosticResult overall() const;
    // "memory on GPU 2 failed; 6 of 7 tests passed", for the operation's result line.
    std::string summary() const;
};

// The JSON of `dcgmi diag -j` (keys "DCGM Diagnostic" → "test_categories" → "tests" → "results").
DiagnosticReport readDiagnosticJson(std::string_view json);
// The boxed table `dcgmi diag` prints without -j.
DiagnosticReport readDiagnosticTable(std::string_view text);
// Whichever layout `output` is in (JSON when its first non-blank byte is '{').
DiagnosticReport readDiagnosticOutput(std::string_view output);

// dcgmi's word for a result ("Pass", "Fail", "Skip", "Warn", case as printed) as the proto's value;
// UNSPECIFIED for anything else.
watchfloor::v1::DiagnosticResult diagnosticResult(std::string_view word);

}  // namespace watchfloor::server::repair

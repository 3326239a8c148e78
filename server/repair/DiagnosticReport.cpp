#include "DiagnosticReport.h"

#include "TextBounds.h"

#include <simdjson.h>

#include <algorithm>
#include <cctype>
#include <charconv>

namespace watchfloor::server::repair {

namespace v1 = watchfloor::v1;
namespace dom = simdjson::dom;

namespace {

constexpr std::size_t kMaxDetail = 512;

std::string_view trimmed(std::string_view text) {
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
    return text;
}

bool equalsIgnoringCase(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
}

void setDetail(v1::DiagnosticTest& test, std::string_view detail) {
    if (!test.detail().empty() || trimmed(detail).empty()) return;
    detail = trimmed(detail);
    test.set_detail(std::string(detail.substr(0, utf8Prefix(detail, kMaxDetail))));
}

void noteGpuResult(v1::DiagnosticTest& test, std::uint32_t gpu, v1::DiagnosticResult result) {
    if (result != v1::DIAGNOSTIC_RESULT_FAIL) return;
    const auto& failed = test.failed_gpus();
    if (std::find(failed.begin(), failed.end(), gpu) == failed.end()) test.add_failed_gpus(gpu);
}

std::string_view stringAt(dom::object object, const char* key) {
    std::string_view value;
    return object[key].get_string().get(value) == simdjson::SUCCESS ? value : std::string_view();
}

// The first warning text of a result or summary object.
std::string_view firstWarning(dom::object object) {
    dom::array warnings;
    if (object["warnings"].get_array().get(warnings) != simdjson::SUCCESS) return {};
    for (dom::element warning : warnings) {
        dom::object entry;
        if (warning.get_object().get(entry) == simdjson::SUCCESS && !stringAt(entry, "warning").empty())
            return stringAt(entry, "warning");
    }
    return {};
}

v1::DiagnosticTest jsonTest(std::string_view category, dom::object test) {
    v1::DiagnosticTest out;
    out.set_category(std::string(category));
    out.set_name(std::string(stringAt(test, "name")));
    dom::object summary;
    if (test["test_summary"].get_object().get(summary) == simdjson::SUCCESS) {
        out.set_result(diagnosticResult(stringAt(summary, "status")));
        setDetail(out, firstWarning(summary));
    }
    dom::array results;
    if (test["results"].get_array().get(results) != simdjson::SUCCESS) return out;
    v1::DiagnosticResult worst = v1::DIAGNOSTIC_RESULT_UNSPECIFIED;
    for (dom::element element : results) {
        dom::object result;
        if (element.get_object().get(result) != simdjson::SUCCESS) continue;
        const auto status = diagnosticResult(stringAt(result, "status"));
        std::uint64_t gpu = 0;
        const bool isGpu = stringAt(result, "entity_group") != "CPU" &&
                           result["entity_id"].get_uint64().get(gpu) == simdjson::SUCCESS && gpu <= UINT32_MAX;
        if (isGpu) noteGpuResult(out, std::uint32_t(gpu), status);
        if (status == v1::DIAGNOSTIC_RESULT_FAIL) setDetail(out, firstWarning(result));
        if (status == v1::DIAGNOSTIC_RESULT_FAIL || worst == v1::DIAGNOSTIC_RESULT_UNSPECIFIED) worst = status;
    }
    // Before DCGM 4.5 a summary may be missing: the worst result stands for the test.
    if (out.result() == v1::DIAGNOSTIC_RESULT_UNSPECIFIED) out.set_result(worst);
    return out;
}

// "| memory                    | Fail                                           |" → {"memory", "Fail"}.
struct TableRow {
    std::string_view left, right;
};

bool tableRow(std::string_view line, TableRow& row) {
    line = trimmed(line);
    if (line.size() < 3 || line.front() != '|' || line.back() != '|') return false;
    line = line.substr(1, line.size() - 2);
    const auto bar = line.find('|');
    if (bar == std::string_view::npos) return false;
    row = {trimmed(line.substr(0, bar)), trimmed(line.substr(bar + 1))};
    return true;
}

// "|-----  Hardware  ----------+---...|" or "+-----  Stress  ---...+": the section's name, else "".
std::string_view sectionName(std::string_view line) {
    line = trimmed(line);
    if (line.size() < 8 || (line.front() != '|' && line.front() != '+') || line.substr(1, 5) != "-----") return {};
    line.remove_prefix(6);
    return trimmed(line.substr(0, line.find('-')));
}

// "GPU2: Fail" → gpu 2, "Fail".
bool gpuLine(std::string_view text, std::uint32_t& gpu, std::string_view& word) {
    if (!text.starts_with("GPU")) return false;
    const auto colon = text.find(':');
    if (colon == std::string_view::npos || colon == 3) return false;
    const auto digits = text.substr(3, colon - 3);
    if (std::from_chars(digits.data(), digits.data() + digits.size(), gpu).ptr != digits.data() + digits.size())
        return false;
    word = trimmed(text.substr(colon + 1));
    return true;
}

}  // namespace

v1::DiagnosticResult diagnosticResult(std::string_view word) {
    word = trimmed(word);
    if (equalsIgnoringCase(word, "Pass")) return v1::DIAGNOSTIC_RESULT_PASS;
    if (equalsIgnoringCase(word, "Fail")) return v1::DIAGNOSTIC_RESULT_FAIL;
    if (equalsIgnoringCase(word, "Skip")) return v1::DIAGNOSTIC_RESULT_SKIP;
    if (equalsIgnoringCase(word, "Warn")) return v1::DIAGNOSTIC_RESULT_WARN;
    return v1::DIAGNOSTIC_RESULT_UNSPECIFIED;
}

v1::DiagnosticResult DiagnosticReport::overall() const {
    bool warned = false, passed = false;
    for (const auto& test : tests) {
        if (test.result() == v1::DIAGNOSTIC_RESULT_FAIL) return v1::DIAGNOSTIC_RESULT_FAIL;
        warned |= test.result() == v1::DIAGNOSTIC_RESULT_WARN;
        passed |= test.result() == v1::DIAGNOSTIC_RESULT_PASS;
    }
    if (warned) return v1::DIAGNOSTIC_RESULT_WARN;
    return passed ? v1::DIAGNOSTIC_RESULT_PASS : v1::DIAGNOSTIC_RESULT_UNSPECIFIED;
}

std::string DiagnosticReport::summary() const {
    if (tests.empty()) return error.empty() ? "the diagnostic reported no test" : error;
    std::string failures;
    std::size_t passed = 0;
    for (const auto& test : tests) {
        passed += test.result() == v1::DIAGNOSTIC_RESULT_PASS;
        if (test.result() != v1::DIAGNOSTIC_RESULT_FAIL) continue;
        if (!failures.empty()) failures += ", ";
        failures += test.name();
        for (int i = 0; i < test.failed_gpus_size(); ++i)
            failures += (i == 0 ? " on GPU " : ", ") + std::to_string(test.failed_gpus(i));
    }
    const std::string tally = std::to_string(passed) + " of " + std::to_string(tests.size()) + " tests passed";
    return failures.empty() ? tally : failures + " failed; " + tally;
}

DiagnosticReport readDiagnosticJson(std::string_view json) {
    DiagnosticReport report;
    dom::parser parser;
    dom::element root;
    if (const auto code = parser.parse(json.data(), json.size()).get(root); code != simdjson::SUCCESS) {
        report.error = std::string("the diagnostic's JSON could not be read: ") + simdjson::error_message(code);
        return report;
    }
    dom::array categories;
    if (root["DCGM Diagnostic"]["test_categories"].get_array().get(categories) != simdjson::SUCCESS) {
        report.error = "the diagnostic's JSON has no \"DCGM Diagnostic\" test categories";
        return report;
    }
    for (dom::element element : categories) {
        dom::object category;
        dom::array tests;
        if (element.get_object().get(category) != simdjson::SUCCESS ||
            category["tests"].get_array().get(tests) != simdjson::SUCCESS)
            continue;
        for (dom::element test : tests) {
            dom::object object;
            if (test.get_object().get(object) == simdjson::SUCCESS && !stringAt(object, "name").empty())
                report.tests.push_back(jsonTest(stringAt(category, "category"), object));
        }
    }
    if (report.tests.empty()) report.error = "the diagnostic's JSON lists no test";
    return report;
}

DiagnosticReport readDiagnosticTable(std::string_view text) {
    DiagnosticReport report;
    std::string_view section;
    bool inMetadata = false;
    v1::DiagnosticTest* current = nullptr;
    std::size_t begin = 0;
    while (begin < text.size()) {
        auto end = text.find('\n', begin);
        if (end == std::string_view::npos) end = text.size();
        const std::string_view line = text.substr(begin, end - begin);
        begin = end + 1;
        if (const auto name = sectionName(line); !name.empty()) {
            section = name;
            inMetadata = name == "Metadata";
            current = nullptr;
            continue;
        }
        TableRow row;
        if (section.empty() || inMetadata || !tableRow(line, row)) continue;
        std::uint32_t gpu = 0;
        std::string_view word;
        if (row.left.empty() && current && gpuLine(row.right, gpu, word)) {
            noteGpuResult(*current, gpu, diagnosticResult(word));
        } else if (row.left.empty() && current) {
            // A wrapped warning goes on under its "Warning: GPUn" row.
            if (!current->detail().empty() && current->detail().size() < kMaxDetail)
                current->set_detail(current->detail() + " " + std::string(row.right));
        } else if (row.left.starts_with("Warning") || row.left.starts_with("Info")) {
            if (current && row.left.starts_with("Warning")) setDetail(*current, row.right);
        } else if (!row.left.empty()) {
            const std::string_view result = row.right.substr(0, row.right.find(" - "));
            v1::DiagnosticTest test;
            test.set_category(std::string(section));
            test.set_name(std::string(row.left));
            test.set_result(diagnosticResult(result));
            report.tests.push_back(std::move(test));
            current = &report.tests.back();
        }
    }
    for (auto& test : report.tests)
        if (test.detail().size() > kMaxDetail)
            test.set_detail(test.detail().substr(0, utf8Prefix(test.detail(), kMaxDetail)));
    if (report.tests.empty()) report.error = "the diagnostic's output holds no result table";
    return report;
}

DiagnosticReport readDiagnosticOutput(std::string_view output) {
    const auto first = trimmed(output);
    return !first.empty() && first.front() == '{' ? readDiagnosticJson(output) : readDiagnosticTable(output);
}

}  // namespace watchfloor::server::repair

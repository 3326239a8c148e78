// The diagnostic readers against the layouts DCGM prints (testbeds/break-fix/, each sample's source
// in its README) and against output that is neither: truncated, empty, another tool's.

#include "DiagnosticReport.h"

#include <QFile>
#include <QtTest>

#include <string>

using namespace watchfloor::server::repair;
namespace v1 = watchfloor::v1;

namespace {

std::string sample(const char* name) {
    QFile file(QString::fromUtf8(qgetenv("WATCHFLOOR_SOURCE_DIR")) + "/testbeds/break-fix/" + name);
    if (!file.open(QIODevice::ReadOnly)) qFatal("cannot read testbeds/break-fix/%s", name);
    return file.readAll().toStdString();
}

const v1::DiagnosticTest* find(const DiagnosticReport& report, const std::string& name) {
    for (const auto& test : report.tests)
        if (test.name() == name) return &test;
    return nullptr;
}

}  // namespace

class TestRepairDiagnostics : public QObject {
    Q_OBJECT

private slots:
    void tableLevelOnePasses() {
        const auto report = readDiagnosticOutput(sample("dcgmi-diag-r1.txt"));
        QVERIFY2(report.error.empty(), report.error.c_str());
        QCOMPARE(report.tests.size(), std::size_t(1));  // metadata rows are not tests
        QCOMPARE(report.tests[0].category(), std::string("Deployment"));
        QCOMPARE(report.tests[0].name(), std::string("software"));
        QCOMPARE(report.tests[0].result(), v1::DIAGNOSTIC_RESULT_PASS);
        QCOMPARE(report.overall(), v1::DIAGNOSTIC_RESULT_PASS);
        QCOMPARE(report.summary(), std::string("1 of 1 tests passed"));
    }

    void tableLevelThreeNamesTheFailingGpu() {
        const auto report = readDiagnosticOutput(sample("dcgmi-diag-r3-fail.txt"));
        QVERIFY2(report.error.empty(), report.error.c_str());
        QCOMPARE(report.tests.size(), std::size_t(7));
        const auto* memory = find(report, "memory");
        QVERIFY(memory);
        QCOMPARE(memory->category(), std::string("Hardware"));
        QCOMPARE(memory->result(), v1::DIAGNOSTIC_RESULT_FAIL);
        QCOMPARE(memory->failed_gpus_size(), 1);
        QCOMPARE(memory->failed_gpus(0), 2u);
        // The warning wrapped over three rows reads as one sentence.
        QCOMPARE(memory->detail(), std::string("A memory mismatch was detected on GPU 2, but no error was reported by "
                                               "CUDA or NVML. Run a field diagnostic on the GPU."));
        QCOMPARE(find(report, "pcie")->category(), std::string("Integration"));
        QCOMPARE(find(report, "targeted_power")->category(), std::string("Stress"));
        QCOMPARE(find(report, "diagnostic")->result(), v1::DIAGNOSTIC_RESULT_PASS);
        QCOMPARE(report.overall(), v1::DIAGNOSTIC_RESULT_FAIL);
        QCOMPARE(report.summary(), std::string("memory on GPU 2 failed; 6 of 7 tests passed"));
    }

    void jsonPasses() {
        const auto report = readDiagnosticOutput(sample("dcgmi-diag-r2.json"));
        QVERIFY2(report.error.empty(), report.error.c_str());
        QVERIFY(report.tests.size() >= 2);
        for (const auto& test : report.tests) {
            QCOMPARE(test.result(), v1::DIAGNOSTIC_RESULT_PASS);
            QCOMPARE(test.failed_gpus_size(), 0);
            QVERIFY(!test.category().empty());
        }
        QCOMPARE(report.overall(), v1::DIAGNOSTIC_RESULT_PASS);
    }

    void jsonNamesTheFailingGpuAndItsWarning() {
        const auto report = readDiagnosticOutput(sample("dcgmi-diag-r2-fail.json"));
        QVERIFY2(report.error.empty(), report.error.c_str());
        const auto* memory = find(report, "memory");
        QVERIFY(memory);
        QCOMPARE(memory->result(), v1::DIAGNOSTIC_RESULT_FAIL);
        QCOMPARE(memory->failed_gpus_size(), 1);
        QCOMPARE(memory->failed_gpus(0), 2u);
        QVERIFY(memory->detail().starts_with("A memory mismatch was detected on GPU 2"));
        QCOMPARE(find(report, "software")->result(), v1::DIAGNOSTIC_RESULT_PASS);
        QCOMPARE(report.overall(), v1::DIAGNOSTIC_RESULT_FAIL);
    }

    // A test without a summary (DCGM before 4.5 on some tests) is as bad as its worst GPU.
    void jsonWithoutSummaryTakesTheWorstResult() {
        const auto report = readDiagnosticJson(R"({"DCGM Diagnostic":{"test_categories":[{"category":"Hardware",
            "tests":[{"name":"memory","results":[{"entity_group":"GPU","entity_id":0,"status":"Pass"},
            {"entity_group":"GPU","entity_id":3,"status":"Fail"}]}]}]}})");
        QCOMPARE(report.tests.size(), std::size_t(1));
        QCOMPARE(report.tests[0].result(), v1::DIAGNOSTIC_RESULT_FAIL);
        QCOMPARE(report.tests[0].failed_gpus(0), 3u);
    }

    // Nothing that is not a diagnostic's result may read as a clean run.
    void otherOutputIsNoResult_data() {
        QTest::addColumn<QByteArray>("output");
        QTest::newRow("empty") << QByteArray();
        QTest::newRow("error") << QByteArray(
            "Error: unable to establish a connection to the specified host: localhost\n");
        QTest::newRow("nvidia-smi") << QByteArray(sample("nvidia-smi-reset-busy.txt").c_str());
        QTest::newRow("truncated json") << QByteArray(sample("dcgmi-diag-r2.json").substr(0, 200).c_str());
        QTest::newRow("other json") << QByteArray(R"({"DCGM Diagnostic": 3})");
        QTest::newRow("table without sections") << QByteArray("| memory | Pass |\n| pcie | Pass |\n");
        QTest::newRow("binary") << QByteArray(
            "\x7f"
            "ELF\x02\x01\x01\0\0\0",
            10);
    }
    void otherOutputIsNoResult() {
        QFETCH(QByteArray, output);
        const auto report = readDiagnosticOutput(std::string_view(output.constData(), std::size_t(output.size())));
        QVERIFY(report.tests.empty());
        QVERIFY(!report.error.empty());
        QCOMPARE(report.overall(), v1::DIAGNOSTIC_RESULT_UNSPECIFIED);
        QCOMPARE(report.summary(), report.error);
    }

    // A run cut off after its first test keeps that test and does not invent the rest.
    void cutOffTableKeepsWhatItRead() {
        const std::string full = sample("dcgmi-diag-r3-fail.txt");
        const auto report = readDiagnosticTable(full.substr(0, full.find("| diagnostic")));
        QCOMPARE(report.tests.size(), std::size_t(2));
        QCOMPARE(find(report, "memory")->result(), v1::DIAGNOSTIC_RESULT_FAIL);
    }

    void longWarningsAreBounded() {
        const std::string warning(5000, 'x');
        const auto report = readDiagnosticJson(
            R"({"DCGM Diagnostic":{"test_categories":[{"category":"Hardware","tests":[{"name":"memory","results":[{"entity_id":1,"status":"Fail","warnings":[{"warning":")" +
            warning + R"("}]}]}]}]}})");
        QCOMPARE(report.tests.size(), std::size_t(1));
        QCOMPARE(report.tests[0].detail().size(), std::size_t(512));
    }

    void resultWords() {
        QCOMPARE(diagnosticResult("Pass"), v1::DIAGNOSTIC_RESULT_PASS);
        QCOMPARE(diagnosticResult(" fail "), v1::DIAGNOSTIC_RESULT_FAIL);
        QCOMPARE(diagnosticResult("Skip"), v1::DIAGNOSTIC_RESULT_SKIP);
        QCOMPARE(diagnosticResult("Warn"), v1::DIAGNOSTIC_RESULT_WARN);
        QCOMPARE(diagnosticResult("Passed"), v1::DIAGNOSTIC_RESULT_UNSPECIFIED);
        QCOMPARE(diagnosticResult(""), v1::DIAGNOSTIC_RESULT_UNSPECIFIED);
    }
};

QTEST_GUILESS_MAIN(TestRepairDiagnostics)
#include "tst_repair_diagnostics.moc"

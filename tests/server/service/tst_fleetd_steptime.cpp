// GetStepTimeHeatmap against the real fleetd (FLEETD_BIN): the twin with a tray of llm-405b-1 made
// 15 % slow answers one row per tray of the job, the slow tray's buckets 1.15x the median tray's
// once it is slow and 1.0x before; bad requests are INVALID_ARGUMENT with a message, an unknown
// job NOT_FOUND.

#include "FleetdProcess.h"  // testbeds/
#include "StreamTestSupport.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>

using namespace watchfloor::server::testing;
namespace v1 = watchfloor::v1;

namespace {

constexpr const char* kJob = "llm-405b-1";
constexpr const char* kSlowTray = "r01-n03";
constexpr std::int64_t kTwinStartMs = 1'798'761'600'000;  // the twin's epoch (SimConfig::start)
constexpr std::int64_t kSlowFromMs = kTwinStartMs + 5 * 60'000;

float medianOf(std::vector<float> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? std::nanf("") : v[v.size() / 2];
}

}  // namespace

class FleetdStepTime : public QObject {
    Q_OBJECT

    watchfloor::testing::FleetdProcess fleetd;
    QTemporaryDir dir;
    std::unique_ptr<v1::TelemetryService::Stub> stub;

    grpc::Status ask(const v1::StepTimeHeatmapRequest& request, v1::StepTimeHeatmap* answer) {
        grpc::ClientContext context;
        context.set_deadline(deadlineIn(std::chrono::seconds(10)));
        return stub->GetStepTimeHeatmap(&context, request, answer);
    }
    static v1::StepTimeHeatmapRequest request(std::int64_t startMs, std::int64_t endMs, std::int64_t stepMs = 0) {
        v1::StepTimeHeatmapRequest r;
        r.set_job_name(kJob);
        r.set_start_unix_ms(startMs);
        r.set_end_unix_ms(endMs);
        r.set_step_ms(stepMs);
        return r;
    }

private slots:
    void initTestCase() {
        if (watchfloor::testing::FleetdProcess::binary().isEmpty() ||
            !QFile::exists(watchfloor::testing::FleetdProcess::binary()))
            QSKIP("FLEETD_BIN is not built");
        const QString scenario = dir.filePath(QStringLiteral("slow.scn"));
        QFile file(scenario);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("at 5m straggler node=r01-n03 factor=1.15 for=12h\n");
        file.close();
        QVERIFY2(fleetd.start({QStringLiteral("--speed"), QStringLiteral("120"), QStringLiteral("--warm-start"),
                               QStringLiteral("--scenario"), scenario}),
                 qPrintable(fleetd.errorString()));
        stub = v1::TelemetryService::NewStub(dedicatedChannel(fleetd.address()));
    }

    void slowTrayReadsItsFactor() {
        // 20 simulated minutes: 5 at full pace, 15 slow (10 s of wall time at --speed 120).
        v1::StepTimeHeatmap map;
        const std::int64_t endMs = kTwinStartMs + 20 * 60'000;
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                map.Clear();
                return ask(request(kTwinStartMs, endMs, 60'000), &map).ok() && map.rows_size() > 0 &&
                       map.rows(0).mean_step_time_s_size() == 20 && std::isfinite(map.rows(0).mean_step_time_s(18));
            }(),
            60000);
        QCOMPARE(map.job_name(), std::string(kJob));
        QCOMPARE(map.step_ms(), std::int64_t(60'000));
        QCOMPARE(map.bucket_start_unix_ms_size(), 20);
        QVERIFY(map.ideal_step_time_s() > 0);
        QVERIFY(map.rows_size() >= 36);  // llm-405b-1: racks r01..r04 of the default fleet
        int slow = -1;
        for (int r = 0; r < map.rows_size(); ++r)
            if (map.rows(r).node_name() == kSlowTray) slow = r;
        QVERIFY(slow >= 0);
        int before = 0, after = 0;
        for (int c = 1; c < 19; ++c) {  // whole minutes the twin has run through
            std::vector<float> column;
            for (const auto& row : map.rows())
                if (std::isfinite(row.mean_step_time_s(c))) column.push_back(row.mean_step_time_s(c));
            if (!std::isfinite(map.rows(slow).mean_step_time_s(c)))
                continue;  // the job checkpointed or recovered through the whole minute
            const float ratio = map.rows(slow).mean_step_time_s(c) / medianOf(column);
            const std::int64_t bucketMs = map.bucket_start_unix_ms(c);
            if (bucketMs + 60'000 <= kSlowFromMs) {
                QVERIFY2(std::abs(ratio - 1.0f) < 0.01f,
                         qPrintable(QString("minute %1: %2x before").arg(c).arg(ratio)));
                ++before;
            } else if (bucketMs >= kSlowFromMs) {
                QVERIFY2(std::abs(ratio - 1.15f) < 0.01f,
                         qPrintable(QString("minute %1: %2x, not 1.15x").arg(c).arg(ratio)));
                ++after;
            }
        }
        QVERIFY(before >= 3 && after >= 10);
    }

    void badRequestsAreRefusedWithAReason() {
        v1::StepTimeHeatmap map;
        auto expect = [&](v1::StepTimeHeatmapRequest r, grpc::StatusCode code, const char* mentions) {
            const grpc::Status status = ask(r, &map);
            QCOMPARE(int(status.error_code()), int(code));
            QVERIFY2(QString::fromStdString(status.error_message()).contains(QLatin1String(mentions)),
                     status.error_message().c_str());
        };
        expect(request(kTwinStartMs, kTwinStartMs), grpc::StatusCode::INVALID_ARGUMENT, "must be after");
        expect(request(kTwinStartMs, kTwinStartMs + 8LL * 24 * 3'600'000), grpc::StatusCode::INVALID_ARGUMENT, "7-day");
        expect(request(kTwinStartMs, kTwinStartMs + 3'600'000, -1), grpc::StatusCode::INVALID_ARGUMENT, "negative");
        expect(request(kTwinStartMs, kTwinStartMs + 7LL * 24 * 3'600'000, 1), grpc::StatusCode::INVALID_ARGUMENT,
               "cells");
        auto unnamed = request(kTwinStartMs, kTwinStartMs + 60'000);
        unnamed.set_job_name("");
        expect(unnamed, grpc::StatusCode::INVALID_ARGUMENT, "job_name is empty");
        auto unknown = unnamed;
        unknown.set_job_name("no-such-job");
        expect(unknown, grpc::StatusCode::NOT_FOUND, "no job named");
        auto tray = unnamed;
        tray.set_job_name(kSlowTray);  // an entity, not a job
        expect(tray, grpc::StatusCode::NOT_FOUND, "no job named");
    }
};

QTEST_GUILESS_MAIN(FleetdStepTime)
#include "tst_fleetd_steptime.moc"

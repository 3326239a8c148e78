// Same seed + scenario + advanceTo sequence → identical output; another seed differs.

#include "TwinTestSupport.h"

#include "EventDump.h"

#include <QCryptographicHash>
#include <QFile>
#include <QtTest>

using namespace twintest;

class TwinDeterminismTest : public QObject {
    Q_OBJECT

private slots:
    void dumpIsByteIdentical();
    void liveChangesAreIdentical();

private:
    QByteArray dump(std::uint64_t seed, const QTemporaryDir& dir, const char* name);
    QByteArray liveDigest(std::uint64_t seed);
};

QByteArray TwinDeterminismTest::dump(std::uint64_t seed, const QTemporaryDir& dir, const char* name) {
    SimConfig config;
    config.seed = seed;
    config.racks = 40;
    config.hardwareRateScale = 20;  // plenty of failures, recoveries and stragglers in 12 h
    config.scenarioFile = sourcePath("scenarios/demo.scn");
    auto twin = makeTwin(config);
    DumpOptions options;
    options.duration = std::chrono::hours(12);
    options.path = dir.filePath(name).toStdString();
    std::string error;
    if (!dumpEvents(*twin, options, &error)) qFatal("%s", error.c_str());
    QFile file(QString::fromStdString(options.path));
    if (!file.open(QIODevice::ReadOnly)) qFatal("cannot read the dump");
    return file.readAll();
}

void TwinDeterminismTest::dumpIsByteIdentical() {
    QTemporaryDir dir;
    const QByteArray a = dump(7, dir, "a.jsonl");
    const QByteArray b = dump(7, dir, "b.jsonl");
    const QByteArray c = dump(8, dir, "c.jsonl");
    qInfo("dump: %lld bytes, %lld lines", static_cast<long long>(a.size()), static_cast<long long>(a.count('\n')));
    QVERIFY(a.count('\n') > 100);
    QVERIFY(a.contains("\"kind\":\"event\""));
    QVERIFY(a.contains("\"kind\":\"fleet\""));
    QVERIFY(a.contains("\"kind\":\"job\""));
    QVERIFY(a.contains("EVENT_TYPE_JOB_INTERRUPTED"));
    QVERIFY(a == b);
    QVERIFY(a != c);
}

QByteArray TwinDeterminismTest::liveDigest(std::uint64_t seed) {
    QTemporaryDir dir;
    SimConfig config;
    config.seed = seed;
    config.scenarioFile =
        writeFile(dir, "s.scn", "at 1m xid 48 gpu=r02-n03-g1\nat 2m link-flap nic=r05-n01-ib0 count=3\n");
    auto twin = makeTwin(config);
    QCryptographicHash hash(QCryptographicHash::Sha256);
    run(*twin, 300, [&](const FleetChanges& c) {
        hash.addData(QByteArrayView(reinterpret_cast<const char*>(c.samples.data()),
                                    static_cast<qsizetype>(c.samples.size() * sizeof(Sample))));
        for (const auto& e : c.events) hash.addData(QByteArray::fromStdString(e.SerializeAsString()));
        for (const auto& s : c.states) hash.addData(QByteArray::fromStdString(s.SerializeAsString()));
        for (const auto& j : c.jobs) hash.addData(QByteArray::fromStdString(j.SerializeAsString()));
    });
    return hash.result();
}

void TwinDeterminismTest::liveChangesAreIdentical() {
    const QByteArray a = liveDigest(3);
    QCOMPARE(liveDigest(3), a);
    QVERIFY(liveDigest(4) != a);
}

QTEST_GUILESS_MAIN(TwinDeterminismTest)
#include "tst_twin_determinism.moc"

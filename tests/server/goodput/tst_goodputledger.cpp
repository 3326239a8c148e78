// GoodputLedger: every badput category by hand, a multi-disruption timeline that sums exactly,
// confirmed vs provisional, the sliding window, bad inputs and the cost per record.
#include "GoodputLedger.h"

#include <QElapsedTimer>
#include <QTest>

#include <cmath>
#include <functional>
#include <limits>

using watchfloor::server::GoodputLedger;
using watchfloor::server::Seconds;
using watchfloor::v1::GoodputBreakdown;

using LedgerAction = std::function<void(GoodputLedger&)>;
Q_DECLARE_METATYPE(LedgerAction)

namespace {

Seconds s(double seconds) { return Seconds(seconds); }

const Seconds kIdealStep = s(10);

double sumOfCategories(const GoodputBreakdown& b) {
    return b.productive_s() + b.accelerator_init_s() + b.training_prep_s() + b.program_startup_s() +
           b.data_loading_sync_s() + b.checkpoint_save_s() + b.checkpoint_restore_s() + b.wasted_progress_s() +
           b.infra_recovery_s() + b.straggler_slowdown_s() + b.other_s();
}

bool anyCategoryNegative(const GoodputBreakdown& b) {
    return b.productive_s() < 0 || b.confirmed_productive_s() < 0 || b.accelerator_init_s() < 0 ||
           b.training_prep_s() < 0 || b.program_startup_s() < 0 || b.data_loading_sync_s() < 0 ||
           b.checkpoint_save_s() < 0 || b.checkpoint_restore_s() < 0 || b.wasted_progress_s() < 0 ||
           b.infra_recovery_s() < 0 || b.straggler_slowdown_s() < 0 || b.other_s() < 0;
}

}  // namespace

class TestGoodputLedger : public QObject {
    Q_OBJECT

private slots:
    void intervalCategories_data();
    void intervalCategories();
    void productiveAndStragglerSlowdown_data();
    void productiveAndStragglerSlowdown();
    void programStartupIsFirstStepMinusIdeal();
    void aggregatedFirstRecordChargesAllExcessToStartup();
    void blockingSaveAfterSteps();
    void blockingSaveOverlappingStepsMovesTimeOutOfSteps();
    void wastedProgressIsStepsAfterLastDurableCheckpoint();
    void partlyCheckpointedRunIsSplitProportionally();
    void infraRecoveryRunsFromInFlightStepToRestart();
    void restartWithoutDisruptionRecordImpliesOne();
    void gapsBetweenRecordsAreOther();
    void onlyFirstDataLoadPerSegmentIsSync();
    void restoringAnOlderCheckpointWastesLaterDurableSteps();
    void ettrCountsSlowStepsGoodputDoesNot();
    void ettrAndGoodputAgreeWithoutSlowSteps();
    void multiDisruptionTimelineSumsExactly();
    void confirmedVersusProvisional();
    void slidingWindowEttr();
    void badInputs_data();
    void badInputs();
    void nothingBeforeJobStart();
    void millionsOfRecordsStayLinear();
    void fleetBreakdownIsGpuWeighted();
};

void TestGoodputLedger::intervalCategories_data() {
    QTest::addColumn<LedgerAction>("record");
    QTest::addColumn<int>("field");  // GoodputBreakdown field number
    // jobStart(0), one record over [10, 40]: 30 s in its category, the 10 s gap before is OTHER.
    QTest::newRow("accelerator init") << LedgerAction([](GoodputLedger& l) { l.acceleratorInit(s(10), s(40)); })
                                      << int(GoodputBreakdown::kAcceleratorInitSFieldNumber);
    QTest::newRow("training prep") << LedgerAction([](GoodputLedger& l) { l.trainingPrep(s(10), s(40)); })
                                   << int(GoodputBreakdown::kTrainingPrepSFieldNumber);
    QTest::newRow("data loading sync") << LedgerAction([](GoodputLedger& l) { l.dataLoadingSync(s(10), s(40)); })
                                       << int(GoodputBreakdown::kDataLoadingSyncSFieldNumber);
    QTest::newRow("checkpoint restore") << LedgerAction([](GoodputLedger& l) { l.checkpointRestore(0, s(10), s(40)); })
                                        << int(GoodputBreakdown::kCheckpointRestoreSFieldNumber);
    QTest::newRow("checkpoint save") << LedgerAction([](GoodputLedger& l) { l.checkpointSave(0, s(10), s(40)); })
                                     << int(GoodputBreakdown::kCheckpointSaveSFieldNumber);
}

void TestGoodputLedger::intervalCategories() {
    QFETCH(LedgerAction, record);
    QFETCH(int, field);
    GoodputLedger ledger(kIdealStep);
    ledger.jobStart(s(0));
    record(ledger);
    const GoodputBreakdown b = ledger.breakdown(s(40));

    const auto* descriptor = GoodputBreakdown::descriptor();
    const auto* reflection = GoodputBreakdown::GetReflection();
    for (int i = 0; i < descriptor->field_count(); ++i) {
        const auto* f = descriptor->field(i);
        double expected = 0;
        if (f->number() == field)
            expected = 30;
        else if (f->number() == GoodputBreakdown::kOtherSFieldNumber)
            expected = 10;
        else if (f->number() == GoodputBreakdown::kTotalSFieldNumber)
            expected = 40;
        QVERIFY2(reflection->GetDouble(b, f) == expected, f->name().c_str());
    }
    QCOMPARE(ledger.issues().rejected, quint64(0));
}

void TestGoodputLedger::productiveAndStragglerSlowdown_data() {
    QTest::addColumn<double>("durationS");
    QTest::addColumn<double>("productiveS");
    QTest::addColumn<double>("stragglerS");
    // 10 steps at an ideal 10 s: ideal total 100 s.
    QTest::newRow("ideal pace") << 100.0 << 100.0 << 0.0;
    QTest::newRow("slowed 20%") << 120.0 << 100.0 << 20.0;      // 120 − 100 = 20 s excess
    QTest::newRow("faster than ideal") << 90.0 << 90.0 << 0.0;  // never negative slowdown
    QTest::newRow("S = 1.5") << 150.0 << 100.0 << 50.0;         // waste 1 − 1/S = 1/3 of 150
}

void TestGoodputLedger::productiveAndStragglerSlowdown() {
    QFETCH(double, durationS);
    QFETCH(double, productiveS);
    QFETCH(double, stragglerS);
    GoodputLedger ledger(kIdealStep);
    ledger.jobStart(s(0));
    ledger.steps(0, 10, s(0), s(durationS), false);
    const GoodputBreakdown b = ledger.breakdown(s(durationS));
    QCOMPARE(b.productive_s(), productiveS);
    QCOMPARE(b.straggler_slowdown_s(), stragglerS);
    QCOMPARE(b.other_s(), 0.0);
    QCOMPARE(b.total_s(), durationS);
}

void TestGoodputLedger::programStartupIsFirstStepMinusIdeal() {
    GoodputLedger ledger(kIdealStep);
    ledger.jobStart(s(0));
    ledger.steps(0, 1, s(0), s(70), true);     // first step 70 s: startup 70 − 10 = 60, productive 10
    ledger.steps(1, 9, s(70), s(160), false);  // 9 steps in 90 s: productive 90
    const GoodputBreakdown b = ledger.breakdown(s(160));
    QCOMPARE(b.program_startup_s(), 60.0);
    QCOMPARE(b.productive_s(), 100.0);
    QCOMPARE(b.straggler_slowdown_s(), 0.0);
    QCOMPARE(b.total_s(), 160.0);
}

void TestGoodputLedger::aggregatedFirstRecordChargesAllExcessToStartup() {
    GoodputLedger ledger(kIdealStep);
    ledger.jobStart(s(0));
    // Steps 0..9 as one flagged record in 160 s: the first step cannot be told apart, so the
    // whole excess 160 − 100 = 60 is startup (documented: record the first step alone).
    ledger.steps(0, 10, s(0), s(160), true);
    const GoodputBreakdown b = ledger.breakdown(s(160));
    QCOMPARE(b.program_startup_s(), 60.0);
    QCOMPARE(b.productive_s(), 100.0);
    QCOMPARE(b.straggler_slowdown_s(), 0.0);
}

void TestGoodputLedger::blockingSaveAfterSteps() {
    GoodputLedger ledger(kIdealStep);
    ledger.jobStart(s(0));
    ledger.steps(0, 10, s(0), s(100), false);  // productive 100, at risk
    ledger.checkpointSave(9, s(100), s(105));  // blocking 5 s; steps 0..9 durable
    const GoodputBreakdown b = ledger.breakdown(s(105));
    QCOMPARE(b.checkpoint_save_s(), 5.0);
    QCOMPARE(b.productive_s(), 100.0);
    QCOMPARE(b.confirmed_productive_s(), 100.0);
    QCOMPARE(ledger.lastDurableStep(), quint64(9));
    QCOMPARE(sumOfCategories(b), b.total_s());
}

void TestGoodputLedger::blockingSaveOverlappingStepsMovesTimeOutOfSteps() {
    {
        GoodputLedger ledger(kIdealStep);
        ledger.jobStart(s(0));
        ledger.steps(0, 10, s(0), s(110), false);  // productive 100, straggler 10
        ledger.checkpointSave(9, s(104), s(110));  // 6 s blocked inside the steps: 100 − 6 = 94
        const GoodputBreakdown b = ledger.breakdown(s(110));
        QCOMPARE(b.checkpoint_save_s(), 6.0);
        QCOMPARE(b.productive_s(), 94.0);
        QCOMPARE(b.confirmed_productive_s(), 94.0);
        QCOMPARE(b.straggler_slowdown_s(), 10.0);
        QCOMPARE(b.total_s(), 110.0);
        QCOMPARE(b.other_s(), 0.0);
        QCOMPARE(ledger.issues().clipped, quint64(0));
    }
    {
        GoodputLedger ledger(kIdealStep);
        ledger.jobStart(s(0));
        ledger.steps(0, 10, s(0), s(110), false);
        ledger.checkpointSave(9, s(106), s(112));  // 106..110 inside (4 s) + 110..112 after (2 s)
        const GoodputBreakdown b = ledger.breakdown(s(112));
        QCOMPARE(b.checkpoint_save_s(), 6.0);
        QCOMPARE(b.productive_s(), 96.0);  // 100 − 4
        QCOMPARE(sumOfCategories(b), 112.0);
    }
}

void TestGoodputLedger::wastedProgressIsStepsAfterLastDurableCheckpoint() {
    GoodputLedger ledger(kIdealStep);
    ledger.jobStart(s(0));
    ledger.steps(0, 10, s(0), s(100), false);
    ledger.checkpointSave(9, s(100), s(105));
    ledger.steps(10, 10, s(105), s(215), false);  // productive 100 + straggler 10, at risk
    ledger.disruption(s(215));                    // lost: 100 + 10 = 110
    const GoodputBreakdown b = ledger.breakdown(s(215));
    QCOMPARE(b.wasted_progress_s(), 110.0);
    QCOMPARE(b.productive_s(), 100.0);
    QCOMPARE(b.straggler_slowdown_s(), 0.0);  // slowdown of lost steps is part of the waste
    QCOMPARE(ledger.disruptions(), 1u);
    QCOMPARE(sumOfCategories(b), 215.0);
}

void TestGoodputLedger::partlyCheckpointedRunIsSplitProportionally() {
    GoodputLedger ledger(kIdealStep);
    ledger.jobStart(s(0));
    ledger.steps(0, 20, s(0), s(240), false);  // productive 200, straggler 40, at risk
    // An asynchronous checkpoint of step 4 persists after the run: steps 0..4 are 5/20 of it,
    // so 50 productive + 10 straggler become durable; 150 + 30 of steps 5..19 stay at risk.
    ledger.checkpointSave(4, s(240), s(242));
    QCOMPARE(ledger.breakdown(s(242)).confirmed_productive_s(), 50.0);
    QCOMPARE(ledger.breakdown(s(242)).productive_s(), 200.0);
    ledger.disruption(s(242));
    const GoodputBreakdown b = ledger.breakdown(s(242));
    QCOMPARE(b.wasted_progress_s(), 180.0);
    QCOMPARE(b.productive_s(), 50.0);
    QCOMPARE(b.straggler_slowdown_s(), 10.0);
    QCOMPARE(b.checkpoint_save_s(), 2.0);
    QCOMPARE(sumOfCategories(b), 242.0);
    // The lost steps left the sliding window too: 50 productive + 10 slow over the job's 242 s.
    QCOMPARE(ledger.slidingGoodputRatio(s(242)), 50.0 / 242.0);
    QCOMPARE(ledger.slidingEttrRatio(s(242)), 60.0 / 242.0);
}

void TestGoodputLedger::infraRecoveryRunsFromInFlightStepToRestart() {
    GoodputLedger ledger(kIdealStep);
    ledger.jobStart(s(0));
    ledger.steps(0, 10, s(0), s(100), false);
    ledger.checkpointSave(9, s(100), s(105));
    // The step in flight began at 105 when the save ended; the failure is noticed at 130.
    ledger.disruption(s(130));
    // While down, recovery grows with the clock: 300 − 105 = 195.
    QCOMPARE(ledger.breakdown(s(300)).infra_recovery_s(), 195.0);
    ledger.jobStart(s(400));  // 400 − 105 = 295
    const GoodputBreakdown b = ledger.breakdown(s(400));
    QCOMPARE(b.infra_recovery_s(), 295.0);
    QCOMPARE(b.wasted_progress_s(), 0.0);
    QCOMPARE(b.other_s(), 0.0);
    QCOMPARE(sumOfCategories(b), 400.0);
}

void TestGoodputLedger::restartWithoutDisruptionRecordImpliesOne() {
    GoodputLedger ledger(kIdealStep);
    ledger.jobStart(s(0));
    ledger.steps(0, 10, s(0), s(100), false);  // no checkpoint: all at risk
    ledger.jobStart(s(150));                   // infra 150 − 100 = 50, wasted 100
    const GoodputBreakdown b = ledger.breakdown(s(150));
    QCOMPARE(ledger.disruptions(), 1u);
    QCOMPARE(b.wasted_progress_s(), 100.0);
    QCOMPARE(b.infra_recovery_s(), 50.0);
    QCOMPARE(b.productive_s(), 0.0);
}

void TestGoodputLedger::gapsBetweenRecordsAreOther() {
    GoodputLedger ledger(kIdealStep);
    ledger.jobStart(s(0));
    ledger.steps(0, 10, s(0), s(100), false);
    ledger.steps(10, 10, s(150), s(250), false);  // 100..150 unaccounted: OTHER 50
    QCOMPARE(ledger.breakdown(s(250)).other_s(), 50.0);
    QCOMPARE(ledger.breakdown(s(280)).other_s(), 80.0);  // + 30 s since the last record
}

void TestGoodputLedger::onlyFirstDataLoadPerSegmentIsSync() {
    GoodputLedger ledger(kIdealStep);
    ledger.jobStart(s(0));
    ledger.dataLoadingSync(s(0), s(10));  // sync: 10
    ledger.steps(0, 5, s(10), s(60), true);
    ledger.dataLoadingSync(s(60), s(70));  // later load of the segment: async, not counted
    ledger.disruption(s(60));
    ledger.jobStart(s(80));
    ledger.dataLoadingSync(s(80), s(84));  // first after the restart: sync, 10 + 4
    QCOMPARE(ledger.breakdown(s(84)).data_loading_sync_s(), 14.0);
    QCOMPARE(ledger.issues().rejected, quint64(0));
}

void TestGoodputLedger::restoringAnOlderCheckpointWastesLaterDurableSteps() {
    GoodputLedger ledger(kIdealStep);
    ledger.jobStart(s(0));
    ledger.steps(0, 10, s(0), s(100), false);
    ledger.checkpointSave(9, s(100), s(105));
    ledger.steps(10, 10, s(105), s(205), false);
    ledger.checkpointSave(19, s(205), s(210));
    ledger.steps(20, 5, s(210), s(260), false);  // at risk
    // Silent data corruption found: roll back to the clean checkpoint of step 9. Steps 10..19
    // (durable, 100) and 20..24 (at risk, 50) are recomputed: 150 wasted.
    ledger.checkpointRestore(9, s(260), s(270));
    GoodputBreakdown b = ledger.breakdown(s(270));
    QCOMPARE(b.wasted_progress_s(), 150.0);
    QCOMPARE(b.confirmed_productive_s(), 100.0);
    QCOMPARE(b.productive_s(), 100.0);
    QCOMPARE(b.checkpoint_restore_s(), 10.0);
    QCOMPARE(ledger.lastDurableStep(), quint64(9));
    ledger.steps(10, 10, s(270), s(370), false);  // recomputed steps are accepted again
    b = ledger.breakdown(s(370));
    QCOMPARE(b.productive_s(), 200.0);
    QCOMPARE(sumOfCategories(b), 370.0);
    QCOMPARE(ledger.issues().rejected, quint64(0));
}

void TestGoodputLedger::multiDisruptionTimelineSumsExactly() {
    GoodputLedger ledger(kIdealStep);
    // Segment 1
    ledger.jobStart(s(0));
    ledger.acceleratorInit(s(0), s(30));          // init 30
    ledger.trainingPrep(s(30), s(50));            // prep 20
    ledger.dataLoadingSync(s(50), s(60));         // data 10
    ledger.steps(0, 1, s(60), s(100), true);      // startup 40 − 10 = 30, productive 10
    ledger.steps(1, 9, s(100), s(200), false);    // productive 90, straggler 100 − 90 = 10
    ledger.checkpointSave(9, s(200), s(208));     // save 8; steps 0..9 durable
    ledger.steps(10, 10, s(208), s(308), false);  // productive 100, at risk
    ledger.steps(20, 5, s(320), s(370), false);   // OTHER 308..320 = 12; productive 50, at risk
    ledger.disruption(s(375));                    // wasted 100 + 50 = 150
    // Segment 2
    ledger.jobStart(s(500));                      // infra 500 − 370 = 130
    ledger.acceleratorInit(s(500), s(520));       // init 30 + 20 = 50
    ledger.checkpointRestore(9, s(520), s(545));  // restore 25
    ledger.dataLoadingSync(s(545), s(550));       // data 10 + 5 = 15
    ledger.steps(10, 1, s(550), s(580), true);    // startup 30 + 20 = 50, productive 10
    ledger.steps(11, 9, s(580), s(670), false);   // productive 90
    ledger.checkpointSave(19, s(670), s(676));    // save 8 + 6 = 14; steps 10..19 durable
    ledger.steps(20, 10, s(676), s(796), false);  // productive 100 + straggler 20, at risk
    ledger.disruption(s(800));                    // wasted 150 + 120 = 270
    // Segment 3
    ledger.jobStart(s(900));                       // infra 130 + (900 − 796) = 234
    ledger.checkpointRestore(19, s(900), s(920));  // restore 25 + 20 = 45
    ledger.steps(20, 1, s(920), s(935), true);     // startup 50 + 5 = 55, productive 10
    ledger.steps(21, 4, s(935), s(975), false);    // productive 40
    ledger.checkpointSave(24, s(975), s(980));     // save 14 + 5 = 19
    ledger.jobEnd(s(1000));                        // OTHER 12 + 20 = 32

    const GoodputBreakdown b = ledger.breakdown(s(5000));  // after jobEnd: total stops at 1000
    QCOMPARE(b.total_s(), 1000.0);
    QCOMPARE(b.productive_s(), 250.0);  // 100 + 100 + 50
    QCOMPARE(b.confirmed_productive_s(), 250.0);
    QCOMPARE(b.straggler_slowdown_s(), 10.0);  // segment 2's slow steps were lost
    QCOMPARE(b.accelerator_init_s(), 50.0);
    QCOMPARE(b.training_prep_s(), 20.0);
    QCOMPARE(b.program_startup_s(), 55.0);
    QCOMPARE(b.data_loading_sync_s(), 15.0);
    QCOMPARE(b.checkpoint_save_s(), 19.0);
    QCOMPARE(b.checkpoint_restore_s(), 45.0);
    QCOMPARE(b.wasted_progress_s(), 270.0);
    QCOMPARE(b.infra_recovery_s(), 234.0);
    QCOMPARE(b.other_s(), 32.0);
    // 250+10+50+20+55+15+19+45+270+234+32 = 1000, with OTHER known independently (12 + 20).
    QCOMPARE(sumOfCategories(b), b.total_s());
    QCOMPARE(ledger.disruptions(), 2u);
    QCOMPARE(ledger.lastDurableStep(), quint64(24));
    QCOMPARE(ledger.goodputRatio(s(1000)), 0.25);
    QCOMPARE(ledger.ettrRatio(s(1000)), 0.26);  // + the 10 s of slow, kept steps of segment 1
    QCOMPARE(ledger.issues().rejected + ledger.issues().clipped, quint64(0));
}

void TestGoodputLedger::ettrCountsSlowStepsGoodputDoesNot() {
    // A job holding a tray 15 % slow for its whole life (the MegaScale case), worked by hand:
    GoodputLedger ledger(kIdealStep, s(600));
    ledger.jobStart(s(0));
    ledger.acceleratorInit(s(0), s(60));              // init 60
    ledger.dataLoadingSync(s(60), s(70));             // data 10
    ledger.steps(0, 1, s(70), s(90), true);           // startup 20 - 10 = 10, productive 10
    ledger.steps(1, 99, s(90), s(1228.5), false);     // 99 x 11.5 s: productive 990, slow 148.5
    ledger.checkpointSave(99, s(1228.5), s(1238.5));  // save 10; everything durable
    const GoodputBreakdown b = ledger.breakdown(s(1238.5));
    QCOMPARE(b.productive_s(), 1000.0);
    QCOMPARE(b.straggler_slowdown_s(), 148.5);
    QCOMPARE(sumOfCategories(b), 1238.5);
    // Goodput counts the steps at the ideal pace; ETTR (Meta) counts the wall time they took.
    QCOMPARE(ledger.goodputRatio(s(1238.5)), 1000.0 / 1238.5);  // 0.807
    QCOMPARE(ledger.ettrRatio(s(1238.5)), 1148.5 / 1238.5);     // 0.927: 12 points apart
    QCOMPARE(ledger.ettrRatio(s(1238.5)) - ledger.goodputRatio(s(1238.5)), 148.5 / 1238.5);
    // The window [638.5, 1238.5] holds 590 s of the slow run (and the 10 s save): all of those
    // 590 s are ETTR, 590 / 1.15 = 513.04 s of them goodput.
    QCOMPARE(ledger.slidingEttrRatio(s(1238.5)), 590.0 / 600.0);
    QCOMPARE(ledger.slidingGoodputRatio(s(1238.5)), 590.0 / 1.15 / 600.0);
    // Confirmed goodput is unaffected: it is the goodput of the durable steps.
    QCOMPARE(ledger.confirmedGoodputRatio(s(1238.5)), 1000.0 / 1238.5);
}

void TestGoodputLedger::ettrAndGoodputAgreeWithoutSlowSteps() {
    GoodputLedger ledger(kIdealStep, s(100));
    ledger.jobStart(s(0));
    ledger.steps(0, 10, s(0), s(100), false);  // at the ideal pace
    ledger.checkpointSave(9, s(100), s(110));
    ledger.steps(10, 5, s(110), s(160), false);
    ledger.disruption(s(160));  // 50 at risk: lost from both
    QCOMPARE(ledger.goodputRatio(s(200)), 100.0 / 200.0);
    QCOMPARE(ledger.ettrRatio(s(200)), 100.0 / 200.0);
    QCOMPARE(ledger.slidingEttrRatio(s(200)), ledger.slidingGoodputRatio(s(200)));
}

void TestGoodputLedger::confirmedVersusProvisional() {
    GoodputLedger ledger(kIdealStep);
    ledger.jobStart(s(0));
    ledger.steps(0, 10, s(0), s(100), false);
    ledger.checkpointSave(9, s(100), s(110));
    ledger.steps(10, 10, s(110), s(210), false);
    // At 210: 200 productive so far, only steps 0..9 (100) behind a durable checkpoint.
    QCOMPARE(ledger.goodputRatio(s(210)), 200.0 / 210.0);
    QCOMPARE(ledger.confirmedGoodputRatio(s(210)), 100.0 / 210.0);
    ledger.disruption(s(210));
    ledger.jobStart(s(260));
    // The provisional steps were lost: both ratios are now 100 / 260.
    QCOMPARE(ledger.goodputRatio(s(260)), 100.0 / 260.0);
    QCOMPARE(ledger.confirmedGoodputRatio(s(260)), 100.0 / 260.0);
}

void TestGoodputLedger::slidingWindowEttr() {
    GoodputLedger ledger(kIdealStep, s(100));
    ledger.jobStart(s(0));
    ledger.steps(0, 5, s(0), s(50), false);
    QCOMPARE(ledger.slidingEttrRatio(s(50)), 1.0);          // job younger than the window: 50/50
    QCOMPARE(ledger.slidingEttrRatio(s(75)), 50.0 / 75.0);  // [0, 75]: 50 productive
    ledger.steps(5, 5, s(100), s(150), false);
    QCOMPARE(ledger.slidingEttrRatio(s(150)), 0.5);      // [50, 150]: steps 100..150 = 50
    QCOMPARE(ledger.slidingEttrRatio(s(175)), 0.5);      // [75, 175]: still 50
    QCOMPARE(ledger.slidingEttrRatio(s(225)), 0.25);     // [125, 225]: 125..150 = 25
    ledger.steps(10, 5, s(225), s(325), false);          // 100 s for 50 s of ideal work
    QCOMPARE(ledger.slidingGoodputRatio(s(325)), 0.5);   // [225, 325]: 50 productive
    QCOMPARE(ledger.slidingEttrRatio(s(325)), 1.0);      // ... and 50 slow: all of it in steps
    QCOMPARE(ledger.slidingGoodputRatio(s(375)), 0.25);  // [275, 325] half of that run: 25
    QCOMPARE(ledger.slidingEttrRatio(s(375)), 0.5);      // 25 + 25 slow
    ledger.disruption(s(375));                           // no checkpoint: every step is lost
    QCOMPARE(ledger.slidingEttrRatio(s(375)), 0.0);
    QCOMPARE(ledger.slidingGoodputRatio(s(375)), 0.0);
    QCOMPARE(ledger.goodputRatio(s(375)), 0.0);
}

void TestGoodputLedger::badInputs_data() {
    // Base for every row: jobStart(0); steps 0..9 over [0, 100] (productive 100, no checkpoint).
    QTest::addColumn<LedgerAction>("bad");
    QTest::addColumn<quint64>("rejected");
    QTest::addColumn<quint64>("clipped");
    QTest::addColumn<double>("productiveS");
    QTest::addColumn<double>("trainingPrepS");
    QTest::addColumn<double>("wastedS");
    QTest::addColumn<double>("totalAt500S");

    const double nan = std::numeric_limits<double>::quiet_NaN();
    QTest::newRow("end before begin") << LedgerAction([](GoodputLedger& l) { l.trainingPrep(s(200), s(150)); })
                                      << quint64(1) << quint64(0) << 100.0 << 0.0 << 0.0 << 500.0;
    QTest::newRow("NaN time") << LedgerAction([nan](GoodputLedger& l) { l.trainingPrep(s(nan), s(150)); }) << quint64(1)
                              << quint64(0) << 100.0 << 0.0 << 0.0 << 500.0;
    QTest::newRow("interval before accounted time")
        << LedgerAction([](GoodputLedger& l) { l.trainingPrep(s(20), s(50)); }) << quint64(1) << quint64(0) << 100.0
        << 0.0 << 0.0 << 500.0;
    QTest::newRow("interval overlapping accounted time: only 100..120 counts")
        << LedgerAction([](GoodputLedger& l) { l.trainingPrep(s(90), s(120)); }) << quint64(0) << quint64(1) << 100.0
        << 20.0 << 0.0 << 500.0;
    QTest::newRow("save overlapping a non-step record is clipped, not taken from steps")
        << LedgerAction([](GoodputLedger& l) {
               l.trainingPrep(s(100), s(120));
               l.checkpointSave(9, s(110), s(125));
           })
        << quint64(0) << quint64(1) << 100.0 << 20.0 << 0.0 << 500.0;
    QTest::newRow("steps repeated") << LedgerAction([](GoodputLedger& l) { l.steps(5, 3, s(100), s(130), false); })
                                    << quint64(1) << quint64(0) << 100.0 << 0.0 << 0.0 << 500.0;
    QTest::newRow("zero steps") << LedgerAction([](GoodputLedger& l) { l.steps(10, 0, s(100), s(130), false); })
                                << quint64(1) << quint64(0) << 100.0 << 0.0 << 0.0 << 500.0;
    QTest::newRow("disruption before last record: moved to it")
        << LedgerAction([](GoodputLedger& l) { l.disruption(s(50)); }) << quint64(0) << quint64(1) << 0.0 << 0.0
        << 100.0 << 500.0;
    QTest::newRow("disruption twice") << LedgerAction([](GoodputLedger& l) {
        l.disruption(s(100));
        l.disruption(s(110));
    }) << quint64(1) << quint64(0) << 0.0
                                      << 0.0 << 100.0 << 500.0;
    QTest::newRow("work while down") << LedgerAction([](GoodputLedger& l) {
        l.disruption(s(100));
        l.steps(10, 1, s(110), s(120), false);
    }) << quint64(1) << quint64(0) << 0.0
                                     << 0.0 << 100.0 << 500.0;
    QTest::newRow("restart before the disruption: moved to it") << LedgerAction([](GoodputLedger& l) {
        l.disruption(s(120));
        l.jobStart(s(110));
    }) << quint64(0) << quint64(1) << 0.0 << 0.0 << 100.0 << 500.0;
    QTest::newRow("records after jobEnd") << LedgerAction([](GoodputLedger& l) {
        l.jobEnd(s(100));
        l.steps(10, 1, s(110), s(120), false);
        l.jobStart(s(130));
    }) << quint64(2) << quint64(0) << 100.0
                                          << 0.0 << 0.0 << 100.0;
}

void TestGoodputLedger::badInputs() {
    QFETCH(LedgerAction, bad);
    QFETCH(quint64, rejected);
    QFETCH(quint64, clipped);
    QFETCH(double, productiveS);
    QFETCH(double, trainingPrepS);
    QFETCH(double, wastedS);
    QFETCH(double, totalAt500S);

    GoodputLedger ledger(kIdealStep);
    ledger.jobStart(s(0));
    ledger.steps(0, 10, s(0), s(100), false);
    bad(ledger);

    QCOMPARE(quint64(ledger.issues().rejected), rejected);
    QCOMPARE(quint64(ledger.issues().clipped), clipped);
    QVERIFY(!ledger.issues().lastProblem.empty());
    const GoodputBreakdown b = ledger.breakdown(s(500));
    QCOMPARE(b.productive_s(), productiveS);
    QCOMPARE(b.training_prep_s(), trainingPrepS);
    QCOMPARE(b.wasted_progress_s(), wastedS);
    QCOMPARE(b.total_s(), totalAt500S);
    QVERIFY(!anyCategoryNegative(b));
    QCOMPARE(sumOfCategories(b), b.total_s());
}

void TestGoodputLedger::nothingBeforeJobStart() {
    GoodputLedger ledger(kIdealStep);
    ledger.steps(0, 10, s(0), s(100), false);
    ledger.disruption(s(100));
    ledger.jobEnd(s(100));
    QCOMPARE(quint64(ledger.issues().rejected), quint64(3));
    QCOMPARE(ledger.breakdown(s(100)).total_s(), 0.0);
    QCOMPARE(ledger.goodputRatio(s(100)), 0.0);
    QCOMPARE(ledger.slidingEttrRatio(s(100)), 0.0);
    QCOMPARE(ledger.disruptions(), 0u);
}

void TestGoodputLedger::millionsOfRecordsStayLinear() {
    // A long run: 100-step records of 1 s steps, a save every 10 records, a disruption every
    // 997 records. Quadratic work or unbounded at-risk queues would blow the time budget.
    GoodputLedger ledger(s(1.0));
    double t = 0;
    std::uint64_t step = 0;
    ledger.jobStart(s(t));
    // No wall-clock limit (the machine and a sanitizer build set the pace): the cost of a record
    // must not grow with the records before it, so the last 10 % may not take much longer than
    // the first 10 %.
    QElapsedTimer timer;
    timer.start();
    constexpr int kRecords = 2'000'000;
    constexpr int kTenth = kRecords / 10;
    qint64 firstTenthNs = 0, lastTenthStartNs = 0;
    for (int i = 1; i <= kRecords; ++i) {
        if (i == kTenth + 1) firstTenthNs = timer.nsecsElapsed();
        if (i == kRecords - kTenth + 1) lastTenthStartNs = timer.nsecsElapsed();
        ledger.steps(step, 100, s(t), s(t + 101.0), false);  // 1 s straggler excess per record
        step += 100;
        t += 101.0;
        if (i % 10 == 0) {
            ledger.checkpointSave(step - 1, s(t), s(t + 2.0));
            t += 2.0;
        }
        if (i % 997 == 0) {
            ledger.disruption(s(t + 5.0));
            t += 60.0;
            ledger.jobStart(s(t));
            ledger.checkpointRestore(ledger.lastDurableStep(), s(t), s(t + 10.0));
            t += 10.0;
            step = ledger.lastDurableStep() + 1;
        }
        if (i % 100'000 == 0) QVERIFY(ledger.slidingEttrRatio(s(t)) > 0.9);
    }
    const qint64 lastTenthNs = timer.nsecsElapsed() - lastTenthStartNs;
    qInfo("2M step records + saves + disruptions: %lld ms; first 10 %%: %lld ms, last 10 %%: %lld ms", timer.elapsed(),
          firstTenthNs / 1'000'000, lastTenthNs / 1'000'000);
    QVERIFY2(lastTenthNs < 3 * firstTenthNs + 50'000'000,
             qPrintable(QString("the last 10 %% of records took %1 ms, the first %2 ms: cost grows with history")
                            .arg(lastTenthNs / 1'000'000)
                            .arg(firstTenthNs / 1'000'000)));

    const GoodputBreakdown b = ledger.breakdown(s(t));
    QVERIFY(!anyCategoryNegative(b));
    QVERIFY(std::fabs(sumOfCategories(b) - b.total_s()) < 1e-9 * b.total_s());
    QCOMPARE(ledger.disruptions(), std::uint32_t(kRecords / 997));
    QCOMPARE(ledger.issues().rejected + ledger.issues().clipped, quint64(0));
    // Per record: 100 productive, 1 straggler; 2 s saves per 10 records; losses are the records
    // after the last save of each segment.
    QVERIFY(b.productive_s() / b.total_s() > 0.95);
}

void TestGoodputLedger::fleetBreakdownIsGpuWeighted() {
    GoodputLedger small(kIdealStep);  // 8 GPUs: 100 s productive, 20 s straggler
    small.jobStart(s(0));
    small.steps(0, 10, s(0), s(120), false);
    GoodputLedger large(kIdealStep);  // 72 GPUs: 50 s productive, 70 s other
    large.jobStart(s(0));
    large.steps(0, 5, s(0), s(50), false);

    GoodputBreakdown fleet;
    watchfloor::server::accumulateBreakdown(fleet, small.breakdown(s(120)), 8);
    watchfloor::server::accumulateBreakdown(fleet, large.breakdown(s(120)), 72);
    QCOMPARE(fleet.total_s(), 80 * 120.0);                  // 9600 GPU-s
    QCOMPARE(fleet.productive_s(), 8 * 100.0 + 72 * 50.0);  // 800 + 3600 = 4400
    QCOMPARE(fleet.straggler_slowdown_s(), 8 * 20.0);       // 160
    QCOMPARE(fleet.other_s(), 72 * 70.0);                   // 5040
    QCOMPARE(sumOfCategories(fleet), fleet.total_s());
}

QTEST_GUILESS_MAIN(TestGoodputLedger)
#include "tst_goodputledger.moc"

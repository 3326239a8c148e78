// Issue 12, item 7, end to end against a real fleetd (digital twin, --tokens): alice writes a
// two-line note in File → Shift handoff… and posts it through the action dialog (the preview,
// the note as the one line fleetd stores, the operation succeeding); her report lists it as not
// acknowledged and her own banner offers no acknowledgement; bob's console shows the banner with
// the note and acknowledges it, the banner goes and alice's report says who acknowledged it and
// when; a viewer reads the banner but may neither acknowledge nor post; a note over fleetd's
// 2,048 bytes cannot be posted.
// WATCHFLOOR_HANDOFF_BANNER_SCREENSHOT=FILE.png keeps bob's window with the banner and
// WATCHFLOOR_HANDOFF_ACK_SCREENSHOT=FILE.png alice's report after the acknowledgement
// (docs/screenshots/handoff-banner.png, handoff-acknowledged.png).

#include "FleetdProcess.h"  // testbeds/
#include "OperatorConsole.h"

#include "ActionDialog.h"
#include "HandoffBanner.h"
#include "MainWindow.h"
#include "ShiftHandoffDialog.h"

#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTemporaryDir>
#include <QTest>

using namespace watchfloor;
namespace v1 = watchfloor::v1;

namespace {

constexpr const char* kAlice = "operator-token-handoff-alice01";
constexpr const char* kBob = "operator-token-handoff-bob0001";
constexpr const char* kViewer = "viewer-token-handoff-val00001";

void saveIfAsked(const char* variable, QWidget& widget) {
    if (const QByteArray shot = qgetenv(variable); !shot.isEmpty()) {
        QTest::qWait(100);  // screenshot only: let the layout settle
        QVERIFY(widget.grab().save(QString::fromLocal8Bit(shot)));
    }
}

// Confirms the dialog once its preview is ready; the operation's final state.
void confirmAndFollow(ui::ActionDialog& dialog) {
    QTRY_COMPARE_WITH_TIMEOUT(dialog.phase(), ui::ActionDialog::Phase::Ready, 10000);
    QVERIFY2(dialog.preview()->allowed(), dialog.preview()->refusal().c_str());
    QVERIFY(!dialog.reasonEdit()->text().isEmpty());  // pre-filled; the operator may change it
    dialog.confirmButton()->click();
    QTRY_VERIFY_WITH_TIMEOUT(dialog.statusText().contains(QStringLiteral("Succeeded")), 20000);
}

}  // namespace

class TestHandoffUi : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        if (testing::FleetdProcess::binary().isEmpty() || !QFile::exists(testing::FleetdProcess::binary()))
            QSKIP("FLEETD_BIN is not built");
    }

    void postedByOneShiftAcknowledgedByTheNext() {
        QTemporaryDir dir;
        QFile tokens(dir.filePath(QStringLiteral("tokens")));
        QVERIFY(tokens.open(QIODevice::WriteOnly));
        tokens.write(QByteArray("token ") + kAlice + " principal=alice role=operator\n" + "token " + kBob +
                     " principal=bob role=operator\n" + "token " + kViewer + " principal=val role=viewer\n");
        tokens.close();
        tokens.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
        testing::FleetdProcess fleetd;
        QVERIFY2(
            fleetd.start({QStringLiteral("--seed"), QStringLiteral("4"), QStringLiteral("--tokens"), tokens.fileName(),
                          QStringLiteral("--audit-log"), dir.filePath(QStringLiteral("audit.jsonl"))}),
            qPrintable(fleetd.errorString()));
        const QString target = QString::fromStdString(fleetd.address());

        testing::OperatorConsole alice(target, QString::fromLatin1(kAlice));
        alice.start();
        QTRY_VERIFY_WITH_TIMEOUT(alice.ready(), 30000);
        ui::HandoffBanner* aliceBanner = alice.window.handoffBanner();
        QVERIFY(aliceBanner);
        QVERIFY(!aliceBanner->isVisible());  // nothing posted yet

        // Alice writes the note and posts it.
        ui::ShiftHandoffDialog* report = alice.window.openShiftHandoff();
        QVERIFY(!report->postButton()->isEnabled());  // no note yet
        report->noteEdit()->setPlainText(QStringLiteral("r03 leak: facilities on site until 09:00\nkeep r03 isolated"));
        QVERIFY(report->postButton()->isEnabled());
        ui::ActionDialog* post = report->postToFleetd();
        QVERIFY(post);
        auto* noteShown = post->findChild<QLabel*>(QStringLiteral("handoffNoteLabel"));
        QVERIFY(noteShown);
        QCOMPARE(noteShown->text(), QStringLiteral("r03 leak: facilities on site until 09:00 / keep r03 isolated"));
        QTRY_COMPARE_WITH_TIMEOUT(post->phase(), ui::ActionDialog::Phase::Ready, 10000);
        QVERIFY2(post->previewHtml().contains(QStringLiteral("post a handoff note")), qPrintable(post->previewHtml()));
        const v1::ActionRequest sent = post->request();
        QCOMPARE(sent.handoff_period_end_unix_ms() - sent.handoff_period_start_unix_ms(), std::int64_t(8) * 3'600'000);
        confirmAndFollow(*post);
        post->close();

        QTRY_VERIFY_WITH_TIMEOUT(report->markdown().contains(QStringLiteral("## Handoff notes in fleetd (1)")), 10000);
        QVERIFY(report->markdown().contains(QStringLiteral("by alice, covering")));
        QVERIFY(report->markdown().contains(QStringLiteral("**not acknowledged yet**")));
        QVERIFY(report->markdown().contains(
            QStringLiteral("  > r03 leak: facilities on site until 09:00 / keep r03 isolated")));
        // Her own banner shows it, but the acknowledgement is the next shift's.
        QTRY_VERIFY_WITH_TIMEOUT(aliceBanner->isVisible(), 10000);
        QVERIFY(!aliceBanner->acknowledgeButton()->isEnabled());
        QCOMPARE(aliceBanner->acknowledgeButton()->toolTip(),
                 QStringLiteral("You posted this handoff; the next shift acknowledges it."));

        // A viewer reads it and can do nothing else with it.
        {
            testing::OperatorConsole val(target, QString::fromLatin1(kViewer));
            val.start();
            QTRY_VERIFY_WITH_TIMEOUT(val.store.rackCount() > 0 && val.control.role() == v1::ROLE_VIEWER, 30000);
            ui::HandoffBanner* banner = val.window.handoffBanner();
            QTRY_VERIFY_WITH_TIMEOUT(banner->isVisible(), 10000);
            QVERIFY(banner->text().contains(QStringLiteral("keep r03 isolated")));
            QVERIFY(!banner->acknowledgeButton()->isEnabled());
            QCOMPARE(banner->acknowledgeButton()->toolTip(),
                     QStringLiteral("Your role (viewer) can read handoffs but not acknowledge them."));
            QVERIFY(!banner->acknowledge());
            ui::ShiftHandoffDialog* viewerReport = val.window.openShiftHandoff();
            viewerReport->noteEdit()->setPlainText(QStringLiteral("a viewer's note"));
            QVERIFY(!viewerReport->postButton()->isEnabled());
            QVERIFY(!viewerReport->postToFleetd());
            viewerReport->close();
        }

        // Bob, the next shift: the banner names alice and shows the note; he acknowledges it.
        testing::OperatorConsole bob(target, QString::fromLatin1(kBob));
        bob.start();
        QTRY_VERIFY_WITH_TIMEOUT(bob.ready(), 30000);
        ui::HandoffBanner* bobBanner = bob.window.handoffBanner();
        QTRY_VERIFY_WITH_TIMEOUT(bobBanner->isVisible(), 10000);
        QVERIFY(bobBanner->text().contains(QStringLiteral("Shift handoff from alice")));
        QVERIFY(bobBanner->text().contains(QStringLiteral("not acknowledged yet")));
        QVERIFY(
            bobBanner->text().contains(QStringLiteral("r03 leak: facilities on site until 09:00 / keep r03 isolated")));
        QTRY_VERIFY_WITH_TIMEOUT(bobBanner->acknowledgeButton()->isEnabled(), 10000);
        saveIfAsked("WATCHFLOOR_HANDOFF_BANNER_SCREENSHOT", bob.window);
        ui::ActionDialog* ack = bobBanner->acknowledge();
        QVERIFY(ack);
        QCOMPARE(ack->request().handoff_id(), bobBanner->shownHandoffId().toStdString());
        ack->noteEdit()->setText(QStringLiteral("read; r03 stays isolated"));
        confirmAndFollow(*ack);
        ack->close();
        QTRY_VERIFY_WITH_TIMEOUT(!bobBanner->isVisible(), 10000);
        QTRY_VERIFY_WITH_TIMEOUT(!aliceBanner->isVisible(), 10000);

        // Alice's report now says who acknowledged it and when.
        QTRY_VERIFY_WITH_TIMEOUT(report->markdown().contains(QStringLiteral(": acknowledged by bob at ")), 10000);
        QVERIFY(report->markdown().contains(QStringLiteral("  > bob: read; r03 stays isolated")));
        QVERIFY(!report->markdown().contains(QStringLiteral("not acknowledged yet")));
        saveIfAsked("WATCHFLOOR_HANDOFF_ACK_SCREENSHOT", *report);

        // fleetd keeps a note to 2,048 bytes: a longer one is not offered for posting.
        report->noteEdit()->setPlainText(QString(2049, QLatin1Char('x')));
        QVERIFY(!report->postButton()->isEnabled());
        QVERIFY2(report->postButton()->toolTip().contains(QStringLiteral("2049 bytes")),
                 qPrintable(report->postButton()->toolTip()));
        QVERIFY(!report->postToFleetd());
        report->close();
    }
};

QTEST_MAIN(TestHandoffUi)
#include "tst_handoffui.moc"

// Issue 12, item 7: File → Shift handoff… opens the dialog; its export writes the Markdown it
// previews and a valid, non-trivial PDF of it (%PDF header, at least one page, %%EOF trailer).
// WATCHFLOOR_HANDOFF_SCREENSHOT=FILE.png saves the dialog as rendered (docs/screenshots), and the
// export beside it (FILE.md, FILE.pdf) for a look at the PDF.

#include "PageTestFleet.h"

#include "MainWindow.h"
#include "ShiftHandoffDialog.h"

#include "FleetStore.h"
#include "ShiftHandoff.h"

#include <QAction>
#include <QFile>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>

using namespace watchfloor;

class TestShiftHandoffUi : public QObject {
    Q_OBJECT
    testing::PageTestFleet m_fleet;

private slots:
    void exportWritesTheMarkdownAndAPdf() {
        v1::Incident* leak = m_fleet.s().add_incidents();
        leak->set_id(1);
        leak->set_state(v1::INCIDENT_STATE_ACKNOWLEDGED);
        leak->set_owner("alice");
        leak->mutable_root_cause()->set_summary("r02: coolant leak");
        leak->set_started_unix_ms(testing::PageTestFleet::kNowMs - 600'000);
        leak->set_member_count(2);
        client::FleetStore store;
        store.apply(store.addEndpoint(QStringLiteral("synthetic")), m_fleet.snapshot);
        store.flushChanges();
        ui::PageContext context;
        context.store = &store;
        ui::MainWindow window(context, ui::MainWindowOptions{});
        window.resize(1400, 900);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));

        QAction* action = window.menuBar()->findChild<QAction*>(QStringLiteral("shiftHandoffAction"));
        QVERIFY(action);
        QCOMPARE(action->text(), QStringLiteral("Shift handoff…"));
        action->trigger();
        ui::ShiftHandoffDialog* dialog = nullptr;
        QTRY_VERIFY((dialog = window.findChild<ui::ShiftHandoffDialog*>()));
        QCOMPARE(dialog->hoursBox()->value(), 8);
        dialog->hoursBox()->setValue(12);
        dialog->noteEdit()->setPlainText(QStringLiteral("r02 leak: facilities on site, keep r02 isolated"));
        QVERIFY(dialog->markdown().contains(QStringLiteral("Last 12 h:")));
        QVERIFY(dialog->markdown().contains(QStringLiteral("> r02 leak: facilities on site, keep r02 isolated")));
        QVERIFY(dialog->markdown().contains(QStringLiteral("| #1 | r02: coolant leak | acknowledged | alice |")));
        QVERIFY(dialog->findChild<QTextBrowser*>()->toPlainText().contains(QStringLiteral("Open incidents (1)")));
        if (const QByteArray shot = qgetenv("WATCHFLOOR_HANDOFF_SCREENSHOT"); !shot.isEmpty()) {
            QTest::qWait(50);  // screenshot only: let the preview lay out
            QVERIFY(dialog->grab().save(QString::fromLocal8Bit(shot)));
            QVERIFY(dialog->exportTo(QString::fromLocal8Bit(shot).chopped(4)).ok);  // FILE.md and FILE.pdf beside it
        }

        QTemporaryDir dir;
        const ui::ExportOutcome outcome = dialog->exportTo(dir.filePath(QStringLiteral("handoff.md")));
        QVERIFY2(outcome.ok, qPrintable(outcome.message));
        QFile md(dir.filePath(QStringLiteral("handoff.md")));
        QVERIFY(md.open(QIODevice::ReadOnly));
        QCOMPARE(QString::fromUtf8(md.readAll()), dialog->markdown());

        QFile pdf(dir.filePath(QStringLiteral("handoff.pdf")));
        QVERIFY(pdf.open(QIODevice::ReadOnly));
        const QByteArray bytes = pdf.readAll();
        QVERIFY2(bytes.size() > 4000, qPrintable(QString::number(bytes.size())));
        QVERIFY(bytes.startsWith("%PDF-"));
        QVERIFY(bytes.trimmed().endsWith("%%EOF"));
        const qsizetype pages =
            QString::fromLatin1(bytes).count(QRegularExpression(QStringLiteral("/Type\\s*/Page[^s]")));
        QVERIFY2(pages >= 1, qPrintable(QString::number(pages)));
        dialog->close();
    }

    void anUnwritablePlaceSaysSo() {
        const ui::ExportOutcome outcome =
            ui::writeMarkdownPdf(QStringLiteral("# x"), QStringLiteral("/nonexistent-dir/x.pdf"));
        QVERIFY(!outcome.ok);
        QVERIFY(outcome.message.contains(QStringLiteral("/nonexistent-dir/x.pdf")));
    }
};

QTEST_MAIN(TestShiftHandoffUi)
#include "tst_shifthandoffui.moc"

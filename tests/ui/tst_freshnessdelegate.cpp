// Tables draw a value by its trust: stale in italics and dim, missing/blank dim, fresh as is.

#include "EntityTableView.h"
#include "FreshnessDelegate.h"

#include "FleetStore.h"
#include "Freshness.h"
#include "ModelRoles.h"

#include <QStandardItemModel>
#include <QTest>

using namespace watchfloor;
using client::Freshness;

class TestFreshnessDelegate : public QObject {
    Q_OBJECT
private slots:
    void cellsAreDrawnByTheirFreshness_data() {
        QTest::addColumn<int>("freshness");
        QTest::addColumn<bool>("italic");
        QTest::addColumn<bool>("dim");
        QTest::newRow("fresh") << int(Freshness::Fresh) << false << false;
        QTest::newRow("stale") << int(Freshness::Stale) << true << true;
        QTest::newRow("missing") << int(Freshness::Missing) << false << true;
        QTest::newRow("blank") << int(Freshness::Blank) << false << true;
    }
    void cellsAreDrawnByTheirFreshness() {
        QFETCH(int, freshness);
        QFETCH(bool, italic);
        QFETCH(bool, dim);
        QStandardItemModel model(1, 1);
        model.setData(model.index(0, 0), QStringLiteral("4572 W"));
        model.setData(model.index(0, 0), freshness, client::FreshnessRole);
        QPalette palette;
        palette.setColor(QPalette::Text, Qt::white);
        palette.setColor(QPalette::PlaceholderText, Qt::gray);
        ui::FreshnessDelegate delegate;
        QStyleOptionViewItem option;
        option.palette = palette;
        delegate.initStyleOption(&option, model.index(0, 0));
        QCOMPARE(option.font.italic(), italic);
        QCOMPARE(option.palette.color(QPalette::Text), dim ? QColor(Qt::gray) : QColor(Qt::white));
        QCOMPARE(option.text, QStringLiteral("4572 W"));
    }

    // A silent source's value: italic like stale, but in the silent colour on a tinted background,
    // so a table row of a silent tray reads apart from a merely stale one and from a live one.
    void silentCellIsNeitherStaleNorFresh() {
        const QColor silent(0x7b, 0x35, 0xc9);
        ui::FreshnessDelegate::setSilentColor(silent);
        QStandardItemModel model(1, 1);
        model.setData(model.index(0, 0), QStringLiteral("4572 W"));
        model.setData(model.index(0, 0), int(Freshness::Silent), client::FreshnessRole);
        ui::FreshnessDelegate delegate;
        QStyleOptionViewItem option;
        option.palette.setColor(QPalette::Text, Qt::white);
        option.palette.setColor(QPalette::PlaceholderText, Qt::gray);
        delegate.initStyleOption(&option, model.index(0, 0));
        QVERIFY(option.font.italic());
        QCOMPARE(option.palette.color(QPalette::Text), silent);
        QCOMPARE(option.backgroundBrush.color().rgb(), silent.rgb());
        QVERIFY(option.backgroundBrush.color().alphaF() < 0.5);
        QCOMPARE(option.text, QStringLiteral("4572 W"));
    }

    void cellWithoutFreshnessIsLeftAlone() {
        QStandardItemModel model(1, 1);
        model.setData(model.index(0, 0), QStringLiteral("r01-n01"));
        ui::FreshnessDelegate delegate;
        QStyleOptionViewItem option;
        option.palette.setColor(QPalette::Text, Qt::white);
        delegate.initStyleOption(&option, model.index(0, 0));
        QVERIFY(!option.font.italic());
        QCOMPARE(option.palette.color(QPalette::Text), QColor(Qt::white));
    }

    void everyEntityTableUsesIt() {
        client::FleetStore store;
        QStandardItemModel model(1, 1);
        ui::EntityTableView view(store, &model);
        QVERIFY(qobject_cast<ui::FreshnessDelegate*>(view.itemDelegate()));
    }
};

QTEST_MAIN(TestFreshnessDelegate)
#include "tst_freshnessdelegate.moc"

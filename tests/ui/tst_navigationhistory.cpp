#include "NavigationHistory.h"

#include <QTest>

using namespace watchfloor::ui;

class TestNavigationHistory : public QObject {
    Q_OBJECT
private slots:
    void backAndForwardWalkTheTrail() {
        NavigationHistory history;
        QVERIFY(!history.canGoBack());
        history.visit({PageId::Fleet, {}});
        history.visit({PageId::Rack, QStringLiteral("r03")});
        history.visit({PageId::Rack, QStringLiteral("r05")});
        QCOMPARE(history.back(), (Location{PageId::Rack, QStringLiteral("r03")}));
        QCOMPARE(history.back(), (Location{PageId::Fleet, {}}));
        QVERIFY(!history.canGoBack());
        QCOMPARE(history.back(), (Location{PageId::Fleet, {}}));
        QCOMPARE(history.forward(), (Location{PageId::Rack, QStringLiteral("r03")}));
        QVERIFY(history.canGoForward());
    }
    void visitingAfterBackDropsTheForwardTrail() {
        NavigationHistory history;
        history.visit({PageId::Fleet, {}});
        history.visit({PageId::Jobs, {}});
        history.back();
        history.visit({PageId::Events, {}});
        QVERIFY(!history.canGoForward());
        QCOMPARE(history.size(), 2);
        QCOMPARE(history.back(), (Location{PageId::Fleet, {}}));
    }
    void repeatedVisitIsRecordedOnce() {
        NavigationHistory history;
        history.visit({PageId::Links, QStringLiteral("r01-n01-g0-l03")});
        history.visit({PageId::Links, QStringLiteral("r01-n01-g0-l03")});
        QCOMPARE(history.size(), 1);
    }
    void capacityDropsTheOldest() {
        NavigationHistory history(3);
        for (int i = 0; i < 5; ++i) history.visit({PageId::Rack, QStringLiteral("r%1").arg(i)});
        QCOMPARE(history.size(), 3);
        history.back();
        QCOMPARE(history.back().entity, QStringLiteral("r2"));
        QVERIFY(!history.canGoBack());
    }
};

QTEST_GUILESS_MAIN(TestNavigationHistory)
#include "tst_navigationhistory.moc"

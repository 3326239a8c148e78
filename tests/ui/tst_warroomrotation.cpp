#include "WarRoomRotation.h"

#include <QTest>

using namespace watchfloor::ui;

class TestWarRoomRotation : public QObject {
    Q_OBJECT
private slots:
    void cyclesThroughTheChosenPages() {
        WarRoomRotation rotation({PageId::Fleet, PageId::Goodput, PageId::Events});
        QCOMPARE(rotation.current(), PageId::Fleet);
        QCOMPARE(rotation.advance(), PageId::Goodput);
        QCOMPARE(rotation.advance(), PageId::Events);
        QCOMPARE(rotation.advance(), PageId::Fleet);
    }
    void emptyChoiceMeansEveryWallPage() {
        WarRoomRotation rotation({});
        QCOMPARE(rotation.pages().size(), qsizetype(kWallPages.size()));
        QVERIFY(!rotation.pages().contains(PageId::Audit));
    }
    void theAuditTrailIsNeverOnTheWall() {
        WarRoomRotation rotation({PageId::Audit, PageId::Fleet});
        QCOMPARE(rotation.pages(), (QVector<PageId>{PageId::Fleet}));
        WarRoomRotation onlyAudit({PageId::Audit});
        QVERIFY(!onlyAudit.pages().contains(PageId::Audit));
    }
    void incidentJumpContinuesFromThatPage() {
        WarRoomRotation rotation({PageId::Fleet, PageId::Rack, PageId::Goodput});
        rotation.syncTo(PageId::Rack);
        QCOMPARE(rotation.advance(), PageId::Goodput);
        rotation.syncTo(PageId::Links);  // not in the rotation: position unchanged
        QCOMPARE(rotation.current(), PageId::Goodput);
    }
};

QTEST_GUILESS_MAIN(TestWarRoomRotation)
#include "tst_warroomrotation.moc"

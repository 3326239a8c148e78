#include "JumpBox.h"

#include <QSignalSpy>
#include <QTest>

using namespace watchfloor::ui;

namespace {
QVector<JumpTarget> searchRacks(const QString& text, int limit) {
    QVector<JumpTarget> out;
    for (const char* name : {"r01", "r02", "r03-n07", "r03-n07-g2"}) {
        const QString n = QString::fromLatin1(name);
        if (n.contains(text, Qt::CaseInsensitive) && out.size() < limit)
            out.append({n, QStringLiteral("Rack"), QStringLiteral("us-east"), {PageId::Rack, n}});
    }
    return out;
}
}  // namespace

class TestJumpBox : public QObject {
    Q_OBJECT
private slots:
    void typingFiltersAndEnterJumpsToTheSelectedMatch() {
        QWidget anchor;
        anchor.resize(800, 600);
        anchor.show();
        JumpBox box(searchRacks, &anchor);
        QSignalSpy chosen(&box, &JumpBox::targetChosen);
        box.popup(&anchor);
        QVERIFY(QTest::qWaitForWindowExposed(&box));
        QTest::keyClicks(QApplication::focusWidget(), QStringLiteral("r03"));
        QCOMPARE(box.matchCount(), 2);
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Down);
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Return);
        QCOMPARE(chosen.count(), 1);
        QCOMPARE(chosen.at(0).at(0).value<Location>().entity, QStringLiteral("r03-n07-g2"));
        QVERIFY(!box.isVisible());
    }
    void noMatchDoesNotJump() {
        JumpBox box(searchRacks);
        QSignalSpy chosen(&box, &JumpBox::targetChosen);
        QVERIFY(!box.jumpTo(QStringLiteral("zz-nothing")));
        QCOMPARE(chosen.count(), 0);
    }
};

QTEST_MAIN(TestJumpBox)
#include "tst_jumpbox.moc"

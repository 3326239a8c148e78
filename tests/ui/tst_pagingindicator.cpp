// The status bar says when paging stops reaching Alertmanager: hidden while fleetd pages nowhere,
// "Paging: not delivered since HH:MM — <error>" in the critical colour from the Delta that says
// FAILING, "Paging: delivered" once it recovers. Set WATCHFLOOR_PAGING_PNG to keep a rendering.
#include "MainWindow.h"
#include "PageContext.h"
#include "PageTestFleet.h"
#include "PagingIndicator.h"

#include "FleetStore.h"

#include <QLabel>
#include <QTest>

using namespace watchfloor;
namespace v1 = watchfloor::v1;

namespace {

v1::SubscribeResponse pagingDelta(std::uint64_t sequence, const v1::PagingStatus& paging) {
    v1::SubscribeResponse response;
    v1::Delta& d = *response.mutable_delta();
    d.set_sequence(sequence);
    d.set_first_sequence(sequence);
    d.set_server_time_unix_ms(testing::PageTestFleet::kNowMs + 1000 * std::int64_t(sequence));
    *d.mutable_paging() = paging;
    return response;
}

}  // namespace

class TestPagingIndicator : public QObject {
    Q_OBJECT
private slots:
    void headlines() {
        v1::PagingStatus s;
        s.set_state(v1::PAGING_STATE_FAILING);
        s.set_failing_since_unix_ms(1'764'680'645'123);  // 13:04:05 UTC
        s.set_last_error("connection refused by http://127.0.0.1:9093/api/v2/alerts");
        s.set_queued(3);
        s.set_dropped(2);
        QCOMPARE(ui::pagingHeadline(s), QStringLiteral("Paging: not delivered since 13:04 — connection refused by "
                                                       "http://127.0.0.1:9093/api/v2/alerts · 3 queued · 2 dropped"));
        s.set_state(v1::PAGING_STATE_QUEUED);
        QCOMPARE(ui::pagingHeadline(s), QStringLiteral("Paging: 3 queued · 2 dropped"));
        s.set_state(v1::PAGING_STATE_DELIVERED);
        s.set_dropped(0);
        s.set_firing(4);
        QCOMPARE(ui::pagingHeadline(s), QStringLiteral("Paging: delivered · 4 firing"));
    }

    void statusBarFollowsTheStream() {
        testing::PageTestFleet fleet;
        client::FleetStore store;
        const int endpoint = store.addEndpoint(QStringLiteral("synthetic"));
        store.apply(endpoint, fleet.snapshot);
        store.flushChanges();
        ui::PageContext context;
        context.store = &store;
        ui::MainWindow window(context, ui::MainWindowOptions{});
        window.resize(1600, 1000);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        auto* indicator = window.findChild<ui::PagingIndicator*>();
        QVERIFY(indicator);
        QVERIFY(!indicator->isVisible());  // this fleetd pages nowhere

        v1::PagingStatus failing;
        failing.set_state(v1::PAGING_STATE_FAILING);
        failing.set_target("http://127.0.0.1:9093");
        failing.set_failing_since_unix_ms(1'764'680'645'123);
        failing.set_last_error("connection refused by http://127.0.0.1:9093/api/v2/alerts");
        failing.set_queued(2);
        store.apply(endpoint, pagingDelta(2, failing));
        store.flushChanges();
        QTRY_VERIFY(indicator->isVisible());
        QVERIFY(indicator->text().startsWith(QStringLiteral("Paging: not delivered since 13:04 — connection refused")));
        QVERIFY(indicator->toolTip().contains(QStringLiteral("not being paged")));
        QTRY_VERIFY(indicator->width() >
                    indicator->fontMetrics().horizontalAdvance(QStringLiteral("Paging: not delivered")));
        if (const QByteArray png = qgetenv("WATCHFLOOR_PAGING_PNG"); !png.isEmpty())
            QVERIFY(window.grab().save(QString::fromLocal8Bit(png)));

        v1::PagingStatus delivered;
        delivered.set_state(v1::PAGING_STATE_DELIVERED);
        delivered.set_target("http://127.0.0.1:9093");
        delivered.set_firing(1);
        store.apply(endpoint, pagingDelta(3, delivered));
        store.flushChanges();
        QTRY_COMPARE(indicator->text(), QStringLiteral("Paging: delivered · 1 firing"));
    }
};

QTEST_MAIN(TestPagingIndicator)
#include "tst_pagingindicator.moc"

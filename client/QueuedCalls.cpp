#include "QueuedCalls.h"

#include "HappensBefore.h"

#include <QCoreApplication>
#include <QEvent>

namespace watchfloor::client {

namespace {
class QueuedCall final : public QEvent {
public:
    static QEvent::Type kind() {
        static const auto type = static_cast<QEvent::Type>(QEvent::registerEventType());
        return type;
    }
    explicit QueuedCall(std::function<void()> call) : QEvent(kind()), m_call(std::move(call)) {}
    // Also when Qt drops the event unrun (its receiver went): the call is destroyed on this thread.
    ~QueuedCall() override { happensbefore::receive(this); }

    void run() {
        happensbefore::receive(this);
        m_call();
    }

private:
    std::function<void()> m_call;
};
}  // namespace

void QueuedCalls::post(std::function<void()> call) {
    auto* event = new QueuedCall(std::move(call));
    happensbefore::publish(event);
    QCoreApplication::postEvent(this, event);
}

bool QueuedCalls::event(QEvent* event) {
    if (event->type() != QueuedCall::kind()) return QObject::event(event);
    static_cast<QueuedCall*>(event)->run();
    return true;
}

}  // namespace watchfloor::client

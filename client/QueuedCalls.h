#pragma once

#include <QObject>

#include <functional>

class QEvent;

namespace watchfloor::client {

// Runs, on its own thread, functions that other threads (gRPC's) post to it: what
// QMetaObject::invokeMethod(owner, f, Qt::QueuedConnection) does, except that each call travels
// as an event built completely before Qt takes it. Qt's queue keeps the order with a lock inside
// Debian's uninstrumented libQt6Core; built that way, the order can be stated to ThreadSanitizer
// (proto/HappensBefore.h), which a closure Qt copies after the post could not.
// An owner keeps one as a member, parented to itself: calls still queued when it goes are dropped,
// as Qt drops events for a deleted object, so the owner's rule for posting to itself still holds.
class QueuedCalls final : public QObject {
public:
    explicit QueuedCalls(QObject* owner) : QObject(owner) {}

    // Thread-safe.
    void post(std::function<void()> call);

protected:
    bool event(QEvent* event) override;
};

}  // namespace watchfloor::client

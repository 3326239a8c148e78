#pragma once
// Which events are acknowledged, by whom and when. Events carry no acknowledgement of their own:
// an event is acknowledged once an ACKNOWLEDGE_EVENT operation for its id succeeded on the fleetd
// that reported it, and every console learns that from the operations it watches. The Events
// page marks such events through AcknowledgedEventsProxy, for viewers too.

#include <QIdentityProxyModel>
#include <QObject>
#include <QPointer>
#include <QVector>

#include <optional>
#include <unordered_map>

namespace watchfloor::client {
class ControlClient;
class FleetStore;
}  // namespace watchfloor::client

namespace watchfloor::ui {

struct Acknowledgement {
    QString principal;
    qint64 timeUnixMs = 0;
    QString note;
};

class EventAcknowledgements : public QObject {
    Q_OBJECT
public:
    explicit EventAcknowledgements(QVector<QPointer<client::ControlClient>> controls, QObject* parent = nullptr);

    std::optional<Acknowledgement> find(int endpoint, quint64 eventId) const;

signals:
    void changed();

private:
    void rebuild(int endpoint) const;

    QVector<QPointer<client::ControlClient>> m_controls;
    // Per endpoint, rebuilt from the client's operations when marked stale.
    mutable QVector<std::unordered_map<quint64, Acknowledgement>> m_byEvent;
    mutable QVector<bool> m_stale;
};

// Adds "✓ acknowledged by <who> <when>" to an event model's message column (and the note to its
// tooltip); everything else passes through unchanged, so filters and sorting keep working.
class AcknowledgedEventsProxy : public QIdentityProxyModel {
    Q_OBJECT
public:
    AcknowledgedEventsProxy(const client::FleetStore& store, EventAcknowledgements& acknowledgements, int messageColumn,
                            QObject* parent = nullptr);

    QVariant data(const QModelIndex& index, int role) const override;
    std::optional<Acknowledgement> acknowledgementAt(int row) const;

private:
    const client::FleetStore& m_store;
    EventAcknowledgements& m_acknowledgements;
    int m_messageColumn;
};

}  // namespace watchfloor::ui

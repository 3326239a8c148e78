#include "EventAcknowledgements.h"

#include "FleetFormat.h"

#include "ActionWords.h"
#include "ControlClient.h"
#include "FleetStore.h"
#include "ModelRoles.h"

namespace watchfloor::ui {

namespace v1 = watchfloor::v1;

EventAcknowledgements::EventAcknowledgements(QVector<QPointer<client::ControlClient>> controls, QObject* parent)
    : QObject(parent), m_controls(std::move(controls)), m_byEvent(m_controls.size()), m_stale(m_controls.size(), true) {
    for (int endpoint = 0; endpoint < m_controls.size(); ++endpoint) {
        client::ControlClient* control = m_controls[endpoint];
        if (!control) continue;
        connect(control, &client::ControlClient::operationChanged, this, [this, endpoint](const v1::Operation& op) {
            if (op.request().type() != v1::ACTION_TYPE_ACKNOWLEDGE_EVENT || op.state() != v1::OPERATION_STATE_SUCCEEDED)
                return;
            m_stale[endpoint] = true;
            emit changed();
        });
        connect(control, &client::ControlClient::operationsReset, this, [this, endpoint] {
            m_stale[endpoint] = true;
            emit changed();
        });
    }
}

void EventAcknowledgements::rebuild(int endpoint) const {
    auto& byEvent = m_byEvent[endpoint];
    byEvent.clear();
    m_stale[endpoint] = false;
    const client::ControlClient* control = m_controls[endpoint];
    if (!control) return;
    // Newest first: the oldest successful acknowledgement wins, it is the one that took the event.
    for (const v1::Operation& op : control->operations()) {
        if (op.request().type() == v1::ACTION_TYPE_ACKNOWLEDGE_EVENT && op.state() == v1::OPERATION_STATE_SUCCEEDED)
            byEvent[op.request().event_id()] = {QString::fromStdString(op.principal()), op.updated_unix_ms(),
                                                QString::fromStdString(op.request().note())};
    }
}

std::optional<Acknowledgement> EventAcknowledgements::find(int endpoint, quint64 eventId) const {
    if (endpoint < 0 || endpoint >= m_controls.size() || !m_controls[endpoint]) return std::nullopt;
    if (!m_controls[endpoint]->isAcknowledged(eventId)) return std::nullopt;
    if (m_stale[endpoint]) rebuild(endpoint);
    const auto& byEvent = m_byEvent[endpoint];
    const auto found = byEvent.find(eventId);
    // Known acknowledged but the operation itself is older than the listed page: say so plainly.
    return found != byEvent.end() ? found->second : Acknowledgement{};
}

AcknowledgedEventsProxy::AcknowledgedEventsProxy(const client::FleetStore& store,
                                                 EventAcknowledgements& acknowledgements, int messageColumn,
                                                 QObject* parent)
    : QIdentityProxyModel(parent),
      m_store(store),
      m_acknowledgements(acknowledgements),
      m_messageColumn(messageColumn) {
    connect(&m_acknowledgements, &EventAcknowledgements::changed, this, [this] {
        if (rowCount() > 0)
            emit dataChanged(index(0, m_messageColumn), index(rowCount() - 1, m_messageColumn),
                             {Qt::DisplayRole, Qt::ToolTipRole});
    });
}

std::optional<Acknowledgement> AcknowledgedEventsProxy::acknowledgementAt(int row) const {
    const quint64 serial = index(row, 0).data(client::EventSerialRole).toULongLong();
    const client::StoredEvent* event = m_store.eventBySerial(serial);
    if (!event) return std::nullopt;
    return m_acknowledgements.find(event->endpoint, event->event.id());
}

QVariant AcknowledgedEventsProxy::data(const QModelIndex& index, int role) const {
    QVariant value = QIdentityProxyModel::data(index, role);
    if (index.column() != m_messageColumn || (role != Qt::DisplayRole && role != Qt::ToolTipRole)) return value;
    const auto ack = acknowledgementAt(index.row());
    if (!ack) return value;
    const QString who = ack->principal.isEmpty() ? QStringLiteral("an operator") : ack->principal;
    const QString when = ack->timeUnixMs > 0 ? QStringLiteral(" at %1").arg(formatUnixMs(ack->timeUnixMs)) : QString();
    QString acknowledged = client::actionPastTense(v1::ACTION_TYPE_ACKNOWLEDGE_EVENT);
    if (role == Qt::DisplayRole)
        return QStringLiteral("✓ %1  — %2 by %3%4").arg(value.toString(), acknowledged, who, when);
    acknowledged[0] = acknowledged[0].toUpper();
    QString tip =
        QStringLiteral("%1 by %2%3").arg(acknowledged, who, when.isEmpty() ? when : when + QStringLiteral(" UTC"));
    if (!ack->note.isEmpty()) tip += QStringLiteral("\n") + ack->note;
    const QString original = value.toString();
    return original.isEmpty() ? tip : original + QStringLiteral("\n\n") + tip;
}

}  // namespace watchfloor::ui

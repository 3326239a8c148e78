#include "OperationsModel.h"

#include "ActionWords.h"

#include <QDateTime>
#include <QTimeZone>

#include <algorithm>

namespace watchfloor::client {

namespace v1 = watchfloor::v1;

namespace {

bool newerFirst(const v1::Operation& a, const v1::Operation& b) {
    if (a.created_unix_ms() != b.created_unix_ms()) {
        return a.created_unix_ms() > b.created_unix_ms();
    }
    return a.id() > b.id();
}

bool isActive(v1::OperationState state) {
    return state == v1::OPERATION_STATE_AWAITING_APPROVAL || state == v1::OPERATION_STATE_PENDING ||
           state == v1::OPERATION_STATE_RUNNING;
}

QString utcTime(qint64 unixMs) {
    return QDateTime::fromMSecsSinceEpoch(unixMs, QTimeZone::utc()).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
}

}  // namespace

QString operationStateLabel(v1::OperationState state) {
    switch (state) {
    case v1::OPERATION_STATE_AWAITING_APPROVAL: return QStringLiteral("awaiting approval");
    case v1::OPERATION_STATE_PENDING: return QStringLiteral("pending");
    case v1::OPERATION_STATE_RUNNING: return QStringLiteral("running");
    case v1::OPERATION_STATE_SUCCEEDED: return QStringLiteral("succeeded");
    case v1::OPERATION_STATE_FAILED: return QStringLiteral("failed");
    case v1::OPERATION_STATE_CANCELLED: return QStringLiteral("cancelled");
    default: return QStringLiteral("unknown");
    }
}

OperationsModel::OperationsModel(ControlClient* client, QObject* parent) : QAbstractTableModel(parent) {
    if (client) {
        addClient(client);
    }
}

void OperationsModel::addClient(ControlClient* client, const QString& endpointLabel) {
    m_sources.push_back({client, endpointLabel.isEmpty() ? client->target() : endpointLabel});
    connect(client, &ControlClient::operationChanged, this,
            [this, client](const v1::Operation& operation) { onOperationChanged(client, operation); });
    connect(client, &ControlClient::operationsReset, this, &OperationsModel::rebuild);
    connect(client, &QObject::destroyed, this, [this](QObject* gone) {
        // Never call into a client being destroyed: drop it by address, then rebuild from the rest.
        std::erase_if(m_sources, [gone](const Source& s) { return s.client.isNull() || s.client.data() == gone; });
        rebuild();
    });
    rebuild();
}

int OperationsModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(m_rows.size()); }

int OperationsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

int OperationsModel::rowOf(const ControlClient* client, const QString& operationId) const {
    const std::string id = operationId.toStdString();
    const auto found = std::find_if(m_rows.begin(), m_rows.end(),
                                    [&](const Row& r) { return r.client == client && r.operation.id() == id; });
    return found == m_rows.end() ? -1 : int(found - m_rows.begin());
}

int OperationsModel::insertionRow(const v1::Operation& operation) const {
    const auto at = std::lower_bound(m_rows.begin(), m_rows.end(), operation,
                                     [](const Row& r, const v1::Operation& op) { return newerFirst(r.operation, op); });
    return int(at - m_rows.begin());
}

void OperationsModel::onOperationChanged(ControlClient* client, const v1::Operation& operation) {
    const int row = rowOf(client, QString::fromStdString(operation.id()));
    if (row >= 0) {
        m_rows[std::size_t(row)].operation = operation;
        emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
        return;
    }
    const auto source =
        std::find_if(m_sources.begin(), m_sources.end(), [&](const Source& s) { return s.client == client; });
    const int at = insertionRow(operation);
    beginInsertRows({}, at, at);
    m_rows.insert(m_rows.begin() + at, Row{client, source == m_sources.end() ? QString() : source->label, operation});
    endInsertRows();
}

void OperationsModel::rebuild() {
    beginResetModel();
    m_rows.clear();
    std::erase_if(m_sources, [](const Source& s) { return s.client.isNull(); });
    for (const Source& source : m_sources) {
        for (const v1::Operation& operation : source.client->operations()) {
            m_rows.push_back(Row{source.client.data(), source.label, operation});
        }
    }
    std::stable_sort(m_rows.begin(), m_rows.end(),
                     [](const Row& a, const Row& b) { return newerFirst(a.operation, b.operation); });
    endResetModel();
}

QVariant OperationsModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= int(m_rows.size())) {
        return {};
    }
    const Row& row = m_rows[std::size_t(index.row())];
    const v1::Operation& op = row.operation;
    switch (role) {
    case OperationIdRole: return QString::fromStdString(op.id());
    case RequestIdRole: return QString::fromStdString(op.request_id());
    case OperationStateRole: return int(op.state());
    case ProgressRatioRole: return op.progress_ratio();
    case ActiveRole: return isActive(op.state());
    case SortRole:
        switch (index.column()) {
        case Time: return double(op.created_unix_ms());
        case Progress: return op.progress_ratio();
        default: return data(index, Qt::DisplayRole);
        }
    case Qt::ToolTipRole: {
        QStringList lines{QStringLiteral("%1 — %2").arg(actionSentence(op.request()), operationStateLabel(op.state()))};
        lines << QStringLiteral("Reason: %1").arg(QString::fromStdString(op.request().reason()));
        if (!op.approved_by().empty()) {
            lines << QStringLiteral("Approved by %1").arg(QString::fromStdString(op.approved_by()));
        }
        if (op.state() == v1::OPERATION_STATE_AWAITING_APPROVAL && op.approval_expires_unix_ms() > 0) {
            lines << QStringLiteral("Approval expires %1 UTC").arg(utcTime(op.approval_expires_unix_ms()));
        }
        if (!op.error().empty()) {
            lines << QStringLiteral("Error: %1").arg(QString::fromStdString(op.error()));
        }
        lines << QStringLiteral("Operation %1, request %2")
                     .arg(QString::fromStdString(op.id()), QString::fromStdString(op.request_id()));
        return lines.join(QLatin1Char('\n'));
    }
    case Qt::DisplayRole: break;
    default: return {};
    }
    switch (index.column()) {
    case Time: return utcTime(op.created_unix_ms());
    case Action: return actionName(op.request().type());
    case Target: return actionTargetPhrase(op.request());
    case Principal:
        return op.approved_by().empty()
                   ? QString::fromStdString(op.principal())
                   : QStringLiteral("%1 (approved by %2)")
                         .arg(QString::fromStdString(op.principal()), QString::fromStdString(op.approved_by()));
    case State: return operationStateLabel(op.state());
    case Progress: return QStringLiteral("%1 %").arg(qRound(std::clamp(op.progress_ratio(), 0.0, 1.0) * 100.0));
    case Message:
        return QString::fromStdString(
            op.state() == v1::OPERATION_STATE_FAILED && !op.error().empty() ? op.error() : op.progress_message());
    case Endpoint: return row.endpointLabel;
    default: return {};
    }
}

QVariant OperationsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
        return {};
    }
    switch (section) {
    case Time: return QStringLiteral("Started (UTC)");
    case Action: return QStringLiteral("Action");
    case Target: return QStringLiteral("Target");
    case Principal: return QStringLiteral("By");
    case State: return QStringLiteral("State");
    case Progress: return QStringLiteral("Progress");
    case Message: return QStringLiteral("Message");
    case Endpoint: return QStringLiteral("fleetd");
    default: return {};
    }
}

}  // namespace watchfloor::client

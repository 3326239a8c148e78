#include "AuditModel.h"

#include <QDateTime>
#include <QTimeZone>

namespace watchfloor::client {

namespace v1 = watchfloor::v1;

AuditModel::AuditModel(ControlClient* client, quint32 pageSize, QObject* parent)
    : QAbstractTableModel(parent), m_client(client), m_pageSize(pageSize) {}

void AuditModel::refresh() { request(0, m_loaded); }

bool AuditModel::canFetchMore(const QModelIndex& parent) const {
    if (parent.isValid() || !m_client || m_loading) {
        return false;
    }
    // Before the first page a view's fetchMore() loads it; after a failure only refresh() retries,
    // so a refused viewer does not hammer fleetd.
    return m_loaded ? m_nextBeforeSeq != 0 : m_lastError.isEmpty();
}

void AuditModel::fetchMore(const QModelIndex& parent) {
    if (canFetchMore(parent)) {
        request(m_loaded ? m_nextBeforeSeq : 0, false);
    }
}

void AuditModel::request(quint64 beforeSeq, bool newerOnly) {
    if (!m_client || m_loading) {
        return;
    }
    setLoading(true);
    // The model may die before the answer: the callback runs on the client's thread, guarded.
    QPointer<AuditModel> self(this);
    m_client->listAudit(beforeSeq, m_pageSize,
                        [self, beforeSeq, newerOnly](const ControlResult<v1::ListAuditEntriesResponse>& result) {
                            if (!self) {
                                return;
                            }
                            self->setLoading(false);
                            if (!result.ok) {
                                self->m_lastError = result.message;
                                emit self->loadFailed(result.message);
                                return;
                            }
                            self->m_lastError.clear();
                            auto page = result.value;
                            if (beforeSeq == 0 && newerOnly) {
                                self->applyNewest(std::move(page));
                            } else if (beforeSeq == 0) {
                                self->beginResetModel();
                                self->m_entries.assign(page.entries().begin(), page.entries().end());
                                self->m_nextBeforeSeq = page.next_before_seq();
                                self->m_loaded = true;
                                self->endResetModel();
                            } else {
                                self->applyOlder(std::move(page));
                            }
                        });
}

void AuditModel::applyNewest(v1::ListAuditEntriesResponse&& page) {
    const quint64 topSeq = m_entries.empty() ? 0 : m_entries.front().seq();
    int fresh = 0;
    while (fresh < page.entries_size() && page.entries(fresh).seq() > topSeq) {
        ++fresh;
    }
    if (fresh == 0) {
        return;
    }
    if (fresh == page.entries_size() && page.next_before_seq() > topSeq) {
        // More happened than one page holds: the rows shown would leave a gap. Start over.
        beginResetModel();
        m_entries.assign(page.entries().begin(), page.entries().end());
        m_nextBeforeSeq = page.next_before_seq();
        endResetModel();
        return;
    }
    beginInsertRows({}, 0, fresh - 1);
    m_entries.insert(m_entries.begin(), page.entries().begin(), page.entries().begin() + fresh);
    endInsertRows();
}

void AuditModel::applyOlder(v1::ListAuditEntriesResponse&& page) {
    const quint64 bottomSeq = m_entries.empty() ? 0 : m_entries.back().seq();
    std::vector<v1::AuditEntry> older;
    for (const v1::AuditEntry& entry : page.entries()) {
        if (bottomSeq == 0 || entry.seq() < bottomSeq) {
            older.push_back(entry);
        }
    }
    m_nextBeforeSeq = page.next_before_seq();
    if (older.empty()) {
        return;
    }
    const int first = int(m_entries.size());
    beginInsertRows({}, first, first + int(older.size()) - 1);
    m_entries.insert(m_entries.end(), std::make_move_iterator(older.begin()), std::make_move_iterator(older.end()));
    endInsertRows();
}

void AuditModel::setLoading(bool loading) {
    if (m_loading != loading) {
        m_loading = loading;
        emit loadingChanged(loading);
    }
}

int AuditModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(m_entries.size()); }

int AuditModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant AuditModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= int(m_entries.size())) {
        return {};
    }
    const v1::AuditEntry& e = m_entries[std::size_t(index.row())];
    const auto text = [](const std::string& s) { return QString::fromStdString(s); };
    switch (role) {
    case AuditSeqRole: return quint64(e.seq());
    case OperationIdRole: return text(e.operation_id());
    case DecisionRole: return text(e.decision());
    case SortRole: return index.column() == Time ? QVariant(double(e.seq())) : data(index, Qt::DisplayRole);
    case Qt::ToolTipRole: {
        QStringList lines{QStringLiteral("#%1 %2 %3 by %4")
                              .arg(e.seq())
                              .arg(text(e.action()), text(e.target()),
                                   e.principal().empty() ? QStringLiteral("(unauthenticated)") : text(e.principal()))};
        if (!e.preview_summary().empty()) {
            lines << QStringLiteral("Preview: %1").arg(text(e.preview_summary()));
        }
        if (!e.operation_id().empty()) {
            lines << QStringLiteral("Operation %1").arg(text(e.operation_id()));
        }
        if (!e.peer().empty()) {
            lines << QStringLiteral("From %1 (as reported by the transport)").arg(text(e.peer()));
        }
        return lines.join(QLatin1Char('\n'));
    }
    case Qt::DisplayRole: break;
    default: return {};
    }
    switch (index.column()) {
    case Time:
        return QDateTime::fromMSecsSinceEpoch(e.time_unix_ms(), QTimeZone::utc())
            .toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
    case Principal: return e.principal().empty() ? QStringLiteral("(unauthenticated)") : text(e.principal());
    case Role: return text(e.role());
    case Action: return text(e.action());
    case Target: return text(e.target());
    case Decision: return text(e.decision());
    case Result: return text(e.result());
    case Reason: return text(e.reason());
    case RequestId: return text(e.request_id());
    default: return {};
    }
}

QVariant AuditModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
        return {};
    }
    switch (section) {
    case Time: return QStringLiteral("Time (UTC)");
    case Principal: return QStringLiteral("Principal");
    case Role: return QStringLiteral("Role");
    case Action: return QStringLiteral("Action");
    case Target: return QStringLiteral("Target");
    case Decision: return QStringLiteral("Decision");
    case Result: return QStringLiteral("Result");
    case Reason: return QStringLiteral("Reason");
    case RequestId: return QStringLiteral("Request id");
    default: return {};
    }
}

}  // namespace watchfloor::client

#pragma once
// fleetd's audit trail (one row per decision: allowed, denied, result), newest first, read in
// pages through ControlClient::listAudit. A view's first fetchMore() loads the newest page, later
// ones older pages as the operator scrolls; refresh() adds what happened since without re-reading
// what is shown (and retries after a failure).

#include "ControlClient.h"
#include "ModelRoles.h"

#include <QAbstractTableModel>
#include <QPointer>

#include <vector>

namespace watchfloor::client {

class AuditModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { Time, Principal, Role, Action, Target, Decision, Result, Reason, RequestId, ColumnCount };
    enum ItemRole {
        AuditSeqRole = EventSerialRole + 32,  // quint64
        OperationIdRole,                      // QString
        DecisionRole,                         // QString: "allow", "deny", "result"
    };

    explicit AuditModel(ControlClient* client, quint32 pageSize = 200, QObject* parent = nullptr);

    // Loads the newest page (first call), or the entries newer than the top row.
    void refresh();

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;
    bool canFetchMore(const QModelIndex& parent) const override;
    void fetchMore(const QModelIndex& parent) override;

    const watchfloor::v1::AuditEntry& entryAt(int row) const { return m_entries[std::size_t(row)]; }
    bool isLoading() const { return m_loading; }
    bool reachedOldest() const { return m_loaded && m_nextBeforeSeq == 0; }
    // The last failure in operator words ("Your role (viewer) cannot read the audit trail."), or "".
    QString lastError() const { return m_lastError; }

signals:
    void loadingChanged(bool loading);
    void loadFailed(const QString& message);

private:
    void request(quint64 beforeSeq, bool newerOnly);
    void applyNewest(watchfloor::v1::ListAuditEntriesResponse&& page);
    void applyOlder(watchfloor::v1::ListAuditEntriesResponse&& page);
    void setLoading(bool loading);

    QPointer<ControlClient> m_client;
    quint32 m_pageSize;
    std::vector<watchfloor::v1::AuditEntry> m_entries;  // newest first
    quint64 m_nextBeforeSeq = 0;                        // the server's cursor for the next older page; 0 = none
    bool m_loaded = false;                              // the newest page has arrived at least once
    bool m_loading = false;
    QString m_lastError;
};

}  // namespace watchfloor::client

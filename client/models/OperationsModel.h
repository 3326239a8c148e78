#pragma once
// Operations (operator and automated actions) of one or more fleetd endpoints, newest first,
// live from each endpoint's ControlClient: a change of a known operation is one dataChanged for
// its row, a new one is one inserted row, a list after a (re)connect is one reset. An action and
// its target are named as the console's table of actions (ActionWords.h) names them.

#include "ControlClient.h"
#include "ModelRoles.h"

#include <QAbstractTableModel>
#include <QPointer>

#include <vector>

namespace watchfloor::client {

QString operationStateLabel(watchfloor::v1::OperationState state);  // "running", "awaiting approval", ...

class OperationsModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { Time, Action, Target, Principal, State, Progress, Message, Endpoint, ColumnCount };
    enum Role {
        OperationIdRole = EventSerialRole + 16,  // QString, server-assigned id
        RequestIdRole,                           // QString
        OperationStateRole,                      // int(watchfloor::v1::OperationState)
        ProgressRatioRole,                       // double 0..1
        ActiveRole,                              // bool: awaiting approval, pending or running
    };

    explicit OperationsModel(ControlClient* client = nullptr, QObject* parent = nullptr);

    // Adds an endpoint's operations; `endpointLabel` fills the Endpoint column (default: target).
    void addClient(ControlClient* client, const QString& endpointLabel = {});

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

    const watchfloor::v1::Operation& operationAt(int row) const { return m_rows[std::size_t(row)].operation; }
    ControlClient* clientAt(int row) const { return m_rows[std::size_t(row)].client; }
    int rowOf(const ControlClient* client, const QString& operationId) const;  // -1 when absent

private:
    struct Source {
        QPointer<ControlClient> client;
        QString label;
    };
    struct Row {
        ControlClient* client = nullptr;
        QString endpointLabel;
        watchfloor::v1::Operation operation;
    };

    void onOperationChanged(ControlClient* client, const watchfloor::v1::Operation& operation);
    void rebuild();
    int insertionRow(const watchfloor::v1::Operation& operation) const;

    std::vector<Source> m_sources;
    std::vector<Row> m_rows;  // newest first
};

}  // namespace watchfloor::client

#include "OperationsDock.h"

#include "ActionWording.h"
#include "EntityTableView.h"
#include "FleetFormat.h"

#include "Theme.h"

#include <QApplication>
#include <QClipboard>
#include <QDateTime>
#include <QDialog>
#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QIdentityProxyModel>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPainter>
#include <QPushButton>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QVBoxLayout>

namespace watchfloor::ui {

namespace v1 = watchfloor::v1;
using client::OperationsModel;

namespace {

// "17:20:03 · 4 min ago": the time an operation started and how long ago that was, refreshed
// by the dock's timer.
class OperationAgeProxy : public QIdentityProxyModel {
public:
    using QIdentityProxyModel::QIdentityProxyModel;

    QVariant data(const QModelIndex& index, int role) const override {
        QVariant value = QIdentityProxyModel::data(index, role);
        if (role != Qt::DisplayRole || index.column() != OperationsModel::Time) return value;
        const auto* model = static_cast<const OperationsModel*>(sourceModel());
        const qint64 created = model->operationAt(index.row()).created_unix_ms();
        if (created <= 0) return value;
        const qint64 ageMs = std::max<qint64>(0, QDateTime::currentMSecsSinceEpoch() - created);
        return QStringLiteral("%1 · %2 ago").arg(value.toString(), formatAge(std::chrono::milliseconds(ageMs)));
    }

    void touchAges() {
        if (rowCount() > 0)
            emit dataChanged(index(0, OperationsModel::Time), index(rowCount() - 1, OperationsModel::Time),
                             {Qt::DisplayRole});
    }
};

// A progress bar in the Progress column (failed and cancelled operations keep where they stopped).
class ProgressDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override {
        QStyledItemDelegate::paint(painter, option, QModelIndex());  // background and selection only
        QStyleOptionProgressBar bar;
        bar.rect = option.rect.adjusted(3, 3, -3, -3);
        bar.minimum = 0;
        bar.maximum = 100;
        bar.progress = qRound(std::clamp(index.data(OperationsModel::ProgressRatioRole).toDouble(), 0.0, 1.0) * 100.0);
        bar.text = index.data(Qt::DisplayRole).toString();
        bar.textVisible = true;
        bar.state = option.state | QStyle::State_Horizontal;
        bar.palette = option.palette;
        QStyle* style = option.widget ? option.widget->style() : QApplication::style();
        style->drawControl(QStyle::CE_ProgressBar, &bar, painter, option.widget);
    }
};

// The second operator's look before approving: what was asked, by whom, why, and the blast
// radius fleetd computed when it accepted the request. Cancel is the default button.
class ApprovalDialog : public QDialog {
public:
    ApprovalDialog(client::ControlClient& control, const v1::Operation& operation, const ActionColours& colours,
                   QWidget* parent)
        : QDialog(parent), m_control(control), m_operationId(QString::fromStdString(operation.id())) {
        setObjectName(QStringLiteral("approvalDialog"));
        setWindowTitle(QStringLiteral("Approve %1 — Watchfloor").arg(actionHeading(operation.request())));
        auto* layout = new QVBoxLayout(this);
        const QString html = QStringLiteral("<p><b>%1</b> asked by <b>%2</b></p><p>%3</p>%4<p>%5</p>")
                                 .arg(actionHeading(operation.request()).toHtmlEscaped(),
                                      QString::fromStdString(operation.principal()).toHtmlEscaped(),
                                      QString::fromStdString(operation.request().reason()).toHtmlEscaped(),
                                      previewTableHtml(operation.preview(), colours.caution),
                                      operationSummary(operation).toHtmlEscaped());
        auto* summary = new QLabel(html, this);
        summary->setTextFormat(Qt::RichText);
        summary->setWordWrap(true);
        layout->addWidget(summary);
        m_reason = new QLineEdit(this);
        m_reason->setObjectName(QStringLiteral("approvalReasonEdit"));
        m_reason->setPlaceholderText(QStringLiteral("Why you approve (required) — stored with your name"));
        layout->addWidget(m_reason);
        m_result = new QLabel(this);
        m_result->setWordWrap(true);
        layout->addWidget(m_result);
        auto* buttons = new QDialogButtonBox(this);
        m_cancel = buttons->addButton(QDialogButtonBox::Cancel);
        m_approve = buttons->addButton(QStringLiteral("Approve"), QDialogButtonBox::ApplyRole);
        m_approve->setObjectName(QStringLiteral("approveConfirmButton"));
        m_approve->setAutoDefault(false);
        m_cancel->setDefault(true);
        m_approve->setEnabled(false);
        layout->addWidget(buttons);
        connect(m_reason, &QLineEdit::textChanged, this,
                [this] { m_approve->setEnabled(!m_inFlight && !m_reason->text().trimmed().isEmpty()); });
        connect(m_cancel, &QPushButton::clicked, this, &QDialog::reject);
        connect(m_approve, &QPushButton::clicked, this, &ApprovalDialog::send);
    }

private:
    void send() {
        if (m_inFlight || m_reason->text().trimmed().isEmpty()) return;
        m_inFlight = true;
        m_approve->setEnabled(false);
        m_result->setText(QStringLiteral("Sending the approval…"));
        QPointer<ApprovalDialog> self(this);
        m_control.approve(m_operationId, m_reason->text().trimmed(),
                          [self](const client::ControlResult<v1::Operation>& r) {
                              if (!self) return;
                              self->m_inFlight = false;
                              if (r.ok) {
                                  self->accept();
                                  return;
                              }
                              self->m_result->setText(r.message);
                              self->m_approve->setEnabled(!self->m_reason->text().trimmed().isEmpty());
                          });
    }

    client::ControlClient& m_control;
    QString m_operationId;
    QLineEdit* m_reason;
    QLabel* m_result;
    QPushButton* m_cancel;
    QPushButton* m_approve;
    bool m_inFlight = false;
};

}  // namespace

OperationsDock::OperationsDock(const QVector<QPointer<client::ControlClient>>& controls, const QStringList& labels,
                               QWidget* parent)
    : QDockWidget(QStringLiteral("Operations"), parent),
      m_controls(controls),
      m_model(new OperationsModel(nullptr, this)),
      m_table(new QTableView(this)),
      m_approve(new QPushButton(QStringLiteral("Approve…"), this)),
      m_status(new QLabel(this)) {
    setObjectName(QStringLiteral("operationsDock"));
    for (int i = 0; i < m_controls.size(); ++i) {
        if (m_controls[i]) m_model->addClient(m_controls[i], labels.value(i));
    }
    auto* ages = new OperationAgeProxy(this);
    ages->setSourceModel(m_model);
    m_table->setObjectName(QStringLiteral("operationsTable"));
    m_table->setModel(ages);
    m_table->setItemDelegateForColumn(OperationsModel::Progress, new ProgressDelegate(m_table));
    setUpReadOnlyTable(*m_table);
    m_table->setColumnHidden(OperationsModel::Endpoint, m_controls.size() < 2);
    m_table->setContextMenuPolicy(Qt::CustomContextMenu);

    auto* body = new QWidget(this);
    auto* layout = new QVBoxLayout(body);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_table, 1);
    auto* footer = new QHBoxLayout;
    m_status->setObjectName(QStringLiteral("operationsStatus"));
    footer->addWidget(m_status, 1);
    m_approve->setObjectName(QStringLiteral("approveButton"));
    m_approve->setAutoDefault(false);
    footer->addWidget(m_approve);
    layout->addLayout(footer);
    setWidget(body);

    connect(m_table, &QWidget::customContextMenuRequested, this, [this](const QPoint& pos) {
        const QModelIndex index = m_table->indexAt(pos);
        if (!index.isValid()) return;
        QMenu menu(this);
        populateMenu(menu, index.row());
        menu.exec(m_table->viewport()->mapToGlobal(pos));
    });
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &OperationsDock::updateApproveButton);
    connect(m_model, &QAbstractItemModel::dataChanged, this, &OperationsDock::updateApproveButton);
    connect(m_model, &QAbstractItemModel::modelReset, this, &OperationsDock::updateApproveButton);
    connect(m_model, &QAbstractItemModel::rowsInserted, this, &OperationsDock::updateApproveButton);
    // The short columns fit their text (time and age, action, target, who, state) as rows arrive.
    auto fitColumns = [this] {
        for (int column : {OperationsModel::Time, OperationsModel::Action, OperationsModel::Target,
                           OperationsModel::Principal, OperationsModel::State})
            m_table->resizeColumnToContents(column);
    };
    connect(m_model, &QAbstractItemModel::rowsInserted, this, fitColumns);
    connect(m_model, &QAbstractItemModel::modelReset, this, fitColumns);
    connect(m_approve, &QPushButton::clicked, this, [this] {
        if (const int row = selectedRow(); row >= 0) approveRow(row);
    });
    for (const QPointer<client::ControlClient>& control : std::as_const(m_controls)) {
        if (!control) continue;
        connect(control, &client::ControlClient::identityChanged, this, &OperationsDock::updateApproveButton);
        connect(control, &client::ControlClient::watchStateChanged, this, &OperationsDock::updateStatus);
    }
    m_ageTimer.setInterval(std::chrono::seconds(10));
    connect(&m_ageTimer, &QTimer::timeout, ages, &OperationAgeProxy::touchAges);
    m_ageTimer.start();
    updateApproveButton();
    updateStatus();
}

int OperationsDock::selectedRow() const {
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    return rows.isEmpty() ? -1 : rows.first().row();
}

bool OperationsDock::canApprove(int row, QString* why) const {
    auto refuse = [why](const QString& text) {
        if (why) *why = text;
        return false;
    };
    if (row < 0 || row >= m_model->rowCount()) return refuse(QStringLiteral("Select an operation awaiting approval."));
    const v1::Operation& op = m_model->operationAt(row);
    client::ControlClient* control = m_model->clientAt(row);
    if (op.state() != v1::OPERATION_STATE_AWAITING_APPROVAL)
        return refuse(QStringLiteral("This operation is %1; only one awaiting approval can be approved.")
                          .arg(operationStateLabel(op.state())));
    if (!control || !control->canAct()) return refuse(QStringLiteral("Only an operator or admin can approve."));
    if (QString::fromStdString(op.principal()) == control->principal())
        return refuse(
            QStringLiteral("You asked for this operation; a second operator must approve it "
                           "(fleetd refuses self-approval)."));
    if (op.approval_expires_unix_ms() > 0 && op.approval_expires_unix_ms() < QDateTime::currentMSecsSinceEpoch())
        return refuse(QStringLiteral("The approval window has closed; the requester must ask again."));
    if (why) why->clear();
    return true;
}

void OperationsDock::updateApproveButton() {
    // Absent, not disabled, for a console that cannot act anywhere (viewers).
    bool anyActor = false;
    for (const QPointer<client::ControlClient>& control : std::as_const(m_controls))
        anyActor = anyActor || (control && control->canAct());
    m_approve->setVisible(anyActor);
    QString why;
    const bool allowed = canApprove(selectedRow(), &why);
    m_approve->setEnabled(allowed);
    m_approve->setToolTip(allowed ? QStringLiteral("Approve the selected operation as the second operator") : why);
}

void OperationsDock::updateStatus() {
    QStringList lines;
    for (const QPointer<client::ControlClient>& control : std::as_const(m_controls)) {
        if (control) lines << control->watchStatusText();
    }
    m_status->setText(lines.isEmpty() ? QStringLiteral("No control connection (start the console with --token-file).")
                                      : lines.join(QStringLiteral(" · ")));
}

void OperationsDock::populateMenu(QMenu& menu, int row) {
    if (row < 0 || row >= m_model->rowCount()) return;
    const v1::Operation op = m_model->operationAt(row);
    client::ControlClient* control = m_model->clientAt(row);
    if (control && control->canAct() && op.state() == v1::OPERATION_STATE_AWAITING_APPROVAL) {
        QString why;
        QAction* approve = menu.addAction(QStringLiteral("Approve…"), this, [this, row] { approveRow(row); });
        approve->setObjectName(QStringLiteral("operatorAction"));
        approve->setEnabled(canApprove(row, &why));
        approve->setToolTip(why);
        menu.addSeparator();
    }
    const QString id = QString::fromStdString(op.id());
    const QString requestId = QString::fromStdString(op.request_id());
    menu.addAction(QStringLiteral("Copy operation id"), this, [id] { QApplication::clipboard()->setText(id); });
    menu.addAction(QStringLiteral("Copy request id"), this,
                   [requestId] { QApplication::clipboard()->setText(requestId); });
}

void OperationsDock::approveRow(int row) {
    if (!canApprove(row)) return;
    auto* dialog = new ApprovalDialog(*m_model->clientAt(row), m_model->operationAt(row), m_colours, window());
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowModality(Qt::WindowModal);
    dialog->show();
    emit approvalDialogOpened(dialog);
}

void OperationsDock::applyTheme(const widgets::Theme& theme) {
    m_colours = ActionColours::of(theme);
    m_table->verticalHeader()->setDefaultSectionSize(QFontMetrics(theme.font(9.5)).height() + 8);
}

}  // namespace watchfloor::ui

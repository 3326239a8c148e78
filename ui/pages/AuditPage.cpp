#include "AuditPage.h"

#include "ActionWording.h"
#include "EntityTableView.h"
#include "PageHeader.h"

#include "AuditModel.h"
#include "FleetStore.h"
#include "Theme.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QStackedWidget>
#include <QTableView>
#include <QVBoxLayout>

#include <set>

namespace watchfloor::ui {

namespace v1 = watchfloor::v1;
using client::AuditModel;

namespace {
constexpr quint32 kAuditPageSize = 200;
}

void AuditFilter::setCriteria(const QString& principal, const QString& action, const QString& decision) {
    m_principal = principal.trimmed();
    m_action = action;
    m_decision = decision;
    invalidateFilter();
}

bool AuditFilter::filterAcceptsRow(int sourceRow, const QModelIndex&) const {
    const auto* model = static_cast<const AuditModel*>(sourceModel());
    const v1::AuditEntry& entry = model->entryAt(sourceRow);
    if (!m_principal.isEmpty() &&
        QString::fromStdString(entry.principal()).compare(m_principal, Qt::CaseInsensitive) != 0)
        return false;
    if (!m_action.isEmpty() && QString::fromStdString(entry.action()) != m_action) return false;
    return m_decision.isEmpty() || QString::fromStdString(entry.decision()) == m_decision;
}

AuditPage::AuditPage(const PageContext& context, QWidget* parent)
    : Page(parent),
      m_context(context),
      m_header(new PageHeader(QStringLiteral("Audit"), this)),
      m_endpointBox(new QComboBox),
      m_principalEdit(new QLineEdit),
      m_actionBox(new QComboBox),
      m_decisionBox(new QComboBox),
      m_stack(new QStackedWidget(this)),
      m_explanation(new QLabel(this)),
      m_table(new QTableView(this)),
      m_loadOlder(new QPushButton(QStringLiteral("Load older"), this)),
      m_filter(new AuditFilter(this)) {
    for (int i = 0; i < m_context.controls.size(); ++i) {
        if (m_context.controls[i])
            m_endpointBox->addItem(i < m_context.store->endpointCount() ? m_context.store->endpointLabel(i)
                                                                        : QStringLiteral("endpoint %1").arg(i + 1),
                                   i);
    }
    m_endpointBox->setVisible(m_endpointBox->count() > 1);
    m_endpointBox->setToolTip(QStringLiteral("Each fleetd keeps its own audit trail"));
    m_principalEdit->setPlaceholderText(QStringLiteral("Principal (anyone)"));
    m_principalEdit->setClearButtonEnabled(true);
    m_actionBox->addItem(QStringLiteral("All actions"), QString());
    m_decisionBox->addItem(QStringLiteral("All decisions"), QString());
    m_decisionBox->addItem(QStringLiteral("Allowed"), QStringLiteral("allow"));
    m_decisionBox->addItem(QStringLiteral("Denied"), QStringLiteral("deny"));
    m_decisionBox->addItem(QStringLiteral("Results"), QStringLiteral("result"));
    m_header->addControl(m_endpointBox);
    m_header->addControl(m_principalEdit);
    m_header->addControl(m_actionBox);
    m_header->addControl(m_decisionBox);

    m_table->setObjectName(QStringLiteral("auditTable"));
    m_table->setModel(m_filter);
    setUpReadOnlyTable(*m_table);
    m_explanation->setObjectName(QStringLiteral("auditExplanation"));
    m_explanation->setWordWrap(true);
    m_explanation->setAlignment(Qt::AlignCenter);
    m_explanation->setMargin(40);

    auto* tablePane = new QWidget(m_stack);
    auto* tableLayout = new QVBoxLayout(tablePane);
    tableLayout->setContentsMargins(0, 0, 0, 0);
    tableLayout->addWidget(m_table, 1);
    auto* footer = new QHBoxLayout;
    footer->addStretch(1);
    m_loadOlder->setObjectName(QStringLiteral("loadOlderButton"));
    footer->addWidget(m_loadOlder);
    tableLayout->addLayout(footer);
    m_stack->addWidget(m_explanation);
    m_stack->addWidget(tablePane);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(12, 8, 12, 12);
    layout->setSpacing(8);
    layout->addWidget(m_header);
    layout->addWidget(m_stack, 1);

    m_refreshSoon.setSingleShot(true);
    m_refreshSoon.setInterval(std::chrono::seconds(1));
    connect(&m_refreshSoon, &QTimer::timeout, this, [this] {
        if (AuditModel* audit = model(); audit && isActive() && explanation().isEmpty()) audit->refresh();
    });
    connect(m_endpointBox, &QComboBox::currentIndexChanged, this, &AuditPage::switchEndpoint);
    connect(m_principalEdit, &QLineEdit::textChanged, this, &AuditPage::applyFilters);
    connect(m_actionBox, &QComboBox::currentIndexChanged, this, &AuditPage::applyFilters);
    connect(m_decisionBox, &QComboBox::currentIndexChanged, this, &AuditPage::applyFilters);
    connect(m_loadOlder, &QPushButton::clicked, this, [this] {
        if (AuditModel* audit = model()) audit->fetchMore({});
    });
    for (const QPointer<client::ControlClient>& control : std::as_const(m_context.controls)) {
        if (!control) continue;
        connect(control, &client::ControlClient::identityChanged, this, &AuditPage::updateView);
        connect(control, &client::ControlClient::operationChanged, this, [this] { m_refreshSoon.start(); });
    }
    switchEndpoint();
}

client::ControlClient* AuditPage::currentControl() const {
    return m_context.control(m_endpointBox->count() ? m_endpointBox->currentData().toInt() : 0);
}

AuditModel* AuditPage::model() const {
    const auto found = m_models.find(m_endpointBox->count() ? m_endpointBox->currentData().toInt() : 0);
    return found != m_models.end() ? found->second : nullptr;
}

void AuditPage::switchEndpoint() {
    const int endpoint = m_endpointBox->count() ? m_endpointBox->currentData().toInt() : 0;
    client::ControlClient* control = m_context.control(endpoint);
    if (control && m_models.find(endpoint) == m_models.end()) {
        auto* audit = new AuditModel(control, kAuditPageSize, this);
        connect(audit, &QAbstractItemModel::rowsInserted, this, &AuditPage::updateView);
        connect(audit, &QAbstractItemModel::modelReset, this, &AuditPage::updateView);
        connect(audit, &AuditModel::loadingChanged, this, &AuditPage::updateView);
        connect(audit, &AuditModel::loadFailed, this, &AuditPage::updateView);
        m_models.emplace(endpoint, audit);
    }
    updateView();
}

QString AuditPage::explanation() const {
    const client::ControlClient* control = currentControl();
    if (!control)
        return QStringLiteral(
            "This console has no control connection to fleetd. Start it with --token-file "
            "and an operator's token to read the audit trail.");
    if (control->role() == v1::ROLE_UNSPECIFIED) {
        return control->identityError().isEmpty()
                   ? QStringLiteral("Waiting for fleetd to say who you are…")
                   : QStringLiteral("fleetd did not accept this console's identity: %1").arg(control->identityError());
    }
    if (!control->canAct())
        return QStringLiteral(
                   "The audit trail names people and the reasons they gave, so fleetd shows it to "
                   "operators and admins only.\nYou are signed in as %1 (%2).")
            .arg(control->principal(), roleWord(control->role()));
    return {};
}

void AuditPage::updateView() {
    const QString why = explanation();
    m_explanation->setText(why);
    m_stack->setCurrentIndex(why.isEmpty() ? 1 : 0);
    for (QWidget* filter : {static_cast<QWidget*>(m_principalEdit), static_cast<QWidget*>(m_actionBox),
                            static_cast<QWidget*>(m_decisionBox)})
        filter->setEnabled(why.isEmpty());
    AuditModel* audit = why.isEmpty() ? model() : nullptr;
    // The view fetches from whatever model it shows, so a console that may not read the trail
    // gets no model at all: no refused request for fleetd to audit each time the page opens.
    if (m_filter->sourceModel() != audit) m_filter->setSourceModel(audit);
    if (!audit) {
        m_header->setSummary(QStringLiteral("Who did what, when and why — every decision fleetd made"));
        return;
    }
    // The first page comes with the view's first fetch; ask for it ourselves in case the view
    // has not laid out yet (hidden page, headless render).
    if (audit->rowCount() == 0 && audit->canFetchMore({}) && isActive()) audit->fetchMore({});
    updateActionChoices();
    m_loadOlder->setEnabled(audit->canFetchMore({}));
    QString summary =
        QStringLiteral("%1 of %2 loaded entries shown · newest first").arg(m_filter->rowCount()).arg(audit->rowCount());
    if (audit->isLoading())
        summary += QStringLiteral(" · loading…");
    else if (audit->reachedOldest())
        summary += QStringLiteral(" · the oldest entry is loaded");
    else
        summary += QStringLiteral(" · scroll down for older entries");
    if (!audit->lastError().isEmpty()) summary += QStringLiteral(" · ") + audit->lastError();
    m_header->setSummary(summary);
    fitColumns();
}

void AuditPage::fitColumns() {
    constexpr int kMaxColumnWidth = 420;  // long results and reasons stay readable in the tooltip
    m_table->resizeColumnsToContents();
    for (int column = 0; column < m_table->model()->columnCount(); ++column)
        m_table->setColumnWidth(column, std::min(m_table->columnWidth(column), kMaxColumnWidth));
}

void AuditPage::updateActionChoices() {
    const AuditModel* audit = model();
    std::set<QString> actions;
    for (int row = 0; audit && row < audit->rowCount(); ++row)
        actions.insert(QString::fromStdString(audit->entryAt(row).action()));
    if (int(actions.size()) == m_actionBox->count() - 1) return;
    const QString current = m_actionBox->currentData().toString();
    const QSignalBlocker block(m_actionBox);
    while (m_actionBox->count() > 1) m_actionBox->removeItem(1);
    for (const QString& action : actions) m_actionBox->addItem(action, action);
    m_actionBox->setCurrentIndex(std::max(0, m_actionBox->findData(current)));
}

void AuditPage::applyFilters() {
    m_filter->setCriteria(m_principalEdit->text(), m_actionBox->currentData().toString(),
                          m_decisionBox->currentData().toString());
    updateView();
}

void AuditPage::setFilters(const QString& principal, const QString& action, const QString& decision) {
    m_principalEdit->setText(principal);
    if (!action.isEmpty() && m_actionBox->findData(action) < 0) m_actionBox->addItem(action, action);
    m_actionBox->setCurrentIndex(std::max(0, m_actionBox->findData(action)));
    m_decisionBox->setCurrentIndex(std::max(0, m_decisionBox->findData(decision)));
    applyFilters();
}

bool AuditPage::showEntity(const QString& name) {
    m_principalEdit->setText(name);
    emit entityShown(name);
    return true;
}

QString AuditPage::entity() const { return m_principalEdit->text().trimmed(); }

int AuditPage::visibleEntryCount() const { return m_filter->rowCount(); }

void AuditPage::applyTheme(const widgets::Theme& theme) {
    m_header->applyTheme(theme);
    m_table->verticalHeader()->setDefaultSectionSize(QFontMetrics(theme.font(9.5)).height() + 8);
}

bool AuditPage::hasContent() const {
    if (!explanation().isEmpty()) {
        // The explanation is what there is to see, once it is final (not "waiting for fleetd").
        const client::ControlClient* control = currentControl();
        return !control || control->role() != v1::ROLE_UNSPECIFIED || !control->identityError().isEmpty();
    }
    const AuditModel* audit = model();
    return audit && (audit->rowCount() > 0 || audit->reachedOldest());
}

void AuditPage::setActive(bool active) {
    Page::setActive(active);
    if (!active) return;
    if (AuditModel* audit = model(); audit && explanation().isEmpty() && audit->rowCount() > 0)
        audit->refresh();  // what happened while the page was hidden
    updateView();          // fetches the first page when there is none yet
}

}  // namespace watchfloor::ui

#include "ActionDialog.h"

#include "ActionWording.h"

#include "ControlClient.h"
#include "RepairCases.h"
#include "StateLabels.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QUuid>
#include <QVBoxLayout>

namespace watchfloor::ui {

namespace v1 = watchfloor::v1;

namespace {

// The request may or may not have reached fleetd: re-sending the same request id is the only
// safe next step (fleetd answers a known id with its first result).
bool outcomeUnknown(grpc::StatusCode code) {
    return code == grpc::StatusCode::UNAVAILABLE || code == grpc::StatusCode::DEADLINE_EXCEEDED ||
           code == grpc::StatusCode::CANCELLED || code == grpc::StatusCode::UNKNOWN ||
           code == grpc::StatusCode::INTERNAL;
}

QString coloured(const QString& text, const QColor& colour) {
    return QStringLiteral("<span style='color:%1'>%2</span>").arg(colour.name(), text);
}

}  // namespace

QStringList splitNodeNames(const QString& text) {
    QStringList names;
    for (const QString& part : text.split(QRegularExpression(QStringLiteral("[,\\s]+")), Qt::SkipEmptyParts))
        names << part.trimmed();
    names.removeDuplicates();
    return names;
}

ActionDialog::ActionDialog(client::ControlClient& control, v1::ActionRequest draft, QWidget* parent)
    : QDialog(parent),
      m_control(control),
      m_draft(std::move(draft)),
      m_previewLabel(new QLabel(this)),
      m_status(new QLabel(this)),
      m_progress(new QProgressBar(this)),
      m_reason(new QLineEdit(this)),
      m_buttons(new QDialogButtonBox(this)) {
    setObjectName(QStringLiteral("actionDialog"));
    setWindowTitle(QStringLiteral("%1 — Watchfloor").arg(actionHeading(m_draft)));
    setMinimumWidth(560);

    auto* layout = new QVBoxLayout(this);
    m_heading = new QLabel(this);
    m_heading->setObjectName(QStringLiteral("actionHeading"));
    m_heading->setTextFormat(Qt::RichText);
    QFont headingFont = m_heading->font();
    headingFont.setPointSizeF(headingFont.pointSizeF() * 1.25);
    m_heading->setFont(headingFont);
    layout->addWidget(m_heading);

    m_previewTitle = new QLabel(this);
    m_previewTitle->setEnabled(false);
    layout->addWidget(m_previewTitle);
    m_previewLabel->setObjectName(QStringLiteral("actionPreview"));
    m_previewLabel->setTextFormat(Qt::RichText);
    m_previewLabel->setWordWrap(true);
    m_previewLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_previewLabel->setMinimumHeight(120);
    m_previewLabel->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    layout->addWidget(m_previewLabel);

    auto* form = new QFormLayout;
    buildInputs(form);
    layout->addLayout(form);
    updateHeading();

    m_status->setObjectName(QStringLiteral("actionStatus"));
    m_status->setTextFormat(Qt::RichText);
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_status);
    m_progress->setRange(0, 100);
    m_progress->hide();
    layout->addWidget(m_progress);

    m_refresh = m_buttons->addButton(QStringLiteral("Refresh preview"), QDialogButtonBox::ResetRole);
    m_cancel = m_buttons->addButton(QDialogButtonBox::Cancel);
    m_confirm = m_buttons->addButton(actionConfirmText(m_draft), QDialogButtonBox::ApplyRole);
    m_confirm->setObjectName(QStringLiteral("confirmButton"));
    m_cancel->setObjectName(QStringLiteral("cancelButton"));
    // Enter must never confirm: Cancel is the only button that may become the default, even
    // while another one has focus.
    m_refresh->setAutoDefault(false);
    m_confirm->setAutoDefault(false);
    m_cancel->setAutoDefault(true);
    m_cancel->setDefault(true);
    layout->addWidget(m_buttons);

    connect(m_refresh, &QPushButton::clicked, this, &ActionDialog::refreshPreview);
    connect(m_confirm, &QPushButton::clicked, this, &ActionDialog::confirm);
    connect(m_cancel, &QPushButton::clicked, this, &QDialog::reject);
    connect(m_reason, &QLineEdit::textChanged, this, &ActionDialog::updateButtons);
    if (m_confirmName) connect(m_confirmName, &QLineEdit::textChanged, this, &ActionDialog::updateButtons);
    if (m_exclude)
        connect(m_exclude, &QLineEdit::editingFinished, this, [this] {
            // The blast radius depends on where the job may restart.
            if (m_phase == Phase::Ready || m_phase == Phase::PreviewFailed) refreshPreview();
        });
    connect(&m_control, &client::ControlClient::operationChanged, this, [this](const v1::Operation& operation) {
        if (!m_operationId.isEmpty() && QString::fromStdString(operation.id()) == m_operationId)
            showOperation(operation);
    });

    // A draft may suggest the reason (a fail-slow eviction names the tray, slowdown and job); the
    // operator can still edit it.
    m_reason->setText(QString::fromStdString(m_draft.reason()));
    m_reason->setFocus();
    refreshPreview();
}

void ActionDialog::buildInputs(QFormLayout* form) {
    m_reason->setObjectName(QStringLiteral("reasonEdit"));
    m_reason->setMaxLength(500);
    m_reason->setPlaceholderText(QStringLiteral("Why (required) — stored with your name in the audit log"));
    form->addRow(QStringLiteral("Reason"), m_reason);

    // What else an action asks for is its row in the console's table of actions; how each input
    // looks and behaves is the dialog's.
    const client::ActionInputs& inputs = client::actionWords(m_draft.type()).inputs;
    if (inputs.excludeNodes) addExcludeInput(form);
    if (inputs.typeTargetName) addTypedNameInput(form, QString::fromUtf8(inputs.typeNameWhy));
    if (inputs.chooseLifecycle) addLifecycleInput(form);
    addLinkInputs(form, inputs);
    addRepairInputs(form, inputs);
    if (inputs.showOwner) {
        const QString principal = m_control.principal();
        auto* owner =
            new QLabel(principal.isEmpty() ? QStringLiteral("you") : QStringLiteral("%1 (you)").arg(principal), this);
        owner->setObjectName(QStringLiteral("ownerLabel"));
        form->addRow(QStringLiteral("Owner"), owner);
    }
    const QString prompt = QString::fromUtf8(inputs.notePrompt);
    switch (inputs.note) {
    case client::NoteInput::Optional: addNoteInput(form, QStringLiteral("%1 (optional)").arg(prompt)); break;
    case client::NoteInput::Required:
        m_noteRequired = true;
        addNoteInput(form, QStringLiteral("%1 (required)").arg(prompt));
        break;
    case client::NoteInput::Shown: {
        // Written in the handoff dialog; shown exactly as fleetd will store it (one line).
        auto* note = new QLabel(QString::fromStdString(m_draft.note()).toHtmlEscaped(), this);
        note->setObjectName(QStringLiteral("handoffNoteLabel"));
        note->setWordWrap(true);
        note->setTextInteractionFlags(Qt::TextSelectableByMouse);
        form->addRow(QStringLiteral("Note"), note);
        break;
    }
    case client::NoteInput::None: break;
    }
}

void ActionDialog::addExcludeInput(QFormLayout* form) {
    m_exclude = new QLineEdit(this);
    m_exclude->setObjectName(QStringLiteral("excludeEdit"));
    QStringList nodes;
    for (const std::string& node : m_draft.exclude_node_names()) nodes << QString::fromStdString(node);
    m_exclude->setText(nodes.join(QStringLiteral(", ")));
    m_exclude->setPlaceholderText(QStringLiteral("none"));
    m_exclude->setToolTip(
        QStringLiteral("Nodes the job must not restart on (comma-separated). "
                       "Pre-filled with the job's drained, draining, down and failed-GPU trays."));
    form->addRow(QStringLiteral("Exclude nodes"), m_exclude);
}

QString ActionDialog::targetNoun() const {
    return QString::fromUtf8(client::targetWords(client::actionWords(m_draft.type()).target).noun);
}

void ActionDialog::addTypedNameInput(QFormLayout* form, const QString& why) {
    QString noun = targetNoun();
    m_confirmName = new QLineEdit(this);
    m_confirmName->setObjectName(QStringLiteral("confirmNameEdit"));
    m_confirmName->setPlaceholderText(QStringLiteral("Type %1 to confirm").arg(client::actionTargetName(m_draft)));
    m_confirmName->setToolTip(why);
    noun[0] = noun[0].toUpper();
    form->addRow(QStringLiteral("%1 name").arg(noun), m_confirmName);
}

void ActionDialog::addLifecycleInput(QFormLayout* form) {
    m_lifecycle = new QComboBox(this);
    m_lifecycle->setObjectName(QStringLiteral("lifecycleBox"));
    for (v1::TrayLifecycle state : {v1::TRAY_LIFECYCLE_PRODUCTION, v1::TRAY_LIFECYCLE_TRIAGE,
                                    v1::TRAY_LIFECYCLE_BURN_IN, v1::TRAY_LIFECYCLE_RMA, v1::TRAY_LIFECYCLE_MAINTENANCE})
        m_lifecycle->addItem(client::lifecycleLabel(state), int(state));
    m_lifecycle->setCurrentIndex(std::max(0, m_lifecycle->findData(int(m_draft.lifecycle()))));
    m_lifecycle->setToolTip(QStringLiteral("A label for people and schedulers: it does not drain the tray"));
    form->addRow(QStringLiteral("Lifecycle"), m_lifecycle);
    // The preview says what changes (or that nothing does) for the state chosen.
    connect(m_lifecycle, &QComboBox::currentIndexChanged, this, [this] {
        m_draft.set_lifecycle(v1::TrayLifecycle(m_lifecycle->currentData().toInt()));
        if (m_phase == Phase::Ready || m_phase == Phase::PreviewFailed) refreshPreview();
    });
}

void ActionDialog::updateHeading() {
    // The target as the request names it now: choosing GPU 2 makes it "Reset GPU r01-n03-g2".
    const QString target = client::actionTargetName(m_draft);
    QString text = QStringLiteral("<b>%1</b>").arg(client::actionTitle(m_draft.type()).toHtmlEscaped());
    if (!target.isEmpty()) text += QLatin1Char(' ') + target.toHtmlEscaped();
    if (m_gpu && !m_draft.has_gpu_index()) text += QStringLiteral(" (all GPUs)");
    m_heading->setText(text);
    setWindowTitle(QStringLiteral("%1 — Watchfloor").arg(actionHeading(m_draft)));
}

void ActionDialog::addLinkInputs(QFormLayout* form, const client::ActionInputs& inputs) {
    if (inputs.atNextCheckpoint) {
        m_atCheckpoint = new QCheckBox(QStringLiteral("Drain at the jobs' next checkpoint"), this);
        m_atCheckpoint->setObjectName(QStringLiteral("atNextCheckpointBox"));
        m_atCheckpoint->setChecked(m_draft.at_next_checkpoint());
        m_atCheckpoint->setToolTip(
            QStringLiteral("fleetd waits until every job on the tray has saved a checkpoint, then drains: the jobs "
                           "lose their restart and nothing else. Unticked, the tray drains now."));
        form->addRow(QStringLiteral("When"), m_atCheckpoint);
        connect(m_atCheckpoint, &QCheckBox::toggled, this, &ActionDialog::repairInputsChanged);
    }
    if (inputs.chooseTreatment) {
        m_treatment = new QComboBox(this);
        m_treatment->setObjectName(QStringLiteral("treatmentBox"));
        m_treatment->addItem(QStringLiteral("Reseat and clean both ends"), int(v1::LINK_TREATMENT_RESEAT_AND_CLEAN));
        m_treatment->addItem(QStringLiteral("Replace transceiver"), int(v1::LINK_TREATMENT_REPLACE_TRANSCEIVER));
        m_treatment->addItem(QStringLiteral("Replace cable"), int(v1::LINK_TREATMENT_REPLACE_CABLE));
        m_treatment->addItem(QStringLiteral("Port reset / counters cleared"), int(v1::LINK_TREATMENT_RESET));
        m_treatment->addItem(QStringLiteral("Other (say what in the note)"), int(v1::LINK_TREATMENT_OTHER));
        m_treatment->setCurrentIndex(std::max(0, m_treatment->findData(int(m_draft.link_treatment()))));
        form->addRow(QStringLiteral("Treatment"), m_treatment);
        connect(m_treatment, &QComboBox::currentIndexChanged, this, &ActionDialog::repairInputsChanged);
        m_linkEnd = new QComboBox(this);
        m_linkEnd->setObjectName(QStringLiteral("linkEndBox"));
        m_linkEnd->addItem(QStringLiteral("—"), int(v1::LINK_END_UNSPECIFIED));
        m_linkEnd->addItem(QStringLiteral("host (the tray's NIC port)"), int(v1::LINK_END_HOST));
        m_linkEnd->addItem(QStringLiteral("switch (the leaf's port)"), int(v1::LINK_END_SWITCH));
        m_linkEnd->addItem(QStringLiteral("both"), int(v1::LINK_END_BOTH));
        m_linkEnd->setCurrentIndex(std::max(0, m_linkEnd->findData(int(m_draft.link_end()))));
        m_linkEnd->setToolTip(QStringLiteral("Which end was worked on; required for a transceiver"));
        form->addRow(QStringLiteral("End"), m_linkEnd);
        connect(m_linkEnd, &QComboBox::currentIndexChanged, this, &ActionDialog::repairInputsChanged);
    }
}

void ActionDialog::addRepairInputs(QFormLayout* form, const client::ActionInputs& inputs) {
    if (inputs.chooseGpu) {
        m_gpu = new QComboBox(this);
        m_gpu->setObjectName(QStringLiteral("gpuBox"));
        m_gpu->addItem(QStringLiteral("all GPUs of the tray"), -1);
        for (int gpu = 0; gpu < 4; ++gpu) m_gpu->addItem(QStringLiteral("GPU %1").arg(gpu), gpu);
        m_gpu->setCurrentIndex(m_draft.has_gpu_index() ? std::max(0, m_gpu->findData(int(m_draft.gpu_index()))) : 0);
        m_gpu->setToolTip(
            QStringLiteral("nvidia-smi -r -i GPU; all GPUs: without -i. No process may hold a GPU being reset."));
        form->addRow(QStringLiteral("GPU"), m_gpu);
        connect(m_gpu, &QComboBox::currentIndexChanged, this, &ActionDialog::repairInputsChanged);
    }
    if (inputs.diagnosticLevel) {
        m_level = new QComboBox(this);
        m_level->setObjectName(QStringLiteral("diagnosticLevelBox"));
        m_level->addItem(QStringLiteral("1 — quick: deployment checks (seconds)"), 1);
        m_level->addItem(QStringLiteral("2 — medium: + memory, PCIe (about 2 min)"), 2);
        m_level->addItem(QStringLiteral("3 — long: + stress, NVLink, NCCL (about 15 min)"), 3);
        m_level->addItem(QStringLiteral("4 — extra long: + memtest, pulse (1–2 h)"), 4);
        const int level =
            m_draft.diagnostic_level() >= 1 && m_draft.diagnostic_level() <= 4 ? int(m_draft.diagnostic_level()) : 2;
        m_level->setCurrentIndex(std::max(0, m_level->findData(level)));
        form->addRow(QStringLiteral("Diagnostic level"), m_level);
        connect(m_level, &QComboBox::currentIndexChanged, this, &ActionDialog::repairInputsChanged);
    }
    if (inputs.waitForDrain) {
        m_waitForDrain = new QCheckBox(QStringLiteral("Wait for the tray to drain (ASAP)"), this);
        m_waitForDrain->setObjectName(QStringLiteral("waitForDrainBox"));
        m_waitForDrain->setChecked(m_draft.wait_for_drain());
        m_waitForDrain->setToolTip(
            QStringLiteral("Drain now and run the step once no job holds the tray (Slurm's scontrol reboot ASAP). "
                           "Unticked, fleetd refuses a tray a job still holds."));
        form->addRow(QStringLiteral("Jobs"), m_waitForDrain);
        connect(m_waitForDrain, &QCheckBox::toggled, this, &ActionDialog::repairInputsChanged);
    }
    if (inputs.afterRepair) {
        m_afterRepair = new QComboBox(this);
        m_afterRepair->setObjectName(QStringLiteral("afterRepairBox"));
        for (v1::TrayAfterRepair after :
             {v1::TRAY_AFTER_REPAIR_RESUME, v1::TRAY_AFTER_REPAIR_STAY_DRAINED, v1::TRAY_AFTER_REPAIR_DOWN})
            m_afterRepair->addItem(client::trayAfterRepairLabel(after), int(after));
        const v1::TrayAfterRepair after = m_draft.after_repair() == v1::TRAY_AFTER_REPAIR_UNSPECIFIED
                                              ? v1::TRAY_AFTER_REPAIR_STAY_DRAINED
                                              : m_draft.after_repair();
        m_afterRepair->setCurrentIndex(std::max(0, m_afterRepair->findData(int(after))));
        m_afterRepair->setToolTip(
            QStringLiteral("Where the tray goes once the step ended: back in service only if it succeeded and the "
                           "tray has no fault; held down, e.g. before an RMA."));
        form->addRow(QStringLiteral("Afterwards"), m_afterRepair);
        connect(m_afterRepair, &QComboBox::currentIndexChanged, this, &ActionDialog::repairInputsChanged);
    }
    // The draft holds what the inputs show from the start: the first preview asks about that.
    writeRepairInputs();
}

void ActionDialog::writeRepairInputs() {
    if (m_gpu) {
        const int gpu = m_gpu->currentData().toInt();
        if (gpu < 0)
            m_draft.clear_gpu_index();
        else
            m_draft.set_gpu_index(std::uint32_t(gpu));
    }
    if (m_level) m_draft.set_diagnostic_level(std::uint32_t(m_level->currentData().toInt()));
    if (m_waitForDrain) m_draft.set_wait_for_drain(m_waitForDrain->isChecked());
    if (m_afterRepair) m_draft.set_after_repair(v1::TrayAfterRepair(m_afterRepair->currentData().toInt()));
    if (m_atCheckpoint) m_draft.set_at_next_checkpoint(m_atCheckpoint->isChecked());
    if (m_treatment) m_draft.set_link_treatment(v1::LinkTreatment(m_treatment->currentData().toInt()));
    if (m_linkEnd) m_draft.set_link_end(v1::LinkEnd(m_linkEnd->currentData().toInt()));
}

void ActionDialog::repairInputsChanged() {
    writeRepairInputs();
    updateHeading();
    m_confirm->setText(actionConfirmText(m_draft));
    // The blast radius, the time out and where the tray goes depend on each of them.
    if (m_phase == Phase::Ready || m_phase == Phase::PreviewFailed) refreshPreview();
}

void ActionDialog::addNoteInput(QFormLayout* form, const QString& placeholder) {
    m_note = new QLineEdit(this);
    m_note->setObjectName(QStringLiteral("noteEdit"));
    m_note->setMaxLength(1000);
    m_note->setPlaceholderText(placeholder);
    form->addRow(QStringLiteral("Note"), m_note);
    connect(m_note, &QLineEdit::textChanged, this, &ActionDialog::updateButtons);
}

v1::ActionRequest ActionDialog::request() const {
    if (m_sent) return *m_sent;
    v1::ActionRequest request = m_draft;
    request.set_reason(m_reason->text().trimmed().toStdString());
    if (m_preview) request.set_expected_state_version(m_preview->state_version());
    if (m_exclude) {
        request.clear_exclude_node_names();
        for (const QString& node : splitNodeNames(m_exclude->text()))
            request.add_exclude_node_names(node.toStdString());
    }
    if (m_confirmName) request.set_confirm_rack_name(m_confirmName->text().toStdString());
    if (m_note) request.set_note(m_note->text().trimmed().toStdString());
    if (m_lifecycle) request.set_lifecycle(v1::TrayLifecycle(m_lifecycle->currentData().toInt()));
    return request;
}

bool ActionDialog::targetNameConfirmed() const {
    // Exactly as named: a near miss ("R01", "r01 ") is how the wrong rack gets isolated.
    return !m_confirmName || m_confirmName->text() == client::actionTargetName(m_draft);
}

bool ActionDialog::noteGiven() const { return !m_noteRequired || !m_note->text().trimmed().isEmpty(); }

bool ActionDialog::canConfirm() const {
    if (m_phase == Phase::OutcomeUnknown) return true;  // re-sends the same request; inputs are locked
    return m_phase == Phase::Ready && m_preview && m_preview->allowed() && !m_reason->text().trimmed().isEmpty() &&
           targetNameConfirmed() && noteGiven();
}

QString ActionDialog::previewHtml() const { return m_previewLabel->text(); }

QString ActionDialog::statusText() const { return m_status->text(); }

void ActionDialog::setPhase(Phase phase) {
    m_phase = phase;
    const bool editable =
        phase == Phase::Previewing || phase == Phase::Ready || phase == Phase::PreviewFailed || phase == Phase::Refused;
    for (QLineEdit* edit : {m_reason, m_confirmName, m_exclude, m_note}) {
        if (edit) edit->setReadOnly(!editable);
    }
    for (QWidget* input : std::initializer_list<QWidget*>{m_gpu, m_level, m_waitForDrain, m_afterRepair, m_atCheckpoint,
                                                          m_treatment, m_linkEnd}) {
        if (input) input->setEnabled(editable);
    }
    const bool sentOnce = phase == Phase::Sending || phase == Phase::Following || phase == Phase::OutcomeUnknown;
    // Once a request left, closing the dialog does not take it back; say so.
    m_cancel->setText(sentOnce ? QStringLiteral("Close") : QStringLiteral("Cancel"));
    m_cancel->setToolTip(sentOnce ? QStringLiteral("The operation goes on; follow it in the Operations dock.")
                                  : QString());
    m_confirm->setText(phase == Phase::OutcomeUnknown ? QStringLiteral("Retry (same request)")
                                                      : actionConfirmText(m_draft));
    m_confirm->setVisible(phase != Phase::Following);
    m_previewTitle->setText(sentOnce ? QStringLiteral("Blast radius (as previewed before sending)")
                                     : QStringLiteral("Blast radius (preview — nothing has changed yet)"));
    updateButtons();
}

void ActionDialog::updateButtons() {
    m_confirm->setEnabled(canConfirm());
    m_refresh->setEnabled(m_phase == Phase::Ready || m_phase == Phase::PreviewFailed || m_phase == Phase::Refused);
    QString why;
    if (!m_confirm->isEnabled()) {
        if (m_phase == Phase::Previewing)
            why = QStringLiteral("Waiting for the preview");
        else if (m_phase == Phase::Sending)
            why = QStringLiteral("Sent; waiting for fleetd's answer");
        else if (m_preview && !m_preview->allowed())
            why = QStringLiteral("fleetd would refuse this now");
        else if (m_reason->text().trimmed().isEmpty())
            why = QStringLiteral("A reason is required");
        else if (!targetNameConfirmed())
            why = QStringLiteral("Type the %1's name exactly to confirm").arg(targetNoun());
        else if (!noteGiven())
            why = QStringLiteral("A note is required");
    }
    m_confirm->setToolTip(why);
}

void ActionDialog::refreshPreview() {
    const quint64 generation = ++m_previewGeneration;
    setPhase(Phase::Previewing);
    m_previewLabel->setText(QStringLiteral("Asking fleetd for the blast radius…"));
    QPointer<ActionDialog> self(this);
    m_control.preview(request(), [self, generation](const client::ControlResult<v1::ActionPreview>& result) {
        if (!self || generation != self->m_previewGeneration || self->m_phase != Phase::Previewing) return;
        if (!result.ok) {
            self->m_preview.reset();
            self->m_previewLabel->setText(
                coloured(QStringLiteral("No preview: %1").arg(result.message.toHtmlEscaped()), self->m_colours.alarm));
            self->setPhase(Phase::PreviewFailed);
            return;
        }
        self->m_preview = result.value;
        self->showPreview();
        self->setPhase(result.value.allowed() ? Phase::Ready : Phase::PreviewFailed);
    });
}

void ActionDialog::showPreview() {
    const v1::ActionPreview& preview = *m_preview;
    QString html = previewTableHtml(preview, m_colours.caution);
    for (const std::string& warning : preview.warnings())
        html += QStringLiteral("<p>%1</p>")
                    .arg(coloured(QStringLiteral("⚠ ") + QString::fromStdString(warning).toHtmlEscaped(),
                                  m_colours.caution));
    if (!preview.allowed()) {
        const QString refusal = QString::fromStdString(preview.refusal());
        html += QStringLiteral("<p>%1</p>")
                    .arg(coloured(
                        QStringLiteral("<b>fleetd would refuse this now:</b> %1")
                            .arg((refusal.isEmpty() ? QStringLiteral("no reason given") : refusal).toHtmlEscaped()),
                        m_colours.alarm));
    }
    m_previewLabel->setText(html);
}

void ActionDialog::confirm() {
    if (!canConfirm()) return;
    // A retry after an unknown outcome re-sends exactly what was sent (same request id).
    v1::ActionRequest outgoing = m_sent ? *m_sent : request();
    if (outgoing.request_id().empty())
        outgoing.set_request_id(QUuid::createUuid().toString(QUuid::WithoutBraces).toStdString());
    m_sent = outgoing;
    setPhase(Phase::Sending);
    m_status->setText(QStringLiteral("Sending…"));
    QPointer<ActionDialog> self(this);
    m_control.execute(outgoing, [self](const client::ControlResult<v1::Operation>& result) {
        if (!self) return;
        if (result.ok) {
            self->m_sent.reset();
            self->m_operationId = QString::fromStdString(result.value.id());
            self->setPhase(Phase::Following);
            self->showOperation(result.value);
            emit self->operationAccepted(result.value);
            return;
        }
        self->showError(result.message);
        if (outcomeUnknown(result.code)) {
            self->setPhase(Phase::OutcomeUnknown);
            return;
        }
        // A definite refusal (state changed, not allowed, bad input): nothing happened. Look again
        // before anyone confirms a new request.
        self->m_sent.reset();
        self->setPhase(Phase::Refused);
        self->refreshPreview();
    });
}

void ActionDialog::showOperation(const v1::Operation& operation) {
    const v1::OperationState state = operation.state();
    QColor colour = palette().color(QPalette::WindowText);
    if (state == v1::OPERATION_STATE_FAILED || state == v1::OPERATION_STATE_CANCELLED)
        colour = m_colours.alarm;
    else if (state == v1::OPERATION_STATE_AWAITING_APPROVAL)
        colour = m_colours.caution;
    m_status->setText(coloured(QStringLiteral("Operation %1: %2")
                                   .arg(QString::fromStdString(operation.id()), operationSummary(operation))
                                   .toHtmlEscaped(),
                               colour));
    m_progress->setVisible(true);
    m_progress->setValue(int(std::lround(operation.progress_ratio() * 100.0)));
    if (isFinal(state)) m_progress->setValue(state == v1::OPERATION_STATE_SUCCEEDED ? 100 : m_progress->value());
}

void ActionDialog::showError(const QString& text) {
    m_status->setText(coloured(text.toHtmlEscaped(), m_colours.alarm));
}

}  // namespace watchfloor::ui

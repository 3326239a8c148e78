#pragma once
// The one dialog every operator action goes through (drain, resume, restart a job, isolate or
// restore a rack, acknowledge an event). It fetches the blast-radius preview as it opens, wants a
// reason (and what the action's row in client/ActionWords.h asks for: to isolate a rack, the
// rack's name typed exactly; to add a note to an incident, the note; for a break/fix step the GPU,
// whether to wait for the drain, where the tray goes afterwards and the diagnostic level), and only then enables the
// confirm button. Cancel is the default button, so Enter never confirms. It sends the preview's
// state version so a target that changed meanwhile is refused, follows the operation live, and
// never executes twice: the button is disabled while a request is in flight, and when the outcome
// of a request is unknown (the connection failed after the retries) the next attempt re-sends the
// same request id, so the server answers with the first result instead of acting again.

#include "ActionWording.h"

#include "watchfloor/v1/control.pb.h"

#include <QDialog>

#include <optional>

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;

namespace watchfloor::client {
class ControlClient;
}

namespace watchfloor::ui {

class ActionDialog : public QDialog {
    Q_OBJECT
public:
    // `draft` names the action and its target (and, for a job restart, the nodes to exclude as a
    // suggestion); the dialog adds the reason, note, confirmation and state version.
    ActionDialog(client::ControlClient& control, watchfloor::v1::ActionRequest draft, QWidget* parent = nullptr);
    // The theme's alarm and caution colours for what the dialog writes from now on.
    void setColours(const ActionColours& colours) { m_colours = colours; }

    enum class Phase {
        Previewing,      // waiting for the preview
        Ready,           // preview shown; confirm allowed once the inputs are valid
        PreviewFailed,   // the preview could not be fetched (or the action is refused)
        Sending,         // execute in flight (the client retries on its own with the same id)
        Following,       // the operation exists; its progress is shown until it ends
        Refused,         // the server refused the request; a new preview is on its way
        OutcomeUnknown,  // the connection failed after the retries; the next try re-sends the same id
    };

    Phase phase() const { return m_phase; }
    bool canConfirm() const;
    const std::optional<watchfloor::v1::ActionPreview>& preview() const { return m_preview; }
    // The request as it would be (or was last) sent.
    watchfloor::v1::ActionRequest request() const;
    QString operationId() const { return m_operationId; }
    QString statusText() const;
    // The blast radius and warnings as shown (rich text).
    QString previewHtml() const;

    QPushButton* confirmButton() const { return m_confirm; }
    QPushButton* cancelButton() const { return m_cancel; }
    QPushButton* refreshButton() const { return m_refresh; }
    QLineEdit* reasonEdit() const { return m_reason; }
    // Each null unless the action's row asks for it (client/ActionWords.h ActionInputs).
    QLineEdit* confirmNameEdit() const { return m_confirmName; }  // the target's name typed (isolate rack)
    QLineEdit* excludeEdit() const { return m_exclude; }          // nodes to avoid (restart job)
    QLineEdit* noteEdit() const { return m_note; }                // acknowledgements, incident steps
    QComboBox* lifecycleBox() const { return m_lifecycle; }       // the state to set (set lifecycle)
    // Break/fix (control.proto 50-54): the GPU (data: tray-local index, -1 = all), wait for the
    // drain (ASAP), where the tray goes afterwards (data: TrayAfterRepair), the diagnostic level.
    QComboBox* gpuBox() const { return m_gpu; }
    QCheckBox* waitForDrainBox() const { return m_waitForDrain; }
    QComboBox* afterRepairBox() const { return m_afterRepair; }
    QComboBox* diagnosticLevelBox() const { return m_level; }
    // The link ladder (control.proto 60-62): drain at the jobs' next checkpoint; the treatment
    // (data: LinkTreatment) and the end it was done at (data: LinkEnd).
    QCheckBox* atNextCheckpointBox() const { return m_atCheckpoint; }
    QComboBox* treatmentBox() const { return m_treatment; }
    QComboBox* linkEndBox() const { return m_linkEnd; }

public slots:
    void refreshPreview();
    void confirm();

signals:
    // The server accepted the request and created (or, for a retry, returned) this operation.
    void operationAccepted(const watchfloor::v1::Operation& operation);

private:
    ActionColours m_colours;
    void buildInputs(QFormLayout* form);
    void addExcludeInput(QFormLayout* form);
    void addTypedNameInput(QFormLayout* form, const QString& why);
    void addLifecycleInput(QFormLayout* form);
    void addRepairInputs(QFormLayout* form, const client::ActionInputs& inputs);
    void addLinkInputs(QFormLayout* form, const client::ActionInputs& inputs);
    // The break/fix inputs written into m_draft; the preview is asked again for what they change.
    void repairInputsChanged();
    void writeRepairInputs();
    void updateHeading();
    // The one-line note (bounded below fleetd's 2,048 bytes) of acknowledgements and incident steps.
    void addNoteInput(QFormLayout* form, const QString& placeholder);
    void setPhase(Phase phase);
    void showPreview();
    void showOperation(const watchfloor::v1::Operation& operation);
    void showError(const QString& text);
    void updateButtons();
    QString targetNoun() const;  // "rack"
    bool targetNameConfirmed() const;
    bool noteGiven() const;  // or not required

    client::ControlClient& m_control;
    watchfloor::v1::ActionRequest m_draft;
    Phase m_phase = Phase::Previewing;
    std::optional<watchfloor::v1::ActionPreview> m_preview;
    std::optional<watchfloor::v1::ActionRequest> m_sent;  // kept while its outcome is unknown
    QString m_operationId;
    quint64 m_previewGeneration = 0;  // answers to older previews are dropped

    QLabel* m_previewTitle;
    QLabel* m_previewLabel;
    QLabel* m_status;
    QProgressBar* m_progress;
    QLineEdit* m_reason;
    QLineEdit* m_confirmName = nullptr;
    QLineEdit* m_exclude = nullptr;
    QLineEdit* m_note = nullptr;
    QComboBox* m_lifecycle = nullptr;
    QComboBox* m_gpu = nullptr;
    QCheckBox* m_waitForDrain = nullptr;
    QComboBox* m_afterRepair = nullptr;
    QComboBox* m_level = nullptr;
    QCheckBox* m_atCheckpoint = nullptr;
    QComboBox* m_treatment = nullptr;
    QComboBox* m_linkEnd = nullptr;
    QLabel* m_heading = nullptr;
    bool m_noteRequired = false;  // the note is what the action records (add note to incident)
    QDialogButtonBox* m_buttons;
    QPushButton* m_confirm;
    QPushButton* m_cancel;
    QPushButton* m_refresh;
};

// "r01-n03, r01-n07" → {"r01-n03", "r01-n07"}: how the dialog edits the nodes a restart avoids.
QStringList splitNodeNames(const QString& text);

}  // namespace watchfloor::ui

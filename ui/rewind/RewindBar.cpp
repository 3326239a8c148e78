#include "RewindBar.h"

#include "FleetFormat.h"

#include <QDateTimeEdit>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSlider>
#include <QTimeZone>
#include <QVBoxLayout>

#include <algorithm>

namespace watchfloor::ui {

namespace {
constexpr std::int64_t kDefaultWindowMs = 3'600'000;  // before fleetd has said how far back it reaches
constexpr int kDebounceMs = 200;

QString agoText(std::int64_t ms) {
    const std::int64_t s = ms / 1000;
    if (s < 120) return QStringLiteral("%1 s ago").arg(s);
    if (s < 7200) return QStringLiteral("%1 min ago").arg(s / 60);
    return QStringLiteral("%1 h %2 min ago").arg(s / 3600).arg((s % 3600) / 60);
}
}  // namespace

RewindBar::RewindBar(QWidget* parent)
    : QFrame(parent),
      m_slider(new QSlider(Qt::Horizontal, this)),
      m_time(new QDateTimeEdit(this)),
      m_live(new QPushButton(QStringLiteral("● Live"), this)),
      m_status(new QLabel(this)),
      m_banner(new QLabel(this)) {
    setObjectName(QStringLiteral("rewindBar"));
    auto* column = new QVBoxLayout(this);
    column->setContentsMargins(0, 0, 0, 0);
    column->setSpacing(0);
    auto* row = new QHBoxLayout;
    row->setContentsMargins(12, 3, 12, 3);
    auto* title = new QLabel(QStringLiteral("Rewind"), this);
    row->addWidget(title);
    m_slider->setObjectName(QStringLiteral("rewindSlider"));
    m_slider->setToolTip(
        QStringLiteral("Drag to see the fleet as it was (rack map, racks, alerts); "
                       "the right end is live"));
    row->addWidget(m_slider, 1);
    m_time->setObjectName(QStringLiteral("rewindTime"));
    m_time->setTimeSpec(Qt::UTC);
    m_time->setDisplayFormat(QStringLiteral("yyyy-MM-dd HH:mm:ss 'UTC'"));
    // Shown while the field holds its minimum: before fleetd's window arrives there is no time to
    // show, and 1970-01-01 would read as a broken clock.
    m_time->setSpecialValueText(QStringLiteral("waiting for fleetd's time"));
    m_time->setToolTip(QStringLiteral("Fleet time to rewind to (UTC); Enter to go there"));
    row->addWidget(m_time);
    m_live->setObjectName(QStringLiteral("rewindLive"));
    m_live->setToolTip(QStringLiteral("Back to the live fleet (Esc)"));
    row->addWidget(m_live);
    m_status->setObjectName(QStringLiteral("rewindStatus"));
    row->addWidget(m_status);
    column->addLayout(row);

    m_banner->setObjectName(QStringLiteral("rewindBanner"));
    m_banner->setAlignment(Qt::AlignCenter);
    m_banner->setWordWrap(true);
    // A colour no live state uses (not the amber or red of a connection banner), large and bold.
    m_banner->setStyleSheet(
        QStringLiteral("#rewindBanner { background: #5b2a86; color: white; font-weight: 700; "
                       "font-size: 15pt; padding: 6px; }"));
    m_banner->setAccessibleName(QStringLiteral("Rewind banner"));
    m_banner->hide();
    column->addWidget(m_banner);

    m_debounce.setSingleShot(true);
    m_debounce.setInterval(kDebounceMs);
    connect(&m_debounce, &QTimer::timeout, this, [this] {
        if (sliderMs() >= m_liveMs)
            emit liveRequested();
        else
            emit moveRequested(sliderMs());
    });
    connect(m_slider, &QSlider::valueChanged, this, [this] {
        if (!m_placing) m_debounce.start();
    });
    connect(m_time, &QDateTimeEdit::dateTimeChanged, this, [this] {
        if (!m_placing) m_timeTyped = true;
    });
    connect(m_time, &QDateTimeEdit::editingFinished, this, [this] {
        if (!m_timeTyped) return;  // focus left the field without a new moment in it
        m_timeTyped = false;
        const std::int64_t ms = m_time->dateTime().toMSecsSinceEpoch();
        if (ms >= std::max(m_liveMs, m_liveClock ? m_liveClock() : 0))
            emit liveRequested();
        else
            emit moveRequested(ms);
    });
    connect(m_live, &QPushButton::clicked, this, &RewindBar::liveRequested);
    showLive();
}

QString RewindBar::statusText() const { return m_status->text(); }

std::int64_t RewindBar::sliderMs() const {
    const std::int64_t first = m_earliestMs > 0 ? m_earliestMs : m_liveMs - kDefaultWindowMs;
    return first + std::int64_t(m_slider->value()) * 1000;
}

void RewindBar::placeHandle(std::int64_t ms) {
    m_placing = true;
    const bool windowKnown = m_liveMs > 0;  // fleetd has said what its live time is
    m_slider->setEnabled(windowKnown);
    m_time->setEnabled(windowKnown);
    if (!windowKnown) {
        m_time->setDateTime(m_time->minimumDateTime());
        m_placing = false;
        return;
    }
    const std::int64_t first = m_earliestMs > 0 ? m_earliestMs : m_liveMs - kDefaultWindowMs;
    m_slider->setRange(0, int(std::max<std::int64_t>(0, (m_liveMs - first) / 1000)));
    m_slider->setValue(int(std::clamp<std::int64_t>((ms - first) / 1000, 0, m_slider->maximum())));
    if (!m_time->hasFocus()) m_time->setDateTime(QDateTime::fromMSecsSinceEpoch(ms, QTimeZone::utc()));
    m_placing = false;
}

void RewindBar::setWindow(std::int64_t earliestMs, std::int64_t liveMs) {
    if (m_slider->isSliderDown() || m_debounce.isActive()) return;  // never move the handle under the operator
    m_earliestMs = earliestMs;
    m_liveMs = liveMs;
    placeHandle(isPast() ? m_pastMs : liveMs);
    refreshBanner();
}

void RewindBar::setLiveClock(std::function<std::int64_t()> liveNowMs) { m_liveClock = std::move(liveNowMs); }

void RewindBar::showLive() {
    m_pastMs = 0;
    m_problems.clear();
    m_live->setEnabled(false);
    m_live->setText(QStringLiteral("● Live"));
    m_status->clear();
    m_banner->hide();
    placeHandle(m_liveMs);
}

void RewindBar::showFetching(std::int64_t asOfMs) {
    showStatus(QStringLiteral("fetching %1…").arg(formatUnixMs(asOfMs)));
}

void RewindBar::showStatus(const QString& text) { m_status->setText(text); }

void RewindBar::showPast(std::int64_t asOfMs, const QStringList& problems) {
    m_pastMs = asOfMs;
    m_problems = problems;
    m_live->setEnabled(true);
    m_live->setText(QStringLiteral("Back to live (Esc)"));
    m_status->setText(problems.join(QStringLiteral("; ")));
    if (!m_slider->isSliderDown() && !m_debounce.isActive()) placeHandle(asOfMs);
    refreshBanner();
    m_banner->show();
}

void RewindBar::refreshBanner() {
    if (!isPast()) return;
    m_banner->setText(QStringLiteral("AS OF %1 UTC  —  %2  —  PAST STATE, NOT LIVE  —  press Esc for live")
                          .arg(formatUnixMs(m_pastMs), agoText(std::max<std::int64_t>(0, m_liveMs - m_pastMs))));
}

QString RewindBar::bannerText() const { return m_banner->isVisible() || isPast() ? m_banner->text() : QString(); }

}  // namespace watchfloor::ui

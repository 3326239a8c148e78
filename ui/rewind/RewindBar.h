#pragma once
// The rewind bar above the pages: a slider over the window fleetd retains, a time field (UTC,
// fleet time) and a Live button. While the console shows the past, a second line across the whole
// window says so in words nobody can take for live: "AS OF 14:32:10 UTC — 12 min ago — PAST STATE,
// NOT LIVE — press Esc for live".

#include <QFrame>
#include <QTimer>

#include <cstdint>
#include <functional>

class QDateTimeEdit;
class QLabel;
class QPushButton;
class QSlider;

namespace watchfloor::ui {

class RewindBar : public QFrame {
    Q_OBJECT
public:
    explicit RewindBar(QWidget* parent = nullptr);

    // The slider's range: the earliest moment fleetd can rewind to (0 = not known yet: the last
    // hour) up to the live moment. While live, the handle follows the live end.
    void setWindow(std::int64_t earliestMs, std::int64_t liveMs);
    // The live moment now (the window above is refreshed once a second): a typed moment at or after
    // it means live. At a fast twin a second of wall time is minutes of fleet time, and a moment
    // from the last few of them was taken for the future.
    void setLiveClock(std::function<std::int64_t()> liveNowMs);
    void showLive();
    // The console shows `asOfMs`; `problems` (an endpoint that could not answer) are listed.
    void showPast(std::int64_t asOfMs, const QStringList& problems);
    void showFetching(std::int64_t asOfMs);
    void showStatus(const QString& text);  // e.g. why no endpoint could answer
    QString statusText() const;            // what showStatus last said
    bool isPast() const { return m_pastMs != 0; }

    QString bannerText() const;
    QLabel* banner() const { return m_banner; }
    QSlider* slider() const { return m_slider; }
    QDateTimeEdit* timeEdit() const { return m_time; }
    QPushButton* liveButton() const { return m_live; }

signals:
    void moveRequested(std::int64_t asOfMs);
    void liveRequested();

private:
    void placeHandle(std::int64_t ms);
    std::int64_t sliderMs() const;
    void refreshBanner();

    QSlider* m_slider;
    QDateTimeEdit* m_time;
    QPushButton* m_live;
    QLabel* m_status;
    QLabel* m_banner;
    QTimer m_debounce;         // a dragged slider asks fleetd once it rests, not for every pixel
    bool m_placing = false;    // the handle is being moved by code, not by the operator
    bool m_timeTyped = false;  // the operator changed the time field since it last went somewhere
    std::int64_t m_earliestMs = 0;
    std::int64_t m_liveMs = 0;
    std::function<std::int64_t()> m_liveClock;
    std::int64_t m_pastMs = 0;
    QStringList m_problems;
};

}  // namespace watchfloor::ui

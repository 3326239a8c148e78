#pragma once
// The command lines of the console benchmarks: every flag takes a value ("--name VALUE"). --help,
// a missing value, an unknown flag or a value that does not parse end the program through the
// bench's own usage function (which prints the problem and its usage, and exits 2).

#include <QSize>
#include <QString>
#include <QStringList>

#include <cstdlib>
#include <functional>
#include <map>

namespace watchfloor::bench {

class BenchFlags {
public:
    using Usage = void (*)(const QString& problem);  // must not return

    BenchFlags(Usage usage, QString about) : m_usage(usage), m_about(std::move(about)) {}

    BenchFlags& integer(const QString& name, int& target) {
        m_setters[name] = [&target](const QString& value) {
            bool ok = false;
            const int parsed = value.toInt(&ok);
            if (ok) target = parsed;
            return ok;
        };
        return *this;
    }
    BenchFlags& text(const QString& name, QString& target) {
        m_setters[name] = [&target](const QString& value) {
            target = value;
            return true;
        };
        return *this;
    }
    // WIDTHxHEIGHT, e.g. 1920x1080.
    BenchFlags& size(const QString& name, QSize& target) {
        m_setters[name] = [&target](const QString& value) {
            const QStringList wh = value.split(QLatin1Char('x'));
            bool okWidth = false, okHeight = false;
            if (wh.size() == 2) target = QSize(wh[0].toInt(&okWidth), wh[1].toInt(&okHeight));
            return okWidth && okHeight;
        };
        return *this;
    }

    void read(const QStringList& args) const {
        for (qsizetype i = 1; i < args.size(); ++i) {
            const QString flag = args[i];
            if (flag == QLatin1String("--help") || flag == QLatin1String("-h")) fail(m_about);
            const auto setter = m_setters.find(flag);
            if (setter == m_setters.end()) fail(QStringLiteral("unknown option ") + flag);
            if (i + 1 >= args.size()) fail(flag + QStringLiteral(": missing value"));
            const QString value = args[++i];
            if (!setter->second(value)) fail(QStringLiteral("%1: bad value \"%2\"").arg(flag, value));
        }
    }

private:
    [[noreturn]] void fail(const QString& problem) const {
        m_usage(problem);
        std::exit(2);
    }

    Usage m_usage;
    QString m_about;
    std::map<QString, std::function<bool(const QString&)>> m_setters;
};

}  // namespace watchfloor::bench

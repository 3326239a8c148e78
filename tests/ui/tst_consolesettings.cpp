#include "ConsoleSettings.h"

#include <QFile>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

using namespace watchfloor::ui;

class TestConsoleSettings : public QObject {
    Q_OBJECT
private slots:
    void roundTrips() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("w.conf"));
        ConsoleSettings written;
        written.endpoints = {QStringLiteral("127.0.0.1:50551"), QStringLiteral("fleetd-eu:443")};
        written.theme = ThemeChoice::Light;
        written.lens = QStringLiteral("coolant-flow");
        written.lastPage = PageId::Goodput;
        written.windowGeometry = QByteArray("\x01\x02geometry", 10);
        {
            QSettings store(path, QSettings::IniFormat);
            saveConsoleSettings(store, written);
        }
        QSettings store(path, QSettings::IniFormat);
        const LoadedSettings loaded = loadConsoleSettings(store);
        QVERIFY2(loaded.warnings.isEmpty(), qPrintable(loaded.warnings.join(u'\n')));
        QCOMPARE(loaded.settings, written);
    }

    void invalidValuesFallBackToDefaultsWithWarnings_data() {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<int>("warnings");
        QTest::newRow("bad theme") << QByteArray("[appearance]\ntheme=purple\n") << 1;
        QTest::newRow("bad lens and page") << QByteArray("[fleet]\nlens=x-ray\n[navigation]\nlastPage=nowhere\n") << 2;
        QTest::newRow("bad endpoint") << QByteArray("[connection]\nendpoints=localhost, :99, h:0\n") << 3;
    }
    void invalidValuesFallBackToDefaultsWithWarnings() {
        QFETCH(QByteArray, content);
        QFETCH(int, warnings);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("w.conf"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(content);
        file.close();
        QSettings store(path, QSettings::IniFormat);
        const LoadedSettings loaded = loadConsoleSettings(store);
        QCOMPARE(loaded.warnings.size(), warnings);
        QVERIFY(loaded.warnings.first().contains(path));
        QCOMPARE(loaded.settings, ConsoleSettings{});
    }

    void unparsableFileIsSetAsideAndDefaultsUsed() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("w.conf"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(QByteArray("\x00\x01\x02garbage\xff\xfe[[[\n==\n", 20));
        file.close();
        QSettings store(path, QSettings::IniFormat);
        const LoadedSettings loaded = loadConsoleSettings(store);
        QCOMPARE(loaded.warnings.size(), 1);
        QVERIFY(loaded.warnings.first().contains(QStringLiteral("could not be read")));
        QCOMPARE(loaded.settings, ConsoleSettings{});
        QVERIFY(QFile::exists(path + QStringLiteral(".corrupt")));
    }
};

QTEST_GUILESS_MAIN(TestConsoleSettings)
#include "tst_consolesettings.moc"

// The twin's exporter pages for a state the test sets sample by sample: golden dcgm-exporter and
// node_exporter lines, blanks both ways, the XID labels, escaping, the integrated counters, the
// HTTP answers (200/404/503 and the content type) and the scrape configuration files.

#include "DcgmExposition.h"
#include "ExporterPages.h"
#include "ExporterServer.h"
#include "ExpositionFormat.h"
#include "NodeExposition.h"
#include "RateIntegrator.h"
#include "ScrapeConfig.h"
#include "TrayFleetFixture.h"

#include <httplib.h>

#include <QtTest>

#include <array>
#include <cmath>
#include <limits>

using namespace watchfloor::server;
using namespace watchfloor::server::exporters;
using watchfloor::testing::TrayFleetFixture;
namespace v1 = watchfloor::v1;

namespace {

constexpr std::int64_t kT1 = TrayFleetFixture::kT1;
constexpr std::int64_t kT2 = kT1 + 1000;
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// Tray A powered and busy (GPU k at 60.4 + k degrees, Xid 79 on GPU 2, NIC port 2 down with two
// link-downed events, 12 symbol errors on port 1); tray B reports only at `withTrayBAt`.
void report(TrayFleetFixture& f, std::int64_t timeMs, bool breakerOpen = false, float gpu1Temp = 61.4f) {
    std::vector<TrayFleetFixture::Value> values{
        {TrayFleetFixture::kRack, v1::RACK_ELECTRICAL_ISOLATION_STATUS, breakerOpen ? 1.0f : 0.0f}};
    for (std::uint32_t k = 0; k < 4; ++k) {
        const std::uint32_t g = TrayFleetFixture::gpuA(k);
        values.push_back({g, v1::DCGM_FI_DEV_GPU_TEMP, k == 1 ? gpu1Temp : 60.4f + static_cast<float>(k)});
        values.push_back({g, v1::DCGM_FI_DEV_MEMORY_TEMP, 56.5f});
        values.push_back({g, v1::DCGM_FI_DEV_POWER_USAGE, k == 1 && std::isnan(gpu1Temp) ? kNaN : 1150.25f});
        values.push_back({g, v1::DCGM_FI_DEV_GPU_UTIL, 98.6f});
        values.push_back({g, v1::DCGM_FI_DEV_SM_CLOCK, 1965.0f});
        values.push_back({g, v1::DCGM_FI_PROF_PIPE_TENSOR_ACTIVE, 0.712f});
        values.push_back({g, v1::DCGM_FI_DEV_NVLINK_THROUGHPUT_TOTAL, 600.5f});
        const std::uint32_t n = TrayFleetFixture::nicA(k);
        values.push_back({n, v1::IB_PORT_XMIT_DATA_GBPS, k == 2 ? 0.0f : 300.0f});
        values.push_back({n, v1::IB_PORT_RCV_DATA_GBPS, k == 2 ? 0.0f : 294.0f});
    }
    values.push_back({TrayFleetFixture::gpuA(2), v1::DCGM_FI_DEV_XID_ERRORS, 79.0f});
    values.push_back({TrayFleetFixture::nicA(2), v1::IB_PHY_STATE, 3.0f});
    values.push_back({TrayFleetFixture::nicA(2), v1::IB_LINK_DOWNED_COUNTER, 2.0f});
    values.push_back({TrayFleetFixture::nicA(1), v1::IB_SYMBOL_ERROR_COUNTER, 12.0f});
    values.push_back({TrayFleetFixture::cpuA(0), v1::DCGM_FI_DEV_CPU_TEMP_CELSIUS, 45.125f});
    values.push_back({TrayFleetFixture::cpuA(1), v1::DCGM_FI_DEV_CPU_TEMP_CELSIUS, 46.5f});
    f.apply(timeMs, values);
}

void reportTrayB(TrayFleetFixture& f, std::int64_t timeMs) {
    std::vector<TrayFleetFixture::Value> values{{TrayFleetFixture::kRack, v1::RACK_ELECTRICAL_ISOLATION_STATUS, 0.0f}};
    for (std::uint32_t k = 0; k < 4; ++k)
        values.push_back({TrayFleetFixture::gpuB(k), v1::DCGM_FI_DEV_GPU_TEMP, 50.0f});
    f.apply(timeMs, values);
}

std::string labelsOf(int gpu, const std::string& hostname = "gb200-r01-n01") {
    static const char* kBusIds[] = {"00000008:01:00.0", "00000009:01:00.0", "00000018:01:00.0", "00000019:01:00.0"};
    return "{gpu=\"" + std::to_string(gpu) + "\",UUID=\"GPU-6b5c1e4d-1000-4000-8000-00000000000" + std::to_string(gpu) +
           "\",pci_bus_id=\"" + kBusIds[gpu] + "\",device=\"nvidia" + std::to_string(gpu) +
           "\",modelName=\"NVIDIA GB200\",Hostname=\"" + hostname + "\",DCGM_FI_DRIVER_VERSION=\"570.133.20\"";
}

QStringList linesOf(const std::string& page) { return QString::fromStdString(page).split('\n', Qt::SkipEmptyParts); }

// The families of a page in the order their TYPE lines come.
QStringList familiesOf(const std::string& page) {
    QStringList families;
    for (const QString& line : linesOf(page))
        if (line.startsWith("# TYPE ")) families << line.section(' ', 2, 2);
    return families;
}

bool hasLine(const std::string& page, const std::string& line) {
    return linesOf(page).contains(QString::fromStdString(line));
}

#define VERIFY_LINE(page, line)   \
    QVERIFY2(hasLine(page, line), \
             qPrintable(QString::fromStdString("missing line: " + std::string(line) + "\n--- page ---\n" + page)))

}  // namespace

class TestExportersExposition : public QObject {
    Q_OBJECT

private slots:
    void goFloatFormatsMatchClientGolang() {
        auto shortest = [](double v) {
            std::string s;
            appendGoShortest(s, v);
            return QString::fromStdString(s);
        };
        QCOMPARE(shortest(0), QString("0"));
        QCOMPARE(shortest(1), QString("1"));
        QCOMPARE(shortest(55), QString("55"));
        QCOMPARE(shortest(52.375), QString("52.375"));
        QCOMPARE(shortest(123456), QString("123456"));
        QCOMPARE(shortest(1e6), QString("1e+06"));
        QCOMPARE(shortest(1.8527668e7), QString("1.8527668e+07"));
        QCOMPARE(shortest(4294967295.0), QString("4.294967295e+09"));
        QCOMPARE(shortest(5e10), QString("5e+10"));
        QCOMPARE(shortest(0.0001), QString("0.0001"));
        QCOMPARE(shortest(0.00001), QString("1e-05"));
        QCOMPARE(shortest(std::nan("")), QString("NaN"));
        std::string fixed;
        appendGoFixed(fixed, 0.712f);
        QCOMPARE(QString::fromStdString(fixed), QString("0.712000"));
    }

    void dcgmFamiliesInFieldIdOrderWithExporterHelpAndType() {
        TrayFleetFixture f;
        report(f, kT1);
        ExporterPages pages(*f.store);
        const std::string page = pages.page(Exporter::Dcgm, "gb200-r01-n01").body;
        const QStringList families = familiesOf(page);
        const QStringList expected{"DCGM_FI_DEV_SM_CLOCK",
                                   "DCGM_FI_DEV_MEM_CLOCK",
                                   "DCGM_FI_DEV_MEMORY_TEMP",
                                   "DCGM_FI_DEV_GPU_TEMP",
                                   "DCGM_FI_DEV_POWER_USAGE",
                                   "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION",
                                   "DCGM_FI_DEV_PCIE_REPLAY_COUNTER",
                                   "DCGM_FI_DEV_GPU_UTIL",
                                   "DCGM_FI_DEV_MEM_COPY_UTIL",
                                   "DCGM_FI_DEV_ENC_UTIL",
                                   "DCGM_FI_DEV_DEC_UTIL",
                                   "DCGM_FI_DEV_XID_ERRORS",
                                   "DCGM_FI_DEV_FB_FREE",
                                   "DCGM_FI_DEV_FB_USED",
                                   "DCGM_FI_DEV_FB_RESERVED",
                                   "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS",
                                   "DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS",
                                   "DCGM_FI_DEV_ROW_REMAP_FAILURE",
                                   "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL",
                                   "DCGM_FI_DEV_VGPU_LICENSE_STATUS",
                                   "DCGM_FI_PROF_GR_ENGINE_ACTIVE",
                                   "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE",
                                   "DCGM_FI_PROF_DRAM_ACTIVE",
                                   "DCGM_FI_PROF_PCIE_TX_BYTES",
                                   "DCGM_FI_PROF_PCIE_RX_BYTES"};
        QCOMPARE(families, expected);
        // Exactly as dcgm-exporter's default-counters.csv words them.
        VERIFY_LINE(page, "# HELP DCGM_FI_DEV_GPU_TEMP GPU temperature (in C).");
        VERIFY_LINE(page, "# TYPE DCGM_FI_DEV_GPU_TEMP gauge");
        VERIFY_LINE(page, "# HELP DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION Total energy consumption since boot (in mJ).");
        VERIFY_LINE(page, "# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter");
        VERIFY_LINE(page, "# HELP DCGM_FI_DEV_VGPU_LICENSE_STATUS vGPU License status");
        VERIFY_LINE(page,
                    "# HELP DCGM_FI_PROF_PCIE_RX_BYTES The rate of data received over the PCIe bus - including "
                    "both protocol headers and data payloads - in bytes per second.");
        QVERIFY(page.rfind("# HELP DCGM_FI_DEV_SM_CLOCK SM clock frequency (in MHz).\n", 0) == 0);
        QVERIFY(page.back() == '\n');
        QVERIFY(page.find("\n\n") == std::string::npos);
        // 25 families x (HELP + TYPE + 4 GPUs).
        QCOMPARE(linesOf(page).size(), 25 * 6);
    }

    void nvlink5LinesAsASiteCsvAddsThem() {
        TrayFleetFixture f("gb200-r01-n01", 18);
        // GPU 0: link 3 saw 40 CRC flit errors, 10 replays and 2 recoveries; link 4 is down.
        const std::uint32_t l3 = TrayFleetFixture::linkOf(0, 3), l4 = TrayFleetFixture::linkOf(0, 4);
        auto withLinks = [&](std::int64_t timeMs) {
            report(f, timeMs);
            f.apply(timeMs, {{l3, v1::DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_PER_LINK_TOTAL, 40.0f},
                             {l3, v1::DCGM_FI_DEV_NVLINK_REPLAY_ERROR_PER_LINK_TOTAL, 10.0f},
                             {l3, v1::DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_PER_LINK_TOTAL, 2.0f},
                             {l3, v1::DCGM_FI_DEV_NVLINK_SYMBOL_BER_RATIO, 8.3e-10f},
                             {l4, v1::DCGM_FI_DEV_NVLINK_GET_STATE, 0.0f}});
        };
        withLinks(kT1);
        ExporterPages pages(*f.store);
        (void)pages.page(Exporter::Dcgm, "gb200-r01-n01");  // the codeword totals start at the first read
        withLinks(kT2);
        const std::string page = pages.page(Exporter::Dcgm, "gb200-r01-n01").body;
        // The documented CSV's spellings, in field-id order among the default families.
        const QStringList families = familiesOf(page);
        const QStringList nvlink{"DCGM_FI_DEV_NVLINK_PPCNT_RECOVERY_TOTAL_SUCCESSFUL_EVENTS",
                                 "DCGM_FI_DEV_NVLINK_PPCNT_PHYSICAL_LINK_DOWN_COUNTER",
                                 "DCGM_FI_DEV_NVLINK_PPCNT_PLR_RCV_CODES",
                                 "DCGM_FI_DEV_NVLINK_PPCNT_PLR_RCV_CODE_ERR",
                                 "DCGM_FI_DEV_NVLINK_PPCNT_PLR_RCV_UNCORRECTABLE_CODE",
                                 "DCGM_FI_PROF_GR_ENGINE_ACTIVE"};
        QCOMPARE(families.mid(families.indexOf("DCGM_FI_DEV_VGPU_LICENSE_STATUS") + 1, 6), nvlink);
        const QStringList perGpu{"DCGM_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_FAILED_EVENTS",
                                 "DCGM_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_EVENTS",
                                 "DCGM_FI_DEV_NVLINK_COUNT_RX_SYMBOL_ERRORS",
                                 "DCGM_FI_DEV_NVLINK_COUNT_SYMBOL_BER_FLOAT",
                                 "DCGM_FI_DEV_NVLINK_COUNT_EFFECTIVE_ERRORS",
                                 "DCGM_FI_DEV_NVLINK_GET_STATE"};
        QCOMPARE(families.mid(families.indexOf("DCGM_FI_PROF_PCIE_RX_BYTES") + 1), perGpu);
        VERIFY_LINE(page, "# TYPE DCGM_FI_DEV_NVLINK_COUNT_RX_SYMBOL_ERRORS counter");
        VERIFY_LINE(page, "# HELP DCGM_FI_DEV_NVLINK_COUNT_SYMBOL_BER_FLOAT NVLink5 symbol BER, all links.");
        // Per GPU, summed over its links, with the GPU series' labels.
        VERIFY_LINE(page, "DCGM_FI_DEV_NVLINK_COUNT_RX_SYMBOL_ERRORS" + labelsOf(0) + "} 40");
        VERIFY_LINE(page, "DCGM_FI_DEV_NVLINK_COUNT_RX_SYMBOL_ERRORS" + labelsOf(1) + "} 0");
        VERIFY_LINE(page, "DCGM_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_EVENTS" + labelsOf(0) + "} 2");
        // A double field: %f, as the exporter prints it (a BER of 8.3e-10 reads 0.000000).
        VERIFY_LINE(page, "DCGM_FI_DEV_NVLINK_COUNT_SYMBOL_BER_FLOAT" + labelsOf(0) + "} 0.000000");
        // Per link, with the link-entity labels.
        auto link = [](int gpu, int l) {
            return "{nvlink=\"" + std::to_string(l) + "\",gpu=\"" + std::to_string(gpu) +
                   "\",gpu_uuid=\"GPU-6b5c1e4d-1000-4000-8000-00000000000" + std::to_string(gpu) +
                   "\",pci_bus_id=\"00000008:01:00.0\",device=\"nvidia" + std::to_string(gpu) +
                   "\",model_name=\"NVIDIA GB200\",hostname=\"gb200-r01-n01\"}";
        };
        VERIFY_LINE(page, "DCGM_FI_DEV_NVLINK_PPCNT_PLR_RCV_CODE_ERR" + link(0, 3) + " 40");
        VERIFY_LINE(page, "DCGM_FI_DEV_NVLINK_PPCNT_PLR_RCV_UNCORRECTABLE_CODE" + link(0, 3) + " 10");
        VERIFY_LINE(page, "DCGM_FI_DEV_NVLINK_PPCNT_PHYSICAL_LINK_DOWN_COUNTER" + link(0, 3) + " 2");
        VERIFY_LINE(page, "DCGM_FI_DEV_NVLINK_GET_STATE" + link(0, 4) + " 0");
        VERIFY_LINE(page, "DCGM_FI_DEV_NVLINK_GET_STATE" + link(0, 5) + " 1");
        // 1 s up at 400 Gb/s in 5,440-bit codewords; a link down receives none.
        VERIFY_LINE(page, "DCGM_FI_DEV_NVLINK_PPCNT_PLR_RCV_CODES" + link(0, 5) + " 73529411");
        VERIFY_LINE(page, "DCGM_FI_DEV_NVLINK_PPCNT_PLR_RCV_CODES" + link(0, 4) + " 0");
        // 4 GPUs x 18 links per link family, 4 GPUs per GPU family, each with HELP and TYPE.
        QCOMPARE(linesOf(page).size(), 25 * 6 + 6 * (2 + 72) + 5 * (2 + 4));
    }

    void dcgmGoldenLines() {
        TrayFleetFixture f;
        report(f, kT1);
        ExporterPages pages(*f.store);
        std::string page = pages.page(Exporter::Dcgm, "gb200-r01-n01").body;
        VERIFY_LINE(page, "DCGM_FI_DEV_SM_CLOCK" + labelsOf(0) + "} 1965");
        VERIFY_LINE(page, "DCGM_FI_DEV_MEM_CLOCK" + labelsOf(0) + "} 3996");
        VERIFY_LINE(page, "DCGM_FI_DEV_MEMORY_TEMP" + labelsOf(3) + "} 57");
        VERIFY_LINE(page, "DCGM_FI_DEV_GPU_TEMP" + labelsOf(0) + "} 60");
        VERIFY_LINE(page, "DCGM_FI_DEV_GPU_TEMP" + labelsOf(3) + "} 63");
        VERIFY_LINE(page, "DCGM_FI_DEV_POWER_USAGE" + labelsOf(1) + "} 1150.250000");
        VERIFY_LINE(page, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION" + labelsOf(0) + "} 0");
        VERIFY_LINE(page, "DCGM_FI_DEV_PCIE_REPLAY_COUNTER" + labelsOf(0) + "} 0");
        VERIFY_LINE(page, "DCGM_FI_DEV_GPU_UTIL" + labelsOf(0) + "} 99");
        VERIFY_LINE(page, "DCGM_FI_DEV_MEM_COPY_UTIL" + labelsOf(0) + "} 44");
        VERIFY_LINE(page, "DCGM_FI_DEV_ENC_UTIL" + labelsOf(0) + "} 0");
        VERIFY_LINE(page, "DCGM_FI_DEV_DEC_UTIL" + labelsOf(0) + "} 0");
        VERIFY_LINE(page, "DCGM_FI_DEV_FB_FREE" + labelsOf(0) + "} 15106");
        VERIFY_LINE(page, "DCGM_FI_DEV_FB_USED" + labelsOf(0) + "} 173725");
        VERIFY_LINE(page, "DCGM_FI_DEV_FB_RESERVED" + labelsOf(0) + "} 640");
        VERIFY_LINE(page, "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS" + labelsOf(0) + "} 0");
        VERIFY_LINE(page, "DCGM_FI_DEV_ROW_REMAP_FAILURE" + labelsOf(0) + "} 0");
        VERIFY_LINE(page, "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL" + labelsOf(0) + "} 600500");
        VERIFY_LINE(page, "DCGM_FI_DEV_VGPU_LICENSE_STATUS" + labelsOf(0) + "} 0");
        VERIFY_LINE(page, "DCGM_FI_PROF_GR_ENGINE_ACTIVE" + labelsOf(0) + "} 0.986000");
        VERIFY_LINE(page, "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE" + labelsOf(0) + "} 0.712000");
        VERIFY_LINE(page, "DCGM_FI_PROF_DRAM_ACTIVE" + labelsOf(0) + "} 0.443700");
        VERIFY_LINE(page, "DCGM_FI_PROF_PCIE_TX_BYTES" + labelsOf(0) + "} 37500000000");
        VERIFY_LINE(page, "DCGM_FI_PROF_PCIE_RX_BYTES" + labelsOf(0) + "} 36750000000");
        VERIFY_LINE(page, "DCGM_FI_PROF_PCIE_TX_BYTES" + labelsOf(2) + "} 0");

        // Energy is board power integrated over simulated time: 1150.25 W for 1 s = 1,150,250 mJ.
        report(f, kT2);
        page = pages.page(Exporter::Dcgm, "gb200-r01-n01").body;
        VERIFY_LINE(page, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION" + labelsOf(0) + "} 1150250");
        report(f, kT2 + 500);
        page = pages.page(Exporter::Dcgm, "gb200-r01-n01").body;
        VERIFY_LINE(page, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION" + labelsOf(0) + "} 1725375");
    }

    void xidLabelsCarryCodeAndExporterText() {
        TrayFleetFixture f;
        report(f, kT1);
        ExporterPages pages(*f.store);
        const std::string page = pages.page(Exporter::Dcgm, "gb200-r01-n01").body;
        VERIFY_LINE(page, "# HELP DCGM_FI_DEV_XID_ERRORS Value of the last XID error encountered.");
        VERIFY_LINE(page, "# TYPE DCGM_FI_DEV_XID_ERRORS gauge");
        VERIFY_LINE(page, "DCGM_FI_DEV_XID_ERRORS" + labelsOf(2) +
                              ",err_code=\"79\",err_msg=\"GPU has fallen off the bus\"} 79");
        // Never sent: no Xid yet, which the exporter shows as code 0.
        VERIFY_LINE(page, "DCGM_FI_DEV_XID_ERRORS" + labelsOf(0) + ",err_code=\"0\",err_msg=\"No Error\"} 0");
        QCOMPARE(xidErrorText(48), std::string_view("Double Bit ECC Error"));
        QCOMPARE(xidErrorText(145), std::string_view("NVLINK: RLW Error"));
        QCOMPARE(xidErrorText(999), std::string_view("Unknown Error"));
    }

    void blankValuesAreDroppedLikeDcgmExporter() {
        TrayFleetFixture f;
        report(f, kT1, false, kNaN);  // GPU 1 fell off the bus: its readings are blank
        ExporterPages pages(*f.store);
        const std::string page = pages.page(Exporter::Dcgm, "gb200-r01-n01").body;
        QVERIFY(page.find("DCGM_FI_DEV_GPU_TEMP" + labelsOf(1)) == std::string::npos);
        QVERIFY(page.find("DCGM_FI_DEV_POWER_USAGE" + labelsOf(1)) == std::string::npos);
        QVERIFY(page.find("DCGM_FI_DEV_FB_USED" + labelsOf(1)) == std::string::npos);  // derived: blank too
        QVERIFY(page.find("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION" + labelsOf(1)) == std::string::npos);
        VERIFY_LINE(page, "DCGM_FI_DEV_GPU_TEMP" + labelsOf(0) + "} 60");
        // A family without any value has no HELP/TYPE either: no NIC rates reported on tray A here.
        TrayFleetFixture g;
        g.apply(kT1, {{TrayFleetFixture::kRack, v1::RACK_ELECTRICAL_ISOLATION_STATUS, 0.0f},
                      {TrayFleetFixture::gpuA(0), v1::DCGM_FI_DEV_GPU_TEMP, 40.0f}});
        ExporterPages sparse(*g.store);
        const std::string sparsePage = sparse.page(Exporter::Dcgm, "gb200-r01-n01").body;
        QVERIFY(sparsePage.find("DCGM_FI_PROF_PCIE_TX_BYTES") == std::string::npos);
        QVERIFY(sparsePage.find("DCGM_FI_DEV_POWER_USAGE") == std::string::npos);
        VERIFY_LINE(sparsePage, "DCGM_FI_DEV_GPU_TEMP" + labelsOf(0) + "} 40");
    }

    void blankSentinelWhenAsked() {
        TrayFleetFixture f;
        report(f, kT1, false, kNaN);
        DcgmPageOptions options;
        options.blanks = BlankValues::Sentinel;
        ExporterPages pages(*f.store, options);
        const std::string page = pages.page(Exporter::Dcgm, "gb200-r01-n01").body;
        // DCGM_INT64_BLANK for int64 fields, DCGM_FP64_BLANK for doubles, as DCGM hands them over.
        VERIFY_LINE(page, "DCGM_FI_DEV_GPU_TEMP" + labelsOf(1) + "} 9223372036854775792");
        VERIFY_LINE(page, "DCGM_FI_DEV_POWER_USAGE" + labelsOf(1) + "} 140737488355328.000000");
        VERIFY_LINE(page, "DCGM_FI_DEV_FB_USED" + labelsOf(1) + "} 9223372036854775792");
        VERIFY_LINE(page, "DCGM_FI_DEV_GPU_TEMP" + labelsOf(0) + "} 60");
        QVERIFY(telemetry::isDcgmBlank(9223372036854775792.0));
        QVERIFY(telemetry::isDcgmBlank(140737488355328.0));
        QCOMPARE(linesOf(page).size(), 25 * 6);
    }

    void labelValuesAreEscaped() {
        TrayFleetFixture f("we\"ird\\host");
        report(f, kT1);
        ExporterPages pages(*f.store);
        const std::string page = pages.page(Exporter::Dcgm, "we\"ird\\host").body;
        VERIFY_LINE(page, "DCGM_FI_DEV_GPU_TEMP" + labelsOf(0, "we\\\"ird\\\\host") + "} 60");
        std::string escaped;
        appendLabelValue(escaped, "a\nb");
        QCOMPARE(QString::fromStdString(escaped), QString("a\\nb"));
    }

    void nodePageGolden() {
        TrayFleetFixture f;
        f.topology.mutable_nic_ports(3)->set_host_device("ibp3s0");
        f.topology.mutable_nic_ports(3)->set_host_port(1);
        report(f, kT1);
        ExporterPages pages(*f.store);
        pages.page(Exporter::Node, "gb200-r01-n01");  // starts the octet counters at 0
        report(f, kT2);
        const std::string page = pages.page(Exporter::Node, "gb200-r01-n01").body;

        auto family = [](const std::string& name, const std::string& help, const char* type,
                         const std::array<const char*, 4>& byPort) {
            // Series sort by device: ibp3s0 (port 3) first, then mlx5_0..mlx5_2.
            std::string text = "# HELP " + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
            text += name + "{device=\"ibp3s0\",port=\"1\"} " + byPort[3] + "\n";
            for (int k = 0; k < 3; ++k)
                text += name + "{device=\"mlx5_" + std::to_string(k) + "\",port=\"1\"} " + byPort[k] + "\n";
            return text;
        };
        const std::string expected =
            "# HELP node_hwmon_temp_celsius Hardware monitor for temperature (input)\n"
            "# TYPE node_hwmon_temp_celsius gauge\n"
            "node_hwmon_temp_celsius{chip=\"thermal_thermal_zone0\",sensor=\"temp1\"} 45.125\n"
            "node_hwmon_temp_celsius{chip=\"thermal_thermal_zone1\",sensor=\"temp1\"} 46.5\n" +
            family("node_infiniband_link_downed_total",
                   "Number of times the link failed to recover from an error state and went down", "counter",
                   {"0", "0", "2", "0"}) +
            family("node_infiniband_link_error_recovery_total",
                   "Number of times the link successfully recovered from an error state", "counter",
                   {"0", "0", "0", "0"}) +
            family("node_infiniband_physical_state_id",
                   "Physical state of the InfiniBand port (0: no change, 1: sleep, 2: polling, 3: disable, 4: shift, "
                   "5: link up, 6: link error recover, 7: phytest)",
                   "gauge", {"5", "5", "3", "5"}) +
            family("node_infiniband_port_data_received_bytes_total", "Number of data octets received on all links",
                   "counter", {"3.675e+10", "3.675e+10", "0", "3.675e+10"}) +
            family("node_infiniband_port_data_transmitted_bytes_total",
                   "Number of data octets transmitted on all links", "counter",
                   {"3.75e+10", "3.75e+10", "0", "3.75e+10"}) +
            family("node_infiniband_port_discards_transmitted_total",
                   "Number of outbound packets discarded by the port because the port is down or congested", "counter",
                   {"0", "0", "0", "0"}) +
            family("node_infiniband_port_errors_received_total",
                   "Number of packets containing an error that were received on this port", "counter",
                   {"0", "0", "0", "0"}) +
            family("node_infiniband_port_transmit_wait_total",
                   "Number of ticks during which the port had data to transmit but no data was sent during the entire "
                   "tick",
                   "counter", {"0", "0", "0", "0"}) +
            family("node_infiniband_rate_bytes_per_second", "Maximum signal transfer rate", "gauge",
                   {"5e+10", "5e+10", "5e+10", "5e+10"}) +
            family("node_infiniband_state_id",
                   "State of the InfiniBand port (0: no change, 1: down, 2: init, 3: armed, 4: active, 5: act defer)",
                   "gauge", {"4", "4", "1", "4"}) +
            family("node_infiniband_symbol_error_total",
                   "Number of minor link errors detected on one or more physical lanes.", "counter",
                   {"0", "12", "0", "0"});
        QCOMPARE(QString::fromStdString(page), QString::fromStdString(expected));
    }

    void rateIntegratorHoldsEachRateUntilTheNextRead() {
        RateIntegrator integrator;
        QCOMPARE(integrator.advance(7, 1000, 2.0), 0.0);
        QCOMPARE(integrator.advance(7, 1500, 4.0), 1000.0);  // 2/ms for 500 ms
        QCOMPARE(integrator.advance(7, 1500, 8.0), 1000.0);  // no time passed
        QCOMPARE(integrator.advance(7, 1400, 1.0), 1000.0);  // time never runs back; the newest rate counts
        QCOMPARE(integrator.advance(7, 2400, 0.0), 1900.0);  // 1/ms for the 900 ms since 1500
        QCOMPARE(integrator.advance(8, 2400, 5.0), 0.0);     // keys are independent
    }

    void httpAnswers() {
        TrayFleetFixture f;
        reportTrayB(f, kT1);
        report(f, kT2);  // tray B stopped reporting while the rack still does: powered off
        std::string error;
        auto server = ExporterServer::start(*f.store, {}, &error);
        QVERIFY2(server, error.c_str());
        QVERIFY(server->port() > 0);
        httplib::Client client(server->host(), server->port());
        client.set_connection_timeout(5, 0);
        client.set_read_timeout(5, 0);

        auto dcgm = client.Get("/dcgm/gb200-r01-n01/metrics");
        QVERIFY(dcgm);
        QCOMPARE(dcgm->status, 200);
        QCOMPARE(QString::fromStdString(dcgm->get_header_value("Content-Type")),
                 QString("text/plain; version=0.0.4; charset=utf-8"));
        QVERIFY(dcgm->body.find("DCGM_FI_DEV_GPU_TEMP" + labelsOf(0) + "} 60\n") != std::string::npos);
        auto node = client.Get("/node/gb200-r01-n01/metrics");
        QVERIFY(node);
        QCOMPARE(node->status, 200);
        QVERIFY(node->body.rfind("# HELP node_hwmon_temp_celsius", 0) == 0);

        // Tray B has no host name in the inventory: its node name stands in.
        for (const char* path : {"/dcgm/r01-n02/metrics", "/node/r01-n02/metrics"}) {
            auto down = client.Get(path);
            QVERIFY(down);
            QCOMPARE(down->status, 503);
        }
        for (const char* path : {"/dcgm/r09-n01/metrics", "/node/nobody/metrics", "/metrics", "/dcgm/gb200-r01-n01"}) {
            auto unknown = client.Get(path);
            QVERIFY(unknown);
            QCOMPARE(unknown->status, 404);
        }
        // The rack's breaker opens: every tray of it goes dark, even with stale GPU values around.
        report(f, kT2 + 1000, true);
        auto isolated = client.Get("/dcgm/gb200-r01-n01/metrics");
        QVERIFY(isolated);
        QCOMPARE(isolated->status, 503);
        server->stop();
        server->stop();
    }

    void scrapeConfigFiles() {
        ScrapeConfigOptions options;
        options.exporterAddress = "127.0.0.1:43210";
        options.hostnames = {"gb200-r01-n01", "r01-n02"};
        options.scrapeInterval = std::chrono::seconds(1);
        QCOMPARE(QString::fromStdString(prometheusDuration(std::chrono::seconds(15))), QString("15s"));
        QCOMPARE(QString::fromStdString(prometheusDuration(std::chrono::milliseconds(1500))), QString("1500ms"));
        QCOMPARE(QString::fromStdString(renderTargets(options, "/dcgm/", 9400)),
                 QString("[\n"
                         "  {\"targets\":[\"127.0.0.1:43210\"],\"labels\":{\"__metrics_path__\":\"/dcgm/gb200-r01-n01/"
                         "metrics\",\"instance\":\"gb200-r01-n01:9400\"}},\n"
                         "  {\"targets\":[\"127.0.0.1:43210\"],\"labels\":{\"__metrics_path__\":\"/dcgm/r01-n02/"
                         "metrics\",\"instance\":\"r01-n02:9400\"}}\n"
                         "]\n"));
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        std::string error;
        QVERIFY2(writeScrapeConfig(dir.path().toStdString() + "/scrape", options, &error), error.c_str());
        QFile yml(dir.path() + "/scrape/prometheus.yml");
        QVERIFY(yml.open(QIODevice::ReadOnly));
        const QString config = QString::fromUtf8(yml.readAll());
        QVERIFY(config.contains("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"));
        QVERIFY(config.contains("  - job_name: dcgm\n    file_sd_configs:\n      - files:\n          - '" + dir.path() +
                                "/scrape/dcgm-targets.json'\n"));
        QVERIFY(config.contains("  - job_name: node\n"));
        QVERIFY(QFile::exists(dir.path() + "/scrape/node-targets.json"));
        QVERIFY(!QFile::exists(dir.path() + "/scrape/node-targets.json.tmp"));
        options.scrapeInterval = std::chrono::seconds(15);
        QVERIFY(QString::fromStdString(renderPrometheusConfig("/x", options)).contains("scrape_timeout: 10s"));
    }
};

QTEST_GUILESS_MAIN(TestExportersExposition)
#include "tst_exporters_exposition.moc"

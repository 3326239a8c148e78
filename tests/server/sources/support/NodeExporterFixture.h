#pragma once
// A real prometheus-node-exporter (Debian's, 1.5.0 or later) reading a fake sysfs tree, so tests of
// the Prometheus source see the families, labels and unit conversions a site's exporter produces
// rather than our idea of them. Only the infiniband, hwmon and time collectors run (time is on by
// default at every site: node_time_seconds, the host's clock, moves on every scrape).
//
// The tree mirrors what the kernel writes and what node_exporter's procfs reads:
//   class/infiniband/<device>/{fw_ver,board_id,hca_type,node_guid}
//   class/infiniband/<device>/ports/<port>/{state,phys_state,rate,link_layer}
//   class/infiniband/<device>/ports/<port>/counters/{link_downed,symbol_error,link_error_recovery,
//       port_rcv_errors,port_xmit_discards,port_xmit_wait,port_xmit_data,port_rcv_data}
//   class/hwmon/<chip>/{name,temp<index>_input}
//
// The binary is $NODE_EXPORTER_BIN, else prometheus-node-exporter from PATH.

#include <QByteArray>
#include <QProcess>
#include <QString>
#include <QTemporaryDir>

#include <cstdint>
#include <string>
#include <vector>

namespace watchfloor::testing {

struct IbPortCounters {
    std::string device = "mlx5_0";  // /sys/class/infiniband/<device>
    unsigned port = 1;
    std::uint64_t linkDowned = 0, symbolErrors = 0, linkErrorRecovery = 0, rcvErrors = 0, xmitDiscards = 0,
                  xmitWait = 0;
    // Octets. The kernel's port_xmit_data/port_rcv_data count 4-octet words and node_exporter
    // multiplies by 4, so it reports these rounded down to a multiple of 4.
    std::uint64_t xmitDataOctets = 0, rcvDataOctets = 0;
    bool active = true;  // state "4: ACTIVE" / "1: DOWN", phys_state "5: LinkUp" / "3: Disabled"
    // rate "400 Gb/sec (4X NDR)". node_exporter parses the number as a float32 and reports
    // bytes/s = Gb/s * 125000000, so use rates a float32 holds exactly (400, 200, 2.5...).
    double rateGbps = 400;
};

// node_exporter labels the sensor chip="<name, lower-cased, [^a-z0-9:_] as _>" (the tree has no
// device link, which on a real host would make it e.g. "platform_coretemp_0") and sensor="temp<index>".
// Sensors sharing a chip directory must share its name; two chip directories with the same name
// give duplicate series, which node_exporter drops with an error.
struct HwmonSensor {
    std::string chip = "hwmon0";  // /sys/class/hwmon/<chip>
    std::string name = "coretemp";
    unsigned index = 1;
    double celsius = 50;  // written in millidegrees, as the kernel does
};

class NodeExporterFixture {
public:
    // Writes the fake sysfs tree under a temporary folder and starts node_exporter on a free
    // 127.0.0.1 port with only the infiniband and hwmon collectors enabled. ok() false + error() when
    // it could not start or did not answer /metrics within a bounded time.
    NodeExporterFixture(std::vector<IbPortCounters> ports, std::vector<HwmonSensor> sensors);
    ~NodeExporterFixture();  // stops it (SIGTERM, then SIGKILL), removes the tree
    NodeExporterFixture(const NodeExporterFixture&) = delete;
    NodeExporterFixture& operator=(const NodeExporterFixture&) = delete;

    bool ok() const { return error_.isEmpty(); }
    QString error() const { return error_; }
    int port() const { return port_; }
    qint64 pid() const { return process_.processId(); }  // 0 when not running
    QString target() const;                              // "127.0.0.1:PORT", as a scrape configuration names it

    // Rewrites the tree (the exporter reads sysfs on every scrape); ports and sensors may come and
    // go. A scrape running meanwhile reads the old tree or the new one, never a half-written file.
    // A write failure makes ok() false.
    void update(const std::vector<IbPortCounters>& ports, const std::vector<HwmonSensor>& sensors);
    QByteArray scrape() const;  // GET /metrics body (for tests' own checks), empty on failure

    QByteArray log() const;  // node_exporter's output so far, for failure messages

private:
    bool writeTree(const std::vector<IbPortCounters>& ports, const std::vector<HwmonSensor>& sensors);
    bool start();
    void stop();

    QTemporaryDir dir_;
    QProcess process_;
    int generation_ = 0;
    int port_ = 0;
    QString error_;
};

}  // namespace watchfloor::testing

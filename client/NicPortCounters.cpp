#include "NicPortCounters.h"

#include "EndpointConnection.h"

#include <memory>
#include <set>

namespace watchfloor::client {

namespace v1 = watchfloor::v1;

const std::vector<v1::Metric>& nicErrorCounters() {
    static const std::vector<v1::Metric> counters{v1::IB_LINK_DOWNED_COUNTER, v1::IB_LINK_ERROR_RECOVERY_COUNTER,
                                                  v1::IB_SYMBOL_ERROR_COUNTER, v1::IB_PORT_RCV_ERRORS};
    return counters;
}

void fetchNicPortCounters(EndpointConnection& connection, const std::vector<std::uint32_t>& portIndexes,
                          QObject* context, std::function<void(NicPortCounters)> done) {
    struct Gathering {
        NicPortCounters result;
        std::set<std::uint32_t> reporting;
        std::size_t waiting = 0;
        std::function<void(NicPortCounters)> done;
    };
    auto gathering = std::make_shared<Gathering>();
    gathering->result.ports = int(portIndexes.size());
    gathering->waiting = portIndexes.size() * nicErrorCounters().size();
    gathering->done = std::move(done);
    if (gathering->waiting == 0) {
        gathering->done(gathering->result);
        return;
    }
    for (const std::uint32_t port : portIndexes)
        for (const v1::Metric counter : nicErrorCounters()) {
            v1::GetHistoryRequest request;
            request.set_entity_index(port);
            request.set_metric(counter);
            // Any valid range: the newest sample of a live-only series is not filtered by it.
            request.set_start_unix_ms(0);
            request.set_end_unix_ms(1);
            request.set_latest_if_live_only(true);
            connection.getHistory(request, context,
                                  [gathering, port, counter](RpcOutcome<v1::GetHistoryResponse> outcome) {
                                      if (outcome.ok() && outcome.value().points_size() > 0) {
                                          gathering->result.totals[counter] += outcome.value().points(0).last();
                                          gathering->reporting.insert(port);
                                      } else if (!outcome.ok() && outcome.code() != grpc::StatusCode::NOT_FOUND &&
                                                 gathering->result.error.isEmpty()) {
                                          gathering->result.error = outcome.error();
                                      }
                                      if (--gathering->waiting > 0) return;
                                      gathering->result.portsReporting = int(gathering->reporting.size());
                                      gathering->done(gathering->result);
                                  });
        }
}

}  // namespace watchfloor::client

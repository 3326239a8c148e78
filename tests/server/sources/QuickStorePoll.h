#pragma once
// The PrometheusSource options the real-store tests poll with: one store at `url`, polled every
// second (the loopback store scrapes every second too), the first poll at once.

#include "PrometheusSource.h"

#include <chrono>
#include <string>

namespace watchfloor::testing {

inline server::sources::PrometheusSourceOptions quickStorePoll(const std::string& url) {
    server::sources::PrometheusSourceOptions options;
    server::prom::StoreOptions connection;
    connection.url = url;
    connection.timeout = std::chrono::seconds(5);
    options.stores = {connection};
    options.poll = std::chrono::seconds(1);
    options.storeScrapeInterval = std::chrono::seconds(1);
    options.firstPollWait = std::chrono::milliseconds(0);
    return options;
}

}  // namespace watchfloor::testing

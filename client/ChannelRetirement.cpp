#include "ChannelRetirement.h"

#include <grpcpp/channel.h>

#include <algorithm>
#include <mutex>
#include <vector>

namespace watchfloor::client {
namespace {

std::mutex& retiredMutex() {
    static std::mutex mutex;
    return mutex;
}

// Deliberately never destroyed: channels still held by a call when the process exits are left to
// the operating system rather than released during static destruction.
std::vector<std::shared_ptr<grpc::Channel>>& retiredChannels() {
    static auto* channels = new std::vector<std::shared_ptr<grpc::Channel>>();
    return *channels;
}

}  // namespace

void retireChannel(std::shared_ptr<grpc::Channel> channel) {
    if (channel) {
        std::lock_guard lock(retiredMutex());
        retiredChannels().push_back(std::move(channel));
    }
    releaseIdleRetiredChannels();
}

void releaseIdleRetiredChannels() {
    std::lock_guard lock(retiredMutex());
    auto& channels = retiredChannels();
    // Only calls hold other references, and they only ever drop them: a count of 1 stays 1.
    channels.erase(std::remove_if(channels.begin(), channels.end(),
                                  [](const std::shared_ptr<grpc::Channel>& c) { return c.use_count() == 1; }),
                   channels.end());
}

}  // namespace watchfloor::client

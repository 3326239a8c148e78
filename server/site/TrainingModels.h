#pragma once
// The model shapes a fleet file's jobs name (the twin trains them; MFU needs them): Llama-3-like
// 405B, 70B and 8B dense transformers.

#include "watchfloor/v1/fleet.pb.h"

#include <optional>
#include <string>

namespace watchfloor::server {

struct TrainingModel {
    watchfloor::v1::ModelConfig config;  // tokens_per_step is set per job from its GPU count
    double tokensPerGpuPerStep;          // global batch grows with data parallelism
};

// GB200 dense BF16 peak per GPU: ~180 PF per NVL72 rack / 72 (docs/domain/goodput.md, to verify).
inline constexpr double kGb200DenseBf16PeakFlops = 2.5e15;

std::optional<TrainingModel> trainingModel(const std::string& key);
std::string trainingModelKeys();  // "405b|70b|8b", for error messages

}  // namespace watchfloor::server

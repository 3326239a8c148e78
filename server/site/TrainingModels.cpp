#include "TrainingModels.h"

namespace watchfloor::server {
namespace {

TrainingModel make(const char* name, double parameters, unsigned layers, unsigned heads, unsigned headDim,
                   unsigned sequence, double tokensPerGpu) {
    TrainingModel model;
    model.config.set_name(name);
    model.config.set_parameters(parameters);
    model.config.set_layers(layers);
    model.config.set_heads(heads);
    model.config.set_head_dim(headDim);
    model.config.set_sequence_length(sequence);
    model.config.set_gpu_peak_flops(kGb200DenseBf16PeakFlops);
    model.tokensPerGpuPerStep = tokensPerGpu;
    return model;
}

}  // namespace

std::optional<TrainingModel> trainingModel(const std::string& key) {
    // Shapes of the Llama 3 family (d_model = heads x head_dim); 8k context as in Llama 3 pretraining.
    if (key == "405b") return make("llm-405b", 405e9, 126, 128, 128, 8192, 2048);
    if (key == "70b") return make("llm-70b", 70e9, 80, 64, 128, 8192, 8192);
    if (key == "8b") return make("llm-8b", 8e9, 32, 32, 128, 8192, 32768);
    return std::nullopt;
}

std::string trainingModelKeys() { return "405b|70b|8b"; }

}  // namespace watchfloor::server

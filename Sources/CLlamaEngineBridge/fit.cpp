// Fitting a model to memory (see llmkit_fit.h).
#include "llmkit_fit.h"
#include "llmkit_bridge_support.hpp"

#include "fit.h"
#include "llama.h"
#include "ggml-backend.h"

#include <algorithm>
#include <memory>
#include <cstdio>
#include <mutex>
#include <stdexcept>
#include <vector>

namespace {

// common_fit_params swaps the process's llama.cpp log callback while it runs: one at a time.
std::mutex fit_mutex;

void copy_name(char * destination, std::size_t size, const char * source) {
    std::snprintf(destination, size, "%s", source ? source : "");
}

}  // namespace

struct llmkit_fit {
    std::vector<float> tensor_split;
    std::vector<llama_model_tensor_buft_override> overrides;
};

extern "C" bool llmkit_project_memory(const char * path, const void * model_parameters, const void * context_parameters,
                                      llmkit_memory_projection * projection, llmkit_error * error) {
    return llmkit::guarded<bool>(error, false, [&] {
        const auto * model = static_cast<const llama_model_params *>(model_parameters);
        const auto * context = static_cast<const llama_context_params *>(context_parameters);
        if (!path || !model || !context || !projection) {
            throw std::invalid_argument("a memory projection needs a path, parameters and a result");
        }
        std::lock_guard<std::mutex> lock(fit_mutex);
        std::vector<ggml_backend_dev_t> devices;
        uint32_t layers = 0, training = 0, experts = 0;
        const auto uses = common_get_device_memory_data(path, model, context, devices, layers, training, experts,
                                                        GGML_LOG_LEVEL_ERROR);
        if (uses.empty()) {
            throw std::runtime_error("llama.cpp could not project the model's memory (it did not load)");
        }
        *projection = {};
        projection->device_count = int32_t(std::min<std::size_t>(uses.size(), LLMKIT_FIT_MAX_DEVICES));
        for (int32_t i = 0; i < projection->device_count; ++i) {
            auto & out = projection->devices[i];
            const auto & use = uses[std::size_t(i)];
            const bool host = std::size_t(i) == uses.size() - 1;
            ggml_backend_dev_t device = host ? ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU)
                                             : (std::size_t(i) < devices.size() ? devices[std::size_t(i)] : nullptr);
            copy_name(out.name, sizeof out.name, host ? "Host" : (device ? ggml_backend_dev_name(device) : "?"));
            copy_name(out.description, sizeof out.description, device ? ggml_backend_dev_description(device) : "");
            out.free = use.free;
            out.total = use.total;
            out.weights = int64_t(use.model);
            out.cache = int64_t(use.context);
            out.compute = int64_t(use.compute);
        }
        projection->layer_count = layers;
        projection->training_context = training;
        return true;
    });
}

extern "C" llmkit_fit * llmkit_fit_params(const char * path, void * model_parameters, void * context_parameters,
                                          const int64_t * margins, int32_t margin_count, uint32_t minimum_context,
                                          int32_t * status, llmkit_error * error) {
    return llmkit::guarded<llmkit_fit *>(error, nullptr, [&]() -> llmkit_fit * {
        auto * model = static_cast<llama_model_params *>(model_parameters);
        auto * context = static_cast<llama_context_params *>(context_parameters);
        if (!path || !model || !context || !status) {
            throw std::invalid_argument("a fit needs a path, parameters and a status");
        }
        auto fit = std::make_unique<llmkit_fit>();
        fit->tensor_split.assign(llama_max_devices(), 0.0f);
        fit->overrides.assign(llama_max_tensor_buft_overrides(), llama_model_tensor_buft_override{nullptr, nullptr});
        std::vector<std::size_t> bytes(llama_max_devices(), 0);
        for (int32_t i = 0; i < std::min<int32_t>(margin_count, int32_t(bytes.size())); ++i) {
            bytes[std::size_t(i)] = std::size_t(std::max<int64_t>(margins[i], 0));
        }
        std::lock_guard<std::mutex> lock(fit_mutex);
        *status = int32_t(common_fit_params(path, model, context, fit->tensor_split.data(), fit->overrides.data(),
                                            bytes.data(), minimum_context, nullptr, GGML_LOG_LEVEL_ERROR));
        return fit.release();
    });
}

extern "C" void llmkit_fit_free(llmkit_fit * fit) {
    delete fit;
}

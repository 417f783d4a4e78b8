// llama.cpp's RPC backend: links to remote servers through relays, and the server (llmkit_rpc.h).
// ggml-rpc's functions are found through ggml's backend registry, so that this library links
// whether or not llama.cpp was built with GGML_RPC.
#include "llmkit_rpc.h"
#include "llmkit_bridge_support.hpp"
#include "rpc_relay.hpp"

#include "ggml-backend.h"

#include <arpa/inet.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

struct llmkit_rpc_link {
    std::string endpoint;
    std::unique_ptr<llmkit::rpc::relay> relay;
    std::vector<ggml_backend_dev_t> devices;
};

namespace {

using add_server_fn = ggml_backend_reg_t (*)(const char * endpoint);
using start_server_fn = void (*)(const char * endpoint, const char * cache_dir, size_t n_threads, size_t n_devices,
                                 ggml_backend_dev_t * devices);

void * rpc_function(const char * name) {
    ggml_backend_reg_t registry = ggml_backend_reg_by_name("RPC");
    void * function = registry ? ggml_backend_reg_get_proc_address(registry, name) : nullptr;
    if (!function) {
        throw std::runtime_error("this llama.cpp was built without its RPC backend (GGML_RPC=ON): run scripts/bootstrap");
    }
    return function;
}

std::mutex links_mutex;
std::map<std::string, llmkit_rpc_link *> links;       // guarded by links_mutex; links are never freed

/// The devices to serve: those named, or the GPUs, or else the CPU (as llama.cpp's rpc-server).
std::vector<ggml_backend_dev_t> serving_devices(const char * const * names, size_t count) {
    std::vector<ggml_backend_dev_t> devices;
    for (size_t i = 0; i < count; ++i) {
        ggml_backend_dev_t device = names[i] ? ggml_backend_dev_by_name(names[i]) : nullptr;
        if (!device) {
            std::string known;
            for (size_t j = 0; j < ggml_backend_dev_count(); ++j) {
                ggml_backend_dev_t candidate = ggml_backend_dev_get(j);
                if (std::string(ggml_backend_reg_name(ggml_backend_dev_backend_reg(candidate))) == "RPC") continue;
                known += std::string(known.empty() ? "" : ", ") + ggml_backend_dev_name(candidate);
            }
            throw std::invalid_argument("no device named '" + std::string(names[i] ? names[i] : "") + "' (this machine has: "
                                        + known + ")");
        }
        devices.push_back(device);
    }
    if (devices.empty()) {
        for (size_t j = 0; j < ggml_backend_dev_count(); ++j) {
            ggml_backend_dev_t device = ggml_backend_dev_get(j);
            if (ggml_backend_dev_type(device) == GGML_BACKEND_DEVICE_TYPE_GPU
                && std::string(ggml_backend_reg_name(ggml_backend_dev_backend_reg(device))) != "RPC") {
                devices.push_back(device);
            }
        }
    }
    if (devices.empty()) {
        if (ggml_backend_dev_t cpu = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU)) devices.push_back(cpu);
    }
    if (devices.empty()) throw std::runtime_error("no device to serve");
    return devices;
}

/// Binds `target` once, so that a taken port or a foreign address is reported before serving.
/// ggml-rpc's server binds IPv4 addresses only, given as numbers.
void check_bindable(const llmkit::rpc::endpoint & target, const std::string & text) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(uint16_t(target.port));
    if (::inet_pton(AF_INET, target.host.c_str(), &address.sin_addr) != 1) {
        throw std::invalid_argument("'" + target.host + "' is not an IPv4 address (ggml-rpc's server binds one, "
                                    "such as 127.0.0.1 or 0.0.0.0)");
    }
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int yes = 1;
    if (fd >= 0) ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    const bool bound = fd >= 0 && ::bind(fd, reinterpret_cast<sockaddr *>(&address), sizeof address) == 0;
    const std::string failure = bound ? "" : std::strerror(errno);
    if (fd >= 0) ::close(fd);
    if (!bound) throw std::runtime_error("cannot listen on " + text + ": " + failure);
}

}  // namespace

extern "C" bool llmkit_rpc_supported(void) {
    ggml_backend_reg_t registry = ggml_backend_reg_by_name("RPC");
    return registry && ggml_backend_reg_get_proc_address(registry, "ggml_backend_rpc_add_server");
}

extern "C" llmkit_rpc_link * llmkit_rpc_connect(const char * endpoint, double timeout_seconds, llmkit_error * error) {
    return llmkit::guarded<llmkit_rpc_link *>(error, nullptr, [&]() -> llmkit_rpc_link * {
        if (!endpoint) throw std::invalid_argument("no endpoint");
        const std::string text = endpoint;
        const auto target = llmkit::rpc::endpoint::parse(text);
        auto add_server = reinterpret_cast<add_server_fn>(rpc_function("ggml_backend_rpc_add_server"));
        std::lock_guard<std::mutex> lock(links_mutex);
        if (auto found = links.find(text); found != links.end() && !found->second->relay->lost(nullptr)) {
            return found->second;
        }
        // The server must answer before ggml-rpc's client meets it: that client aborts otherwise.
        const int probe = llmkit::rpc::connect_to(target, timeout_seconds);
        try {
            llmkit::rpc::check_hello(probe, text, timeout_seconds);
        } catch (...) {
            ::close(probe);
            throw;
        }
        ::close(probe);         // the server serves one client at a time: the relay's comes next
        // Never freed, even when it fails below: the relay's threads and ggml-rpc's registry
        // of this relay's address keep pointing at it.
        auto * link = new llmkit_rpc_link;
        link->endpoint = text;
        link->relay = std::make_unique<llmkit::rpc::relay>(text, target);
        ggml_backend_reg_t registry = add_server(link->relay->local_endpoint().c_str());
        std::string reason;
        if (link->relay->lost(&reason)) throw std::runtime_error(reason);
        if (!registry || ggml_backend_reg_dev_count(registry) == 0) {
            link->relay->mark_lost(text + " offers no device");
            throw std::runtime_error(text + " offers no device");
        }
        for (size_t i = 0; i < ggml_backend_reg_dev_count(registry); ++i) {
            link->devices.push_back(ggml_backend_reg_dev_get(registry, i));
        }
        links[text] = link;
        return link;
    });
}

extern "C" void * const * llmkit_rpc_link_devices(const llmkit_rpc_link * link, size_t * count) {
    *count = link ? link->devices.size() : 0;
    return link ? reinterpret_cast<void * const *>(link->devices.data()) : nullptr;
}

extern "C" const char * llmkit_rpc_link_endpoint(const llmkit_rpc_link * link) {
    return link ? link->endpoint.c_str() : "";
}

extern "C" bool llmkit_rpc_link_lost(const llmkit_rpc_link * link, llmkit_error * reason) {
    return llmkit::guarded<bool>(reason, false, [&] {
        std::string why;
        if (!link || !link->relay->lost(&why)) return false;
        llmkit::set_error(reason, why);
        return true;
    });
}

extern "C" bool llmkit_rpc_serve(const char * endpoint, const char * const * device_names, size_t device_count,
                                 size_t threads, const char * cache_directory, llmkit_error * error) {
    return llmkit::guarded<bool>(error, false, [&]() -> bool {
        if (!endpoint) throw std::invalid_argument("no endpoint");
        const std::string text = endpoint;
        const auto target = llmkit::rpc::endpoint::parse(text);
        auto start_server = reinterpret_cast<start_server_fn>(rpc_function("ggml_backend_rpc_start_server"));
        auto devices = serving_devices(device_names, device_count);
        check_bindable(target, text);
        start_server(text.c_str(), cache_directory, threads == 0 ? 1 : threads, devices.size(), devices.data());
        throw std::runtime_error("the RPC server on " + text + " stopped: it could not start or accept (see its output above)");
    });
}

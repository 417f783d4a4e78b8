// The vision bridge: mtmd behind a C interface that never lets a C++ exception out.
#include "llmkit_vision.h"
#include "llmkit_bridge_support.hpp"

#include <llama.h>
#include <mtmd.h>
#include <mtmd-helper.h>

#include <cstdio>
#include <cstring>
#include <vector>

struct llmkit_projector {
    mtmd_context * context;
    int32_t        width;   // the text model's input embedding width
};

struct llmkit_media {
    mtmd_bitmap * bitmap;
};

struct llmkit_chunks {
    mtmd_input_chunks * chunks;
};

namespace {

int32_t log_verbosity = 0;
/// While a projector loads on this thread: where mtmd's error lines go, to name what failed.
thread_local std::string * captured_errors = nullptr;

void log_callback(ggml_log_level level, const char * text, void *) {
    if (captured_errors && level == GGML_LOG_LEVEL_ERROR && captured_errors->size() < 4096) {
        captured_errors->append(text);
    }
    if (log_verbosity > 0 && level != GGML_LOG_LEVEL_DEBUG) {
        std::fputs(text, stderr);
    }
}

/// mtmd's error lines as one line: trimmed, joined with "; ".
std::string summary(const std::string & text) {
    std::string out;
    size_t start = 0;
    while (start < text.size()) {
        size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        std::string line = text.substr(start, end - start);
        while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.pop_back();
        if (!line.empty()) out += (out.empty() ? "" : "; ") + line;
        start = end + 1;
    }
    return out;
}

void install_log() {
    mtmd_log_set(log_callback, nullptr);
    mtmd_helper_log_set(log_callback, nullptr);
}

const mtmd_input_chunk * chunk_at(const llmkit_chunks * chunks, size_t index) {
    if (!chunks || index >= mtmd_input_chunks_size(chunks->chunks)) {
        return nullptr;
    }
    return mtmd_input_chunks_get(chunks->chunks, index);
}

}  // namespace

extern "C" void llmkit_projector_log_set(int32_t verbose) {
    log_verbosity = verbose;
    install_log();
}

extern "C" llmkit_projector * llmkit_projector_load(const char * path, const llama_model * model, bool use_gpu,
                                                    int32_t threads, llmkit_error * error) {
    return llmkit::guarded<llmkit_projector *>(error, nullptr, [&]() -> llmkit_projector * {
        install_log();
        mtmd_context_params params = mtmd_context_params_default();
        params.use_gpu = use_gpu;
        params.print_timings = false;
        params.n_threads = threads > 0 ? threads : params.n_threads;
        params.warmup = true;     // as llama.cpp's tools: the first image does not pay for the graph's allocation
        std::string errors;
        struct Capture {
            explicit Capture(std::string * into) { captured_errors = into; }
            ~Capture() { captured_errors = nullptr; }
        } capture(&errors);
        mtmd_context * context = mtmd_init_from_file(path, model, params);
        if (!context) {
            const std::string said = summary(errors);
            throw std::runtime_error(said.empty() ? "llama.cpp's mtmd could not load it" : "llama.cpp's mtmd could not load it: " + said);
        }
        if (!mtmd_support_vision(context) && !mtmd_support_audio(context)) {
            mtmd_free(context);
            throw std::runtime_error("it takes neither images nor audio");
        }
        return new llmkit_projector{context, llama_model_n_embd_inp(model)};
    });
}

extern "C" void llmkit_projector_free(llmkit_projector * projector) {
    if (projector) {
        mtmd_free(projector->context);
        delete projector;
    }
}

extern "C" llmkit_projector_caps llmkit_projector_capabilities(const llmkit_projector * projector) {
    llmkit_projector_caps caps{false, false, -1, false};
    if (projector) {
        caps.images = mtmd_support_vision(projector->context);
        caps.audio = mtmd_support_audio(projector->context);
        caps.audio_sample_rate = caps.audio ? mtmd_get_audio_sample_rate(projector->context) : -1;
        caps.multi_axis_positions = mtmd_decode_use_mrope(projector->context);
    }
    return caps;
}

extern "C" llmkit_media * llmkit_media_decode(const llmkit_projector * projector, const uint8_t * bytes, size_t length) {
    return llmkit::guarded<llmkit_media *>(nullptr, nullptr, [&]() -> llmkit_media * {
        if (!projector || !bytes || length == 0) {
            return nullptr;
        }
        mtmd_helper_bitmap_wrapper wrapper = mtmd_helper_bitmap_init_from_buf(
            projector->context, bytes, length, false, mtmd_helper_init_opt_default());
        if (wrapper.video_ctx) {
            mtmd_helper_video_free(wrapper.video_ctx);
        }
        if (!wrapper.bitmap) {
            return nullptr;
        }
        return new llmkit_media{wrapper.bitmap};
    });
}

extern "C" llmkit_media * llmkit_media_from_rgb(uint32_t width, uint32_t height, const uint8_t * rgb) {
    return llmkit::guarded<llmkit_media *>(nullptr, nullptr, [&]() -> llmkit_media * {
        if (!rgb || width == 0 || height == 0) {
            return nullptr;
        }
        mtmd_bitmap * bitmap = mtmd_bitmap_init(width, height, rgb);
        return bitmap ? new llmkit_media{bitmap} : nullptr;
    });
}

extern "C" void llmkit_media_set_id(llmkit_media * media, const char * id) {
    if (media && id) {
        mtmd_bitmap_set_id(media->bitmap, id);
    }
}

extern "C" uint32_t llmkit_media_width(const llmkit_media * media) { return media ? mtmd_bitmap_get_nx(media->bitmap) : 0; }
extern "C" uint32_t llmkit_media_height(const llmkit_media * media) { return media ? mtmd_bitmap_get_ny(media->bitmap) : 0; }
extern "C" bool llmkit_media_is_audio(const llmkit_media * media) { return media && mtmd_bitmap_is_audio(media->bitmap); }

extern "C" void llmkit_media_free(llmkit_media * media) {
    if (media) {
        mtmd_bitmap_free(media->bitmap);
        delete media;
    }
}

extern "C" llmkit_chunks * llmkit_projector_tokenize(const llmkit_projector * projector, const llmkit_prompt_part * parts,
                                                     size_t count, bool add_special, llmkit_error * error) {
    return llmkit::guarded<llmkit_chunks *>(error, nullptr, [&]() -> llmkit_chunks * {
        if (!projector) {
            throw std::runtime_error("no projector");
        }
        std::vector<mtmd_input_text> texts(count);
        std::vector<mtmd_input_part> inputs(count);
        std::vector<const mtmd_input_part *> pointers(count);
        for (size_t i = 0; i < count; i++) {
            if ((parts[i].media == nullptr) == (parts[i].text == nullptr)) {
                throw std::runtime_error("a prompt part must be either text or a medium");
            }
            if (parts[i].media) {
                inputs[i] = {nullptr, parts[i].media->bitmap};
            } else {
                texts[i] = {parts[i].text, parts[i].length, false, parts[i].parse_special};
                inputs[i] = {&texts[i], nullptr};
            }
            pointers[i] = &inputs[i];
        }
        mtmd_input_chunks * chunks = mtmd_input_chunks_init();
        const int32_t status = mtmd_tokenize_from_parts(projector->context, chunks, pointers.data(), count, add_special);
        if (status != 0) {
            mtmd_input_chunks_free(chunks);
            throw std::runtime_error(status == 2 ? "the projector could not preprocess a medium"
                                                 : "the prompt's parts could not be tokenized");
        }
        return new llmkit_chunks{chunks};
    });
}

extern "C" void llmkit_chunks_free(llmkit_chunks * chunks) {
    if (chunks) {
        mtmd_input_chunks_free(chunks->chunks);
        delete chunks;
    }
}

extern "C" size_t llmkit_chunks_count(const llmkit_chunks * chunks) {
    return chunks ? mtmd_input_chunks_size(chunks->chunks) : 0;
}

extern "C" int32_t llmkit_chunk_kind(const llmkit_chunks * chunks, size_t index) {
    const mtmd_input_chunk * chunk = chunk_at(chunks, index);
    if (!chunk) {
        return -1;
    }
    switch (mtmd_input_chunk_get_type(chunk)) {
        case MTMD_INPUT_CHUNK_TYPE_TEXT: return 0;
        case MTMD_INPUT_CHUNK_TYPE_IMAGE: return 1;
        case MTMD_INPUT_CHUNK_TYPE_AUDIO: return 2;
        default: return -1;
    }
    return -1;
}

extern "C" const int32_t * llmkit_chunk_tokens(const llmkit_chunks * chunks, size_t index, size_t * count) {
    const mtmd_input_chunk * chunk = chunk_at(chunks, index);
    *count = 0;
    if (!chunk || mtmd_input_chunk_get_type(chunk) != MTMD_INPUT_CHUNK_TYPE_TEXT) {
        return nullptr;
    }
    return mtmd_input_chunk_get_tokens_text(chunk, count);
}

extern "C" size_t llmkit_chunk_token_count(const llmkit_chunks * chunks, size_t index) {
    const mtmd_input_chunk * chunk = chunk_at(chunks, index);
    return chunk ? mtmd_input_chunk_get_n_tokens(chunk) : 0;
}

extern "C" int32_t llmkit_chunk_position_count(const llmkit_chunks * chunks, size_t index) {
    const mtmd_input_chunk * chunk = chunk_at(chunks, index);
    return chunk ? mtmd_input_chunk_get_n_pos(chunk) : 0;
}

extern "C" bool llmkit_chunk_non_causal(const llmkit_projector * projector, const llmkit_chunks * chunks, size_t index) {
    const mtmd_input_chunk * chunk = chunk_at(chunks, index);
    return projector && chunk && mtmd_decode_use_non_causal(projector->context, chunk);
}

extern "C" int32_t llmkit_projector_encode(llmkit_projector * projector, const llmkit_chunks * chunks, size_t index,
                                           float * out, size_t capacity, int64_t * microseconds, llmkit_error * error) {
    return llmkit::guarded<int32_t>(error, 1, [&]() -> int32_t {
        const mtmd_input_chunk * chunk = chunk_at(chunks, index);
        if (!projector || !chunk || mtmd_input_chunk_get_type(chunk) == MTMD_INPUT_CHUNK_TYPE_TEXT) {
            throw std::runtime_error("not a media chunk");
        }
        const size_t needed = mtmd_input_chunk_get_n_tokens(chunk) * size_t(projector->width);
        if (needed > capacity) {
            throw std::runtime_error("the output buffer is too small");
        }
        const int64_t start = ggml_time_us();
        if (mtmd_encode_chunk(projector->context, chunk) != 0) {
            throw std::runtime_error("the projector failed to encode the medium");
        }
        if (microseconds) {
            *microseconds = ggml_time_us() - start;
        }
        const float * embeddings = mtmd_get_output_embd(projector->context);
        if (!embeddings) {
            throw std::runtime_error("the projector returned no embeddings");
        }
        std::memcpy(out, embeddings, needed * sizeof(float));
        return 0;
    });
}

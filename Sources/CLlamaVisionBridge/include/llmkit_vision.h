// LocalLLMKit's C interface over llama.cpp's mtmd (images and audio in prompts): a projector
// (an mmproj GGUF) loaded beside a text model, media decoded from file bytes or raw RGB, a
// prompt of text parts and media tokenized into chunks, and a media chunk encoded into the
// text model's embedding space. No C++ exception crosses it: failures come back as NULL or a
// non-zero status, with a message where one is asked for.
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "llmkit_engine.h"

#ifdef __cplusplus
extern "C" {
#endif

struct llama_model;

/// A projector loaded for one text model.
typedef struct llmkit_projector llmkit_projector;
/// One image (RGB pixels) or audio clip (samples), decoded.
typedef struct llmkit_media llmkit_media;
/// A prompt split into text and media chunks.
typedef struct llmkit_chunks llmkit_chunks;

/// Loads the projector at `path` for `model`. Returns NULL and sets `*error` when mtmd refuses
/// it (not a projector, another model's width, a type this llama.cpp does not know).
llmkit_projector * llmkit_projector_load(const char * path, const struct llama_model * model, bool use_gpu,
                                         int32_t threads, llmkit_error * error);
void llmkit_projector_free(llmkit_projector * projector);

/// What the projector takes in.
typedef struct llmkit_projector_caps {
    bool    images;
    bool    audio;
    int32_t audio_sample_rate;    // -1 without audio
    bool    multi_axis_positions;  // M-RoPE: an image's positions are not one per token
} llmkit_projector_caps;
llmkit_projector_caps llmkit_projector_capabilities(const llmkit_projector * projector);

/// Decodes an encoded image (PNG, JPEG, BMP, GIF, … through stb_image) or audio clip (WAV,
/// MP3, FLAC) from `bytes`. The caller has bounded the size and the declared pixels already.
/// Returns NULL when the bytes are not a picture or a clip this projector can take.
llmkit_media * llmkit_media_decode(const llmkit_projector * projector, const uint8_t * bytes, size_t length);
/// An image of `width` × `height` RGB pixels (3 bytes each, row by row), copied.
llmkit_media * llmkit_media_from_rgb(uint32_t width, uint32_t height, const uint8_t * rgb);
/// Sets the id that the media's chunk carries (the caller's content hash).
void llmkit_media_set_id(llmkit_media * media, const char * id);
uint32_t llmkit_media_width(const llmkit_media * media);
uint32_t llmkit_media_height(const llmkit_media * media);
bool llmkit_media_is_audio(const llmkit_media * media);
void llmkit_media_free(llmkit_media * media);

/// A part of a prompt: text (tokenized with or without special tokens) or a medium.
typedef struct llmkit_prompt_part {
    const char *         text;       // NULL for a medium
    size_t               length;
    bool                 parse_special;
    const llmkit_media * media;      // NULL for text
} llmkit_prompt_part;

/// Tokenizes `parts` into chunks (text tokens, and the tokens each medium takes, with the
/// text the projector puts around media). Returns NULL and sets `*error` on failure.
llmkit_chunks * llmkit_projector_tokenize(const llmkit_projector * projector, const llmkit_prompt_part * parts,
                                          size_t count, bool add_special, llmkit_error * error);
void llmkit_chunks_free(llmkit_chunks * chunks);
size_t llmkit_chunks_count(const llmkit_chunks * chunks);
/// 0: text, 1: image, 2: audio.
int32_t llmkit_chunk_kind(const llmkit_chunks * chunks, size_t index);
/// The text tokens of a text chunk (NULL for media).
const int32_t * llmkit_chunk_tokens(const llmkit_chunks * chunks, size_t index, size_t * count);
/// How many embeddings a chunk has (its tokens).
size_t llmkit_chunk_token_count(const llmkit_chunks * chunks, size_t index);
/// How many positions it takes.
int32_t llmkit_chunk_position_count(const llmkit_chunks * chunks, size_t index);
/// Whether its embeddings must be decoded together with non-causal attention.
bool llmkit_chunk_non_causal(const llmkit_projector * projector, const llmkit_chunks * chunks, size_t index);

/// Encodes media chunk `index` and copies its embeddings (token count × `width` floats) into
/// `out`, which holds `capacity` floats; `*microseconds` (when given) gets the time the encoding
/// itself took, without the copy. Returns 0 on success.
int32_t llmkit_projector_encode(llmkit_projector * projector, const llmkit_chunks * chunks, size_t index,
                                float * out, size_t capacity, int64_t * microseconds, llmkit_error * error);

/// Silences mtmd's log (0), or sends it to standard error (1).
void llmkit_projector_log_set(int32_t verbose);

#ifdef __cplusplus
}
#endif

// Where an HTTP/1.1 request ends, found incrementally as its bytes arrive: the head (request
// line and headers, up to the empty line), then a body framed by Content-Length or by chunked
// transfer coding. The connection gate reads a whole request with it before a worker thread is
// given the connection, so that a slow client holds a socket, never a worker.
//
// It only frames; cpp-httplib still parses and validates the request. A head it cannot frame
// (too long, conflicting lengths, a bad chunk size) is handed over as it is: cpp-httplib then
// answers it with the right error.
#pragma once

#include <cstddef>
#include <string>

namespace llmkit_http {

class RequestFraming {
public:
    enum class State {
        head,        // the head has not ended yet
        body,        // the head has ended; the body is still arriving
        complete,    // the whole request is in the buffer, `end()` bytes long
        unframable,  // hand it over as it is (cpp-httplib answers the error)
    };

    RequestFraming(size_t max_head_bytes, size_t max_body_bytes);

    /// Looks at the bytes of `buffer` that arrived since the last call (the buffer only grows,
    /// and starts with the request). Linear overall: each byte is scanned once.
    State advance(const std::string & buffer);

    State state() const { return state_; }
    /// The request's length in the buffer, once complete.
    size_t end() const { return end_; }
    /// Whether the head asked for `100 Continue` before its body (RFC 9110 10.1.1).
    bool expects_continue() const { return expects_continue_; }
    /// Where the `Expect` header's name starts in the buffer, when it asked for 100 Continue.
    size_t expect_offset() const { return expect_offset_; }
    /// The body's length, when it has a Content-Length.
    size_t content_length() const { return content_length_; }

private:
    enum class Chunk { size, size_extension, data, data_end, trailer_line_start, trailer_line };

    State frame_head(const std::string & buffer, size_t head_end);
    State advance_chunks(const std::string & buffer);

    const size_t max_head_;
    const size_t max_body_;
    State state_ = State::head;
    size_t scanned_ = 0;          // bytes of the buffer already looked at
    size_t body_start_ = 0;
    size_t end_ = 0;
    size_t content_length_ = 0;
    bool chunked_ = false;
    bool expects_continue_ = false;
    size_t expect_offset_ = 0;
    // Chunked coding.
    Chunk chunk_ = Chunk::size;
    size_t chunk_left_ = 0;
    size_t chunk_digits_ = 0;
    size_t body_bytes_ = 0;
    bool last_chunk_ = false;
    bool trailer_line_empty_ = true;
};

}  // namespace llmkit_http

#include "request_framing.hpp"

#include <cctype>
#include <cstring>

namespace llmkit_http {

namespace {

bool equals_ignoring_case(const char * text, size_t length, const char * word) {
    if (std::strlen(word) != length) return false;
    for (size_t i = 0; i < length; ++i) {
        if (std::tolower(static_cast<unsigned char>(text[i])) != word[i]) return false;
    }
    return true;
}

bool contains_ignoring_case(const std::string & text, const char * word) {
    std::string lower(text);
    for (auto & c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return lower.find(word) != std::string::npos;
}

std::string trimmed(const char * begin, const char * end) {
    while (begin < end && (*begin == ' ' || *begin == '\t')) ++begin;
    while (end > begin && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r')) --end;
    return std::string(begin, end);
}

}  // namespace

RequestFraming::RequestFraming(size_t max_head_bytes, size_t max_body_bytes)
    : max_head_(max_head_bytes), max_body_(max_body_bytes) {}

RequestFraming::State RequestFraming::advance(const std::string & buffer) {
    if (state_ == State::head) {
        // The head ends at the first empty line ("\r\n" or a bare "\n"). A match may straddle the
        // previous call's end, so the scan restarts at most three bytes back.
        size_t from = scanned_ >= 3 ? scanned_ - 3 : 0;
        for (size_t i = from; i < buffer.size(); ++i) {
            if (buffer[i] != '\n' || i == 0) continue;
            bool blank = buffer[i - 1] == '\n' || (buffer[i - 1] == '\r' && i >= 2 && buffer[i - 2] == '\n');
            if (blank) {
                scanned_ = i + 1;
                return state_ = frame_head(buffer, i + 1);
            }
        }
        scanned_ = buffer.size();
        if (buffer.size() > max_head_) state_ = State::unframable;
        return state_;
    }
    if (state_ != State::body) return state_;
    if (chunked_) return state_ = advance_chunks(buffer);
    if (buffer.size() >= body_start_ + content_length_) {
        end_ = body_start_ + content_length_;
        state_ = State::complete;
    }
    return state_;
}

RequestFraming::State RequestFraming::frame_head(const std::string & buffer, size_t head_end) {
    if (head_end > max_head_) return State::unframable;
    body_start_ = head_end;
    const char * text = buffer.data();
    size_t line_start = 0;
    bool first_line = true, http10 = false, has_length = false, has_coding = false, expects = false;
    size_t expect_at = 0;
    while (line_start < head_end) {
        const char * newline = static_cast<const char *>(std::memchr(text + line_start, '\n', head_end - line_start));
        size_t line_end = newline ? static_cast<size_t>(newline - text) : head_end;
        const char * begin = text + line_start;
        const char * end = text + line_end;
        if (first_line) {
            std::string line = trimmed(begin, end);
            http10 = line.size() >= 8 && line.compare(line.size() - 8, 8, "HTTP/1.0") == 0;
            first_line = false;
        } else if (const char * colon = static_cast<const char *>(std::memchr(begin, ':', end - begin))) {
            size_t name_length = static_cast<size_t>(colon - begin);
            std::string value = trimmed(colon + 1, end);
            if (equals_ignoring_case(begin, name_length, "content-length")) {
                if (value.empty() || value.size() > 18) return State::unframable;
                size_t length = 0;
                for (char c : value) {
                    if (c < '0' || c > '9') return State::unframable;
                    length = length * 10 + static_cast<size_t>(c - '0');
                }
                if (has_length && length != content_length_) return State::unframable;
                has_length = true;
                content_length_ = length;
            } else if (equals_ignoring_case(begin, name_length, "transfer-encoding")) {
                // Only chunked as the final coding gives a length (cpp-httplib refuses the rest).
                size_t last = value.find_last_of(',');
                std::string final_coding = trimmed(value.data() + (last == std::string::npos ? 0 : last + 1),
                                                   value.data() + value.size());
                if (!equals_ignoring_case(final_coding.data(), final_coding.size(), "chunked")) return State::unframable;
                has_coding = true;
            } else if (equals_ignoring_case(begin, name_length, "expect") && contains_ignoring_case(value, "100-continue")) {
                expects = true;
                expect_at = line_start;
            }
        }
        line_start = line_end + 1;
    }
    if (has_coding && has_length && content_length_ != 0) return State::unframable;
    expects_continue_ = expects && !http10;
    expect_offset_ = expect_at;
    if (has_coding) {
        chunked_ = true;
        return advance_chunks(buffer);
    }
    if (content_length_ > max_body_) return State::unframable;   // cpp-httplib answers 413 unread
    if (buffer.size() >= body_start_ + content_length_) {
        end_ = body_start_ + content_length_;
        return State::complete;
    }
    return State::body;
}

RequestFraming::State RequestFraming::advance_chunks(const std::string & buffer) {
    size_t i = scanned_;
    while (i < buffer.size()) {
        char c = buffer[i];
        switch (chunk_) {
        case Chunk::size:
        case Chunk::size_extension:
            if (c == '\n') {
                if (chunk_digits_ == 0) return State::unframable;
                chunk_digits_ = 0;
                if (chunk_left_ == 0) {
                    chunk_ = Chunk::trailer_line_start;
                } else {
                    body_bytes_ += chunk_left_;
                    if (body_bytes_ > max_body_) return State::unframable;
                    chunk_ = Chunk::data;
                }
            } else if (chunk_ == Chunk::size && std::isxdigit(static_cast<unsigned char>(c))) {
                if (++chunk_digits_ > 15) return State::unframable;
                chunk_left_ = chunk_left_ * 16 + static_cast<size_t>(std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
                                                                      : std::tolower(static_cast<unsigned char>(c)) - 'a' + 10);
            } else if (c == ';' || c == ' ' || c == '\t') {
                chunk_ = Chunk::size_extension;
            } else if (c != '\r' && chunk_ == Chunk::size) {
                return State::unframable;
            }
            ++i;
            break;
        case Chunk::data: {
            size_t take = std::min(chunk_left_, buffer.size() - i);
            i += take;
            chunk_left_ -= take;
            if (chunk_left_ == 0) chunk_ = Chunk::data_end;
            break;
        }
        case Chunk::data_end:
            if (c == '\n') chunk_ = Chunk::size;
            else if (c != '\r') return State::unframable;
            ++i;
            break;
        case Chunk::trailer_line_start:
            ++i;
            if (c == '\n') {
                scanned_ = i;
                end_ = i;
                return State::complete;
            }
            if (c != '\r') chunk_ = Chunk::trailer_line;
            break;
        case Chunk::trailer_line:
            ++i;
            if (c == '\n') chunk_ = Chunk::trailer_line_start;
            break;
        }
        if (i - body_start_ > max_body_ + max_head_) return State::unframable;
    }
    scanned_ = i;
    return State::body;
}

}  // namespace llmkit_http

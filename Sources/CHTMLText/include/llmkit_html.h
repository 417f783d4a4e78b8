// Readable text from HTML, with libxml2's HTML parser. Plain C types only, so that
// Swift never sees libxml2's headers (whose ICU types clash with Foundation's).
#ifndef LLMKIT_HTML_H
#define LLMKIT_HTML_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The title and text of an HTML page. Strings are malloc'ed (release with
/// `llmkit_html_free`); `title` is NULL when the page has none.
typedef struct llmkit_html_text {
    char * title;
    char * text;
} llmkit_html_text;

/// Parses `length` bytes of HTML leniently (as a browser would), dropping scripts,
/// styles and markup; block elements become line breaks. `encoding` is the charset the
/// server declared, or NULL to detect it. Never touches the network.
llmkit_html_text llmkit_html_extract(const char * data, size_t length, const char * url, const char * encoding);

/// Frees the strings of an extraction.
void llmkit_html_free(llmkit_html_text text);

#ifdef __cplusplus
}
#endif

#endif

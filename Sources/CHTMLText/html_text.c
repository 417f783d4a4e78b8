// Readable text from HTML through libxml2's HTML parser.
#include "llmkit_html.h"

#include <libxml/HTMLparser.h>
#include <libxml/tree.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct {
    char * data;
    size_t length;
    size_t capacity;
} buffer;

static void append(buffer * out, const char * text, size_t length) {
    if (out->length + length + 1 > out->capacity) {
        size_t capacity = out->capacity ? out->capacity : 4096;
        while (capacity < out->length + length + 1) capacity *= 2;
        char * grown = realloc(out->data, capacity);
        if (!grown) return;
        out->data = grown;
        out->capacity = capacity;
    }
    memcpy(out->data + out->length, text, length);
    out->length += length;
    out->data[out->length] = '\0';
}

static int is_one_of(const char * name, const char * const * list) {
    for (; *list; ++list) {
        if (strcasecmp(name, *list) == 0) return 1;
    }
    return 0;
}

static const char * const skipped[] = {"script", "style", "noscript", "template", "svg", "head", "iframe", "object", NULL};
static const char * const blocks[] = {
    "p", "div", "br", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "table", "section", "article",
    "header", "footer", "nav", "aside", "main", "pre", "blockquote", "dl", "dt", "dd", "figure", "figcaption", "hr", NULL};

// The text of the first <title> element, anywhere in the tree.
static char * find_title(xmlNode * node) {
    for (; node; node = node->next) {
        if (node->type != XML_ELEMENT_NODE || !node->name) continue;
        if (strcasecmp((const char *) node->name, "title") == 0) {
            xmlChar * content = xmlNodeGetContent(node);
            char * title = content ? strdup((const char *) content) : NULL;
            if (content) xmlFree(content);
            return title;
        }
        char * nested = find_title(node->children);
        if (nested) return nested;
    }
    return NULL;
}

static void walk(xmlNode * node, buffer * text) {
    for (; node; node = node->next) {
        if (node->type == XML_TEXT_NODE || node->type == XML_CDATA_SECTION_NODE) {
            if (node->content) append(text, (const char *) node->content, strlen((const char *) node->content));
            continue;
        }
        if (node->type != XML_ELEMENT_NODE || !node->name) continue;
        const char * name = (const char *) node->name;
        if (is_one_of(name, skipped)) continue;
        int block = is_one_of(name, blocks);
        if (block) append(text, "\n", 1);
        walk(node->children, text);
        if (block) append(text, "\n", 1);
    }
}

llmkit_html_text llmkit_html_extract(const char * data, size_t length, const char * url, const char * encoding) {
    llmkit_html_text result = {NULL, NULL};
    buffer text = {NULL, 0, 0};
    append(&text, "", 0);
    const int options = HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING | HTML_PARSE_NONET;
    htmlDocPtr document = htmlReadMemory(data, (int) (length > 0x7fffffff ? 0x7fffffff : length), url, encoding, options);
    if (document) {
        xmlNode * root = xmlDocGetRootElement(document);
        result.title = find_title(root);
        walk(root, &text);
        xmlFreeDoc(document);
    }
    result.text = text.data;
    return result;
}

void llmkit_html_free(llmkit_html_text text) {
    free(text.title);
    free(text.text);
}

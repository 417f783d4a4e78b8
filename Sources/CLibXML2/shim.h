// libxml2's HTML parser, for load_webpage: found through pkg-config (libxml-2.0),
// installed by scripts/bootstrap (Debian's libxml2-dev).
#include <libxml/HTMLparser.h>
#include <libxml/tree.h>

// libcurl, for load_webpage's fetcher: found through pkg-config (libcurl), installed by
// scripts/bootstrap (Debian's libcurl4-openssl-dev). Only CCurlBridge includes it.
#include <curl/curl.h>

#ifndef RINGSIDE_CCURL_SHIM_H
#define RINGSIDE_CCURL_SHIM_H
#include <curl/curl.h>

// curl_easy_setopt and curl_easy_getinfo are variadic and do not import into Swift;
// these typed wrappers call them with one argument type each.

static inline CURLcode ringside_curl_setopt_long(CURL *c, CURLoption o, long v) { return curl_easy_setopt(c, o, v); }
static inline CURLcode ringside_curl_setopt_string(CURL *c, CURLoption o, const char *v) { return curl_easy_setopt(c, o, v); }
static inline CURLcode ringside_curl_setopt_pointer(CURL *c, CURLoption o, void *v) { return curl_easy_setopt(c, o, v); }
static inline CURLcode ringside_curl_setopt_slist(CURL *c, CURLoption o, struct curl_slist *v) { return curl_easy_setopt(c, o, v); }
static inline CURLcode ringside_curl_setopt_write_function(CURL *c, size_t (*f)(char *, size_t, size_t, void *)) {
    return curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, f);
}
static inline CURLcode ringside_curl_setopt_header_function(CURL *c, size_t (*f)(char *, size_t, size_t, void *)) {
    return curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, f);
}
static inline CURLcode ringside_curl_setopt_sockopt_function(CURL *c, int (*f)(void *, curl_socket_t, curlsocktype)) {
    return curl_easy_setopt(c, CURLOPT_SOCKOPTFUNCTION, f);
}
static inline CURLcode ringside_curl_setopt_closesocket_function(CURL *c, int (*f)(void *, curl_socket_t)) {
    return curl_easy_setopt(c, CURLOPT_CLOSESOCKETFUNCTION, f);
}
static inline CURLMcode ringside_curl_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return curl_multi_setopt(m, o, v); }
static inline long ringside_CURLPIPE_MULTIPLEX(void) { return CURLPIPE_MULTIPLEX; }
static inline CURLcode ringside_curl_msg_result(CURLMsg *message) { return message->data.result; }
static inline CURLcode ringside_curl_getinfo_long(CURL *c, CURLINFO i, long *v) { return curl_easy_getinfo(c, i, v); }
#endif

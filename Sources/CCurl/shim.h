/* libcurl for Swift: curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot
 * call, so each argument type gets a typed wrapper. */
#ifndef MAPCORE_CCURL_SHIM_H
#define MAPCORE_CCURL_SHIM_H
#include <curl/curl.h>

static inline CURLcode mc_curl_set_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode mc_curl_set_string(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode mc_curl_set_pointer(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode mc_curl_set_off_t(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode mc_curl_set_write_function(CURL *h, size_t (*f)(char *, size_t, size_t, void *)) {
    return curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, f);
}
static inline CURLcode mc_curl_response_code(CURL *h, long *code) {
    return curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, code);
}
/* The CA bundle and directory this libcurl was built to use, or NULL (curl < 7.70 does not say). */
static inline const char *mc_curl_builtin_cainfo(void) {
    const curl_version_info_data *v = curl_version_info(CURLVERSION_NOW);
    return v && v->age >= CURLVERSION_SEVENTH ? v->cainfo : NULL;
}
static inline const char *mc_curl_builtin_capath(void) {
    const curl_version_info_data *v = curl_version_info(CURLVERSION_NOW);
    return v && v->age >= CURLVERSION_SEVENTH ? v->capath : NULL;
}
#endif

#ifndef RINGSIDE_COPENSSL_SHIM_H
#define RINGSIDE_COPENSSL_SHIM_H
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/bio.h>
#include <stdio.h>

// OpenSSL's function-like macros do not import into Swift; these typed wrappers stand in for them.

static inline long ringside_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) {
    return SSL_CTX_set_min_proto_version(ctx, version);
}
static inline long ringside_SSL_CTX_set_options(SSL_CTX *ctx, uint64_t options) {
    return SSL_CTX_set_options(ctx, options);
}
static inline long ringside_SSL_CTX_set_mode(SSL_CTX *ctx, long mode) {
    return SSL_CTX_set_mode(ctx, mode);
}
static inline long ringside_BIO_pending(BIO *bio) { return BIO_pending(bio); }
static inline long ringside_BIO_set_mem_eof_return(BIO *bio, int v) { return BIO_set_mem_eof_return(bio, v); }
static inline int ringside_SSL_TLSEXT_ERR_OK(void) { return SSL_TLSEXT_ERR_OK; }
static inline int ringside_SSL_TLSEXT_ERR_NOACK(void) { return SSL_TLSEXT_ERR_NOACK; }
static inline int ringside_SSL_TLSEXT_ERR_ALERT_FATAL(void) { return SSL_TLSEXT_ERR_ALERT_FATAL; }
static inline uint64_t ringside_SSL_OP_NO_RENEGOTIATION(void) { return SSL_OP_NO_RENEGOTIATION; }
static inline const ASN1_STRING *ringside_X509_EXTENSION_data(X509_EXTENSION *ext) {
    return X509_EXTENSION_get_data(ext);
}
/// Drains OpenSSL's error queue into `out` as "error; error; …" (one implementation for APNs and TLS).
static inline void ringside_drain_errors(char *out, size_t capacity) {
    size_t used = 0;
    out[0] = 0;
    unsigned long code;
    while ((code = ERR_get_error()) != 0) {
        char line[256];
        ERR_error_string_n(code, line, sizeof line);
        int written = snprintf(out + used, capacity - used, "%s%s", used ? "; " : "", line);
        if (written < 0 || (size_t)written >= capacity - used) { ERR_clear_error(); break; }
        used += (size_t)written;
    }
}
/// DER encoding of a certificate in a buffer OpenSSL allocates; free it with OPENSSL_free.
static inline unsigned char *ringside_X509_to_DER(X509 *certificate, int *length) {
    unsigned char *der = NULL;
    *length = i2d_X509(certificate, &der);
    return der;
}
static inline void ringside_OPENSSL_free(void *pointer) { OPENSSL_free(pointer); }
static inline void ringside_sk_X509_pop_free(STACK_OF(X509) *stack) { sk_X509_pop_free(stack, X509_free); }
#endif

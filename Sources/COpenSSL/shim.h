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
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

/// A TLS session's ciphertext, as OpenSSL reads and writes it through `ringside_tls_bio_method`:
/// the socket's bytes are read where they lie, and records are appended to a buffer that grows
/// without being zeroed. A pair of memory BIOs copied each byte in and out once more, and zeroed
/// every growth (callgrind, issue 12).
typedef struct {
    const unsigned char *in;  /* the ciphertext being received; valid during one receive */
    size_t in_length;
    size_t in_offset;
    unsigned char *out;       /* records waiting for the socket */
    size_t out_length;
    size_t out_capacity;
} ringside_tls_buffers;

static inline int ringside_tls_bio_write(BIO *bio, const char *data, size_t length, size_t *written) {
    ringside_tls_buffers *buffers = (ringside_tls_buffers *)BIO_get_data(bio);
    BIO_clear_retry_flags(bio);
    if (length > SIZE_MAX / 2 - buffers->out_length) return 0;
    if (buffers->out_length + length > buffers->out_capacity) {
        size_t capacity = buffers->out_capacity ? buffers->out_capacity : 16384;
        while (capacity < buffers->out_length + length) capacity *= 2;
        unsigned char *grown = (unsigned char *)realloc(buffers->out, capacity);
        if (grown == NULL) return 0;
        buffers->out = grown;
        buffers->out_capacity = capacity;
    }
    memcpy(buffers->out + buffers->out_length, data, length);
    buffers->out_length += length;
    *written = length;
    return 1;
}

static inline int ringside_tls_bio_read(BIO *bio, char *data, size_t length, size_t *read) {
    ringside_tls_buffers *buffers = (ringside_tls_buffers *)BIO_get_data(bio);
    BIO_clear_retry_flags(bio);
    size_t left = buffers->in_length - buffers->in_offset;
    if (left == 0) {
        /* Like a memory BIO with eof_return -1: no bytes yet is "try again", not end of stream. */
        BIO_set_retry_read(bio);
        *read = 0;
        return 0;
    }
    size_t count = left < length ? left : length;
    memcpy(data, buffers->in + buffers->in_offset, count);
    buffers->in_offset += count;
    *read = count;
    return 1;
}

static inline long ringside_tls_bio_ctrl(BIO *bio, int command, long number, void *pointer) {
    (void)bio; (void)number; (void)pointer;
    /* Flushing is the connection's job (it writes `out` to the socket); nothing else applies. */
    return command == BIO_CTRL_FLUSH ? 1 : 0;
}

static inline int ringside_tls_bio_create(BIO *bio) {
    BIO_set_init(bio, 1);
    return 1;
}

/// The method, made once (the caller keeps it for the process's life).
static inline BIO_METHOD *ringside_tls_bio_method_new(void) {
    BIO_METHOD *method = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "ringside ciphertext");
    if (method == NULL) return NULL;
    BIO_meth_set_write_ex(method, ringside_tls_bio_write);
    BIO_meth_set_read_ex(method, ringside_tls_bio_read);
    BIO_meth_set_ctrl(method, ringside_tls_bio_ctrl);
    BIO_meth_set_create(method, ringside_tls_bio_create);
    return method;
}
#endif

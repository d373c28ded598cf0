#ifndef RINGSIDE_CNGHTTP2_SHIM_H
#define RINGSIDE_CNGHTTP2_SHIM_H
// libnghttp2 1.52 (Debian 12): the ssize_t APIs (mem_recv, mem_send, data_provider) are the current ones.
#include <nghttp2/nghttp2.h>
#endif

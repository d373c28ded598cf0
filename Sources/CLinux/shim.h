#ifndef RINGSIDE_CLINUX_SHIM_H
#define RINGSIDE_CLINUX_SHIM_H
// Linux event-loop calls that Swift's Glibc module does not export.
#include <sys/epoll.h>
#include <sys/eventfd.h>
#endif

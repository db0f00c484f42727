#ifndef MIADMIN_CLDAP_SHIM_H
#define MIADMIN_CLDAP_SHIM_H
// <sys/time.h> first: without it `struct timeval *` imports as an opaque pointer.
#include <sys/time.h>
#include <lber.h>
#include <ldap.h>
#endif

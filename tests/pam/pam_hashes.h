/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pam_hashes.h - the stored hashes of the PAM tests (tests/pam/pam_hashes.inc,
 * made by independent implementations) by name: enum hash_id.  A program
 * without pam_fixture.c (which defines the shared g_hash[]) defines
 * PAM_HASHES_STATIC_TABLE first and gets its own static g_hash[].
 */
#ifndef KDF_PAM_HASHES_H
#define KDF_PAM_HASHES_H

enum hash_id {
#define PAM_HASH(id, h) H_##id,
#include "pam_hashes.inc"
#undef PAM_HASH
    H_COUNT
};

#ifdef PAM_HASHES_STATIC_TABLE
static const char *const g_hash[] = {
#define PAM_HASH(id, h) h,
#include "pam_hashes.inc"
#undef PAM_HASH
};
#endif

#endif /* KDF_PAM_HASHES_H */

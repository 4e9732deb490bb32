/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tpm_child.h - the CLI's way to a TPM: every TPM command through the
 * kdfhash-tpm-hmac child (tpm_child.c), so the kdfhash package links no
 * TPM library.
 */
#ifndef KDF_TPM_CHILD_H
#define KDF_TPM_CHILD_H

#include <stdint.h>

#include "kdfhash.h"

struct kdf_tpm_access;
/* TPM keys, asked through kdfhash-tpm-hmac, killed at KDF_TPM_TIMEOUT_MS;
 * without it, "install kdfhash-tpm". */
extern const struct kdf_tpm_access cli_tpm;
/* A new HMAC key made in the TPM through the same child: *handle gets its
 * persistent handle.  KDF_OK, else err says why. */
enum kdf_status cli_tpm_new_key(const char *tcti, uint32_t *handle, char *err, size_t cap);

#endif /* KDF_TPM_CHILD_H */

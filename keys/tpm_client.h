/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tpm_client.h - how the module and the helper reach a key held by a TPM:
 * through kdfhash-tpm-hmac (tpm_hmac.c), a child they start with a
 * deadline and kill at it (tpm_client.c), never through the TPM2 Software
 * Stack in their own process.
 *
 * Why a child:
 *   - a TPM that does not answer must not hang a login.  Each TPM command
 *     has a timeout, but not every TCTI's start does (swtpm's waits on its
 *     control channel without one), and nothing bounds a driver that
 *     blocks; a child can be killed wherever it is stuck;
 *   - the stack reads TSS2_LOG and TSS2_LOGFILE from the environment
 *     (getenv, not secure_getenv), so in a setuid helper a user could
 *     have root append log lines to a file of their choice; the child
 *     gets a fixed environment (spawn.h);
 *   - a PAM host (sshd, a display manager) does not load the stack and
 *     its TCTI plugins (dlopen) at all.
 *
 * The exchange, one line each way:
 *   stdin   "kdfhash-tpm-req-v1 0xHANDLE SALTHEX TCTI\n"
 *   stdout  "ok HEX\n" (the 32-byte secret, exit 0), or
 *           "error REASON\n" (exit 1)
 * and, for kdfhash(1) only (keys --tpm new), a key made in the TPM:
 *   stdin   "kdfhash-tpm-new-v1 TCTI\n"
 *   stdout  "ok 0xHANDLE\n" (8 lowercase hex digits, exit 0), or
 *           "error REASON\n" (exit 1)
 * The command line uses the same child so that the kdfhash package needs
 * no TPM2 Software Stack: only kdfhash-tpm, which ships the child, does.
 */
#ifndef KDF_PAM_TPM_CLIENT_H
#define KDF_PAM_TPM_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "keystore.h"

#define KDF_TPM_REQ_MAGIC "kdfhash-tpm-req-v1 "
#define KDF_TPM_NEW_MAGIC "kdfhash-tpm-new-v1 "
/* A new key: a primary key made again from the owner's seed, a key
 * created, loaded and made persistent; slower than one HMAC. */
#define KDF_TPM_NEW_TIMEOUT_MS 30000
/* A request: magic, handle, a salt of KDF_MAX_SALT bytes in hex, a TCTI
 * configuration of up to a key file's line. */
#define KDF_TPM_REQ_MAX 1024
/* A reply: "ok " and 64 hex digits, or "error " and a reason. */
#define KDF_TPM_REPLY_MAX 512

/* Which program, and how long it may take in all (its TCTI start, the
 * TPM's answer): then it is killed and the key refused. */
struct kdf_pam_tpm {
    const char *prog;
    unsigned timeout_ms;
};
/* The installed child ($(pkglibexecdir)/kdfhash-tpm-hmac). */
extern const char kdf_pam_tpm_default_prog[];

/* struct kdf_tpm_access's fn with ctx a struct kdf_pam_tpm: the secret
 * kdf_tpm_secret() would compute, from the child.  KDF_OK, or KDF_NOKEY
 * with err saying why (no answer within the deadline, cannot execute the
 * child, the TPM's own error, a build without TPM support). */
enum kdf_status kdf_pam_tpm_secret(void *ctx, const char *tcti, uint32_t handle,
                                   const uint8_t *salt, size_t salt_len, uint8_t *out,
                                   char *err, size_t err_cap);

/* kdf_tpm_new_key() through the child t: *handle gets the persistent
 * handle of a new HMAC key.  KDF_OK, else err says why (as above). */
enum kdf_status kdf_pam_tpm_new_key(const struct kdf_pam_tpm *t, const char *tcti,
                                    uint32_t *handle, char *err, size_t err_cap);

#endif /* KDF_PAM_TPM_CLIENT_H */

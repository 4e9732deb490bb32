/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tpm_child.c - the command line's way to a TPM: kdfhash-tpm-hmac, the
 * child the module and the helper start (keys/tpm_client.h), with
 * the same deadline.  The TPM2 Software Stack is never linked into
 * kdfhash(1): it comes with the kdfhash-tpm package, which ships the child,
 * so a machine without TPM keys installs neither.  When the child is not
 * there, every TPM feature says to install kdfhash-tpm.
 *
 * KDFHASH_TPM_HELPER (an absolute path) names another child: the tests'
 * build tree.  kdfhash(1) is not setuid; secure_getenv() all the same.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "keystore.h"
#include "tpm_child.h"
#include "tpm_client.h"

/* The child to run, or NULL with err saying what to install. */
static const char *
child_prog(char *err, size_t cap)
{
    const char *p = secure_getenv("KDFHASH_TPM_HELPER");

    if (p == NULL || p[0] != '/')
        p = kdf_pam_tpm_default_prog;
    if (access(p, X_OK) == 0)
        return p;
    if (errno == ENOENT)
        kdf_errf(err, cap, "%s is not installed: install kdfhash-tpm for keys held by a TPM",
                 p);
    else
        kdf_errf(err, cap, "cannot execute %s: %s", p, strerror(errno));
    return NULL;
}

static enum kdf_status
tpm_secret(void *ctx, const char *tcti, uint32_t handle, const uint8_t *salt, size_t salt_len,
           uint8_t *out, char *err, size_t cap)
{
    struct kdf_pam_tpm t = {NULL, KDF_TPM_TIMEOUT_MS};

    (void)ctx;
    t.prog = child_prog(err, cap);
    if (t.prog == NULL)
        return KDF_NOKEY;
    return kdf_pam_tpm_secret(&t, tcti, handle, salt, salt_len, out, err, cap);
}

const struct kdf_tpm_access cli_tpm = {tpm_secret, NULL};

enum kdf_status
cli_tpm_new_key(const char *tcti, uint32_t *handle, char *err, size_t cap)
{
    struct kdf_pam_tpm t = {NULL, KDF_TPM_NEW_TIMEOUT_MS};

    *handle = 0;
    t.prog = child_prog(err, cap);
    if (t.prog == NULL)
        return KDF_UNSUPPORTED;
    return kdf_pam_tpm_new_key(&t, tcti, handle, err, cap);
}

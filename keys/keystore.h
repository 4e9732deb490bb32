/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * keystore.h - the keys (peppers) of keyed hashes, one file per key in a
 * directory readable by root and the shadow group only
 * (/etc/security/kdfhash.keys.d/ID), as the PAM module, the helper and
 * kdfhash(1) read and write them.  The core takes a key through
 * struct kdf_keyring and keeps none; this is where keys come from.
 *
 * A key file holds one line, "kdfhash-key-v1 HEX\n", HEX being 64 to 128
 * lowercase hex digits (32 to 64 bytes).  It is refused unless it is a
 * regular file (no symlink) owned by root (or, in a process that is not
 * root, by its own user), neither readable nor writable by others and not
 * writable by its group; the directory is held to the same rule, without
 * the read part.
 */
#ifndef KDF_KEYSTORE_H
#define KDF_KEYSTORE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "kdfhash.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes of a new key: 256 bits, NIST SP 800-63B's 112 and then some. */
#define KDF_KEY_NEW_LEN 32
/* The key directory of the build ($(sysconfdir)/security/kdfhash.keys.d,
 * /etc/security/kdfhash.keys.d in the packages).  Not a policy key: a
 * policy that does not load must not move the keys out of reach. */
#define KDF_KEYS_DIR KDF_SECCONFDIR "/kdfhash.keys.d"
#define KDF_KEYSTORE_ERR 256

/* How a program reaches the TPM that holds a key: fn(ctx, ...) computes
 * what kdf_tpm_secret() does.  kdf_tpm_here calls it in this process (the
 * command line, the benchmarks); the PAM module and the helper run it in a
 * child with a deadline and a clean environment instead (tpm_client.h), so
 * that a TPM that does not answer cannot hang a login and the TPM2
 * Software Stack never runs inside a PAM host or a setuid program. */
struct kdf_tpm_access {
    enum kdf_status (*fn)(void *ctx, const char *tcti, uint32_t handle, const uint8_t *salt,
                          size_t salt_len, uint8_t *out, char *err, size_t err_cap);
    void *ctx;
};
extern const struct kdf_tpm_access kdf_tpm_here; /* keystore_tpm.c */

/* A keyring over a directory: ring.get() reads DIR/ID on each call, and
 * asks tpm for a TPM key's secret (NULL: TPM keys are refused, saying
 * so).  After a KDF_NOKEY, failed_id and err say which key and why
 * ("DIR/ID: missing"), for the caller's log line; the core never logs. */
struct kdf_keystore {
    const char *dir;
    const struct kdf_tpm_access *tpm;
    struct kdf_keyring ring;
    char failed_id[KDF_KEYID_CAP];
    char err[KDF_KEYSTORE_ERR];
    /* 1: the first key that failed stays recorded (the PAM module: one
     * call, one log line, even when a timing dummy asks for another key
     * after the entry's own failed). */
    int keep_first;
};
void kdf_keystore_init(struct kdf_keystore *ks, const char *dir,
                       const struct kdf_tpm_access *tpm);

/* Read file key id of dir into key (KDF_KEY_MAX bytes): KDF_OK, or
 * KDF_NOKEY with err "DIR/ID: why" (a TPM key is not a file key).  The
 * buffer is wiped on failure. */
enum kdf_status kdf_keystore_read(const char *dir, const char *id, uint8_t *key,
                                  size_t *key_len, char *err, size_t err_cap);

/* The secret of the key rq names, for rq's salt: a file key's bytes, or a
 * TPM key's HMAC-SHA256 of "kdfhash-tpm-v1", a zero byte and the salt,
 * computed by the TPM (the key never leaves it) through tpm (NULL: a TPM
 * key is refused).  KDF_OK, or KDF_NOKEY with err "DIR/ID: why" (a TPM
 * that does not answer included: never a fallback to another key or to
 * none). */
enum kdf_status kdf_keystore_secret(const char *dir, const struct kdf_tpm_access *tpm,
                                    const struct kdf_key_request *rq, uint8_t *key,
                                    size_t *key_len, char *err, size_t err_cap);

/* 1 when DIR/ID is a TPM key ("kdfhash-tpm-v1 0xHANDLE TCTI"), with its
 * persistent handle and TCTI configuration; 0 otherwise. */
int kdf_keystore_tpm_of(const char *dir, const char *id, uint32_t *handle, char *tcti,
                        size_t cap, char *err, size_t err_cap);

/* ---- TPM keys (keystore_tpm.c, a library of its own: only the programs
 * that talk to a TPM themselves link the TPM2 Software Stack; without
 * --with-tpm every call says so) ---- */
#define KDF_TPM_SECRET_LEN 32
/* The kernel's resource manager, which every process may share. */
#define KDF_TPM_DEFAULT_TCTI "device:/dev/tpmrm0"
/* 1 when the build talks to TPMs (the TPM2 Software Stack). */
int kdf_tpm_built(void);
/* The HMAC-SHA256 the TPM computes with the key at persistent handle over
 * "kdfhash-tpm-v1\0" || salt, into out (KDF_TPM_SECRET_LEN bytes), through
 * the TCTI configuration tcti ("device:/dev/tpmrm0", "swtpm:port=2321").
 * Each TPM command has KDF_TPM_TIMEOUT_MS (Esys_SetTimeout); that does
 * not cover every TCTI's own start (swtpm's waits on its control channel
 * without one), which is why the module puts its own deadline around the
 * whole exchange. */
#define KDF_TPM_TIMEOUT_MS 5000
enum kdf_status kdf_tpm_secret(const char *tcti, uint32_t handle, const uint8_t *salt,
                               size_t salt_len, uint8_t *out, char *err, size_t err_cap);
/* Make an HMAC-SHA256 key inside the TPM (its bytes generated by the TPM,
 * fixedTPM: never exported), under the owner hierarchy's storage primary,
 * and make it persistent at the first free handle from 0x81006B00;
 * *handle gets it. */
enum kdf_status kdf_tpm_new_key(const char *tcti, uint32_t *handle, char *err,
                                size_t err_cap);
/* Write DIR/ID for a TPM key (the handle and the TCTI), as kdf_keystore_new
 * writes a file key: whole or not at all, mode 0640, group gid. */
enum kdf_status kdf_keystore_new_tpm(const char *dir, gid_t gid, uint32_t handle,
                                     const char *tcti, char id[KDF_KEYID_CAP], char *err,
                                     size_t err_cap);

/* Make a new key of KDF_KEY_NEW_LEN bytes from getrandom(2) under a fresh
 * random keyid, written whole or not at all (a temporary file, fsync, a
 * link that never replaces, fsync of the directory), mode 0640, group gid
 * (the shadow group, so the helper can read it; (gid_t)-1 leaves the
 * process's).  dir is made (0750, same group) when missing. */
enum kdf_status kdf_keystore_new(const char *dir, gid_t gid, char id[KDF_KEYID_CAP],
                                 char *err, size_t err_cap);

/* Each usable key of dir, in name order: cb(ctx, id, kind, bits, mtime),
 * kind "file" or "tpm 0xHANDLE TCTI".  Files that are not keys (retired
 * ones, strays) are skipped.  Returns the number of keys, or -1 with err
 * set. */
int kdf_keystore_list(const char *dir,
                      void (*cb)(void *ctx, const char *id, const char *kind, unsigned bits,
                                 long long mtime),
                      void *ctx, char *err, size_t err_cap);

/* Rename DIR/ID to DIR/ID.retired, where nothing reads it as a key; the
 * caller has checked that no entry still names it. */
enum kdf_status kdf_keystore_retire(const char *dir, const char *id, char *err,
                                    size_t err_cap);

/* Can key id of dir be used, and as what?  A file key is read, a TPM key
 * asked for a secret through tpm (NULL: only its file is read), as a
 * login would: anything but KDF_KEY_FILE and KDF_KEY_TPM leaves err
 * "DIR/ID: why" (the words kdf_keystore_secret() logs). */
enum kdf_key_state {
    KDF_KEY_FILE,       /* a usable key file */
    KDF_KEY_TPM,        /* a TPM key whose TPM answered (or was not asked) */
    KDF_KEY_MISSING,    /* no such file, or no key directory */
    KDF_KEY_UNREADABLE, /* the file or the directory cannot be read (EACCES) */
    KDF_KEY_REFUSED     /* unsafe owner or mode, not a key file, a TPM that does not answer */
};
enum kdf_key_state kdf_keystore_state(const char *dir, const char *id,
                                      const struct kdf_tpm_access *tpm, char *err,
                                      size_t err_cap);
/* "file", "tpm", "missing", "unreadable", "refused". */
const char *kdf_key_state_name(enum kdf_key_state st);

/* The gid of the "shadow" group, (gid_t)-1 when there is none. */
gid_t kdf_keystore_shadow_gid(void);

#ifdef __cplusplus
}
#endif

#endif /* KDF_KEYSTORE_H */

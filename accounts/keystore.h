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

/* A keyring over a directory: ring.get() reads DIR/ID on each call.  After
 * a KDF_NOKEY, failed_id and err say which key and why ("DIR/ID: missing"),
 * for the caller's log line; the core never logs. */
struct kdf_keystore {
    const char *dir;
    struct kdf_keyring ring;
    char failed_id[KDF_KEYID_CAP];
    char err[KDF_KEYSTORE_ERR];
};
void kdf_keystore_init(struct kdf_keystore *ks, const char *dir);

/* Read key id of dir into key (KDF_KEY_MAX bytes): KDF_OK, or KDF_NOKEY
 * with err "DIR/ID: why".  The buffer is wiped on failure. */
enum kdf_status kdf_keystore_read(const char *dir, const char *id, uint8_t *key,
                                  size_t *key_len, char *err, size_t err_cap);

/* Make a new key of KDF_KEY_NEW_LEN bytes from getrandom(2) under a fresh
 * random keyid, written whole or not at all (a temporary file, fsync, a
 * link that never replaces, fsync of the directory), mode 0640, group gid
 * (the shadow group, so the helper can read it; (gid_t)-1 leaves the
 * process's).  dir is made (0750, same group) when missing. */
enum kdf_status kdf_keystore_new(const char *dir, gid_t gid, char id[KDF_KEYID_CAP],
                                 char *err, size_t err_cap);

/* Each usable key of dir, in name order: cb(ctx, id, bits, mtime).  Files
 * that are not keys (retired ones, strays) are skipped.  Returns the
 * number of keys, or -1 with err set. */
int kdf_keystore_list(const char *dir,
                      void (*cb)(void *ctx, const char *id, unsigned bits, long long mtime),
                      void *ctx, char *err, size_t err_cap);

/* Rename DIR/ID to DIR/ID.retired, where nothing reads it as a key; the
 * caller has checked that no entry still names it. */
enum kdf_status kdf_keystore_retire(const char *dir, const char *id, char *err,
                                    size_t err_cap);

/* The gid of the "shadow" group, (gid_t)-1 when there is none. */
gid_t kdf_keystore_shadow_gid(void);

#ifdef __cplusplus
}
#endif

#endif /* KDF_KEYSTORE_H */

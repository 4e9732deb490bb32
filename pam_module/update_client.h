/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * update_client.h - the module's writes of the shadow file and of the
 * password history, made either by the writer itself (write.h) or by the
 * helper kdfhash-update (update.c), which runs in a domain that SELinux
 * lets write them (doc/DESIGN.md "Writing through kdfhash-update").
 *
 * The protocol between the module and kdfhash-update, modelled on pam_unix's
 * unix_update:
 *   argv   {prog} alone: nothing of the request shows in /proc/PID/cmdline
 *   stdin  the request, "key=value\n" lines, at most KDF_UPDATE_MAX_REQ
 *          bytes, then EOF:
 *            op=upgrade|change|history  kdf_write_hash(), kdf_write_entry(),
 *                                       kdf_write_opasswd()
 *            shadow=PATH     the shadow-style file (history: whose lock)
 *            user=NAME
 *            old=FIELD       the field compared and swapped (history: the
 *                            hash added to the history)
 *            new=HASH        upgrade, change: the hash written
 *            lastchg=DAYS    change: field 3, or -1
 *            opasswd=PATH    history: the history file
 *            uid=N, keep=N   history: the line's uid, how many are kept
 *            wait=MS         the bound on the wait for the lock
 *          each key at most once, the ones of its op and no other
 *   exit   the enum kdf_write_status of the write, or of the refusal
 *          (KDF_WRITE_REFUSED: not root, a malformed or hostile request)
 *   stdout one line, the writer's reason (never a hash), or the refusal's
 */
#ifndef KDF_PAM_UPDATE_CLIENT_H
#define KDF_PAM_UPDATE_CLIENT_H

#include <stddef.h>

#include "options.h"
#include "write.h"

/* Two paths of PATH_MAX, two fields of KDF_SHADOW_MAX_HASH and the rest fit
 * in this; it also fits a pipe of four pages, which the client asks for. */
#define KDF_UPDATE_MAX_REQ 12288
/* The longest wait for the lock a request may ask for. */
#define KDF_UPDATE_MAX_WAIT_MS 10000
/* What the helper may take beyond its wait for the lock: reading, writing
 * and syncing a shadow file takes milliseconds; a helper still running
 * after this is killed and the write reported failed. */
#define KDF_UPDATE_TIMEOUT_MS 5000

enum kdf_update_op { KDF_UPDATE_UPGRADE = 1, KDF_UPDATE_CHANGE, KDF_UPDATE_HISTORY };

struct kdf_update_req {
    enum kdf_update_op op;
    const char *shadow;
    const char *opasswd; /* history only */
    const char *user;
    const char *old_hash;
    const char *new_hash; /* upgrade and change only */
    long lastchg;         /* change only: days since the epoch, or -1 */
    unsigned long uid;    /* history only */
    unsigned keep;        /* history only */
    unsigned wait_ms;
};

/* The request's text into out[cap]: its length, or 0 when a field cannot be
 * sent (a line break in it, a missing field) or it does not fit. */
size_t kdf_update_encode(const struct kdf_update_req *rq, char *out, size_t cap);

/* Parse buf[0..len) in place (its '\n' become NULs; rq points into it):
 * 0, or -1 with a short static reason in *why.  Checks the frame only: the
 * keys and numbers, each key once, those of the op and no other, no NUL;
 * the helper checks the values. */
int kdf_update_parse(char *buf, size_t len, struct kdf_update_req *rq, const char **why);

/* Run prog with the protocol above as root in every id (KDF_SPAWN_ROOT_IDS)
 * and wait for it (at most rq->wait_ms + KDF_UPDATE_TIMEOUT_MS): the
 * helper's status with its reason in err, or KDF_WRITE_HOOK_FAILED when it
 * could not be run, was killed or ended otherwise (*wstatus: the wait
 * status).  A helper killed after its rename leaves the write done. */
enum kdf_write_status kdf_update_run(const char *prog, const struct kdf_update_req *rq,
                                     int *wstatus, char *err, size_t err_cap);

/* The module's three writes (kdf_write_hash(), kdf_write_entry(),
 * kdf_write_opasswd() on o's files): through o->update_prog with
 * write_helper=always, or auto with SELinux enabled and o's files the
 * system's (the ones the policy module labels and the installed helper
 * writes); else by the writer itself. */
enum kdf_write_status kdf_pam_store_hash(const struct kdf_pam_options *o, const char *user,
                                         const char *old_hash, const char *new_hash,
                                         unsigned lock_wait_ms, char *err, size_t err_cap);
enum kdf_write_status kdf_pam_store_entry(const struct kdf_pam_options *o, const char *user,
                                          const char *old_hash, const char *new_hash,
                                          long lastchg, unsigned lock_wait_ms, char *err,
                                          size_t err_cap);
enum kdf_write_status kdf_pam_store_history(const struct kdf_pam_options *o,
                                            const char *user, unsigned long uid,
                                            const char *old_hash, unsigned keep,
                                            unsigned lock_wait_ms, char *err, size_t err_cap);

#endif /* KDF_PAM_UPDATE_CLIENT_H */

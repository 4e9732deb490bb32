/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cache.h - the offline cache of directory users' passwords (cache.c):
 * pam_kdfhash.so cache=store|validate|update|forget, on pam_ccreds'
 * store/validate/update pattern (pam_kdfhash(8), OFFLINE CACHE).
 */
#ifndef KDF_PAM_CACHE_H
#define KDF_PAM_CACHE_H

#include <stddef.h>

#include <security/pam_modules.h>

#include "kdfhash.h"
#include "options.h"

/* The bounded wait for the cache's lock (cache_file + ".lock"). */
#define KDF_PAM_CACHE_LOCK_WAIT_MS 200

/* Today as shadow(5) counts: days since the epoch, UTC. */
long kdf_pam_cache_today(void);

/*
 * Run opt->cache for user with the password pw (PAM_AUTHTOK; for store,
 * update and forget the one the directory module judged):
 *   store     a verifier at pol's target (unkeyed for admins) of pw, the
 *             line "user:hash:day" of today; an entry that verifies and
 *             is at the target only gets today's day (no rewrite when it
 *             has it).  PAM_SUCCESS, or PAM_IGNORE when nothing could be
 *             stored (logged): the login was decided before.
 *   validate  pw against user's entry: caps, dummy cost for an absent or
 *             refused entry, refused when older than offline.max-age.
 *   update    drop user's entry when pw verifies against it (the
 *             directory refuses a password the cache would accept);
 *   forget    drop user's entry.  Both answer PAM_AUTH_ERR: they run after
 *             an online refusal and never grant.
 * degraded: the policy did not load; store then writes nothing.
 */
int kdf_pam_cache_run(pam_handle_t *pamh, const struct kdf_pam_options *opt,
                      const struct kdf_policy *pol, int degraded, const char *user,
                      const char *pw, size_t pw_len);

#endif /* KDF_PAM_CACHE_H */

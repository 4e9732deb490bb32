/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * kdfhash_ds.h - the 389 Directory Server password storage schemes.
 *
 * One struct per scheme name the plugin registers.  Each is written once,
 * by its init function while the server starts (before any worker thread
 * exists), and only read afterwards: the plugin has no mutable state shared
 * between the server's worker threads.
 */
#ifndef KDFHASH_DS_H
#define KDFHASH_DS_H

#include "kdfhash.h"

#include <stdatomic.h>

/* The name of the plugin in the server's error log. */
#define KDS_LOG "kdfhash-pwdstorage"

struct kds_scheme {
    const char *name;       /* the {NAME} of the stored values: "ARGON2" */
    const char *base;       /* the target text of its own hashes: "argon2id" */
    uint32_t family;        /* the core schemes it reads: 1u << enum kdf_scheme */
    /* Reads OpenLDAP pw-pbkdf2's body "<iter>$<ab64 salt>$<ab64 dk>": passlib's
     * string without its "$pbkdf2-sha512$" head, which the digest's length
     * tells (20, 32 or 64 bytes). */
    int openldap_body;
    struct kdf_policy pol;  /* the policy file and the plugin's arguments */
    struct kdf_target enc;  /* what a new value of this name is made at */
    /* pol with enc as its target: what "outdated" means for this name's
     * values (below enc's costs or the minimums, another member of the
     * family, a flawed version), whatever the policy's own target. */
    struct kdf_policy fam;
    /* The one field written after startup: set once, atomically, when a
     * value below the policy's minimum has been said in the error log. */
    atomic_flag said_outdated;
};

/* ds_config.c: fill s->pol and s->enc from the plugin's arguments
 * (argv[0]: the policy file, "" for the default one; then key=value
 * settings).  0, or -1 after logging why. */
int kds_configure(struct kds_scheme *s, int argc, char **argv);

/* ds_schemes.c: the storage scheme functions, as 389-ds calls them. */
char *kds_encode(const struct kds_scheme *s, const char *pw);
int kds_compare(struct kds_scheme *s, const char *pw, const char *stored);

#endif /* KDFHASH_DS_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * kdfhash_ds.h - the 389 Directory Server password storage schemes.
 *
 * One struct per scheme name the plugin registers.  Its configuration is
 * written by its init function, which the server calls while it starts and
 * again when nsslapd-dynamic-plugins is on and the plugin entry is
 * modified (plugin_restart() in 389-ds-base's ldap/servers/slapd/plugin.c
 * deletes the plugin and adds it again).  That second call runs while
 * worker threads are inside compare and encode: 389-ds calls a storage
 * scheme's functions through pointers it copied, without its plugin lock.
 * So the configuration is one struct kds_conf under a read-write lock:
 * workers copy it under the read lock and work on the copy; the init
 * function builds a new one off to the side and replaces the old one
 * under the write lock, or keeps the old one when the new one is refused.
 */
#ifndef KDFHASH_DS_H
#define KDFHASH_DS_H

#include "kdfhash.h"

#include <pthread.h>
#include <stdatomic.h>

/* The name of the plugin in the server's error log. */
#define KDS_LOG "kdfhash-pwdstorage"

/* The directory's policy file, which the shipped LDIF names:
 * $(sysconfdir)/dirsrv/kdfhash.conf of the build (the Makefile defines it;
 * /etc/dirsrv/kdfhash.conf in the packages). */
#ifndef KDS_DEFAULT_CONF
#define KDS_DEFAULT_CONF "/etc/dirsrv/kdfhash.conf"
#endif

/* What a scheme name's values are made and judged at: a value, copied
 * whole, so that a reconfiguration never shows a worker half of one. */
struct kds_conf {
    struct kdf_policy pol;  /* the policy file and the plugin's arguments */
    struct kdf_target enc;  /* what a new value of this name is made at */
    /* pol with enc as its target: what "outdated" means for this name's
     * values (below enc's costs or the minimums, another member of the
     * family, a flawed version), whatever the policy's own target. */
    struct kdf_policy fam;
};

struct kds_scheme {
    /* The {NAME} of the stored values: "ARGON2".  Which strings such a value
     * may hold, and what a new one is made with when the policy's target is
     * of another family, is the core's scheme table's (the rows whose
     * ds_family is the name; kdfhash.h). */
    const char *name;
    /* Reads OpenLDAP pw-pbkdf2's body "<iter>$<ab64 salt>$<ab64 dk>": passlib's
     * string without its "$pbkdf2-sha512$" head, which the digest's length
     * tells (20, 32 or 64 bytes). */
    int openldap_body;
    pthread_rwlock_t lock;  /* guards conf */
    struct kds_conf conf;   /* read through kds_conf_get() */
    /* Set once, atomically, when an outdated value that cannot be
     * re-encoded at bind (the upgrade entry is not loaded) has been said in
     * the error log; cleared by a reconfiguration, whose minimums may be
     * others. */
    atomic_flag said_outdated;
};

/* ds_config.c: a new s->conf from the plugin's arguments (argv[0]: the
 * policy file, "" for the default one; then key=value settings), put in
 * place only when all of it is accepted.  Nothing of argv is kept: the
 * server frees it when the plugin is deleted or restarted.  0, or -1 after
 * logging why (the previous configuration, if any, stays in force). */
int kds_configure(struct kds_scheme *s, int argc, char **argv);
/* ds_config.c: a copy of s->conf as it is now. */
void kds_conf_get(struct kds_scheme *s, struct kds_conf *out);
/* Is ds_family (kdf_hash_ds_family(), kdf_target_ds_family(); may be
 * NULL) the family of s's values? */
int kds_in_family(const struct kds_scheme *s, const char *ds_family);

/* ds_schemes.c: the storage scheme functions, as 389-ds calls them. */
char *kds_encode(struct kds_scheme *s, const char *pw);
int kds_compare(struct kds_scheme *s, const char *pw, const char *stored);

/* ds_pending.c: the bind in progress on this worker thread.  The upgrade's
 * pre-bind callback opens it (kds_bind_begin); a compare that matched a
 * value outdated within its family notes that value (the stored string
 * without "{NAME}", and why) while it is open: 0, or -1 when no bind is
 * open; the post-bind callback takes what was noted and closes it
 * (kds_bind_end: the scheme, or NULL when nothing was noted).  The record
 * is wiped either way. */
void kds_bind_begin(void);
int kds_bind_note(struct kds_scheme *s, const char *stored, size_t len, enum kdf_rehash why);
struct kds_scheme *kds_bind_end(char *stored, size_t cap, enum kdf_rehash *why);
/* Whether the upgrade entry's init function ran in this server. */
void kds_upgrade_set_loaded(void);
int kds_upgrade_loaded(void);
/* Is name in list (nsslapd-scheme-list-no-upgrade-hash: names separated by
 * commas or spaces, without case)?  list may be NULL. */
int kds_name_listed(const char *list, const char *name);

#endif /* KDFHASH_DS_H */

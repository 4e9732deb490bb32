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
    /* KDF-WRAPPED: holds only wrapped values ("$kdfw$", kdf_wrap()) that
     * kdfhash-ds-wrap(8) wrote for accounts that do not bind; it verifies
     * them and never makes a value, so that 389-ds's own re-encode at bind
     * (the name is never passwordStorageScheme) writes a direct one. */
    int wrapped;
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
/* Is h, a parsed stored value, one that s's values may be? */
int kds_holds(const struct kds_scheme *s, const struct kdf_hash *h);

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
/* ds_pending.c: a bind whose DN must keep its value's scheme (ds_scope.c):
 * while it is open, kds_encode refuses (returns NULL), so that 389-ds's
 * own re-encode at bind (update_pw_encoding() in pw.c) keeps the old value
 * too.  kds_bind_begin and kds_bind_end clear it; so does kds_bind_close,
 * which the upgrade entry calls when another operation starts on the
 * thread (a bind that ended without its post-bind callback). */
void kds_bind_keep_scheme(void);
int kds_bind_keeps_scheme(void);
void kds_bind_close(void);

/* ds_scope.c: whether a bind may re-encode its entry's value. */
enum kds_scope {
    KDS_SCOPE_IN = 0,           /* yes */
    KDS_SCOPE_NOT_USER_BACKEND, /* cn=config, another private backend, no entry */
    KDS_SCOPE_REPLICATION,      /* a DN replication binds as */
    KDS_SCOPE_KEEP_DN,          /* listed by the administrator (keep-dn=) */
};
/* ndn: the bind DN, normalised; user_backend: its backend is a non-private
 * one of this server; repl and keep: normalised DNs, one per line (NULL
 * for none). */
enum kds_scope kds_scope_decide(const char *ndn, int user_backend, const char *repl,
                                const char *keep);
const char *kds_scope_reason(enum kds_scope sc);
int kds_dn_in_list(const char *list, const char *ndn);
/* The error log's memory of the DNs it named: once per DN and hour (a DN
 * that shares a slot with another may be named again sooner). */
#define KDS_SCOPE_SLOTS 64
#define KDS_SCOPE_REPEAT_S 3600
struct kds_scope_slot {
    char ndn[256];
    long said;
};
struct kds_scope_log {
    pthread_mutex_t lock;
    struct kds_scope_slot slot[KDS_SCOPE_SLOTS];
};
/* 1 when ndn is to be named now (now: seconds, any monotonic clock). */
int kds_scope_should_say(struct kds_scope_log *log, const char *ndn, long now);

/* ds_wrap.c: is new ("{KDF-WRAPPED}...") a wrap of the stored value old
 * ("{SSHA512}...": its own setting, so the same password)?  And is a
 * modify's list exactly "delete userPassword: old, add userPassword: new"
 * with such a pair?  1 or 0. */
int kds_wrap_replaces(const char *old, size_t old_len, const char *new, size_t new_len);
struct ldapmod; /* LDAPMod, of <ldap.h> */
int kds_wrap_modify(struct ldapmod **mods);

/* ds_stats.c: counters since the server started, shown on a base search
 * of the upgrade entry (ds_upgrade.c); names in ds_stats.c. */
enum kds_stat {
    KDS_ST_COMPARES,       /* compares of a stored value of ours */
    KDS_ST_MATCHES,        /* ... that matched */
    KDS_ST_MISMATCHES,     /* ... that did not (a wrong password) */
    KDS_ST_REFUSED,        /* values refused unverified: malformed, another family */
    KDS_ST_OVER_CAPS,      /* values refused: over the caps */
    KDS_ST_BUSY,           /* binds refused: the memory budget stayed full */
    KDS_ST_STORM_REFUSED,  /* binds refused at once by the storm gate */
    KDS_ST_STORM_WAITS,    /* binds that waited for the storm gate */
    KDS_ST_UPGRADES,       /* values re-encoded after a bind */
    KDS_ST_UPGRADES_LOST,  /* ... not: the value changed meanwhile */
    KDS_ST_UPGRADE_ERRORS, /* ... not: another error */
    KDS_ST_WRAP_MODIFIES,  /* modifies that replaced a value by its wrap */
    KDS_ST_COUNT
};
void kds_stat_add(enum kds_stat s);
uint64_t kds_stat_get(enum kds_stat s);
const char *kds_stat_attr(enum kds_stat s);
/* The core's work-area figures (kdf_workpool_stats()) as attribute and
 * value pairs; returns KDS_STAT_POOL_N. */
struct kds_stat_pair {
    const char *attr;
    uint64_t value;
};
#define KDS_STAT_POOL_N 6
size_t kds_stat_pool(struct kds_stat_pair out[KDS_STAT_POOL_N]);

/* Whether the upgrade entry's init function ran in this server. */
void kds_upgrade_set_loaded(void);
int kds_upgrade_loaded(void);
/* Is name in list (nsslapd-scheme-list-no-upgrade-hash: names separated by
 * commas or spaces, without case)?  list may be NULL. */
int kds_name_listed(const char *list, const char *name);

/* ds_fair.c: fair service under a storm of wrong passwords.  compare
 * gets no DN, but a stored value names its account (its salt), so the
 * gate keys on a keyed hash of the value (never the value itself).  A
 * value that failed within storm.window is "suspect": at most one of its
 * verifications runs at once, and all suspect verifications together take
 * at most storm.share CPUs, waiting at most storm.wait, storm.waiters of
 * them at a time; beyond that a bind is refused at once, unverified.
 * Other values never wait here, so a storm cannot take more than that
 * share of the machine from everyone else.  The gate is the process's:
 * the last scheme configured sets it, as for workareas. */
struct kds_fair_conf {
    unsigned share;     /* suspect verifications at once; 0: no gate */
    unsigned waiters;   /* suspect binds waiting at once */
    unsigned wait_ms;   /* the longest wait of one */
    unsigned window_s;  /* how long a failure keeps a value suspect */
};
/* The defaults: share half the online CPUs (at least 1). */
void kds_fair_defaults(struct kds_fair_conf *fc);
/* One storm.* plugin argument into fc: 0 taken, -1 a bad value (err
 * says why), 1 not a storm.* key. */
int kds_fair_arg(struct kds_fair_conf *fc, const char *key, const char *val, char *err,
                 size_t cap);
void kds_fair_configure(const struct kds_fair_conf *fc);
struct kds_fair_ticket {
    uint64_t tag;
    int suspect;  /* the value failed recently: refuse it cheaply */
    int gated;    /* holds a place of the share: kds_fair_leave gives it back */
    unsigned slot;
};
/* Before the work of a compare: 0 go on, 1 refused at once (say no). */
int kds_fair_enter(const char *stored, size_t len, struct kds_fair_ticket *t);
enum kds_fair_outcome { KDS_FAIR_MATCH, KDS_FAIR_FAIL, KDS_FAIR_NEITHER };
/* After it, whatever enter said go to: a match forgets the value's
 * failures, a failure (a wrong password or a refused value) notes one. */
void kds_fair_leave(const struct kds_fair_ticket *t, enum kds_fair_outcome o);
/* For the tests: an empty table of 2^log2 buckets (0 makes every value
 * share one bucket); the keyed hash of the tags, SipHash-2-4. */
void kds_fair_reset(unsigned buckets_log2);
uint64_t kds_fair_siphash(const uint8_t key[16], const void *in, size_t len);

#endif /* KDFHASH_DS_H */

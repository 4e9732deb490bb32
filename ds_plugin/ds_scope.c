/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ds_scope.c - which binds may re-encode the value they matched.
 *
 * A password that another server or service binds with must keep the
 * scheme every server it binds to can read.  The replication manager
 * (cn=replication manager,cn=config) binds from the other suppliers; were
 * its value re-encoded to {ARGON2}, a rollback that deletes the plugin's
 * entries leaves a value the supplier compares as clear text, and the
 * other suppliers' replication binds fail with err=49 (389-ds-kdfhash(8),
 * ROLLBACK).  So a bind re-encodes only an entry of a user backend (a
 * non-private backend: never cn=config, never cn=schema or another private
 * one), and never one of the DNs replication binds as (the cn=replica
 * entries' nsDS5ReplicaBindDN and the members of their
 * nsds5ReplicaBindDNGroup, the local agreements' nsDS5ReplicaBindDN), nor
 * one the administrator lists (keep-dn=, an argument of the upgrade
 * entry).  The server side (ds_upgrade.c) gathers those facts; this file
 * decides, without the server, so that the decision is unit-tested.
 */
#include "config.h"

#include "kdfhash_ds.h"

#include <string.h>

/* Is ndn one of the lines of list (normalised DNs, one per line)? */
int
kds_dn_in_list(const char *list, const char *ndn)
{
    size_t n = ndn != NULL ? strlen(ndn) : 0;

    while (n > 0 && list != NULL && *list != '\0') {
        size_t len = strcspn(list, "\n");

        if (len == n && memcmp(list, ndn, n) == 0)
            return 1;
        list += len;
        list += *list == '\n';
    }
    return 0;
}

enum kds_scope
kds_scope_decide(const char *ndn, int user_backend, const char *repl, const char *keep)
{
    if (ndn == NULL || *ndn == '\0' || !user_backend)
        return KDS_SCOPE_NOT_USER_BACKEND;
    if (kds_dn_in_list(repl, ndn))
        return KDS_SCOPE_REPLICATION;
    if (kds_dn_in_list(keep, ndn))
        return KDS_SCOPE_KEEP_DN;
    return KDS_SCOPE_IN;
}

const char *
kds_scope_reason(enum kds_scope sc)
{
    switch (sc) {
    case KDS_SCOPE_IN:
        return "re-encoded at bind";
    case KDS_SCOPE_NOT_USER_BACKEND:
        return "not in a user backend (cn=config or another private backend)";
    case KDS_SCOPE_REPLICATION:
        return "a DN replication binds as";
    case KDS_SCOPE_KEEP_DN:
        return "listed in keep-dn";
    }
    return "?";
}

/* FNV-1a: which slot of the log's memory a DN takes. */
static size_t
slot_of(const char *ndn)
{
    unsigned long h = 2166136261UL;

    for (; *ndn != '\0'; ndn++)
        h = (h ^ (unsigned char)*ndn) * 16777619UL;
    return (size_t)(h % KDS_SCOPE_SLOTS);
}

int
kds_scope_should_say(struct kds_scope_log *log, const char *ndn, long now)
{
    struct kds_scope_slot *sl;
    size_t n = strlen(ndn);
    int say;

    if (n >= sizeof sl->ndn)
        n = sizeof sl->ndn - 1;
    pthread_mutex_lock(&log->lock);
    sl = &log->slot[slot_of(ndn)];
    /* Once per DN and hour: a replication manager binds at every session,
     * and one line a bind would flood the log. */
    say = sl->ndn[0] == '\0' || strncmp(sl->ndn, ndn, n) != 0 || sl->ndn[n] != '\0' ||
          now - sl->said >= KDS_SCOPE_REPEAT_S || now < sl->said;
    if (say) {
        memcpy(sl->ndn, ndn, n);
        sl->ndn[n] = '\0';
        sl->said = now;
    }
    pthread_mutex_unlock(&log->lock);
    return say;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ds_pending.c - what a compare leaves for the bind it ran in.
 *
 * 389-ds calls a storage scheme's compare with the password and the stored
 * value only: no pblock, no DN, no operation.  The upgrade at bind
 * (ds_upgrade.c) needs to know, after the bind, which of the entry's values
 * the password matched and that it was outdated.  A bind runs on one worker
 * thread from its pre-bind plugins to its post-bind plugins (do_bind() in
 * 389-ds-base's ldap/servers/slapd/bind.c), so the two meet in a
 * thread-local record: the pre-bind callback opens it, a matching compare
 * inside that window notes its value, the post-bind callback takes it and
 * closes the window.  A compare outside a window (an LDAP compare, a
 * password-history check of a modify) notes nothing, so no other
 * operation's match can reach a bind.
 */
#include "config.h"

#include "kdfhash_ds.h"

#include <string.h>
#include <strings.h>

struct pending {
    int open;               /* between this thread's pre- and post-bind */
    int keep_scheme;        /* this bind's DN keeps its scheme (ds_scope.c) */
    struct kds_scheme *s;   /* NULL: nothing noted in this bind */
    enum kdf_rehash why;
    size_t len;
    char stored[KDF_MAX_HASH_STR + 1]; /* the value without "{NAME}" */
};

static _Thread_local struct pending t_pending;
static atomic_int g_upgrade_loaded;

void
kds_upgrade_set_loaded(void)
{
    atomic_store(&g_upgrade_loaded, 1);
}

int
kds_upgrade_loaded(void)
{
    return atomic_load(&g_upgrade_loaded);
}

static void
forget(struct pending *p)
{
    if (p->s != NULL || p->len != 0)
        kdf_wipe(p->stored, sizeof p->stored);
    p->s = NULL;
    p->len = 0;
    p->why = KDF_REHASH_NO;
}

void
kds_bind_begin(void)
{
    forget(&t_pending);
    t_pending.keep_scheme = 0;
    t_pending.open = 1;
}

void
kds_bind_keep_scheme(void)
{
    if (t_pending.open)
        t_pending.keep_scheme = 1;
}

int
kds_bind_keeps_scheme(void)
{
    return t_pending.open && t_pending.keep_scheme;
}

void
kds_bind_close(void)
{
    forget(&t_pending);
    t_pending.keep_scheme = 0;
    t_pending.open = 0;
}

int
kds_bind_note(struct kds_scheme *s, const char *stored, size_t len, enum kdf_rehash why)
{
    struct pending *p = &t_pending;

    if (!p->open || len > KDF_MAX_HASH_STR)
        return -1;
    /* An entry with several matching values is odd; the first match is the
     * one 389-ds stopped at (slapi_pw_find_sv returns on the first). */
    if (p->s != NULL)
        return 0;
    memcpy(p->stored, stored, len);
    p->stored[len] = '\0';
    p->len = len;
    p->why = why;
    p->s = s;
    return 0;
}

struct kds_scheme *
kds_bind_end(char *stored, size_t cap, enum kdf_rehash *why)
{
    struct pending *p = &t_pending;
    struct kds_scheme *s = p->s;

    if (s != NULL && p->len < cap) {
        memcpy(stored, p->stored, p->len + 1);
        if (why != NULL)
            *why = p->why;
    } else
        s = NULL;
    kds_bind_close();
    return s;
}

/* nsslapd-scheme-list-no-upgrade-hash: names separated by commas (and
 * spaces), compared without case as 389-ds compares scheme names. */
int
kds_name_listed(const char *list, const char *name)
{
    size_t n = strlen(name);

    while (list != NULL && *list != '\0') {
        size_t len;

        list += strspn(list, ", \t");
        len = strcspn(list, ", \t");
        if (len == n && n > 0 && strncasecmp(list, name, n) == 0)
            return 1;
        list += len;
    }
    return 0;
}

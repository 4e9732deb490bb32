/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * xcrypt_only.c - who is on one of the policy's account lists (xcrypt-only,
 * admins), and the scheme the xcrypt-only entries stay on.
 *
 * util-linux's sulogin, rescue media and unix_chkpwd verify a shadow entry
 * with crypt(3) alone: once root's entry is Argon2, the emergency shell
 * answers "Login incorrect".  The core keeps the list (user names, @group
 * names) and knows no accounts; the groups are asked of the account
 * database here, with the reentrant calls, since the module may run in a
 * threaded host.  Membership is asked only after a successful verification
 * or in a password change, so its cost tells nothing about passwords.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "options.h"
#include "policy_load.h"
#include "xcrypt_only.h"

/* Buffers of the reentrant lookups grow on ERANGE up to this; a group of
 * many members needs a large one.  NGROUPS_MAX (65536) bounds the groups
 * of one user. */
#define XO_BUF_MAX (1024u * 1024)
#define XO_GROUPS_MAX 65536

/* Walk the normalised list: entry i at *pos, its length in *len; 0 at the
 * end. */
static int
next_entry(const char *l, size_t *pos, const char **e, size_t *len)
{
    size_t p = *pos, q;

    if (l[p] == '\0')
        return 0;
    for (q = p; l[q] != '\0' && l[q] != ','; q++)
        ;
    *e = l + p;
    *len = q - p;
    *pos = l[q] == ',' ? q + 1 : q;
    return 1;
}

/* A group or a passwd entry looked up by name (or a passwd entry by uid). */
struct name_lookup {
    const char *name; /* NULL: getpwuid_r() of uid */
    uid_t uid;
    int group; /* 1: getgrnam_r(), 0: getpwnam_r() */
    struct group gr, *gres;
    struct passwd pw, *pres;
};

/*
 * The lookup, its buffer grown on ERANGE up to XO_BUF_MAX.  Returns the
 * reentrant call's result (ENOMEM when the buffer cannot grow); *bufp is
 * the buffer the found entry points into, for the caller to free (NULL on
 * ENOMEM).
 */
static int
lookup_grown(struct name_lookup *l, char **bufp)
{
    size_t cap = 1024;
    char *buf = NULL;
    int rc;

    for (;;) {
        char *nb = realloc(buf, cap);
        if (nb == NULL) {
            free(buf);
            *bufp = NULL;
            return ENOMEM;
        }
        buf = nb;
        rc = l->group          ? getgrnam_r(l->name, &l->gr, buf, cap, &l->gres)
             : l->name != NULL ? getpwnam_r(l->name, &l->pw, buf, cap, &l->pres)
                               : getpwuid_r(l->uid, &l->pw, buf, cap, &l->pres);
        if (rc != ERANGE || cap >= XO_BUF_MAX)
            break;
        cap *= 2;
    }
    *bufp = buf;
    return rc;
}

/* The gid of group name[0..len), 0 found, 1 no such group, -1 error.
 * absent_ok: ENOENT, which glibc answers for a name no NSS service has
 * when one of them is down (sss in nsswitch.conf without a running sssd),
 * counts as no such group. */
static int
group_gid(const char *name, size_t len, gid_t *gid, int absent_ok)
{
    char gname[KDF_XCRYPT_ONLY_NAME_MAX + 1];
    struct name_lookup l = {.name = gname, .group = 1};
    char *buf;
    int rc;

    if (len >= sizeof gname)
        return 1; /* the policy never holds one: kdf_policy_set() */
    memcpy(gname, name, len);
    gname[len] = '\0';
    rc = lookup_grown(&l, &buf);
    if (rc == 0 && l.gres != NULL)
        *gid = l.gres->gr_gid;
    free(buf);
    if (rc == ENOENT && absent_ok)
        return 1;
    if (rc != 0)
        return -1;
    return l.gres != NULL ? 0 : 1;
}

/* The groups of user (malloc'd into *out, *n of them): 0, 1 when user has
 * no passwd entry, -1 on error (absent_ok: as group_gid()). */
static int
user_groups(const char *user, gid_t **out, int *n, int absent_ok)
{
    struct name_lookup l = {.name = user, .group = 0};
    char *buf;
    gid_t *g = NULL;
    gid_t primary;
    int rc, ng = 64;

    rc = lookup_grown(&l, &buf);
    if (rc != 0 || l.pres == NULL) {
        free(buf);
        return rc != 0 && !(rc == ENOENT && absent_ok) ? -1 : 1;
    }
    primary = l.pres->pw_gid;
    free(buf);
    for (int tries = 0; tries < 4; tries++) {
        gid_t *ngp = realloc(g, (size_t)ng * sizeof *g);
        int want = ng;
        if (ngp == NULL)
            break;
        g = ngp;
        if (getgrouplist(user, primary, g, &want) >= 0) {
            *out = g;
            *n = want;
            return 0;
        }
        /* Too small: want is the count needed (glibc). */
        if (want <= ng || want > XO_GROUPS_MAX)
            break;
        ng = want;
    }
    free(g);
    return -1;
}

static int
in_list(const char *list, const char *user, int absent_ok)
{
    const char *l = list, *e;
    size_t pos = 0, len, ul = strlen(user);
    gid_t *groups = NULL;
    int ngroups = 0, any_group = 0, r = 0, ur;

    /* Names first: root needs no lookup at all. */
    while (next_entry(l, &pos, &e, &len)) {
        if (e[0] == '@')
            any_group = 1;
        else if (len == ul && memcmp(e, user, ul) == 0)
            return 1;
    }
    if (!any_group)
        return 0;
    ur = user_groups(user, &groups, &ngroups, absent_ok);
    if (ur != 0)
        return ur < 0 ? -1 : 0;
    pos = 0;
    while (r != 1 && next_entry(l, &pos, &e, &len)) {
        gid_t gid = (gid_t)-1; /* set when group_gid() finds it */
        int gr;

        if (e[0] != '@')
            continue;
        gr = group_gid(e + 1, len - 1, &gid, absent_ok);
        if (gr < 0) {
            r = -1; /* unless a later group answers yes */
            continue;
        }
        if (gr > 0)
            continue; /* a group this host does not have has no members */
        for (int i = 0; i < ngroups; i++)
            if (groups[i] == gid) {
                r = 1;
                break;
            }
    }
    free(groups);
    return r;
}

int
kdf_pam_in_list(const char *list, const char *user)
{
    return in_list(list, user, 0);
}

int
kdf_pam_xcrypt_only(const struct kdf_policy *pol, const char *user)
{
    return in_list(pol->xcrypt_only, user, 0);
}

int
kdf_pam_admin(const struct kdf_policy *pol, const char *user)
{
    return in_list(pol->admins, user, 1);
}

int
kdf_pam_admin_unkeyed(struct kdf_policy *pol, const char *user)
{
    int adm;

    if (pol->pepper[0] == '\0')
        return 0;
    adm = kdf_pam_admin(pol, user);
    if (adm != 0)
        pol->pepper[0] = '\0';
    return adm;
}

int
kdf_pam_admin_uid(const struct kdf_policy *pol, uid_t uid)
{
    struct name_lookup l = {.name = NULL, .uid = uid, .group = 0};
    char *buf;
    int r = 0;

    if (uid == 0)
        return 1;
    if (lookup_grown(&l, &buf) == 0 && l.pres != NULL)
        r = kdf_pam_admin(pol, l.pres->pw_name) == 1;
    free(buf);
    return r;
}

int
kdf_pam_xcrypt_target(struct kdf_policy *pol)
{
    /* sulogin and rescue media hash the bytes the console sends, never a
     * normalized form: these entries are made from the password as typed. */
    pol->normalize = 0;
    /* Nor can they follow profile = fips: libxcrypt has no PBKDF2. */
    pol->profile &= ~KDF_PROFILE_FIPS;
    if (kdf_pam_xcrypt_reads_target(pol))
        return 0;
    kdf_pam_degraded_target(pol);
    return 1;
}

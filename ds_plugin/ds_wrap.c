/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ds_wrap.c - telling a modify that replaces a userPassword value by its
 * wrap (kdfhash-ds-wrap(8)) from a change of password.
 *
 * The tool sends, for each weak value, one modify: delete userPassword:
 * OLD, add userPassword: {KDF-WRAPPED}W.  The delete of the exact old
 * value makes it a compare-and-swap (noSuchAttribute once anything else
 * replaced OLD), and it replicates like any modify.  But 389-ds takes any
 * userPassword modify for a change of password and, after the backend's
 * write, moves the password policy's state (update_pw_info() in
 * 389-ds-base's pw.c: OLD into passwordHistory, passwordExpirationTime, a
 * reset by an administrator that passwordMustChange turns into "change it
 * at the next bind", pwdUpdateTime, shadowLastChange).  A wrap changes no
 * password, so the upgrade entry's pre-modify callback asks this file
 * whether the modify is exactly such a replace, and then marks the
 * operation as 389-ds's own re-encode at bind is marked.  Any other
 * change of userPassword (a second value, a replace, a W that is not a
 * wrap of OLD's own setting) is a change of password and keeps 389-ds's
 * rules.
 */
#include "config.h"

#include "kdfhash_ds.h"

#include <slapi-plugin.h>
#include <string.h>
#include <strings.h>

static int
is_password(const LDAPMod *m)
{
    return m->mod_type != NULL && strcasecmp(m->mod_type, "userPassword") == 0;
}

/* The one value of m; NULL when it has none or several. */
static const char *
one_value(const LDAPMod *m, size_t *len)
{
    if (m->mod_op & LDAP_MOD_BVALUES) {
        if (m->mod_bvalues == NULL || m->mod_bvalues[0] == NULL ||
            m->mod_bvalues[1] != NULL || m->mod_bvalues[0]->bv_val == NULL)
            return NULL;
        *len = m->mod_bvalues[0]->bv_len;
        return m->mod_bvalues[0]->bv_val;
    }
    if (m->mod_values == NULL || m->mod_values[0] == NULL || m->mod_values[1] != NULL)
        return NULL;
    *len = strlen(m->mod_values[0]);
    return m->mod_values[0];
}

int
kds_wrap_replaces(const char *old, size_t old_len, const char *new, size_t new_len)
{
    const size_t tag = sizeof KDF_DS_WRAPPED_TAG - 1;
    char legacy[KDF_MAX_HASH_STR + 1];
    size_t n = 0;
    struct kdf_hash w;
    int yes;

    if (old == NULL || new == NULL || new_len <= tag ||
        strncasecmp(new, KDF_DS_WRAPPED_TAG, tag) != 0 ||
        memchr(old, '\0', old_len) != NULL || memchr(new, '\0', new_len) != NULL)
        return 0;
    if (kdf_parse(new + tag, new_len - tag, &w, NULL) != KDF_OK ||
        w.scheme != KDF_SCHEME_WRAPPED)
        return 0;
    if (kdf_ds_value_string(old, old_len, legacy, sizeof legacy, &n, NULL) != KDF_OK)
        return 0;
    yes = kdf_wrap_is_of(&w, legacy, n);
    kdf_wipe(legacy, sizeof legacy);
    return yes;
}

int
kds_wrap_modify(struct ldapmod **mods)
{
    const char *old = NULL, *new = NULL, *v;
    size_t old_len = 0, new_len = 0, len = 0;

    /* Other attributes may be there: the server's own (its unhashed
     * password pseudo-attribute, the modify time stamps) or the client's;
     * none of them is the password. */
    for (int i = 0; mods != NULL && mods[i] != NULL; i++) {
        int op = mods[i]->mod_op & ~LDAP_MOD_BVALUES;

        if (!is_password(mods[i]))
            continue;
        if ((v = one_value(mods[i], &len)) == NULL)
            return 0;
        if (op == LDAP_MOD_DELETE && old == NULL) {
            old = v;
            old_len = len;
        } else if (op == LDAP_MOD_ADD && new == NULL) {
            new = v;
            new_len = len;
        } else
            return 0;
    }
    return old != NULL && new != NULL && kds_wrap_replaces(old, old_len, new, new_len);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * policy_load.c - the policy that the module arguments select (policy_load.h):
 * defaults, the conf file, the overrides of the module line; the keyring it
 * reads keys with; the target of a degraded password change and whether
 * libxcrypt reads the target's hashes (doc/DESIGN.md "Policy" and "The PAM
 * module").
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <crypt.h>
#include <stdio.h>
#include <string.h>

#include "options.h"
#include "policy_load.h"

static enum kdf_status
load_policy(const struct kdf_pam_options *o, struct kdf_policy *pol, char *err,
            size_t err_cap)
{
    enum kdf_status st;

    if (o->n_bad > 0) {
        snprintf(err, err_cap, "bad module argument \"%s\": %s", o->bad[0].arg,
                 o->bad[0].why);
        return KDF_RANGE;
    }
    st = kdf_policy_load(pol, o->conf_path, !o->conf_explicit, err, err_cap);
    if (st != KDF_OK)
        return st;

    for (size_t i = 0; i < o->n_overrides; i++) {
        const char *arg = o->overrides[i];
        const char *eq = strchr(arg, '=');
        char key[KDF_PAM_KEY_MAX];
        char value[KDF_PAM_VALUE_MAX];
        size_t key_len = (size_t)(eq - arg);
        size_t value_len = strlen(eq + 1);

        if (value_len >= sizeof value) {
            snprintf(err, err_cap, "module argument %.*s: value too long", (int)key_len,
                     arg);
            return KDF_RANGE;
        }
        memcpy(key, arg, key_len);
        key[key_len] = '\0';
        memcpy(value, eq + 1, value_len + 1);
        /* "target=argon2id:m=65536,t=3,p=4": kdf_target_parse() reads the
         * ':' as the argument spelling of the file's blank. */
        st = kdf_policy_set(pol, key, value, err, err_cap);
        if (st != KDF_OK) {
            char sub[256];

            snprintf(sub, sizeof sub, "%s", err);
            if (sub[0] == '\0')
                snprintf(sub, sizeof sub, "%s", kdf_status_str(st));
            snprintf(err, err_cap, "module argument \"%s\": %s", arg, sub);
            return st;
        }
    }
    return KDF_OK;
}

enum kdf_status
kdf_pam_load_policy(const struct kdf_pam_options *o, struct kdf_policy *pol, char *err,
                    size_t err_cap)
{
    enum kdf_status st;

    if (err_cap > 0)
        err[0] = '\0';
    kdf_policy_default(pol);
    st = load_policy(o, pol, err, err_cap);
    if (st != KDF_OK)
        kdf_policy_default(pol); /* nothing half-applied */
    /* pam_unix's name for min.length, honoured on the defaults too. */
    if (o->minlen != KDF_PAM_MINLEN_POLICY)
        pol->min_length = o->minlen;
    return st;
}

void
kdf_pam_attach_keys(struct kdf_pam_options *o, struct kdf_policy *pol)
{
    o->tpm_access.fn = kdf_pam_tpm_secret;
    o->tpm_access.ctx = &o->tpm;
    kdf_keystore_init(&o->keystore, o->keys_dir, &o->tpm_access);
    o->keystore.keep_first = 1;
    pol->keys = &o->keystore.ring;
}

const char *
kdf_pam_key_error(const struct kdf_pam_options *o)
{
    return o->keystore.err[0] != '\0' ? o->keystore.err : "no key store";
}

void
kdf_pam_degraded_target(struct kdf_policy *pol)
{
    static const char text[] = "yescrypt";
    struct kdf_target t;
    char err[128];

    /* The target text's own defaults for the scheme: libxcrypt's.  It
     * cannot take a key, so new hashes are made without the pepper (root's
     * entry stays one that sulogin and pam_unix verify). */
    if (kdf_target_parse(text, &t, err, sizeof err) == KDF_OK) {
        pol->target = t;
        pol->pepper[0] = '\0';
    }
}

int
kdf_pam_xcrypt_reads_target(const struct kdf_policy *pol)
{
    char buf[KDF_MAX_HASH_STR + 1];
    struct kdf_hash h;
    enum kdf_status st = kdf_dummy_hash(&pol->target, buf, sizeof buf, &h);
    int r;

    kdf_wipe(&h, sizeof h);
    if (st == KDF_UNSUPPORTED)
        return 1; /* a crypt(3) target: libxcrypt spells it */
    if (st != KDF_OK)
        return 0;
    r = crypt_checksalt(buf);
    kdf_wipe(buf, sizeof buf);
    return r == CRYPT_SALT_OK || r == CRYPT_SALT_METHOD_LEGACY;
}

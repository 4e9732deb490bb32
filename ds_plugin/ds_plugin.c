/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ds_plugin.c - libkdfhash-pwdstorage-plugin: the kdfhash core as 389
 * Directory Server password storage schemes (SLAPI_PLUGIN_PWD_STORAGE_SCHEME).
 *
 * One plugin entry per scheme name, each naming its init function below:
 *
 *   ARGON2             {ARGON2}$argon2id$v=19$m=..,t=..,p=..$salt$tag, the
 *                      spelling of OpenLDAP's pw-argon2 module, so values
 *                      move between the two servers; reads argon2i and
 *                      argon2d too.
 *   BCRYPT             {BCRYPT}$2b$12$...: $2a$, $2b$, $2y$ (and $2x$).
 *   KDF-PBKDF2         PBKDF2-HMAC-SHA1/256/512 as passlib ($pbkdf2-sha256$...),
 *                      Django (pbkdf2_sha256$...) and the PHC ($pbkdf2-sha256$i=...)
 *                      spell them, and OpenLDAP pw-pbkdf2's body (10000$salt$dk,
 *                      its digest told by its length): a name that does not
 *                      clash with 389-ds's own PBKDF2-SHA* and fits its limit
 *                      of 13 characters for a scheme name.
 *   KDF-WRAPPED        {KDF-WRAPPED}$kdfw$...: a weak value of another
 *                      scheme ({SSHA512}, {PBKDF2-SHA256} at a low count,
 *                      {CRYPT}) hashed again at the target by
 *                      kdfhash-ds-wrap(8) for an account that does not
 *                      bind; verified here, never made, so the next bind
 *                      moves it to passwordStorageScheme.
 *
 * The server loads a plugin's library once per entry and calls each init
 * function while it starts, one at a time, and again when the entry is
 * modified with nsslapd-dynamic-plugins on; kds_configure() replaces a
 * scheme's configuration whole, under its lock (kdfhash_ds.h).
 */
#include "config.h"

#include "kdfhash_ds.h"

#include <slapi-plugin.h>
#include <stdio.h>

static struct kds_scheme g_argon2 = {
    .name = "ARGON2",
    .lock = PTHREAD_RWLOCK_INITIALIZER,
    .said_outdated = ATOMIC_FLAG_INIT,
};
static struct kds_scheme g_bcrypt = {
    .name = "BCRYPT",
    .lock = PTHREAD_RWLOCK_INITIALIZER,
    .said_outdated = ATOMIC_FLAG_INIT,
};
static struct kds_scheme g_wrapped = {
    .name = KDF_DS_WRAPPED_NAME,
    .wrapped = 1,
    .lock = PTHREAD_RWLOCK_INITIALIZER,
    .said_outdated = ATOMIC_FLAG_INIT,
};
static struct kds_scheme g_pbkdf2 = {
    .name = "KDF-PBKDF2",
    .openldap_body = 1,
    .lock = PTHREAD_RWLOCK_INITIALIZER,
    .said_outdated = ATOMIC_FLAG_INIT,
};

/* 389-ds calls enc(pwd) and cmp(userpwd, dbpwd) with no context: one pair
 * of functions per scheme name. */
#define KDS_FUNCS(v)                                                         \
    static char *v##_enc(const char *pw) { return kds_encode(&g_##v, pw); } \
    static int v##_cmp(const char *pw, const char *stored)                  \
    {                                                                        \
        return kds_compare(&g_##v, pw, stored);                              \
    }
KDS_FUNCS(argon2)
KDS_FUNCS(bcrypt)
KDS_FUNCS(pbkdf2)
KDS_FUNCS(wrapped)

static Slapi_PluginDesc g_desc = {
    "kdfhash-pwdstorage", "kdfhash", PACKAGE_VERSION,
    "Argon2, bcrypt, PBKDF2 and wrapped password storage schemes (kdfhash)",
};

static int
register_scheme(Slapi_PBlock *pb, struct kds_scheme *s, char *(*enc)(const char *),
                int (*cmp)(const char *, const char *))
{
    char **argv = NULL, target[128];
    int argc = 0;
    struct kds_conf c;

    if (slapi_pblock_get(pb, SLAPI_PLUGIN_ARGC, &argc) != 0 ||
        slapi_pblock_get(pb, SLAPI_PLUGIN_ARGV, &argv) != 0) {
        argc = 0;
        argv = NULL;
    }
    if (kds_configure(s, argc, argv) != 0)
        return -1;
    if (slapi_pblock_set(pb, SLAPI_PLUGIN_VERSION, (void *)SLAPI_PLUGIN_VERSION_01) != 0 ||
        slapi_pblock_set(pb, SLAPI_PLUGIN_DESCRIPTION, (void *)&g_desc) != 0 ||
        slapi_pblock_set(pb, SLAPI_PLUGIN_PWD_STORAGE_SCHEME_ENC_FN, (void *)enc) != 0 ||
        slapi_pblock_set(pb, SLAPI_PLUGIN_PWD_STORAGE_SCHEME_CMP_FN, (void *)cmp) != 0 ||
        slapi_pblock_set(pb, SLAPI_PLUGIN_PWD_STORAGE_SCHEME_NAME, (void *)s->name) != 0) {
        slapi_log_error(SLAPI_LOG_ERR, KDS_LOG, "%s: could not register\n", s->name);
        return -1;
    }
    kds_conf_get(s, &c);
    if (kdf_target_format(&c.enc, target, sizeof target) != KDF_OK)
        snprintf(target, sizeof target, "%s", kdf_target_name(&c.enc));
    slapi_log_error(SLAPI_LOG_PLUGIN, KDS_LOG, "%s: new values at %s\n", s->name, target);
    return 0;
}

/* The init functions that nsslapd-pluginInitfunc names (exported; the
 * prototypes keep -Wmissing-prototypes quiet). */
int kdfhash_argon2_init(Slapi_PBlock *pb);
int kdfhash_bcrypt_init(Slapi_PBlock *pb);
int kdfhash_pbkdf2_init(Slapi_PBlock *pb);
int kdfhash_wrapped_init(Slapi_PBlock *pb);

int
kdfhash_argon2_init(Slapi_PBlock *pb)
{
    return register_scheme(pb, &g_argon2, argon2_enc, argon2_cmp);
}

int
kdfhash_bcrypt_init(Slapi_PBlock *pb)
{
    return register_scheme(pb, &g_bcrypt, bcrypt_enc, bcrypt_cmp);
}

int
kdfhash_pbkdf2_init(Slapi_PBlock *pb)
{
    return register_scheme(pb, &g_pbkdf2, pbkdf2_enc, pbkdf2_cmp);
}

int
kdfhash_wrapped_init(Slapi_PBlock *pb)
{
    return register_scheme(pb, &g_wrapped, wrapped_enc, wrapped_cmp);
}

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
 *   KDF-PBKDF2-SHA1,   passlib's $pbkdf2-sha256$..., Django's pbkdf2_sha256$...,
 *   KDF-PBKDF2-SHA256, the PHC $pbkdf2-sha256$i=..., and OpenLDAP's
 *   KDF-PBKDF2-SHA512  pw-pbkdf2 body 10000$salt$dk, under names that do not
 *                      clash with 389-ds's own PBKDF2-SHA* (which read that
 *                      OpenLDAP body only, at fixed cost).
 *
 * The server loads a plugin's library once per entry and calls each init
 * function while it starts, one at a time; what they write is read-only
 * once binds are served.
 */
#include "config.h"

#include "kdfhash_ds.h"

#include <slapi-plugin.h>

#define BIT(s) (1u << (s))

static struct kds_scheme g_argon2 = {
    .name = "ARGON2",
    .base = "argon2id",
    .family = BIT(KDF_SCHEME_ARGON2ID) | BIT(KDF_SCHEME_ARGON2I) | BIT(KDF_SCHEME_ARGON2D),
};
static struct kds_scheme g_bcrypt = {
    .name = "BCRYPT",
    .base = "bcrypt",
    .family = BIT(KDF_SCHEME_BCRYPT),
};
static struct kds_scheme g_sha1 = {
    .name = "KDF-PBKDF2-SHA1",
    .base = "pbkdf2-sha1",
    .family = BIT(KDF_SCHEME_PBKDF2_SHA1),
    .openldap_head = "$pbkdf2$",
};
static struct kds_scheme g_sha256 = {
    .name = "KDF-PBKDF2-SHA256",
    .base = "pbkdf2-sha256",
    .family = BIT(KDF_SCHEME_PBKDF2_SHA256),
    .openldap_head = "$pbkdf2-sha256$",
};
static struct kds_scheme g_sha512 = {
    .name = "KDF-PBKDF2-SHA512",
    .base = "pbkdf2-sha512",
    .family = BIT(KDF_SCHEME_PBKDF2_SHA512),
    .openldap_head = "$pbkdf2-sha512$",
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
KDS_FUNCS(sha1)
KDS_FUNCS(sha256)
KDS_FUNCS(sha512)

static Slapi_PluginDesc g_desc = {
    "kdfhash-pwdstorage", "kdfhash", PACKAGE_VERSION,
    "Argon2, bcrypt and PBKDF2 password storage schemes (kdfhash)",
};

static int
register_scheme(Slapi_PBlock *pb, struct kds_scheme *s, char *(*enc)(const char *),
                int (*cmp)(const char *, const char *))
{
    char **argv = NULL;
    int argc = 0;

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
    slapi_log_error(SLAPI_LOG_PLUGIN, KDS_LOG, "%s: new values at %s\n", s->name,
                  kdf_target_name(&s->enc));
    return 0;
}

/* The init functions that nsslapd-pluginInitfunc names (exported; the
 * prototypes keep -Wmissing-prototypes quiet). */
int kdfhash_argon2_init(Slapi_PBlock *pb);
int kdfhash_bcrypt_init(Slapi_PBlock *pb);
int kdfhash_pbkdf2_sha1_init(Slapi_PBlock *pb);
int kdfhash_pbkdf2_sha256_init(Slapi_PBlock *pb);
int kdfhash_pbkdf2_sha512_init(Slapi_PBlock *pb);

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
kdfhash_pbkdf2_sha1_init(Slapi_PBlock *pb)
{
    return register_scheme(pb, &g_sha1, sha1_enc, sha1_cmp);
}

int
kdfhash_pbkdf2_sha256_init(Slapi_PBlock *pb)
{
    return register_scheme(pb, &g_sha256, sha256_enc, sha256_cmp);
}

int
kdfhash_pbkdf2_sha512_init(Slapi_PBlock *pb)
{
    return register_scheme(pb, &g_sha512, sha512_enc, sha512_cmp);
}

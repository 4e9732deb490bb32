/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ds_config.c - a storage scheme's policy, from kdfhash.conf and the
 * plugin entry's nsslapd-pluginarg values.
 *
 * The same file and keys as pam_kdfhash (kdfhash.conf(5)): the caps, the
 * minimums, max.memory, max.threads.  A scheme name makes hashes of its own
 * family only ({ARGON2} values are Argon2), so its target is the policy's
 * when the policy's target is of that family, and otherwise that family's
 * defaults raised to the policy's minimums.
 *
 * A new configuration is built whole in a struct of its own and put in
 * place under the scheme's write lock (kdfhash_ds.h says why: the server
 * may call the init function again while binds run).  No pointer into the
 * server's argv is kept: 389-ds frees it (charray_free in plugin_free())
 * when it deletes or restarts the plugin.
 */
#include "config.h"

#include "kdfhash_ds.h"

#include <slapi-plugin.h>
#include <stdlib.h>
#include <string.h>

/* Where the servers of one machine share the memory budget.  The server
 * runs as its own user, which cannot open root's /run/kdfhash.memgate;
 * /run/dirsrv is that user's (389-ds keeps its instances' pid files there). */
#define KDS_DEFAULT_MEMGATE "/run/dirsrv/kdfhash.memgate"

/* The directory profile (KDF_DIRECTORY_TARGET, kdfhash.h) is the plugin's
 * built-in target, under any file that does not set one.  Binds are the
 * directory's load (every online SSSD login is one), so the target is
 * OWASP's first Argon2id row, which is also min.argon2's floor: one lane,
 * so one bind takes one CPU and N CPUs serve N binds at once, where p=4
 * would take every CPU of a small server for one bind and gain nothing
 * under load.  An admin who wants more says so in the file (kdfhash
 * calibrate --rate suggests a target for a rate of binds). */

/* The memory gate's paths, copied: the core keeps the pointer it is given
 * (kdf_memgate_set_path) and a verification that began under one path may
 * still open it after a reconfiguration names another, so a copy is never
 * freed.  One is made per distinct path, not per reconfiguration; the
 * plugin's init functions are called one at a time, but the lock costs
 * nothing where they are. */
struct gate_path {
    struct gate_path *next;
    char path[];
};
static struct gate_path *g_gates;
static pthread_mutex_t g_gates_lock = PTHREAD_MUTEX_INITIALIZER;

static const char *
gate_path_copy(const char *path)
{
    struct gate_path *g;
    size_t n = strlen(path);
    const char *out = NULL;

    pthread_mutex_lock(&g_gates_lock);
    for (g = g_gates; g != NULL && out == NULL; g = g->next)
        if (strcmp(g->path, path) == 0)
            out = g->path;
    if (out == NULL && (g = malloc(sizeof *g + n + 1)) != NULL) {
        memcpy(g->path, path, n + 1);
        g->next = g_gates;
        g_gates = g;
        out = g->path;
    }
    pthread_mutex_unlock(&g_gates_lock);
    return out;
}

void
kds_conf_get(struct kds_scheme *s, struct kds_conf *out)
{
    pthread_rwlock_rdlock(&s->lock);
    *out = s->conf;
    pthread_rwlock_unlock(&s->lock);
}

/* The target when the policy's is of another family: the table's base row
 * of the name's family at its defaults, raised to the policy's minimums. */
static int
family_target(const struct kds_scheme *s, struct kds_conf *c, char *err, size_t cap)
{
    struct kdf_scheme_info info;
    const char *base = NULL;

    for (size_t i = 0; base == NULL && kdf_scheme_info_at(i, &info); i++)
        if (info.ds_base && info.ds_family != NULL && strcmp(info.ds_family, s->name) == 0)
            base = info.name;
    if (base == NULL) {
        snprintf(err, cap, "no scheme of the core makes %s values", s->name);
        return -1;
    }
    if (kdf_target_parse(base, &c->enc, err, cap) != KDF_OK)
        return -1;
    kdf_target_raise_to_min(&c->enc, &c->pol);
    return 0;
}

/* "cpus" or a decimal 0..KDF_WORKPOOL_MAX. */
static int
parse_areas(const char *v, unsigned *out)
{
    unsigned long n = 0;

    if (strcmp(v, "cpus") == 0) {
        *out = KDF_WORKPOOL_CPUS;
        return 0;
    }
    if (*v == '\0' || (v[0] == '0' && v[1] != '\0'))
        return -1;
    for (; *v != '\0'; v++) {
        if (*v < '0' || *v > '9' || (n = n * 10 + (unsigned long)(*v - '0')) > KDF_WORKPOOL_MAX)
            return -1;
    }
    *out = (unsigned)n;
    return 0;
}

int
kds_configure(struct kds_scheme *s, int argc, char **argv)
{
    char err[256], key[64];
    const char *conf = KDS_DEFAULT_CONF, *memgate = KDS_DEFAULT_MEMGATE, *gate = NULL;
    const char *why = NULL;
    unsigned areas = KDF_WORKPOOL_CPUS;
    struct kds_conf c;
    struct kds_fair_conf fc;
    int i, named = 0, rc;

    memset(&c, 0, sizeof c);
    kds_fair_defaults(&fc);
    kdf_policy_default(&c.pol);
    if (kdf_target_parse(KDF_DIRECTORY_TARGET, &c.pol.target, err, sizeof err) != KDF_OK) {
        slapi_log_error(SLAPI_LOG_ERR, KDS_LOG, "%s: %s\n", s->name, err);
        return -1;
    }
    if (argc > 0 && argv != NULL && argv[0] != NULL && argv[0][0] != '\0') {
        conf = argv[0];
        named = strcmp(conf, KDS_DEFAULT_CONF) != 0 && strcmp(conf, KDF_DEFAULT_CONF) != 0;
    }
    /* A missing default file is the defaults, so that a server starts
     * without it: the directory's own (the shipped LDIF names it; the
     * package ships it) or pam_kdfhash's (which entries registered before
     * the directory profile name; libpam-kdfhash ships it).  Another file
     * named must exist. */
    if (kdf_policy_load(&c.pol, conf, !named, err, sizeof err) != KDF_OK) {
        slapi_log_error(SLAPI_LOG_ERR, KDS_LOG, "%s: %s\n", s->name, err);
        return -1;
    }
    for (i = 1; i < argc && argv != NULL && argv[i] != NULL; i++) {
        const char *eq = strchr(argv[i], '=');
        size_t klen = eq != NULL ? (size_t)(eq - argv[i]) : 0;

        if (eq == NULL || klen == 0 || klen >= sizeof key) {
            slapi_log_error(SLAPI_LOG_ERR, KDS_LOG,
                          "%s: plugin argument %d is not key=value\n", s->name, i);
            return -1;
        }
        memcpy(key, argv[i], klen);
        key[klen] = '\0';
        if (strcmp(key, "memgate") == 0) {
            memgate = eq + 1;
            continue;
        }
        /* The storm gate's settings (ds_fair.c). */
        if ((rc = kds_fair_arg(&fc, key, eq + 1, err, sizeof err)) <= 0) {
            if (rc == 0)
                continue;
            slapi_log_error(SLAPI_LOG_ERR, KDS_LOG, "%s: plugin argument %d: %s\n", s->name,
                          i, err);
            return -1;
        }
        if (strcmp(key, "workareas") == 0) {
            if (parse_areas(eq + 1, &areas) != 0) {
                slapi_log_error(SLAPI_LOG_ERR, KDS_LOG,
                              "%s: plugin argument %d: workareas must be 0..%u or cpus\n",
                              s->name, i, KDF_WORKPOOL_MAX);
                return -1;
            }
            continue;
        }
        if (kdf_policy_set(&c.pol, key, eq + 1, err, sizeof err) != KDF_OK) {
            slapi_log_error(SLAPI_LOG_ERR, KDS_LOG, "%s: plugin argument %d: %s\n", s->name,
                          i, err);
            return -1;
        }
    }
    /* KDF-WRAPPED makes no values: its target is the policy's, whose cost
     * a refusal of a value it cannot verify takes (ds_schemes.c). */
    if (s->wrapped || kds_in_family(s, kdf_target_ds_family(&c.pol.target)))
        c.enc = c.pol.target;
    else if (family_target(s, &c, err, sizeof err) != 0) {
        slapi_log_error(SLAPI_LOG_ERR, KDS_LOG, "%s: %s\n", s->name, err);
        return -1;
    }
    /* A target the caps would refuse to verify is a configuration error:
     * say so now rather than at every bind. */
    if (kdf_check_target(&c.enc, &c.pol, &why) != KDF_OK) {
        slapi_log_error(SLAPI_LOG_ERR, KDS_LOG, "%s: the target %s is refused: %s\n",
                      s->name, kdf_target_name(&c.enc), why != NULL ? why : "caps");
        return -1;
    }
    c.fam = c.pol;
    c.fam.target = c.enc;
    c.fam.migrate = 0;
    if (memgate[0] != '\0' && (gate = gate_path_copy(memgate)) == NULL) {
        slapi_log_error(SLAPI_LOG_ERR, KDS_LOG, "%s: out of memory\n", s->name);
        return -1;
    }
    pthread_rwlock_wrlock(&s->lock);
    s->conf = c;
    pthread_rwlock_unlock(&s->lock);
    atomic_flag_clear(&s->said_outdated);
    /* Every scheme of the plugin names the same file unless told
     * otherwise; the last one configured wins. */
    kdf_memgate_set_path(gate);
    /* Argon2 areas kept between binds (util_workarea.c in the core): one per
     * CPU unless told, each of the target's size (its Argon2 memory, 0
     * for a target of another scheme: nothing kept; a larger value maps
     * its own; the last scheme configured wins, as for the file); a bind
     * takes its share of max.memory while it computes, and what the
     * process keeps stays within max.memory. */
    kdf_workpool_set(areas, c.enc.m_kib);
    kds_fair_configure(&fc);
    return 0;
}

int
kds_in_family(const struct kds_scheme *s, const char *ds_family)
{
    return ds_family != NULL && strcmp(ds_family, s->name) == 0;
}

int
kds_holds(const struct kds_scheme *s, const struct kdf_hash *h)
{
    if (s->wrapped || h->scheme == KDF_SCHEME_WRAPPED)
        return s->wrapped && h->scheme == KDF_SCHEME_WRAPPED;
    return kds_in_family(s, kdf_hash_ds_family(h));
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ds_upgrade.c - re-encode an outdated value after a successful bind.
 *
 * 389-ds re-encodes a password at bind only when the value's scheme name
 * differs from passwordStorageScheme (update_pw_encoding() in
 * 389-ds-base's ldap/servers/slapd/pw.c): an {ARGON2} value below today's
 * target, an OpenLDAP import of argon2i, a {BCRYPT} of cost 8 stay as they
 * are.  This plugin entry (an "object" plugin registering a pre-bind and a
 * post-bind callback, as 389-ds's own account policy plugin does) closes
 * that gap:
 *
 *   pre-bind   opens this thread's bind record (ds_pending.c);
 *   compare    (ds_schemes.c) notes the value a password matched when it
 *              is outdated within its family;
 *   post-bind  runs after 389-ds has sent the result, so no client waits,
 *              and for a successful simple bind that noted a value writes
 *              the password at the target in one internal modify that
 *              replaces that value;
 *   pre-modify lets a modify that only replaces a value by its wrap
 *              (kdfhash-ds-wrap(8); ds_wrap.c) leave the password policy's
 *              state alone, as this file's own modify does;
 *   be-pre-modify  (a bepreoperation callback) makes that modify a
 *              compare-and-swap: the backend calls it with the entry
 *              locked, and it refuses the modify (noSuchAttribute) unless
 *              the entry's one userPassword value is still the one noted.
 *
 * So if anything changed the value since the compare (an administrator's
 * reset, 389-ds's own re-encode in this bind, a replicated change), the
 * modify is refused and the other change stands.  A delete of the exact
 * old value with an add of the new one would say the same in LDAP, but
 * 389-ds 2.3 dereferences a NULL entry for an internal modify that deletes
 * a hashed userPassword value (op_shared_modify() in modify.c fetches the
 * entry only for external operations, then slapi_pw_get_entry_ext()
 * reads it): the server crashes.  The replace is the path 389-ds's own
 * re-encode takes.  An entry with several userPassword values is left
 * alone, as 389-ds leaves it.  The modify carries the flags 389-ds's own
 * update_pw_encoding uses, so password policy state does not move:
 * passwordExpirationTime, passwordHistory, pwdUpdateTime and
 * modifiersName/modifyTimestamp stay as they were.  It replicates like any
 * modify.  nsslapd-enable-upgrade-hash: off (FreeIPA's choice) and
 * nsslapd-scheme-list-no-upgrade-hash (389-ds 3.1 and later) are honoured
 * as 389-ds honours them for its own re-encode.
 *
 * Only the entries of user backends are re-encoded, never a DN that
 * replication or a listed service binds as (ds_scope.c); for those the
 * pre-bind callback marks the bind, and kds_encode then refuses to make
 * a new value, so 389-ds's own re-encode at bind keeps the old one too.
 */
#include "config.h"

#include "kdfhash_ds.h"

#include <slapi-plugin.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* Operation flags of 389-ds-base's ldap/servers/slapd/slapi-private.h,
 * which is not installed: OP_FLAG_SKIP_MODIFIED_ATTRS (modifiersName and
 * modifyTimestamp are not touched; the same bit as the public
 * SLAPI_OP_FLAG_NO_ACCESS_CHECK) and OP_FLAG_ACTION_SKIP_PWDPOLICY
 * (update_pw_info() returns before it sets the expiration, the history or
 * pwdUpdateTime).  Their values are the same from 1.4 to 3.x. */
#define KDS_OP_SKIP_MODIFIED_ATTRS 0x010000
#define KDS_OP_SKIP_PWDPOLICY 0x02000000

#define KDS_UPGRADE "kdfhash upgrade at bind"

static void *g_identity;
static atomic_flag g_said_off = ATOMIC_FLAG_INIT;

/* The swap this thread's internal modify makes, for be_pre_modify: the
 * entry (normalised DN) and the one value it must still hold.  The modify
 * runs on this thread, inside slapi_modify_internal_pb(). */
struct swap {
    const char *ndn;
    const char *old;
};
static _Thread_local struct swap t_swap;

static Slapi_PluginDesc g_desc = {
    "kdfhash-upgrade", "kdfhash", PACKAGE_VERSION,
    "re-encodes outdated ARGON2, BCRYPT and KDF-PBKDF2 values at bind (kdfhash)",
};

/* keep-dn= arguments of the upgrade entry, normalised, one per line
 * (ds_scope.c); replaced whole when the entry is restarted. */
static pthread_rwlock_t g_keep_lock = PTHREAD_RWLOCK_INITIALIZER;
static char *g_keep;
static struct kds_scope_log g_scope_log = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* Appends sdn's normalised DN and a newline to *list (slapi_ch memory). */
static void
list_add(char **list, const char *dn)
{
    Slapi_DN *sdn = slapi_sdn_new_dn_byval(dn);
    const char *ndn = slapi_sdn_get_ndn(sdn);
    char *old = *list;

    if (ndn != NULL && *ndn != '\0') {
        *list = slapi_ch_smprintf("%s%s\n", old != NULL ? old : "", ndn);
        slapi_ch_free_string(&old);
    }
    slapi_sdn_free(&sdn);
}

/* The members of a bind DN group (member, uniqueMember), added to *list. */
static void
group_members(char **list, const char *group)
{
    char *attrs[] = {"member", "uniqueMember", NULL};
    Slapi_DN *sdn = slapi_sdn_new_dn_byval(group);
    Slapi_Entry *e = NULL;

    if (slapi_search_internal_get_entry(sdn, attrs, &e, g_identity) == LDAP_SUCCESS &&
        e != NULL) {
        for (int i = 0; attrs[i] != NULL; i++) {
            char **vals = slapi_entry_attr_get_charray(e, attrs[i]);

            for (int j = 0; vals != NULL && vals[j] != NULL; j++)
                list_add(list, vals[j]);
            slapi_ch_array_free(vals);
        }
    }
    slapi_entry_free(e);
    slapi_sdn_free(&sdn);
}

/* The DNs replication binds as on this server or from it: the cn=replica
 * entries' nsDS5ReplicaBindDN and their groups' members, the agreements'
 * nsDS5ReplicaBindDN.  Normalised, one per line; NULL for none. */
static char *
replication_dns(void)
{
    char *attrs[] = {"nsDS5ReplicaBindDN", "nsds5ReplicaBindDNGroup", NULL};
    Slapi_PBlock *pb = slapi_pblock_new();
    Slapi_Entry **es = NULL;
    char *list = NULL;
    int rc = -1;

    slapi_search_internal_set_pb(pb, "cn=mapping tree,cn=config", LDAP_SCOPE_SUBTREE,
                                 "(|(objectClass=nsds5Replica)"
                                 "(objectClass=nsds5ReplicationAgreement))",
                                 attrs, 0, NULL, NULL, g_identity, 0);
    slapi_search_internal_pb(pb);
    if (slapi_pblock_get(pb, SLAPI_PLUGIN_INTOP_RESULT, &rc) == 0 && rc == LDAP_SUCCESS &&
        slapi_pblock_get(pb, SLAPI_PLUGIN_INTOP_SEARCH_ENTRIES, &es) == 0)
        for (int i = 0; es != NULL && es[i] != NULL; i++) {
            char **dns = slapi_entry_attr_get_charray(es[i], attrs[0]);
            char **groups = slapi_entry_attr_get_charray(es[i], attrs[1]);

            for (int j = 0; dns != NULL && dns[j] != NULL; j++)
                list_add(&list, dns[j]);
            for (int j = 0; groups != NULL && groups[j] != NULL; j++)
                group_members(&list, groups[j]);
            slapi_ch_array_free(dns);
            slapi_ch_array_free(groups);
        }
    slapi_free_search_results_internal(pb);
    slapi_pblock_destroy(pb);
    return list;
}

/* Is the bind DN's backend one of this server's user backends? */
static int
user_backend(const Slapi_DN *sdn)
{
    Slapi_Backend *be = slapi_be_select(sdn);

    return be != NULL && !slapi_be_private(be) &&
           !slapi_be_is_flag_set(be, SLAPI_BE_FLAG_REMOTE_DATA);
}

/* Opens this thread's bind record and, for a simple bind as a DN that must
 * keep its value's scheme, says so in it: neither this entry nor 389-ds's
 * own re-encode then writes a new value (ds_scope.c says why). */
static int
pre_bind(Slapi_PBlock *pb)
{
    ber_tag_t method = 0;
    Slapi_DN *sdn = NULL;
    const char *ndn;
    enum kds_scope sc;
    char *repl = NULL;
    struct timespec now;
    int ub;

    kds_bind_begin();
    if (slapi_pblock_get(pb, SLAPI_BIND_METHOD, &method) != 0 || method != LDAP_AUTH_SIMPLE ||
        slapi_pblock_get(pb, SLAPI_BIND_TARGET_SDN, &sdn) != 0 || sdn == NULL ||
        (ndn = slapi_sdn_get_ndn(sdn)) == NULL || *ndn == '\0' || slapi_dn_isroot(ndn))
        return 0;
    /* A DN outside the user backends is out whatever the lists say: no
     * search of cn=config for it (the replication manager binds often). */
    ub = user_backend(sdn);
    if (ub)
        repl = replication_dns();
    pthread_rwlock_rdlock(&g_keep_lock);
    sc = kds_scope_decide(ndn, ub, repl, g_keep);
    pthread_rwlock_unlock(&g_keep_lock);
    slapi_ch_free_string(&repl);
    if (sc == KDS_SCOPE_IN)
        return 0;
    kds_bind_keep_scheme();
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (kds_scope_should_say(&g_scope_log, ndn, (long)now.tv_sec))
        slapi_log_error(SLAPI_LOG_INFO, KDS_UPGRADE,
                      "%s keeps its value's scheme at bind: %s (said once an hour)\n", ndn,
                      kds_scope_reason(sc));
    return 0;
}

/* Another operation on this thread: a bind that ended without its
 * post-bind callback (389-ds skips it on some errors) is over. */
static int
pre_other(Slapi_PBlock *pb)
{
    (void)pb;
    kds_bind_close();
    return 0;
}

/* A modify: another operation (pre_other), and when it only replaces a
 * userPassword value by its wrap (ds_wrap.c), no change of password: it
 * leaves the password policy's state as 389-ds's re-encode at bind does. */
static int
pre_modify(Slapi_PBlock *pb)
{
    Slapi_Operation *op = NULL;
    LDAPMod **mods = NULL;

    pre_other(pb);
    if (slapi_pblock_get(pb, SLAPI_MODIFY_MODS, &mods) == 0 && kds_wrap_modify(mods) &&
        slapi_pblock_get(pb, SLAPI_OPERATION, &op) == 0 && op != NULL) {
        slapi_operation_set_flag(op, KDS_OP_SKIP_PWDPOLICY);
        kds_stat_add(KDS_ST_WRAP_MODIFIES);
        slapi_log_error(SLAPI_LOG_PLUGIN, KDS_UPGRADE,
                      "a userPassword value replaced by its wrap: not a change of "
                      "password\n");
    }
    return 0;
}

/* What cn=config says about upgrades at bind: 0 to go on, -1 to skip (said
 * in the log). */
static int
config_allows(const struct kds_scheme *s)
{
    char *attrs[] = {"nsslapd-enable-upgrade-hash", "nsslapd-scheme-list-no-upgrade-hash", NULL};
    Slapi_DN *sdn = slapi_sdn_new_dn_byval("cn=config");
    Slapi_Entry *e = NULL;
    char *on = NULL, *list = NULL;
    int rc = 0;

    if (slapi_search_internal_get_entry(sdn, attrs, &e, g_identity) != LDAP_SUCCESS ||
        e == NULL) {
        slapi_sdn_free(&sdn);
        return 0; /* 389-ds's default is on; the modify says what fails */
    }
    on = slapi_entry_attr_get_charptr(e, attrs[0]);
    list = slapi_entry_attr_get_charptr(e, attrs[1]);
    if (on != NULL && strcasecmp(on, "off") == 0) {
        if (!atomic_flag_test_and_set(&g_said_off))
            slapi_log_error(SLAPI_LOG_INFO, KDS_UPGRADE,
                          "nsslapd-enable-upgrade-hash is off: outdated values are not "
                          "re-encoded at bind\n");
        rc = -1;
    } else if (kds_name_listed(list, s->name)) {
        slapi_log_error(SLAPI_LOG_PLUGIN, KDS_UPGRADE,
                      "%s is in nsslapd-scheme-list-no-upgrade-hash: not re-encoded\n",
                      s->name);
        rc = -1;
    }
    slapi_ch_free_string(&on);
    slapi_ch_free_string(&list);
    slapi_entry_free(e);
    slapi_sdn_free(&sdn);
    return rc;
}

/* The entry's one userPassword value, when there is exactly one; NULL
 * otherwise.  Points into e. */
static const char *
only_value(const Slapi_Entry *e)
{
    Slapi_Attr *a = NULL;
    Slapi_Value *v = NULL;
    int n = 0;

    if (e == NULL || slapi_entry_attr_find(e, "userPassword", &a) != 0 || a == NULL ||
        slapi_attr_get_numvalues(a, &n) != 0 || n != 1 || slapi_attr_first_value(a, &v) < 0)
        return NULL;
    return slapi_value_get_string(v);
}

/* The value without its "{NAME}" when NAME is s's (without case, as
 * 389-ds reads it); NULL for a value of another scheme. */
static const char *
body_of(const struct kds_scheme *s, const char *value)
{
    size_t n = strlen(s->name);

    if (value == NULL || value[0] != '{' || strncasecmp(value + 1, s->name, n) != 0 ||
        value[n + 1] != '}')
        return NULL;
    return value + n + 2;
}

/* The entry's value "{NAME}stored" when it is its only userPassword value,
 * copied with slapi_ch_strdup; NULL when the entry no longer has it, or has
 * others. */
static char *
current_value(const struct kds_scheme *s, const Slapi_DN *sdn, const char *stored)
{
    char *attrs[] = {"userPassword", NULL};
    Slapi_Entry *e = NULL;
    const char *str, *body;
    char *out = NULL;

    if (slapi_search_internal_get_entry((Slapi_DN *)sdn, attrs, &e, g_identity) != LDAP_SUCCESS ||
        e == NULL)
        return NULL;
    str = only_value(e);
    body = body_of(s, str);
    if (body != NULL && strcmp(body, stored) == 0)
        out = slapi_ch_strdup(str);
    slapi_entry_free(e);
    return out;
}

/* The backend's pre-modify callback, with the entry locked: the swap of
 * this thread goes on only while the entry holds exactly the old value. */
static int
be_pre_modify(Slapi_PBlock *pb)
{
    Slapi_DN *sdn = NULL;
    Slapi_Entry *e = NULL;
    const char *now;
    int rc = LDAP_NO_SUCH_ATTRIBUTE;

    if (t_swap.old == NULL)
        return 0;
    if (slapi_pblock_get(pb, SLAPI_MODIFY_TARGET_SDN, &sdn) != 0 || sdn == NULL ||
        slapi_sdn_get_ndn(sdn) == NULL || strcmp(slapi_sdn_get_ndn(sdn), t_swap.ndn) != 0)
        return 0; /* another entry's modify, made by another plugin meanwhile */
    if (slapi_pblock_get(pb, SLAPI_ENTRY_PRE_OP, &e) == 0 && (now = only_value(e)) != NULL &&
        strcmp(now, t_swap.old) == 0)
        return 0;
    slapi_pblock_set(pb, SLAPI_RESULT_CODE, &rc);
    return -1;
}

static void
free_secret(char **p)
{
    if (*p != NULL)
        kdf_wipe(*p, strlen(*p));
    slapi_ch_free_string(p);
}

static void
wipe_mods(Slapi_Mods *smods)
{
    for (LDAPMod *m = slapi_mods_get_first_mod(smods); m != NULL;
         m = slapi_mods_get_next_mod(smods))
        for (int i = 0; (m->mod_op & LDAP_MOD_BVALUES) && m->mod_bvalues != NULL &&
                        m->mod_bvalues[i] != NULL;
             i++)
            if (m->mod_bvalues[i]->bv_val != NULL)
                kdf_wipe(m->mod_bvalues[i]->bv_val, m->mod_bvalues[i]->bv_len);
}

/* One modify, old for new, under be_pre_modify's check.  The LDAP result. */
static int
swap_value(const Slapi_DN *sdn, const char *old, const char *new)
{
    Slapi_PBlock *pb = slapi_pblock_new();
    Slapi_Mods *smods = slapi_mods_new();
    int res = LDAP_OPERATIONS_ERROR;

    slapi_mods_add_string(smods, LDAP_MOD_REPLACE, "userPassword", new);
    slapi_modify_internal_set_pb_ext(pb, sdn, slapi_mods_get_ldapmods_byref(smods), NULL, NULL,
                                     g_identity,
                                     KDS_OP_SKIP_MODIFIED_ATTRS | KDS_OP_SKIP_PWDPOLICY);
    t_swap.ndn = slapi_sdn_get_ndn(sdn);
    t_swap.old = old;
    slapi_modify_internal_pb(pb);
    t_swap.ndn = NULL;
    t_swap.old = NULL;
    slapi_pblock_get(pb, SLAPI_PLUGIN_INTOP_RESULT, &res);
    /* The mods hold a copy of the new value: a hash, not a password, but
     * nothing of it should linger in freed memory. */
    wipe_mods(smods);
    slapi_mods_free(&smods);
    slapi_pblock_destroy(pb);
    return res;
}

static void
say_result(const struct kds_scheme *s, const char *dn, enum kdf_rehash why, int res)
{
    char target[128];
    struct kds_conf c;

    kds_stat_add(res == LDAP_SUCCESS             ? KDS_ST_UPGRADES
                 : res == LDAP_NO_SUCH_ATTRIBUTE ? KDS_ST_UPGRADES_LOST
                                                 : KDS_ST_UPGRADE_ERRORS);
    switch (res) {
    case LDAP_SUCCESS:
        kds_conf_get((struct kds_scheme *)s, &c);
        if (kdf_target_format(&c.enc, target, sizeof target) != KDF_OK)
            snprintf(target, sizeof target, "%s", kdf_target_name(&c.enc));
        slapi_log_error(SLAPI_LOG_INFO, KDS_UPGRADE, "%s: re-encoded %s at %s (was: %s)\n",
                      s->name, dn, target, kdf_rehash_reason(why));
        break;
    case LDAP_NO_SUCH_ATTRIBUTE:
        slapi_log_error(SLAPI_LOG_INFO, KDS_UPGRADE,
                      "%s: %s not re-encoded: its value changed meanwhile, and that "
                      "change stands\n",
                      s->name, dn);
        break;
    case LDAP_CONSTRAINT_VIOLATION:
        slapi_log_error(SLAPI_LOG_NOTICE, KDS_UPGRADE,
                      "%s: %s not re-encoded: the password policy refused the change "
                      "(passwordMinAge?); a later bind retries\n",
                      s->name, dn);
        break;
    default:
        slapi_log_error(SLAPI_LOG_ERR, KDS_UPGRADE, "%s: %s not re-encoded: modify error %d\n",
                      s->name, dn, res);
        break;
    }
}

static void
upgrade(Slapi_PBlock *pb, struct kds_scheme *s, const Slapi_DN *sdn, const char *pw,
        const char *stored, enum kdf_rehash why)
{
    const char *dn = slapi_sdn_get_dn(sdn);
    char *old = NULL, *new = NULL;

    if (config_allows(s) != 0)
        return;
    /* 389-ds's own re-encode in this bind, or any change since the compare,
     * replaced the value: nothing of ours to do. */
    old = current_value(s, sdn, stored);
    if (old == NULL) {
        slapi_log_error(SLAPI_LOG_PLUGIN, KDS_UPGRADE,
                      "%s: %s: the value the bind matched is gone\n", s->name, dn);
        return;
    }
    /* The scheme this entry's password policy encodes with: when it is
     * another name, 389-ds moves the value itself (or was told not to). */
    new = slapi_encode_ext(pb, sdn, (char *)pw, NULL);
    if (new == NULL) {
        /* The scheme said why (a full memory budget, say). */
        slapi_log_error(SLAPI_LOG_ERR, KDS_UPGRADE,
                      "%s: %s not re-encoded: no new value was made\n", s->name, dn);
        free_secret(&old);
        return;
    }
    if (body_of(s, new) == NULL) {
        slapi_log_error(SLAPI_LOG_PLUGIN, KDS_UPGRADE,
                      "%s: %s: its password policy encodes with another scheme\n", s->name,
                      dn);
        free_secret(&new);
        free_secret(&old);
        return;
    }
    say_result(s, dn, why, swap_value(sdn, old, new));
    free_secret(&new);
    free_secret(&old);
}

static int
post_bind(Slapi_PBlock *pb)
{
    char stored[KDF_MAX_HASH_STR + 1];
    enum kdf_rehash why = KDF_REHASH_NO;
    int keep = kds_bind_keeps_scheme();
    struct kds_scheme *s = kds_bind_end(stored, sizeof stored, &why);
    struct berval *cred = NULL;
    ber_tag_t method = 0;
    Slapi_DN *sdn = NULL;
    char *conn_dn = NULL;
    void *conn = NULL;
    int rc = -1;

    if (s == NULL)
        return 0;
    if (keep) {
        kdf_wipe(stored, sizeof stored);
        return 0;
    }
    /* A successful simple bind with a password, as this connection's
     * identity now: the password is the one the noted value matched. */
    if (slapi_pblock_get(pb, SLAPI_PLUGIN_OPRETURN, &rc) == 0 && rc == SLAPI_BIND_SUCCESS &&
        slapi_pblock_get(pb, SLAPI_BIND_METHOD, &method) == 0 && method == LDAP_AUTH_SIMPLE &&
        slapi_pblock_get(pb, SLAPI_BIND_CREDENTIALS, &cred) == 0 && cred != NULL &&
        cred->bv_val != NULL && cred->bv_len > 0 &&
        slapi_pblock_get(pb, SLAPI_BIND_TARGET_SDN, &sdn) == 0 && sdn != NULL &&
        slapi_sdn_get_ndn(sdn) != NULL && !slapi_dn_isroot(slapi_sdn_get_ndn(sdn)) &&
        slapi_pblock_get(pb, SLAPI_CONNECTION, &conn) == 0 && conn != NULL &&
        slapi_pblock_get(pb, SLAPI_CONN_DN, &conn_dn) == 0 && conn_dn != NULL &&
        strcmp(conn_dn, slapi_sdn_get_ndn(sdn)) == 0)
        upgrade(pb, s, sdn, cred->bv_val, stored, why);
    slapi_ch_free_string(&conn_dn);
    kdf_wipe(stored, sizeof stored);
    return 0;
}

/* The three callbacks are three plugins of the server's: one init each. */
static int
callback_init(Slapi_PBlock *pb, int slot, int (*fn)(Slapi_PBlock *))
{
    if (slapi_pblock_set(pb, SLAPI_PLUGIN_VERSION, (void *)SLAPI_PLUGIN_VERSION_01) != 0 ||
        slapi_pblock_set(pb, SLAPI_PLUGIN_DESCRIPTION, (void *)&g_desc) != 0 ||
        slapi_pblock_set(pb, slot, (void *)fn) != 0)
        return -1;
    return 0;
}

static int
pre_init(Slapi_PBlock *pb)
{
    if (callback_init(pb, SLAPI_PLUGIN_PRE_BIND_FN, pre_bind) != 0 ||
        slapi_pblock_set(pb, SLAPI_PLUGIN_PRE_MODIFY_FN, (void *)pre_modify) != 0 ||
        slapi_pblock_set(pb, SLAPI_PLUGIN_PRE_ADD_FN, (void *)pre_other) != 0)
        return -1;
    return 0;
}

/* The password modify extended operation (a plugin type of its own). */
static int
pre_extop_init(Slapi_PBlock *pb)
{
    return callback_init(pb, SLAPI_PLUGIN_PRE_EXTOP_FN, pre_other);
}

/* The entry's arguments: keep-dn=DN, one DN per argument (a DN holds
 * commas), for the DNs other services bind as.  key=value as the schemes'
 * arguments (ds_config.c); an unknown key is refused.  0 or -1. */
static int
take_args(Slapi_PBlock *pb)
{
    char **argv = NULL, *keep = NULL, *old;
    int argc = 0;

    if (slapi_pblock_get(pb, SLAPI_PLUGIN_ARGC, &argc) != 0 ||
        slapi_pblock_get(pb, SLAPI_PLUGIN_ARGV, &argv) != 0)
        argc = 0;
    for (int i = 0; i < argc && argv != NULL && argv[i] != NULL; i++) {
        if (strncasecmp(argv[i], "keep-dn=", 8) != 0 || argv[i][8] == '\0') {
            slapi_log_error(SLAPI_LOG_ERR, KDS_UPGRADE,
                          "plugin argument %d is not keep-dn=DN\n", i);
            slapi_ch_free_string(&keep);
            return -1;
        }
        list_add(&keep, argv[i] + 8);
    }
    pthread_rwlock_wrlock(&g_keep_lock);
    old = g_keep;
    g_keep = keep;
    pthread_rwlock_unlock(&g_keep_lock);
    slapi_ch_free_string(&old);
    return 0;
}

static int
be_pre_init(Slapi_PBlock *pb)
{
    return callback_init(pb, SLAPI_PLUGIN_BE_PRE_MODIFY_FN, be_pre_modify);
}

static int
post_init(Slapi_PBlock *pb)
{
    return callback_init(pb, SLAPI_PLUGIN_POST_BIND_FN, post_bind);
}

/* The counters (ds_stats.c), added to the entry a base search of the
 * upgrade entry returns (389-ds hands the callback a copy). */
static char *g_entry_dn;

static int
show_counters(Slapi_PBlock *pb, Slapi_Entry *e, Slapi_Entry *after, int *rc, char *text,
              void *arg)
{
    struct kds_stat_pair pool[KDS_STAT_POOL_N];
    char num[24];

    (void)pb, (void)after, (void)text, (void)arg;
    for (int i = 0; i < KDS_ST_COUNT; i++) {
        snprintf(num, sizeof num, "%llu", (unsigned long long)kds_stat_get((enum kds_stat)i));
        slapi_entry_attr_set_charptr(e, kds_stat_attr((enum kds_stat)i), num);
    }
    kds_stat_pool(pool);
    for (int i = 0; i < KDS_STAT_POOL_N; i++) {
        snprintf(num, sizeof num, "%llu", (unsigned long long)pool[i].value);
        slapi_entry_attr_set_charptr(e, pool[i].attr, num);
    }
    *rc = LDAP_SUCCESS;
    return SLAPI_DSE_CALLBACK_OK;
}

static int
start(Slapi_PBlock *pb)
{
    (void)pb;
    if (g_entry_dn != NULL &&
        slapi_config_register_callback(SLAPI_OPERATION_SEARCH, DSE_FLAG_PREOP, g_entry_dn,
                                       LDAP_SCOPE_BASE, "(objectclass=*)", show_counters,
                                       NULL) != 1)
        slapi_log_error(SLAPI_LOG_WARNING, KDS_UPGRADE,
                      "the counters will not show on the entry\n");
    return 0;
}

static int
close_entry(Slapi_PBlock *pb)
{
    (void)pb;
    if (g_entry_dn != NULL)
        slapi_config_remove_callback(SLAPI_OPERATION_SEARCH, DSE_FLAG_PREOP, g_entry_dn,
                                     LDAP_SCOPE_BASE, "(objectclass=*)", show_counters);
    return 0;
}

/* The init function nsslapd-pluginInitfunc names (exported). */
int kdfhash_upgrade_init(Slapi_PBlock *pb);

int
kdfhash_upgrade_init(Slapi_PBlock *pb)
{
    char *dn = NULL;
    int enabled = 1;

    if (slapi_pblock_get(pb, SLAPI_PLUGIN_ENABLED, &enabled) == 0 && !enabled)
        return 0;
    if (slapi_pblock_get(pb, SLAPI_PLUGIN_CONFIG_DN, &dn) == 0 && dn != NULL) {
        slapi_ch_free_string(&g_entry_dn);
        g_entry_dn = slapi_ch_strdup(dn);
    }
    if (slapi_pblock_set(pb, SLAPI_PLUGIN_VERSION, (void *)SLAPI_PLUGIN_VERSION_01) != 0 ||
        slapi_pblock_set(pb, SLAPI_PLUGIN_DESCRIPTION, (void *)&g_desc) != 0 ||
        slapi_pblock_set(pb, SLAPI_PLUGIN_START_FN, (void *)start) != 0 ||
        slapi_pblock_set(pb, SLAPI_PLUGIN_CLOSE_FN, (void *)close_entry) != 0 ||
        slapi_pblock_get(pb, SLAPI_PLUGIN_IDENTITY, &g_identity) != 0 || take_args(pb) != 0 ||
        slapi_register_plugin("preoperation", 1, "kdfhash_upgrade_pre_init", pre_init,
                              KDS_UPGRADE " (pre-bind)", NULL, g_identity) != 0 ||
        slapi_register_plugin("preextendedop", 1, "kdfhash_upgrade_pre_extop_init",
                              pre_extop_init, KDS_UPGRADE " (end of a bind)", NULL,
                              g_identity) != 0 ||
        slapi_register_plugin("bepreoperation", 1, "kdfhash_upgrade_be_pre_init", be_pre_init,
                              KDS_UPGRADE " (compare-and-swap)", NULL, g_identity) != 0 ||
        slapi_register_plugin("postoperation", 1, "kdfhash_upgrade_post_init", post_init,
                              KDS_UPGRADE " (post-bind)", NULL, g_identity) != 0) {
        slapi_log_error(SLAPI_LOG_ERR, KDS_UPGRADE, "could not register\n");
        return -1;
    }
    kds_upgrade_set_loaded();
    slapi_log_error(SLAPI_LOG_PLUGIN, KDS_UPGRADE,
                  "outdated values are re-encoded after a successful bind\n");
    return 0;
}

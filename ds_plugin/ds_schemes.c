/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ds_schemes.c - encode and compare, as 389-ds calls a storage scheme.
 *
 * 389-ds hands compare the stored value without its "{NAME}" and expects 0
 * for a match; encode returns the whole "{NAME}value" in memory of
 * slapi_ch_malloc().  Both run on the server's worker threads at once, and
 * while a reconfiguration may replace the scheme's policy: each call takes
 * a copy of the configuration first (kds_conf_get) and reads only that; the
 * hash strings and digests live on the stack and are wiped before return
 * (kdf_verify_ex wipes its own).
 *
 * Every refusal of a value that was not verified (malformed, of another
 * family, over the caps) costs one verification at the scheme's target, so
 * that a bind's time does not tell them apart from a wrong password (once:
 * while the value stays suspect to the storm gate, ds_fair.c, refusals
 * are cheap).  The
 * error log gets the reason, never the value or the password.
 */
#include "config.h"

#include "kdfhash_ds.h"

#include <slapi-plugin.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

/* Outdated within the name's own family: judged against what the name
 * writes (c->fam), not the policy's target, so that a BCRYPT value is not
 * outdated for not being Argon2, but is below min.bcrypt or the cost
 * BCRYPT writes; another member ($argon2i$ under ARGON2 writing argon2id,
 * PBKDF2-SHA1 under KDF-PBKDF2 writing SHA-512) and a flawed version are.
 * KDF_REHASH_NO when it is not. */
static enum kdf_rehash
outdated_in_family(const struct kds_conf *c, const struct kdf_hash *h)
{
    enum kdf_rehash r = kdf_needs_rehash(h, &c->fam);

    return r == KDF_REHASH_MIGRATE || r == KDF_REHASH_LEGACY ? KDF_REHASH_NO : r;
}

/* A match on an outdated value: left for the upgrade's post-bind callback
 * (ds_upgrade.c), which re-encodes it once the client has its answer.
 * Without the upgrade entry nothing re-encodes it (389-ds itself compares
 * scheme names only): say so, once. */
static void
note_outdated(struct kds_scheme *s, const char *stored, size_t len, enum kdf_rehash why)
{
    if (kds_bind_note(s, stored, len, why) == 0 || kds_upgrade_loaded())
        return;
    if (!atomic_flag_test_and_set(&s->said_outdated))
        slapi_log_error(SLAPI_LOG_WARNING, KDS_LOG,
                      "%s: some stored values are outdated (%s) and are not re-encoded at "
                      "bind: the entry cn=kdfhash upgrade at bind is not loaded "
                      "(see 389-ds-kdfhash(8))\n",
                      s->name, kdf_rehash_reason(why));
}

static size_t
pw_length(const struct kds_conf *c, const char *pw)
{
    /* One past the cap is enough to refuse: never scan a huge password. */
    return strnlen(pw, (size_t)c->pol.max_password_len + 1);
}

/* The time of a verification at the target, for a value not verified. */
static void
equalise(const struct kds_conf *c, const char *pw, size_t pw_len)
{
    char buf[KDF_MAX_HASH_STR + 1];
    struct kdf_hash h;

    if (pw_len > c->pol.max_password_len)
        pw_len = c->pol.max_password_len;
    /* Its answer is thrown away: the caller refuses whatever it says. */
    if (kdf_dummy_hash(&c->enc, buf, sizeof buf, &h) == KDF_OK &&
        kdf_verify_ex(pw, pw_len, &h, &c->pol, NULL, 0) == KDF_OK)
        return;
}

char *
kds_encode(struct kds_scheme *s, const char *pw)
{
    char buf[KDF_MAX_HASH_STR + 1];
    struct kds_conf c;
    size_t pw_len;
    enum kdf_status st;
    char *out;

    if (pw == NULL)
        return NULL;
    if (s->wrapped) {
        slapi_log_error(SLAPI_LOG_ERR, KDS_LOG,
                      "%s: not encoded: this name only holds the values kdfhash-ds-wrap "
                      "wrote; choose another passwordStorageScheme (ARGON2)\n",
                      s->name);
        return NULL;
    }
    /* A bind whose DN must keep its scheme (the replication manager, say:
     * ds_scope.c): 389-ds's own re-encode at bind then keeps the old value
     * (update_pw_encoding() in pw.c logs "Could not re-encode password" at
     * WARNING and the bind succeeds).  Encodes outside a bind go on. */
    if (kds_bind_keeps_scheme()) {
        slapi_log_error(SLAPI_LOG_PLUGIN, KDS_LOG,
                      "%s: not encoded: this bind's DN keeps its scheme\n", s->name);
        return NULL;
    }
    kds_conf_get(s, &c);
    pw_len = pw_length(&c, pw);
    if (pw_len > c.pol.max_password_len) {
        slapi_log_error(SLAPI_LOG_ERR, KDS_LOG,
                      "%s: password longer than max.password (%u bytes): not stored\n",
                      s->name, (unsigned)c.pol.max_password_len);
        return NULL;
    }
    st = kdf_hash_ex(pw, pw_len, &c.enc, &c.pol, NULL, 0, buf, sizeof buf);
    if (st != KDF_OK) {
        kdf_wipe(buf, sizeof buf);
        slapi_log_error(SLAPI_LOG_ERR, KDS_LOG, "%s: hashing failed: %s\n", s->name,
                      kdf_status_str(st));
        return NULL;
    }
    out = slapi_ch_smprintf("{%s}%s", s->name, buf);
    kdf_wipe(buf, sizeof buf);
    return out;
}

/* The answer to a bind whose stored value kdf_verify_ex() judged st: 0 for
 * a match (an outdated one noted for the upgrade entry), else 1, with the
 * server's own trouble logged. */
static int
verify_answer(struct kds_scheme *s, const struct kds_conf *c, const struct kdf_hash *h,
              const char *stored, enum kdf_status st)
{
    if (st == KDF_OK)
        kds_stat_add(KDS_ST_MATCHES);
    else if (st == KDF_MISMATCH)
        kds_stat_add(KDS_ST_MISMATCHES);
    else if (st == KDF_BUSY)
        kds_stat_add(KDS_ST_BUSY);
    switch (st) {
    case KDF_OK: {
        /* 389-ds re-encodes at bind only when the configured scheme's name
         * differs from the value's: it cannot be told that an {ARGON2} of
         * 2019 is below today's target.  The upgrade entry can. */
        enum kdf_rehash why = outdated_in_family(c, h);

        /* A wrapped value is unwrapped by 389-ds's own re-encode at bind:
         * its name is never passwordStorageScheme (kds_encode refuses). */
        if (why != KDF_REHASH_NO && !s->wrapped)
            note_outdated(s, stored, strnlen(stored, KDF_MAX_HASH_STR + 1), why);
        return 0;
    }
    case KDF_MISMATCH:
        return 1;
    case KDF_BUSY:
        slapi_log_error(SLAPI_LOG_ERR, KDS_LOG,
                      "%s: bind refused: the memory budget (max.memory) stayed full\n",
                      s->name);
        return 1;
    case KDF_OVER_BUDGET:
        slapi_log_error(SLAPI_LOG_ERR, KDS_LOG,
                      "%s: bind refused: the value needs more memory than the whole "
                      "budget (max.memory) allows; raise max.memory\n",
                      s->name);
        return 1;
    default:
        slapi_log_error(SLAPI_LOG_ERR, KDS_LOG, "%s: bind refused: %s\n", s->name,
                      kdf_status_str(st));
        return 1;
    }
}

int
kds_compare(struct kds_scheme *s, const char *pw, const char *stored)
{
    char joined[KDF_MAX_HASH_STR + 1];
    const char *str = stored, *reason = NULL;
    struct kds_conf c;
    struct kds_fair_ticket ft;
    size_t pw_len, len;
    struct kdf_hash h;
    enum kdf_status st;

    if (pw == NULL || stored == NULL)
        return 1;
    kds_conf_get(s, &c);
    pw_len = pw_length(&c, pw);
    len = strnlen(stored, KDF_MAX_HASH_STR + 1);
    /* A value under a storm of wrong passwords waits for its place, or is
     * refused here, before any work (ds_fair.c). */
    if (kds_fair_enter(stored, len, &ft) != 0) {
        kds_stat_add(KDS_ST_STORM_REFUSED);
        return 1;
    }
    kds_stat_add(KDS_ST_COMPARES);
    if (len > KDF_MAX_HASH_STR) {
        reason = "longer than any hash the plugin reads";
        goto refuse;
    }
    /* OpenLDAP pw-pbkdf2's body "<iter>$<salt>$<dk>": the core's map of a
     * directory value names the passlib string it stands for. */
    if (s->openldap_body && stored[0] >= '0' && stored[0] <= '9') {
        char v[KDF_MAX_HASH_STR + 32];
        int n = snprintf(v, sizeof v, "{%s}%s", s->name, stored);

        st = n < 0 || (size_t)n >= sizeof v
                 ? KDF_RANGE
                 : kdf_ds_value_string(v, (size_t)n, joined, sizeof joined, &len, &reason);
        kdf_wipe(v, sizeof v);
        if (st != KDF_OK) {
            if (st == KDF_RANGE)
                reason = "longer than any hash the plugin reads";
            goto refuse;
        }
        str = joined;
    }
    st = kdf_parse(str, len, &h, &reason);
    if (st != KDF_OK)
        goto refuse;
    if (!kds_holds(s, &h)) {
        reason = "a hash of another scheme";
        goto refuse;
    }
    st = kdf_check_caps(&h, pw_len, &c.pol, &reason);
    if (st != KDF_OK) {
        kds_stat_add(KDS_ST_OVER_CAPS);
        slapi_log_error(SLAPI_LOG_ERR, KDS_LOG,
                      "%s: bind refused: the stored value is over the caps (%s)\n", s->name,
                      reason != NULL ? reason : "caps");
        kdf_wipe(joined, sizeof joined);
        if (!ft.suspect)
            equalise(&c, pw, pw_len);
        kds_fair_leave(&ft, KDS_FAIR_FAIL);
        return 1;
    }
    st = kdf_verify_ex(pw, pw_len, &h, &c.pol, NULL, 0);
    kdf_wipe(joined, sizeof joined);
    /* The server's own trouble (the memory budget, an error) says nothing
     * of the password: neither a match nor a failure of the value. */
    kds_fair_leave(&ft, st == KDF_OK         ? KDS_FAIR_MATCH
                        : st == KDF_MISMATCH ? KDS_FAIR_FAIL
                                             : KDS_FAIR_NEITHER);
    return verify_answer(s, &c, &h, stored, st);

refuse:
    kds_stat_add(KDS_ST_REFUSED);
    slapi_log_error(SLAPI_LOG_ERR, KDS_LOG, "%s: bind refused: the stored value is refused (%s)\n",
                  s->name, reason != NULL ? reason : "malformed");
    kdf_wipe(joined, sizeof joined);
    /* Equalised once; while the value stays suspect its refusals are
     * cheap: a storm against a broken value costs nothing. */
    if (!ft.suspect)
        equalise(&c, pw, pw_len);
    kds_fair_leave(&ft, KDS_FAIR_FAIL);
    return 1;
}

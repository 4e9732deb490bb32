/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * api_target.c - the text of a target ("argon2id m=65536,t=3,p=4", "bcrypt
 * cost=12", "yescrypt cost=5"), read and written through the keys that
 * each scheme's row lists with their bounds and defaults.
 */
#include "kdf_prelude.h"

#include <stdio.h>

#include "kdf_scheme.h"
#include "api_policy_text.h"

const char *
kdf_target_name(const struct kdf_target *t)
{
    const struct kdf_scheme_desc *row = kdf_scheme_target_row(t);

    return row != NULL ? row->name : "legacy";
}

uint32_t *
kdf_target_field(struct kdf_target *t, enum kdf_tfield f)
{
    switch (f) {
    case KDF_TF_COST:
        return &t->cost;
    case KDF_TF_M:
        return &t->m_kib;
    case KDF_TF_P:
        return &t->lanes;
    case KDF_TF_BLOCK:
        return &t->block_size;
    case KDF_TF_V:
        return &t->version;
    case KDF_TF_SALT:
        return &t->salt_len;
    case KDF_TF_LEN:
        return &t->dk_len;
    default:
        return NULL; /* words: minor, format */
    }
}

/* A word-valued key (minor, format): 0 when v is one of the key's words
 * (then set), -1 otherwise. */
static int
set_word(struct kdf_target *t, const struct kdf_tkey *key, const char *v, size_t vlen,
         char *err, size_t err_cap)
{
    char list[96];
    size_t n = 0;

    list[0] = '\0';
    for (const struct kdf_tword *w = key->words; w != NULL && w->word != NULL; w++) {
        if (kdf_pol_span_eq(v, vlen, w->word)) {
            if (key->field == KDF_TF_MINOR)
                t->bcrypt_minor = (char)w->value;
            else
                t->format = (enum kdf_format)w->value;
            return 0;
        }
        if (n + strlen(w->word) + 2 < sizeof list)
            n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", n ? ", " : "", w->word);
    }
    kdf_errf(err, err_cap, "%s must be one of %s", key->key, list);
    return -1;
}

/* The word a word-valued key has in t. */
static const char *
word_of(const struct kdf_target *t, const struct kdf_tkey *key)
{
    uint32_t v = key->field == KDF_TF_MINOR ? (uint32_t)(unsigned char)t->bcrypt_minor
                                            : (uint32_t)t->format;

    for (const struct kdf_tword *w = key->words; w != NULL && w->word != NULL; w++)
        if (w->value == v)
            return w->word;
    return "?";
}

/* Validity only: the row's check under caps and minimums that allow all
 * (the policy then holds the target to its own). */
static const char *
target_invalid(const struct kdf_scheme_desc *row, const struct kdf_target *t)
{
    struct kdf_policy open;
    const char *over = NULL;

    memset(&open, 0, sizeof open); /* every minimum 0 */
    open.max_password_len = UINT32_MAX;
    for (size_t r = 0; r < kdf_nschemes; r++)
        for (size_t i = 0; i < kdf_schemes[r]->npkeys; i++) {
            const struct kdf_pkey *k = kdf_schemes[r]->pkeys[i];

            if (k->in_bound && (k->role & KDF_PR_CAP))
                for (unsigned p = 0; p < (k->kind == KDF_PK_MTP ? 3u : 1u); p++)
                    open.bound[k->fam][k->slot + p] = UINT32_MAX;
        }
    return row->target_check(t, &open, &over);
}

/* Every target scheme, for the error message. */
static void
unknown_scheme(char *err, size_t err_cap)
{
    char names[256];
    size_t n = 0;

    names[0] = '\0';
    for (size_t i = 0; i < kdf_nschemes; i++) {
        const struct kdf_scheme_desc *r = kdf_schemes[i];
        int w;
        if (r->target_check == NULL)
            continue;
        w = snprintf(names + n, sizeof names - n, "%s%s", n ? ", " : "", r->name);
        if (w < 0 || (size_t)w >= sizeof names - n)
            break;
        n += (size_t)w;
    }
    kdf_errf(err, err_cap, "unknown target scheme (%s)", names);
}

enum kdf_status
kdf_target_parse(const char *text, struct kdf_target *t, char *err, size_t err_cap)
{
    const struct kdf_scheme_desc *row;
    struct kdf_target nt;
    const char *k, *v, *why;
    size_t n, i = 0, klen, vlen, pos;
    unsigned seen = 0;
    int r, first = 1;

    if (text == NULL || t == NULL) {
        kdf_errf(err, err_cap, "no target given");
        return KDF_RANGE;
    }
    n = strlen(text);
    while (i < n && kdf_pol_is_space(text[i]))
        i++;
    while (n > i && kdf_pol_is_space(text[n - 1]))
        n--;
    /* "argon2id m=..." in the file; "argon2id:m=..." in a PAM argument,
     * where a blank would split the argument. */
    pos = i;
    while (pos < n && !kdf_pol_is_space(text[pos]) && text[pos] != ':')
        pos++;
    row = kdf_scheme_named(text + i, pos - i);
    if (row == NULL || row->target_check == NULL) {
        unknown_scheme(err, err_cap);
        return KDF_MALFORMED;
    }
    if (pos < n && text[pos] == ':') {
        pos++;
        if (pos == n) {
            kdf_errf(err, err_cap, "nothing after ':' in target");
            return KDF_MALFORMED;
        }
    }
    nt = row->defaults;

    while ((r = kdf_pol_item(text, n, &pos, &first, &k, &klen, &v, &vlen)) == 1) {
        const struct kdf_tkey *key = NULL;
        size_t ki;
        uint32_t num = 0, *f;

        for (ki = 0; ki < row->nkeys; ki++)
            if (kdf_pol_span_eq(k, klen, row->keys[ki].key)) {
                key = &row->keys[ki];
                break;
            }
        if (key == NULL) {
            kdf_errf(err, err_cap, "unknown parameter '%.*s' for %s",
                     (int)(klen > 16 ? 16 : klen), k, row->name);
            return KDF_MALFORMED;
        }
        if (seen & (1u << ki)) {
            kdf_errf(err, err_cap, "parameter '%s' given twice", key->key);
            return KDF_MALFORMED;
        }
        seen |= 1u << ki;
        f = kdf_target_field(&nt, key->field);
        if (f == NULL) {
            if (set_word(&nt, key, v, vlen, err, err_cap) != 0)
                return KDF_MALFORMED;
            continue;
        }
        if (kdf_pol_u32(v, vlen, &num) != 0) {
            kdf_errf(err, err_cap, "bad number for '%s'", key->key);
            return KDF_MALFORMED;
        }
        if (num < key->lo || num > key->hi) {
            if (key->lo == key->hi)
                kdf_errf(err, err_cap, "%s must be %u", key->key, (unsigned)key->lo);
            else
                kdf_errf(err, err_cap, "%s outside %u..%u", key->key, (unsigned)key->lo,
                         (unsigned)key->hi);
            return KDF_MALFORMED;
        }
        *f = num;
    }
    if (r < 0) {
        kdf_errf(err, err_cap, "empty or malformed parameter in target");
        return KDF_MALFORMED;
    }
    why = target_invalid(row, &nt);
    if (why != NULL) {
        kdf_errf(err, err_cap, "invalid target: %s", why);
        return KDF_MALFORMED;
    }
    *t = nt;
    return KDF_OK;
}

enum kdf_status
kdf_target_format(const struct kdf_target *t, char *out, size_t cap)
{
    const struct kdf_scheme_desc *row;
    struct kdf_target tc;
    size_t n;
    int w;

    if (t == NULL || out == NULL || cap == 0)
        return KDF_RANGE;
    out[0] = '\0';
    row = kdf_scheme_target_row(t);
    if (row == NULL || row->keys == NULL)
        return KDF_UNSUPPORTED;
    tc = *t;
    w = snprintf(out, cap, "%s", row->name);
    for (size_t i = 0; w >= 0 && (size_t)w < cap && i < row->nkeys; i++) {
        const struct kdf_tkey *key = &row->keys[i];
        uint32_t *f = kdf_target_field(&tc, key->field), dflt;
        const char *sep = i == 0 ? " " : ",";
        int x;

        n = (size_t)w;
        if (f != NULL) {
            dflt = *kdf_target_field((struct kdf_target *)&row->defaults, key->field);
            if ((key->flags & KDF_TK_QUIET) && *f == dflt)
                continue;
            x = snprintf(out + n, cap - n, "%s%s=%u", sep, key->key, (unsigned)*f);
        } else {
            x = snprintf(out + n, cap - n, "%s%s=%s", sep, key->key, word_of(&tc, key));
        }
        w = x < 0 ? x : w + x;
    }
    if (w < 0 || (size_t)w >= cap) {
        out[0] = '\0';
        return KDF_RANGE;
    }
    return KDF_OK;
}

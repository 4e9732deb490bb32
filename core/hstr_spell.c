/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hstr_spell.c - what every scheme row shares: the one writer of hash strings
 * (kdf_spell), the decoder of a parsed salt or digest in the row's
 * alphabet, and the caps of memory-hard work.  Calls only util_b64.c and the
 * row it is handed: no scheme file reaches back through here.
 */
#include "kdf_prelude.h"
#include "hstr_xcrypt_cost.h"
#include "util_b64.h"

#include "hstr.h"
#include "kdf_scheme.h"

/* Digest (digest 1) or salt (0) of a KDF_ALPHA_JOINED blob. */
static enum kdf_status
joined_decode(const struct kdf_hash *h, int digest, uint8_t *out, size_t cap,
              size_t *out_len)
{
    uint8_t blob[KDF_MAX_DIGEST + KDF_MAX_SALT];
    size_t n = 0, from, len;
    enum kdf_status st;

    st = kdf_b64_decode(KDF_B64_STD_PAD, h->digest.ptr, h->digest.len, blob, sizeof blob, &n);
    if (st == KDF_OK && (h->dk_len > n || (h->salt.ptr != h->digest.ptr ||
                                           h->salt.len != h->digest.len)))
        st = KDF_RANGE;
    if (st == KDF_OK) {
        from = digest ? 0 : h->dk_len;
        len = digest ? h->dk_len : n - h->dk_len;
        if (len > cap) {
            st = KDF_RANGE;
        } else {
            if (len != 0)
                memcpy(out, blob + from, len);
            if (out_len != NULL)
                *out_len = len;
        }
    }
    kdf_wipe(blob, sizeof blob);
    return st;
}

enum kdf_status
kdf_span_decode(const struct kdf_scheme_desc *row, const struct kdf_hash *h, int digest,
                uint8_t *out, size_t cap, size_t *out_len)
{
    const struct kdf_span *sp;
    int a;

    if (out_len != NULL)
        *out_len = 0;
    if (row == NULL || h == NULL || (out == NULL && cap != 0))
        return KDF_RANGE;
    sp = digest ? &h->digest : &h->salt;
    if ((sp->ptr == NULL && sp->len != 0) || sp->len > KDF_MAX_HASH_STR)
        return KDF_RANGE;
    a = row->alphabet(h, digest);
    if (a == -2)
        return KDF_UNSUPPORTED; /* crypt(3): nothing of ours */
    if (a == KDF_ALPHA_JOINED)
        return joined_decode(h, digest, out, cap, out_len);
    if (a == -1) {
        /* Text used as it stands (Django's salt). */
        if (sp->len > cap)
            return KDF_RANGE;
        if (sp->len != 0)
            memcpy(out, sp->ptr, sp->len);
        if (out_len != NULL)
            *out_len = sp->len;
        return KDF_OK;
    }
    if (a == KDF_B64_BCRYPT)
        return kdf_b64_bcrypt_decode_lenient(sp->ptr, sp->len, out, cap, out_len);
    return kdf_b64_decode((enum kdf_b64)a, sp->ptr, sp->len, out, cap, out_len);
}

/* The span of bytes in alphabet a (or as text when a is -1), into buf. */
static enum kdf_status
spell_span(int a, const uint8_t *in, size_t n, char *buf, size_t cap, struct kdf_span *sp)
{
    size_t len = 0;
    enum kdf_status st;

    if (a == -1) {
        if (n > cap)
            return KDF_RANGE;
        if (n != 0)
            memcpy(buf, in, n);
        len = n;
    } else if (a < 0) {
        return KDF_UNSUPPORTED;
    } else {
        st = kdf_b64_encode((enum kdf_b64)a, in, n, buf, cap, &len);
        if (st != KDF_OK)
            return st;
    }
    sp->ptr = buf;
    sp->len = len;
    return KDF_OK;
}

/* The digest then the salt, as one KDF_ALPHA_JOINED blob, into buf. */
static enum kdf_status
spell_joined(const uint8_t *dig, size_t dig_len, const uint8_t *salt, size_t salt_len,
             char *buf, size_t cap, struct kdf_span *sp)
{
    uint8_t blob[KDF_MAX_DIGEST + KDF_MAX_SALT];
    size_t len = 0;
    enum kdf_status st = KDF_RANGE;

    if (dig_len <= KDF_MAX_DIGEST && salt_len <= KDF_MAX_SALT &&
        (salt != NULL || salt_len == 0) && (dig != NULL || dig_len == 0)) {
        if (dig_len != 0)
            memcpy(blob, dig, dig_len);
        if (salt_len != 0)
            memcpy(blob + dig_len, salt, salt_len);
        st = kdf_b64_encode(KDF_B64_STD_PAD, blob, dig_len + salt_len, buf, cap, &len);
        kdf_wipe(blob, sizeof blob);
    }
    if (st == KDF_OK)
        *sp = (struct kdf_span){buf, len};
    return st;
}

enum kdf_status
kdf_spell(const struct kdf_scheme_desc *row, const struct kdf_target *t, const uint8_t *salt,
          size_t salt_len, const uint8_t *dig, size_t dig_len, char *out, size_t cap)
{
    char salt_enc[2 * KDF_MAX_SALT + 4], dig_enc[2 * KDF_MAX_DIGEST + 4];
    char joined[2 * (KDF_MAX_DIGEST + KDF_MAX_SALT) + 4];
    struct kdf_hash h, chk;
    struct kdf_wbuf b = {out, cap, 0, 0};
    const char *why = NULL;
    enum kdf_status st;

    if (row == NULL || row->fill == NULL || t == NULL || out == NULL || cap == 0)
        return KDF_RANGE;
    out[0] = '\0';
    memset(&h, 0, sizeof h);
    row->fill(t, &h);
    h.salt_len = (uint32_t)salt_len;
    h.dk_len = (uint32_t)dig_len;
    if (row->alphabet(&h, 1) == KDF_ALPHA_JOINED) {
        st = spell_joined(dig, dig_len, salt, salt_len, joined, sizeof joined, &h.digest);
        h.salt = h.digest;
    } else {
        st = spell_span(row->alphabet(&h, 0), salt, salt_len, salt_enc, sizeof salt_enc,
                        &h.salt);
        if (st == KDF_OK)
            st = spell_span(row->alphabet(&h, 1), dig, dig_len, dig_enc, sizeof dig_enc,
                            &h.digest);
    }
    if (st == KDF_OK)
        st = row->encode(&h, &b);
    if (st == KDF_OK && b.over)
        st = KDF_RANGE;
    if (st == KDF_OK) {
        out[b.n] = '\0';
        /* What we write must read back as what we meant. */
        memset(&chk, 0, sizeof chk);
        chk.whole = (struct kdf_span){out, b.n};
        size_t plen = 0;
        if (!kdf_scheme_claims(row, out, b.n, &plen) ||
            row->parse(out, b.n, plen, &chk, &why) != KDF_OK ||
            chk.scheme != h.scheme || chk.format != h.format || chk.cost != h.cost ||
            chk.m_kib != h.m_kib || chk.lanes != h.lanes || chk.block_size != h.block_size ||
            chk.dk_len != h.dk_len)
            st = KDF_INTERNAL;
    }
    kdf_wipe(dig_enc, sizeof dig_enc);
    kdf_wipe(joined, sizeof joined);
    if (st != KDF_OK)
        kdf_wipe(out, b.n < cap ? b.n + 1 : cap);
    return st;
}

int
kdf_alphabet_std(const struct kdf_hash *h, int digest)
{
    (void)h;
    (void)digest;
    return KDF_B64_STD;
}

const char *
kdf_scrypt_like_over_caps(const struct kdf_xcrypt_cost *c, const struct kdf_policy *pol,
                          const char *why_p, const char *why_mem, const char *why_work)
{
    /* p chains (scrypt) or lanes (yescrypt): Argon2's lane cap bounds both,
     * and with it B and the S-boxes. */
    if (c->lanes > kdf_pol_bound(pol, &kdf_pkey_max_memhard, KDF_MTP_P))
        return why_p;
    if (c->b_kib > kdf_pol_bound(pol, &kdf_pkey_max_memhard, KDF_MTP_M))
        return why_mem;
    return kdf_memhard_over_caps(c->v_kib, c->work_kib, pol, why_mem, why_work);
}

const char *
kdf_memhard_over_caps(uint64_t mem_kib, uint64_t work_kib, const struct kdf_policy *pol,
                      const char *why_mem, const char *why_work)
{
    uint64_t m = kdf_pol_bound(pol, &kdf_pkey_max_memhard, KDF_MTP_M);

    if (mem_kib > m)
        return why_mem;
    if (work_kib > m * kdf_pol_bound(pol, &kdf_pkey_max_memhard, KDF_MTP_T))
        return why_work;
    return NULL;
}

/* Named max.argon2 until it capped scrypt and yescrypt too; the old name
 * stays accepted (files in the field use it) and check-conf points to the
 * new one. */
const struct kdf_pkey kdf_pkey_max_memhard = {
    .name = "max.memory-hard", .alias = "max.argon2", .kind = KDF_PK_MTP, .role = KDF_PR_CAP,
    .in_bound = 1, .fam = KDF_POL_SHARED, .slot = 0, .lo = 8, .def = 1048576, .def_t = 8,
    .def_p = 16};
const struct kdf_pkey kdf_pkey_max_iterations =
    KDF_PKEY_BOUND("max.pbkdf2", KDF_PR_CAP, KDF_TF_COST, KDF_POL_SHARED, 3, 1, UINT32_MAX,
                   10000000);

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * kdf_scheme.h - the scheme table: one row (struct kdf_scheme_desc) per
 * hash scheme, defined by the scheme's own file (scheme_*.c), listed once
 * in table_schemes.c.  The parser, the encoder, the rehash rules, the caps, the
 * target text, the policy keys, the dummy hash of the PAM module, the CLI,
 * the directory server plugin and the maintainer scripts read the table
 * (through kdfhash.h, or `kdfhash schemes` for a script); none of them
 * names a scheme.  Adding a spelling is its scheme_<name>.c (one line in
 * Makefile.am), one line in table_schemes.c, its tests and its documentation
 * (doc/DESIGN.md "The scheme table").  Not installed.
 */
#ifndef KDF_SCHEME_H
#define KDF_SCHEME_H

#include "kdf_prelude.h"

struct kdf_wbuf;

/* What a key of a target text ("argon2id m=65536,t=3") sets. */
enum kdf_tfield {
    KDF_TF_COST,   /* t, cost, i, rounds, ln */
    KDF_TF_M,      /* Argon2 memory, KiB */
    KDF_TF_P,      /* lanes / parallelism */
    KDF_TF_BLOCK,  /* scrypt r */
    KDF_TF_V,      /* Argon2 version (19) */
    KDF_TF_SALT,   /* salt bytes */
    KDF_TF_LEN,    /* digest bytes */
    KDF_TF_MINOR,  /* bcrypt a|b|y */
    KDF_TF_FORMAT  /* PBKDF2 passlib|phc|django */
};

#define KDF_TK_QUIET 0x1u /* kdf_target_format() omits it at its default */

/* A word a key may take, and the value it stands for. */
struct kdf_tword {
    const char *word;
    uint32_t value;
};

struct kdf_tkey {
    const char *key;
    enum kdf_tfield field;
    uint32_t lo, hi; /* numbers: the values a target text may give */
    unsigned flags;  /* KDF_TK_* */
    const struct kdf_tword *words; /* minor, format: the words, NULL-ended */
};

/* A key of kdfhash.conf: its name, how its value is read into which fields
 * of struct kdf_policy, its bounds and its default.  The keys of no scheme
 * live in api_policy.c; the rest in the rows that own them (a key several rows
 * share, as min.argon2 for argon2id/i/d, is one object listed by each). */
enum kdf_pkind {
    KDF_PK_TARGET, /* a target line (api_target.c) */
    KDF_PK_ACCEPT, /* a list of scheme names */
    KDF_PK_NUM,    /* one decimal in lo..hi */
    KDF_PK_MTP,    /* m=,t=,p= into three slots, m at least lo KiB */
    KDF_PK_YESNO,  /* yes or no, as 1 or 0 */
    KDF_PK_MEMORY, /* auto, off or KiB in lo..hi */
    KDF_PK_XONLY,  /* an account list (xcrypt-only, admins) or "none" */
    KDF_PK_KEYID,  /* a keyid or "none" (pepper) */
    KDF_PK_NUM_OFF, /* one decimal in lo..hi, or "off" stored as 0 */
    KDF_PK_NFKC,    /* nfkc or no, as 1 or 0 (normalize) */
    KDF_PK_PATH,    /* an absolute path or "none" as "" (blocklist) */
    KDF_PK_REFUSE,  /* allow or refuse, as 0 or 1 (blocklist-missing) */
    KDF_PK_PROFILE, /* default, fips, sp800-63b or a comma list: KDF_PROFILE_* bits */
};
/* What a key is to the checks across keys. */
#define KDF_PR_COST_MIN 0x1u /* judges the cost of its rows' hashes: min.bcrypt */
#define KDF_PR_MIN 0x2u      /* another minimum of a hash: min.pbkdf2-len */
#define KDF_PR_CAP 0x4u      /* a cap that a target must also fit: max.bcrypt */
/* The parts of a KDF_PK_MTP key, from its first slot. */
enum { KDF_MTP_M, KDF_MTP_T, KDF_MTP_P };
struct kdf_pkey {
    const char *name;
    enum kdf_pkind kind;
    unsigned role;             /* KDF_PR_* */
    enum kdf_tfield tfield;    /* KDF_PK_NUM minimums: the target field it bounds */
    /* Where the value lives: a min.* or max.* key (in_bound) in
     * kdf_policy.bound[fam][slot..] (MTP: three slots), chosen by the row
     * that owns the key among its family's KDF_POL_SLOTS; the keys of no
     * scheme in the named field at off. */
    int in_bound;
    enum kdf_scheme fam;
    unsigned slot;
    size_t off;
    uint32_t lo, hi;
    uint32_t def, def_t, def_p; /* the defaults (MTP: m, t, p) */
    const char *def_list;       /* KDF_PK_XONLY: the default list ("" for none) */
    /* An older name the files may still use (max.argon2), or NULL. */
    const char *alias;
};
#define KDF_POL_OFF(f) offsetof(struct kdf_policy, f)
/* A key of no scheme, in its field f of struct kdf_policy (api_policy.c). */
#define KDF_PKEY_NUM(nm, role_, tf, f, lo_, hi_, def_)                                   \
    {.name = nm, .kind = KDF_PK_NUM, .role = role_, .tfield = tf, .off = KDF_POL_OFF(f),   \
     .lo = lo_, .hi = hi_, .def = def_}
/* A row's numeric key, in slot sl of family fm's bounds. */
#define KDF_PKEY_BOUND(nm, role_, tf, fm, sl, lo_, hi_, def_)                            \
    {.name = nm, .kind = KDF_PK_NUM, .role = role_, .tfield = tf, .in_bound = 1,          \
     .fam = fm, .slot = sl, .lo = lo_, .hi = hi_, .def = def_}
/* A row's m=,t=,p= key, in slots sl, sl+1, sl+2 of family fm's bounds. */
#define KDF_PKEY_MTP(nm, role_, fm, sl, dm, dt, dp)                                      \
    {.name = nm, .kind = KDF_PK_MTP, .role = role_, .in_bound = 1, .fam = fm, .slot = sl, \
     .lo = 8, .def = dm, .def_t = dt, .def_p = dp}

/* The value of part (0; KDF_MTP_* for m=,t=,p= keys) of a row's key k. */
static inline uint32_t
kdf_pol_bound(const struct kdf_policy *pol, const struct kdf_pkey *k, unsigned part)
{
    return pol->bound[k->fam][k->slot + part];
}

/* Policy keys that rows of several files share (hstr_spell.c): max.memory-hard
 * (once max.argon2) caps every memory-hard scheme (Argon2, scrypt,
 * yescrypt), max.pbkdf2 every iteration count (PBKDF2, sha-crypt).  They
 * belong to no family: their slots are the line after the families'. */
#define KDF_POL_SHARED KDF_SCHEME_COUNT
extern const struct kdf_pkey kdf_pkey_max_memhard, kdf_pkey_max_iterations;
/* The keys of a family, for the rows that spell its hashes another way. */
#define KDF_BCRYPT_NPKEYS 2
#define KDF_ARGON2_NPKEYS 2
#define KDF_SCRYPT_NPKEYS 1
extern const struct kdf_pkey *const kdf_bcrypt_pkeys[KDF_BCRYPT_NPKEYS],
    *const kdf_argon2_pkeys[KDF_ARGON2_NPKEYS], *const kdf_scrypt_pkeys[KDF_SCRYPT_NPKEYS];

/* An alphabet() answer: the digest (dk_len bytes) then the salt, in one
 * blob of standard base64 with padding (RFC 2307's {SSHA}); the salt and
 * digest spans are both the blob, and the decoders (kdf_span_decode(),
 * kdf_spell(), the zeroed digest of a wrapped entry) split or join it. */
#define KDF_ALPHA_JOINED (-3)

struct kdf_scheme_desc {
    /* ---- identity ---- */
    const char *name;      /* target, accept list and CLI name: "argon2id" */
    enum kdf_scheme id;    /* what kdf_parse() reports */
    enum kdf_xcrypt xcrypt; /* crypt(3) targets made through libxcrypt */
    const char *summary;   /* one line for `kdfhash schemes` */

    /* ---- grammar ---- */
    /* Prefixes that claim a string for this row (NULL-terminated), and for
     * the prefix-less forms a claim(): 1 with the prefix's length. */
    const char *const *prefixes;
    int (*claim)(const char *s, size_t len, size_t *plen);
    /* The start every string claim() takes shares ("pbkdf2_"), for lists of
     * prefixes; NULL when claim() goes by shape alone (DES). */
    const char *claim_prefix;
    /* s[0..plen) is the prefix that matched.  Canonical spelling only. */
    enum kdf_status (*parse)(const char *s, size_t len, size_t plen, struct kdf_hash *h,
                             const char **why);
    /* Byte-identical inverse of parse(). */
    enum kdf_status (*encode)(const struct kdf_hash *h, struct kdf_wbuf *b);
    /* The alphabet of the salt (digest 0) or digest (1): an enum kdf_b64,
     * -1 for text used as is, -2 for nothing of ours to decode,
     * KDF_ALPHA_JOINED for one blob of both. */
    int (*alphabet)(const struct kdf_hash *h, int digest);

    /* kdf_hash_describe() for this row's hashes. */
    void (*describe)(const struct kdf_hash *h, enum kdf_describe what, char *out,
                     size_t cap);

    /* ---- work ---- */
    enum kdf_status (*verify)(const char *pw, size_t pw_len, const struct kdf_hash *h,
                              const struct kdf_policy *pol, void *work, size_t work_sz);
    enum kdf_status (*hash)(const char *pw, size_t pw_len, const struct kdf_target *t,
                            const struct kdf_policy *pol, const uint8_t *salt,
                            size_t salt_len, char *out, size_t cap);
    /* The fields of a hash of target t, before salt and digest (NULL: the
     * scheme spells its strings itself, as crypt(3) does).  With it,
     * kdf_spell() writes any hash of the row and kdf_dummy_hash() the
     * timing dummy. */
    void (*fill)(const struct kdf_target *t, struct kdf_hash *h);
    /* 1 when the match depended on every byte of pw (NULL: always). */
    int (*reads_whole)(const char *pw, size_t pw_len, const struct kdf_hash *h);

    /* ---- policy ---- */
    /* Why h is above pol's caps (or below a minimum length that makes it
     * unsafe to verify), NULL when it is not.  Before any work. */
    const char *(*over_caps)(const struct kdf_hash *h, const struct kdf_policy *pol);
    /* Below pol's absolute minimums; tg (may be NULL) is the target of the
     * same scheme, whose own values a minimum must not exceed. */
    int (*below_min)(const struct kdf_hash *h, const struct kdf_policy *pol,
                     const struct kdf_target *tg);
    /* A flaw that outdates h whatever its costs ($2x$, Argon2 1.0, a short
     * salt); accepted: the scheme is on the accept list.  NULL: none. */
    enum kdf_rehash (*flaw)(const struct kdf_hash *h, const struct kdf_policy *pol,
                            int accepted);
    /* A hash of the target's own scheme against the target: NO or TOO_CHEAP
     * (the no-downgrade rules, doc/DESIGN.md "Policy"). */
    enum kdf_rehash (*vs_target)(const struct kdf_hash *h, const struct kdf_policy *pol);
    /* The work of verifying h, in a unit of the row's own, for heavy = N
     * (api_rehash.c): a target's is the work of row->fill(target).  NULL: not
     * judged heavy (the crypt(3) rows, whose costs libxcrypt counts in
     * units of its own). */
    uint64_t (*work)(const struct kdf_hash *h);

    /* ---- targets ---- */
    enum kdf_cost_kind cost_kind; /* calibration: how time grows with cost */
    int recommended;              /* among the schemes for new hashes */
    struct kdf_target defaults; /* the one home of the scheme's defaults */
    const struct kdf_tkey *keys;
    size_t nkeys;
    /* NULL when t can be made; else why not.  *over is set instead when t
     * is valid but above pol's caps. */
    const char *(*target_check)(const struct kdf_target *t, const struct kdf_policy *pol,
                                const char **over);
    int default_target; /* 1 for the one row kdf_policy_default() targets */
    /* 1 when its hashes can be keyed (name a key, keyid=, whose bytes the
     * computation takes as a secret): the only targets a pepper may go with. */
    int keyed;
    /* 1 when NIST approves it for storing passwords (SP 800-132: PBKDF2
     * with an approved HMAC): the only targets profile = fips allows, and
     * the entries it leaves where they are. */
    int fips;
    /* KiB one hash at target t takes from the machine-wide memory budget
     * (NULL: none, as bcrypt, PBKDF2 and libxcrypt's own schemes). */
    uint64_t (*mem_kib)(const struct kdf_target *t);
    /* The policy keys the row owns (min.bcrypt, max.bcrypt...). */
    const struct kdf_pkey *const *pkeys;
    size_t npkeys;

    /* ---- beyond the core ---- */
    int crypt_reads;       /* KDF_CRYPT_NEVER, _ALWAYS or _ASK (kdfhash.h) */
    const char *ds_family; /* the 389-ds storage scheme of its values, or NULL */
    int ds_base;           /* the row that storage scheme makes new values with */
};

/* ---- the table (table_schemes.c) ---- */
extern const struct kdf_scheme_desc *const kdf_schemes[];
extern const size_t kdf_nschemes;
/* The row of a parsed hash's scheme (the generic crypt(3) row for
 * KDF_SCHEME_LEGACY); NULL for empty, locked and unknown. */
const struct kdf_scheme_desc *kdf_scheme_row(enum kdf_scheme id);
/* The row of a parsed hash: for crypt(3) hashes the row of a target
 * scheme when the prefix is one ($y$, $6$, $5$), else the generic row. */
const struct kdf_scheme_desc *kdf_scheme_of_hash(const struct kdf_hash *h);
/* The row a target names (crypt(3) targets by their xcrypt). */
const struct kdf_scheme_desc *kdf_scheme_target_row(const struct kdf_target *t);
/* The row called name[0..n) ("argon2id", "yescrypt"); NULL if none. */
const struct kdf_scheme_desc *kdf_scheme_named(const char *name, size_t n);

/* Does row claim s[0..len) (one of its prefixes, or its claim())?  1 with
 * the prefix's length in *plen.  The parser's dispatch and the writer's
 * read-back both ask this. */
static inline int
kdf_scheme_claims(const struct kdf_scheme_desc *row, const char *s, size_t len, size_t *plen)
{
    for (const char *const *p = row->prefixes; p != NULL && *p != NULL; p++) {
        size_t n = strlen(*p);
        if (len >= n && memcmp(s, *p, n) == 0) {
            *plen = n;
            return 1;
        }
    }
    return row->claim != NULL && row->claim(s, len, plen);
}

/* The field of t that a numeric key (a target text's, or a policy
 * minimum's) sets; NULL for the word keys (minor, format).  api_target.c. */
uint32_t *kdf_target_field(struct kdf_target *t, enum kdf_tfield f);

/* ---- helpers every row uses (hstr_spell.c) ---- */
/* Decode h's salt (digest 0) or digest (1) in row's alphabet. */
enum kdf_status kdf_span_decode(const struct kdf_scheme_desc *row, const struct kdf_hash *h,
                                int digest, uint8_t *out, size_t cap, size_t *out_len);
/* The one way a hash string is written: row->fill(t), the salt and digest
 * in the row's alphabets (salt as text when the alphabet is -1),
 * row->encode(), then row->parse() of the result must give back the same
 * fields, or KDF_INTERNAL. */
enum kdf_status kdf_spell(const struct kdf_scheme_desc *row, const struct kdf_target *t,
                          const uint8_t *salt, size_t salt_len, const uint8_t *dig,
                          size_t dig_len, char *out, size_t cap);
/* The alphabet of rows whose salt and digest are standard base64. */
int kdf_alphabet_std(const struct kdf_hash *h, int digest);
/* The caps of a memory-hard scheme (Argon2's, scrypt's, yescrypt's):
 * memory against max.memory-hard m, memory traffic against m * t. */
const char *kdf_memhard_over_caps(uint64_t mem_kib, uint64_t work_kib,
                                  const struct kdf_policy *pol, const char *why_mem,
                                  const char *why_work);
/* The caps of scrypt-shaped costs (kdf_scrypt_like_cost()): p against
 * max.memory-hard p, V and B each against max.memory-hard m, work against m * t. */
struct kdf_xcrypt_cost;
const char *kdf_scrypt_like_over_caps(const struct kdf_xcrypt_cost *c,
                                      const struct kdf_policy *pol, const char *why_p,
                                      const char *why_mem, const char *why_work);

/* The row of a crypt(3) target scheme; NULL for none. */
const struct kdf_scheme_desc *kdf_xcrypt_row(enum kdf_xcrypt x);

/* ---- policy hooks other spellings of a family reuse ----
 * (the row members of the same names; scheme_<family>.c) */
const char *kdf_bcrypt_over_caps(const struct kdf_hash *h, const struct kdf_policy *pol);
int kdf_bcrypt_below_min(const struct kdf_hash *h, const struct kdf_policy *pol,
                         const struct kdf_target *tg);
int kdf_bcrypt_reads_whole(const char *pw, size_t pw_len, const struct kdf_hash *h);
const char *kdf_argon2_over_caps(const struct kdf_hash *h, const struct kdf_policy *pol);
enum kdf_rehash kdf_argon2_flaw(const struct kdf_hash *h, const struct kdf_policy *pol,
                                int accepted);
int kdf_argon2_below_min(const struct kdf_hash *h, const struct kdf_policy *pol,
                         const struct kdf_target *tg);
const char *kdf_scrypt_over_caps(const struct kdf_hash *h, const struct kdf_policy *pol);

/* ---- rows other files build on ----
 * Every row is listed once, in table_schemes.c; these are declared here only
 * because another row or the table's fallback reuses them. */
extern const struct kdf_scheme_desc kdf_row_bcrypt, kdf_row_argon2id, kdf_row_argon2i,
    kdf_row_scrypt, kdf_row_crypt;

#endif /* KDF_SCHEME_H */

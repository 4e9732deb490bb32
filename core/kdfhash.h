/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * kdfhash.h - the public API of the kdfhash core.
 *
 * The one core header that accounts/, pam_module/ and ds_plugin/ include;
 * cli/ adds kdfhash_cpu.h (the CPU and the variant choice).  Every entry point
 * takes pointer + length inputs and pointer + capacity outputs, returns a
 * status code (never errno, never abort()), and allocates nothing on the
 * heap except the one Argon2 work area (see kdf_verify_ex()) and, under
 * normalize = nfkc, a password's NFKC form when it is over 1 KiB
 * (kdf_verify_form(); libunistring's own scratch aside).
 */
#ifndef KDFHASH_H
#define KDFHASH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define KDF_WUR __attribute__((warn_unused_result))
#else
#define KDF_WUR
#endif

enum kdf_status {
    KDF_OK = 0,      /* success / the password matches */
    KDF_MISMATCH,    /* well-formed hash, wrong password */
    KDF_MALFORMED,   /* the string is broken or not canonical */
    KDF_UNSUPPORTED, /* unknown scheme or a variant we do not implement */
    KDF_TOO_COSTLY,  /* parameters (or password length) above the policy caps */
    KDF_NOMEM,       /* the Argon2 work area could not be had */
    KDF_RANGE,       /* an output buffer is too small or an argument is invalid */
    KDF_INTERNAL,    /* self-test failure, getrandom failure, thread failure */
    KDF_BUSY,        /* the machine's memory budget stayed full for max.memory-wait */
    KDF_OVER_BUDGET, /* needs more than the whole memory budget (max.memory): never fits */
    KDF_NOKEY        /* the key (pepper) the hash names or the policy asks for is not at hand */
};

/* Short, static, human readable name of a status ("ok", "mismatch", ...). */
const char *kdf_status_str(enum kdf_status st);

enum kdf_scheme {
    KDF_SCHEME_EMPTY = 0, /* empty field: no password (only with nullok) */
    KDF_SCHEME_LOCKED,    /* starts with '!' or '*': never verifies */
    KDF_SCHEME_BCRYPT,
    KDF_SCHEME_ARGON2D,
    KDF_SCHEME_ARGON2I,
    KDF_SCHEME_ARGON2ID,
    KDF_SCHEME_PBKDF2_SHA1,
    KDF_SCHEME_PBKDF2_SHA256,
    KDF_SCHEME_PBKDF2_SHA512,
    KDF_SCHEME_SCRYPT, /* passlib's $scrypt$ln=,r=,p=$salt$hash (RFC 7914) */
    KDF_SCHEME_LEGACY, /* a crypt(3) scheme verified through libxcrypt */
    KDF_SCHEME_WRAPPED, /* "$kdfw$": a legacy hash hashed again (kdf_wrap()) */
    KDF_SCHEME_LDAP_SHA, /* LDAP {SHA*} and {SSHA*}: read and wrapped, never written */
    KDF_SCHEME_COUNT
};

/* "bcrypt", "argon2id", "pbkdf2-sha256", "legacy", "empty", "locked"... */
const char *kdf_scheme_name(enum kdf_scheme s);

/* The scheme table, row i (0, 1, ... until NULL): its name as a target or
 * an accept list names it, and a one-line summary (may be NULL). */
const char *kdf_scheme_at(size_t i, const char **summary);

/* What the scheme table says of row i (0, 1, ... until 0 is returned). */
struct kdf_scheme_info {
    const char *name;    /* "bcrypt", "django-argon2", "yescrypt", "legacy" */
    const char *summary; /* one line, may be NULL */
    enum kdf_scheme id;  /* the family a parse reports (shared by spellings) */
    int target;          /* 1: new hashes can be made (a target names it) */
    /* Can the system's crypt(3), and so pam_unix, verify hashes of the row:
     * KDF_CRYPT_NEVER, _ALWAYS, or _ASK (kdf_hash_crypt_reads() asks
     * libxcrypt, which may be built without it). */
    int crypt_reads;
    /* The 389 Directory Server storage scheme whose values the row's
     * strings may be ("ARGON2"), NULL for none; ds_base: the row that
     * scheme makes new values with when the policy's target is of another
     * family. */
    const char *ds_family;
    int ds_base;
    /* The prefixes that claim a string for the row, NULL-terminated (none
     * for rows that claim by shape alone, as traditional DES). */
    const char *const *prefixes;
    const char *claim_prefix; /* the start of its prefix-less strings ("pbkdf2_") */
    unsigned dk_len; /* the digest bytes of its default target (0: none) */
};
#define KDF_CRYPT_NEVER 0
#define KDF_CRYPT_ALWAYS 1
#define KDF_CRYPT_ASK 2
int kdf_scheme_info_at(size_t i, struct kdf_scheme_info *out);

/* How a target's time grows with its cost field (kdf_target.cost), for
 * calibration: FIXED (not a target), STEP (each step multiplies the time:
 * bcrypt's log2 cost, scrypt's ln, yescrypt's cost), LINEAR (time in
 * proportion: iterations, rounds), MEMORY (Argon2: memory, then passes). */
enum kdf_cost_kind { KDF_COST_FIXED = 0, KDF_COST_STEP, KDF_COST_LINEAR, KDF_COST_MEMORY };
/* The kind of scheme name's cost, its bounds in a target text, and whether
 * it is among the schemes recommended for new hashes (calibrate --scheme
 * all).  KDF_COST_FIXED for names that are not target schemes. */
enum kdf_cost_kind kdf_scheme_cost(const char *name, uint32_t *lo, uint32_t *hi,
                                   int *recommended);

/* How a PBKDF2 hash is spelt. */
enum kdf_format {
    KDF_FMT_NATIVE = 0, /* the scheme's only form (bcrypt, Argon2 PHC) */
    KDF_FMT_PASSLIB,    /* $pbkdf2[-shaN]$R$ab64salt$ab64chk */
    KDF_FMT_PHC,        /* $pbkdf2[-shaN]$i=N[,l=L]$b64salt$b64hash */
    KDF_FMT_DJANGO      /* pbkdf2_shaN$N$textsalt$paddedb64 */
};

/* A span into the caller's string: never NUL-terminated, never owned. */
struct kdf_span {
    const char *ptr;
    size_t len;
};

/* Flags of struct kdf_hash.flags */
#define KDF_HF_ARGON2_V_PRESENT 0x1u /* "$v=NN" was written (absent: 0x10) */
#define KDF_HF_PHC_L_PRESENT 0x2u    /* PBKDF2 PHC ",l=" was written */

/*
 * A parsed hash string.  Filled by kdf_parse(); every span points into the
 * parsed string, which must outlive this struct.
 */
struct kdf_hash {
    enum kdf_scheme scheme;
    enum kdf_format format;
    uint32_t flags;       /* KDF_HF_* */
    char bcrypt_minor;    /* 'a', 'b', 'x' or 'y' */
    uint32_t version;     /* Argon2: 0x10 or 0x13 */
    uint32_t cost;        /* bcrypt: log2 rounds; PBKDF2: iterations; Argon2: t;
                           * scrypt: log2 N */
    uint32_t m_kib;       /* Argon2 memory in KiB */
    uint32_t lanes;       /* Argon2 p; scrypt p */
    uint32_t block_size;  /* scrypt r */
    uint32_t dk_len;      /* decoded digest length in bytes */
    uint32_t salt_len;    /* decoded salt length (Django: text length) */
    struct kdf_span salt; /* encoded salt (Django: the salt text) */
    struct kdf_span digest; /* encoded digest / checksum */
    struct kdf_span keyid;  /* Argon2 optional keyid= value (encoded) */
    struct kdf_span data;   /* Argon2 optional data= value (encoded) */
    struct kdf_span prefix; /* legacy: the crypt(3) prefix ("$6$", "_", "" for DES) */
    struct kdf_span whole;  /* the whole parsed string */
    uint32_t row; /* kdf_parse(): 1 + the scheme table row that read it; 0: none */
};

/* The name of the table row that parsed h ("bcrypt-sha256", "yescrypt",
 * "django-argon2"), "empty", "locked" or "unknown". */
const char *kdf_hash_scheme_name(const struct kdf_hash *h);
/* 1 when the system's libxcrypt (and so pam_unix) verifies h: every crypt(3)
 * scheme, and a scheme of ours only where libxcrypt also has it (bcrypt
 * when built with it).  0 otherwise, and for empty and locked. */
int kdf_hash_crypt_reads(const struct kdf_hash *h);
/* The 389-ds storage scheme h's row belongs to (kdf_scheme_info), NULL for
 * none; kdf_target_ds_family(), after struct kdf_target, the same for a
 * target. */
const char *kdf_hash_ds_family(const struct kdf_hash *h);

/* Upper bounds on decoded sizes (the grammar refuses anything larger). */
#define KDF_MAX_SALT 64   /* bytes */
#define KDF_MAX_DIGEST 64 /* bytes */
#define KDF_MAX_HASH_STR 512 /* characters of any hash string we emit or accept */

/*
 * Parse one hash string s[0..len).  Never allocates, never reads s[len] or
 * beyond, and accepts only the canonical spelling.  On KDF_MALFORMED or
 * KDF_UNSUPPORTED, *reason (if not NULL) is set to a short static string.
 */
enum kdf_status kdf_parse(const char *s, size_t len, struct kdf_hash *out,
                          const char **reason) KDF_WUR;

/* Write the canonical string of h into out (NUL-terminated).  For any h that
 * kdf_parse() produced, the output is byte-identical to the parsed input. */
enum kdf_status kdf_encode(const struct kdf_hash *h, char *out, size_t cap,
                           size_t *out_len) KDF_WUR;

/* Decode the salt / digest of a parsed hash into caller buffers. */
enum kdf_status kdf_decode_salt(const struct kdf_hash *h, uint8_t *out, size_t cap,
                                size_t *out_len) KDF_WUR;
enum kdf_status kdf_decode_digest(const struct kdf_hash *h, uint8_t *out,
                                  size_t cap, size_t *out_len) KDF_WUR;

/* The base64 alphabets of the hash strings. */
enum kdf_b64 {
    KDF_B64_BCRYPT, /* ./A-Za-z0-9, no padding */
    KDF_B64_STD,    /* A-Za-z0-9+/, PHC: no padding */
    KDF_B64_AB64,   /* passlib: A-Za-z0-9./, no padding */
    KDF_B64_STD_PAD /* A-Za-z0-9+/ with '=' padding (Django) */
};
/* Strict decode: exact alphabet, canonical (zero) trailing bits, no padding
 * unless the alphabet has it, no whitespace. */
enum kdf_status kdf_b64_decode(enum kdf_b64 alpha, const char *in, size_t in_len,
                               uint8_t *out, size_t cap, size_t *out_len) KDF_WUR;
enum kdf_status kdf_b64_encode(enum kdf_b64 alpha, const uint8_t *in, size_t in_len,
                               char *out, size_t cap, size_t *out_len) KDF_WUR;
/* Characters needed to encode n bytes (without the NUL). */
size_t kdf_b64_encoded_len(enum kdf_b64 alpha, size_t n);

/* ------------------------------------------------------------------------ */
/* Policy                                                                   */

/* crypt(3) schemes that a target may name: made and verified through the
 * system's libxcrypt, so that an admin can move entries back to a scheme
 * pam_unix reads (scheme KDF_SCHEME_LEGACY). */
enum kdf_xcrypt {
    KDF_XCRYPT_NONE = 0,
    KDF_XCRYPT_YESCRYPT, /* $y$, cost 1..11 (libxcrypt's count; 5 by default) */
    KDF_XCRYPT_SHA512,   /* $6$, rounds 1000..999999999 (5000 by default) */
    KDF_XCRYPT_SHA256    /* $5$, the same rounds */
};

/* Keys (peppers).  A key is named by its keyid, the PHC string's keyid=
 * value: 2 to 11 characters of [A-Za-z0-9] that are the canonical unpadded
 * base64 of 1 to 8 bytes.  Its bytes are Argon2's secret value K (RFC 9106
 * section 3.1), at least 32 of them (256 bits) and at most 64. */
#define KDF_KEYID_CAP 12
#define KDF_KEY_MIN 32
#define KDF_KEY_MAX 64
/* What one computation asks of the keyring: the key called id[0..id_len),
 * for a hash with this salt (raw bytes).  A key held in a file ignores the
 * salt; a key that never leaves a TPM answers with its HMAC of the salt
 * (keys/keystore.h), a secret per entry.  Never the password: nothing
 * derived from it goes to another device. */
struct kdf_key_request {
    const char *id;
    size_t id_len;
    const uint8_t *salt;
    size_t salt_len;
};
/* Where the caller's keys come from: get() writes the secret for rq into
 * key (KDF_KEY_MAX bytes) and returns KDF_OK, or KDF_NOKEY when the key is
 * missing or cannot be used (the caller logs which and why).  The core
 * never keeps a secret beyond one computation and wipes its copy. */
struct kdf_keyring {
    enum kdf_status (*get)(void *ctx, const struct kdf_key_request *rq, uint8_t *key,
                           size_t *key_len);
    void *ctx;
};
/* 1 when id[0..n) is a valid keyid. */
int kdf_keyid_valid(const char *id, size_t n);

/* The parameters of a hash to make. */
struct kdf_target {
    enum kdf_scheme scheme;
    enum kdf_format format; /* PBKDF2: which spelling to emit */
    char bcrypt_minor;      /* 'b' by default */
    uint32_t version;       /* Argon2: 0x13 */
    uint32_t cost;          /* bcrypt log2 / PBKDF2 iterations / Argon2 t */
    uint32_t m_kib;
    uint32_t lanes;
    uint32_t salt_len; /* bytes */
    uint32_t dk_len;   /* bytes */
    enum kdf_xcrypt xcrypt; /* KDF_SCHEME_LEGACY targets: which one */
    uint32_t block_size;    /* scrypt r */
    /* The key a hash of the target is keyed with ("" for none): set from
     * the policy's pepper when a hash is made, never by target text. */
    char keyid[KDF_KEYID_CAP];
};

/* Bounds of the xcrypt-only list: bytes with the NUL, entries, and bytes
 * of one name without its '@' (useradd's limit). */
#define KDF_XCRYPT_ONLY_CAP 256
/* Bytes of blocklist = PATH, its NUL included. */
#define KDF_BLOCKLIST_PATH_CAP 256
#define KDF_XCRYPT_ONLY_MAX_NAMES 16
#define KDF_XCRYPT_ONLY_NAME_MAX 32

/* The min.* and max.* values a family (enum kdf_scheme) may hold. */
#define KDF_POL_SLOTS 4

struct kdf_policy {
    struct kdf_target target;
    /* The min.* and max.* keys of each family: below its minimums a hash
     * is "too cheap" (for the target's own scheme the target's costs are
     * minimums too), above its caps it is refused before any work.  Which
     * slot holds which key is the business of the row that owns the key
     * (kdf_scheme.h); elsewhere read one by its name, kdf_policy_bound().
     * The last line holds the caps that several families share. */
    uint32_t bound[KDF_SCHEME_COUNT + 1][KDF_POL_SLOTS];
    /* Schemes that are not "outdated" merely for not being the target's:
     * bit (1u << enum kdf_scheme). */
    uint32_t accept_mask;
    /* Caps of no family: a longer password is refused before any work. */
    uint32_t max_password_len;
    uint32_t max_threads; /* Argon2 lane threads, also bounded by CPUs online */
    /* min.length and max.length: the shortest and longest new password a
     * change accepts, in characters (kdf_password_length()): defaults 6,
     * pam_unix's minlen, and 1024, the most that max.password's 4096
     * bytes always hold; never under 64 (NIST SP 800-63B-4 asks that at
     * least 64 be allowed).  Judged at a change only, never at a login. */
    uint32_t min_length;
    uint32_t max_length;
    /* The machine-wide budget of memory-hard work (KiB; KDF_MEMGATE_AUTO
     * for half of what the memory cgroup or the machine allows,
     * KDF_MEMGATE_OFF for none) and how long a request may wait for its
     * share before it is refused as KDF_BUSY (ms). */
    uint32_t max_memory_kib;
    uint32_t memory_wait_ms;
    /* migrate = yes: every verified entry not in the target's scheme is
     * rewritten to the target, even one the rules above would keep (a
     * stronger scheme, an accepted one): the way back to a scheme that
     * pam_unix reads. */
    uint32_t migrate;
    /* xcrypt-only: the accounts whose entries stay on (or move to) a scheme
     * the system's libxcrypt verifies, because programs that read the
     * shadow file without PAM (sulogin, rescue media) must verify them.
     * User names and "@group" names, normalised to one comma between
     * entries; "" for none.  Accounts are the PAM module's business: the
     * core only keeps the list (default "root"). */
    char xcrypt_only[KDF_XCRYPT_ONLY_CAP];
    /* pepper = ID: new hashes are keyed with key ID, and an entry keyed
     * with another key or none is outdated (KDF_REHASH_PEPPER).  "" for
     * none.  Only a target whose row takes a key (Argon2) may have one
     * (kdf_check_target; the file reader refuses the pair too). */
    char pepper[KDF_KEYID_CAP];
    /* admins: the machine's administrators (user names and "@group" names,
     * as xcrypt_only; default "root,@sudo,@wheel,@admin").  Their entries
     * never depend on a key file (the pepper is dropped for them), and
     * the PAM module marks their logins mem_admin (below).  The core only
     * keeps the list. */
    char admins[KDF_XCRYPT_ONLY_CAP];
    /* heavy = N: an entry of the target's scheme whose work (memory x
     * time) is more than N times the target's is outdated
     * (KDF_REHASH_HEAVY), the one exception to "never a downgrade"; 0
     * (heavy = off) keeps such entries.  Default 4. */
    uint32_t heavy;
    /* offline.max-age = DAYS: an entry of the PAM module's offline cache
     * (cache=validate) older than this many days since its owner's last
     * online login is refused; 0 (offline.max-age = off) never expires
     * one.  Default 30. */
    uint32_t offline_max_age;
    /* blocklist = PATH: the compromised-password list (kdfhash blocklist
     * build) that new passwords are checked against and logins flag for a
     * change; "" (blocklist = none, the default) for none.  The PAM module
     * and the CLI read it; the core only keeps the path. */
    char blocklist[KDF_BLOCKLIST_PATH_CAP];
    /* blocklist-missing = allow (0, the default) | refuse (1): what a
     * password change does when the list cannot be used (missing, corrupt):
     * allow it (logged LOG_ERR) or refuse it. */
    uint32_t blocklist_refuse;
    /* normalize = nfkc (1, the default): a password that is valid UTF-8 is
     * hashed in its Unicode NFKC form, and one that does not verify as
     * typed is tried once more in one other form (kdf_verify_form()); no
     * (0): the bytes as given, only. */
    uint32_t normalize;
    /* profile = default (0), fips, sp800-63b or both (KDF_PROFILE_*):
     * fips holds the target to PBKDF2-HMAC-SHA-256/512 with NIST's sizes
     * (kdf_policy_load refuses anything else) and asks the callers to run
     * kdf_selftest() before first use.  FIPS-aligned, never "validated". */
    uint32_t profile;
    /* Set by the caller, never by the file: 1 when the process works for
     * root or an administrator (admins), whose memgate requests are not
     * held to the pool that all other real uids share (util_memgate.c). */
    uint32_t mem_admin;
    /* The caller's keys (not from the file): NULL when it has none, and
     * then a keyed hash neither verifies nor is made (KDF_NOKEY). */
    const struct kdf_keyring *keys;
};

#define KDF_PROFILE_FIPS 1u
#define KDF_PROFILE_SP800_63B 2u

#define KDF_MEMGATE_AUTO 0u
#define KDF_MEMGATE_OFF UINT32_MAX

/* OWASP's Argon2id minimum (Password Storage Cheat Sheet: m=19 MiB, t=2,
 * p=1): the default of min.argon2, and the directory profile, the target
 * of the 389-ds plugin under a file that sets none and of kdfhash
 * calibrate --rate (one lane: one bind takes one CPU).  The one home of
 * these numbers: the shipped /etc/dirsrv/kdfhash.conf sets no target, and
 * the commented min.argon2 line of kdfhash.conf is checked against the
 * default (tests/unit/test_policy.c). */
#define KDF_OWASP_ARGON2_M 19456
#define KDF_OWASP_ARGON2_T 2
#define KDF_OWASP_ARGON2_P 1
#define KDF_STR_(x) #x
#define KDF_STR(x) KDF_STR_(x)
#define KDF_OWASP_ARGON2                                                                  \
    "argon2id m=" KDF_STR(KDF_OWASP_ARGON2_M) ",t=" KDF_STR(KDF_OWASP_ARGON2_T) ",p=" KDF_STR( \
        KDF_OWASP_ARGON2_P)
#define KDF_DIRECTORY_TARGET KDF_OWASP_ARGON2 ",salt=16,len=32"

/* Defaults: target Argon2id v=19 m=65536 t=3 p=4 salt 16 tag 32; caps bcrypt
 * 16, Argon2 m 1 GiB t 8 p 16, PBKDF2 10,000,000, password 4096 bytes;
 * xcrypt-only root; admins root,@sudo,@wheel,@admin; heavy 4. */
void kdf_policy_default(struct kdf_policy *pol);

/* The system policy file: $(sysconfdir)/security/kdfhash.conf of the build
 * (/etc/security/kdfhash.conf in the Debian and RPM packages). */
#ifndef KDF_SECCONFDIR
#define KDF_SECCONFDIR "/etc/security"
#endif
#define KDF_DEFAULT_CONF KDF_SECCONFDIR "/kdfhash.conf"
/* The PAM module's offline cache (cache_file=, pam_kdfhash(8) OFFLINE
 * CACHE), which `kdfhash audit --offline-cache` reads. */
#ifndef KDF_OFFLINE_CACHE
#define KDF_OFFLINE_CACHE "/var/lib/kdfhash/offline"
#endif

/* The value of min.* or max.* key name (max.memory-hard, min.bcrypt; an
 * alias too), part 0, or for an m=,t=,p= key 0, 1 or 2: a pointer into
 * pol, NULL for a key of another kind or no key. */
uint32_t *kdf_policy_bound(struct kdf_policy *pol, const char *name, unsigned part);
/* The same, read only: UINT32_MAX for no such key (never a real bound's
 * value that a caller could mistake for a minimum). */
uint32_t kdf_policy_bound_get(const struct kdf_policy *pol, const char *name, unsigned part);

/* The shortest new password a change accepts, in characters: min.length,
 * raised to KDF_SP800_63B_MIN_LENGTH under profile = sp800-63b. */
#define KDF_SP800_63B_MIN_LENGTH 15u
uint32_t kdf_policy_min_length(const struct kdf_policy *pol);

/* Read a kdfhash.conf-style file into pol (which should hold the defaults).
 * A missing file is KDF_OK when missing_ok.  On error, err gets
 * "path:line: reason". */
enum kdf_status kdf_policy_load(struct kdf_policy *pol, const char *path,
                                int missing_ok, char *err, size_t err_cap) KDF_WUR;
/* The same, and note(note_ctx, "path:line: ...") for each line that is
 * read but deserves a word: a key spelt by its old name (max.argon2). */
typedef void (*kdf_policy_note_fn)(void *ctx, const char *msg);
enum kdf_status kdf_policy_load_noted(struct kdf_policy *pol, const char *path,
                                      int missing_ok, char *err, size_t err_cap,
                                      kdf_policy_note_fn note, void *note_ctx) KDF_WUR;

/* Set one key (same keys and values as the file; used for module-argument
 * overrides such as "target=bcrypt cost=12" or "max.bcrypt=14"). */
enum kdf_status kdf_policy_set(struct kdf_policy *pol, const char *key,
                               const char *value, char *err, size_t err_cap) KDF_WUR;

/* Parse "argon2id m=65536,t=3,p=4" / "bcrypt cost=12" / "pbkdf2-sha256
 * i=600000" into a target (with that scheme's defaults for unnamed keys). */
enum kdf_status kdf_target_parse(const char *text, struct kdf_target *t, char *err,
                                 size_t err_cap) KDF_WUR;
/* The target's scheme as the target text names it ("argon2id", "yescrypt"). */
const char *kdf_target_name(const struct kdf_target *t);

const char *kdf_target_ds_family(const struct kdf_target *t);

/* The name of kdfhash.conf key i (0, 1, ... until NULL): api_policy.c's own
 * keys, then those the scheme table's rows own. */
const char *kdf_policy_key_at(size_t i);

/* Raise t's costs to pol's minimums for t's scheme (the policy keys its row
 * owns: min.bcrypt, min.argon2, min.pbkdf2-sha256, min.pbkdf2-len...). */
void kdf_target_raise_to_min(struct kdf_target *t, const struct kdf_policy *pol);
/* The policy line of the minimum that judges the cost of t's scheme
 * ("min.argon2 = m=M,t=T,p=P"), with lowered: each value lowered to
 * t's own where t is below it.  0 and "" when the scheme has none. */
int kdf_policy_min_line(const struct kdf_target *t, const struct kdf_policy *pol, int lowered,
                        char *out, size_t cap);

/* Format a target as the text kdf_target_parse() reads. */
enum kdf_status kdf_target_format(const struct kdf_target *t, char *out, size_t cap);

enum kdf_rehash {
    KDF_REHASH_NO = 0,
    KDF_REHASH_OTHER_SCHEME, /* not the target's scheme, not accepted */
    KDF_REHASH_TOO_CHEAP,    /* below the minimum costs */
    KDF_REHASH_BUGGY,        /* $2x$: the sign-extension bug */
    KDF_REHASH_LEGACY,       /* a crypt(3) scheme from libxcrypt */
    KDF_REHASH_OLD_VERSION,  /* Argon2 v=0x10 */
    KDF_REHASH_MIGRATE,      /* kept by the rules, rewritten for migrate = yes */
    KDF_REHASH_PEPPER,       /* not keyed with the policy's pepper (another key or none) */
    KDF_REHASH_HEAVY,        /* the target's scheme at more than heavy x its work */
    KDF_REHASH_FORM,         /* verified only in another form of the password
                              * (kdf_verify_form()): not of its NFKC form */
    KDF_REHASH_FIPS,         /* profile = fips: not a FIPS-approved hash
                              * (kdf_hash_fips_approved()) */
    KDF_REHASH_WRAPPED       /* a wrapped entry (kdf_wrap()): always, at
                              * the next login */
};
#define KDF_REHASH_LAST KDF_REHASH_WRAPPED /* for tables indexed by reason */
const char *kdf_rehash_reason(enum kdf_rehash r);

/* A parsed hash's parameters as text, for people and reports:
 * FIELDS "scheme=argon2id version=19 m=... salt_len=.. digest_len=..",
 * PARAMS "v=19,m=65536,t=3,p=4", COSTS "m=65536,t=3,p=4". */
enum kdf_describe { KDF_DESC_FIELDS, KDF_DESC_PARAMS, KDF_DESC_COSTS };
void kdf_hash_describe(const struct kdf_hash *h, enum kdf_describe what, char *out,
                       size_t cap);

/* Is h outdated under pol?  Never KDF_REHASH_NO for a weaker hash, never
 * anything else for a hash at least as strong as the target (no downgrade),
 * except KDF_REHASH_PEPPER: with a pepper set, an entry not keyed with it
 * moves to the (keyed) target whatever its costs; and KDF_REHASH_HEAVY: an
 * entry of the target's own scheme at more than pol->heavy times its work.
 * Empty and locked entries are never rehashed.  Zero allocations. */
enum kdf_rehash kdf_needs_rehash(const struct kdf_hash *h, const struct kdf_policy *pol);

/* KDF_OK, or KDF_TOO_COSTLY when h exceeds the caps of pol; *reason says
 * which.  pw_len is checked against max_password_len too. */
enum kdf_status kdf_check_caps(const struct kdf_hash *h, size_t pw_len,
                               const struct kdf_policy *pol, const char **reason) KDF_WUR;
/* The same caps applied to a target before hashing. */
enum kdf_status kdf_check_target(const struct kdf_target *t, const struct kdf_policy *pol,
                                 const char **reason) KDF_WUR;

/* ------------------------------------------------------------------------ */
/* Verify and hash                                                          */

/* Verify pw against the hash string with the default policy's caps. */
enum kdf_status kdf_verify(const char *pw, size_t pw_len, const char *hash,
                           size_t hash_len) KDF_WUR;

/* Verify against a parsed hash under pol's caps.  work/work_sz may supply
 * the Argon2 memory (at least h->m_kib KiB, 64-byte aligned); NULL maps it. */
enum kdf_status kdf_verify_ex(const char *pw, size_t pw_len, const struct kdf_hash *h,
                              const struct kdf_policy *pol, void *work,
                              size_t work_sz) KDF_WUR;

/* Which form of the password matched (kdf_verify_form()).  An entry is
 * rehashed when the form that matched is not the password's NFKC form
 * (kdf_form_outdated()): a new hash is always of the NFKC form. */
enum kdf_form {
    KDF_FORM_TYPED = 0, /* the bytes as given */
    KDF_FORM_NFKC,      /* their NFKC form, which differs from them */
    KDF_FORM_NFD        /* typed in NFKC: their NFD form, which differs (an
                         * entry made from decomposed accents) */
};

/* kdf_verify_ex(), and on KDF_OK in *form (may be NULL) the form that
 * matched.  Under normalize = nfkc the password as typed is tried first;
 * only when it does not match and is valid UTF-8 (never for ASCII), one
 * other form is tried: its NFKC form when that differs, else its NFD form
 * when that differs.  So the number of verifications depends on the
 * password alone (1, or 2 for one with characters that compose or
 * decompose), never on the entry; a form over 1 KiB may need the heap. */
enum kdf_status kdf_verify_form(const char *pw, size_t pw_len, const struct kdf_hash *h,
                                const struct kdf_policy *pol, void *work, size_t work_sz,
                                enum kdf_form *form) KDF_WUR;

/* After kdf_verify_form(pw, h, pol) == KDF_OK with form: 1 when the entry
 * is not of pw's NFKC form (the typed bytes matched and differ from their
 * NFKC form, or the NFD form matched), so that a login should rehash it
 * (KDF_REHASH_FORM); 0 when it is, or under normalize = no. */
int kdf_form_outdated(const char *pw, size_t pw_len, enum kdf_form form,
                      const struct kdf_policy *pol) KDF_WUR;

/* kdf_reads_whole_password() for the form that matched: after
 * kdf_verify_form(pw, h) == KDF_OK with *form, 1 when that match depended
 * on every byte of the form (then a new hash of pw's NFKC form is the same
 * password), 0 when not or when the form cannot be had again. */
int kdf_reads_whole_form(const char *pw, size_t pw_len, const struct kdf_hash *h,
                         const struct kdf_policy *pol, enum kdf_form form) KDF_WUR;

/* The length of a password in characters, as length rules count it: the
 * Unicode code points of the form a new hash is made of (NFKC under
 * normalize = nfkc), or the bytes of a password that is not UTF-8.
 * (size_t)-1 when the form cannot be had (longer than max.password, no
 * memory). */
size_t kdf_password_length(const char *pw, size_t pw_len, const struct kdf_policy *pol);

/* bcrypt reads at most this many bytes of a password. */
#define KDF_BCRYPT_MAX_PW 72

/* After kdf_verify_ex(pw, h) == KDF_OK: 1 when the match depended on every
 * byte of pw, 0 when the scheme stopped early (DES after 8 bytes, bcrypt
 * after 72), so that a new hash of pw could differ from the password first
 * stored: never upgrade then.  May verify once more (crypt(3) schemes of
 * fixed small cost only). */
int kdf_reads_whole_password(const char *pw, size_t pw_len, const struct kdf_hash *h);

/* A hash string of target t with an all-zero salt and digest, parsed into
 * *h (which points into buf): what an entry at the target costs to verify,
 * for equalising the time of refusals that have no entry to verify.
 * KDF_UNSUPPORTED for targets that libxcrypt spells (crypt(3) schemes). */
enum kdf_status kdf_dummy_hash(const struct kdf_target *t, char *buf, size_t cap,
                               struct kdf_hash *h) KDF_WUR;

/* Make a new hash of pw for target t with a fresh getrandom() salt.
 * out receives a NUL-terminated string.  Under normalize = nfkc (the
 * default) a pw that is valid UTF-8 is hashed in its NFKC form:
 * KDF_TOO_COSTLY when that form is longer than max.password. */
enum kdf_status kdf_hash(const char *pw, size_t pw_len, const struct kdf_target *t,
                         char *out, size_t out_cap) KDF_WUR;

/* Same, with a caller-chosen salt (tests, known answers). */
enum kdf_status kdf_hash_salt(const char *pw, size_t pw_len, const struct kdf_target *t,
                              const uint8_t *salt, size_t salt_len, char *out,
                              size_t out_cap) KDF_WUR;

/* Make a new hash under pol's caps and thread bound (NULL: the defaults).
 * salt NULL draws a fresh one from getrandom(); otherwise salt/salt_len are
 * used as given.  kdf_hash() and kdf_hash_salt() are this with pol NULL. */
enum kdf_status kdf_hash_ex(const char *pw, size_t pw_len, const struct kdf_target *t,
                            const struct kdf_policy *pol, const uint8_t *salt,
                            size_t salt_len, char *out, size_t out_cap) KDF_WUR;

/* How a wrapped entry starts: pam_unix cannot verify one. */
#define KDF_WRAPPED_PREFIX "$kdfw$"
/* Wrap the legacy hash string legacy[0..len) (no lock marker) for an
 * account whose owner does not log in: "$kdfw$<n>$<inner><outer>", where
 * inner is the legacy hash with its digest zeroed (its setting) and outer
 * a new hash at target t (keyed as kdf_hash_ex() keys it: with pol's
 * pepper, from pol's keys) of the whole legacy string.  It verifies the password the legacy hash
 * did, and kdf_needs_rehash() calls it KDF_REHASH_WRAPPED, so that the
 * next login writes a direct hash.  The result is read back and its outer
 * hash verified before KDF_OK.  KDF_UNSUPPORTED (with *why) for what
 * cannot be wrapped: an entry already wrapped or keyed, a setting that
 * does not make the same hashes once its digest is zeroed, a target of
 * libxcrypt's or one that does not read the whole input (bcrypt). */
enum kdf_status kdf_wrap(const char *legacy, size_t len, const struct kdf_target *t,
                         const struct kdf_policy *pol, char *out, size_t cap,
                         const char **why) KDF_WUR;
/* The inner (legacy setting) and outer hashes of a parsed wrapped entry;
 * either may be NULL.  KDF_RANGE when h is not wrapped. */
enum kdf_status kdf_wrapped_parts(const struct kdf_hash *h, struct kdf_hash *inner,
                                  struct kdf_hash *outer) KDF_WUR;
/* 1 when wrapped (a parsed wrapped entry) is a wrap of legacy[0..len):
 * its inner setting is legacy's with the digest zeroed, so that both
 * verify the same password.  0 otherwise.  What a directory server asks
 * before it lets a replace of a value by its wrap leave the password
 * policy's state alone. */
int kdf_wrap_is_of(const struct kdf_hash *wrapped, const char *legacy, size_t len);

/* The hash string of the core that a 389-ds userPassword value "{NAME}body"
 * (v[0..len), NAME in any case, as 389-ds matches it) stands for, into
 * out[cap], NUL-terminated, its length in *olen (may be NULL):
 *   - the value itself, NAME in upper case, for the names that rows of ours
 *     read with their braces (the LDAP SHA schemes: {SHA}, {SSHA}, {SHA256}...);
 *   - the body for {CRYPT}, {CRYPT-*}, {GOST_YESCRYPT}, {KDF-WRAPPED} and the names rows give
 *     as their ds_family ({ARGON2}, {BCRYPT}, {KDF-PBKDF2});
 *   - for PBKDF2 bodies <iter>$<salt>$<dk> ({PBKDF2-SHA1|SHA256|SHA512},
 *     {PBKDF2} = SHA-1, and {KDF-PBKDF2} when its body starts with a digit),
 *     in passlib's ab64 (OpenLDAP) or in standard base64 with '=' padding
 *     (389-ds 2.3's pwdchan), the passlib string of the same bytes under the
 *     head ($pbkdf2$, $pbkdf2-sha256$, $pbkdf2-sha512$) the name tells, or
 *     for {KDF-PBKDF2} the digest length.
 * Nothing is parsed beyond that: the caller parses the result, and checks
 * that it is of the family it expects (kdf_hash_ds_family(),
 * kdf_hash_crypt_reads() for {CRYPT}).  KDF_UNSUPPORTED with *why for
 * other names ({MD5}, {PBKDF2_SHA256}...), KDF_MALFORMED for no {NAME},
 * an empty body or a PBKDF2 body that is not one, KDF_RANGE when out is
 * too small (out is then ""). */
enum kdf_status kdf_ds_value_string(const char *v, size_t len, char *out, size_t cap,
                                    size_t *olen, const char **why) KDF_WUR;
/* The 389-ds storage scheme name of wrapped values (kdf_wrap()): the
 * directory plugin registers it, kdfhash wrap --values and the plugin's
 * modify check spell "{KDF-WRAPPED}", and kdf_ds_value_string() maps such
 * a value to its body. */
#define KDF_DS_WRAPPED_NAME "KDF-WRAPPED"
#define KDF_DS_WRAPPED_TAG "{" KDF_DS_WRAPPED_NAME "}"

/* Raw PBKDF2-HMAC (RFC 8018).  md is KDF_SCHEME_PBKDF2_SHA1/256/512. */
enum kdf_status kdf_pbkdf2(enum kdf_scheme md, const uint8_t *pw, size_t pw_len,
                           const uint8_t *salt, size_t salt_len, uint32_t iterations,
                           uint8_t *out, size_t out_len) KDF_WUR;

/* The plain SHA-1 of data (20 bytes to out).  For the compromised-password
 * list (accounts/blocklist.c), whose entries are SHA-1 digests as the Pwned
 * Passwords list publishes them: never a way to store a password.
 * KDF_RANGE when data is NULL with len > 0. */
enum kdf_status kdf_sha1(const void *data, size_t len, uint8_t out[20]) KDF_WUR;

/* The NFKC form of pw[0..len) into out[0..cap), its length in *out_len (no
 * NUL added), as verification forms it under normalize = nfkc: the bytes as
 * given when they are not UTF-8 or already in NFKC.  KDF_TOO_COSTLY when
 * the form is longer than cap (out then holds no part of it), KDF_NOMEM,
 * KDF_RANGE for a NULL argument.  For the compromised-password list
 * (accounts/blocklist.c); the caller wipes out. */
enum kdf_status kdf_password_nfkc(const char *pw, size_t len, char *out, size_t cap,
                                  size_t *out_len) KDF_WUR;

/* vsnprintf into err when err != NULL and cap > 0: the short, secret-free
 * reasons that the policy and target parsers, the PAM module's writer and
 * its helpers hand back. */
void kdf_errf(char *err, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The lock file of the machine-wide memory budget (max.memory): by default
 * /run/kdfhash.memgate, which root creates and only root opens.  A server
 * that runs as its own user (a directory server's plugin) names a file in
 * a directory of that user's, which its processes then share; NULL goes
 * back to the default.  Process-wide; it may be called again while other
 * threads verify (each verification reads the path once), so the string
 * must stay valid for as long as any verification may still use it: in
 * practice, for the life of the process. */
void kdf_memgate_set_path(const char *path);

/* The machine-wide budget pol's max.memory stands for, in KiB, as the
 * memory gate reads it (auto resolved against the memory cgroup or the
 * machine); 0 for off. */
uint64_t kdf_policy_memory_kib(const struct kdf_policy *pol);

/* Argon2 work areas kept between verifications, for a long-lived server
 * whose threads verify one after another (a directory server's workers):
 * up to `slots` areas stay mapped and populated, wiped after each use.  A
 * computation in a kept area takes its share of the memory budget
 * (max.memory) while it runs, as in a fresh one; idle areas hold none, and
 * what the process keeps never adds up to more than the budget (an area
 * that would go past it is unmapped).  A verification that finds every
 * slot in use maps its own area at once, as without the pool: it never
 * waits for a slot.  keep_kib is the largest area kept (the server's
 * target memory, m of its Argon2 target; 0 with a target of another
 * scheme keeps nothing): a verification that needs more maps and unmaps
 * its own, so the process keeps at most slots x keep_kib however large
 * the values it verifies; KDF_WORKPOOL_KEEP_ANY bounds it by the budget
 * alone.  slots 0 (the default) keeps nothing and gives
 * back every kept area now, or when its verification ends; any call gives
 * back what was kept before it.  KDF_WORKPOOL_CPUS: one slot per CPU
 * online.  Process-wide; never for a PAM module, whose host process's
 * memory is not its to keep. */
#define KDF_WORKPOOL_MAX 64u
#define KDF_WORKPOOL_CPUS UINT32_MAX
#define KDF_WORKPOOL_KEEP_ANY UINT32_MAX
void kdf_workpool_set(unsigned slots, uint32_t keep_kib);

struct kdf_workpool_stats {
    unsigned slots;      /* in service */
    uint64_t reused;     /* verifications that found a kept area */
    uint64_t mapped;     /* areas a slot mapped */
    uint64_t missed;     /* verifications that found every slot in use: own area */
    uint64_t large;      /* verifications above keep_kib: own area */
    uint64_t kept_kib;   /* KiB of the areas kept now, in use or not */
};
void kdf_workpool_stats(struct kdf_workpool_stats *out);

/* Known-answer self-tests of SHA-1/256/512, HMAC-SHA-1/256/512 and
 * PBKDF2-HMAC-SHA-256/512 on NIST's published vectors (api_selftest.c):
 * KDF_OK, or KDF_INTERNAL with *failed (may be NULL) naming the first test
 * that failed ("sha256", "hmac-sha512", "pbkdf2-sha256").  Runs them every
 * call (about a millisecond); kdf_selftest_once() runs them once per
 * process and answers the same result after. */
enum kdf_status kdf_selftest(const char **failed) KDF_WUR;
enum kdf_status kdf_selftest_once(const char **failed) KDF_WUR;
/* The groups kdf_selftest() runs, in order (0, 1, ... until NULL). */
const char *kdf_selftest_name(size_t i);
/* SP 800-132's sizes: a salt of at least 128 bits, a derived key of at
 * least 112 bits. */
#define KDF_FIPS_MIN_SALT 16u
#define KDF_FIPS_MIN_LEN 14u
/* 1 when NIST approves the scheme of h / of target t for storing
 * passwords (the scheme table's word: PBKDF2-HMAC-SHA-256 and -512), and
 * for h, when its salt and digest have SP 800-132's sizes; what is not is
 * outdated under profile = fips (KDF_REHASH_FIPS). */
int kdf_hash_fips_approved(const struct kdf_hash *h);
int kdf_target_fips_approved(const struct kdf_target *t);
/* 1 when the kernel runs in FIPS mode: path (NULL for
 * KDF_FIPS_ENABLED_PATH) reads "1"; 0 otherwise, a missing file too. */
#define KDF_FIPS_ENABLED_PATH "/proc/sys/crypto/fips_enabled"
int kdf_fips_enabled(const char *path);

/* Constant-time compare (0 when equal) and a wipe that is not optimised away. */
int kdf_ct_eq(const void *a, const void *b, size_t n);
void kdf_wipe(void *p, size_t n);

#ifdef __cplusplus
}
#endif
#endif /* KDFHASH_H */

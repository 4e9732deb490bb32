/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * blocklist.h - the compromised-password list: a file of truncated SHA-1
 * digests that `kdfhash blocklist build` writes (cli/cmd_blocklist.c) and
 * that the CLI and the PAM module look passwords up in.
 *
 * The file, all integers little-endian:
 *
 *   offset  size  field
 *        0     8  magic "KDFHBLK\n"
 *        8     4  version (1)
 *       12     4  digest length D in bytes (4 to 20; the builder writes 8)
 *       16     8  entry count N
 *       24     8  normalization the plain-list entries were built with,
 *                 NUL-padded: "none" or "nfkc"
 *       32    20  check: SHA-1(bytes 0..32 || SHA-1(table))
 *       52    12  zero
 *       64   N*D  table: the first D bytes of SHA-1(password), sorted
 *                 (memcmp order), no duplicates
 *
 * False positives: an unlisted password is reported listed when the first
 * D bytes of its SHA-1 equal those of one of the N entries, with a
 * probability of at most N / 2^(8D): with D = 8, 5.4e-13 for 10 million
 * entries, 5.4e-11 for the Pwned Passwords list's billion.
 *
 * Reading: mmap, the check over the whole table at open (a flipped byte, a
 * truncated or padded file, a wrong magic or version are refused there),
 * then a binary search per lookup.  No allocation: a lookup touches about
 * log2(N) pages of the mapping.  The search is not constant-time: its path
 * depends on the candidate's digest, never on a stored secret.
 */
#ifndef KDF_BLOCKLIST_H
#define KDF_BLOCKLIST_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KDF_BLOCKLIST_MAGIC "KDFHBLK\n"
#define KDF_BLOCKLIST_VERSION 1u
#define KDF_BLOCKLIST_HEADER 64u
#define KDF_BLOCKLIST_SHA1_LEN 20u
#define KDF_BLOCKLIST_MIN_DIGEST 4u
/* The digest length the builder writes. */
#define KDF_BLOCKLIST_DIGEST 8u
/* Offsets of the header's fields. */
#define KDF_BLOCKLIST_OFF_VERSION 8u
#define KDF_BLOCKLIST_OFF_DLEN 12u
#define KDF_BLOCKLIST_OFF_COUNT 16u
#define KDF_BLOCKLIST_OFF_NORM 24u
#define KDF_BLOCKLIST_NORM_LEN 8u
#define KDF_BLOCKLIST_OFF_CHECK 32u
#define KDF_BLOCKLIST_OFF_ZERO 52u

/* The normalization blk_normalize() applies, as the header names it. */
#define KDF_BLOCKLIST_NORM "none"
/* Longest password blk_normalize() takes, and the most it writes. */
#define KDF_BLOCKLIST_MAX_PW ((size_t)1024)

struct kdf_blocklist {
    const uint8_t *map;  /* the whole file, read-only */
    size_t map_len;
    const uint8_t *table;
    uint64_t count;
    unsigned dlen;
    char norm[KDF_BLOCKLIST_NORM_LEN + 1];
};

/* The one place passwords are normalized before they are hashed, by the
 * builder (plain lists) and by every lookup: in[0, len) to out (cap bytes),
 * *out_len its length.  0, or -1 when the password cannot be normalized or
 * does not fit (over KDF_BLOCKLIST_MAX_PW).  Today the identity, with the
 * header's "none"; NFKC (NIST SP 800-63B's normalization of Unicode
 * passwords) goes here, with KDF_BLOCKLIST_NORM "nfkc".  The caller wipes
 * out. */
int blk_normalize(const char *in, size_t len, char *out, size_t cap, size_t *out_len);

/* Open and check path.  0, or -1 with the reason in err ("...: not a
 * blocklist file (wrong magic)", "...: corrupt (checksum mismatch)").  A
 * file built with another normalization than blk_normalize()'s is refused:
 * its plain-list entries would never match. */
int kdf_blocklist_open(struct kdf_blocklist *bl, const char *path, char *err, size_t cap);
void kdf_blocklist_close(struct kdf_blocklist *bl);

/* 1 when the first dlen bytes of sha1 (a full SHA-1) are in the table, else
 * 0. */
int kdf_blocklist_has_digest(const struct kdf_blocklist *bl,
                             const uint8_t sha1[KDF_BLOCKLIST_SHA1_LEN]);
/* 1 when the password pw[0, len) is listed, 0 when not, -1 when it cannot
 * be normalized.  Every copy of the password it makes is wiped. */
int kdf_blocklist_has_password(const struct kdf_blocklist *bl, const char *pw, size_t len);

/* The check of a table and its header's first 32 bytes, as the header
 * holds it (the builder writes it, the reader compares). */
int kdf_blocklist_check_sum(const uint8_t hdr[KDF_BLOCKLIST_OFF_CHECK], const uint8_t *table,
                            size_t table_len, uint8_t out[KDF_BLOCKLIST_SHA1_LEN]);

#ifdef __cplusplus
}
#endif
#endif /* KDF_BLOCKLIST_H */

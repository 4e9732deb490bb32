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
 * Reading: the header's fields (read, not mapped) at open, a wrong magic,
 * version or normalization, a size other than 64 + N*D refused there, then
 * mmap; the check over the whole table only when asked
 * (KDF_BLOCKLIST_VERIFY: the CLI's info, check-conf), not at each login, where
 * it would read every page (100 ms at 10 million entries).  A lookup is an
 * interpolation search: digests are uniform, so entry key * N / 2^64 is
 * within about sqrt(N) entries of the candidate's place, the next estimate
 * (from that entry, at the same density) within a few; a lookup touches 1
 * or 2 pages of the mapping, and falls back to bisection when a file is
 * not uniform.  No allocation.  The search is not constant-time: its path
 * depends on the candidate's digest, never on a stored secret.
 *
 * A mapped file that shrinks kills the reader with SIGBUS (in sshd, login):
 * the builder replaces the file by rename, never in place, and the PAM
 * module opens only a regular file owned by root (or by the process's own
 * user) that group and others cannot write (KDF_BLOCKLIST_TRUSTED).
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

/* The normalization blk_normalize() applies, as the header names it.  A
 * file of the prototype's "none" is still read: its lookups use the bytes
 * as typed only. */
#define KDF_BLOCKLIST_NORM "nfkc"
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
 * its form does not fit (over KDF_BLOCKLIST_MAX_PW).  The core's NFKC form
 * (kdf_password_nfkc(), as verification forms it; NIST SP 800-63B's
 * normalization of Unicode passwords): bytes that are not UTF-8 stay as
 * given.  The caller wipes out. */
int blk_normalize(const char *in, size_t len, char *out, size_t cap, size_t *out_len);

/* kdf_blocklist_open()'s flags. */
#define KDF_BLOCKLIST_VERIFY 0x1u  /* check the whole table's checksum */
#define KDF_BLOCKLIST_TRUSTED 0x2u /* a file only root (or we) can change */

/* Open path and check its header and size (and with KDF_BLOCKLIST_VERIFY
 * the checksum over the table; with KDF_BLOCKLIST_TRUSTED its owner, root
 * or the effective uid, and that group and others cannot write it).  0, or
 * -1 with the reason in err ("...: not a blocklist file (wrong magic)",
 * "...: corrupt (checksum mismatch)"). */
int kdf_blocklist_open(struct kdf_blocklist *bl, const char *path, unsigned flags, char *err,
                       size_t cap);
void kdf_blocklist_close(struct kdf_blocklist *bl);

/* 1 when the first dlen bytes of sha1 (a full SHA-1) are in the table, else
 * 0. */
int kdf_blocklist_has_digest(const struct kdf_blocklist *bl,
                             const uint8_t sha1[KDF_BLOCKLIST_SHA1_LEN]);
/* 1 when the password pw[0, len) is listed, 0 when not, -1 when its form
 * cannot be had (no memory).  In a file built with "nfkc", its NFKC form
 * and, when that differs, its bytes as typed (the Pwned Passwords digests
 * are of passwords as typed); in a "none" file the bytes as typed.  A form
 * longer than KDF_BLOCKLIST_MAX_PW is in no list (the builder refuses
 * such lines).  Every copy of the password it makes is wiped. */
int kdf_blocklist_has_password(const struct kdf_blocklist *bl, const char *pw, size_t len);

/* The check of a table and its header's first 32 bytes, as the header
 * holds it (the builder writes it, the reader compares). */
int kdf_blocklist_check_sum(const uint8_t hdr[KDF_BLOCKLIST_OFF_CHECK], const uint8_t *table,
                            size_t table_len, uint8_t out[KDF_BLOCKLIST_SHA1_LEN]);

#ifdef __cplusplus
}
#endif
#endif /* KDF_BLOCKLIST_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pam_cases.c - the return-code matrix of test_pam (doc/DESIGN.md "The PAM module"):
 * every scheme right and wrong, file layouts, unknown users and unusable
 * files, broken/duplicated/over-cap entries, empty fields x nullok x
 * PAM_DISALLOW_NULL_AUTHTOK, CVE-2020-27780, locked entries, odd names,
 * conversation failures, bad module arguments and hostile passwords.  Each
 * row: the result and the level of the one syslog line expected.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stddef.h>
#include <syslog.h>

#include "pam_fixture.h"

#define STD                                                                              \
    {                                                                                    \
        PW_STD, NULL, 0, 0                                                               \
    }
#define BAD                                                                              \
    {                                                                                    \
        PW_WRONG, NULL, 0, 0                                                             \
    }
#define LIT(s)                                                                           \
    {                                                                                    \
        PW_LIT, s, 0, 0                                                                  \
    }
#define FILL(c, n)                                                                       \
    {                                                                                    \
        PW_FILL, NULL, n, c                                                              \
    }
#define SSHD(n)                                                                          \
    {                                                                                    \
        PW_SSHD, NULL, n, 0                                                              \
    }
#define HIGH                                                                             \
    {                                                                                    \
        PW_HIGH, NULL, 0, 0                                                              \
    }
#define HIGH_BAD                                                                         \
    {                                                                                    \
        PW_HIGH_BAD, NULL, 0, 0                                                          \
    }
#define RIGHT(id)                                                                        \
    {                                                                                    \
        "right " #id, "u_" #id, STD, "", S_MAIN, 0, PAM_SUCCESS, PAM_SUCCESS, NOLOG      \
    }
#define WRONGPW(id)                                                                      \
    {                                                                                    \
        "wrong " #id, "u_" #id, BAD, "", S_MAIN, 0, PAM_SUCCESS, PAM_AUTH_ERR,           \
            LOG_NOTICE                                                                   \
    }
#define REFUSE(what, user, pw, args, expect, prio)                                       \
    {                                                                                    \
        what, user, pw, args, S_MAIN, 0, PAM_SUCCESS, expect, prio                       \
    }

const struct mcase g_cases[] = {
    /* every scheme, right and wrong */
    RIGHT(bc2b),
    WRONGPW(bc2b),
    RIGHT(bc2a),
    WRONGPW(bc2a),
    RIGHT(bc2y),
    WRONGPW(bc2y),
    RIGHT(bc2x),
    WRONGPW(bc2x),
    RIGHT(a2id),
    WRONGPW(a2id),
    RIGHT(a2id_p4),
    RIGHT(a2i),
    WRONGPW(a2i),
    RIGHT(a2d),
    WRONGPW(a2d),
    RIGHT(a2id_v16),
    WRONGPW(a2id_v16),
    RIGHT(pbk1),
    WRONGPW(pbk1),
    RIGHT(pbk256),
    WRONGPW(pbk256),
    RIGHT(pbk512),
    WRONGPW(pbk512),
    RIGHT(phc1),
    WRONGPW(phc1),
    RIGHT(phc256),
    WRONGPW(phc256),
    RIGHT(phc512),
    WRONGPW(phc512),
    RIGHT(dj256),
    WRONGPW(dj256),
    RIGHT(bcs256),
    WRONGPW(bcs256),
    RIGHT(djbc),
    WRONGPW(djbc),
    RIGHT(djbcs),
    WRONGPW(djbcs),
    RIGHT(dja2),
    WRONGPW(dja2),
    RIGHT(djscrypt),
    WRONGPW(djscrypt),
    RIGHT(dj1),
    WRONGPW(dj1),
    RIGHT(sha512c),
    WRONGPW(sha512c),
    RIGHT(yescrypt),
    WRONGPW(yescrypt),
    RIGHT(md5c),
    WRONGPW(md5c),
    /* file layout: CRLF, two fields, no final newline */
    RIGHT(crlf),
    RIGHT(crlf2),
    RIGHT(last),
    /* unknown users and unusable files */
    REFUSE("unknown user", "nosuchuser", STD, "", PAM_USER_UNKNOWN, LOG_NOTICE),
    {"missing file", "u_bc2b", STD, "", S_MISSING, 0, PAM_SUCCESS, PAM_AUTHINFO_UNAVAIL,
     LOG_ERR},
    {"directory as file", "u_bc2b", STD, "", S_DIR, 0, PAM_SUCCESS, PAM_AUTHINFO_UNAVAIL,
     LOG_ERR},
    {"symlinked file", "u_bc2b", STD, "", S_LINK, 0, PAM_SUCCESS, PAM_AUTHINFO_UNAVAIL,
     LOG_ERR},
    {"odd name, missing file", "a:b", STD, "", S_MISSING, 0, PAM_SUCCESS,
     PAM_USER_UNKNOWN, LOG_NOTICE},
    /* broken, unsupported, duplicated and over-cap entries */
    REFUSE("malformed entry", "u_malformed", STD, "", PAM_AUTH_ERR, LOG_ERR),
    REFUSE("unsupported entry", "u_unsupported", STD, "", PAM_AUTH_ERR, LOG_ERR),
    /* The right password of a keyed entry whose key is not at hand. */
    REFUSE("keyed entry, no key", "u_keyed",
           LIT("\346\320\207\331\265\227\341\246\241\272\273\337"), "", PAM_AUTH_ERR,
           LOG_ERR),
    REFUSE("duplicate name", "u_dup", STD, "", PAM_AUTH_ERR, LOG_ERR),
    REFUSE("over-cap bcrypt 17", "u_cap_bcrypt", STD, "", PAM_AUTH_ERR, LOG_ERR),
    REFUSE("over-cap argon2 p=1000", "u_cap_argon2", STD, "", PAM_AUTH_ERR, LOG_ERR),
    REFUSE("over-cap pbkdf2 1e8", "u_cap_pbkdf2", STD, "", PAM_AUTH_ERR, LOG_ERR),
    REFUSE("over max.bcrypt=4", "u_bc2y", STD, "max.bcrypt=4", PAM_AUTH_ERR, LOG_ERR),
    REFUSE("over max.password=8", "u_bc2b", STD, "max.password=8", PAM_AUTH_ERR,
           LOG_NOTICE),
    /* empty field x nullok x PAM_DISALLOW_NULL_AUTHTOK x typed password */
    REFUSE("empty, no nullok", "u_empty", LIT(""), "", PAM_AUTH_ERR, LOG_NOTICE),
    REFUSE("empty, nullok", "u_empty", LIT(""), "nullok", PAM_SUCCESS, NOLOG),
    {"empty, nullok, DISALLOW", "u_empty", LIT(""), "nullok", S_MAIN,
     PAM_DISALLOW_NULL_AUTHTOK, PAM_SUCCESS, PAM_AUTH_ERR, LOG_NOTICE},
    {"empty, DISALLOW", "u_empty", LIT(""), "", S_MAIN, PAM_DISALLOW_NULL_AUTHTOK,
     PAM_SUCCESS, PAM_AUTH_ERR, LOG_NOTICE},
    REFUSE("empty, nullok, typed x", "u_empty", LIT("x"), "nullok", PAM_AUTH_ERR,
           LOG_NOTICE),
    REFUSE("root empty, nullok", "root", LIT(""), "nullok", PAM_SUCCESS, NOLOG),
    /* CVE-2020-27780: unknown user + nullok + root without password */
    REFUSE("CVE-2020-27780", "pam_unix_non_existent:", LIT(""), "nullok",
           PAM_USER_UNKNOWN, LOG_NOTICE),
    REFUSE("CVE-2020-27780 valid name", "nosuchuser", LIT(""), "nullok", PAM_USER_UNKNOWN,
           LOG_NOTICE),
    /* locked */
    REFUSE("locked *", "u_star", STD, "", PAM_AUTH_ERR, LOG_NOTICE),
    REFUSE("locked !", "u_bang", STD, "", PAM_AUTH_ERR, LOG_NOTICE),
    REFUSE("locked ! + valid bcrypt", "u_bang_valid", STD, "", PAM_AUTH_ERR, LOG_NOTICE),
    REFUSE("locked * + valid argon2id", "u_star_valid", STD, "", PAM_AUTH_ERR,
           LOG_NOTICE),
    REFUSE("locked !, nullok, empty", "u_bang", LIT(""), "nullok", PAM_AUTH_ERR,
           LOG_NOTICE),
    /* odd names */
    REFUSE("name with ':'", "u_bc2b:x", STD, "", PAM_USER_UNKNOWN, LOG_NOTICE),
    REFUSE("name with newline", "u_bc2b\n", STD, "", PAM_USER_UNKNOWN, LOG_NOTICE),
    REFUSE("name +", "+u_plus", STD, "", PAM_USER_UNKNOWN, LOG_NOTICE),
    REFUSE("name -", "-u_minus", STD, "", PAM_USER_UNKNOWN, LOG_NOTICE),
    REFUSE("comment line name", "#u_hash", STD, "", PAM_USER_UNKNOWN, LOG_NOTICE),
    REFUSE("empty name", "", STD, "", PAM_USER_UNKNOWN, LOG_NOTICE),
    REFUSE("256-byte name", "@256", STD, "", PAM_SUCCESS, NOLOG),
    REFUSE("257-byte name", "@257", STD, "", PAM_USER_UNKNOWN, LOG_NOTICE),
    REFUSE("prefix of a 256-byte name", "@255", STD, "", PAM_USER_UNKNOWN, LOG_NOTICE),
    REFUSE("prefix of u_bc2b", "u_bc2", STD, "", PAM_USER_UNKNOWN, LOG_NOTICE),
    REFUSE("line without ':'", "u_nocolon", STD, "", PAM_USER_UNKNOWN, LOG_NOTICE),
    REFUSE("name on a 70 KB line", "u_huge", STD, "", PAM_USER_UNKNOWN, LOG_NOTICE),
    /* the conversation */
    {"conversation error", "u_bc2b", STD, "", S_MAIN, 0, PAM_CONV_ERR, PAM_CONV_ERR,
     LOG_ERR},
    /* (the one line of these two is libpam's own "conversation failed") */
    {"conversation again", "u_bc2b", STD, "", S_MAIN, 0, PAM_CONV_AGAIN, PAM_INCOMPLETE,
     LOG_ERR},
    /* module arguments: a bad one is skipped and logged at LOG_ERR, and the
     * login goes on, degraded (built-in policy, no upgrade): refusing it
     * handed the stack to pam_unix, which cannot read our entries */
    REFUSE("unknown option", "u_bc2b", STD, "frobnicate", PAM_SUCCESS, LOG_ERR),
    REFUSE("bad upgrade=", "u_bc2b", STD, "upgrade=sometimes", PAM_SUCCESS, LOG_ERR),
    REFUSE("relative conf=", "u_a2id", STD, "conf=etc/kdfhash.conf", PAM_SUCCESS, LOG_ERR),
    REFUSE("missing explicit conf=", "u_a2id", STD, "conf=/nonexistent/kdfhash.conf",
           PAM_SUCCESS, LOG_ERR),
    REFUSE("unknown policy key", "u_bc2b", STD, "max.bogus=3", PAM_SUCCESS, LOG_ERR),
    REFUSE("flag with a value", "u_bc2b", STD, "nullok=1", PAM_SUCCESS, LOG_ERR),
    REFUSE("bad target", "u_a2id", STD, "target=md5", PAM_SUCCESS, LOG_ERR),
    REFUSE("budget below the target", "u_a2id", STD,
           "target=argon2id:m=4096,t=1,p=1 max.memory=2048", PAM_SUCCESS,
           LOG_ERR),
    REFUSE("bad minlen=", "u_bc2b", STD, "minlen=-1", PAM_SUCCESS, LOG_ERR),
    /* hostile passwords: empty, long, control and high bytes */
    REFUSE("0-byte password", "u_bc2b", LIT(""), "", PAM_AUTH_ERR, LOG_NOTICE),
    REFUSE("hash of the empty password", "u_pw0", LIT(""), "", PAM_SUCCESS, NOLOG),
    REFUSE("1-byte password", "u_pw1", LIT("a"), "", PAM_SUCCESS, NOLOG),
    REFUSE("1-byte wrong", "u_pw1", LIT("b"), "", PAM_AUTH_ERR, LOG_NOTICE),
    REFUSE("bcrypt 72 bytes", "u_pw72", FILL('x', 72), "", PAM_SUCCESS, NOLOG),
    REFUSE("bcrypt 73 bytes (cut at 72)", "u_pw72", FILL('x', 73), "", PAM_SUCCESS,
           NOLOG),
    REFUSE("bcrypt 71 bytes", "u_pw72", FILL('x', 71), "", PAM_AUTH_ERR, LOG_NOTICE),
    REFUSE("4096 bytes", "u_pw4096", FILL('p', 4096), "", PAM_SUCCESS, NOLOG),
    REFUSE("4097 bytes", "u_pw4096", FILL('p', 4097), "", PAM_AUTH_ERR, LOG_NOTICE),
    REFUSE("1 MiB", "u_pw4096", FILL('p', 1 << 20), "", PAM_AUTH_ERR, LOG_NOTICE),
    REFUSE("1 MiB, unknown user", "nosuchuser", FILL('p', 1 << 20), "", PAM_USER_UNKNOWN,
           LOG_NOTICE),
    REFUSE("sshd junk, unknown user", "nosuchuser", SSHD(12), "", PAM_USER_UNKNOWN,
           LOG_NOTICE),
    REFUSE("sshd junk, known user", "u_a2id", SSHD(12), "", PAM_AUTH_ERR, LOG_NOTICE),
    REFUSE("sshd junk 1000, known", "u_bc2b", SSHD(1000), "", PAM_AUTH_ERR, LOG_NOTICE),
    REFUSE("bytes 0x80-0xff", "u_pwhigh", HIGH, "", PAM_SUCCESS, NOLOG),
    REFUSE("bytes 0x80-0xff, one bit off", "u_pwhigh", HIGH_BAD, "", PAM_AUTH_ERR,
           LOG_NOTICE),
};

const size_t g_ncases = sizeof g_cases / sizeof g_cases[0];

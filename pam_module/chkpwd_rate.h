/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * chkpwd_rate.h - the rate limit of kdfhash-chkpwd: one record per real uid
 * in a directory only root (and group shadow) may write, locked across the
 * verification and the refusal's delay, so that neither killing the helper
 * once its verification is done nor running many at once buys a caller
 * more than one guess per delay.
 */
#ifndef KDF_CHKPWD_RATE_H
#define KDF_CHKPWD_RATE_H

#include <sys/types.h>

enum kdf_chkpwd_rate_mode {
    KDF_RATE_OFF,      /* not limited: root, or a helper without privileges */
    KDF_RATE_ON,       /* the record is locked; fd holds it */
    KDF_RATE_DEGRADED  /* no usable directory: a fixed delay before verifying */
};

struct kdf_chkpwd_rate {
    enum kdf_chkpwd_rate_mode mode;
    int fd;            /* the locked record (KDF_RATE_ON), the locked shadow file
                        * (KDF_RATE_DEGRADED), else -1 */
    unsigned count;    /* refused or unfinished attempts in a row, this one included */
};

enum kdf_chkpwd_rate_begin {
    KDF_RATE_GO,       /* verify now */
    KDF_RATE_BUSY,     /* another check of this uid held the lock too long: refuse */
    KDF_RATE_ERROR     /* the record cannot be opened or locked: refuse */
};

/*
 * Before the verification, while the helper still holds its privileges:
 * open dir (it must be a directory owned by root and not writable by
 * others, reached without following a symbolic link), open or create the
 * record named by the decimal uid in it, lock it (polling, at most
 * lock_wait_ms), wait until delay_ms have passed since the last refused or
 * unfinished attempt, and record this attempt as started now.  A missing or
 * unsafe directory is logged at LOG_ERR and costs delay_ms before the
 * verification instead (KDF_RATE_DEGRADED), paid under an exclusive lock of
 * lock_path (the shadow file the helper verifies against; polled as the
 * record's, KDF_RATE_BUSY after lock_wait_ms), so that helpers pay it one
 * after another.  The descriptor stays open, and the lock held, until
 * exit.
 */
enum kdf_chkpwd_rate_begin kdf_chkpwd_rate_begin(struct kdf_chkpwd_rate *r, const char *dir,
                                                 const char *lock_path, uid_t uid,
                                                 unsigned delay_ms, unsigned lock_wait_ms);

/* After the answer is known: a success clears the record; a refusal leaves
 * the attempt recorded.  The lock is kept (the caller's delay is part of the
 * attempt); it goes with the process. */
void kdf_chkpwd_rate_end(struct kdf_chkpwd_rate *r, int ok);

/* Sleep delay_ms whatever signals arrive (CLOCK_BOOTTIME, absolute). */
void kdf_chkpwd_sleep_ms(unsigned delay_ms);

#endif /* KDF_CHKPWD_RATE_H */

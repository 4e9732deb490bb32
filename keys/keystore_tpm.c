/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * keystore_tpm.c - keys that never leave a TPM: an HMAC-SHA256 key made
 * inside the TPM (its bytes generated there, fixedTPM and fixedParent, so
 * no command exports them), kept at a persistent handle, and asked for its
 * HMAC of "kdfhash-tpm-v1\0" || salt at each verification (TPM 2.0 Part 3,
 * TPM2_HMAC).  That HMAC is Argon2's secret value for the entry: a copy of
 * the disk and of the key directory is useless without this machine's
 * TPM.  The password never goes to the TPM: nothing on the bus between
 * CPU and TPM is a function of it.
 *
 * Through the TPM2 Software Stack's ESAPI and the TCTI loader (Debian's
 * libtss2-dev): "device:/dev/tpmrm0" on a machine, "swtpm:port=N" in the
 * tests.  Every command has a timeout (Esys_SetTimeout), and the module
 * runs all of this in a child it kills at a deadline (tpm_hmac.c,
 * tpm_client.c): a TPM that does not answer is a refusal with a reason,
 * never a hang of the login and never a fallback to another key or to
 * none.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <string.h>

#include "keystore.h"

#ifdef HAVE_TPM
#include <tss2/tss2_esys.h>
#include <tss2/tss2_rc.h>
#include <tss2/tss2_tctildr.h>

static const char g_label[] = "kdfhash-tpm-v1"; /* with its NUL */

/* Where new keys are made persistent: the first free handle of this block
 * of the owner's range (TCG's registry leaves 0x81000000-0x8100FFFF to the
 * owner; tools commonly start at 0x81000000, so we stay clear of it). */
#define TPM_HANDLE_FIRST 0x81006B00u
#define TPM_HANDLE_COUNT 256u
/* TPM2_PERSISTENT_FIRST, spelled as a constant: tpm2-tss's macro shifts
 * the int 0x81 left by 24, which UBSan reports as an overflow. */
#define TPM_PERSISTENT_FIRST 0x81000000u

struct tpm {
    TSS2_TCTI_CONTEXT *tcti;
    ESYS_CONTEXT *esys;
};

static void
say(char *err, size_t cap, const char *what, TSS2_RC rc)
{
    kdf_errf(err, cap, "%s: %s", what, Tss2_RC_Decode(rc));
}

static enum kdf_status
tpm_open(struct tpm *t, const char *conf, char *err, size_t cap)
{
    TSS2_RC rc;

    memset(t, 0, sizeof *t);
    rc = Tss2_TctiLdr_Initialize(conf, &t->tcti);
    if (rc != TSS2_RC_SUCCESS) {
        say(err, cap, "no TPM answers", rc);
        t->tcti = NULL;
        return KDF_NOKEY;
    }
    rc = Esys_Initialize(&t->esys, t->tcti, NULL);
    if (rc != TSS2_RC_SUCCESS) {
        say(err, cap, "no TPM answers", rc);
        t->esys = NULL;
        Tss2_TctiLdr_Finalize(&t->tcti);
        return KDF_NOKEY;
    }
    (void)Esys_SetTimeout(t->esys, KDF_TPM_TIMEOUT_MS);
    return KDF_OK;
}

static void
tpm_close(struct tpm *t)
{
    if (t->esys != NULL)
        Esys_Finalize(&t->esys);
    if (t->tcti != NULL)
        Tss2_TctiLdr_Finalize(&t->tcti);
}

int
kdf_tpm_built(void)
{
    return 1;
}

enum kdf_status
kdf_tpm_secret(const char *tcti, uint32_t handle, const uint8_t *salt, size_t salt_len,
               uint8_t *out, char *err, size_t cap)
{
    TPM2B_MAX_BUFFER msg;
    TPM2B_DIGEST *mac = NULL;
    ESYS_TR key = ESYS_TR_NONE;
    struct tpm t;
    enum kdf_status st = KDF_NOKEY;
    TSS2_RC rc;

    if (salt_len > sizeof msg.buffer - sizeof g_label) {
        kdf_errf(err, cap, "salt too long");
        return KDF_NOKEY;
    }
    if (tpm_open(&t, tcti, err, cap) != KDF_OK)
        return KDF_NOKEY;
    msg.size = (UINT16)(sizeof g_label + salt_len);
    memcpy(msg.buffer, g_label, sizeof g_label);
    memcpy(msg.buffer + sizeof g_label, salt, salt_len);
    rc = Esys_TR_FromTPMPublic(t.esys, handle, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, &key);
    if (rc != TSS2_RC_SUCCESS)
        say(err, cap, "no key at its handle", rc);
    else {
        rc = Esys_HMAC(t.esys, key, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE, &msg,
                       TPM2_ALG_SHA256, &mac);
        if (rc != TSS2_RC_SUCCESS)
            say(err, cap, "TPM2_HMAC", rc);
        else if (mac == NULL || mac->size != KDF_TPM_SECRET_LEN)
            kdf_errf(err, cap, "TPM2_HMAC: not a SHA-256 HMAC");
        else {
            memcpy(out, mac->buffer, KDF_TPM_SECRET_LEN);
            st = KDF_OK;
        }
        if (mac != NULL) {
            explicit_bzero(mac, sizeof *mac);
            Esys_Free(mac);
        }
        (void)Esys_TR_Close(t.esys, &key);
    }
    explicit_bzero(&msg, sizeof msg);
    tpm_close(&t);
    return st;
}

/* The first handle of our block that no persistent object holds. */
static enum kdf_status
free_handle(struct tpm *t, uint32_t *handle, char *err, size_t cap)
{
    TPMS_CAPABILITY_DATA *caps = NULL;
    TPMI_YES_NO more = TPM2_NO;
    TSS2_RC rc = Esys_GetCapability(t->esys, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE,
                                    TPM2_CAP_HANDLES, TPM_PERSISTENT_FIRST,
                                    TPM2_MAX_CAP_HANDLES, &more, &caps);

    if (rc != TSS2_RC_SUCCESS) {
        say(err, cap, "TPM2_GetCapability", rc);
        return KDF_INTERNAL;
    }
    for (uint32_t h = TPM_HANDLE_FIRST; h < TPM_HANDLE_FIRST + TPM_HANDLE_COUNT; h++) {
        int used = 0;

        for (UINT32 i = 0; i < caps->data.handles.count; i++)
            used |= caps->data.handles.handle[i] == h;
        if (!used) {
            *handle = h;
            Esys_Free(caps);
            return KDF_OK;
        }
    }
    Esys_Free(caps);
    kdf_errf(err, cap, "no free persistent handle in 0x%08x-0x%08x", TPM_HANDLE_FIRST,
             TPM_HANDLE_FIRST + TPM_HANDLE_COUNT - 1);
    return KDF_INTERNAL;
}

enum kdf_status
kdf_tpm_new_key(const char *tcti, uint32_t *handle, char *err, size_t cap)
{
    /* The storage primary of the owner hierarchy (the TCG's ECC P-256
     * template, as tpm2_createprimary makes by default): made again the
     * same from the hierarchy's seed each time, flushed after. */
    TPM2B_PUBLIC srk = {
        .publicArea = {
            .type = TPM2_ALG_ECC,
            .nameAlg = TPM2_ALG_SHA256,
            .objectAttributes = TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_DECRYPT |
                                TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT |
                                TPMA_OBJECT_SENSITIVEDATAORIGIN | TPMA_OBJECT_USERWITHAUTH,
            .parameters.eccDetail = {
                .symmetric = {.algorithm = TPM2_ALG_AES,
                              .keyBits.aes = 128,
                              .mode.aes = TPM2_ALG_CFB},
                .scheme = {.scheme = TPM2_ALG_NULL},
                .curveID = TPM2_ECC_NIST_P256,
                .kdf = {.scheme = TPM2_ALG_NULL},
            },
        }};
    /* The HMAC key: its bytes made by the TPM, never exported, no
     * dictionary-attack lockout on its empty authorisation. */
    TPM2B_PUBLIC hmac = {
        .publicArea = {
            .type = TPM2_ALG_KEYEDHASH,
            .nameAlg = TPM2_ALG_SHA256,
            .objectAttributes = TPMA_OBJECT_SIGN_ENCRYPT | TPMA_OBJECT_FIXEDTPM |
                                TPMA_OBJECT_FIXEDPARENT | TPMA_OBJECT_SENSITIVEDATAORIGIN |
                                TPMA_OBJECT_USERWITHAUTH | TPMA_OBJECT_NODA,
            .parameters.keyedHashDetail.scheme = {
                .scheme = TPM2_ALG_HMAC,
                .details.hmac.hashAlg = TPM2_ALG_SHA256,
            },
        }};
    TPM2B_SENSITIVE_CREATE sens;
    TPM2B_DATA outside;
    TPML_PCR_SELECTION pcrs;
    TPM2B_PRIVATE *priv = NULL;
    TPM2B_PUBLIC *pub = NULL;
    ESYS_TR primary = ESYS_TR_NONE, key = ESYS_TR_NONE, persistent = ESYS_TR_NONE;
    struct tpm t;
    enum kdf_status st = KDF_INTERNAL;
    TSS2_RC rc;

    memset(&sens, 0, sizeof sens);
    memset(&outside, 0, sizeof outside);
    memset(&pcrs, 0, sizeof pcrs);
    if (tpm_open(&t, tcti, err, cap) != KDF_OK)
        return KDF_INTERNAL;
    rc = Esys_CreatePrimary(t.esys, ESYS_TR_RH_OWNER, ESYS_TR_PASSWORD, ESYS_TR_NONE,
                            ESYS_TR_NONE, &sens, &srk, &outside, &pcrs, &primary, NULL, NULL,
                            NULL, NULL);
    if (rc != TSS2_RC_SUCCESS) {
        say(err, cap, "TPM2_CreatePrimary (owner hierarchy)", rc);
        goto out;
    }
    rc = Esys_Create(t.esys, primary, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE, &sens,
                     &hmac, &outside, &pcrs, &priv, &pub, NULL, NULL, NULL);
    if (rc != TSS2_RC_SUCCESS) {
        say(err, cap, "TPM2_Create", rc);
        goto out;
    }
    rc = Esys_Load(t.esys, primary, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE, priv, pub,
                   &key);
    if (rc != TSS2_RC_SUCCESS) {
        say(err, cap, "TPM2_Load", rc);
        goto out;
    }
    if (free_handle(&t, handle, err, cap) != KDF_OK)
        goto out;
    rc = Esys_EvictControl(t.esys, ESYS_TR_RH_OWNER, key, ESYS_TR_PASSWORD, ESYS_TR_NONE,
                           ESYS_TR_NONE, *handle, &persistent);
    if (rc != TSS2_RC_SUCCESS) {
        say(err, cap, "TPM2_EvictControl", rc);
        goto out;
    }
    (void)Esys_TR_Close(t.esys, &persistent);
    st = KDF_OK;
out:
    if (key != ESYS_TR_NONE)
        (void)Esys_FlushContext(t.esys, key);
    if (primary != ESYS_TR_NONE)
        (void)Esys_FlushContext(t.esys, primary);
    Esys_Free(priv);
    Esys_Free(pub);
    tpm_close(&t);
    return st;
}

#else /* !HAVE_TPM */

int
kdf_tpm_built(void)
{
    return 0;
}

enum kdf_status
kdf_tpm_secret(const char *tcti, uint32_t handle, const uint8_t *salt, size_t salt_len,
               uint8_t *out, char *err, size_t cap)
{
    (void)tcti;
    (void)handle;
    (void)salt;
    (void)salt_len;
    (void)out;
    kdf_errf(err, cap, "built without TPM support (configure --with-tpm)");
    return KDF_NOKEY;
}

enum kdf_status
kdf_tpm_new_key(const char *tcti, uint32_t *handle, char *err, size_t cap)
{
    (void)tcti;
    *handle = 0;
    kdf_errf(err, cap, "built without TPM support (configure --with-tpm)");
    return KDF_UNSUPPORTED;
}

#endif /* HAVE_TPM */

static enum kdf_status
tpm_here(void *ctx, const char *tcti, uint32_t handle, const uint8_t *salt, size_t salt_len,
         uint8_t *out, char *err, size_t cap)
{
    (void)ctx;
    return kdf_tpm_secret(tcti, handle, salt, salt_len, out, err, cap);
}

const struct kdf_tpm_access kdf_tpm_here = {tpm_here, NULL};

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * api_policy_text.c - the strict lexer that kdfhash.conf, module arguments and
 * target texts share: a number is plain decimal without a sign or a leading
 * zero and fits 32 bits; an item is KEY=VALUE; items are separated by
 * commas and/or blanks; nothing is left over.
 */
#include "kdf_prelude.h"

#include "hstr.h"
#include "kdf_scheme.h"
#include "api_policy_text.h"

/* The hash strings' decimal (kdf_dec_u32(): digits only, no sign, no
 * leading zero but "0" itself, no overflow of 32 bits) over the whole of
 * s[0..n), nothing trailing.  0 on success; *out untouched otherwise. */
int
kdf_pol_u32(const char *s, size_t n, uint32_t *out)
{
    size_t pos = 0;
    uint32_t v;

    if (!kdf_dec_u32(s, n, &pos, &v) || pos != n)
        return -1;
    *out = v;
    return 0;
}

/* The schemes a target or an accept list may name: the table's rows that
 * we make ourselves (crypt(3) targets are named through the target text). */
int
kdf_pol_scheme(const char *s, size_t n, enum kdf_scheme *out)
{
    const struct kdf_scheme_desc *row = kdf_scheme_named(s, n);

    if (row == NULL || row->id == KDF_SCHEME_LEGACY || row->target_check == NULL)
        return -1;
    *out = row->id;
    return 0;
}

/*
 * Iterate over "k=v" items separated by commas and/or blanks.  *pos is the
 * cursor into s[0..n), *first is 1 before the first item.  Returns 1 with the item, 0 at the end, -1 on an
 * empty item (",," or a trailing comma).
 */
int
kdf_pol_item(const char *s, size_t n, size_t *pos, int *first, const char **k, size_t *klen,
          const char **v, size_t *vlen)
{
    size_t i = *pos, start, eq = 0;
    int comma = 0;

    while (i < n && (kdf_pol_is_space(s[i]) || s[i] == ',')) {
        if (s[i] == ',') {
            if (comma || *first)
                return -1;
            comma = 1;
        }
        i++;
    }
    if (i == n)
        return comma ? -1 : 0;
    start = i;
    while (i < n && !kdf_pol_is_space(s[i]) && s[i] != ',') {
        if (s[i] == '=' && eq == 0)
            eq = i;
        i++;
    }
    if (eq == 0 || eq == start || eq + 1 == i)
        return -1;
    *k = s + start;
    *klen = eq - start;
    *v = s + eq + 1;
    *vlen = i - eq - 1;
    *pos = i;
    *first = 0;
    return 1;
}


#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# RFC 6070's 16,777,216-iteration PBKDF2-HMAC-SHA1 vector on every SHA-1
# variant this CPU runs (tens of seconds portable): `make check-soak` only.
exec "${top_builddir:-.}/tests/unit/test_pbkdf2" --soak

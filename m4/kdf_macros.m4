# SPDX-License-Identifier: BSD-3-Clause
# Small configure helpers of our own (no autoconf-archive dependency).

# KDF_CHECK_CFLAG(FLAG, [IF-YES], [IF-NO]): does $CC accept FLAG (as an error)?
AC_DEFUN([KDF_CHECK_CFLAG], [
  AS_VAR_PUSHDEF([kdf_var], [kdf_cv_cflag_$1])
  AC_CACHE_CHECK([whether $CC accepts $1], [kdf_var], [
    kdf_save_CFLAGS=$CFLAGS
    CFLAGS="$CFLAGS -Werror $1"
    AC_COMPILE_IFELSE([AC_LANG_PROGRAM([], [return 0;])],
      [AS_VAR_SET([kdf_var], [yes])], [AS_VAR_SET([kdf_var], [no])])
    CFLAGS=$kdf_save_CFLAGS])
  AS_VAR_IF([kdf_var], [yes], [$2], [$3])
  AS_VAR_POPDEF([kdf_var])
])

# KDF_CHECK_ISA(NAME, FLAGS, HEADER, BODY): link one real intrinsic with FLAGS
# (libsodium's approach).  Sets CFLAGS_NAME, AM_CONDITIONAL HAVE_NAME, and
# defines HAVE_NAME in config.h so dispatch tables list the variant.
AC_DEFUN([KDF_CHECK_ISA], [
  AC_CACHE_CHECK([for $1 intrinsics with '$2'], [kdf_cv_isa_$1], [
    kdf_save_CFLAGS=$CFLAGS
    CFLAGS="$CFLAGS $2"
    AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <$3>]], [[$4]])],
      [kdf_cv_isa_$1=yes], [kdf_cv_isa_$1=no])
    CFLAGS=$kdf_save_CFLAGS])
  kdf_have_$1=$kdf_cv_isa_$1
  AS_IF([test "x$kdf_have_$1" = xyes], [
    CFLAGS_$1="$2"
    AC_DEFINE([HAVE_$1], [1], [the $1 variant is compiled in])
  ])
  AC_SUBST([CFLAGS_$1])
])
# AX_PTHREAD_SIMPLE: glibc >= 2.34 has pthreads in libc; -pthread is enough.
AC_DEFUN([AX_PTHREAD_SIMPLE], [
  PTHREAD_CFLAGS=-pthread
  PTHREAD_LIBS=-pthread
  AC_SUBST([PTHREAD_CFLAGS])
  AC_SUBST([PTHREAD_LIBS])
])

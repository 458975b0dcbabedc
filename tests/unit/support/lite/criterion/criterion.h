// SPDX-License-Identifier: GPL-3.0-or-later
/* <criterion/criterion.h> for the builds whose tests run on the plain
 * runner (ARCH=arm64 under qemu-user): see criterion_lite.h. */
#include "../../criterion_lite.h"

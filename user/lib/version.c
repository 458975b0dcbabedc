// SPDX-License-Identifier: GPL-3.0-or-later
#include "lib/version.h"
#include <stdio.h>
#include "lib/msg.h"

void version_print(void)
{
	printf("%s (adaptrm) %s\n", program_short, ADAPTRM_VERSION);
	puts("License GPL-3.0-or-later <https://gnu.org/licenses/gpl.html>.\n"
	     "This is free software: you are free to change and redistribute it.\n"
	     "There is NO WARRANTY, to the extent permitted by law.");
}

// SPDX-License-Identifier: GPL-3.0-or-later
/* adaptrm --profiles: the controller's stored tuning, one line per
 * filesystem and tree shape. Returns the exit status. */
#ifndef ADAPTRM_PROFILES_CMD_H
#define ADAPTRM_PROFILES_CMD_H
int profiles_main(int argc, char **argv);
#endif

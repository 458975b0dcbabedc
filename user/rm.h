#ifndef ADAPTRM_RM_H
#define ADAPTRM_RM_H
#include "options.h"
/* Remove FILES as GNU rm would, with the parallel engine for trees. Returns
 * the exit status (0 ok, 1 some error); exits 130/143 when interrupted. */
int rm_main(const struct rm_options *o, int nfiles, char **files);
#endif

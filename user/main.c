// SPDX-License-Identifier: GPL-3.0-or-later
/* adaptrm: entry point. Picks the face (rm, --trace, --profiles) and leaves
 * the rest to it; checks stdout at exit like GNU's close_stdout (a failed write of stdout,
 * -v into a full disk or a closed fd, is an error). */
#include "cli/background.h"
#include "cli/fromlist_cmd.h"
#include "cli/options.h"
#include "cli/profiles_cmd.h"
#include "cli/progress.h"
#include "cli/rm.h"
#include "hold/deleter.h"
#include "lib/msg.h"
#include "lib/xalloc.h"
#include "trace/trace.h"

#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	xalloc_fit_address_limit(); /* before any thread allocates */
	progress_clock_start();
	setlocale(LC_ALL, "");
	msg_init(argv[0]);
	if (argc > 1 && !strcmp(argv[1], "--trace"))
		return msg_close_stdout(trace_main(argc, argv));
	if (argc > 1 && !strcmp(argv[1], DELETER_ARG))
		return deleter_main(argc - 2, argv + 2);
	if (argc > 1 && !strcmp(argv[1], "--profiles"))
		return msg_close_stdout(profiles_main(argc - 1, argv + 1));

	struct rm_options o;
	int first = options_parse(&o, argc, argv);
	int nfiles = argc - first;
	if (o.from_list || o.prune_empty)
		return msg_close_stdout(fromlist_main(&o, nfiles, argv + first));
	if (o.pending_held || o.wait_held || o.resume_held)
		return msg_close_stdout(background_main(&o, nfiles, argv + first));
	if (nfiles == 0 && !o.ignore_missing) {
		warn_errno(0, "missing operand");
		options_usage(1);
	}
	return msg_close_stdout(rm_run(&o, nfiles, argv + first, NULL));
}

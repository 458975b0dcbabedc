// SPDX-License-Identifier: GPL-3.0-or-later
/* One decision of the adaptive controller: every change of a knob, with its
 * evidence. A header of its own so that the faces that show decisions (the
 * rm face's report, --trace -rf) need not include the controller. */
#ifndef ADAPTRM_CTL_DECISION_H
#define ADAPTRM_CTL_DECISION_H

struct controller_decision {
	double t;     /* seconds since the first tree began */
	int from, to; /* active workers */
	char why[200];
};
#endif

// SPDX-License-Identifier: GPL-3.0-or-later
/* The steering (user/ctl/steer.c): the engine runs the minimum of the
 * policy's count, the politeness's ceiling and the budget's share, at the
 * slowest of the paces, and the steering says which input bound it. */
#include <criterion/criterion.h>

#include "ctl/steer.h"
#include "engine/engine.h"

static struct engine *engine8(void)
{
	struct engine_config cfg = { .max_threads = 8, .force = true };
	return engine_create(&cfg, 1);
}

static uint64_t pace(struct engine *e)
{
	struct engine_settings k;
	engine_settings(e, &k);
	return k.op_interval_ns;
}

Test(steer, the_policy_alone_sets_the_count)
{
	struct engine *e = engine8();
	struct steer *s = steer_new(e, 0);
	cr_assert_eq(steer_bound(s), STEER_START);
	steer_policy(s, 4);
	cr_assert_eq(steer_apply(s), 4);
	cr_assert_eq(engine_active_threads(e), 4);
	cr_assert_eq(steer_bound(s), STEER_POLICY);
	steer_free(s);
	engine_destroy(e);
}

Test(steer, a_ceiling_bounds_the_policy_and_its_lifting_hands_the_count_back)
{
	struct engine *e = engine8();
	struct steer *s = steer_new(e, 0);
	steer_policy(s, 6);
	steer_polite(s, 1, ENGINE_PACE_HOLD);
	cr_assert_eq(steer_apply(s), 1);
	cr_assert_eq(steer_bound(s), STEER_POLITE);
	cr_assert_eq(pace(e), ENGINE_PACE_HOLD);
	steer_polite(s, 0, 0); /* the back-off ends: nobody else says anything */
	cr_assert_eq(steer_apply(s), 6);
	cr_assert_eq(steer_bound(s), STEER_POLICY);
	cr_assert_eq(pace(e), 0);
	steer_free(s);
	engine_destroy(e);
}

Test(steer, the_budget_share_bounds_and_the_slowest_pace_wins)
{
	struct engine *e = engine8();
	struct steer *s = steer_new(e, 1000);
	steer_policy(s, 8);
	steer_budget(s, 3, 5000);
	cr_assert_eq(steer_apply(s), 3);
	cr_assert_eq(steer_bound(s), STEER_BUDGET);
	cr_assert_eq(pace(e), 5000);
	/* a politeness pace below the budget's: the budget's still holds */
	steer_polite(s, 0, 2000);
	steer_apply(s);
	cr_assert_eq(pace(e), 5000);
	/* a share above the policy's count binds nothing */
	steer_budget(s, 16, 0);
	steer_polite(s, 0, 0);
	cr_assert_eq(steer_apply(s), 8);
	cr_assert_eq(steer_bound(s), STEER_POLICY);
	cr_assert_eq(pace(e), 1000); /* --max-ops's base */
	steer_free(s);
	engine_destroy(e);
}

Test(steer, the_smallest_input_wins_whichever_it_is)
{
	struct engine *e = engine8();
	struct steer *s = steer_new(e, 0);
	for (int pol = 1; pol <= 8; pol++)
		for (int cei = 0; cei <= 8; cei += 2)
			for (int sh = 0; sh <= 8; sh += 3) {
				steer_policy(s, pol);
				steer_polite(s, cei, 0);
				steer_budget(s, sh, 0);
				int want = pol;
				if (sh > 0 && sh < want)
					want = sh;
				if (cei > 0 && cei < want)
					want = cei;
				cr_assert_eq(steer_apply(s), want, "policy %d ceiling %d share %d",
					     pol, cei, sh);
				cr_assert_eq(engine_active_threads(e), want);
			}
	steer_free(s);
	engine_destroy(e);
}

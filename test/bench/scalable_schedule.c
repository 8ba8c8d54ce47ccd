/*
 * scalable_schedule.c
 *		The cost of the scalable filter's growth schedule, from the sizing
 *		code alone (no keys, no server): for growth s in {2, 4} and
 *		tightening r, the bytes per key and the number of sub-filters (each
 *		probed for every absent key) of a filter started at 1000 keys and
 *		fed n keys, averaged over n log-uniform in [10^4, 10^7] (the last
 *		sub-filter is partly empty, so a single n would flatter or punish a
 *		schedule by where n falls), at a 1% target, blocked layout.
 *		Run by scalable_bench.sh.
 */
#include <math.h>
#include <stdio.h>

#include "bf_scalable.h"

int
main(void)
{
	static const double rs[] = {0.5, 0.7, 0.8, 0.85, 0.9, 0.95};

	printf(" s |    r | mean bytes/key | mean sub-filters | bytes/key at n=1e6 | sub-filters at n=1e6\n");
	for (int s = 2; s <= 4; s += 2)
		for (size_t ri = 0; ri < sizeof(rs) / sizeof(rs[0]); ri++)
		{
			double		sum_bpk = 0,
						sum_levels = 0,
						bpk6 = 0;
			unsigned	levels6 = 0;
			int			count = 0;

			for (int step = 0; step <= 300; step++)
			{
				double		n = pow(10.0, 4.0 + step / 100.0);
				double		total = 0,
							held = 0;
				uint64_t	cap = 1000;
				unsigned	level = 0;

				while (held < n)
				{
					uint64_t	nbits;
					int			k;

					if (!bf_size_for(BF_LAYOUT_BLOCKED, (double) cap,
									 bfs_level_fpr(0.01, rs[ri], level), &nbits, &k))
						return 1;
					total += (double) bfs_entry_size(nbits);
					held += (double) cap;
					cap *= (uint64_t) s;
					level++;
				}
				total += BFS_HEADER_SIZE;
				sum_bpk += total / n;
				sum_levels += level;
				count++;
				if (step == 200)
				{
					bpk6 = total / n;
					levels6 = level;
				}
			}
			printf(" %d | %4.2f | %14.2f | %16.1f | %18.2f | %20u\n", s, rs[ri],
				   sum_bpk / count, sum_levels / count, bpk6, levels6);
		}
	{
		uint64_t	nbits;
		int			k;

		bf_size_for(BF_LAYOUT_BLOCKED, 1e6, 0.01, &nbits, &k);
		printf("a bloomfilter sized up front for 1e6 keys at 1%%: %.2f bytes/key\n",
			   (double) bf_buffer_size(nbits) / 1e6);
	}
	return 0;
}

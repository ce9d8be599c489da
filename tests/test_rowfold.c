/* test_rowfold.c — kcontract_rowfold.h's grid (kc_rowfold_launch, host C)
 * against the rows each warp takes from it (kc_rowgroup_of's arithmetic,
 * repeated here): every row of every shape belongs to exactly one warp, no
 * warp holds more than 32, and the tile of R rows x C columns fits the
 * warp's staging buffer. */
#include <criterion/criterion.h>
#include "kcontract_rowfold.h"

/* kc_rowgroup_of's R for a grid of `blocks` blocks over nrows rows. */
static int64_t rows_per_warp(int64_t nrows, unsigned blocks)
{
    int64_t warps = (int64_t)blocks * KC_ROWFOLD_WARPS, per = (nrows + warps - 1) / warps;
    return per < 1 ? 1 : per;
}

Test(rowfold, every_row_once_within_the_tile)
{
    const int64_t rows[] = { 1, 3, 7, 31, 33, 128, 1023, 1024, 4096, 8192, 16384, 32 * 7, 32 * 128, 65600, 1000003 };
    const int sms[] = { 1, 2, 132, 1000 };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++)
        for (size_t j = 0; j < sizeof sms / sizeof *sms; j++) {
            kc_device dev = { .sm_count = sms[j] };
            kc_launch l = { { 0 } };
            kc_rowfold_launch(rows[i], &dev, &l);
            cr_assert_eq(l.block[0], 32 * KC_ROWFOLD_WARPS);
            cr_assert(l.grid[0] >= 1 && l.grid[1] == 1 && l.grid[2] == 1);
            int64_t per = rows_per_warp(rows[i], l.grid[0]);
            int64_t cols = (KC_ROWFOLD_TILE / per) & ~1;
            cr_assert(per >= 1 && per <= 32, "rows %lld, %d SMs: %lld rows per warp", (long long)rows[i], sms[j], (long long)per);
            cr_assert((int64_t)l.grid[0] * KC_ROWFOLD_WARPS * per >= rows[i], "rows %lld not all covered", (long long)rows[i]);
            cr_assert(cols >= 16 && per * (cols + 1) <= KC_ROWFOLD_TILE + 32);
            /* no block is idle: the last block's first warp has rows */
            cr_assert((int64_t)(l.grid[0] - 1) * KC_ROWFOLD_WARPS * per < rows[i]);
        }
}

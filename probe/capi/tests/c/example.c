/* Probing Russian draughts tables from C: build the tables with
 *   dtb generate --variant russian --pieces 4 --dir tables
 * then compile and run this program with
 *   cc -I probe/capi/include example.c target/release/libdprobe_c.a -lpthread -ldl -lm
 *   ./a.out tables
 */
#include <stdio.h>
#include <stdint.h>

#include "dprobe.h"

/* Bit n-1 is square n of the variant's numbering. */
#define SQ(n) (UINT32_C(1) << ((n) - 1))

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : "tables";
  dprobe_tablebase *tb = dprobe_open("russian", dir, 64u << 20);
  if (!tb) {
    fprintf(stderr, "%s\n", dprobe_last_error());
    return 1;
  }
  printf("tables up to %d pieces\n", dprobe_max_pieces(tb));

  /* White kings on 21, 26 and 30 against a black king on 31, White to move. */
  uint32_t white_men = 0, white_kings = SQ(21) | SQ(26) | SQ(30);
  uint32_t black_men = 0, black_kings = SQ(31);
  int wdl, dtw;

  /* In the search: the cache-only probe, after loading the small tables at start-up. */
  if (dprobe_preload(tb, 4) < 0) fprintf(stderr, "preload: %s\n", dprobe_last_error());
  int rc = dprobe_probe_wdl_cached(tb, white_men, white_kings, black_men, black_kings, 1, &wdl);
  if (rc == DPROBE_ERR_NOT_IN_CACHE) /* not in memory: search on, or probe the files */
    rc = dprobe_probe_wdl(tb, white_men, white_kings, black_men, black_kings, 1, &wdl);
  if (rc != DPROBE_OK) {
    fprintf(stderr, "probe: %s\n", dprobe_last_error());
    dprobe_close(tb);
    return 1;
  }
  printf("wdl %d\n", wdl);

  /* At the root: the distance, and every move with its value, best first. */
  if (dprobe_probe_dtw(tb, white_men, white_kings, black_men, black_kings, 1, &wdl, &dtw) == 0)
    printf("dtw %d plies\n", dtw);
  char moves[64 * DPROBE_MOVE_TEXT_MAX];
  int move_wdl[64], move_dtw[64];
  size_t count;
  if (dprobe_probe_moves(tb, white_men, white_kings, black_men, black_kings, 1, moves,
                         sizeof moves, move_wdl, move_dtw, 64, &count) == 0)
    printf("%zu moves, best first: %s (first: wdl %d, dtw %d)\n", count, moves, move_wdl[0],
           move_dtw[0]);

  /* A position string in the variant's numbering. */
  if (dprobe_probe_fen(tb, "B:WK21,K26,K30:BK31", &wdl, &dtw) == 0)
    printf("black to move: wdl %d dtw %d\n", wdl, dtw);

  /* Under the counted draw rules, with the game's counts: three kings against one arose 20
     plies ago, no man has moved since (Russian rules 1 to 3 count from there; rule 4 waits
     for the lone king to reach the long diagonal). */
  dprobe_draw_counts counts;
  dprobe_counts_init(&counts);
  const char *since_material[] = {"r1-three-kings", "r2-kings-only", "r3-kings-4-5-pieces"};
  for (int i = 0; i < 3; i++)
    if (dprobe_counts_set(tb, &counts, since_material[i], 20) != 0)
      fprintf(stderr, "counts: %s\n", dprobe_last_error());
  int fresh, now;
  if (dprobe_probe_draw(tb, white_men, white_kings, black_men, black_kings, 1, &counts, &fresh,
                        &now) == 0)
    printf("under the rules: %d with fresh counts, %d with these counts\n", fresh, now);
  else
    fprintf(stderr, "draw rules: %s\n", dprobe_last_error());

  dprobe_close(tb);
  return 0;
}

/*
 * The C side of the dprobe-capi tests (tests/integration/c_program.rs runs it):
 *
 *   check positions VARIANT DIR   binary position records on stdin, binary results on stdout:
 *                                 each position probed by bitboards (WDL, DTW, cache-only after
 *                                 dprobe_preload) and by a position string this program writes
 *   check threads VARIANT DIR T   the same records, probed by T threads through one handle
 *                                 (and a small cache), compared with one thread
 *   check lines VARIANT DIR       text requests on stdin (moves, counted draw rules, carrying
 *                                 counts over a move), one answer line each on stdout
 *   check errors VARIANT FULL PARTIAL DAMAGED VANISHING FILE
 *                                 provokes every error code but DPROBE_ERR_INTERNAL (a caught
 *                                 panic, which no argument can cause); FILE, the table of
 *                                 kings against a king in VANISHING, is deleted on the way
 *
 * Bitboards are in the variant's numbering: bit n-1 is square n.
 */
#include "dprobe.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(dprobe_draw_counts) == 32, "dprobe_draw_counts is 16 slots of 2 bytes");

/* One position: four bitboards and the side to move (nonzero: White). */
typedef struct {
  uint32_t wm, wk, bm, bk, white;
} record;

/* The answers for one position: each call's code, then its values. */
typedef struct {
  int16_t rc_wdl, wdl;
  int16_t rc_dtw, dtw_wdl, dtw;
  int16_t rc_fen, fen_wdl, fen_dtw;
  int16_t rc_cached, cached_wdl;
} answer;

static void die(const char *what) {
  fprintf(stderr, "check: %s: %s\n", what, dprobe_last_error());
  exit(2);
}

static dprobe_tablebase *open_or_die(const char *variant, const char *dir, size_t cache) {
  dprobe_tablebase *tb = dprobe_open(variant, dir, cache);
  if (!tb) die("dprobe_open");
  return tb;
}

/* Appends one side's pieces ("W1,K5") to a position string. */
static char *append_side(char *at, char tag, uint32_t men, uint32_t kings) {
  int first = 1;
  *at++ = tag;
  for (int n = 1; n <= 32; n++) {
    uint32_t bit = UINT32_C(1) << (n - 1);
    if (!((men | kings) & bit)) continue;
    at += sprintf(at, "%s%s%d", first ? "" : ",", (kings & bit) ? "K" : "", n);
    first = 0;
  }
  return at;
}

/* The position string of a record, written here from the bitboards. */
static void fen_of(const record *r, char *fen) {
  char *at = fen;
  *at++ = r->white ? 'W' : 'B';
  *at++ = ':';
  at = append_side(at, 'W', r->wm, r->wk);
  *at++ = ':';
  at = append_side(at, 'B', r->bm, r->bk);
  *at = 0;
}

static answer probe_one(const dprobe_tablebase *tb, const record *r, int with_fen) {
  answer a;
  int wdl = 0, dtw = 0;
  memset(&a, 0, sizeof a);
  a.rc_cached = (int16_t)dprobe_probe_wdl_cached(tb, r->wm, r->wk, r->bm, r->bk, r->white, &wdl);
  a.cached_wdl = (int16_t)wdl;
  wdl = 0;
  a.rc_wdl = (int16_t)dprobe_probe_wdl(tb, r->wm, r->wk, r->bm, r->bk, r->white, &wdl);
  a.wdl = (int16_t)wdl;
  wdl = 0;
  a.rc_dtw = (int16_t)dprobe_probe_dtw(tb, r->wm, r->wk, r->bm, r->bk, r->white, &wdl, &dtw);
  a.dtw_wdl = (int16_t)wdl;
  a.dtw = (int16_t)dtw;
  if (with_fen) {
    char fen[160];
    wdl = 0;
    dtw = 0;
    fen_of(r, fen);
    a.rc_fen = (int16_t)dprobe_probe_fen(tb, fen, &wdl, &dtw);
    a.fen_wdl = (int16_t)wdl;
    a.fen_dtw = (int16_t)dtw;
  }
  return a;
}

static int positions(const char *variant, const char *dir) {
  dprobe_tablebase *tb = open_or_die(variant, dir, 0);
  if (dprobe_preload(tb, dprobe_max_pieces(tb)) < 0) die("dprobe_preload");
  record r;
  while (fread(&r, sizeof r, 1, stdin) == 1) {
    answer a = probe_one(tb, &r, 1);
    if (fwrite(&a, sizeof a, 1, stdout) != 1) die("write");
  }
  dprobe_close(tb);
  return fflush(stdout) != 0;
}

/* Threads through one handle. */
typedef struct {
  const dprobe_tablebase *tb;
  const record *records;
  const answer *expected;
  size_t n, start;
  size_t mismatches, cached_hits;
} job;

static void *run_job(void *arg) {
  job *j = (job *)arg;
  for (size_t k = 0; k < j->n; k++) {
    size_t i = (j->start + k) % j->n;
    answer a = probe_one(j->tb, &j->records[i], 0);
    const answer *e = &j->expected[i];
    if (a.rc_wdl != e->rc_wdl || a.wdl != e->wdl || a.rc_dtw != e->rc_dtw ||
        a.dtw_wdl != e->dtw_wdl || a.dtw != e->dtw)
      j->mismatches++;
    /* The cache-only probe answers the same, or not at all. */
    if (a.rc_cached == 0) {
      j->cached_hits++;
      if (a.cached_wdl != e->wdl) j->mismatches++;
    } else if (a.rc_cached != DPROBE_ERR_NOT_IN_CACHE) {
      j->mismatches++;
    }
  }
  return NULL;
}

static int threads(const char *variant, const char *dir, int count) {
  size_t cap = 1 << 16, n = 0;
  record *records = malloc(cap * sizeof *records);
  if (!records) die("malloc");
  while (fread(&records[n], sizeof *records, 1, stdin) == 1) {
    if (++n == cap) {
      cap *= 2;
      records = realloc(records, cap * sizeof *records);
      if (!records) die("realloc");
    }
  }
  answer *expected = malloc((n ? n : 1) * sizeof *expected);
  if (!expected) die("malloc");
  dprobe_tablebase *one = open_or_die(variant, dir, 0);
  for (size_t i = 0; i < n; i++) expected[i] = probe_one(one, &records[i], 0);
  dprobe_close(one);

  /* A fresh handle with a small cache: the threads read, decompress and replace blocks at
     the same time. */
  dprobe_tablebase *shared = open_or_die(variant, dir, 256 << 10);
  pthread_t ids[64];
  job jobs[64];
  if (count < 1 || count > 64) count = 4;
  for (int t = 0; t < count; t++) {
    jobs[t] = (job){shared, records, expected, n, n * (size_t)t / (size_t)count, 0, 0};
    if (pthread_create(&ids[t], NULL, run_job, &jobs[t]) != 0) die("pthread_create");
  }
  size_t mismatches = 0, hits = 0;
  for (int t = 0; t < count; t++) {
    pthread_join(ids[t], NULL);
    mismatches += jobs[t].mismatches;
    hits += jobs[t].cached_hits;
  }
  dprobe_close(shared);
  printf("threads: %d threads x %zu positions, %zu mismatches, %zu cache-only answers\n", count,
         n, mismatches, hits);
  free(records);
  free(expected);
  return mismatches != 0;
}

/* Text requests. */
static int read_counts(const char *text, dprobe_draw_counts *counts) {
  int used = 0;
  for (int k = 0; k < DPROBE_MAX_COUNTERS; k++) {
    unsigned value;
    int step;
    if (sscanf(text + used, "%u%n", &value, &step) != 1 || value > 0xFFFF) return 0;
    counts->count[k] = (uint16_t)value;
    used += step;
  }
  return 1;
}

static void print_list(const char *tag, int rc, size_t count, const char *moves, const int *a,
                       const int *b) {
  if (rc != 0) {
    printf("%s E %d\n", tag, rc);
    return;
  }
  printf("%s %zu|%s|", tag, count, moves);
  for (size_t i = 0; i < count; i++) printf(i ? " %d" : "%d", a[i]);
  printf("|");
  for (size_t i = 0; i < count; i++) printf(i ? " %d" : "%d", b[i]);
  printf("\n");
}

static int lines(const char *variant, const char *dir) {
  dprobe_tablebase *tb = open_or_die(variant, dir, 0);
  char line[1024];
  while (fgets(line, sizeof line, stdin)) {
    char tag;
    uint32_t wm, wk, bm, bk, white, after[4];
    int used = 0;
    if (sscanf(line, "%c %" SCNu32 " %" SCNx32 " %" SCNx32 " %" SCNx32 " %" SCNx32 "%n", &tag,
               &white, &wm, &wk, &bm, &bk, &used) != 6) {
      fprintf(stderr, "check: bad request %s", line);
      return 2;
    }
    const char *rest = line + used;
    char moves[4096];
    int a[256], b[256];
    size_t count = 0;
    dprobe_draw_counts counts;
    if (tag == 'M') {
      int rc = dprobe_probe_moves(tb, wm, wk, bm, bk, (int)white, moves, sizeof moves, a, b, 256,
                                  &count);
      print_list("M", rc, count, moves, a, b);
    } else if (tag == 'D' || tag == 'Y') {
      if (!read_counts(rest, &counts)) return 2;
      if (tag == 'D') {
        int result = 9, now = 9;
        int rc = dprobe_probe_draw(tb, wm, wk, bm, bk, (int)white, &counts, &result, &now);
        if (rc != 0)
          printf("D E %d\n", rc);
        else
          printf("D %d %d\n", result, now);
      } else {
        int rc = dprobe_probe_draw_moves(tb, wm, wk, bm, bk, (int)white, &counts, moves,
                                         sizeof moves, a, b, 256, &count);
        print_list("Y", rc, count, moves, a, b);
      }
    } else if (tag == 'X') {
      int step;
      if (sscanf(rest, "%" SCNx32 " %" SCNx32 " %" SCNx32 " %" SCNx32 "%n", &after[0],
                 &after[1], &after[2], &after[3], &step) != 4 ||
          !read_counts(rest + step, &counts))
        return 2;
      int rc = dprobe_counts_play(tb, &counts, wm, wk, bm, bk, (int)white, after[0], after[1],
                                  after[2], after[3]);
      if (rc != 0) {
        printf("X E %d\n", rc);
      } else {
        printf("X");
        for (int k = 0; k < DPROBE_MAX_COUNTERS; k++) printf(" %u", (unsigned)counts.count[k]);
        printf("\n");
      }
    } else {
      fprintf(stderr, "check: unknown request %c\n", tag);
      return 2;
    }
  }
  dprobe_close(tb);
  return fflush(stdout) != 0;
}

/* Error codes. */
static int failures = 0;

static void expect(const char *what, int got, int want) {
  const char *message = dprobe_last_error();
  if (got != want) {
    printf("FAILED %s: got %d, expected %d (%s)\n", what, got, want, message);
    failures++;
  } else if (want < 0 && (!message || !*message)) {
    printf("FAILED %s: code %d without a message\n", what, got);
    failures++;
  } else {
    printf("ok %d %s: %s\n", got, what, want < 0 ? message : "");
  }
}

static void expect_null(const char *what, const void *got) {
  const char *message = dprobe_last_error();
  if (got != NULL || !*message) {
    printf("FAILED %s: expected NULL with a message\n", what);
    failures++;
  } else {
    printf("ok NULL %s: %s\n", what, message);
  }
}

static int errors(const char *variant, const char *full, const char *partial,
                  const char *damaged, const char *unreadable) {
  int wdl = 0, dtw = 0, plies = 0;
  size_t count = 0;
  char moves[8];
  int a[64], b[64];
  dprobe_draw_counts counts;
  /* Kings on the first squares of the numbering against a king on the last: a legal
     position in every variant (no man on a far row). */
  const uint32_t wk = 0x1, bk = UINT32_C(1) << 31;

  expect_null("open: unknown variant", dprobe_open("checkers", full, 0));
  expect_null("open: NULL variant", dprobe_open(NULL, full, 0));
  expect_null("open: NULL folder", dprobe_open(variant, NULL, 0));
  expect_null("open: missing folder", dprobe_open(variant, "/nonexistent/dprobe/tables", 0));
  dprobe_close(NULL);

  dprobe_tablebase *tb = open_or_die(variant, full, 0);
  expect("max pieces", dprobe_max_pieces(tb) >= 2 ? 0 : -100, DPROBE_OK);
  expect("probe: NULL handle", dprobe_probe_wdl(NULL, 0, wk, 0, bk, 1, &wdl), DPROBE_ERR_NULL);
  expect("probe: NULL result", dprobe_probe_wdl(tb, 0, wk, 0, bk, 1, NULL), DPROBE_ERR_NULL);
  expect("probe fen: NULL string", dprobe_probe_fen(tb, NULL, &wdl, &dtw), DPROBE_ERR_NULL);
  expect("max pieces: NULL handle", dprobe_max_pieces(NULL), DPROBE_ERR_NULL);
  expect("verify: NULL handle", dprobe_verify(NULL), DPROBE_ERR_NULL);
  expect("counts init: NULL", dprobe_counts_init(NULL), DPROBE_ERR_NULL);
  expect("probe dtw: NULL distance", dprobe_probe_dtw(tb, 0, wk, 0, bk, 1, &wdl, NULL),
         DPROBE_ERR_NULL);
  /* Not in the cache before anything is read. */
  expect("cache-only probe, cold", dprobe_probe_wdl_cached(tb, 0, wk, 0, bk, 1, &wdl),
         DPROBE_ERR_NOT_IN_CACHE);
  expect("probe", dprobe_probe_wdl(tb, 0, wk, 0, bk, 1, &wdl), DPROBE_OK);
  expect("cache-only probe, warm", dprobe_probe_wdl_cached(tb, 0, wk, 0, bk, 1, &wdl),
         DPROBE_OK);
  expect("probe fen without the distance", dprobe_probe_fen(tb, "W:WK1:BK32", &wdl, NULL),
         DPROBE_OK);
  /* Invalid positions. */
  expect("two pieces on a square", dprobe_probe_wdl(tb, 0, wk, 0, wk | bk, 1, &wdl),
         DPROBE_ERR_INVALID_POSITION);
  expect("the side that has just moved has no pieces", dprobe_probe_wdl(tb, 0, wk, 0, 0, 1, &wdl),
         DPROBE_ERR_INVALID_POSITION);
  expect("fen: two pieces on a square", dprobe_probe_fen(tb, "W:WK1:BK1", &wdl, &dtw),
         DPROBE_ERR_INVALID_POSITION);
  /* Too many pieces: five kings. */
  expect("too many pieces", dprobe_probe_wdl(tb, 0, 0x7, 0, 0xC0000000u, 1, &wdl),
         DPROBE_ERR_TOO_MANY_PIECES);
  expect("preload: negative", dprobe_preload(tb, -1), DPROBE_ERR_BAD_ARGUMENT);
  /* Bad arguments. */
  expect("fen: malformed", dprobe_probe_fen(tb, "X:W1:B2", &wdl, &dtw), DPROBE_ERR_BAD_ARGUMENT);
  expect("fen: square 33", dprobe_probe_fen(tb, "W:WK33:BK1", &wdl, &dtw),
         DPROBE_ERR_BAD_ARGUMENT);
  expect("moves: buffer too small",
         dprobe_probe_moves(tb, 0, wk, 0, bk, 1, moves, sizeof moves, a, b, 64, &count),
         DPROBE_ERR_BAD_ARGUMENT);
  expect("moves: the count is set", count > 0 ? 0 : -100, DPROBE_OK);
  expect("moves: array too small",
         dprobe_probe_moves(tb, 0, wk, 0, bk, 1, moves, sizeof moves, a, b, 1, &count),
         DPROBE_ERR_BAD_ARGUMENT);
  expect("moves: NULL count",
         dprobe_probe_moves(tb, 0, wk, 0, bk, 1, moves, sizeof moves, a, b, 64, NULL),
         DPROBE_ERR_NULL);
  /* Exact sizes: nothing is written past them (bytes after the buffers stay as they were). */
  {
    char all[1024], guarded[1024 + 16];
    int wdls[64 + 4], dtws[64 + 4];
    expect("moves", dprobe_probe_moves(tb, 0, wk, 0, bk, 1, all, sizeof all, a, b, 64, &count),
           DPROBE_OK);
    size_t need = strlen(all) + 1;
    memset(guarded, 0x7E, sizeof guarded);
    for (int i = 0; i < 68; i++) wdls[i] = dtws[i] = 0x7E7E;
    expect("moves: one byte short",
           dprobe_probe_moves(tb, 0, wk, 0, bk, 1, guarded, need - 1, wdls, dtws, count, &count),
           DPROBE_ERR_BAD_ARGUMENT);
    int untouched = 1;
    for (size_t i = 0; i < sizeof guarded; i++) untouched &= guarded[i] == 0x7E;
    expect("moves: nothing written when too short", untouched ? 0 : -100, DPROBE_OK);
    expect("moves: exact sizes",
           dprobe_probe_moves(tb, 0, wk, 0, bk, 1, guarded, need, wdls, dtws, count, &count),
           DPROBE_OK);
    untouched = strcmp(guarded, all) == 0;
    for (size_t i = need; i < sizeof guarded; i++) untouched &= guarded[i] == 0x7E;
    for (size_t i = count; i < 68; i++) untouched &= wdls[i] == 0x7E7E && dtws[i] == 0x7E7E;
    expect("moves: nothing written past the sizes", untouched ? 0 : -100, DPROBE_OK);
  }
  expect("counts init", dprobe_counts_init(&counts), DPROBE_OK);
  expect("counts: unknown counter", dprobe_counts_set(tb, &counts, "r99-nothing", 3),
         DPROBE_ERR_BAD_ARGUMENT);
  const char *id = dprobe_counter_id(tb, 0);
  expect("counter 0 has an id", id ? 0 : -100, DPROBE_OK);
  expect("counts: count out of range", dprobe_counts_set(tb, &counts, id, 70000),
         DPROBE_ERR_BAD_ARGUMENT);
  expect("counts: set", dprobe_counts_set(tb, &counts, id, 7), DPROBE_OK);
  expect("counts: get", dprobe_counts_get(tb, &counts, id, &plies), DPROBE_OK);
  expect("counts: what was set", plies == 7 ? 0 : -100, DPROBE_OK);
  expect("counts: not started", dprobe_counts_set(tb, &counts, id, DPROBE_COUNT_NOT_STARTED),
         DPROBE_OK);
  expect("counts: get not started", dprobe_counts_get(tb, &counts, id, &plies), DPROBE_OK);
  expect("counts: what was set", plies == DPROBE_COUNT_NOT_STARTED ? 0 : -100, DPROBE_OK);
  expect_null("counter id out of range", dprobe_counter_id(tb, 99));
  expect_null("counter id: NULL handle", dprobe_counter_id(NULL, 0));
  expect("counters", dprobe_counters(tb) == 0 ? -100 : 0, DPROBE_OK);
  expect("counts play: no move joins the positions",
         dprobe_counts_play(tb, &counts, 0, wk, 0, bk, 1, 0, wk, 0, bk),
         DPROBE_ERR_BAD_ARGUMENT);
  dprobe_counts_init(&counts);
  expect("counts play: NULL counts", dprobe_counts_play(tb, NULL, 0, wk, 0, bk, 1, 0, wk, 0, bk),
         DPROBE_ERR_NULL);
  expect("probe draw: NULL counts",
         dprobe_probe_draw(tb, 0, wk, 0, bk, 1, NULL, &wdl, &dtw), DPROBE_ERR_NULL);
  expect("verify: intact", dprobe_verify(tb), 0);
  dprobe_close(tb);

  /* A folder without the table of kings against a king (others present). */
  tb = open_or_die(variant, partial, 0);
  expect("missing table", dprobe_probe_wdl(tb, 0, wk, 0, bk, 1, &wdl), DPROBE_ERR_MISSING_TABLE);
  dprobe_close(tb);

  /* A folder whose table of kings against a king is damaged. */
  tb = open_or_die(variant, damaged, 0);
  expect("corrupted table", dprobe_probe_wdl(tb, 0, wk, 0, bk, 1, &wdl), DPROBE_ERR_CORRUPTED);
  expect("verify: one damaged file", dprobe_verify(tb), 1);
  dprobe_close(tb);

  /* A folder where the table of kings against a king is not a readable file. */
  tb = open_or_die(variant, unreadable, 0);
  expect("file cannot be read", dprobe_probe_wdl(tb, 0, wk, 0, bk, 1, &wdl), DPROBE_ERR_IO);
  dprobe_close(tb);

  printf("errors: %d failed\n", failures);
  return failures != 0;
}

int main(int argc, char **argv) {
  if (argc >= 4 && strcmp(argv[1], "positions") == 0) return positions(argv[2], argv[3]);
  if (argc >= 5 && strcmp(argv[1], "threads") == 0)
    return threads(argv[2], argv[3], atoi(argv[4]));
  if (argc >= 4 && strcmp(argv[1], "lines") == 0) return lines(argv[2], argv[3]);
  if (argc >= 7 && strcmp(argv[1], "errors") == 0)
    return errors(argv[2], argv[3], argv[4], argv[5], argv[6]);
  fprintf(stderr, "usage: check positions|threads|lines|errors VARIANT DIR ...\n");
  return 2;
}

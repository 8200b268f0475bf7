/*
 * dprobe.h: endgame tablebase probing for 8x8 draughts with flying kings (Russian, Brazilian,
 * Portuguese, Spanish), for C and C++ engines. Link with libdprobe_c.a (and -lpthread -ldl -lm)
 * or libdprobe_c.so; docs/ENGINES.md shows how, and what to probe where.
 *
 * Positions are given as four bitboards in the variant's own square numbering (RULES.md
 * section 4): bit n-1 is square n. Russian and Brazilian: square 1 is b8, 29 is a1 (White
 * starts on 21-32).
 * Portuguese and Spanish: square 1 is White's bottom-right corner (White starts on 1-12).
 * Position strings are PDN FEN in the same numbering: "W:W21,22,K30:B1,2,K5".
 *
 * One handle serves any number of threads at once. No call panics, aborts or throws: a failed
 * call returns a negative DPROBE_ERR_* code and sets this thread's message (dprobe_last_error).
 */
#ifndef DPROBE_H
#define DPROBE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Error codes: every failure has one of these, and this thread's message says more. */
#define DPROBE_OK 0
/* A table the position needs is missing from the folder (this table, or a smaller one that a
   capture leads to); build it with dtb generate. Also from dprobe_open: no table of the
   variant in the folder. */
#define DPROBE_ERR_MISSING_TABLE (-1)
/* The position has more pieces than the largest table found: search on without the tables. */
#define DPROBE_ERR_TOO_MANY_PIECES (-2)
/* The position cannot occur: two pieces on a square, a man on its own far row, more than 12
   pieces a side, or the side that has just moved has no pieces. A bug in the caller. */
#define DPROBE_ERR_INVALID_POSITION (-3)
/* A table file is damaged, truncated, or not the table its name says (or a rule table of other
   draw rules): delete it and rebuild it with dtb generate; dprobe_verify finds them. */
#define DPROBE_ERR_CORRUPTED (-4)
/* A file or folder cannot be read (or dprobe_open's folder does not exist). */
#define DPROBE_ERR_IO (-5)
/* A required pointer argument is NULL. */
#define DPROBE_ERR_NULL (-6)
/* dprobe_probe_wdl_cached: a block the position needs is not in memory. Not a failure: search
   on, or probe with dprobe_probe_wdl where a file read is affordable. */
#define DPROBE_ERR_NOT_IN_CACHE (-7)
/* An argument out of its range: unknown variant, unreadable position string, a buffer or array
   too small, unknown counter id or counter number, a count out of range or not fitting the
   position, a pair of positions no legal move joins. */
#define DPROBE_ERR_BAD_ARGUMENT (-8)
/* A bug in the library (a caught panic); the message says where. Please report it. */
#define DPROBE_ERR_INTERNAL (-9)

/* The core calls (details below them):
   dprobe_open opens the tables of `variant` ("russian", "brazilian", "portuguese" or
   "spanish") that `dtb generate --dir directory` wrote, with a block cache of about
   cache_bytes bytes (0: the default, 64 MiB); every file is opened, mapped and checked here
   (a damaged file is reported by the probes that need it). It returns
   NULL on failure (NULL argument, unknown variant, folder missing, unreadable or without
   tables of the variant), with the message set.
   dprobe_last_error's message stays valid until the next dprobe_ call on this thread ("" if
   no call has failed on this thread).
   dprobe_max_pieces returns the most pieces of any table found (a count >= 0).
   dprobe_probe_wdl may read and decompress a block of a file, then kept in the cache.
   dprobe_probe_fen probes a position string: *wdl, and *dtw unless dtw is NULL (then only .wdl
   files are read). A malformed string is DPROBE_ERR_BAD_ARGUMENT; a well-formed one of a
   position that cannot occur, DPROBE_ERR_INVALID_POSITION.
   Outputs are written only on success; white_to_move is nonzero for White, 0 for Black. Calls
   documented to return a count (dprobe_max_pieces, dprobe_preload, dprobe_verify,
   dprobe_counters) return it (>= 0) instead of 0. */
typedef struct dprobe_tablebase dprobe_tablebase;
/* wdl: 1 win, 0 draw, -1 loss for the side to move; dtw: plies, -1 for a draw.
   Every int-returning call: 0 = ok, a negative DPROBE_ERR_* code otherwise. */
dprobe_tablebase *dprobe_open(const char *variant, const char *directory, size_t cache_bytes);
void dprobe_close(dprobe_tablebase *tb);              /* NULL is a no-op */
const char *dprobe_last_error(void);                  /* this thread's last message */
int dprobe_max_pieces(const dprobe_tablebase *tb);
int dprobe_probe_wdl(const dprobe_tablebase *tb, uint32_t white_men, uint32_t white_kings,
                     uint32_t black_men, uint32_t black_kings, int white_to_move, int *wdl);
int dprobe_probe_fen(const dprobe_tablebase *tb, const char *fen, int *wdl, int *dtw);

/* As dprobe_probe_wdl, from the blocks already in memory only: never reads a file, never
   decompresses, takes no lock, allocates nothing (once warm); DPROBE_ERR_NOT_IN_CACHE at once
   if a block (or file) it needs is not loaded yet. The probe for the search. */
int dprobe_probe_wdl_cached(const dprobe_tablebase *tb, uint32_t white_men,
                            uint32_t white_kings, uint32_t black_men, uint32_t black_kings,
                            int white_to_move, int *wdl);

/* Loads every block of every .wdl table of up to max_pieces pieces into the cache, smaller
   tables first, as far as the cache budget given to dprobe_open allows (8 KiB per block of
   32 768 positions; give a quarter more than the tables' positions / 4 bytes). Reads the files
   whole: call it once at start-up. Returns the number of those tables' blocks now in the cache
   (a count), or a negative code. */
int dprobe_preload(const dprobe_tablebase *tb, int max_pieces);

/* The result into *wdl and the distance to the end of the game in plies into *dtw (-1 for a
   draw; a win in an odd number, a loss in an even number, 0: no legal move now). Reads the
   .wdl and .dtw files. For the root: the search needs no distance. */
int dprobe_probe_dtw(const dprobe_tablebase *tb, uint32_t white_men, uint32_t white_kings,
                     uint32_t black_men, uint32_t black_kings, int white_to_move, int *wdl,
                     int *dtw);

/* Every legal move at the root with its value for the side that plays it, best first (the
   fastest win, then draws, then the slowest loss): the moves in the variant's notation
   (Russian "c3-d4", "c3:e5:g7"; Brazilian "8-12", "11:18:27"; Portuguese and Spanish "9-13",
   "9x18"), separated by single spaces, NUL-terminated, into `moves` (moves_size bytes);
   move i's result and distance into wdl[i] and dtw[i] (room for `capacity` each); the number
   of moves into *count (0: the side to move has lost). At most DPROBE_MOVE_TEXT_MAX bytes per
   move. A buffer or array too small: DPROBE_ERR_BAD_ARGUMENT, *count set, nothing else
   written (the message gives the bytes needed). Never writes past the sizes given. */
#define DPROBE_MOVE_TEXT_MAX 48
int dprobe_probe_moves(const dprobe_tablebase *tb, uint32_t white_men, uint32_t white_kings,
                       uint32_t black_men, uint32_t black_kings, int white_to_move, char *moves,
                       size_t moves_size, int *wdl, int *dtw, size_t capacity, size_t *count);

/* Counted draw rules (RULES.md section 5): the game's running counts, kept by the engine, one
   per ply on its stack (plain data, 32 bytes, copy it freely). Slot k is counter k of the
   variant's rules (dprobe_counter_id): plies since it started, 0xFFFE not started (a counter
   waiting for its position condition), 0xFFFF at its start (as where the material has just
   arisen). */
#define DPROBE_MAX_COUNTERS 16
#define DPROBE_COUNT_NOT_STARTED (-1)
#define DPROBE_COUNT_AT_START (-2)
typedef struct dprobe_draw_counts {
  uint16_t count[DPROBE_MAX_COUNTERS];
} dprobe_draw_counts;

/* Every count at its start: at the root of a new material, or after a capture or promotion. */
int dprobe_counts_init(dprobe_draw_counts *counts);
/* The number of counters of the variant's draw rules (a count), or a negative code. */
int dprobe_counters(const dprobe_tablebase *tb);
/* The id of counter k ("r1-three-kings", ...; docs/DRAW_RULES.md lists them), valid while the
   handle is; NULL with the message set if tb is NULL or k out of range. */
const char *dprobe_counter_id(const dprobe_tablebase *tb, int k);
/* Sets counter `id`: plies (0 to 65533) since it started, DPROBE_COUNT_NOT_STARTED or
   DPROBE_COUNT_AT_START. Unknown id: DPROBE_ERR_BAD_ARGUMENT. */
int dprobe_counts_set(const dprobe_tablebase *tb, dprobe_draw_counts *counts, const char *id,
                      int plies);
/* Counter `id`'s count into *plies (plies, DPROBE_COUNT_NOT_STARTED or DPROBE_COUNT_AT_START). */
int dprobe_counts_get(const dprobe_tablebase *tb, const dprobe_draw_counts *counts,
                      const char *id, int *plies);
/* Carries the counts over a move: given the position before it and the position after it
   (the other side to move), *counts become the counts after the move (all at their start
   after a capture or a promotion). DPROBE_ERR_BAD_ARGUMENT if no legal move joins them. */
int dprobe_counts_play(const dprobe_tablebase *tb, dprobe_draw_counts *counts,
                       uint32_t white_men, uint32_t white_kings, uint32_t black_men,
                       uint32_t black_kings, int white_to_move, uint32_t after_white_men,
                       uint32_t after_white_kings, uint32_t after_black_men,
                       uint32_t after_black_kings);

/* The value under the variant's counted draw rules. *result: with every count at its start,
   2 win, 1 cursed win (won in the pure game, drawn under the rules), 0 draw, -1 blessed loss,
   -2 loss. *wdl: the result (1, 0, -1) with the running counts given. Reads the .wdl files and
   the rule tables (.rules). Counts that no game can reach: DPROBE_ERR_BAD_ARGUMENT. */
#define DPROBE_RESULT_WIN 2
#define DPROBE_RESULT_CURSED_WIN 1
#define DPROBE_RESULT_DRAW 0
#define DPROBE_RESULT_BLESSED_LOSS (-1)
#define DPROBE_RESULT_LOSS (-2)
int dprobe_probe_draw(const dprobe_tablebase *tb, uint32_t white_men, uint32_t white_kings,
                      uint32_t black_men, uint32_t black_kings, int white_to_move,
                      const dprobe_draw_counts *counts, int *result, int *wdl);

/* Every legal move under the counted rules, in the move generator's order: the moves into
   `moves` as dprobe_probe_moves writes them; move i's result with every count at its start
   before it into result[i] (2 to -2) and its result with the running counts into wdl[i]. */
int dprobe_probe_draw_moves(const dprobe_tablebase *tb, uint32_t white_men,
                            uint32_t white_kings, uint32_t black_men, uint32_t black_kings,
                            int white_to_move, const dprobe_draw_counts *counts, char *moves,
                            size_t moves_size, int *result, int *wdl, size_t capacity,
                            size_t *count);

/* Checks every table file of the variant in the folder (.wdl, .dtw and the rule tables of its
   draw rules): header, whole-file checksum, every block's checksum, every stored value.
   Returns the number of damaged files (a count: 0 all intact; otherwise the message names the
   first), or a negative code. Reads every file whole. */
int dprobe_verify(const dprobe_tablebase *tb);

#ifdef __cplusplus
}
#endif

#endif /* DPROBE_H */

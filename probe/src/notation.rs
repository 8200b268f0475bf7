//! Square numbering, PDN FEN position strings, move notation and an ASCII board, each in the
//! variant's own conventions (RULES.md §4).

use std::fmt::Write as _;

use crate::rules::geometry::{file_of, rank_of, square_at, Bitboard, BACK_ROW, PROMOTION_ROW};
use crate::rules::squares;
use crate::rules::{Color, Move, Position};
use crate::rules::{Numbering, Variant};

impl Numbering {
    /// The internal square of a square number (1..=32), or `None` if out of range.
    pub const fn square(self, number: u32) -> Option<u8> {
        if number < 1 || number > 32 {
            return None;
        }
        let n = (number - 1) as u8;
        Some(match self {
            Numbering::FromBlackLeft => (7 - n / 4) * 4 + n % 4,
            Numbering::FromWhiteRight => n,
        })
    }

    /// The number (1..=32) of an internal square.
    pub const fn number(self, square: u8) -> u32 {
        let n = match self {
            Numbering::FromBlackLeft => (7 - square / 4) * 4 + square % 4,
            Numbering::FromWhiteRight => square,
        };
        n as u32 + 1
    }

    /// The internal squares of a set written in this numbering, as engines of the variant keep
    /// their bitboards: bit `n − 1` of `numbered` is square `n` (RULES.md §4).
    ///
    /// ```
    /// use dprobe::rules::Numbering;
    /// // Russian square 29 is a1, Portuguese square 1 is a1: internal square 0 for both.
    /// assert_eq!(Numbering::FromBlackLeft.squares_of(1 << 28), 1);
    /// assert_eq!(Numbering::FromWhiteRight.squares_of(1), 1);
    /// ```
    #[inline(always)]
    pub const fn squares_of(self, numbered: u32) -> Bitboard {
        match self {
            // Numbers count rows from Black's side, internal squares from White's, each row left
            // to right: the same rows of 4 bits, in reverse order.
            Numbering::FromBlackLeft => {
                let bytes = numbered.swap_bytes();
                (bytes >> 4) & 0x0F0F_0F0F | (bytes & 0x0F0F_0F0F) << 4
            }
            Numbering::FromWhiteRight => numbered,
        }
    }

    /// The set in this numbering (bit `n − 1` for square `n`) of a set of internal squares; the
    /// inverse of [`Numbering::squares_of`].
    #[inline(always)]
    pub const fn numbered(self, squares: Bitboard) -> u32 {
        // Reversing the rows is its own inverse.
        self.squares_of(squares)
    }
}

/// The algebraic name of a square (`a1` … `h8`).
pub fn algebraic(square: u8) -> String {
    let mut name = String::with_capacity(2);
    name.push((b'a' + file_of(square)) as char);
    name.push((b'1' + rank_of(square)) as char);
    name
}

/// What is wrong with a position string.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FenError {
    /// The string is empty.
    #[error("empty position string: expected something like \"W:W21,22,K30:B1,2,K5\"")]
    Empty,
    /// The side to move is not `W` or `B`.
    #[error("side to move {0:?} must be W or B (position strings look like \"W:W21,22:B1,2\")")]
    BadSideToMove(String),
    /// A section does not start with `W` or `B`.
    #[error("piece list {0:?} must start with W or B (as in \"W21,22,K30\")")]
    BadSection(String),
    /// One colour's pieces are listed twice, or a part is missing or extra.
    #[error(
        "position string must have exactly three parts, side:white:black, separated by ':' ({0})"
    )]
    Sections(String),
    /// A square is not a number 1–32 (or, for Russian, an algebraic dark square).
    #[error("bad square {token:?} in the {color} pieces: {reason}")]
    BadSquare {
        /// The text as written.
        token: String,
        /// `white` or `black`.
        color: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// Two pieces on one square.
    #[error("two pieces on square {0}")]
    TwoPieces(String),
    /// A man on the row where it would have been crowned.
    #[error("{color} man on square {square} stands on its own far row (it would be a king there)")]
    ManOnFarRow {
        /// `white` or `black`.
        color: &'static str,
        /// The square as written in the variant's notation.
        square: String,
    },
    /// More than 12 pieces of one colour.
    #[error("{color} has {count} pieces; at most 12 are possible")]
    TooManyPieces {
        /// `white` or `black`.
        color: &'static str,
        /// How many were given.
        count: u32,
    },
}

/// What is wrong with a move string.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    /// The text is not a list of squares separated by `-`, `:` or `x`.
    #[error("cannot read move {text:?}: {reason}")]
    Malformed {
        /// The move as written.
        text: String,
        /// What is wrong with it.
        reason: String,
    },
    /// No legal move matches.
    #[error("{text:?} is not a legal move here; legal moves: {legal}")]
    Illegal {
        /// The move as written.
        text: String,
        /// The legal moves, in the variant's notation.
        legal: String,
    },
    /// Several legal moves match; the intermediate squares are needed to tell them apart.
    #[error("{text:?} is ambiguous: it could be {candidates}; give the squares in between")]
    Ambiguous {
        /// The move as written.
        text: String,
        /// The moves it could mean.
        candidates: String,
    },
}

fn color_name(color: Color) -> &'static str {
    match color {
        Color::White => "white",
        Color::Black => "black",
    }
}

/// Writes a square in the variant's position-string notation.
fn fen_square(variant: &Variant, square: u8) -> String {
    variant.notation.numbering.number(square).to_string()
}

/// Writes a square as the variant writes it in moves.
pub fn move_square(variant: &Variant, square: u8) -> String {
    if variant.notation.algebraic_moves {
        algebraic(square)
    } else {
        fen_square(variant, square)
    }
}

/// Reads one square: a number in the variant's numbering or, where allowed, an algebraic name.
fn parse_square(variant: &Variant, token: &str, algebraic_ok: bool) -> Result<u8, String> {
    let token = token.trim();
    if token.is_empty() {
        return Err("empty square".into());
    }
    if token.bytes().all(|b| b.is_ascii_digit()) {
        let number: u32 = token
            .parse()
            .map_err(|_| format!("{token} is not a square number"))?;
        return variant
            .notation
            .numbering
            .square(number)
            .ok_or_else(|| format!("square numbers run from 1 to 32, not {number}"));
    }
    let bytes = token.as_bytes();
    if algebraic_ok && bytes.len() == 2 {
        let file = bytes[0].to_ascii_lowercase();
        let rank = bytes[1];
        if (b'a'..=b'h').contains(&file) && (b'1'..=b'8').contains(&rank) {
            return square_at(i32::from(file - b'a'), i32::from(rank - b'1'))
                .ok_or_else(|| format!("{token} is a light square; pieces stand on dark squares"));
        }
    }
    if algebraic_ok {
        Err("expected a number 1-32 or a square a1-h8".into())
    } else {
        Err(format!(
            "expected a number 1-32 ({} numbering)",
            variant.name
        ))
    }
}

/// Reads one colour's piece list (`21,22,K30`, ranges `1-12`, `K` for kings).
fn parse_pieces(
    variant: &Variant,
    list: &str,
    color: Color,
) -> Result<(Bitboard, Bitboard), FenError> {
    let mut men = 0;
    let mut kings = 0;
    for item in list.split(',') {
        let item = item.trim();
        if item.is_empty() {
            continue;
        }
        let bad = |reason: String| FenError::BadSquare {
            token: item.to_string(),
            color: color_name(color),
            reason,
        };
        let (is_king, body) = match item.strip_prefix(['K', 'k']) {
            Some(rest) => (true, rest),
            None => (false, item),
        };
        let algebraic_ok = variant.notation.algebraic_fen;
        let mut add = |square: u8| -> Result<(), FenError> {
            let bit = 1u32 << square;
            if (men | kings) & bit != 0 {
                return Err(FenError::TwoPieces(fen_square(variant, square)));
            }
            if is_king {
                kings |= bit;
            } else {
                men |= bit;
            }
            Ok(())
        };
        match body.split_once('-') {
            Some((first, last)) => {
                let first = parse_square(variant, first, false).map_err(bad)?;
                let last = parse_square(variant, last, false).map_err(bad)?;
                let (lo, hi) = (
                    variant.notation.numbering.number(first),
                    variant.notation.numbering.number(last),
                );
                if lo > hi {
                    return Err(bad(format!("range runs backwards ({lo} > {hi})")));
                }
                for number in lo..=hi {
                    // In range: both ends are valid square numbers.
                    if let Some(square) = variant.notation.numbering.square(number) {
                        add(square)?;
                    }
                }
            }
            None => add(parse_square(variant, body, algebraic_ok).map_err(bad)?)?,
        }
    }
    Ok((men, kings))
}

impl Position {
    /// Reads a PDN FEN position string in the variant's numbering, such as
    /// `W:W21,22,K30:B1,2,K5` (ranges like `1-12` allowed; for Russian also algebraic squares).
    ///
    /// # Errors
    ///
    /// A [`FenError`] naming what is wrong and where: a malformed part, a bad square, two pieces
    /// on one square, a man on its own far row, more than 12 pieces a side.
    ///
    /// ```
    /// use dprobe::{Position, Variant};
    /// let pos = Position::from_fen("W:W21-32:B1-12", &Variant::BRAZILIAN).unwrap();
    /// assert_eq!(pos, Position::INITIAL);
    /// assert!(Position::from_fen("W:W21,21:B1", &Variant::BRAZILIAN).is_err());
    /// ```
    pub fn from_fen(fen: &str, variant: &Variant) -> Result<Position, FenError> {
        let fen = fen.trim().trim_matches('"').trim_end_matches('.').trim();
        if fen.is_empty() {
            return Err(FenError::Empty);
        }
        let parts: Vec<&str> = fen.split(':').collect();
        if parts.len() != 3 {
            return Err(FenError::Sections(format!("found {} parts", parts.len())));
        }
        let side_to_move = match parts[0].trim() {
            "W" | "w" => Color::White,
            "B" | "b" => Color::Black,
            other => return Err(FenError::BadSideToMove(other.to_string())),
        };
        let mut white = None;
        let mut black = None;
        for section in &parts[1..] {
            let section = section.trim();
            let (color, slot) = match section.chars().next() {
                Some('W' | 'w') => (Color::White, &mut white),
                Some('B' | 'b') => (Color::Black, &mut black),
                _ => return Err(FenError::BadSection(section.to_string())),
            };
            if slot.is_some() {
                return Err(FenError::Sections(format!(
                    "{} pieces listed twice",
                    color_name(color)
                )));
            }
            *slot = Some(parse_pieces(variant, &section[1..], color)?);
        }
        let (Some((white_men, white_kings)), Some((black_men, black_kings))) = (white, black)
        else {
            return Err(FenError::Sections("one colour's pieces are missing".into()));
        };
        let clash = (white_men | white_kings) & (black_men | black_kings);
        if clash != 0 {
            let square = clash.trailing_zeros() as u8;
            return Err(FenError::TwoPieces(fen_square(variant, square)));
        }
        for (color, men, far_row) in [
            (Color::White, white_men, PROMOTION_ROW),
            (Color::Black, black_men, BACK_ROW),
        ] {
            if men & far_row != 0 {
                return Err(FenError::ManOnFarRow {
                    color: color_name(color),
                    square: fen_square(variant, (men & far_row).trailing_zeros() as u8),
                });
            }
        }
        for (color, pieces) in [
            (Color::White, white_men | white_kings),
            (Color::Black, black_men | black_kings),
        ] {
            if pieces.count_ones() > 12 {
                return Err(FenError::TooManyPieces {
                    color: color_name(color),
                    count: pieces.count_ones(),
                });
            }
        }
        Ok(Position {
            white_men,
            white_kings,
            black_men,
            black_kings,
            side_to_move,
        })
    }

    /// Writes the position as a PDN FEN string in the variant's numbering, squares in increasing
    /// number order, kings marked `K`.
    pub fn to_fen(&self, variant: &Variant) -> String {
        let numbering = variant.notation.numbering;
        let mut fen = String::new();
        fen.push(match self.side_to_move {
            Color::White => 'W',
            Color::Black => 'B',
        });
        for (tag, men, kings) in [
            ('W', self.white_men, self.white_kings),
            ('B', self.black_men, self.black_kings),
        ] {
            fen.push(':');
            fen.push(tag);
            let mut numbered: Vec<(u32, bool)> = squares(men | kings)
                .map(|s| (numbering.number(s), kings & (1 << s) != 0))
                .collect();
            numbered.sort_unstable();
            for (i, (number, king)) in numbered.into_iter().enumerate() {
                if i > 0 {
                    fen.push(',');
                }
                if king {
                    fen.push('K');
                }
                let _ = write!(fen, "{number}");
            }
        }
        fen
    }

    /// Writes a legal move as players of the variant write it, with every landing square of a
    /// capture: Russian `c3-d4`, `c3:e5:g3`; Brazilian `8-12`, `11:18:27`; Portuguese and
    /// Spanish `9-13`, `9x18`.
    pub fn move_to_string(&self, variant: &Variant, mv: &Move) -> String {
        let path = self
            .move_paths(variant, mv)
            .into_iter()
            .next()
            .unwrap_or_else(|| vec![mv.from, mv.to]);
        let separator = if mv.is_capture() {
            variant.notation.capture_separator
        } else {
            '-'
        };
        let mut text = String::new();
        for (i, square) in path.into_iter().enumerate() {
            if i > 0 {
                text.push(separator);
            }
            text.push_str(&move_square(variant, square));
        }
        text
    }

    /// Reads a move written as squares separated by `-`, `:` or `x`: the start and end squares,
    /// optionally with the landing squares in between (needed only when two legal moves share
    /// start and end). A text that is the whole path of a move means that move. Numbers in the
    /// variant's numbering, or for Russian algebraic squares.
    ///
    /// # Errors
    ///
    /// A [`MoveError`] if the text cannot be read, matches no legal move, or matches several.
    pub fn parse_move(&self, variant: &Variant, text: &str) -> Result<Move, MoveError> {
        let malformed = |reason: String| MoveError::Malformed {
            text: text.to_string(),
            reason,
        };
        let path = text
            .trim()
            .split(['-', ':', 'x', 'X'])
            .map(|token| parse_square(variant, token, variant.notation.algebraic_moves))
            .collect::<Result<Vec<u8>, String>>()
            .map_err(malformed)?;
        if path.len() < 2 {
            return Err(malformed("a move needs a start and an end square".into()));
        }
        let (from, to) = (path[0], path[path.len() - 1]);
        let legal = self.legal_moves(variant);
        let same_ends: Vec<Move> = legal
            .iter()
            .copied()
            .filter(|mv| mv.from == from && mv.to == to)
            .collect();
        // A move whose whole path is the text is meant even when other moves share its start and
        // end (a single jump `e5:c7` beside a longer capture from e5 to c7); bare start and end
        // squares that are no move's whole path match every move between them.
        let exact: Vec<Move> = same_ends
            .iter()
            .copied()
            .filter(|mv| self.move_paths(variant, mv).contains(&path))
            .collect();
        let candidates = if exact.is_empty() && path.len() == 2 {
            same_ends
        } else {
            exact
        };
        let list = |moves: &[Move]| {
            moves
                .iter()
                .map(|mv| self.move_to_string(variant, mv))
                .collect::<Vec<_>>()
                .join(", ")
        };
        match candidates.as_slice() {
            [mv] => Ok(*mv),
            [] => Err(MoveError::Illegal {
                text: text.to_string(),
                legal: list(&legal),
            }),
            many => Err(MoveError::Ambiguous {
                text: text.to_string(),
                candidates: list(many),
            }),
        }
    }

    /// An ASCII diagram from White's side: `w`/`b` men, `W`/`B` kings, `.` empty dark squares,
    /// with the variant's square numbers in the margin.
    pub fn diagram(&self, variant: &Variant) -> String {
        let mut out = String::new();
        for rank in (0..8).rev() {
            let _ = write!(out, "{} ", rank + 1);
            let mut numbers = Vec::new();
            for file in 0..8 {
                let cell = match square_at(file, rank) {
                    None => ' ',
                    Some(s) => {
                        numbers.push(variant.notation.numbering.number(s));
                        let bit = 1u32 << s;
                        if self.white_men & bit != 0 {
                            'w'
                        } else if self.white_kings & bit != 0 {
                            'W'
                        } else if self.black_men & bit != 0 {
                            'b'
                        } else if self.black_kings & bit != 0 {
                            'B'
                        } else {
                            '.'
                        }
                    }
                };
                let _ = write!(out, " {cell}");
            }
            let numbers: Vec<String> = numbers.iter().map(|n| format!("{n:>2}")).collect();
            let _ = writeln!(out, "    {}", numbers.join(" "));
        }
        out.push_str("   a b c d e f g h\n");
        let _ = writeln!(
            out,
            "{} to move",
            match self.side_to_move {
                Color::White => "White",
                Color::Black => "Black",
            }
        );
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbered_sets_map_square_by_square() {
        for numbering in [Numbering::FromBlackLeft, Numbering::FromWhiteRight] {
            for number in 1..=32 {
                let square = numbering.square(number).unwrap();
                assert_eq!(numbering.squares_of(1 << (number - 1)), 1 << square);
                assert_eq!(numbering.numbered(1 << square), 1 << (number - 1));
            }
            let set = 0x8123_4F06;
            assert_eq!(numbering.numbered(numbering.squares_of(set)), set);
        }
    }

    #[test]
    fn numbering_matches_rules_tables() {
        let bra = Numbering::FromBlackLeft;
        assert_eq!(algebraic(bra.square(1).unwrap()), "b8");
        assert_eq!(algebraic(bra.square(5).unwrap()), "a7");
        assert_eq!(algebraic(bra.square(29).unwrap()), "a1");
        assert_eq!(algebraic(bra.square(32).unwrap()), "g1");
        assert_eq!(algebraic(bra.square(15).unwrap()), "e5");
        let por = Numbering::FromWhiteRight;
        assert_eq!(algebraic(por.square(1).unwrap()), "a1");
        assert_eq!(algebraic(por.square(5).unwrap()), "b2");
        assert_eq!(algebraic(por.square(21).unwrap()), "b6");
        assert_eq!(algebraic(por.square(32).unwrap()), "h8");
        for numbering in [bra, por] {
            for n in 1..=32 {
                assert_eq!(numbering.number(numbering.square(n).unwrap()), n);
            }
            assert_eq!(numbering.square(0), None);
            assert_eq!(numbering.square(33), None);
        }
    }

    #[test]
    fn long_diagonal_in_both_numberings() {
        let long: Vec<u32> = [29, 25, 22, 18, 15, 11, 8, 4].to_vec();
        let river: Vec<u32> = [1, 5, 10, 14, 19, 23, 28, 32].to_vec();
        for n in long {
            let s = Numbering::FromBlackLeft.square(n).unwrap();
            assert_ne!(crate::rules::geometry::LONG_DIAGONAL & (1 << s), 0, "{n}");
        }
        for n in river {
            let s = Numbering::FromWhiteRight.square(n).unwrap();
            assert_ne!(crate::rules::geometry::LONG_DIAGONAL & (1 << s), 0, "{n}");
        }
    }
}

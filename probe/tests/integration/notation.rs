//! Position strings (PDN FEN), move notation and diagrams in each variant's conventions
//! (RULES.md §4), and every kind of error they can give.

use dprobe::{FenError, MoveError, Position, Variant};

const RUSSIAN: Variant = Variant::RUSSIAN;
const BRAZILIAN: Variant = Variant::BRAZILIAN;
const PORTUGUESE: Variant = Variant::PORTUGUESE;
const SPANISH: Variant = Variant::SPANISH;
const ALL: [Variant; 4] = Variant::ALL;
const IBERIAN: [Variant; 2] = [PORTUGUESE, SPANISH];

fn parse(fen: &str, variant: &Variant) -> Position {
    Position::from_fen(fen, variant).unwrap_or_else(|e| panic!("{variant} {fen}: {e}"))
}

/// Parses, prints (expecting `printed`), and parses the printed string back to the same position.
fn round_trip(variant: &Variant, fen: &str, printed: &str) -> Position {
    let pos = parse(fen, variant);
    assert_eq!(pos.to_fen(variant), printed, "{variant} {fen}");
    assert_eq!(parse(printed, variant), pos, "{variant} {printed}");
    pos
}

/// Every legal move, printed, sorted.
fn move_strings(pos: &Position, variant: &Variant) -> Vec<String> {
    let mut moves: Vec<String> = pos
        .legal_moves(variant)
        .iter()
        .map(|mv| pos.move_to_string(variant, mv))
        .collect();
    moves.sort();
    moves
}

fn fen_err(fen: &str, variant: &Variant) -> FenError {
    match Position::from_fen(fen, variant) {
        Ok(pos) => panic!("{variant} {fen:?} parsed as {pos:?}"),
        Err(e) => {
            assert!(!e.to_string().is_empty());
            e
        }
    }
}

fn move_err(pos: &Position, variant: &Variant, text: &str) -> MoveError {
    match pos.parse_move(variant, text) {
        Ok(mv) => panic!("{variant} {text:?} parsed as {mv:?}"),
        Err(e) => {
            assert!(!e.to_string().is_empty());
            e
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Position strings.

const BRAZILIAN_INITIAL: &str =
    "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12";
const IBERIAN_INITIAL: &str = "W:W1,2,3,4,5,6,7,8,9,10,11,12:B21,22,23,24,25,26,27,28,29,30,31,32";

/// The initial position in every variant, with ranges and written out, printed in full.
#[test]
fn initial_position_fen() {
    for variant in [RUSSIAN, BRAZILIAN] {
        let pos = round_trip(&variant, "W:W21-32:B1-12", BRAZILIAN_INITIAL);
        assert_eq!(pos, Position::INITIAL);
        assert_eq!(Position::INITIAL.to_fen(&variant), BRAZILIAN_INITIAL);
    }
    for variant in IBERIAN {
        let pos = round_trip(&variant, "W:W1-12:B21-32", IBERIAN_INITIAL);
        assert_eq!(pos, Position::INITIAL);
        assert_eq!(Position::INITIAL.to_fen(&variant), IBERIAN_INITIAL);
    }
    // Russian, algebraic: White on ranks 1-3, Black on ranks 6-8.
    let algebraic = "W:Wa1,c1,e1,g1,b2,d2,f2,h2,a3,c3,e3,g3:\
                     Bb6,d6,f6,h6,a7,c7,e7,g7,b8,d8,f8,h8";
    assert_eq!(parse(algebraic, &RUSSIAN), Position::INITIAL);
}

/// A position with kings, both sides to move, printed in increasing square order with `K` on the
/// kings, in each numbering. White: men d4, c3, king c1; Black: man b8, king a7.
/// Brazilian/Russian: d4 = 18, c3 = 22, c1 = 30, b8 = 1, a7 = 5.
/// Portuguese/Spanish: d4 = 14, c3 = 10, c1 = 2, b8 = 29, a7 = 25.
#[test]
fn positions_with_kings_round_trip() {
    let bra = round_trip(&BRAZILIAN, "B:W18,K30,22:BK5,1", "B:W18,22,K30:B1,K5");
    let rus = round_trip(&RUSSIAN, "B:W18,K30,22:BK5,1", "B:W18,22,K30:B1,K5");
    let por = round_trip(&PORTUGUESE, "B:W14,K2,10:BK25,29", "B:WK2,10,14:BK25,29");
    let spa = round_trip(&SPANISH, "B:WK2,10,14:B29,K25", "B:WK2,10,14:BK25,29");
    assert_eq!(bra, rus);
    assert_eq!(bra, por);
    assert_eq!(bra, spa);
    let alg = parse("B:Wd4,Kc1,c3:BKa7,b8", &RUSSIAN);
    assert_eq!(alg, bra);

    // White to move, kings on the far rows, Brazilian numbering.
    let pos = round_trip(
        &BRAZILIAN,
        "W:WK1,K2,17:BK29,K32,16",
        "W:WK1,K2,17:B16,K29,K32",
    );
    assert_eq!(pos.white_kings.count_ones(), 2);
    assert_eq!(pos.black_kings.count_ones(), 2);
}

/// Sides with no pieces, and the tolerated spellings: lower case, spaces, quotes, a final dot.
#[test]
fn empty_sides_and_tolerated_spellings() {
    for variant in ALL {
        round_trip(&variant, "W:W:B", "W:W:B");
        round_trip(&variant, "B:W:B", "B:W:B");
    }
    let want = parse("B:W18,K30:B1", &BRAZILIAN);
    for text in [
        "b:w18,k30:b1",
        "  B : W 18 , K30 : B 1  ",
        "\"B:W18,K30:B1\"",
        "B:W18,K30:B1.",
        "B:W18,,K30,:B1",
        "B:B1:W18,K30",
    ] {
        assert_eq!(parse(text, &BRAZILIAN), want, "{text:?}");
    }
}

/// Ranges: `1-12`, ranges of kings, single-square ranges, ranges mixed with single squares; a
/// range that runs backwards, or overlaps another square, is an error.
#[test]
fn ranges() {
    let pos = parse("W:W21-24,K29-32:BK1-4,5-8", &BRAZILIAN);
    assert_eq!(
        pos.to_fen(&BRAZILIAN),
        "W:W21,22,23,24,K29,K30,K31,K32:BK1,K2,K3,K4,5,6,7,8"
    );
    assert_eq!(pos.white_men.count_ones(), 4);
    assert_eq!(pos.white_kings.count_ones(), 4);
    assert_eq!(
        parse("W:W5-5,7:B30", &PORTUGUESE),
        parse("W:W5,7:B30", &PORTUGUESE)
    );
    assert_eq!(
        parse("W:W1-12:B21-32", &SPANISH),
        parse("W:W1-12:B21-32", &PORTUGUESE)
    );
    assert!(matches!(
        fen_err("W:W12-1:B30", &BRAZILIAN),
        FenError::BadSquare { color: "white", .. }
    ));
    assert_eq!(
        fen_err("W:W21-24,23:B1", &BRAZILIAN),
        FenError::TwoPieces("23".into())
    );
    assert!(matches!(
        fen_err("W:W21-33:B1", &BRAZILIAN),
        FenError::BadSquare { .. }
    ));
    assert!(matches!(
        fen_err("W:W21:B-5", &BRAZILIAN),
        FenError::BadSquare { color: "black", .. }
    ));
    assert!(matches!(
        fen_err("W:W21:B1-2-3", &BRAZILIAN),
        FenError::BadSquare { color: "black", .. }
    ));
    // Ranges are numeric only, also in Russian.
    assert!(matches!(
        fen_err("W:Wa1-c1:B1", &RUSSIAN),
        FenError::BadSquare { .. }
    ));
}

/// Russian accepts algebraic squares in position strings: `W:Wa1,c1,Kh2:Bb8` is White men a1
/// (29), c1 (30), a White king on h2 (28, a dark square: file h + rank 2 is even) and a Black man
/// on b8 (1). Algebraic and numeric squares may be mixed. A light square (a2) or a square off the
/// board is an error; the other variants do not take algebraic squares.
#[test]
fn russian_algebraic_fen() {
    let pos = parse("W:Wa1,c1,Kh2:Bb8", &RUSSIAN);
    assert_eq!(pos, parse("W:W29,30,K28:B1", &RUSSIAN));
    assert_eq!(pos.to_fen(&RUSSIAN), "W:WK28,29,30:B1");
    assert_eq!(pos.white_kings, 1 << 7); // h2 is internal square 7
    assert_eq!(pos.white_men, 0b11); // a1, c1
    assert_eq!(pos.black_men, 1 << 28); // b8
    assert_eq!(parse("W:W29,c1,KH2:BB8", &RUSSIAN), pos);

    for bad in ["a2", "h1", "b1", "i1", "a9", "a0", "aa", "a", "a11"] {
        match fen_err(&format!("W:W{bad}:B1"), &RUSSIAN) {
            FenError::BadSquare { token, color, .. } => {
                assert_eq!(token, bad);
                assert_eq!(color, "white");
            }
            other => panic!("{bad}: {other:?}"),
        }
    }
    match fen_err("W:Wa2:B1", &RUSSIAN) {
        FenError::BadSquare { reason, .. } => assert!(reason.contains("light"), "{reason}"),
        other => panic!("{other:?}"),
    }
    for variant in [BRAZILIAN, PORTUGUESE, SPANISH] {
        assert!(
            matches!(fen_err("W:Wa1:B1", &variant), FenError::BadSquare { .. }),
            "{variant}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Position string errors.

#[test]
fn fen_errors_empty_and_structure() {
    for variant in ALL {
        for text in ["", "   ", "\"\"", "."] {
            assert_eq!(fen_err(text, &variant), FenError::Empty, "{text:?}");
        }
        assert_eq!(
            fen_err("X:W21:B1", &variant),
            FenError::BadSideToMove("X".into())
        );
        assert_eq!(
            fen_err(":W21:B1", &variant),
            FenError::BadSideToMove("".into())
        );
        assert_eq!(
            fen_err("WB:W21:B1", &variant),
            FenError::BadSideToMove("WB".into())
        );
        assert_eq!(
            fen_err("W:X21:B1", &variant),
            FenError::BadSection("X21".into())
        );
        assert_eq!(fen_err("W::B1", &variant), FenError::BadSection("".into()));
        assert_eq!(
            fen_err("W:W21:21", &variant),
            FenError::BadSection("21".into())
        );
        for text in [
            "W",
            "W:W21",
            "W:W21:B1:B2",
            "W:W21:W22",
            "W:B1:B2",
            "W:W21:B1:",
            "W21,22",
        ] {
            assert!(
                matches!(fen_err(text, &variant), FenError::Sections(_)),
                "{variant} {text:?}"
            );
        }
    }
}

#[test]
fn fen_errors_bad_squares() {
    for variant in ALL {
        for (text, token, color) in [
            ("W:W0:B1", "0", "white"),
            ("W:W33:B1", "33", "white"),
            ("W:Wabc:B1", "abc", "white"),
            ("W:W21:B100", "100", "black"),
            (
                "W:W21:B99999999999999999999",
                "99999999999999999999",
                "black",
            ),
            ("W:W21,K:B1", "K", "white"),
            ("W:W21:BK0", "K0", "black"),
            ("W:W-1:B1", "-1", "white"),
            ("W:W+1:B1", "+1", "white"),
            ("W:W21:B1.5", "1.5", "black"),
            ("W:W2 1:B1", "2 1", "white"),
            ("W:WKK21:B1", "KK21", "white"),
        ] {
            match fen_err(text, &variant) {
                FenError::BadSquare {
                    token: t, color: c, ..
                } => {
                    assert_eq!((t.as_str(), c), (token, color), "{variant} {text}");
                }
                other => panic!("{variant} {text}: {other:?}"),
            }
        }
    }
}

/// Two pieces on one square: the same colour twice (also man and king), both colours, through a
/// range, through an algebraic and a numeric name for one square. The square is named in the
/// variant's numbering.
#[test]
fn fen_errors_two_pieces() {
    for variant in ALL {
        for text in [
            "W:W21,21:B1",
            "W:W21,K21:B1",
            "W:W21:B21",
            "W:WK21:BK21",
            "W:W20-22:B21",
        ] {
            assert_eq!(
                fen_err(text, &variant),
                FenError::TwoPieces("21".into()),
                "{variant} {text}"
            );
        }
    }
    assert_eq!(
        fen_err("W:Wa1,29:B1", &RUSSIAN),
        FenError::TwoPieces("29".into())
    );
    assert_eq!(
        fen_err("W:Wc3:Bc3", &RUSSIAN),
        FenError::TwoPieces("22".into())
    );
}

/// A man on its own far row: White men on rank 8 and Black men on rank 1, for every square of
/// those rows in each numbering (Brazilian/Russian 1-4 and 29-32, Portuguese/Spanish 29-32 and
/// 1-4). A king there is fine, and so is a man on the opponent's far row (its own first row).
#[test]
fn fen_errors_man_on_far_row() {
    for variant in ALL {
        let iberian = IBERIAN.contains(&variant);
        let (white_far, black_far) = if iberian {
            (29..=32, 1..=4)
        } else {
            (1..=4, 29..=32)
        };
        for n in white_far.clone() {
            let other = if iberian { 10 } else { 22 };
            assert_eq!(
                fen_err(&format!("W:W{n}:B{other}"), &variant),
                FenError::ManOnFarRow {
                    color: "white",
                    square: n.to_string()
                },
                "{variant} {n}"
            );
            parse(&format!("W:WK{n}:B{other}"), &variant);
            // A Black man on White's far row is on its own first row.
            parse(&format!("W:W{other}:B{n}"), &variant);
        }
        for n in black_far.clone() {
            let other = if iberian { 23 } else { 11 };
            assert_eq!(
                fen_err(&format!("B:W{other}:B{n}"), &variant),
                FenError::ManOnFarRow {
                    color: "black",
                    square: n.to_string()
                },
                "{variant} {n}"
            );
            parse(&format!("B:W{other}:BK{n}"), &variant);
            parse(&format!("B:W{n}:B{other}"), &variant);
        }
    }
    assert_eq!(
        fen_err("W:Wb8:B5", &RUSSIAN),
        FenError::ManOnFarRow {
            color: "white",
            square: "1".into()
        }
    );
    assert_eq!(
        fen_err("W:Wd8:Bc3", &RUSSIAN),
        FenError::ManOnFarRow {
            color: "white",
            square: "2".into()
        }
    );
    assert_eq!(
        fen_err("W:Wc3:Be1", &RUSSIAN),
        FenError::ManOnFarRow {
            color: "black",
            square: "31".into()
        }
    );
}

/// More than 12 pieces a side; exactly 12 is fine.
#[test]
fn fen_errors_too_many_pieces() {
    assert_eq!(
        fen_err("W:W5-17:B1", &BRAZILIAN),
        FenError::TooManyPieces {
            color: "white",
            count: 13
        }
    );
    assert_eq!(
        fen_err("W:W32:B13-25", &RUSSIAN),
        FenError::TooManyPieces {
            color: "black",
            count: 13
        }
    );
    assert_eq!(
        fen_err("W:W1-13:B32", &PORTUGUESE),
        FenError::TooManyPieces {
            color: "white",
            count: 13
        }
    );
    assert_eq!(
        fen_err("B:WK1-32:B", &SPANISH),
        FenError::TooManyPieces {
            color: "white",
            count: 32
        }
    );
    assert_eq!(
        fen_err("B:W:BK1-20", &SPANISH),
        FenError::TooManyPieces {
            color: "black",
            count: 20
        }
    );
    parse("W:W5-16:B17-28", &BRAZILIAN);
    parse("W:WK1-12:BK21-32", &PORTUGUESE);
}

/// Arbitrary junk never panics: every string either parses or gives an error.
#[test]
fn fen_junk_never_panics() {
    let pieces = [
        "",
        "W",
        "B",
        "K",
        ":",
        ",",
        "-",
        "1",
        "12",
        "32",
        "33",
        "0",
        "a1",
        "h2",
        "é",
        "K5",
        "1-",
        "-",
        "x",
        " ",
        "\"",
        ".",
        "99999999999",
    ];
    for variant in ALL {
        for a in pieces {
            for b in pieces {
                for c in pieces {
                    let text = format!("{a}{b}:{c}{a}:{b}{c}");
                    let _ = Position::from_fen(&text, &variant);
                    let text = format!("{a}{b}{c}");
                    let _ = Position::from_fen(&text, &variant);
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Moves.

/// Concrete move strings in each variant's notation.
#[test]
fn concrete_move_strings() {
    // Russian: algebraic squares; quiet `c3-d4`, captures `c3:e5:g3` (d4, then f4 backward).
    let moves = move_strings(&Position::INITIAL, &RUSSIAN);
    assert_eq!(
        moves,
        ["a3-b4", "c3-b4", "c3-d4", "e3-d4", "e3-f4", "g3-f4", "g3-h4"]
    );
    let pos = parse("W:Wc3:Bd4,f4", &RUSSIAN);
    assert_eq!(move_strings(&pos, &RUSSIAN), ["c3:e5:g3"]);

    // Brazilian: numbers; Black man 8 (g7) moves to 11 (f6) or 12 (h6).
    let moves = move_strings(&Position::INITIAL, &BRAZILIAN);
    assert_eq!(
        moves,
        ["21-17", "22-17", "22-18", "23-18", "23-19", "24-19", "24-20"]
    );
    let pos = parse("B:W32:B8", &BRAZILIAN);
    assert_eq!(move_strings(&pos, &BRAZILIAN), ["8-11", "8-12"]);
    // Black man 11 (f6) takes 15 (e5) landing 18 (d4), then 23 (e3) landing 27 (f2).
    let pos = parse("B:W15,23:B11", &BRAZILIAN);
    assert_eq!(move_strings(&pos, &BRAZILIAN), ["11:18:27"]);
    // Russian, same position, same move in its notation.
    assert_eq!(move_strings(&pos, &RUSSIAN), ["f6:d4:f2"]);

    // Portuguese and Spanish: numbers from White's right; quiet `9-13`, captures `9x18`.
    for variant in IBERIAN {
        let moves = move_strings(&Position::INITIAL, &variant);
        assert_eq!(
            moves,
            ["10-13", "10-14", "11-14", "11-15", "12-15", "12-16", "9-13"]
        );
        let pos = parse("W:W9:B13", &variant);
        assert_eq!(move_strings(&pos, &variant), ["9x18"]);
        // Two jumps: 9 (a3) over 13 (b4) to 18 (c5), over 22 (d6) to 27 (e7).
        let pos = parse("W:W9:B13,22", &variant);
        assert_eq!(move_strings(&pos, &variant), ["9x18x27"]);
        // Black to move: 22 (d6) over 18 (c5) to 13 (b4).
        let pos = parse("B:W18:B22", &variant);
        assert_eq!(move_strings(&pos, &variant), ["22x13"]);
    }
}

/// Portuguese and Spanish captures print with `x` but are read with `x`, `X`, `:` or `-`; the
/// intermediate squares may be left out.
#[test]
fn iberian_captures_accept_any_separator() {
    for variant in IBERIAN {
        let pos = parse("W:W9:B13,22", &variant);
        let mv = pos.legal_moves(&variant)[0];
        for text in [
            "9x18x27", "9:18:27", "9-18-27", "9X18X27", "9x18:27", "9-27", "9x27", "9:27", " 9x27 ",
        ] {
            assert_eq!(pos.parse_move(&variant, text), Ok(mv), "{variant} {text:?}");
        }
    }
    // Brazilian and Russian read the other separators too.
    let pos = parse("B:W15,23:B11", &BRAZILIAN);
    let mv = pos.legal_moves(&BRAZILIAN)[0];
    for text in ["11:18:27", "11x18x27", "11-18-27", "11:27"] {
        assert_eq!(pos.parse_move(&BRAZILIAN, text), Ok(mv), "{text}");
        assert_eq!(pos.parse_move(&RUSSIAN, text), Ok(mv), "{text}");
    }
    assert_eq!(pos.parse_move(&RUSSIAN, "f6:d4:f2"), Ok(mv));
    assert_eq!(pos.parse_move(&RUSSIAN, "f6xd4-f2"), Ok(mv));
    // Russian quiet moves by number as well as by name.
    let mv = Position::INITIAL.parse_move(&RUSSIAN, "c3-d4").unwrap();
    assert_eq!(Position::INITIAL.parse_move(&RUSSIAN, "22-18"), Ok(mv));
    assert_eq!(Position::INITIAL.parse_move(&RUSSIAN, "C3-D4"), Ok(mv));
    assert_eq!(Position::INITIAL.parse_move(&BRAZILIAN, "22-18"), Ok(mv));
}

/// Only Russian writes moves with algebraic squares. The Portuguese and Spanish boards are the
/// mirror image of the internal geometry (RULES.md §4), so an algebraic name there would mean a
/// different physical square; Brazilian moves are numeric. Those variants reject algebraic moves
/// rather than guess.
#[test]
fn algebraic_moves_only_in_russian() {
    let pos = Position::INITIAL;
    assert!(pos.parse_move(&RUSSIAN, "c3-d4").is_ok());
    for variant in [BRAZILIAN, PORTUGUESE, SPANISH] {
        for text in ["c3-d4", "a3-b4", "c3-18", "22-d4"] {
            assert!(
                matches!(move_err(&pos, &variant, text), MoveError::Malformed { .. }),
                "{variant} {text}"
            );
        }
    }
}

/// A single jump and a longer capture with the same start and end. Russian, White man c3 with
/// Black men d4, d6, b6, b4 around the ring c3-e5-c7-a5 and d2 behind it. It may take d2 at
/// once (c3:e1; from e1 nothing follows: d2 is taken, f2 empty), or go round the ring either
/// way back to c3 and then take d2 (five pieces, two paths). Free choice: two moves from c3 to
/// e1. The printed single jump `c3:e1` is that move's whole path, so it reads back as the single
/// jump, not as ambiguous; the long one needs its squares. Brazilian must take five: there
/// `22:31` (c3 to e1) is the one move.
#[test]
fn single_jump_beside_longer_capture_with_same_ends() {
    let pos = parse("W:Wc3:Bd4,d6,b6,b4,d2", &RUSSIAN);
    let moves = pos.legal_moves(&RUSSIAN);
    assert_eq!(moves.len(), 2);
    let short = moves
        .iter()
        .copied()
        .find(|mv| mv.captured.count_ones() == 1)
        .unwrap();
    let long = moves
        .iter()
        .copied()
        .find(|mv| mv.captured.count_ones() == 5)
        .unwrap();
    assert_eq!(pos.move_to_string(&RUSSIAN, &short), "c3:e1");
    assert_eq!(pos.parse_move(&RUSSIAN, "c3:e1"), Ok(short));
    assert_eq!(pos.parse_move(&RUSSIAN, "c3:e5:c7:a5:c3:e1"), Ok(long));
    assert_eq!(pos.parse_move(&RUSSIAN, "c3:a5:c7:e5:c3:e1"), Ok(long));
    assert_eq!(pos.parse_move(&RUSSIAN, "c3-e5-c7-a5-c3-e1"), Ok(long));
    // Some landing squares but not all: no path matches.
    assert!(matches!(
        move_err(&pos, &RUSSIAN, "c3:e5:c7:e1"),
        MoveError::Illegal { .. }
    ));
    let long_text = pos.move_to_string(&RUSSIAN, &long);
    assert!(
        long_text == "c3:e5:c7:a5:c3:e1" || long_text == "c3:a5:c7:e5:c3:e1",
        "{long_text}"
    );
    assert_eq!(pos.parse_move(&RUSSIAN, &long_text), Ok(long));

    assert_eq!(pos.legal_moves(&BRAZILIAN), vec![long]);
    assert_eq!(pos.parse_move(&BRAZILIAN, "22:31"), Ok(long));
}

/// Positions for move round trips: the perft suite (kings, long multi-captures, both sides to
/// move) and some hand-made ones with several paths to one move or several moves between the
/// same two squares.
fn round_trip_positions() -> Vec<(Variant, Position)> {
    let mut positions = Vec::new();
    for line in include_str!("../data/perft-suite.jsonl").lines() {
        let entry: serde_json::Value = serde_json::from_str(line).unwrap();
        let variant: Variant = entry["variant"].as_str().unwrap().parse().unwrap();
        let pos = parse(entry["fen"].as_str().unwrap(), &variant);
        positions.push((variant, pos));
        // The suite has no Spanish entries of its own; Portuguese positions serve for both.
        if variant == PORTUGUESE {
            positions.push((SPANISH, pos));
        }
    }
    for variant in ALL {
        positions.push((variant, Position::INITIAL));
        positions.push((variant, Position::INITIAL.color_flipped()));
        // Rings of four Black men around c3-e5-c7-a5, with a king or a man on c3, either side.
        for fen in [
            "W:WK22:B18,10,9,17",
            "W:W22:B18,10,9,17",
            "W:WK22,25,26:B18,10,9,17",
            "W:WK29:B22,27,6",
            "W:WK29:B18,7,6,23",
        ] {
            // The same positions in every variant (written in Brazilian numbering).
            let pos = parse(fen, &BRAZILIAN);
            positions.push((variant, pos));
            positions.push((variant, pos.color_flipped()));
        }
    }
    positions
}

/// For every legal move of many positions, in every variant: the printed move reads back as the
/// same move, every path of it reads back as it, and it is printed along one of its paths.
#[test]
fn move_strings_round_trip() {
    let mut checked = 0;
    let mut captures = 0;
    let mut long = 0;
    for (variant, pos) in round_trip_positions() {
        for mv in pos.legal_moves(&variant) {
            let text = pos.move_to_string(&variant, &mv);
            assert_eq!(
                pos.parse_move(&variant, &text),
                Ok(mv),
                "{variant} {} {text}",
                pos.to_fen(&variant)
            );
            let paths = pos.move_paths(&variant, &mv);
            assert!(!paths.is_empty());
            let sep = if mv.is_capture() {
                if IBERIAN.contains(&variant) {
                    "x"
                } else {
                    ":"
                }
            } else {
                "-"
            };
            let square = |s: u8| -> String {
                if variant == RUSSIAN {
                    dprobe::notation::algebraic(s)
                } else {
                    variant.notation.numbering.number(s).to_string()
                }
            };
            let printed: Vec<String> = paths
                .iter()
                .map(|p| p.iter().map(|&s| square(s)).collect::<Vec<_>>().join(sep))
                .collect();
            assert!(
                printed.contains(&text),
                "{variant} {text} not among {printed:?}"
            );
            for path in &printed {
                assert_eq!(pos.parse_move(&variant, path), Ok(mv), "{variant} {path}");
            }
            checked += 1;
            if mv.is_capture() {
                captures += 1;
                if mv.captured.count_ones() >= 3 {
                    long += 1;
                }
            }
        }
    }
    assert!(checked > 5000, "{checked}");
    assert!(captures > 1000, "{captures}");
    assert!(long > 100, "{long}");
}

/// Move errors: malformed text, a move that is not legal, a move that is ambiguous without its
/// intermediate squares.
#[test]
fn move_errors() {
    let pos = Position::INITIAL;
    for variant in ALL {
        for text in [
            "",
            "   ",
            "c3",
            "22",
            "c3-",
            "-d4",
            "c3--d4",
            "c3-d4-",
            "z9-d4",
            "0-5",
            "33-1",
            "a2-b3",
            "c3 d4",
            "c3/d4",
            "c3-d4!",
            "22-18a",
            "99999999999-1",
        ] {
            assert!(
                matches!(move_err(&pos, &variant, text), MoveError::Malformed { .. }),
                "{variant} {text:?}"
            );
        }
        // Well-formed but not legal: a square nobody moves from/to, a capture where none exists,
        // a backward move, the opponent's move, a quiet move with a square in between.
        let illegal = match variant.name {
            "russian" => [
                "c3-c5", "c3:e5", "b2-c3", "a1-b2", "b6-a5", "c3-b4-a5", "c1-c1",
            ],
            "brazilian" => [
                "22-14", "22:15", "25-22", "29-25", "9-13", "22-17-13", "30-30",
            ],
            _ => ["10-18", "10x19", "5-10", "1-5", "21-17", "10-13-17", "2-2"],
        };
        for text in illegal {
            match move_err(&pos, &variant, text) {
                MoveError::Illegal { text: t, legal } => {
                    assert_eq!(t, text);
                    assert_eq!(legal.split(", ").count(), 7, "{legal}");
                }
                other => panic!("{variant} {text}: {other:?}"),
            }
        }
    }
    // Nothing is legal when there is no move at all.
    let none = parse("W:W:B1", &BRAZILIAN);
    assert!(matches!(
        move_err(&none, &BRAZILIAN, "22-18"),
        MoveError::Illegal { .. }
    ));

    // Portuguese/Spanish man ring: from c3 (10) two different captures end on c7 (26), over
    // d4 (14) and d6 (22) by e5 (19), or over b4 (13) and b6 (21) by a5 (17).
    for variant in IBERIAN {
        let pos = parse("W:W10:B13,14,21,22", &variant);
        match move_err(&pos, &variant, "10x26") {
            MoveError::Ambiguous { text, candidates } => {
                assert_eq!(text, "10x26");
                let mut c: Vec<&str> = candidates.split(", ").collect();
                c.sort();
                assert_eq!(c, ["10x17x26", "10x19x26"]);
            }
            other => panic!("{other:?}"),
        }
        let by_e5 = pos.parse_move(&variant, "10x19x26").unwrap();
        let by_a5 = pos.parse_move(&variant, "10-17-26").unwrap();
        assert_ne!(by_e5, by_a5);
        // A wrong intermediate square matches neither.
        assert!(matches!(
            move_err(&pos, &variant, "10x20x26"),
            MoveError::Illegal { .. }
        ));
        assert!(matches!(
            move_err(&pos, &variant, "10x19x17x26"),
            MoveError::Illegal { .. }
        ));
    }
    // Russian: king a1 takes c3 and may land d4, e5 or f6 (own man on g7): three moves; a
    // landing beyond the own man, or a quiet move, is not legal.
    let pos = parse("W:WKa1,g7:Bc3", &RUSSIAN);
    assert_eq!(move_strings(&pos, &RUSSIAN), ["a1:d4", "a1:e5", "a1:f6"]);
    assert!(matches!(
        move_err(&pos, &RUSSIAN, "a1:g7"),
        MoveError::Illegal { .. }
    ));
    assert!(matches!(
        move_err(&pos, &RUSSIAN, "a1-b2"),
        MoveError::Illegal { .. }
    ));
}

/// Move strings of moves that are legal in another position: junk input never panics.
#[test]
fn move_junk_never_panics() {
    let pos = parse("W:WK22:B18,10,9,17", &BRAZILIAN);
    let pieces = [
        "", "-", ":", "x", "22", "c3", "0", "33", "a2", "K", "é", "  ",
    ];
    for variant in ALL {
        for a in pieces {
            for b in pieces {
                for c in pieces {
                    let _ = pos.parse_move(&variant, &format!("{a}{b}{c}"));
                    let _ = pos.parse_move(&variant, &format!("{a}-{b}x{c}"));
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Diagram.

/// A simple position drawn from White's side: `w`/`b` men, `W`/`B` kings, `.` empty dark squares,
/// light squares blank, rank numbers on the left, files below, the variant's numbers on the right.
/// White man c3, White king h2, Black man b6, Black king e7, Black to move.
#[test]
fn diagram() {
    let pos = parse("B:Wc3,Kh2:Bb6,Ke7", &RUSSIAN);
    let text = pos.diagram(&BRAZILIAN);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 10, "{text}");
    assert_eq!(lines[0], "8    .   .   .   .     1  2  3  4");
    assert_eq!(lines[1], "7  .   .   B   .       5  6  7  8");
    assert_eq!(lines[2], "6    b   .   .   .     9 10 11 12");
    assert_eq!(lines[5], "3  .   w   .   .      21 22 23 24");
    assert_eq!(lines[6], "2    .   .   .   W    25 26 27 28");
    assert_eq!(lines[8], "   a b c d e f g h");
    assert_eq!(lines[9], "Black to move");
    // On the board itself (the first 8 lines, before the numbers): one piece of each kind and
    // 28 empty dark squares.
    let board: String = lines[..8]
        .iter()
        .map(|l| &l[2..18])
        .collect::<Vec<_>>()
        .concat();
    for (c, n) in [('w', 1), ('W', 1), ('b', 1), ('B', 1), ('.', 28)] {
        assert_eq!(board.chars().filter(|&x| x == c).count(), n, "{c}\n{text}");
    }
    // Portuguese numbers in the margin; White to move.
    let text = Position::INITIAL.diagram(&PORTUGUESE);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "8    b   b   b   b    29 30 31 32");
    assert_eq!(lines[7], "1  w   w   w   w       1  2  3  4");
    assert_eq!(lines[9], "White to move");
}

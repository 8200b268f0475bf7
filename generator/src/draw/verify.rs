//! The independent consistency check of rule tables (`docs/DRAW_RULES.md` §3.7): every stored
//! quantity of a `.rules` file — the result with fresh counts and every threshold of every plane
//! of every family — must be what the one-ply equations of the game under the counted rules give
//! from the values the files store for the children.
//!
//! It shares nothing with the rule solver: it reads the pure tables, the rule files through the
//! probe's decoding, and plays the moves with the probe's move generator and
//! [`DrawState::after`]. As the probe, it reads no family entry of a capture position or a pure
//! draw (the files leave them unspecified): a capture position's value is its fresh result
//! unless a count is at its limit, a pure draw's a draw.
//!
//! What is checked per position, and why a table that passes is exact, is in
//! `docs/DRAW_RULES.md` §3.7.

use std::fmt;

use dprobe::{
    draw::{DrawState, MaterialShape, PlaneKind, MAX_STORED, NEVER},
    index::{Signature, TableIndex},
    rules::{has_capture, legal_moves, Board, MoveRules},
    DrawRules, DrawWdl, Move, Position, Variant, Wdl,
};
use rayon::prelude::*;

use crate::pure::tableset::TableSet;
use crate::Error;

use super::tables::{budget_cap, corrupt, family_name, DrawTables, Side};

/// What a stored quantity is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DrawQuantity {
    /// The result with every count at its start, `state`.
    Fresh {
        /// The fresh state of the position.
        state: DrawState,
    },
    /// The least budget with which the pure winner wins, in one family.
    Threshold {
        /// The family after the condition counter started (`false`: before it, or the only one).
        post: bool,
        /// What the family's planes hold.
        kind: PlaneKind,
        /// For layers, the budget `A` of the layer (the plane read is the last one past them).
        a: Option<u16>,
    },
    /// The result with fresh counts of a capture or crowning of a material whose file holds no
    /// family, saying the rules leave it as the pure game has it: it must be its pure result,
    /// or the rules could change the material's values.
    ExitOfPureMaterial,
    /// The result with fresh counts under one counter alone (`dtb stats`' `turned_by`). It is not
    /// recomputed (no planes are stored for it): it must lie between the result under all the
    /// rules and the pure game's, since removing counters only brings results closer to the pure
    /// game.
    Alone {
        /// The counter's id.
        counter: &'static str,
    },
}

impl fmt::Display for DrawQuantity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DrawQuantity::Fresh { state } => {
                write!(f, "result with fresh counts ({}", family_name(state.post))?;
                if let Some(a) = state.a {
                    write!(f, ", A={a}")?;
                }
                if let Some(z) = state.z {
                    write!(f, ", Z={z}")?;
                }
                f.write_str(")")
            }
            DrawQuantity::Threshold { post, kind, a } => {
                let family = family_name(*post);
                match (kind, a) {
                    (PlaneKind::LayersAz, Some(a)) => write!(f, "{family} least Z at A={a}"),
                    (PlaneKind::ThresholdZ, _) => write!(f, "{family} least Z"),
                    (PlaneKind::Distance, _) => write!(f, "{family} distance"),
                    _ => write!(f, "{family} least A"),
                }
            }
            DrawQuantity::Alone { counter } => {
                write!(f, "result with fresh counts under {counter} alone")
            }
            DrawQuantity::ExitOfPureMaterial => {
                write!(f, "result of an exit of a material stored as pure")
            }
        }
    }
}

/// A stored or recomputed value of a [`DrawQuantity`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DrawValue {
    /// A result with fresh counts.
    Result(DrawWdl),
    /// A threshold in plies, `None` for never; past [`NEVER`]` − 1` it does not fit a plane.
    Threshold(Option<u16>),
}

impl fmt::Display for DrawValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DrawValue::Result(result) => f.write_str(result.name()),
            DrawValue::Threshold(None) => f.write_str("never"),
            DrawValue::Threshold(Some(n)) if *n > MAX_STORED => {
                write!(f, "more than {MAX_STORED} (does not fit)")
            }
            DrawValue::Threshold(Some(n)) => write!(f, "{n}"),
        }
    }
}

/// One stored quantity of a rule table that is not what its moves give.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DrawInconsistency {
    /// Its table.
    pub signature: Signature,
    /// The position's index.
    pub index: u64,
    /// The position, White to move, in the variant's notation.
    pub fen: String,
    /// Which quantity.
    pub quantity: DrawQuantity,
    /// What the table holds.
    pub stored: DrawValue,
    /// What the moves give.
    pub expected: DrawValue,
}

/// A move of the position being checked, gathered once and evaluated in every state.
#[derive(Clone, Copy)]
struct Child {
    /// The position after the move, from its mover's view.
    board: Board,
    /// Its index in the colour-flipped table (quiet moves).
    index: usize,
    /// A man moved.
    man: bool,
    /// For an exit, the child's result with fresh counts, for its mover.
    exit: Option<Wdl>,
    /// For a quiet move to a position with a capture, that position's result with fresh
    /// counts, for its mover: its value in every state not at a limit.
    capture: Option<Wdl>,
}

/// Working space of one thread, reused from position to position.
#[derive(Default)]
struct Scratch {
    moves: Vec<Move>,
    children: Vec<Child>,
}

/// The budget a threshold is counted in, for one plane.
#[derive(Clone, Copy)]
struct Budget {
    post: bool,
    kind: PlaneKind,
    /// The layer's `A` (layers only).
    layer: Option<u16>,
    /// The largest budget that occurs.
    cap: u16,
}

impl Budget {
    /// The state with `budget` plies (`None`: more than any, only for a distance).
    fn state(&self, budget: Option<u16>) -> DrawState {
        let (a, z) = match self.kind {
            PlaneKind::ThresholdA | PlaneKind::Distance => (budget, None),
            PlaneKind::ThresholdZ => (None, budget),
            PlaneKind::LayersAz => (self.layer, budget),
        };
        DrawState {
            post: self.post,
            a,
            z,
        }
    }

    /// The state that must be a draw for an entry "never".
    fn beyond(&self) -> DrawState {
        match self.kind {
            PlaneKind::Distance => self.state(None),
            _ => self.state(Some(self.cap)),
        }
    }
}

/// Everything a check reads: the signature's side, its colour flip and the smaller tables.
struct Checker<'a> {
    rules: &'a MoveRules,
    tables: &'a DrawTables,
    own: &'a Side,
    partner: &'a Side,
    /// The shapes of the two sides under the counters that decide the positions checked: all
    /// of them, or those left where the pure result sets a count aside ([`DrawRules::set_aside`]).
    own_shape: MaterialShape,
    partner_shape: MaterialShape,
    /// The positions checked have a count set aside: their `post` planes are never read.
    sets_aside: bool,
    fresh: &'a [u8],
    /// Per family: largest `A` (either side), and the layers to check.
    a_caps: [u16; 2],
    last_layers: [u16; 2],
    z_cap: u16,
}

impl Checker<'_> {
    /// The value of `state` for the mover of the position whose moves are `children`.
    fn value(&self, children: &[Child], state: &DrawState) -> Wdl {
        if children.is_empty() {
            return Wdl::Loss;
        }
        if state.at_limit() {
            return Wdl::Draw;
        }
        let mut best = Wdl::Loss;
        for child in children {
            let theirs = match child.exit {
                Some(result) => result,
                None => {
                    let next = state.after(&self.partner_shape, &child.board, child.man);
                    match child.capture {
                        Some(_) if next.at_limit() => Wdl::Draw,
                        Some(fresh) => fresh,
                        None => self.stored_value(child.index, &next),
                    }
                }
            };
            best = best.max(-theirs);
            if best == Wdl::Win {
                break;
            }
        }
        best
    }

    /// The value the partner table stores for its position `index`, one without a capture, in
    /// `state`, for its mover.
    #[inline]
    fn stored_value(&self, index: usize, state: &DrawState) -> Wdl {
        let pure = self.partner.pure[index];
        // A material stored as pure keeps its pure values in every state (its own check makes
        // sure its exits allow no other).
        if pure == Wdl::Draw || self.partner.as_pure {
            return pure;
        }
        // Both tables were checked to hold the families their material needs, and `after`
        // only starts the condition where the material has one.
        let wins = self
            .partner
            .family(state.post)
            .is_some_and(|rows| rows.wins(index, state));
        if wins {
            pure
        } else {
            Wdl::Draw
        }
    }

    /// Fills `scratch.children` with the moves of `board`; `false` if an exit's table is not
    /// read (the caller reports it).
    fn gather(&self, board: &Board, scratch: &mut Scratch) -> bool {
        scratch.moves.clear();
        scratch.children.clear();
        legal_moves(board, self.rules, &mut scratch.moves);
        for mv in &scratch.moves {
            let child = board.play(mv);
            let exit = mv.is_capture() || mv.crowned;
            let (index, exit, capture) = if exit {
                match self.tables.fresh_of(&child) {
                    Some(result) => (0, Some(result), None),
                    None => return false,
                }
            } else {
                let capture = if has_capture(&child, self.rules) {
                    match self.tables.fresh_of(&child) {
                        Some(result) => Some(result),
                        None => return false,
                    }
                } else {
                    None
                };
                (self.partner.index.index(&child) as usize, None, capture)
            };
            scratch.children.push(Child {
                board: child,
                index,
                man: board.men & (1 << mv.from) != 0,
                exit,
                capture,
            });
        }
        true
    }

    /// Checks every stored quantity of position `index`, pushing what is inconsistent.
    fn check(
        &self,
        index: usize,
        scratch: &mut Scratch,
        found: &mut Vec<(DrawQuantity, DrawValue, DrawValue)>,
    ) -> Result<(), Error> {
        let board = self.own.index.board(index as u64);
        let pure = self.own.pure[index];
        let fresh_state = self.own_shape.fresh(&board);
        let stored_fresh = DrawWdl::from_code(self.fresh[index]).unwrap_or(DrawWdl::Draw);
        let fresh = DrawQuantity::Fresh { state: fresh_state };
        if pure == Wdl::Draw {
            // A draw in every state: its family entries are not read.
            if stored_fresh != DrawWdl::Draw {
                found.push((
                    fresh,
                    DrawValue::Result(stored_fresh),
                    DrawValue::Result(DrawWdl::Draw),
                ));
            }
            return Ok(());
        }
        if !self.gather(&board, scratch) {
            return Err(Error::Invariant(format!(
                "{}: an exit leads to a rule table that is not read",
                self.own.signature
            )));
        }
        let children = &scratch.children;

        let value = self.value(children, &fresh_state);
        let expected_fresh = match (pure, value) {
            (_, Wdl::Win) => DrawWdl::Win,
            (_, Wdl::Loss) => DrawWdl::Loss,
            (Wdl::Win, Wdl::Draw) => DrawWdl::CursedWin,
            (_, Wdl::Draw) => DrawWdl::BlessedLoss,
        };
        // The pure loser winning under the rules contradicts the pure tables: always reported.
        if stored_fresh != expected_fresh || value == -pure {
            found.push((
                fresh,
                DrawValue::Result(stored_fresh),
                DrawValue::Result(expected_fresh),
            ));
        }
        // With no count in the material, its values are the pure game's with its exits read
        // under the rules: where no exit's result is turned they are the pure values, what
        // the file says (and the fresh check above compared). Without this a cycle of
        // positions could keep a win whose only way out the rules have turned.
        if self.own.as_pure {
            // Its pure result, where the check above, reading a turned exit, agreed with
            // another (the exit is reported below).
            if stored_fresh.wdl() != pure && stored_fresh == expected_fresh {
                found.push((
                    fresh,
                    DrawValue::Result(stored_fresh),
                    DrawValue::Result(DrawWdl::unturned(pure)),
                ));
            }
            for child in children {
                let Some(_) = child.exit else { continue };
                let result = self.tables.fresh_result_of(&child.board);
                if let Some(turned) = result.filter(|r| r.wdl() != r.pure()) {
                    found.push((
                        DrawQuantity::ExitOfPureMaterial,
                        DrawValue::Result(turned),
                        DrawValue::Result(DrawWdl::unturned(turned.pure())),
                    ));
                }
            }
            return Ok(());
        }
        // A capture position's value is its fresh result in every state not at a limit: its
        // family entries are not read.
        if scratch.moves.first().is_some_and(Move::is_capture) {
            return Ok(());
        }

        for post in [false, true] {
            if post && self.sets_aside {
                self.require_never(index, post, found);
                continue;
            }
            let Some(rows) = self.own.family(post) else {
                continue;
            };
            let p = usize::from(post);
            let budget = |layer: Option<u16>, cap: u16| Budget {
                post,
                kind: rows.kind,
                layer,
                cap,
            };
            match rows.kind {
                PlaneKind::LayersAz => {
                    let layer = |a: u16| budget(Some(a), a.min(self.z_cap));
                    for (from, to, entry) in Runs::new(rows.corners(index), self.last_layers[p]) {
                        if !self.run_holds(children, pure, entry, layer(from), layer(to)) {
                            // Name the layers that fail, one by one.
                            let before = found.len();
                            for a in from..=to {
                                self.check_threshold(children, pure, entry, layer(a), found);
                            }
                            if found.len() == before {
                                return Err(Error::Invariant(format!(
                                    "{} index {index}: layers {from} to {to} fail together \
                                     but not one by one (the equations are not monotone in A)",
                                    self.own.signature
                                )));
                            }
                        }
                    }
                }
                PlaneKind::ThresholdA => {
                    let cap = budget(None, self.a_caps[p]);
                    self.check_threshold(children, pure, rows.at(index, 0), cap, found);
                }
                PlaneKind::ThresholdZ => {
                    let cap = budget(None, self.z_cap);
                    self.check_threshold(children, pure, rows.at(index, 0), cap, found);
                }
                PlaneKind::Distance => {
                    let cap = budget(None, MAX_STORED);
                    self.check_threshold(children, pure, rows.at(index, 0), cap, found);
                }
            }
        }
        Ok(())
    }

    /// Requires every entry of a family of position `index` that no state reads to be "never".
    fn require_never(
        &self,
        index: usize,
        post: bool,
        found: &mut Vec<(DrawQuantity, DrawValue, DrawValue)>,
    ) {
        let Some(rows) = self.own.family(post) else {
            return;
        };
        for plane in 0..rows.planes {
            let entry = rows.at(index, plane);
            if entry != NEVER {
                let quantity = DrawQuantity::Threshold {
                    post,
                    kind: rows.kind,
                    a: (rows.kind == PlaneKind::LayersAz).then_some(plane as u16),
                };
                found.push((
                    quantity,
                    DrawValue::Threshold(Some(entry.into())),
                    DrawValue::Threshold(None),
                ));
            }
        }
    }

    /// Whether the layers from `first` to `last` of a family of layers, which hold the same
    /// least `Z` (`entry`), are consistent. The equations are monotone in `A` as in `Z` (a
    /// larger budget gives every child a larger or equal one, and every child's staircase only
    /// falls), and give the pure winner a win or a draw, so the first layer winning with
    /// `entry` shows that every layer of the run does, and the last drawing with one ply less
    /// that none wins with less: two equations per run where one layer at a time takes two per
    /// layer ("never": the last layer drawing at its largest `Z`).
    fn run_holds(
        &self,
        children: &[Child],
        pure: Wdl,
        entry: u8,
        first: Budget,
        last: Budget,
    ) -> bool {
        if entry == NEVER {
            return self.value(children, &last.beyond()) == Wdl::Draw;
        }
        let t = u16::from(entry);
        t <= first.cap
            && self.value(children, &first.state(Some(t))) == pure
            && (t == 0 || self.value(children, &last.state(Some(t - 1))) == Wdl::Draw)
    }

    /// Checks one stored threshold `entry` of the pure winner (`pure` is the mover's pure
    /// result): the winner wins with it and not with one ply less; "never" is a draw at the
    /// largest budget.
    fn check_threshold(
        &self,
        children: &[Child],
        pure: Wdl,
        entry: u8,
        budget: Budget,
        found: &mut Vec<(DrawQuantity, DrawValue, DrawValue)>,
    ) {
        let consistent = if entry == NEVER {
            self.value(children, &budget.beyond()) == Wdl::Draw
        } else {
            let t = u16::from(entry);
            t <= budget.cap
                && self.value(children, &budget.state(Some(t))) == pure
                && (t == 0 || self.value(children, &budget.state(Some(t - 1))) == Wdl::Draw)
        };
        if consistent {
            return;
        }
        // The least budget that wins: only computed for a report.
        let expected = (0..=budget.cap)
            .find(|&b| self.value(children, &budget.state(Some(b))) == pure)
            .or_else(|| {
                (budget.kind == PlaneKind::Distance
                    && self.value(children, &budget.state(None)) == pure)
                    .then_some(budget.cap + 1)
            });
        found.push((
            DrawQuantity::Threshold {
                post: budget.post,
                kind: budget.kind,
                a: budget.layer,
            },
            DrawValue::Threshold((entry != NEVER).then_some(entry.into())),
            DrawValue::Threshold(expected),
        ));
    }
}

/// The runs of layers `0..=last` over which a staircase holds the same value, as
/// `(first layer, last layer, value)`: [`NEVER`] before its first corner. Corners past `last`
/// are not read, as no state reads them.
struct Runs<I> {
    corners: I,
    /// The run under way: its first layer and value; `None` once the last is given.
    run: Option<(u16, u8)>,
    last: u16,
}

impl<I: Iterator<Item = (u16, u8)>> Runs<I> {
    fn new(corners: I, last: u16) -> Self {
        Runs {
            corners,
            run: Some((0, NEVER)),
            last,
        }
    }
}

impl<I: Iterator<Item = (u16, u8)>> Iterator for Runs<I> {
    type Item = (u16, u16, u8);

    fn next(&mut self) -> Option<(u16, u16, u8)> {
        loop {
            let (from, value) = self.run?;
            match self.corners.next().filter(|&(layer, _)| layer <= self.last) {
                // Layers rise from corner to corner; only a first corner at layer 0 starts
                // where the run of "never" does, leaving it empty.
                Some((layer, next)) => {
                    self.run = Some((layer, next));
                    if layer > from {
                        return Some((from, layer - 1, value));
                    }
                }
                None => {
                    self.run = None;
                    return Some((from, self.last, value));
                }
            }
        }
    }
}

/// Checks every stored quantity of the rule table of `signature` (under the draw rules of
/// `tables`) against the one-ply equations; returns up to `limit` inconsistencies, first by
/// index. The pure tables are taken as exact ([`crate::pure::verify::verify_table`] checks them).
///
/// # Errors
///
/// A missing or damaged pure or rule table of the signature, its colour flip or a material its
/// exits lead to, or a rule table built under other draw rules.
pub fn verify_draw_table(
    pure: &TableSet,
    tables: &DrawTables,
    variant: &Variant,
    signature: Signature,
    limit: usize,
) -> Result<Vec<DrawInconsistency>, Error> {
    let shape_under =
        |draw: &DrawRules, s: Signature| MaterialShape::of(draw, s).map_err(Error::from);
    let shape_of = |s: Signature| shape_under(&tables.draw, s);
    // Read every fresh result an exit can lead to before the parallel pass: captures lead to
    // fewer pieces, crownings to fewer men.
    for pieces in 2..=signature.pieces() {
        for sig in Signature::with_pieces(pieces) {
            if sig.pieces() < signature.pieces()
                || sig.mover_men + sig.opp_men < signature.mover_men + signature.opp_men
            {
                tables.fresh(pure, sig)?;
            }
        }
    }
    let fresh = tables.fresh(pure, signature)?;
    let flipped = signature.flipped();
    // Quiet moves lead to the colour flip, whose capture positions are valued by their fresh
    // results.
    tables.fresh(pure, flipped)?;
    let shapes = [shape_of(signature)?, shape_of(flipped)?];
    let a_caps = [false, true].map(|post| {
        shapes
            .iter()
            .filter_map(|s| budget_cap(s, post))
            .max()
            .unwrap_or(0)
    });
    let z_cap = shapes.iter().filter_map(|s| s.z_full).max().unwrap_or(0);
    let own = Side::load(pure, tables, signature, shapes[0], a_caps, true)?;
    let partner_side;
    let partner = if flipped == signature {
        &own
    } else {
        // Its own check verifies its checksums.
        partner_side = Side::load(pure, tables, flipped, shapes[1], a_caps, false)?;
        &partner_side
    };

    // From this layer on, a layer's equations read the same planes and budgets as the one
    // before (every plane index, `Z` bound and condition budget has saturated), so the layers
    // after it repeat its check.
    let saturated = [&own, partner]
        .iter()
        .flat_map(|side| side.families.iter().flatten())
        .map(|rows| rows.planes as u16)
        .chain([z_cap, a_caps[1]])
        .max()
        .unwrap_or(0)
        + 1;
    let last_layers = a_caps.map(|cap| cap.min(saturated));
    let checker = Checker {
        rules: &variant.moves,
        tables,
        own: &own,
        partner,
        own_shape: shapes[0],
        partner_shape: shapes[1],
        sets_aside: false,
        fresh: &fresh.codes,
        a_caps,
        last_layers,
        z_cap,
    };
    // Positions whose pure result sets a count aside are checked without it.
    let mut aside_when = [false; 3];
    for pure in [Wdl::Loss, Wdl::Draw, Wdl::Win] {
        aside_when[pure as usize] = tables.draw.set_aside(&signature, pure).is_some();
    }
    let without = tables.draw.without_pure_value_limits();
    let aside_checker = Checker {
        own_shape: shape_under(&without, signature)?,
        partner_shape: shape_under(&without, flipped)?,
        sets_aside: true,
        ..checker
    };

    let parts = crate::pure::solve::chunks(own.index.size())
        .map_init(Scratch::default, |scratch, range| {
            let mut found = Vec::new();
            let mut here = Vec::new();
            for index in range {
                here.clear();
                let checker = if aside_when[own.pure[index as usize] as usize] {
                    &aside_checker
                } else {
                    &checker
                };
                checker.check(index as usize, scratch, &mut here)?;
                for &(quantity, stored, expected) in &here {
                    let board = own.index.board(index);
                    found.push(DrawInconsistency {
                        signature,
                        index,
                        fen: Position::from_board(&board, dprobe::Color::White).to_fen(variant),
                        quantity,
                        stored,
                        expected,
                    });
                }
                if found.len() >= limit {
                    break;
                }
            }
            Ok(found)
        })
        .collect::<Result<Vec<Vec<DrawInconsistency>>, Error>>()?;
    let mut found: Vec<DrawInconsistency> = parts.into_iter().flatten().collect();
    found.extend(check_alone(
        tables,
        variant,
        signature,
        &fresh.codes,
        limit,
    )?);
    found.sort_by_key(|i| i.index);
    found.truncate(limit);
    Ok(found)
}

/// Checks the results under each counter alone against the bounds of [`DrawQuantity::Alone`]:
/// the same pure result as under all the rules, and a draw only where all the rules draw too.
fn check_alone(
    tables: &DrawTables,
    variant: &Variant,
    signature: Signature,
    full: &[u8],
    limit: usize,
) -> Result<Vec<DrawInconsistency>, Error> {
    let file = tables.open(signature)?;
    let index = TableIndex::new(signature);
    let mut found = Vec::new();
    for k in 0..file.counters_alone() {
        let Some(codes) = file.fresh_results_alone(k, full) else {
            continue;
        };
        let codes = codes.map_err(corrupt)?;
        if codes.len() != full.len() {
            return Err(Error::Corrupt {
                path: tables.path(signature),
                reason: format!(
                    "{} results under counter {k} alone, expected {}",
                    codes.len(),
                    full.len()
                ),
            });
        }
        let counter = tables.draw.counters.get(k).map_or("?", |c| c.id);
        for (i, (&alone, &all)) in codes.iter().zip(full).enumerate() {
            let (Some(alone), Some(all)) = (DrawWdl::from_code(alone), DrawWdl::from_code(all))
            else {
                continue; // an unknown code is reported by the fresh check
            };
            let within = alone.pure() == all.pure() && (alone == all || all.wdl() != all.pure());
            if !within && found.len() < limit {
                let board = index.board(i as u64);
                found.push(DrawInconsistency {
                    signature,
                    index: i as u64,
                    fen: Position::from_board(&board, dprobe::Color::White).to_fen(variant),
                    quantity: DrawQuantity::Alone { counter },
                    stored: DrawValue::Result(alone),
                    expected: DrawValue::Result(all),
                });
            }
        }
    }
    Ok(found)
}

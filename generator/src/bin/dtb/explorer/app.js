// The explorer's page: draws the board of /api/variants' geometry, probes the position shown
// through /api/probe, and keeps variant, position and running counts in the URL so that a link
// shows the same position and the browser's back and forward buttons walk the moves played.
"use strict";

const SIZE = 50; // one square, in SVG units
const SVG = "http://www.w3.org/2000/svg";

const state = {
  variants: {},   // by name, as /api/variants gives them
  variant: "russian",
  fen: "",
  counts: "",     // running counts, as --counts takes them; "" = every count at its start
  pieces: new Map(), // square number -> { white, king }
  side: "W",
  probe: null,    // the last /api/probe answer for this position
  selected: null, // square number of the piece picked to move
  editing: false,
  tool: "wm",
  request: 0,     // answers to older requests are dropped
};

const $ = (id) => document.getElementById(id);

function el(name, attributes = {}, text) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

function html(name, attributes = {}, text) {
  const node = document.createElement(name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

// Reads a position string in the normal form the server writes (`W:W21,K30:B1,K5`).
function parseFen(fen) {
  const parts = fen.split(":");
  const pieces = new Map();
  for (const part of parts.slice(1)) {
    const white = part[0] === "W";
    for (const item of part.slice(1).split(",").filter((s) => s.length > 0)) {
      const king = item[0] === "K";
      pieces.set(parseInt(king ? item.slice(1) : item, 10), { white, king });
    }
  }
  return { side: parts[0] === "B" ? "B" : "W", pieces };
}

function writeFen(side, pieces) {
  const list = (white) => [...pieces.entries()]
    .filter(([, p]) => p.white === white)
    .sort(([a], [b]) => a - b)
    .map(([n, p]) => (p.king ? "K" : "") + n)
    .join(",");
  return `${side}:W${list(true)}:B${list(false)}`;
}

function variant() {
  return state.variants[state.variant];
}

function drawBoard() {
  const board = $("board");
  board.replaceChildren();
  const info = variant();
  if (!info) return;
  const moves = state.probe ? state.probe.moves : [];
  const targets = new Set(moves.filter((m) => m.from === state.selected).map((m) => m.to));
  for (let row = 0; row < 8; row++) {
    for (let column = 0; column < 8; column++) {
      board.append(el("rect", { x: column * SIZE, y: (7 - row) * SIZE, width: SIZE, height: SIZE, class: "light" }));
    }
  }
  for (const square of info.squares) {
    const x = square.column * SIZE;
    const y = (7 - square.row) * SIZE;
    let kind = "dark";
    if (square.number === state.selected) kind = "from";
    else if (targets.has(square.number)) kind = "to";
    board.append(el("rect", { x, y, width: SIZE, height: SIZE, class: kind }));
    if ($("numbers").checked) {
      board.append(el("text", { x: x + 3, y: y + 12, class: "number" }, square.number));
    }
    const piece = state.pieces.get(square.number);
    if (piece) {
      const cx = x + SIZE / 2;
      const cy = y + SIZE / 2;
      const color = piece.white ? "white" : "black";
      board.append(el("circle", { cx, cy, r: 19, class: `piece ${color}`, "data-piece": square.number }));
      if (piece.king) board.append(el("circle", { cx, cy, r: 10, class: "crown" }));
    }
    // Topmost, so that a click anywhere on the square reaches it.
    const hit = el("rect", { x, y, width: SIZE, height: SIZE, class: "hit", "data-square": square.number });
    hit.addEventListener("click", () => clickSquare(square.number));
    board.append(hit);
  }
  // File letters and rank digits as the variant's players see the board.
  for (let i = 0; i < 8; i++) {
    const file = info.squares.find((s) => s.column === i);
    const letter = file ? file.name.match(/^[a-h]/) : null;
    if (letter) board.append(el("text", { x: i * SIZE + SIZE / 2 - 3, y: 8 * SIZE + 14, class: "coord" }, letter[0]));
    board.append(el("text", { x: -14, y: (7 - i) * SIZE + SIZE / 2 + 4, class: "coord" }, i + 1));
  }
}

function valueText(wdl, dtw) {
  if (wdl === "draw") return "Draw";
  return `${wdl === "win" ? "Win" : "Loss"} in ${dtw} plies`;
}

function span(text, kind) {
  return html("span", { class: kind }, text);
}

function showMessage(text) {
  const box = $("message");
  box.textContent = text || "";
  box.hidden = !text;
}

function showProbe() {
  const data = state.probe;
  const value = $("value");
  value.replaceChildren();
  $("moves").tBodies[0].replaceChildren();
  $("line").replaceChildren();
  if (!data) return;
  const side = data.fen.startsWith("B") ? "Black" : "White";
  value.append(`${side} to move: `, span(valueText(data.wdl, data.dtw), data.wdl), " (pure game)");
  const rules = html("div", { class: "rules" });
  if (data.result) {
    const left = [];
    if (data.budgets.A !== null) left.push(`${data.budgets.A} plies left on the counters that never reset`);
    if (data.budgets.Z !== null) left.push(`${data.budgets.Z} until a man move or capture is due`);
    rules.append(`Under the ${data.draw_rules} rules: `, span(data.result_now, data.result_now),
      " with the running counts", left.length ? ` (${left.join("; ")})` : "",
      "; ", span(data.result, data.result), " with every count at its start.");
  } else if (data.rules_unavailable) {
    rules.append(`Counted rules: unavailable (${data.rules_unavailable}).`);
  }
  value.append(rules);
  if (data.moves.length === 0) value.append(html("div", {}, `No legal move: ${side} has lost.`));
  for (const move of data.moves) {
    const row = html("tr", { "data-move": move.move });
    row.append(html("td", {}, move.move));
    const pure = html("td");
    pure.append(span(valueText(move.wdl, move.dtw), move.wdl));
    row.append(pure);
    const counted = html("td");
    if (move.result_now) {
      counted.append(span(move.result_now, move.result_now));
      if (move.result !== move.result_now) counted.append(` (fresh counts: ${move.result})`);
    }
    row.append(counted);
    row.addEventListener("click", () => play(move));
    $("moves").tBodies[0].append(row);
  }
  (data.line || []).forEach((move, i) => {
    const item = html("li", {}, move);
    item.addEventListener("click", () => {
      const counts = data.line_counts ? data.line_counts[i] : "";
      go(state.variant, data.line_fens[i], counts, true);
    });
    $("line").append(item);
  });
  if (data.line && data.line.length === 0) $("line").append(html("li", {}, data.wdl === "draw" ? "none: a draw never ends" : "none: no legal move"));
}

function play(move) {
  go(state.variant, move.fen, move.counts || "", true);
}

function clickSquare(number) {
  if (state.editing) {
    const current = state.pieces.get(number);
    const wanted = { wm: { white: true, king: false }, wk: { white: true, king: true },
      bm: { white: false, king: false }, bk: { white: false, king: true } }[state.tool];
    if (!wanted || (current && current.white === wanted.white && current.king === wanted.king)) {
      state.pieces.delete(number);
    } else {
      state.pieces.set(number, wanted);
    }
    go(state.variant, writeFen(state.side, state.pieces), "", true);
    return;
  }
  const moves = state.probe ? state.probe.moves : [];
  if (state.selected !== null) {
    const chosen = moves.filter((m) => m.from === state.selected && m.to === number);
    if (chosen.length === 1) {
      play(chosen[0]);
      return;
    }
    if (chosen.length > 1) {
      showMessage("Several captures go from that square to this one: choose one in the list of moves.");
      return;
    }
  }
  state.selected = moves.some((m) => m.from === number) ? number : null;
  drawBoard();
}

// Shows a position: the URL first (pushed as a new history entry with `push`), then the board
// and the probe's answer.
async function go(variantName, fen, counts, push) {
  state.variant = variantName;
  state.fen = fen;
  state.counts = counts;
  state.selected = null;
  const query = new URLSearchParams({ variant: variantName, fen });
  if (counts) query.set("counts", counts);
  const url = `?${query}`;
  if (push) history.pushState(null, "", url);
  else history.replaceState(null, "", url);
  $("variant").value = variantName;
  const info = variant();
  $("rules").textContent = info ? `${info.rules} move rules, ${info.draw_rules} draw rules, tables up to ${info.max_pieces} pieces` : "";
  $("fen").value = fen;
  $("counts").value = counts;
  const request = ++state.request;
  let data;
  let failed = false;
  try {
    query.set("line", "1");
    const response = await fetch(`/api/probe?${query}`);
    data = await response.json();
    failed = !response.ok;
  } catch (error) {
    data = { error: `the server did not answer (${error})` };
    failed = true;
  }
  if (request !== state.request) return;
  state.probe = failed ? null : data;
  showMessage(failed ? data.error : "");
  const shown = data.fen || (failed ? null : fen);
  if (shown) {
    const parsed = parseFen(shown);
    state.pieces = parsed.pieces;
    state.side = parsed.side;
    $("fen").value = shown;
  }
  $("side").value = state.side;
  drawBoard();
  showProbe();
  // What the page shows, for tests that wait for it.
  document.body.dataset.shown = shown || "";
}

function fromUrl() {
  const query = new URLSearchParams(location.search);
  let name = query.get("variant") || "russian";
  if (!state.variants[name]) name = "russian";
  const fen = query.get("fen") || state.variants[name].default_fen;
  go(name, fen, query.get("counts") || "", false);
}

async function find(event) {
  event.preventDefault();
  const query = new URLSearchParams({
    variant: state.variant, table: $("table").value.trim(), query: $("query").value, limit: $("limit").value,
  });
  const found = $("found");
  found.replaceChildren(html("p", {}, "Searching…"));
  const response = await fetch(`/api/find?${query}`);
  const data = await response.json();
  found.replaceChildren();
  if (!response.ok) {
    found.append(html("p", { class: "loss" }, data.error));
    return;
  }
  const link = (fen) => {
    const a = html("a", { "data-fen": fen }, fen);
    a.addEventListener("click", () => go(state.variant, fen, "", true));
    return a;
  };
  const table = html("table");
  const row = (...cells) => {
    const tr = html("tr");
    for (const cell of cells) {
      const td = html("td");
      td.append(cell);
      tr.append(td);
    }
    table.append(tr);
  };
  if (query.get("query") === "longest") {
    for (const win of data) row(`${win.plies} plies`, link(win.fen), span(win.line.join(" "), "line"));
  } else if (query.get("query") === "zugzwangs") {
    const total = data.zugzwangs.reduce((sum, z) => sum + z.positions, 0);
    found.append(html("p", {}, `${data.table}: ${total} mutual zugzwangs among ${data.quiet_positions} positions where neither side to move can capture.`));
    for (const z of data.zugzwangs) {
      found.append(html("p", {}, `${z.positions}: White to move ${z.with_the_move}s; were Black to move, White would ${z.without_the_move}.`));
    }
    for (const z of data.first) row(link(z.fen), `White to move: ${z.with_the_move}; Black to move: White ${z.without_the_move}s`);
  } else {
    found.append(html("p", {}, `${data.table} under the ${data.draw_rules} rules: ${data.cursed_wins} cursed wins, ${data.blessed_losses} blessed losses (White to move).`));
    for (const c of data.first) row(link(c.fen), span(c.result, c.result), c.by.length ? `by ${c.by.join(", ")}` : "only several counters together");
  }
  found.append(table);
}

function setUp() {
  $("variant").addEventListener("change", (e) => {
    const name = e.target.value;
    go(name, state.variants[name].default_fen, "", true);
  });
  $("back").addEventListener("click", () => history.back());
  $("forward").addEventListener("click", () => history.forward());
  $("numbers").addEventListener("change", drawBoard);
  $("edit").addEventListener("click", () => {
    state.editing = !state.editing;
    state.selected = null;
    $("edit").setAttribute("aria-pressed", state.editing);
    $("editor").hidden = !state.editing;
    drawBoard();
  });
  for (const button of document.querySelectorAll(".tool")) {
    button.addEventListener("click", () => {
      state.tool = button.dataset.tool;
      for (const other of document.querySelectorAll(".tool")) other.classList.toggle("selected", other === button);
    });
  }
  $("clear").addEventListener("click", () => go(state.variant, writeFen(state.side, new Map()), "", true));
  $("side").addEventListener("change", (e) => go(state.variant, writeFen(e.target.value, state.pieces), "", true));
  $("fen-form").addEventListener("submit", (e) => {
    e.preventDefault();
    go(state.variant, $("fen").value.trim(), "", true);
  });
  $("counts-form").addEventListener("submit", (e) => {
    e.preventDefault();
    go(state.variant, state.fen, $("counts").value.trim(), true);
  });
  $("find-form").addEventListener("submit", find);
  window.addEventListener("popstate", fromUrl);
}

async function start() {
  setUp();
  try {
    const response = await fetch("/api/variants");
    const data = await response.json();
    for (const v of data.variants) {
      state.variants[v.name] = v;
      $("variant").append(html("option", { value: v.name }, v.name[0].toUpperCase() + v.name.slice(1)));
    }
  } catch (error) {
    showMessage(`The server did not answer (${error}); is dtb serve still running?`);
    return;
  }
  fromUrl();
}

start();

//! `dtb serve`: a local web explorer over the tables, and the JSON API its page reads.
//!
//! The page, its script and its style sheet are compiled into the program, so the explorer works
//! offline. The API answers what `dtb probe --json` and `dtb find --json` print; every probe
//! runs on tokio's blocking pool, since a cold probe reads and decompresses a block.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::extract::{RawQuery, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use dprobe::rules::geometry::{file_of, rank_of};
use dprobe::rules::Numbering;
use dprobe::{Position, ProbeError, Tablebase, Variant};

use crate::demo::DEMO_FEN;
use crate::error::CliError;
use crate::find::{parse_table, search, Query};
use crate::probe::{open_tables, parse_counts, report, Counts};

/// The most rows a theory query lists: enough to browse, small enough to answer at once.
const MAX_LIMIT: usize = 500;

/// What the server holds: each variant's tables, opened once under its own draw rules.
struct Explorer {
    dir: PathBuf,
    /// By variant name; the error says why a variant has no tables.
    tables: HashMap<&'static str, Result<Tablebase, String>>,
}

/// A request refused, with its HTTP status and the message the page shows.
struct Refusal {
    status: StatusCode,
    message: String,
    /// The position in normal form, when it could be read (the page still draws it).
    fen: Option<String>,
}

impl Refusal {
    fn bad_request(message: impl Into<String>) -> Refusal {
        Refusal {
            status: StatusCode::BAD_REQUEST,
            message: message.into(),
            fen: None,
        }
    }
}

impl From<CliError> for Refusal {
    fn from(error: CliError) -> Refusal {
        Refusal {
            status: status_of(&error),
            message: error.to_string(),
            fen: None,
        }
    }
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        let mut body = serde_json::json!({ "error": self.message });
        if let Some(fen) = self.fen {
            body["fen"] = serde_json::json!(fen);
        }
        (self.status, Json(body)).into_response()
    }
}

/// 404 for tables that are not there, 400 for what the request got wrong, 500 for the rest
/// (a damaged file, a failed read).
fn status_of(error: &CliError) -> StatusCode {
    match error {
        CliError::NoTables { .. }
        | CliError::Probe(ProbeError::MissingTable { .. } | ProbeError::MissingDrawTable { .. })
        | CliError::Generator(
            draughts_generator::Error::Missing { .. }
            | draughts_generator::Error::MissingPublished { .. },
        ) => StatusCode::NOT_FOUND,
        CliError::Fen(_)
        | CliError::Message(_)
        | CliError::Probe(
            ProbeError::TooManyPieces { .. }
            | ProbeError::InvalidPosition(_)
            | ProbeError::Counts(_),
        ) => StatusCode::BAD_REQUEST,
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

/// Serves the explorer on `bind:port` (port 0: any free port) until Ctrl-C. The first line
/// printed is the address to open.
pub fn serve(dir: &Path, bind: IpAddr, port: u16) -> Result<(), CliError> {
    let tables = Variant::ALL
        .iter()
        .map(|variant| {
            let opened = open_tables(variant, dir, &variant.draw_rules());
            (variant.name, opened.map_err(|e| e.to_string()))
        })
        .collect();
    let explorer = Arc::new(Explorer {
        dir: dir.to_path_buf(),
        tables,
    });
    let app = Router::new()
        .route("/", get(page))
        .route("/app.js", get(script))
        .route("/style.css", get(style))
        .route("/api/variants", get(variants))
        .route("/api/probe", get(probe))
        .route("/api/find", get(find))
        .fallback(not_found)
        .with_state(explorer);
    let address = SocketAddr::new(bind, port);
    let listen_error = |source| CliError::Listen { address, source };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_io()
        .build()
        .map_err(listen_error)?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(address)
            .await
            .map_err(listen_error)?;
        let bound = listener.local_addr().map_err(listen_error)?;
        out!(
            "dtb explorer: http://{bound}/ (tables from {}; Ctrl-C stops it)",
            dir.display()
        );
        axum::serve(listener, app)
            .with_graceful_shutdown(async {
                // Without a signal handler the server runs until killed, which is as clean.
                let _ = tokio::signal::ctrl_c().await;
            })
            .await
            .map_err(listen_error)
    })
}

async fn page() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        include_str!("explorer/index.html"),
    )
}

async fn script() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
        include_str!("explorer/app.js"),
    )
}

async fn style() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/css; charset=utf-8")],
        include_str!("explorer/style.css"),
    )
}

async fn not_found() -> Refusal {
    Refusal {
        status: StatusCode::NOT_FOUND,
        message: "no such page; the API is /api/probe, /api/find and /api/variants".into(),
        fen: None,
    }
}

/// The query string's parameters (a repeated one: its last value).
fn parameters(query: Option<String>) -> HashMap<String, String> {
    form_urlencoded::parse(query.unwrap_or_default().as_bytes())
        .into_owned()
        .collect()
}

/// A parameter the request must have.
fn required<'a>(parameters: &'a HashMap<String, String>, name: &str) -> Result<&'a str, Refusal> {
    parameters
        .get(name)
        .map(String::as_str)
        .ok_or_else(|| Refusal::bad_request(format!("missing parameter {name:?}")))
}

/// The variant a request names, and its tables.
fn variant_of<'a>(
    explorer: &'a Explorer,
    parameters: &HashMap<String, String>,
) -> Result<(Variant, &'a Tablebase), Refusal> {
    let name = required(parameters, "variant")?;
    let variant: Variant = name.parse().map_err(|_| {
        Refusal::bad_request(format!(
            "unknown variant {name:?}: russian, brazilian, portuguese or spanish"
        ))
    })?;
    match &explorer.tables[variant.name] {
        Ok(tables) => Ok((variant, tables)),
        Err(reason) => Err(Refusal {
            status: StatusCode::NOT_FOUND,
            message: reason.clone(),
            fen: None,
        }),
    }
}

/// Runs blocking work (probes, table scans) off the server's threads.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, Refusal> + Send + 'static,
) -> Result<T, Refusal> {
    tokio::task::spawn_blocking(work).await.unwrap_or_else(|e| {
        Err(Refusal {
            status: StatusCode::INTERNAL_SERVER_ERROR,
            message: format!("the request failed: {e}"),
            fen: None,
        })
    })
}

/// `GET /api/variants`: each variant's rules, draw rules, tables, and its 32 squares with
/// their numbers, names and places on the board as its players see it, and the position the
/// page opens on.
async fn variants(State(explorer): State<Arc<Explorer>>) -> Json<serde_json::Value> {
    // The page opens on `dtb demo`'s position, on the same squares in every variant.
    let default_position = Position::from_fen(DEMO_FEN, &Variant::RUSSIAN).ok();
    let list: Vec<serde_json::Value> = Variant::ALL
        .iter()
        .map(|variant| {
            let numbering = variant.notation.numbering;
            // Portuguese and Spanish boards are the mirror image of the internal geometry
            // (RULES.md §4): their square 1 is White's bottom right corner.
            let mirrored = numbering == Numbering::FromWhiteRight;
            let squares: Vec<serde_json::Value> = (0u8..32)
                .map(|square| {
                    let file = file_of(square);
                    serde_json::json!({
                        "number": numbering.number(square),
                        "name": dprobe::notation::move_square(variant, square),
                        "column": if mirrored { 7 - file } else { file },
                        "row": rank_of(square),
                    })
                })
                .collect();
            let tables = &explorer.tables[variant.name];
            serde_json::json!({
                "name": variant.name,
                "rules": variant.moves.id.name(),
                "draw_rules": variant.draw_rules().directory_name(),
                "default_fen": default_position.map(|p| p.to_fen(variant)),
                "max_pieces": tables.as_ref().map_or(0, Tablebase::max_pieces),
                "tables_unavailable": tables.as_ref().err(),
                "squares": squares,
            })
        })
        .collect();
    Json(serde_json::json!({
        "dir": explorer.dir.display().to_string(),
        "variants": list,
    }))
}

/// `GET /api/probe?variant=V&fen=F[&counts=id=plies,…][&line=1]`: what `dtb probe --json`
/// prints for the position.
async fn probe(
    State(explorer): State<Arc<Explorer>>,
    RawQuery(query): RawQuery,
) -> Result<Json<serde_json::Value>, Refusal> {
    blocking(move || {
        let parameters = parameters(query);
        let (variant, tables) = variant_of(&explorer, &parameters)?;
        let fen = required(&parameters, "fen")?;
        let counts = match parameters.get("counts") {
            Some(text) => parse_counts(text)?,
            None => Counts::default(),
        };
        let line = matches!(
            parameters.get("line").map(String::as_str),
            Some("1" | "true")
        );
        let position = Position::from_fen(fen, &variant).map_err(CliError::from)?;
        let found = report(tables, position, &counts, line).map_err(|e| Refusal {
            fen: Some(position.to_fen(&variant)),
            ..Refusal::from(e)
        })?;
        Ok(Json(found.to_json(&variant)))
    })
    .await
}

/// `GET /api/find?variant=V&table=SIG&query=longest|zugzwangs|rule-changes[&limit=N]`: what
/// `dtb find --json` prints.
async fn find(
    State(explorer): State<Arc<Explorer>>,
    RawQuery(query): RawQuery,
) -> Result<Json<serde_json::Value>, Refusal> {
    blocking(move || {
        let parameters = parameters(query);
        let (variant, _) = variant_of(&explorer, &parameters)?;
        let signature = parse_table(required(&parameters, "table")?)?;
        let limit = match parameters.get("limit") {
            None => 20,
            Some(text) => text
                .parse::<usize>()
                .ok()
                .filter(|&n| (1..=MAX_LIMIT).contains(&n))
                .ok_or_else(|| {
                    Refusal::bad_request(format!("limit {text:?}: a number from 1 to {MAX_LIMIT}"))
                })?,
        };
        let query = match required(&parameters, "query")? {
            "longest" => Query::Longest(limit),
            "zugzwangs" => Query::Zugzwangs(limit),
            "rule-changes" => Query::RuleChanges(limit, variant.draw_rules()),
            other => {
                return Err(Refusal::bad_request(format!(
                    "query {other:?}: longest, zugzwangs or rule-changes"
                )))
            }
        };
        Ok(Json(
            search(&variant, &explorer.dir, signature, query)?.to_json(),
        ))
    })
    .await
}

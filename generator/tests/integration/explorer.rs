//! `dtb serve`: the JSON API against `dtb probe` and `dtb find`, its status codes, concurrent
//! clients, and the explorer's page in a real browser (headless Chromium through WebDriver).

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::Value;

fn dtb() -> Command {
    Command::new(env!("CARGO_BIN_EXE_dtb"))
}

/// A folder with the Russian tables up to 4 pieces and their draw-rule tables, built once.
fn russian_4() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let status = dtb()
            .args(["generate", "--variant", "russian", "--pieces", "4", "--dir"])
            .arg(dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .unwrap();
        assert!(status.success());
        dir
    })
    .path()
}

/// A running `dtb serve` on a free port, stopped when dropped.
struct Server {
    child: Child,
    url: String,
}

impl Server {
    fn start(dir: &Path) -> Server {
        let mut child = dtb()
            .args(["serve", "--port", "0", "--dir"])
            .arg(dir)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        let url = first
            .split_whitespace()
            .find(|word| word.starts_with("http://"))
            .unwrap_or_else(|| panic!("no address in {first:?}"))
            .trim_end_matches('/')
            .to_string();
        Server { child, url }
    }

    /// GET `path` with the query `parameters`: the status and the body as JSON.
    fn get(&self, path: &str, parameters: &[(&str, &str)]) -> (u16, Value) {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .build()
            .into();
        let mut request = agent.get(format!("{}{path}", self.url));
        for (key, value) in parameters {
            request = request.query(*key, *value);
        }
        let mut response = request.call().unwrap();
        let status = response.status().as_u16();
        (status, response.body_mut().read_json().unwrap())
    }

    /// GET a page or asset: the status, the content type and the text.
    fn text(&self, path: &str) -> (u16, String, String) {
        let mut response = ureq::get(format!("{}{path}", self.url)).call().unwrap();
        let kind = response.headers()["content-type"]
            .to_str()
            .unwrap()
            .to_string();
        (
            response.status().as_u16(),
            kind,
            response.body_mut().read_to_string().unwrap(),
        )
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What `dtb probe --json --line` prints.
fn dtb_probe(dir: &Path, fen: &str, counts: Option<&str>) -> Value {
    let mut command = dtb();
    command.args(["probe", "--variant", "russian", "--json", "--line", "--dir"]);
    command.arg(dir);
    if let Some(counts) = counts {
        command.args(["--counts", counts]);
    }
    let out = command.arg(fen).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Positions of each kind: a long win, Black to move, a capture to make, a man to crown, a
/// draw, a lost position without moves, running counts.
const POSITIONS: [(&str, Option<&str>); 7] = [
    ("W:WK21,K26,K30:BK31", None),
    ("B:WK21,K26,K30:BK31", None),
    ("W:W22:B18,K1", None),
    ("B:W25,K30:B26", None),
    ("W:WK22:BK1", None),
    ("W:W:BK1", None),
    (
        "W:WK21,K26,K30:BK31",
        Some("r1-three-kings=10,r2-kings-only=10,r3-kings-4-5-pieces=10"),
    ),
];

#[test]
fn the_api_answers_what_dtb_probe_prints() {
    let server = Server::start(russian_4());
    for (fen, counts) in POSITIONS {
        let mut parameters = vec![("variant", "russian"), ("fen", fen), ("line", "1")];
        if let Some(counts) = counts {
            parameters.push(("counts", counts));
        }
        let (status, answer) = server.get("/api/probe", &parameters);
        assert_eq!(status, 200, "{fen}: {answer}");
        assert_eq!(answer, dtb_probe(russian_4(), fen, counts), "{fen}");
    }
    // The rules' values are there, and each move carries the counts to probe its position with.
    let (_, answer) = server.get(
        "/api/probe",
        &[("variant", "russian"), ("fen", POSITIONS[0].0)],
    );
    assert_eq!(answer["result"], "win");
    let best = &answer["moves"][0];
    let (status, next) = server.get(
        "/api/probe",
        &[
            ("variant", "russian"),
            ("fen", best["fen"].as_str().unwrap()),
            ("counts", best["counts"].as_str().unwrap()),
        ],
    );
    assert_eq!(status, 200, "{next}");
    assert_eq!(
        next["result_now"], "loss",
        "the side that moved won: {next}"
    );
    assert_eq!(
        next["dtw"].as_u64().unwrap() + 1,
        best["dtw"].as_u64().unwrap()
    );
}

#[test]
fn the_api_answers_what_dtb_find_prints() {
    let server = Server::start(russian_4());
    for (query, flag) in [
        ("longest", vec!["--longest", "3"]),
        ("zugzwangs", vec!["--zugzwangs", "--limit", "3"]),
        ("rule-changes", vec!["--rule-changes", "--limit", "3"]),
    ] {
        let out = dtb()
            .args(["find", "--variant", "russian", "--table", "KKMvK", "--json"])
            .args(&flag)
            .arg("--dir")
            .arg(russian_4())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let printed: Value = serde_json::from_slice(&out.stdout).unwrap();
        let (status, answer) = server.get(
            "/api/find",
            &[
                ("variant", "russian"),
                ("table", "KKMvK"),
                ("query", query),
                ("limit", "3"),
            ],
        );
        assert_eq!(status, 200, "{query}: {answer}");
        assert_eq!(answer, printed, "{query}");
    }
}

/// A request (path and parameters), the status it must get, and words its message must hold.
type Case<'a> = (&'a str, Vec<(&'a str, &'a str)>, u16, &'a str);

#[test]
fn bad_requests_get_400_missing_tables_404_damaged_files_500_and_the_server_goes_on() {
    // A set with a table missing: KMvK's pure files and rule table removed.
    let dir = tempfile::tempdir().unwrap();
    let out = dtb()
        .args(["generate", "--variant", "russian", "--pieces", "3", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    let mut removed = 0;
    for entry in walk(dir.path()) {
        let name = entry.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with("KMvK.") {
            std::fs::remove_file(&entry).unwrap();
            removed += 1;
        }
    }
    assert!(removed >= 2, "KMvK's files were found");
    // And one damaged: KKvK's WDL file cut short.
    let damaged = walk(dir.path())
        .into_iter()
        .find(|p| p.file_name().is_some_and(|n| n == "KKvK.wdl"))
        .unwrap();
    let bytes = std::fs::read(&damaged).unwrap();
    std::fs::write(&damaged, &bytes[..bytes.len() - 5]).unwrap();
    let server = Server::start(dir.path());
    let russian = ("variant", "russian");
    let cases: [Case; 12] = [
        ("/api/probe", vec![russian, ("fen", "W:WK22:BK1")], 200, ""),
        (
            "/api/probe",
            vec![russian, ("fen", "W:W21,33:B1")],
            400,
            "33",
        ),
        (
            "/api/probe",
            vec![russian, ("fen", "nonsense")],
            400,
            "three parts",
        ),
        (
            "/api/probe",
            vec![("variant", "checkers"), ("fen", "W:W21:B1")],
            400,
            "unknown variant",
        ),
        (
            "/api/probe",
            vec![russian],
            400,
            "missing parameter \"fen\"",
        ),
        (
            "/api/probe",
            vec![("fen", "W:W21:B1")],
            400,
            "missing parameter \"variant\"",
        ),
        (
            "/api/probe",
            vec![russian, ("fen", "W:W21,22,23:B1")],
            400,
            "4 pieces",
        ),
        (
            "/api/probe",
            vec![russian, ("fen", "W:WK21:BK1"), ("counts", "bogus=1")],
            400,
            "bogus",
        ),
        (
            "/api/probe",
            vec![russian, ("fen", "W:W22,K21:BK1")],
            404,
            "KMvK",
        ),
        (
            "/api/probe",
            vec![("variant", "brazilian"), ("fen", "W:W21:B1")],
            404,
            "no brazilian table",
        ),
        (
            "/api/find",
            vec![russian, ("table", "KKvQ"), ("query", "longest")],
            400,
            "not a table name",
        ),
        (
            "/api/find",
            vec![
                russian,
                ("table", "KvK"),
                ("query", "longest"),
                ("limit", "0"),
            ],
            400,
            "limit",
        ),
    ];
    for (path, parameters, status, words) in &cases {
        let (got, answer) = server.get(path, parameters);
        assert_eq!(got, *status, "{path} {parameters:?}: {answer}");
        if *status != 200 {
            let message = answer["error"].as_str().unwrap_or_default();
            assert!(message.contains(words), "{parameters:?}: {message}");
        }
    }
    let (status, answer) = server.get(
        "/api/find",
        &[russian, ("table", "KMvK"), ("query", "rule-changes")],
    );
    assert_eq!(status, 404, "{answer}");
    assert!(answer["error"].as_str().unwrap().contains("KMvK"));
    let (status, answer) = server.get("/api/probe", &[russian, ("fen", "W:WK21,K22:BK1")]);
    assert_eq!(status, 500, "{answer}");
    assert!(
        answer["error"].as_str().unwrap().contains("KKvK.wdl"),
        "{answer}"
    );
    let (status, answer) = server.get("/no/such/page", &[]);
    assert_eq!(status, 404);
    assert!(answer["error"].is_string());
    // A position that reads but cannot be probed still comes back in normal form for the page.
    let (_, answer) = server.get("/api/probe", &[russian, ("fen", "W:W21-23:B1")]);
    assert_eq!(answer["fen"], "W:W21,22,23:B1");
    // Still serving after all of that.
    let (status, answer) = server.get("/api/probe", &[russian, ("fen", "W:WK22:BK1")]);
    assert_eq!((status, answer["wdl"].as_str()), (200, Some("draw")));
}

/// Every file under `dir`.
fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

#[test]
fn concurrent_clients_get_the_answers_one_client_gets() {
    let server = Server::start(russian_4());
    let expected: Vec<Value> = POSITIONS
        .iter()
        .map(|(fen, _)| {
            server
                .get("/api/probe", &[("variant", "russian"), ("fen", fen)])
                .1
        })
        .collect();
    std::thread::scope(|scope| {
        for client in 0..8 {
            let (server, expected) = (&server, &expected);
            scope.spawn(move || {
                for round in 0..30 {
                    let k = (client + round) % POSITIONS.len();
                    let (status, answer) = server.get(
                        "/api/probe",
                        &[("variant", "russian"), ("fen", POSITIONS[k].0)],
                    );
                    assert_eq!(status, 200);
                    assert_eq!(answer, expected[k]);
                }
            });
        }
    });
}

#[test]
fn the_page_and_its_assets_are_served_from_the_program() {
    let server = Server::start(russian_4());
    for (path, kind, words) in [
        ("/", "text/html", "dtb explorer"),
        ("/app.js", "text/javascript", "/api/probe"),
        ("/style.css", "text/css", "#board"),
    ] {
        let (status, content_type, text) = server.text(path);
        assert_eq!(status, 200);
        assert!(content_type.starts_with(kind), "{path}: {content_type}");
        assert!(text.contains(words), "{path}");
        // Offline: nothing is fetched from another host.
        assert!(!text.contains("https://"), "{path} refers to another host");
    }
    let (_, answer) = server.get("/api/variants", &[]);
    let variant = |name: &str| {
        answer["variants"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["name"] == name)
            .unwrap()
            .clone()
    };
    let square = |variant: &Value, number: u64| {
        let s = variant["squares"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["number"] == number)
            .unwrap()
            .clone();
        (s["column"].as_u64().unwrap(), s["row"].as_u64().unwrap())
    };
    // RULES.md §4: Russian 29 is a1 (White's bottom left); Portuguese 1 is White's bottom
    // right corner, on the board its players see.
    let russian = variant("russian");
    assert_eq!(square(&russian, 29), (0, 0));
    assert_eq!(square(&russian, 1), (1, 7));
    assert_eq!(russian["max_pieces"], 4);
    let portuguese = variant("portuguese");
    assert_eq!(square(&portuguese, 1), (7, 0));
    assert_eq!(square(&portuguese, 32), (0, 7));
    assert_eq!(portuguese["max_pieces"], 0);
    assert!(portuguese["tables_unavailable"].is_string());
}

/// Where chromedriver is, if it is installed; CI sets `DTB_REQUIRE_BROWSER` so that a missing
/// browser fails the run there instead of skipping the test.
fn chromedriver() -> Option<&'static str> {
    let path = "/usr/bin/chromedriver";
    if Path::new(path).exists() && Path::new("/usr/bin/chromium").exists() {
        return Some(path);
    }
    assert!(
        std::env::var_os("DTB_REQUIRE_BROWSER").is_none(),
        "DTB_REQUIRE_BROWSER is set but {path} or /usr/bin/chromium is missing: install Debian's \
         chromium and chromium-driver"
    );
    eprintln!("notice: the browser test needs Debian's chromium and chromium-driver; skipped");
    None
}

#[test]
fn the_explorer_sets_up_a_position_and_plays_a_move_in_chromium() {
    let Some(driver_path) = chromedriver() else {
        return;
    };
    let server = Server::start(russian_4());
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut driver = Command::new(driver_path)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let profile = tempfile::tempdir().unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let result = runtime.block_on(browse(&server, port, profile.path()));
    let _ = driver.kill();
    let _ = driver.wait();
    result.unwrap();
}

/// Drives the page: sets up a position by clicking, plays the best move by clicking it, plays
/// a move on the board, goes back, and checks what the page shows against the API.
async fn browse(server: &Server, port: u16, profile: &Path) -> Result<(), String> {
    use fantoccini::ClientBuilder;

    let deadline = Instant::now() + Duration::from_secs(20);
    let mut capabilities = serde_json::Map::new();
    capabilities.insert(
        "goog:chromeOptions".into(),
        serde_json::json!({
            "binary": "/usr/bin/chromium",
            "args": [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-quic", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--window-size=1200,1100",
                format!("--user-data-dir={}", profile.display()),
            ],
        }),
    );
    let client = loop {
        let connector = hyper_util::client::legacy::connect::HttpConnector::new();
        match ClientBuilder::new(connector)
            .capabilities(capabilities.clone())
            .connect(&format!("http://127.0.0.1:{port}"))
            .await
        {
            Ok(client) => break client,
            // chromedriver takes a moment to listen.
            Err(e) if Instant::now() < deadline => {
                let _ = e;
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            Err(e) => return Err(format!("chromedriver did not start Chromium: {e}")),
        }
    };
    let outcome = drive(&client, server).await;
    let _ = client.close().await;
    outcome
}

async fn drive(client: &fantoccini::Client, server: &Server) -> Result<(), String> {
    use fantoccini::Locator;

    let fail = |e: fantoccini::error::CmdError| e.to_string();
    let value_of = |id: &'static str| {
        let script = format!("return document.getElementById('{id}').value");
        async move { client.execute(&script, vec![]).await.map_err(fail) }
    };
    let text_of = |selector: &'static str| async move {
        client
            .find(Locator::Css(selector))
            .await
            .map_err(fail)?
            .text()
            .await
            .map_err(fail)
    };
    // Waits until the page has shown the server's answer for `fen`.
    let wait_for = |fen: String| async move {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let shown = client
                .execute("return document.body.dataset.shown || ''", vec![])
                .await
                .map_err(fail)?;
            if shown == fen && value_of("fen").await? == fen {
                return Ok::<(), String>(());
            }
            if Instant::now() > deadline {
                return Err(format!("the page shows {shown}, not {fen}"));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    };

    client.goto(&server.url).await.map_err(fail)?;
    wait_for("W:WK21,K26,K30:BK31".into()).await?;
    // Set up White king 22, White man 25 against Black king 4, White to move, by clicking.
    let click = |selector: String| async move {
        client
            .find(Locator::Css(&selector))
            .await
            .map_err(fail)?
            .click()
            .await
            .map_err(fail)
    };
    click("#edit".into()).await?;
    click("#clear".into()).await?;
    wait_for("W:W:B".into()).await?;
    click("[data-tool=wk]".into()).await?;
    click("[data-square='22']".into()).await?;
    wait_for("W:WK22:B".into()).await?;
    click("[data-tool=wm]".into()).await?;
    click("[data-square='25']".into()).await?;
    wait_for("W:WK22,25:B".into()).await?;
    click("[data-tool=bk]".into()).await?;
    click("[data-square='4']".into()).await?;
    let set_up = "W:WK22,25:BK4".to_string();
    wait_for(set_up.clone()).await?;
    click("#edit".into()).await?;

    // The moves the page lists are the API's, best first, with their values.
    let (_, expected) = server.get("/api/probe", &[("variant", "russian"), ("fen", &set_up)]);
    let rows = client
        .find_all(Locator::Css("#moves tbody tr"))
        .await
        .map_err(fail)?;
    let moves = expected["moves"].as_array().unwrap();
    if rows.len() != moves.len() {
        return Err(format!("{} rows for {} moves", rows.len(), moves.len()));
    }
    let first_row = rows[0].text().await.map_err(fail)?;
    let best = &moves[0];
    if !first_row.starts_with(best["move"].as_str().unwrap()) {
        return Err(format!("first row {first_row:?}, best move {best}"));
    }

    // Play the best move by clicking its row: the page shows the position after it.
    rows[0].click().await.map_err(fail)?;
    let after = best["fen"].as_str().unwrap().to_string();
    wait_for(after.clone()).await?;
    let (_, answer) = server.get(
        "/api/probe",
        &[
            ("variant", "russian"),
            ("fen", &after),
            ("counts", best["counts"].as_str().unwrap_or_default()),
        ],
    );
    let value = text_of("#value").await?;
    let pure = match answer["wdl"].as_str().unwrap() {
        "draw" => "Draw".to_string(),
        wdl => format!(
            "{} in {} plies",
            if wdl == "win" { "Win" } else { "Loss" },
            answer["dtw"]
        ),
    };
    if !value.starts_with("Black to move") || !value.contains(&pure) {
        return Err(format!(
            "after the move the page says {value:?}, the API {pure}"
        ));
    }
    let url = client.current_url().await.map_err(fail)?;
    let in_url = url
        .query_pairs()
        .find(|(k, _)| k == "fen")
        .map(|(_, v)| v.into_owned());
    if in_url.as_deref() != Some(after.as_str()) {
        return Err(format!("the URL {url} does not carry {after}"));
    }

    // Play Black's reply on the board: its piece, then the square it goes to.
    let reply = &answer["moves"][0];
    click(format!("[data-square='{}']", reply["from"])).await?;
    click(format!("[data-square='{}']", reply["to"])).await?;
    wait_for(reply["fen"].as_str().unwrap().to_string()).await?;

    // Back twice: the position set up again; a link to it shows the same position.
    click("#back".into()).await?;
    wait_for(after).await?;
    click("#back".into()).await?;
    wait_for(set_up.clone()).await?;
    let link = client.current_url().await.map_err(fail)?;
    client.goto("about:blank").await.map_err(fail)?;
    client.goto(link.as_str()).await.map_err(fail)?;
    wait_for(set_up).await?;

    // Too many pieces: a message on the page, the board still drawn.
    client
        .goto(&format!(
            "{}/?variant=russian&fen=W:W21,22,23:B1,2",
            server.url
        ))
        .await
        .map_err(fail)?;
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let message = text_of("#message").await.unwrap_or_default();
        if message.contains("5 pieces") {
            break;
        }
        if Instant::now() > deadline {
            return Err(format!("no message for too many pieces: {message:?}"));
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let pieces = client
        .find_all(Locator::Css("circle.piece"))
        .await
        .map_err(fail)?;
    if pieces.len() != 5 {
        return Err(format!("{} pieces drawn, 5 expected", pieces.len()));
    }

    // The theory page: the longest wins of KKKvK, each a link to its position.
    client.goto(&server.url).await.map_err(fail)?;
    wait_for("W:WK21,K26,K30:BK31".into()).await?;
    client
        .execute("document.getElementById('limit').value = '3'", vec![])
        .await
        .map_err(fail)?;
    click("#find-form button".into()).await?;
    let (_, longest) = server.get(
        "/api/find",
        &[
            ("variant", "russian"),
            ("table", "KKKvK"),
            ("query", "longest"),
            ("limit", "3"),
        ],
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    let links = loop {
        let links = client
            .find_all(Locator::Css("#found a[data-fen]"))
            .await
            .map_err(fail)?;
        if links.len() == 3 || Instant::now() > deadline {
            break links;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    if links.len() != 3 {
        return Err(format!("{} longest wins listed, 3 asked for", links.len()));
    }
    let second = longest[1]["fen"].as_str().unwrap().to_string();
    if links[1].text().await.map_err(fail)? != second {
        return Err(format!("the second longest win listed is not {second}"));
    }
    links[1].click().await.map_err(fail)?;
    wait_for(second).await?;

    // The picture for the README: the demo position with square numbers and the theory query.
    if let Some(path) = std::env::var_os("DTB_EXPLORER_SCREENSHOT") {
        click("#back".into()).await?;
        wait_for("W:WK21,K26,K30:BK31".into()).await?;
        click("#numbers".into()).await?;
        client
            .screenshot()
            .await
            .map_err(fail)
            .and_then(|png| std::fs::write(&path, png).map_err(|e| e.to_string()))?;
    }
    Ok(())
}

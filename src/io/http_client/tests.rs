//! The client against a raw local server written byte by byte, so that the splits, the
//! silences and the statuses are exactly what a real server on a bad line could send.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use super::*;

/// A request as the server saw it: its head and body.
#[derive(Debug, Clone, Default)]
struct Seen {
    head: String,
    body: String,
}

/// Reads one request (head, and a body of its Content-Length).
async fn read_request(socket: &mut TcpStream) -> Seen {
    let mut bytes = Vec::new();
    let mut chunk = [0u8; 1024];
    let head_end = loop {
        let n = socket.read(&mut chunk).await.unwrap();
        assert!(n > 0, "the client closed before its request was whole");
        bytes.extend_from_slice(&chunk[..n]);
        if let Some(i) = bytes.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
    };
    let head = String::from_utf8_lossy(&bytes[..head_end]).into_owned();
    let length = head
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("content-length:")
                .map(|v| v.trim().parse::<usize>().unwrap())
        })
        .unwrap_or(0);
    while bytes.len() < head_end + length {
        let n = socket.read(&mut chunk).await.unwrap();
        assert!(n > 0);
        bytes.extend_from_slice(&chunk[..n]);
    }
    let body = String::from_utf8_lossy(&bytes[head_end..head_end + length]).into_owned();
    Seen { head, body }
}

/// A server that answers each connection with `answer` (given the request it read).
async fn serve<F, Fut>(answer: F) -> (String, tokio::task::JoinHandle<()>)
where
    F: Fn(TcpStream, Seen) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let answer = Arc::new(answer);
    let task = tokio::spawn(async move {
        loop {
            let (mut socket, _) = listener.accept().await.unwrap();
            let answer = Arc::clone(&answer);
            tokio::spawn(async move {
                let seen = read_request(&mut socket).await;
                answer(socket, seen).await;
            });
        }
    });
    (base, task)
}

const STREAM_HEAD: &str = "HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\n\
                           Transfer-Encoding: chunked\r\n\r\n";

async fn chunk(socket: &mut TcpStream, bytes: &[u8]) {
    let mut out = format!("{:X}\r\n", bytes.len()).into_bytes();
    out.extend_from_slice(bytes);
    out.extend_from_slice(b"\r\n");
    socket.write_all(&out).await.unwrap();
    socket.flush().await.unwrap();
}

#[tokio::test]
async fn lines_split_at_every_byte_are_joined_and_keep_alives_seen() {
    let text: &[u8] =
        b"{\"type\":\"gameFull\",\"id\":\"abc\"}\n\n{\"type\":\"gameState\",\"moves\":\"e2e4\"}\n";
    for cut in 1..text.len() {
        let (base, server) = serve(move |mut socket, _| async move {
            socket.write_all(STREAM_HEAD.as_bytes()).await.unwrap();
            chunk(&mut socket, &text[..cut]).await;
            tokio::task::yield_now().await;
            chunk(&mut socket, &text[cut..]).await;
            socket.write_all(b"0\r\n\r\n").await.unwrap();
        })
        .await;
        let client = HttpClient::new(&base, None).unwrap();
        let mut stream = client
            .open_stream(HttpRequest::get("/api/board/game/stream/abc"))
            .await
            .unwrap();
        let idle = Duration::from_secs(20);
        assert_eq!(
            stream.next(idle).await.unwrap(),
            Some(StreamLine::Json(
                r#"{"type":"gameFull","id":"abc"}"#.to_owned()
            )),
            "cut at {cut}"
        );
        assert_eq!(
            stream.next(idle).await.unwrap(),
            Some(StreamLine::KeepAlive)
        );
        assert_eq!(
            stream.next(idle).await.unwrap(),
            Some(StreamLine::Json(
                r#"{"type":"gameState","moves":"e2e4"}"#.to_owned()
            ))
        );
        assert_eq!(stream.next(idle).await.unwrap(), None, "cut at {cut}");
        server.abort();
    }
}

#[tokio::test]
async fn a_silent_stream_is_idle_and_a_dropped_one_ends() {
    let (base, _server) = serve(|mut socket, seen| async move {
        socket.write_all(STREAM_HEAD.as_bytes()).await.unwrap();
        if seen.head.contains("/silent") {
            chunk(&mut socket, b"\n").await;
            // Then nothing, with the connection open.
            tokio::time::sleep(Duration::from_secs(60)).await;
        } else {
            chunk(&mut socket, b"{\"a\":1}\n{\"half\":").await;
            // The connection drops in the middle of a line, without the last chunk.
        }
    })
    .await;
    let client = HttpClient::new(&base, None).unwrap();
    let mut silent = client
        .open_stream(HttpRequest::get("/silent"))
        .await
        .unwrap();
    let idle = Duration::from_millis(300);
    assert_eq!(silent.next(idle).await, Ok(Some(StreamLine::KeepAlive)));
    assert_eq!(silent.next(idle).await, Err(HttpError::Idle));

    let mut dropped = client
        .open_stream(HttpRequest::get("/dropped"))
        .await
        .unwrap();
    let idle = Duration::from_secs(20);
    assert_eq!(
        dropped.next(idle).await,
        Ok(Some(StreamLine::Json(r#"{"a":1}"#.to_owned())))
    );
    // A connection cut mid-line is an error or an end, never a made-up line; either way the
    // caller reconnects and rebuilds from the full state.
    match dropped.next(idle).await {
        Err(HttpError::Io(_)) | Ok(None) => {}
        Ok(Some(StreamLine::Json(half))) => assert_eq!(half, r#"{"half":"#),
        other => panic!("unexpected {other:?}"),
    }
}

#[tokio::test]
async fn the_token_form_and_headers_are_sent() {
    let seen = Arc::new(std::sync::Mutex::new(Seen::default()));
    let keep = Arc::clone(&seen);
    let (base, _server) = serve(move |mut socket, s| {
        *keep.lock().unwrap() = s;
        async move {
            socket
                .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n{\"ok\":true}")
                .await
                .unwrap();
        }
    })
    .await;
    let client = HttpClient::new(&format!("{base}/base/"), Some("lip_secret".into())).unwrap();
    let answer = client
        .request(
            HttpRequest::post_form(
                "/api/board/game/abc/move/e2e4",
                vec![("text".into(), "Gut gespielt & danke!".into())],
            )
            .header("SOAPAction", "\"x\""),
        )
        .await
        .unwrap();
    assert_eq!(answer.status, 200);
    assert_eq!(answer.body, b"{\"ok\":true}");
    let seen = seen.lock().unwrap().clone();
    assert!(
        seen.head
            .starts_with("POST /base/api/board/game/abc/move/e2e4 HTTP/1.1\r\n"),
        "{}",
        seen.head
    );
    let head = seen.head.to_ascii_lowercase();
    assert!(
        head.contains("authorization: bearer lip_secret\r\n"),
        "{head}"
    );
    assert!(head.contains("content-type: application/x-www-form-urlencoded\r\n"));
    assert!(head.contains("soapaction: \"x\"\r\n"));
    assert!(head.contains("user-agent: annabella/"));
    assert_eq!(seen.body, "text=Gut+gespielt+%26+danke%21");
    // The client's Debug never shows the token.
    assert!(!format!("{client:?}").contains("secret"));
}

#[tokio::test]
async fn a_refusal_carries_the_servers_words() {
    let (base, _server) = serve(|mut socket, _| async move {
        let body = r#"{"error":"Not your turn, or game already over"}"#;
        let answer = format!(
            "HTTP/1.1 400 Bad Request\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        socket.write_all(answer.as_bytes()).await.unwrap();
    })
    .await;
    let client = HttpClient::new(&base, None).unwrap();
    let error = client
        .request(HttpRequest::post_form("/move", Vec::new()))
        .await
        .unwrap_err();
    assert_eq!(
        error,
        HttpError::Status {
            status: 400,
            body: r#"{"error":"Not your turn, or game already over"}"#.to_owned()
        }
    );
    assert!(error.to_string().contains("400"));
}

#[tokio::test]
async fn too_many_requests_pauses_every_later_request() {
    let served = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&served);
    let (base, _server) = serve(move |mut socket, _| {
        count.fetch_add(1, Ordering::SeqCst);
        async move {
            socket
                .write_all(b"HTTP/1.1 429 Too Many Requests\r\nRetry-After: 5\r\nContent-Length: 0\r\n\r\n")
                .await
                .unwrap();
        }
    })
    .await;
    let client = HttpClient::new(&base, None).unwrap();
    let error = client.request(HttpRequest::get("/x")).await.unwrap_err();
    // Retry-After 5 is less than lichess's minute: the minute wins.
    assert_eq!(
        error,
        HttpError::RateLimited {
            wait: MIN_RATE_LIMIT_PAUSE
        }
    );
    let paused = client.paused_for().expect("paused");
    assert!(paused > Duration::from_secs(55) && paused <= MIN_RATE_LIMIT_PAUSE);
    // Neither a short request nor a stream of this client (or its clones) reaches the server
    // while the pause lasts.
    let other = client.clone();
    let short = tokio::time::timeout(
        Duration::from_millis(500),
        other.request(HttpRequest::get("/y")),
    );
    assert!(short.await.is_err());
    let stream = tokio::time::timeout(
        Duration::from_millis(200),
        client.open_stream(HttpRequest::get("/z")),
    );
    assert!(stream.await.is_err());
    assert_eq!(served.load(Ordering::SeqCst), 1);
}

#[test]
fn retry_after_is_bounded_both_ways() {
    let value = |s: &str| hyper::header::HeaderValue::from_str(s).unwrap();
    assert_eq!(rate_limit_pause(None), MIN_RATE_LIMIT_PAUSE);
    assert_eq!(
        rate_limit_pause(Some(&value("90"))),
        Duration::from_secs(90)
    );
    assert_eq!(
        rate_limit_pause(Some(&value("86400"))),
        MAX_RATE_LIMIT_PAUSE
    );
    assert_eq!(
        rate_limit_pause(Some(&value("Wed, 21 Oct 2015 07:28:00 GMT"))),
        MIN_RATE_LIMIT_PAUSE
    );
}

#[tokio::test]
async fn short_requests_go_one_at_a_time() {
    let inside = Arc::new(AtomicUsize::new(0));
    let most = Arc::new(AtomicUsize::new(0));
    let (i, m) = (Arc::clone(&inside), Arc::clone(&most));
    let (base, _server) = serve(move |mut socket, _| {
        let now = i.fetch_add(1, Ordering::SeqCst) + 1;
        m.fetch_max(now, Ordering::SeqCst);
        let i = Arc::clone(&i);
        async move {
            // Long enough that a second request sent beside it would overlap.
            tokio::time::sleep(Duration::from_millis(50)).await;
            i.fetch_sub(1, Ordering::SeqCst);
            socket
                .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
                .await
                .unwrap();
        }
    })
    .await;
    let client = HttpClient::new(&base, None).unwrap();
    let calls = (0..5).map(|n| {
        let c = client.clone();
        async move { c.request(HttpRequest::get(format!("/{n}"))).await }
    });
    for answer in futures_util::future::join_all(calls).await {
        assert_eq!(answer.unwrap().body, b"ok");
    }
    assert_eq!(most.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn bodies_and_lines_past_their_bounds_are_refused() {
    let (base, _server) = serve(|mut socket, seen| async move {
        if seen.head.contains("/stream") {
            socket.write_all(STREAM_HEAD.as_bytes()).await.unwrap();
            let block = vec![b'x'; 64 * 1024];
            for _ in 0..=(MAX_LINE_BYTES / block.len()) {
                chunk(&mut socket, &block).await;
            }
        } else {
            let n = MAX_BODY_BYTES + 1;
            let head = format!("HTTP/1.1 200 OK\r\nContent-Length: {n}\r\n\r\n");
            socket.write_all(head.as_bytes()).await.unwrap();
            socket.write_all(&vec![b'x'; n]).await.ok();
        }
    })
    .await;
    let client = HttpClient::new(&base, None).unwrap();
    assert_eq!(
        client.request(HttpRequest::get("/big")).await,
        Err(HttpError::TooLarge)
    );
    let mut stream = client
        .open_stream(HttpRequest::get("/stream"))
        .await
        .unwrap();
    assert_eq!(
        stream.next(Duration::from_secs(20)).await,
        Err(HttpError::TooLarge)
    );
}

#[test]
fn secrets_go_in_clear_only_to_this_machine() {
    for bad in [
        "http://lichess.org",
        "http://192.168.1.5:8080",
        "ftp://x.org",
        "lichess.org",
        "https://x.org/?a=1",
    ] {
        assert!(
            matches!(HttpClient::new(bad, None), Err(HttpError::BadUrl(_))),
            "{bad}"
        );
    }
    for good in [
        "https://lichess.org",
        "https://www.iccf.com/XfccBasic.asmx",
        "http://127.0.0.1:9",
        "http://localhost:8080",
        "http://[::1]:8080",
    ] {
        assert!(HttpClient::new(good, None).is_ok(), "{good}");
    }
}

#[tokio::test]
async fn a_server_that_is_not_there_is_a_connect_error_naming_it() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let client = HttpClient::new(&format!("http://127.0.0.1:{port}"), None).unwrap();
    let error = client.request(HttpRequest::get("/")).await.unwrap_err();
    assert!(
        matches!(&error, HttpError::Connect(why) if why.contains(&port.to_string())),
        "{error}"
    );
}

#[test]
fn forms_are_encoded_as_browsers_do() {
    let pairs = vec![
        ("a b".to_owned(), "ü/?=&+".to_owned()),
        ("rated".to_owned(), "true".to_owned()),
    ];
    assert_eq!(form_encode(&pairs), "a+b=%C3%BC%2F%3F%3D%26%2B&rated=true");
}

/// A self-signed certificate for `localhost` (made for this test with openssl, valid to 2126):
/// no public root vouches for it, as for a server pretending to be lichess.
const SELF_SIGNED_CERT: &str = "-----BEGIN CERTIFICATE-----
MIIBnDCCAUGgAwIBAgIUey9OG1/G09LuSow8yaIrx+kF6YYwCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJbG9jYWxob3N0MCAXDTI2MTEyODAwNDAzNFoYDzIxMjYxMTA0
MDA0MDM0WjAUMRIwEAYDVQQDDAlsb2NhbGhvc3QwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAASEEQvbiRmueIAL2k3P45AzN18Ga1Gbde5C3sYWHAqMVsr5eyuUZDVU
RVWUOMnwjQAY37Fbvenb2dWiYrUD38wdo28wbTAdBgNVHQ4EFgQUkGxtTM8LvOmv
aMWyjU6Y+Bc9a1swHwYDVR0jBBgwFoAUkGxtTM8LvOmvaMWyjU6Y+Bc9a1swDwYD
VR0TAQH/BAUwAwEB/zAaBgNVHREEEzARgglsb2NhbGhvc3SHBH8AAAEwCgYIKoZI
zj0EAwIDSQAwRgIhAKnlRsVkI+HKouL1Aks7X/Q8W/X4BnxY1l7b8WIiOQbSAiEA
lPntxyL08cdosa6W6Xlt2LGwwhLv0qG2BeGY3PAjZ20=
-----END CERTIFICATE-----
";
const SELF_SIGNED_KEY: &str = "-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgJ0VhFsqBPjg6IjwB
gdhnxLPJip92R0QhUh4g2jkZ7+qhRANCAASEEQvbiRmueIAL2k3P45AzN18Ga1Gb
de5C3sYWHAqMVsr5eyuUZDVURVWUOMnwjQAY37Fbvenb2dWiYrUD38wd
-----END PRIVATE KEY-----
";

#[tokio::test]
async fn a_server_no_public_root_vouches_for_is_refused() {
    use tokio_rustls::rustls::pki_types::pem::PemObject;
    use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let cert = CertificateDer::from_pem_slice(SELF_SIGNED_CERT.as_bytes()).unwrap();
    let key = PrivateKeyDer::from_pem_slice(SELF_SIGNED_KEY.as_bytes()).unwrap();
    let config = tokio_rustls::rustls::ServerConfig::builder_with_provider(Arc::new(
        tokio_rustls::rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_no_client_auth()
    .with_single_cert(vec![cert], key)
    .unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let handshakes = tokio::spawn(async move {
        let (socket, _) = listener.accept().await.unwrap();
        // The client must give up during the handshake: no request is ever read.
        acceptor.accept(socket).await.is_ok()
    });
    let client =
        HttpClient::new(&format!("https://localhost:{port}"), Some("lip_x".into())).unwrap();
    let error = client
        .request(HttpRequest::get("/api/account"))
        .await
        .unwrap_err();
    assert!(
        matches!(&error, HttpError::Tls(why) if why.contains("certificate")),
        "{error}"
    );
    assert!(!handshakes.await.unwrap(), "the handshake completed");
}

#[tokio::test]
async fn clients_of_one_account_share_the_turn_and_the_pause() {
    let inside = Arc::new(AtomicUsize::new(0));
    let most = Arc::new(AtomicUsize::new(0));
    let (i, m) = (Arc::clone(&inside), Arc::clone(&most));
    let (base, _server) = serve(move |mut socket, seen| {
        let now = i.fetch_add(1, Ordering::SeqCst) + 1;
        m.fetch_max(now, Ordering::SeqCst);
        let i = Arc::clone(&i);
        async move {
            tokio::time::sleep(Duration::from_millis(50)).await;
            i.fetch_sub(1, Ordering::SeqCst);
            let answer: &[u8] = if seen.head.contains("/limited") {
                b"HTTP/1.1 429 Too Many Requests\r\nContent-Length: 0\r\n\r\n"
            } else {
                b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
            };
            socket.write_all(answer).await.unwrap();
        }
    })
    .await;
    // The live table's client and the desk's, made apart for the same account.
    let table = HttpClient::new(&base, Some("lip_same".into())).unwrap();
    let desk = HttpClient::new(&format!("{base}/"), Some("lip_same".into())).unwrap();
    let other = HttpClient::new(&base, Some("lip_other".into())).unwrap();
    let (a, b) = tokio::join!(
        table.request(HttpRequest::get("/a")),
        desk.request(HttpRequest::get("/b"))
    );
    assert!(a.is_ok() && b.is_ok());
    assert_eq!(
        most.load(Ordering::SeqCst),
        1,
        "one account, one request at a time"
    );
    // A 429 to one pauses the other; another account is not paused.
    assert!(matches!(
        desk.request(HttpRequest::get("/limited")).await,
        Err(HttpError::RateLimited { .. })
    ));
    assert!(table.paused_for().is_some());
    assert!(other.paused_for().is_none());
}

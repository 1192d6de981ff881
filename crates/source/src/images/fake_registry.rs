//! A scripted HTTP server on a loopback port for the resolver's unit tests: each request is answered by a closure
//! (one request per connection) and recorded, so tests see exactly what the resolver asked and answer what real
//! registries rarely do (no digest header, token realms, oversized or lying manifests).

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;

/// A request as the server read it.
#[derive(Debug, Clone)]
pub(crate) struct Request {
    /// `HEAD`, `GET`, ...
    pub method: String,
    /// The path and query.
    pub path: String,
    /// The `Host` header.
    pub host: String,
    headers: Vec<(String, String)>,
}

impl Request {
    /// A header's value (names compared without regard to case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// The server's answer to one request.
#[derive(Debug, Clone)]
pub(crate) struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Reply {
    /// `200 OK`, empty.
    pub fn ok() -> Reply {
        Reply::status(200)
    }

    /// An empty answer of `status`.
    pub fn status(status: u16) -> Reply {
        Reply {
            status,
            headers: Vec::new(),
            body: Vec::new(),
        }
    }

    /// With a header.
    pub fn header(mut self, name: &str, value: &str) -> Reply {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// With a body (sent to GET, its length told to HEAD).
    pub fn body(mut self, body: Vec<u8>) -> Reply {
        self.body = body;
        self
    }
}

type Handler = dyn Fn(&Request) -> Reply + Send + Sync;

/// The server; stopped on drop.
pub(crate) struct FakeRegistry {
    address: String,
    received: Arc<Mutex<Vec<Request>>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl FakeRegistry {
    /// Serves `handler` on a free loopback port.
    pub fn start(handler: impl Fn(&Request) -> Reply + Send + Sync + 'static) -> FakeRegistry {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        let address = listener.local_addr().expect("its address").to_string();
        let received = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let handler: Arc<Handler> = Arc::new(handler);
        let thread = {
            let (received, stop) = (received.clone(), stop.clone());
            std::thread::spawn(move || {
                for stream in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    if let Ok(stream) = stream {
                        serve(stream, handler.as_ref(), &received);
                    }
                }
            })
        };
        FakeRegistry {
            address,
            received,
            stop,
            thread: Some(thread),
        }
    }

    /// `127.0.0.1:<port>`.
    pub fn address(&self) -> &str {
        &self.address
    }

    /// The requests so far, as `METHOD path`.
    pub fn requests(&self) -> Vec<String> {
        self.received()
            .iter()
            .map(|r| format!("{} {}", r.method, r.path))
            .collect()
    }

    /// The requests so far.
    pub fn received(&self) -> Vec<Request> {
        self.received
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

impl Drop for FakeRegistry {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the accepting thread so it sees the stop.
        let _ = TcpStream::connect(&self.address);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn serve(stream: TcpStream, handler: &Handler, received: &Mutex<Vec<Request>>) {
    let Ok(reader) = stream.try_clone() else {
        return;
    };
    let mut lines = BufReader::new(reader);
    let mut line = String::new();
    if lines.read_line(&mut line).is_err() {
        return;
    }
    let mut parts = line.split_whitespace();
    let (Some(method), Some(path)) = (parts.next(), parts.next()) else {
        return;
    };
    let mut request = Request {
        method: method.to_string(),
        path: path.to_string(),
        host: String::new(),
        headers: Vec::new(),
    };
    loop {
        let mut header = String::new();
        match lines.read_line(&mut header) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            request
                .headers
                .push((name.trim().to_string(), value.trim().to_string()));
        }
    }
    request.host = request.header("host").unwrap_or_default().to_string();
    let reply = handler(&request);
    let head_only = request.method == "HEAD";
    received
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(request);
    let mut answer = format!(
        "HTTP/1.1 {} Fake\r\nContent-Length: {}\r\nConnection: close\r\n",
        reply.status,
        reply.body.len()
    );
    for (name, value) in &reply.headers {
        answer.push_str(&format!("{name}: {value}\r\n"));
    }
    answer.push_str("\r\n");
    let mut stream = stream;
    let _ = stream.write_all(answer.as_bytes());
    if !head_only {
        let _ = stream.write_all(&reply.body);
    }
    let _ = stream.flush();
}

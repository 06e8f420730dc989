//! spider-bench: crawls the bench web (scripts/bench.sh) with the `spider` crate, one `Website`
//! per host, all hosts at once on one tokio runtime, each host at most one request at a time
//! (`with_concurrency_limit(Some(1))`), robots.txt respected, no depth limit.
//! Host names resolve to loopback through reqwest's own override (`ClientBuilder::resolve`),
//! so the system resolver and /etc/hosts are never asked.
//!   spider-bench SEED_URL...   -> prints "pages N" (pages visited, all hosts) on stdout
use std::net::SocketAddr;

use spider::website::Website;

#[tokio::main]
async fn main() {
    let seeds: Vec<String> = std::env::args().skip(1).collect();
    if seeds.is_empty() {
        eprintln!("usage: spider-bench SEED_URL...");
        std::process::exit(2);
    }
    let mut builder = spider::ClientBuilder::new()
        .user_agent("spider-bench")
        .redirect(spider::client::redirect::Policy::limited(7))
        .tcp_nodelay(true);
    for seed in &seeds {
        let url = spider::url::Url::parse(seed).expect("seed URL");
        let host = url.host_str().expect("seed host").to_string();
        let addr = SocketAddr::from(([127, 0, 0, 1], url.port_or_known_default().unwrap_or(80)));
        builder = builder.resolve(&host, addr);
    }
    let client = builder.build().expect("http client");

    let mut tasks = Vec::with_capacity(seeds.len());
    for seed in seeds {
        let client = client.clone();
        tasks.push(tokio::spawn(async move {
            let mut website = Website::new(&seed);
            website
                .with_respect_robots_txt(true)
                .with_concurrency_limit(Some(1))
                .with_depth(0)
                .with_delay(0);
            website.set_http_client(client);
            website.crawl().await;
            website.get_links().len()
        }));
    }
    let mut pages = 0usize;
    for t in tasks {
        pages += t.await.expect("crawl task");
    }
    println!("pages {pages}");
}

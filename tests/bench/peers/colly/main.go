// colly-bench: crawls the bench web (scripts/bench.sh) with Colly, one request per host at a
// time: one LimitRule per host:port (Colly matches rules against URL.Host, and a rule's
// Parallelism is shared by every domain it matches, so a single "*" rule would serialise the
// whole crawl). robots.txt respected. Host names resolve to loopback through the transport's
// own dialer (the system resolver and /etc/hosts are never asked).
//
//	colly-bench -port N SEED_URL...   -> prints "pages N" on stdout
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"sync/atomic"
	"time"

	"github.com/gocolly/colly/v2"
)

func main() {
	port := flag.String("port", "", "the bench web server's port on 127.0.0.1")
	flag.Parse()
	seeds := flag.Args()
	if *port == "" || len(seeds) == 0 {
		fmt.Fprintln(os.Stderr, "usage: colly-bench -port N SEED_URL...")
		os.Exit(2)
	}

	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	transport := &http.Transport{
		// Every bench host is on loopback: the dialer maps any name to 127.0.0.1.
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return dialer.DialContext(ctx, network, net.JoinHostPort("127.0.0.1", *port))
		},
		MaxIdleConns:        2000,
		MaxIdleConnsPerHost: 2,
		IdleConnTimeout:     30 * time.Second,
	}

	c := colly.NewCollector(colly.Async(true), colly.MaxDepth(0))
	c.IgnoreRobotsTxt = false
	c.WithTransport(transport)
	hosts := map[string]bool{}
	for _, s := range seeds {
		u, err := url.Parse(s)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bad seed:", s)
			os.Exit(2)
		}
		if !hosts[u.Host] {
			hosts[u.Host] = true
			if err := c.Limit(&colly.LimitRule{DomainGlob: u.Host, Parallelism: 1}); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
	}

	var pages atomic.Int64
	c.OnResponse(func(r *colly.Response) {
		if r.StatusCode == 200 {
			pages.Add(1)
		}
	})
	c.OnHTML("a[href]", func(e *colly.HTMLElement) {
		u, err := url.Parse(e.Request.AbsoluteURL(e.Attr("href")))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
			return
		}
		// Colly keys its visited set on the whole URL, fragment included: without this every
		// "#section" link would fetch its page again.
		u.Fragment = ""
		// Visit refuses URLs already visited or disallowed by robots.txt.
		_ = e.Request.Visit(u.String())
	})
	for _, s := range seeds {
		_ = c.Visit(s)
	}
	c.Wait()
	fmt.Printf("pages %d\n", pages.Load())
}

// Command ferretdb runs an embedded FerretDB v1.24.x (MongoDB wire protocol
// over SQLite) for redcrawl's tests and demo.
//
// It exists because `go install .../cmd/ferretdb@v1.24.2` builds a binary that
// panics at start (its build/version/version.txt is not part of the module),
// while the embeddable package works. The embedded package never starts the
// telemetry reporter and marks telemetry as disabled and locked, so this
// process makes no outbound connections.
//
// Usage: ferretdb -listen 127.0.0.1:PORT -dir DIR [-log-level info]
// [-listen-tls 127.0.0.1:PORT -tls-cert CERT.pem -tls-key KEY.pem]
//
// The process exits cleanly on SIGTERM or SIGINT.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/FerretDB/FerretDB/ferretdb"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:27017", "TCP address to listen on (host:port)")
	dir := flag.String("dir", "", "directory for the SQLite databases (created if missing)")
	logLevel := flag.String("log-level", "info", "log level: debug, info, warn, error")
	listenTLS := flag.String("listen-tls", "", "TLS address to listen on as well (host:port); needs -tls-cert and -tls-key")
	tlsCert := flag.String("tls-cert", "", "PEM certificate (chain) of the TLS listener")
	tlsKey := flag.String("tls-key", "", "PEM private key of the TLS listener")
	flag.Parse()

	if *dir == "" {
		fmt.Fprintln(os.Stderr, "ferretdb: -dir is required")
		os.Exit(2)
	}

	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		fmt.Fprintf(os.Stderr, "ferretdb: bad -log-level %q: %v\n", *logLevel, err)
		os.Exit(2)
	}

	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	slog.SetDefault(logger)

	absDir, err := filepath.Abs(*dir)
	if err != nil {
		logger.Error("cannot resolve -dir", "dir", *dir, "error", err)
		os.Exit(1)
	}

	// The SQLite handler needs an existing directory and a URL ending in "/".
	if err = os.MkdirAll(absDir, 0o755); err != nil {
		logger.Error("cannot create -dir", "dir", absDir, "error", err)
		os.Exit(1)
	}

	sqliteURL := "file:" + absDir
	if !strings.HasSuffix(sqliteURL, "/") {
		sqliteURL += "/"
	}

	f, err := ferretdb.New(&ferretdb.Config{
		Listener: ferretdb.ListenerConfig{TCP: *listen, TLS: *listenTLS,
			TLSCertFile: *tlsCert, TLSKeyFile: *tlsKey},
		Logger:    logger,
		Handler:   "sqlite",
		SQLiteURL: sqliteURL,
	})
	if err != nil {
		logger.Error("cannot start FerretDB", "error", err)
		os.Exit(1)
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()

	logger.Info("redcrawl embedded FerretDB starting",
		"listen", *listen, "sqlite", sqliteURL, "pid", os.Getpid(), "telemetry", "disabled")

	if err = f.Run(ctx); err != nil {
		logger.Error("FerretDB stopped with error", "error", err)
		os.Exit(1)
	}

	logger.Info("redcrawl embedded FerretDB stopped")
}

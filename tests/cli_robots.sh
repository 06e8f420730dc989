#!/usr/bin/env bash
# `redcrawl robots`: one line per URL with the workers' parser, exit codes for bad input.
set -u
R=$1
F=$2/robots/files
fail() { echo "cli_robots: $*" >&2; exit 1; }
out=$("$R" robots --agent redcrawl/0.1 "$F/shop.txt" https://shop-example.com/cart https://shop-example.com/CART) ||
  fail "exit $?"
[ "$out" = "allowed https://shop-example.com/cart
disallowed https://shop-example.com/CART" ] || fail "unexpected output: $out"
# options after the arguments, as in every redcrawl command; "--" ends them
out=$("$R" robots "$F/shop.txt" https://shop-example.com/CART --agent redcrawl) || fail "exit $?"
[ "$out" = "disallowed https://shop-example.com/CART" ] || fail "an option after the URL: $out"
"$R" robots "$F/shop.txt" -- --agent 2>/dev/null
[ $? -eq 1 ] || fail "after --, --agent is a URL (a bad one)"
"$R" robots "$F/missing.txt" http://a.test/ 2>/dev/null
[ $? -eq 1 ] || fail "a missing file must exit 1"
"$R" robots "$F/shop.txt" 'not a url' 2>/dev/null
[ $? -eq 1 ] || fail "a bad URL must exit 1"
"$R" robots 2>/dev/null
[ $? -eq 2 ] || fail "no arguments must exit 2"
echo "cli_robots: ok"

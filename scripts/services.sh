#!/usr/bin/env bash
# Start/stop the real servers redcrawl's integration tests and demo use:
# Redis, a Redis Cluster (3 masters + 3 replicas of Debian's redis-server), an
# Apache Kafka 3.9.1 broker (KRaft) and FerretDB 1.24.2 (MongoDB wire protocol
# over SQLite). Everything binds 127.0.0.1 only, on free ports,
# and is stopped by pid. See shared/SERVICES.md for the facts behind this.
#
# Usage:
#   scripts/services.sh start   redis|cluster|kafka|mongo|all [--dir DIR] [--aof] [--keep-data]
#   scripts/services.sh stop    redis|cluster|kafka|mongo|all [--dir DIR]
#   scripts/services.sh restart redis|cluster|kafka|mongo|all [--dir DIR]
#   scripts/services.sh status  [redis|cluster|kafka|mongo|all] [--dir DIR]
#   scripts/services.sh tls     DIR
#   scripts/services.sh fetch   kafka|mongo|all
#
#   eval "$(scripts/services.sh start redis)"   # sets REDCRAWL_REDIS
#   eval "$(scripts/services.sh start cluster)" # sets REDCRAWL_REDIS_CLUSTER (a seed node)
#
# cluster A real Redis Cluster on six free 127.0.0.1 ports (and six for its
#         bus): 3 masters and 3
#         replicas (redis-cli --cluster create --cluster-replicas 1; with
#         REDCRAWL_CLUSTER_REPLICAS=0 three masters alone), ready when
#         every node says cluster_state:ok. Not part of 'all'. A restart keeps
#         its ports and nodes.conf, so the same cluster comes back.
#
# start   On success prints exactly one line per service to stdout, e.g.
#         `export REDCRAWL_REDIS=redis://127.0.0.1:PORT`; everything else goes
#         to stderr. If the service already runs, prints its line again.
#         A fresh start wipes that service's previous data in DIR unless
#         --keep-data is given. --aof: Redis with appendonly/everysec.
# restart Stops and starts again on the SAME ports with the SAME data
#         (Kafka topics/offsets, FerretDB databases, Redis AOF if enabled).
# stop    SIGTERM, wait up to 20 s, then SIGKILL. No-op if not running.
# status  Prints export lines of the running services to stdout and a
#         summary to stderr; for a single service exits 1 if it is not running.
# fetch   Downloads (Kafka's jars, Maven Central) or builds (FerretDB, Go module
#         proxy) what a service needs, once, into the cache, without starting it:
#         for a later start where there is no network (a network namespace).
# tls     Makes (once) a test CA in DIR and certificates it signed: DIR/ca.pem,
#         DIR/server.crt + server.key (127.0.0.1, localhost), DIR/client.crt +
#         client.key; prints DIR. Redis, Kafka and FerretDB listen with these.
#
# Environment:
#   REDCRAWL_SERVICES_DIR  state dir (default /tmp/redcrawl-services-$UID)
#   REDCRAWL_CACHE         download/build cache (default ~/.cache/redcrawl)
#   REDCRAWL_KAFKA_WAIT    seconds to wait for Kafka readiness (default 120)
#   REDCRAWL_KAFKA_HEAP    Kafka heap size (default 512m)
#   REDCRAWL_CLUSTER_REPLICAS  replicas per cluster master: 1 (default) or 0
#   REDCRAWL_KAFKA_HOST    address of Kafka's plain listener (default 127.0.0.1): a
#                          network namespace's own address when the broker runs
#                          in one (tests/integration/test_netns.py); the SASL and
#                          controller listeners stay on 127.0.0.1
set -euo pipefail

readonly KAFKA_VERSION=3.9.1
readonly SLF4J_RELOAD4J_VERSION=1.7.36
readonly RELOAD4J_VERSION=1.2.25
readonly FERRETDB_VERSION=1.24.2
readonly DEPENDENCY_PLUGIN=org.apache.maven.plugins:maven-dependency-plugin:3.6.1

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(cd "$SCRIPT_DIR/.." && pwd)
readonly SCRIPT_DIR REPO_DIR

STATE_DIR=${REDCRAWL_SERVICES_DIR:-/tmp/redcrawl-services-${UID}}
CACHE_DIR=${REDCRAWL_CACHE:-${HOME:-/tmp}/.cache/redcrawl}
KAFKA_HOST=${REDCRAWL_KAFKA_HOST:-127.0.0.1}
OPT_AOF=""
OPT_KEEP=0
LOCK_FDS=()
# The daemons this invocation launched, as SVC:PID: a service's start that fails stops its own
# by these pids, which stop_svc may not recognise yet (a daemon still in the bash that becomes
# it: pid_file_alive).
LAUNCHED=()

log() { printf 'services.sh: %s\n' "$*" >&2; }
die() {
	log "error: $*"
	exit 1
}

usage() {
	sed -n '/^# Usage:/,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//' >&2
	exit 2
}

now() { date +%s; }

# Print one free TCP port on 127.0.0.1 per argument count (all distinct).
free_ports() {
	python3 - "$1" <<'EOF'
import socket, sys
socks = []
for _ in range(int(sys.argv[1])):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))
for s in socks:
    s.close()
EOF
}

# True if 127.0.0.1:PORT can be bound right now.
port_free() {
	python3 - "$1" <<'EOF'
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
try:
    s.bind(("127.0.0.1", int(sys.argv[1])))
except OSError:
    sys.exit(1)
finally:
    s.close()
EOF
}

# Wait (bounded) until every given port is bindable again, e.g. on restart.
wait_ports_free() {
	local deadline=$(($(now) + 30)) p
	for p in "$@"; do
		until port_free "$p"; do
			if (($(now) >= deadline)); then
				die "port 127.0.0.1:$p is still in use by another process (check: ss -ltnp | grep :$p)"
			fi
			sleep 0.5
		done
	done
}

svc_dir() { printf '%s/%s' "$STATE_DIR" "$1"; }

# Expected substring of /proc/PID/cmdline for each service (guards pid reuse).
svc_signature() {
	case $1 in
	redis | cluster) printf 'redis-server' ;;
	kafka) printf 'kafka.Kafka' ;;
	mongo) printf 'ferretdb' ;;
	esac
}

# Print the pid of the running service, or fail.
svc_pid() {
	local d pid
	d=$(svc_dir "$1")
	[[ -s $d/pid ]] || return 1
	pid=$(<"$d/pid")
	[[ $pid =~ ^[0-9]+$ ]] || return 1
	kill -0 "$pid" 2>/dev/null || return 1
	tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "$(svc_signature "$1")" || return 1
	# A zombie is not running.
	[[ $(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) != Z ]] || return 1
	printf '%s' "$pid"
}

svc_running() { svc_pid "$1" >/dev/null; }

# True while the process of pid file $1 lives (a zombie does not), whatever it runs yet: for the
# wait right after a launch, where the pid is ours and the subshell that becomes the daemon is
# still bash (closing fds, then setsid) for a moment -- under load long enough for svc_pid's
# look at the command line to fail a start that was going well.
pid_file_alive() {
	local pid
	[[ -s $1 ]] || return 1
	pid=$(<"$1")
	[[ $pid =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null || return 1
	[[ $(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) != Z ]]
}

export_line() {
	local port
	port=$(<"$(svc_dir "$1")/port")
	case $1 in
	redis)
		printf 'export REDCRAWL_REDIS=redis://127.0.0.1:%s\n' "$port"
		# The TLS port (client certificates optional), verified against the test CA.
		printf '# export REDCRAWL_REDIS=rediss://127.0.0.1:%s REDCRAWL_REDIS_CACERT=%s\n' \
			"$(<"$(svc_dir redis)/tport")" "$(svc_dir redis)/tls/ca.pem"
		;;
	cluster)
		printf 'export REDCRAWL_REDIS_CLUSTER=redis://127.0.0.1:%s\n' "$port"
		;;
	kafka)
		printf 'export REDCRAWL_KAFKA=%s:%s\n' "$(cat "$(svc_dir kafka)/host" 2>/dev/null || echo 127.0.0.1)" "$port"
		# The SASL/PLAIN over TLS listener: REDCRAWL_KAFKA_CONFIG + REDCRAWL_KAFKA_PASSWORD_FILE.
		printf '# export REDCRAWL_KAFKA=127.0.0.1:%s REDCRAWL_KAFKA_CONFIG=%s REDCRAWL_KAFKA_PASSWORD_FILE=%s\n' \
			"$(<"$(svc_dir kafka)/sport")" "$(svc_dir kafka)/client-sasl.properties" "$(svc_dir kafka)/sasl-password"
		;;
	mongo)
		printf 'export REDCRAWL_MONGO=mongodb://127.0.0.1:%s/\n' "$port"
		# The TLS listener, verified against the test CA.
		printf '# export REDCRAWL_MONGO=mongodb://127.0.0.1:%s/?tls=true&tlsCAFile=%s\n' \
			"$(<"$(svc_dir mongo)/tport")" "$(svc_dir mongo)/tls/ca.pem"
		;;
	esac
}

# Run "$@" detached (own session, no inherited stdio) and record its pid.
launch() {
	local svc=$1 logfile=$2
	shift 2
	local d
	d=$(svc_dir "$svc")
	(
		# The daemon must not inherit our flock fds, or it would hold the locks forever.
		for fd in "${LOCK_FDS[@]}"; do exec {fd}>&-; done
		exec setsid "$@" </dev/null >>"$logfile" 2>&1
	) &
	LAUNCHED+=("$svc:$!")
	printf '%s\n' "$!" >"$d/pid"
}

# Take an exclusive lock on FILE for the rest of this process (bounded wait).
lock_file() {
	local file=$1 what=$2 fd
	mkdir -p "$(dirname "$file")"
	exec {fd}>>"$file"
	LOCK_FDS+=("$fd")
	flock -w 900 "$fd" || die "timed out waiting for lock $file ($what in progress elsewhere?)"
}

fail_start() {
	local svc=$1 msg=$2 logfile=$3
	log "error: $svc: $msg"
	log "---- last lines of $logfile ----"
	tail -n 30 "$logfile" >&2 2>/dev/null || true
	log "---- see $logfile (state in $(svc_dir "$svc")) ----"
	stop_svc "$svc" >/dev/null 2>&1 || true
	local l
	for l in "${LAUNCHED[@]}"; do
		[[ ${l%%:*} == "$svc" ]] && kill -TERM "${l#*:}" 2>/dev/null || true
	done
	exit 1
}

# ---------------------------------------------------------------- stop ----

stop_svc() {
	local svc=$1 d pid deadline
	d=$(svc_dir "$svc")
	if [[ $svc == cluster ]]; then
		stop_cluster
		return
	fi
	if ! pid=$(svc_pid "$svc"); then
		rm -f "$d/pid"
		log "$svc: not running"
		return 0
	fi
	log "$svc: stopping pid $pid (SIGTERM)"
	kill -TERM "$pid" 2>/dev/null || true
	deadline=$(($(now) + 20))
	while kill -0 "$pid" 2>/dev/null; do
		if (($(now) >= deadline)); then
			log "$svc: pid $pid still alive after 20 s, sending SIGKILL"
			kill -KILL "$pid" 2>/dev/null || true
			sleep 0.5
			break
		fi
		sleep 0.2
	done
	rm -f "$d/pid"
	log "$svc: stopped"
}

# --------------------------------------------------------------- redis ----

start_redis() {
	local reuse=$1 d port aof logfile deadline
	d=$(svc_dir redis)
	logfile=$d/redis.log
	if [[ $reuse == 1 && -s $d/port ]]; then
		port=$(<"$d/port")
		wait_ports_free "$port"
		if [[ -s $d/tport ]]; then wait_ports_free "$(<"$d/tport")"; fi
	else
		port=$(free_ports 1)
		if [[ $OPT_KEEP == 0 ]]; then rm -rf "$d/data"; fi
	fi
	mkdir -p "$d/data"
	printf '%s\n' "$port" >"$d/port"
	# --aof given now wins; otherwise a restart keeps the previous choice.
	if [[ -n $OPT_AOF ]]; then
		aof=$OPT_AOF
	elif [[ $reuse == 1 && -s $d/aof ]]; then
		aof=$(<"$d/aof")
	else
		aof=no
	fi
	printf '%s\n' "$aof" >"$d/aof"
	# A TLS port beside the plain one (a test CA in $d/tls): for clients that test rediss://.
	make_tls "$d/tls"
	if [[ ! ($reuse == 1 && -s $d/tport) ]]; then free_ports 1 >"$d/tport"; fi
	local args=(--port "$port" --bind 127.0.0.1 --save '' --daemonize no
		--dir "$d/data" --logfile '' --protected-mode yes
		--tls-port "$(<"$d/tport")" --tls-cert-file "$d/tls/server.crt" --tls-key-file "$d/tls/server.key"
		--tls-ca-cert-file "$d/tls/ca.pem" --tls-auth-clients optional)
	if [[ $aof == yes ]]; then
		args+=(--appendonly yes --appendfsync everysec)
	else
		args+=(--appendonly no)
	fi
	log "redis: starting on 127.0.0.1:$port (aof=$aof, log $logfile)"
	printf '\n==== %s start port=%s aof=%s\n' "$(date -Is)" "$port" "$aof" >>"$logfile"
	launch redis "$logfile" redis-server "${args[@]}"
	deadline=$(($(now) + 30))
	until [[ $(redis-cli -h 127.0.0.1 -p "$port" ping 2>/dev/null) == PONG ]]; do
		pid_file_alive "$d/pid" || fail_start redis "redis-server exited during startup" "$logfile"
		(($(now) < deadline)) || fail_start redis "no PONG from 127.0.0.1:$port within 30 s" "$logfile"
		sleep 0.1
	done
	# With AOF on, wait until the initial load is done (ping answers during loading).
	deadline=$(($(now) + 60))
	until redis-cli -h 127.0.0.1 -p "$port" info persistence 2>/dev/null | grep -q '^loading:0'; do
		(($(now) < deadline)) || fail_start redis "still loading data after 60 s" "$logfile"
		sleep 0.1
	done
	log "redis: ready (pid $(<"$d/pid"))"
}

# ------------------------------------------------------------- cluster ----

# The node directories of the cluster, one per port: $d/node-PORT (pid, port, log).
cluster_nodes() {
	local d
	d=$(svc_dir cluster)
	[[ -s $d/ports ]] || return 0
	tr ' ' '\n' <"$d/ports"
}

# The pid of a cluster node (PORT) that is running, or fail.
cluster_node_pid() {
	local f pid
	f=$(svc_dir cluster)/node-$1/pid
	[[ -s $f ]] || return 1
	pid=$(<"$f")
	[[ $pid =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null || return 1
	tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- redis-server || return 1
	[[ $(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) != Z ]] || return 1
	printf '%s' "$pid"
}

start_cluster_node() {
	local port=$1 bus=$2 nd
	nd=$(svc_dir cluster)/node-$port
	mkdir -p "$nd"
	(
		for fd in "${LOCK_FDS[@]}"; do exec {fd}>&-; done
		exec setsid redis-server --port "$port" --bind 127.0.0.1 --protected-mode yes --daemonize no \
			--cluster-enabled yes --cluster-port "$bus" --cluster-config-file nodes.conf --cluster-node-timeout 3000 \
			--save '' --appendonly no --repl-diskless-sync-delay 0 --dir "$nd" --logfile '' \
			</dev/null >>"$nd/redis.log" 2>&1
	) &
	LAUNCHED+=("cluster:$!")
	printf '%s\n' "$!" >"$nd/pid"
}

# True when every node answers cluster_state:ok with all 16384 slots served, and every
# replica is in sync with its master (until then it could not take over from it).
cluster_ok() {
	local p info
	for p in $(cluster_nodes); do
		info=$(redis-cli -h 127.0.0.1 -p "$p" cluster info 2>/dev/null) || return 1
		grep -q '^cluster_state:ok' <<<"$info" || return 1
		grep -q '^cluster_slots_ok:16384' <<<"$info" || return 1
		info=$(redis-cli -h 127.0.0.1 -p "$p" info replication 2>/dev/null) || return 1
		if grep -q '^role:slave' <<<"$info"; then
			grep -q '^master_link_status:up' <<<"$info" || return 1
		fi
	done
}

start_cluster() {
	local reuse=$1 d ports buses p i=0 deadline fresh=1 nodes=() bus=() replicas nodes_n
	replicas=${REDCRAWL_CLUSTER_REPLICAS:-1}
	[[ $replicas =~ ^[01]$ ]] || die "REDCRAWL_CLUSTER_REPLICAS must be 0 or 1, not '$replicas'"
	nodes_n=$((3 * (1 + replicas)))
	d=$(svc_dir cluster)
	if [[ $reuse == 1 && -s $d/ports && -s $d/buses ]]; then
		ports=$(<"$d/ports")
		buses=$(<"$d/buses")
		# shellcheck disable=SC2086 # lists of ports
		wait_ports_free $ports $buses
		fresh=0
	else
		# The cluster bus ports are chosen too: the default (port + 10000) may be taken or
		# beyond 65535.
		read -r -a bus <<<"$(free_ports $((2 * nodes_n)))"
		ports=${bus[*]:0:nodes_n}
		buses=${bus[*]:nodes_n:nodes_n}
		rm -rf "$d"/node-*
		printf '%s\n' "$ports" >"$d/ports"
		printf '%s\n' "$buses" >"$d/buses"
	fi
	read -r -a bus <<<"$buses"
	printf '%s\n' "${ports%% *}" >"$d/port"
	log "cluster: starting $nodes_n nodes on 127.0.0.1 ports $ports (logs $d/node-PORT/redis.log)"
	for p in $ports; do
		start_cluster_node "$p" "${bus[i++]}"
		nodes+=("127.0.0.1:$p")
	done
	cp "$d/node-${ports%% *}/pid" "$d/pid"
	deadline=$(($(now) + 30))
	for p in $ports; do
		until [[ $(redis-cli -h 127.0.0.1 -p "$p" ping 2>/dev/null) == PONG ]]; do
			pid_file_alive "$d/node-$p/pid" || fail_start cluster "node $p exited during startup" "$d/node-$p/redis.log"
			(($(now) < deadline)) || fail_start cluster "no PONG from 127.0.0.1:$p within 30 s" "$d/node-$p/redis.log"
			sleep 0.1
		done
	done
	if ((fresh)); then
		timeout 60 redis-cli --cluster create "${nodes[@]}" --cluster-replicas "$replicas" --cluster-yes >"$d/create.log" 2>&1 ||
			fail_start cluster "redis-cli --cluster create failed" "$d/create.log"
	fi
	deadline=$(($(now) + 60))
	until cluster_ok; do
		(($(now) < deadline)) || fail_start cluster "cluster_state not ok on every node within 60 s" "$d/create.log"
		sleep 0.2
	done
	log "cluster: ready (3 masters + $((nodes_n - 3)) replicas, seed 127.0.0.1:${ports%% *})"
}

stop_cluster() {
	local p pid pids=() deadline
	for p in $(cluster_nodes); do
		if pid=$(cluster_node_pid "$p"); then
			kill -TERM "$pid" 2>/dev/null || true
			pids+=("$pid")
		fi
	done
	log "cluster: stopping ${#pids[@]} nodes (SIGTERM)"
	deadline=$(($(now) + 20))
	for pid in "${pids[@]}"; do
		while kill -0 "$pid" 2>/dev/null; do
			if (($(now) >= deadline)); then
				log "cluster: pid $pid still alive after 20 s, sending SIGKILL"
				kill -KILL "$pid" 2>/dev/null || true
				break
			fi
			sleep 0.2
		done
	done
	rm -f "$(svc_dir cluster)/pid"
	log "cluster: stopped"
}

# --------------------------------------------------------------- kafka ----

kafka_libs() { printf '%s/kafka-%s/libs' "$CACHE_DIR" "$KAFKA_VERSION"; }

# Resolve the broker's jars from Maven Central once; reuse while complete.
ensure_kafka_jars() {
	local base libs marker t0
	base=$CACHE_DIR/kafka-$KAFKA_VERSION
	libs=$base/libs
	marker=$base/.complete
	[[ -f $marker ]] && return 0
	lock_file "$base.lock" "Kafka jar download"
	[[ -f $marker ]] && return 0
	command -v mvn >/dev/null || die "mvn not found: install Maven (needed once to fetch the Kafka jars)"
	t0=$(now)
	log "kafka: resolving kafka_2.13:$KAFKA_VERSION jars from Maven Central into $libs (once)"
	rm -rf "$libs" "$base/pom"
	mkdir -p "$base/pom"
	cat >"$base/pom/pom.xml" <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<!-- Throwaway POM written by redcrawl scripts/services.sh to fetch a Kafka broker. -->
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>redcrawl</groupId>
  <artifactId>kafka-broker-runtime</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>org.apache.kafka</groupId>
      <artifactId>kafka_2.13</artifactId>
      <version>$KAFKA_VERSION</version>
    </dependency>
    <dependency>
      <groupId>org.slf4j</groupId>
      <artifactId>slf4j-reload4j</artifactId>
      <version>$SLF4J_RELOAD4J_VERSION</version>
    </dependency>
    <dependency>
      <groupId>ch.qos.reload4j</groupId>
      <artifactId>reload4j</artifactId>
      <version>$RELOAD4J_VERSION</version>
    </dependency>
  </dependencies>
</project>
EOF
	if ! mvn -B -q -f "$base/pom/pom.xml" "$DEPENDENCY_PLUGIN:copy-dependencies" \
		-DoutputDirectory="$libs" -DincludeScope=runtime >"$base/mvn.log" 2>&1; then
		tail -n 30 "$base/mvn.log" >&2 || true
		die "kafka: Maven could not resolve the broker jars; see $base/mvn.log"
	fi
	[[ -f $libs/kafka_2.13-$KAFKA_VERSION.jar && -f $libs/reload4j-$RELOAD4J_VERSION.jar ]] ||
		die "kafka: jars incomplete in $libs; see $base/mvn.log"
	touch "$marker"
	log "kafka: $(find "$libs" -name '*.jar' | wc -l) jars ready in $(($(now) - t0)) s"
}

# A SASL/PLAIN listener over TLS (SASL_SSL, a test CA in tls/) beside the plain one, for
# clients that authenticate: user "crawler",
# a password made per broker dir (sasl-password, mode 600) and a librdkafka client config
# (client-sasl.properties) that names no secret (REDCRAWL_KAFKA_PASSWORD_FILE gives it).
write_kafka_sasl() {
	local d=$1
	if [[ ! -s $d/sasl-password ]]; then
		(umask 077 && head -c 18 /dev/urandom | base64 | tr -d '/+=' >"$d/sasl-password")
	fi
	cat >"$d/client-sasl.properties" <<EOF
# librdkafka client settings for the SASL listener (REDCRAWL_KAFKA_CONFIG); the password
# comes from REDCRAWL_KAFKA_PASSWORD_FILE=$d/sasl-password
security.protocol=SASL_SSL
ssl.ca.location=$d/tls/ca.pem
sasl.mechanisms=PLAIN
sasl.username=crawler
EOF
}

write_kafka_config() {
	local d=$1 port=$2 cport=$3 sport=$4
	write_kafka_sasl "$d"
	make_tls "$d/tls"
	# Kafka reads a PEM keystore as one file: the (PKCS#8, unencrypted) key, then the chain.
	(umask 077 && cat "$d/tls/server.key" "$d/tls/server.crt" >"$d/tls/server-keystore.pem")
	cat >"$d/server.properties" <<EOF
# Written by redcrawl scripts/services.sh: single-node KRaft broker for tests.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$cport
listeners=PLAINTEXT://$KAFKA_HOST:$port,CONTROLLER://127.0.0.1:$cport,SASL_SSL://127.0.0.1:$sport
advertised.listeners=PLAINTEXT://$KAFKA_HOST:$port,SASL_SSL://127.0.0.1:$sport
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SASL_SSL:SASL_SSL
sasl.enabled.mechanisms=PLAIN
listener.name.sasl_ssl.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_crawler="$(<"$d/sasl-password")";
listener.name.sasl_ssl.ssl.keystore.type=PEM
listener.name.sasl_ssl.ssl.keystore.location=$d/tls/server-keystore.pem
log.dirs=$d/data
num.network.threads=2
num.io.threads=4
num.recovery.threads.per.data.dir=1
auto.create.topics.enable=true
delete.topic.enable=true
num.partitions=1
default.replication.factor=1
min.insync.replicas=1
offsets.topic.replication.factor=1
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=1
group.initial.rebalance.delay.ms=0
# Let tests use short consumer session timeouts (client session.timeout.ms >= this).
group.min.session.timeout.ms=1000
log.retention.hours=24
log.segment.bytes=67108864
log.retention.check.interval.ms=300000
EOF
	cat >"$d/log4j.properties" <<EOF
# Written by redcrawl scripts/services.sh
log4j.rootLogger=INFO, file
log4j.appender.file=org.apache.log4j.FileAppender
log4j.appender.file.File=$d/logs/server.log
log4j.appender.file.Append=true
log4j.appender.file.layout=org.apache.log4j.PatternLayout
log4j.appender.file.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.kafka.request.logger=WARN
log4j.logger.org.apache.kafka.controller=INFO
log4j.logger.kafka.log.LogCleaner=WARN
log4j.logger.state.change.logger=WARN
log4j.logger.kafka.authorizer.logger=WARN
EOF
}

start_kafka() {
	local reuse=$1 d port cport sport logfile deadline libs heap cluster_id
	d=$(svc_dir kafka)
	logfile=$d/logs/server.log
	ensure_kafka_jars
	libs=$(kafka_libs)
	command -v java >/dev/null || die "java not found: install a JDK 17"
	command -v kcat >/dev/null || die "kcat not found: apt-get install -y kcat"
	if [[ $reuse == 1 && -s $d/port && -s $d/cport && -s $d/sport && -f $d/data/meta.properties ]]; then
		port=$(<"$d/port")
		cport=$(<"$d/cport")
		sport=$(<"$d/sport")
		wait_ports_free "$port" "$cport" "$sport"
		log "kafka: reusing ports $port/$cport/$sport and data in $d/data"
	else
		read -r port cport sport < <(free_ports 3)
		if [[ $OPT_KEEP == 0 ]]; then rm -rf "$d/data" "$d/logs"; fi
	fi
	mkdir -p "$d/data" "$d/logs"
	printf '%s\n' "$port" >"$d/port"
	printf '%s\n' "$cport" >"$d/cport"
	printf '%s\n' "$sport" >"$d/sport"
	printf '%s\n' "$KAFKA_HOST" >"$d/host"
	write_kafka_config "$d" "$port" "$cport" "$sport"
	if [[ ! -f $d/data/meta.properties ]]; then
		cluster_id=$(java -cp "$libs/*" kafka.tools.StorageTool random-uuid 2>>"$d/logs/storage-tool.log") ||
			die "kafka: StorageTool random-uuid failed; see $d/logs/storage-tool.log"
		java -Dlog4j.configuration="file:$d/log4j.properties" -cp "$libs/*" kafka.tools.StorageTool \
			format -t "$cluster_id" -c "$d/server.properties" >>"$d/logs/storage-tool.log" 2>&1 ||
			die "kafka: StorageTool format failed; see $d/logs/storage-tool.log"
		log "kafka: formatted storage (cluster id $cluster_id)"
	fi
	heap=${REDCRAWL_KAFKA_HEAP:-512m}
	log "kafka: starting broker on $KAFKA_HOST:$port (controller $cport, log $logfile)"
	printf '\n==== %s start port=%s cport=%s\n' "$(date -Is)" "$port" "$cport" >>"$d/logs/kafka.out"
	launch kafka "$d/logs/kafka.out" java \
		"-Xms$heap" "-Xmx$heap" \
		-XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 \
		-XX:+ExplicitGCInvokesConcurrent -XX:+ExitOnOutOfMemoryError \
		"-Xlog:gc*:file=$d/logs/gc.log:time,tags:filecount=2,filesize=10M" \
		-Djava.awt.headless=true \
		"-Dlog4j.configuration=file:$d/log4j.properties" \
		"-Dkafka.logs.dir=$d/logs" \
		-cp "$libs/*" kafka.Kafka "$d/server.properties"
	deadline=$(($(now) + ${REDCRAWL_KAFKA_WAIT:-120}))
	until kcat -b "$KAFKA_HOST:$port" -L -m 2 >/dev/null 2>&1; do
		pid_file_alive "$d/pid" || fail_start kafka "broker exited during startup (also see $d/logs/kafka.out)" "$logfile"
		(($(now) < deadline)) ||
			fail_start kafka "no metadata from $KAFKA_HOST:$port within ${REDCRAWL_KAFKA_WAIT:-120} s" "$logfile"
		sleep 0.5
	done
	log "kafka: ready (pid $(<"$d/pid"))"
}

# --------------------------------------------------------------- mongo ----

ferretdb_bin() { printf '%s/ferretdb-%s/ferretdb' "$CACHE_DIR" "$FERRETDB_VERSION"; }

# Build the embedded FerretDB once; rebuild only when its source changes.
ensure_ferretdb() {
	local src=$REPO_DIR/deploy/ferretdb bin stamp want t0
	bin=$(ferretdb_bin)
	stamp=$bin.src-sha256
	[[ -f $src/main.go && -f $src/go.mod && -f $src/go.sum ]] || die "mongo: missing $src/{main.go,go.mod,go.sum}"
	want=$(cat "$src/main.go" "$src/go.mod" "$src/go.sum" | sha256sum | cut -d' ' -f1)
	if [[ -x $bin && -f $stamp && $(<"$stamp") == "$want" ]]; then return 0; fi
	lock_file "$bin.lock" "FerretDB build"
	if [[ -x $bin && -f $stamp && $(<"$stamp") == "$want" ]]; then return 0; fi
	command -v go >/dev/null || die "go not found: install Go (needed once to build FerretDB)"
	t0=$(now)
	log "mongo: building FerretDB v$FERRETDB_VERSION into $bin (once; the first build takes minutes)"
	if ! (cd "$src" && CGO_ENABLED=0 go build -trimpath -o "$bin.tmp" .) >"$bin.build.log" 2>&1; then
		tail -n 30 "$bin.build.log" >&2 || true
		die "mongo: FerretDB build failed; see $bin.build.log"
	fi
	mv -f "$bin.tmp" "$bin"
	printf '%s\n' "$want" >"$stamp"
	log "mongo: FerretDB built in $(($(now) - t0)) s"
}

# make_tls DIR: a test CA (DIR/ca.pem) and a server certificate it signed for 127.0.0.1 and
# localhost (DIR/server.crt, DIR/server.key: PKCS#8, unencrypted, mode 600), made once per
# state dir with openssl. Only the tests' clients trust this CA (by file, never system-wide).
make_tls() {
	local t=$1
	[[ -s $t/server.crt && -s $t/server.key && -s $t/ca.pem ]] && return 0
	mkdir -p "$t"
	(
		umask 077
		openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=redcrawl test CA" \
			-keyout "$t/ca.key" -out "$t/ca.pem" 2>/dev/null
		openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" -keyout "$t/server.key" \
			-out "$t/server.csr" 2>/dev/null
		printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' >"$t/ext.cnf"
		openssl x509 -req -in "$t/server.csr" -CA "$t/ca.pem" -CAkey "$t/ca.key" -CAcreateserial \
			-days 3650 -extfile "$t/ext.cnf" -out "$t/server.crt" 2>/dev/null
	) || die "cannot make test TLS certificates in $t (openssl)"
	chmod 644 "$t/ca.pem" "$t/server.crt"
}

# make_client_cert DIR: a client certificate signed by make_tls's CA (DIR/client.crt,
# DIR/client.key), for servers that ask for one (Redis --tls-auth-clients).
make_client_cert() {
	local t=$1
	[[ -s $t/client.crt && -s $t/client.key ]] && return 0
	(
		umask 077
		openssl req -newkey rsa:2048 -nodes -subj "/CN=redcrawl test client" -keyout "$t/client.key" \
			-out "$t/client.csr" 2>/dev/null
		printf 'extendedKeyUsage=clientAuth\n' >"$t/client-ext.cnf"
		openssl x509 -req -in "$t/client.csr" -CA "$t/ca.pem" -CAkey "$t/ca.key" -CAcreateserial \
			-days 3650 -extfile "$t/client-ext.cnf" -out "$t/client.crt" 2>/dev/null
	) || die "cannot make a test client certificate in $t (openssl)"
	chmod 644 "$t/client.crt"
}

start_mongo() {
	local reuse=$1 d port logfile deadline bin
	d=$(svc_dir mongo)
	logfile=$d/ferretdb.log
	ensure_ferretdb
	bin=$(ferretdb_bin)
	if [[ $reuse == 1 && -s $d/port ]]; then
		port=$(<"$d/port")
		wait_ports_free "$port"
	else
		port=$(free_ports 1)
		if [[ $OPT_KEEP == 0 ]]; then rm -rf "$d/data"; fi
	fi
	mkdir -p "$d/data"
	printf '%s\n' "$port" >"$d/port"
	log "mongo: starting FerretDB on 127.0.0.1:$port (data $d/data, log $logfile)"
	printf '\n==== %s start port=%s\n' "$(date -Is)" "$port" >>"$logfile"
	# A TLS listener beside the plain one (a test CA in $d/tls): for clients that test TLS.
	make_tls "$d/tls"
	if [[ ! ($reuse == 1 && -s $d/tport) ]]; then free_ports 1 >"$d/tport"; fi
	launch mongo "$logfile" "$bin" -listen "127.0.0.1:$port" -dir "$d/data" \
		-listen-tls "127.0.0.1:$(<"$d/tport")" -tls-cert "$d/tls/server.crt" -tls-key "$d/tls/server.key"
	deadline=$(($(now) + 60))
	until python3 "$SCRIPT_DIR/mongo_ping.py" --quiet --timeout 2 "127.0.0.1:$port" 2>/dev/null; do
		pid_file_alive "$d/pid" || fail_start mongo "FerretDB exited during startup" "$logfile"
		(($(now) < deadline)) || fail_start mongo "no ping reply from 127.0.0.1:$port within 60 s" "$logfile"
		sleep 0.2
	done
	log "mongo: ready (pid $(<"$d/pid"))"
}

# ------------------------------------------------------------- commands ----

# start_one SERVICE REUSE: start unless running; print the export line.
start_one() {
	local svc=$1 reuse=$2
	mkdir -p "$(svc_dir "$svc")"
	lock_file "$(svc_dir "$svc").lock" "$svc start/stop"
	if svc_running "$svc"; then
		log "$svc: already running (pid $(svc_pid "$svc"))"
	else
		"start_$svc" "$reuse"
	fi
	export_line "$svc"
}

stop_one() {
	local svc=$1
	[[ -d $(svc_dir "$svc") ]] || {
		log "$svc: not running"
		return 0
	}
	lock_file "$(svc_dir "$svc").lock" "$svc start/stop"
	stop_svc "$svc"
}

restart_one() {
	local svc=$1
	mkdir -p "$(svc_dir "$svc")"
	lock_file "$(svc_dir "$svc").lock" "$svc start/stop"
	stop_svc "$svc"
	"start_$svc" 1
	export_line "$svc"
}

status_one() {
	local svc=$1 pid
	if pid=$(svc_pid "$svc"); then
		log "$svc: running pid=$pid port=$(<"$(svc_dir "$svc")/port") dir=$(svc_dir "$svc")"
		export_line "$svc"
	else
		log "$svc: not running"
		return 1
	fi
}

main() {
	local cmd="" svc="" s rc=0
	(($# > 0)) || usage
	cmd=$1
	shift
	if [[ $cmd == fetch ]]; then
		case ${1:-} in
		kafka) ensure_kafka_jars ;;
		mongo) ensure_ferretdb ;;
		all) ensure_kafka_jars && ensure_ferretdb ;;
		*) die "fetch needs a service: kafka, mongo or all" ;;
		esac
		return 0
	fi
	if [[ $cmd == tls ]]; then
		(($# == 1)) || die "tls needs a directory"
		mkdir -p "$1"
		make_tls "$1"
		make_client_cert "$1"
		(cd "$1" && pwd)
		return 0
	fi
	while (($# > 0)); do
		case $1 in
		--dir)
			(($# >= 2)) || die "--dir needs a value"
			STATE_DIR=$2
			shift 2
			;;
		--dir=*)
			STATE_DIR=${1#--dir=}
			shift
			;;
		--aof)
			OPT_AOF=yes
			shift
			;;
		--no-aof)
			OPT_AOF=no
			shift
			;;
		--keep-data)
			OPT_KEEP=1
			shift
			;;
		-h | --help) usage ;;
		redis | cluster | kafka | mongo | all)
			[[ -z $svc ]] || die "only one service at a time (or 'all')"
			svc=$1
			shift
			;;
		*) die "unknown argument '$1' (try --help)" ;;
		esac
	done
	mkdir -p "$STATE_DIR"
	STATE_DIR=$(cd "$STATE_DIR" && pwd)
	local services=("$svc")
	if [[ $svc == all ]]; then
		services=(redis kafka mongo)
	elif [[ $cmd == status && -z $svc ]]; then
		services=(redis cluster kafka mongo)
	fi
	case $cmd in
	start | restart | stop)
		[[ -n $svc ]] || die "$cmd needs a service: redis, cluster, kafka, mongo or all"
		for s in "${services[@]}"; do
			# Each service in its own subshell so its locks are released after it.
			case $cmd in
			start) (start_one "$s" "$OPT_KEEP") ;;
			restart) (restart_one "$s") ;;
			stop) (stop_one "$s") ;;
			esac
		done
		;;
	status)
		for s in "${services[@]}"; do
			(status_one "$s") || rc=1
		done
		if ((${#services[@]} > 1)); then rc=0; fi
		return "$rc"
		;;
	-h | --help | help) usage ;;
	*) die "unknown command '$cmd' (try --help)" ;;
	esac
}

main "$@"

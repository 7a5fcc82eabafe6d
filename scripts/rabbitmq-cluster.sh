#!/usr/bin/env bash
# A 3-node RabbitMQ cluster on this machine, for tests (the chaos suite's --cluster mode) and trying
# things out, following RabbitMQ's clustering guide ("a cluster on a single machine"): each node
# has its own node name, AMQP port, distribution port, data and log directories; the three share one
# Erlang cookie, made for the cluster in its directory. Nodes 2 and 3 join node 1.
#
# It never touches the machine's own broker (rabbit@localhost on 5672): its nodes have other names
# and ports, their own config, env and enabled-plugins files (the system's are not read), and the
# cookie lives in the cluster's directory ($HOME points there for the Erlang VM and the CLI tools).
#
#   scripts/rabbitmq-cluster.sh start        start the three nodes and form the cluster; prints AMQP_URL
#   scripts/rabbitmq-cluster.sh stop         stop every node and remove the directory
#   scripts/rabbitmq-cluster.sh kill N       kill -9 node N (1-3), as a crash would
#   scripts/rabbitmq-cluster.sh start-node N start node N again (after kill); it rejoins the cluster
#   scripts/rabbitmq-cluster.sh status       the cluster status as node 1 sees it
#   scripts/rabbitmq-cluster.sh url          the AMQP_URL naming the three nodes
#
# Settings: RABBIT_CLUSTER_DIR (default /tmp/bo-rabbitmq-cluster), RABBIT_CLUSTER_PORT (node 1's AMQP
# port, default 5682; nodes 2 and 3 take the next two; distribution ports are these + 20000),
# RABBIT_CLUSTER_NAME (node name prefix, default bo<port>n: nodes bo5682n1@localhost ...).
set -euo pipefail

DIR="${RABBIT_CLUSTER_DIR:-/tmp/bo-rabbitmq-cluster}"
BASE_PORT="${RABBIT_CLUSTER_PORT:-5682}"
NAME="${RABBIT_CLUSTER_NAME:-bo${BASE_PORT}n}"
SBIN="${RABBITMQ_SBIN:-/usr/lib/rabbitmq/bin}"
NODES=(1 2 3)

node_name() { echo "${NAME}$1@localhost"; }
node_port() { echo $((BASE_PORT + $1 - 1)); }
node_dir() { echo "$DIR/node$1"; }

# The environment of node N's server and of the CLI tools talking to it.
node_env() {
  local n="$1" d
  d="$(node_dir "$n")"
  export HOME="$DIR"
  export RABBITMQ_NODENAME="$(node_name "$n")"
  export RABBITMQ_NODE_IP_ADDRESS=127.0.0.1
  export RABBITMQ_NODE_PORT="$(node_port "$n")"
  export RABBITMQ_DIST_PORT="$(($(node_port "$n") + 20000))"
  export RABBITMQ_MNESIA_BASE="$d/mnesia"
  export RABBITMQ_LOG_BASE="$d/log"
  export RABBITMQ_PID_FILE="$d/pid"
  export RABBITMQ_CONFIG_FILE="$d/rabbitmq.conf"
  export RABBITMQ_ADVANCED_CONFIG_FILE="$d/advanced.config"
  export RABBITMQ_CONF_ENV_FILE="$DIR/rabbitmq-env.conf"
  export RABBITMQ_ENABLED_PLUGINS_FILE="$d/enabled_plugins"
  export RABBITMQ_PLUGINS_EXPAND_DIR="$d/plugins-expand"
  export ERL_EPMD_ADDRESS=127.0.0.1
}

ctl() {
  local n="$1"
  shift
  (node_env "$n" && "$SBIN/rabbitmqctl" -n "$(node_name "$n")" "$@")
}

url() {
  local urls=()
  for n in "${NODES[@]}"; do urls+=("amqp://guest:guest@127.0.0.1:$(node_port "$n")"); done
  (IFS=,; echo "${urls[*]}")
}

prepare() {
  mkdir -p "$DIR"
  if [ ! -f "$DIR/.erlang.cookie" ]; then
    head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' | tr 'a-f' 'A-F' > "$DIR/.erlang.cookie"
    chmod 400 "$DIR/.erlang.cookie"
  fi
  : > "$DIR/rabbitmq-env.conf"
  for n in "${NODES[@]}"; do
    local d
    d="$(node_dir "$n")"
    mkdir -p "$d/log"
    echo '[].' > "$d/enabled_plugins"
    cat > "$d/rabbitmq.conf" <<EOF
listeners.tcp.default = 127.0.0.1:$(node_port "$n")
loopback_users.guest = true
# Quorum queues of a test run are small; the nodes share a machine with other work.
vm_memory_high_watermark.relative = 0.2
disk_free_limit.absolute = 50MB
log.file.level = warning
EOF
  done
}

start_node() {
  local n="$1" d
  d="$(node_dir "$n")"
  if [ -f "$d/pid" ] && kill -0 "$(cat "$d/pid")" 2>/dev/null; then return 0; fi
  (node_env "$n" && exec "$SBIN/rabbitmq-server" >> "$d/log/console.log" 2>&1) &
  echo $! > "$d/pid"
}

# await_startup fails at once while the node has not registered with epmd yet: wait for that first.
await_node() {
  local n="$1" deadline=$((SECONDS + 120))
  until ctl "$n" ping > /dev/null 2>&1; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "node $(node_name "$n") did not come up; see $(node_dir "$n")/log" >&2
      return 1
    fi
    sleep 0.5
  done
  ctl "$n" await_startup --timeout 120 > /dev/null
}

start() {
  prepare
  for n in "${NODES[@]}"; do start_node "$n"; done
  for n in "${NODES[@]}"; do await_node "$n"; done
  for n in "${NODES[@]:1}"; do
    # Already a member (a start after a partial stop): nothing to join.
    if ctl "$n" cluster_status --formatter json 2> /dev/null | grep -q "$(node_name 1)"; then continue; fi
    ctl "$n" stop_app > /dev/null
    ctl "$n" join_cluster "$(node_name 1)" > /dev/null
    ctl "$n" start_app > /dev/null
  done
  url
}

kill_node() {
  local pidfile pid
  pidfile="$(node_dir "$1")/pid"
  [ -f "$pidfile" ] || return 0
  pid="$(cat "$pidfile")"
  kill -9 "$pid" 2> /dev/null || true
  # Gone for good before it is started again (the restart would otherwise find it still running).
  while kill -0 "$pid" 2> /dev/null; do sleep 0.1; done
  rm -f "$pidfile"
}

stop() {
  [ -d "$DIR" ] || return 0
  for n in "${NODES[@]}"; do
    local pidfile pid
    pidfile="$(node_dir "$n")/pid"
    [ -f "$pidfile" ] || continue
    # Read first: a node that stops cleanly removes its pid file.
    pid="$(cat "$pidfile")"
    if kill -0 "$pid" 2> /dev/null; then
      timeout 30 "$0" _ctl "$n" stop > /dev/null 2>&1 || true
      kill -9 "$pid" 2> /dev/null || true
    fi
  done
  rm -rf "$DIR"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  kill) kill_node "${2:?node number}" ;;
  start-node)
    start_node "${2:?node number}"
    await_node "$2"
    ;;
  status) ctl 1 cluster_status ;;
  url) url ;;
  _ctl)
    shift
    ctl "$@"
    ;;
  *)
    sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
    exit 2
    ;;
esac

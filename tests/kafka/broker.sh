# shellcheck shell=bash disable=SC2034,SC2154 # sets and reads the sourcing script's variables
# A real Apache Kafka cluster for the `kafka` tests (sourced after
# tests/integration/lib.sh, whose work_init must have run):
#
#   # shellcheck source=tests/kafka/broker.sh
#   . "$src/tests/kafka/broker.sh"
#   kafka_start 3            # three nodes; sets boot (the bootstrap list)
#   kafka_admin create events:12:3 "g-cases-changelog:12:3:cleanup.policy=compact"
#   kafka_node_kill 2; kafka_node_start 2
#
# The broker is Apache Kafka in KRaft mode, every node both broker and
# controller (a quorum of all of them), run by the machine's OpenJDK 17 from
# the jars deploy/deps.sh --kafka fetched (pinned in tests/kafka/pom.xml,
# checked against tests/kafka/jars.sha256): kafka.tools.StorageTool format,
# then kafka.Kafka with a server.properties written here. Ports are free
# ones of 127.0.0.1 picked at start. Each node lives in $work/kafka/nodeN:
# server.properties, data/, server.log (everything at INFO) and warn.log
# (warnings and errors: what fail shows of it). ctest gives every test a
# work directory of its own, so the logs stay there after a failure; a test
# run by hand without one loses them with its temporary directory.
#
# The JVMs run with a small heap (KAFKA_HEAP, 256m), at the daemons'
# priority (see kafka__jvm), and are tracked like the daemons: lib.sh's EXIT trap kills what is still
# running. kafka_stop stops the cluster cleanly (SIGTERM) before that.
#
# Settings a test may change before kafka_start: KAFKA_HEAP, KAFKA_PROPS
# (more server.properties lines, one per array element).

kafka_dir_src=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
kafka_top=$(cd "$kafka_dir_src/../.." && pwd)
KAFKA_HEAP=${KAFKA_HEAP:-256m}
declare -ga KAFKA_PROPS=("${KAFKA_PROPS[@]}")
declare -gA kafka_pid=() kafka_port=() kafka_cport=()
kafka_nodes=0 kafka__led_out=

# kafka__jars: $kafka_cp, the broker's class path (fetched and verified
# first), and $kafka_admin_cp with KafkaAdmin compiled (once per source).
kafka__jars() {
  local ver sum dir
  "$kafka_top/deploy/deps.sh" --kafka >&2 || fail "deploy/deps.sh --kafka failed"
  ver=$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$kafka_dir_src/pom.xml")
  dir=${PMRAG_DEPS_DIR:-$kafka_top/.deps}/kafka/$ver
  kafka_version=$ver
  kafka_cp="$dir/*"
  sum=$(sha256sum "$kafka_dir_src/KafkaAdmin.java" | cut -c1-16)
  if [[ ! -f $dir/admin-$sum/KafkaAdmin.class ]]; then
    rm -rf "$dir/admin-$sum.tmp"
    mkdir -p "$dir/admin-$sum.tmp"
    nice -n 19 javac -cp "$kafka_cp" -d "$dir/admin-$sum.tmp" "$kafka_dir_src/KafkaAdmin.java" ||
      fail "javac KafkaAdmin.java"
    rm -rf "$dir/admin-$sum"
    mv "$dir/admin-$sum.tmp" "$dir/admin-$sum"
  fi
  kafka_admin_cp="$dir/admin-$sum:$kafka_cp"
}

# The JVM's options: a small heap, the serial collector and the client
# compiler only (two cores shared with everything else: start-up and
# steady state both cheaper). Not niced: the broker is part of what the
# test runs, and at nice 19 it got a sliver of the cores as soon as
# anything else ran (the daemons, kcat, a compile), so that group
# sessions timed out, produce requests waited 40 s and a daemon was not
# ready in 60 s (scale_out, on a busy machine). The kafka tests run one at
# a time (RUN_SERIAL), so nothing of the suite competes with them.
kafka__jvm=(java "-Xmx$KAFKA_HEAP" -Xms64m -XX:+UseSerialGC -XX:TieredStopAtLevel=1
  -Djava.awt.headless=true)

# kafka_admin ARG...: KafkaAdmin $boot ARG... (see KafkaAdmin.java); after
# `create`, also kafka__led on the topics.
kafka_admin() {
  "${kafka__jvm[@]}" -Xmx128m -cp "$kafka_admin_cp" KafkaAdmin "$boot" "$@" || return
  if [[ $1 == create ]]; then kafka__led "${@:2}"; fi
}

# kafka__led NAME:PARTITIONS[:...]...: until every running node, asked on
# its own (kcat -L with it alone as the bootstrap), answers each topic
# with all its partitions and a leader for each (30 s); returns 1 then.
# KafkaAdmin create waits for leaders in the answer of one node; another
# one may not have caught up with the metadata log yet, and a client that
# asks it first gets UnknownTopicOrPartition (scale_out saw it with three
# nodes on a busy machine).
kafka__led() {
  local try
  for ((try = 0; try < 300; try++)); do
    kafka__led_once "$@" && return 0
    sleep 0.1
  done
  echo "kafka: a node still lacks a leader for one of $* after 30 s: $kafka__led_out" >&2
  return 1
}
kafka__led_once() {
  local spec name parts i
  for spec in "$@"; do
    IFS=: read -r name parts _ <<<"$spec"
    for i in "${!kafka_pid[@]}"; do
      running "${kafka_pid[$i]}" || continue
      kafka__led_out=$(kcat -L -b "127.0.0.1:${kafka_port[$i]}" -t "$name" -m 5 2>&1) || return 1
      [[ $(grep -cE '^ +partition [0-9]+, leader [0-9]+,' <<<"$kafka__led_out") == "$parts" ]] || return 1
      ! grep -qE 'leader -1|error|Broker:' <<<"$kafka__led_out" || return 1
    done
  done
}

# kafka__config I: nodeI's server.properties and log4j2.properties.
kafka__config() {
  local i=$1 d=$work/kafka/node$1 voters='' j
  for ((j = 1; j <= kafka_nodes; j++)); do
    voters+="${voters:+,}$j@127.0.0.1:${kafka_cport[$j]}"
  done
  mkdir -p "$d"
  {
    echo "# Written by tests/kafka/broker.sh for node $i of $kafka_nodes."
    echo "process.roles=broker,controller"
    echo "node.id=$i"
    echo "controller.quorum.voters=$voters"
    echo "listeners=PLAINTEXT://127.0.0.1:${kafka_port[$i]},CONTROLLER://127.0.0.1:${kafka_cport[$i]}"
    echo "advertised.listeners=PLAINTEXT://127.0.0.1:${kafka_port[$i]}"
    echo "controller.listener.names=CONTROLLER"
    echo "inter.broker.listener.name=PLAINTEXT"
    echo "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT"
    echo "log.dirs=$d/data"
    # Topics are created by the tests, with the partitions they mean.
    echo "auto.create.topics.enable=false"
    # The internal topics as replicated as the cluster allows.
    echo "offsets.topic.replication.factor=$((kafka_nodes < 3 ? kafka_nodes : 3))"
    echo "offsets.topic.num.partitions=4"
    echo "transaction.state.log.replication.factor=$((kafka_nodes < 3 ? kafka_nodes : 3))"
    echo "transaction.state.log.min.isr=1"
    echo "transaction.state.log.num.partitions=4"
    # The tests' consumers run with short sessions (3 to 6 s), so that a
    # killed daemon's partitions move on within the test; the broker's
    # floor (6 s by default) would refuse them.
    echo "group.min.session.timeout.ms=1000"
    echo "group.initial.rebalance.delay.ms=0"
    # Few threads: two cores for three nodes and the daemons.
    echo "num.network.threads=2"
    echo "num.io.threads=2"
    echo "num.replica.fetchers=1"
    echo "background.threads=2"
    echo "log.cleaner.threads=1"
    echo "log.cleaner.dedupe.buffer.size=8388608"
    # A quick clean shutdown: no leadership to move back and forth.
    echo "auto.leader.rebalance.enable=false"
    echo "controlled.shutdown.enable=true"
    local l
    for l in "${KAFKA_PROPS[@]}"; do echo "$l"; done
  } >"$d/server.properties"
  cat >"$d/log4j2.properties" <<EOF
# Written by tests/kafka/broker.sh: everything at INFO in server.log,
# warnings and errors also in warn.log.
status = warn
appender.all.type = File
appender.all.name = all
appender.all.fileName = $d/server.log
appender.all.layout.type = PatternLayout
appender.all.layout.pattern = [%d] %p %m (%c)%n
appender.warn.type = File
appender.warn.name = warn
appender.warn.fileName = $d/warn.log
appender.warn.layout.type = PatternLayout
appender.warn.layout.pattern = [%d] %p %m (%c)%n
appender.warn.filter.threshold.type = ThresholdFilter
appender.warn.filter.threshold.level = warn
rootLogger.level = info
rootLogger.appenderRef.all.ref = all
rootLogger.appenderRef.warn.ref = warn
EOF
}

# kafka_node_start I: starts nodeI (formatted already) in the background;
# does not wait.
kafka_node_start() {
  local d=$work/kafka/node$1
  "${kafka__jvm[@]}" "-Dlog4j2.configurationFile=$d/log4j2.properties" -cp "$kafka_cp" \
    kafka.Kafka "$d/server.properties" >>"$d/stdout.log" 2>&1 &
  kafka_pid[$1]=$!
  track "$!"
}

# kafka_node_kill I [SIGNAL]: SIGNAL (KILL) to nodeI, waited for.
kafka_node_kill() {
  kill_wait "${kafka_pid[$1]}" "${2:-KILL}"
}

# kafka_wait [SECONDS]: until every node is registered and answers (60 s).
kafka_wait() {
  local i
  for i in "${!kafka_pid[@]}"; do
    running "${kafka_pid[$i]}" || fail "kafka node $i exited: $(tail -3 "$work/kafka/node$i/stdout.log")"
  done
  kafka_admin nodes "$kafka_nodes" "${1:-60}" >/dev/null || fail "the kafka cluster did not come up"
}

# kafka_start N: an N-node cluster in $work/kafka (emptied first),
# formatted, started, and waited for; sets boot.
kafka_start() {
  local n=$1 i id ports t0
  t0=$(now)
  kafka_nodes=$n
  kafka__jars
  rm -rf "${work:?}/kafka"
  mapfile -t ports < <(free_ports $((2 * n)))
  boot=''
  for ((i = 1; i <= n; i++)); do
    kafka_port[$i]=${ports[$((2 * i - 2))]}
    kafka_cport[$i]=${ports[$((2 * i - 1))]}
    boot+="${boot:+,}127.0.0.1:${kafka_port[$i]}"
  done
  # One cluster id for all nodes: 16 random bytes, URL-safe base64 (given
  # as --cluster-id=ID: it may start with a dash).
  id=$(python3 -c 'import base64,os; print(base64.urlsafe_b64encode(os.urandom(16)).decode().rstrip("="))')
  for ((i = 1; i <= n; i++)); do
    kafka__config "$i"
    log_watch "$work/kafka/node$i/warn.log" "kafka$i"
    "${kafka__jvm[@]}" -Xmx128m -cp "$kafka_cp" kafka.tools.StorageTool format --ignore-formatted \
      "--cluster-id=$id" -c "$work/kafka/node$i/server.properties" >"$work/kafka/node$i/format.log" 2>&1 ||
      fail "kafka node $i: StorageTool format: $(tail -3 "$work/kafka/node$i/format.log")"
  done
  for ((i = 1; i <= n; i++)); do kafka_node_start "$i"; done
  kafka_wait 90
  echo "kafka: Apache Kafka $kafka_version, $n node(s) at $boot, up in $(since "$t0") s (logs in $work/kafka)"
}

# kafka_stop: every node, SIGTERM (a controlled shutdown), waited for.
kafka_stop() {
  local i
  for i in "${!kafka_pid[@]}"; do kill -TERM "${kafka_pid[$i]}" 2>/dev/null || true; done
  for i in "${!kafka_pid[@]}"; do
    { wait "${kafka_pid[$i]}"; } 2>/dev/null || true
    untrack "${kafka_pid[$i]}"
  done
}

# kafka_segments TOPIC: "P:N ..." the number of log segments (.log files)
# of each of TOPIC's partitions on node 1's disk (the leader's, with one
# node).
kafka_segments() {
  local d out=''
  for d in "$work/kafka/node1/data/$1"-*; do
    [[ -d $d ]] || continue
    out+="${d##*-}:$(find "$d" -name '*.log' | wc -l)"$'\n'
  done
  printf '%s' "$out" | sort -n | tr '\n' ' ' | sed 's/ $//'
  echo
}

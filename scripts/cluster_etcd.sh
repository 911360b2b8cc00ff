# shellcheck shell=bash
# shellcheck disable=SC2154  # dir, conf, etcd_n, ... are the launcher's
# Sourced by scripts/cluster.sh (not a program): etcd's members and users, the launcher's ports
# below the kernel's ephemeral range, and each member's files, start and status line. Uses the
# launcher's dir, conf, etcd_n (the member count), etcd_tls, etcd_roles and endpoints, and its
# die, alive, spawn, stop_pid and conf_value.

# etcd over TLS (the launcher's etcd_tls, on or off): the client URLs' scheme, and etcdctl's flags
# (the CA and the client certificate of DIR/tls, scripts/etcd_certs.sh).
etcd_scheme=http
etcdctl_tls=()
set_etcd_tls() {
  if [ "$etcd_tls" = on ]; then
    etcd_scheme=https
    etcdctl_tls=(--cacert "$dir/tls/ca.crt" --cert "$dir/tls/ecstore.crt" --key "$dir/tls/ecstore.key")
  else
    etcd_scheme=http
    etcdctl_tls=()
  fi
}

# etcd's users and roles (the launcher's etcd_roles, on or off; cluster.sh --help): each user's
# password file, the lines of ecstore.conf that name one, etcdctl acting as one, and their making.
etcd_password_file() { echo "$dir/etcd.$1.password"; }  # user
etcd_user_lines() {  # user: the config lines of a section whose programs act as USER
  echo "etcd_user = $1"
  echo "etcd_password_file = $(etcd_password_file "$1")"
}
# etcdctl as USER (its password through the environment, not the command line), or as nobody
# while etcd's users are off.
etcdctl_as() {  # user etcdctl-arguments...
  local user="$1" f
  shift
  f="$(etcd_password_file "$user")"
  if [ "$etcd_roles" = on ] && [ -s "$f" ]; then
    ETCDCTL_API=3 ETCDCTL_USER="$user:$(cat "$f")" etcdctl "$@"
  else
    ETCDCTL_API=3 etcdctl "$@"
  fi
}

# With --etcd-roles on: the users' passwords (made once), then, while etcd's auth is still off,
# the users root, osd and client, the roles of the same names (root is etcd's own; osd readwrite
# and client read on the cluster's prefix) and `auth enable`. Each step may run again: a start
# that stopped half-way finishes at the next one. Once etcd's auth is on (it refuses a request
# without a user: "user name is empty"), there is nothing to do.
make_etcd_users() {
  [ "$etcd_roles" = on ] || return 0
  local u f out out2 roles prefix
  prefix="$(conf_value etcd_prefix)"
  prefix="${prefix:-/ecstore/}"
  local ctl=("${etcdctl_tls[@]}" --endpoints "$endpoints" --dial-timeout 2s --command-timeout 10s)
  for u in root osd client; do
    f="$(etcd_password_file "$u")"
    [ -s "$f" ] && continue
    { (umask 077 && openssl rand -hex 24 > "$f.tmp") && mv "$f.tmp" "$f"; } ||
      die "cannot make etcd user $u's password (openssl rand -hex 24 > $f)"
  done
  if ! out="$(ETCDCTL_API=3 etcdctl "${ctl[@]}" user list 2>&1)"; then
    grep -q 'user name is empty' <<< "$out" && return 0
    die "cannot list etcd's users (etcdctl user list): $(tail -n 1 <<< "$out")"
  fi
  for u in root osd client; do
    f="$(etcd_password_file "$u")"
    if grep -qx "$u" <<< "$out"; then
      out2="$(ETCDCTL_API=3 etcdctl "${ctl[@]}" user passwd "$u" --interactive=false < "$f" 2>&1)"
    else
      out2="$(ETCDCTL_API=3 etcdctl "${ctl[@]}" user add "$u" --interactive=false < "$f" 2>&1)"
    fi || die "cannot make etcd user $u: $(tail -n 1 <<< "$out2")"
  done
  roles="$(ETCDCTL_API=3 etcdctl "${ctl[@]}" role list 2>&1)" ||
    die "cannot list etcd's roles: $(tail -n 1 <<< "$roles")"
  for u in root osd client; do
    if ! grep -qx "$u" <<< "$roles"; then
      out2="$(ETCDCTL_API=3 etcdctl "${ctl[@]}" role add "$u" 2>&1)" ||
        die "cannot make etcd role $u: $(tail -n 1 <<< "$out2")"
    fi
  done
  out2="$(ETCDCTL_API=3 etcdctl "${ctl[@]}" role grant-permission osd readwrite --prefix "$prefix" 2>&1 &&
          ETCDCTL_API=3 etcdctl "${ctl[@]}" role grant-permission client read --prefix "$prefix" 2>&1)" ||
    die "cannot grant the roles osd and client their keys: $(tail -n 1 <<< "$out2")"
  for u in root osd client; do
    if ! ETCDCTL_API=3 etcdctl "${ctl[@]}" user get "$u" 2>/dev/null | grep -q "^Roles:.* $u\$"; then
      out2="$(ETCDCTL_API=3 etcdctl "${ctl[@]}" user grant-role "$u" "$u" 2>&1)" ||
        die "cannot grant etcd user $u its role: $(tail -n 1 <<< "$out2")"
    fi
  done
  out2="$(ETCDCTL_API=3 etcdctl "${ctl[@]}" auth enable 2>&1)" ||
    die "cannot enable etcd's auth: $(tail -n 1 <<< "$out2")"
  echo "etcd: users root, osd and client made, auth enabled (passwords in $dir/etcd.USER.password)"
}

# Ports for the launcher to pick: below the kernel's ephemeral range, where only a program that
# binds a port by number can take one (above it if the range starts too low to leave room).
port_lo="" port_hi=""
port_range() {
  [ -z "$port_lo" ] || return 0
  local lo=32768 hi=60999
  read -r lo hi < /proc/sys/net/ipv4/ip_local_port_range || true
  if [ "$lo" -gt 11000 ]; then port_lo=10000 port_hi=$((lo - 1))
  elif [ "$lo" -gt 1124 ]; then port_lo=1024 port_hi=$((lo - 1))
  elif [ "$hi" -lt 65435 ]; then port_lo=$((hi + 1)) port_hi=65535
  else die "the ephemeral port range $lo..$hi leaves no room for etcd's ports"
  fi
}
safe_port() { port_range; [ "$1" -ge "$port_lo" ] && [ "$1" -le "$port_hi" ]; }

# A TCP port on 127.0.0.1 in the range above that no socket holds (/proc/net/tcp{,6}: any state,
# any address) and nothing answers on (bash's /dev/tcp: a refused connect is free), other than
# the ports given (chosen already for another member, not bound yet).
free_port() {  # [PORT ...]
  port_range
  local -A used=()
  local hex p
  while read -r hex; do
    used[$((16#$hex))]=1
  done < <(awk 'FNR > 1 { split($2, a, ":"); print a[2] }' /proc/net/tcp /proc/net/tcp6 2>/dev/null)
  for p in "$@"; do used[$p]=1; done
  for _ in $(seq 1 200); do
    p=$((port_lo + (RANDOM * 32768 + RANDOM) % (port_hi - port_lo + 1)))
    [ -z "${used[$p]:-}" ] || continue
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return; fi
  done
  die "no free port found in $port_lo..$port_hi"
}

# Whether a program listens on TCP port P (/proc/net/tcp{,6} state 0A, any address) or answers
# on it on loopback. The closing sockets a killed etcd leaves (TIME_WAIT) do not count: etcd
# binds with SO_REUSEADDR.
port_held() {  # port
  local hex
  hex="$(printf '%04X' "$1")"
  if awk -v h="$hex" 'FNR > 1 { split($2, a, ":"); if (a[2] == h && $4 == "0A") f = 1 }
                      END { exit !f }' /proc/net/tcp /proc/net/tcp6 2>/dev/null; then
    return 0
  fi
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# etcd's members: one keeps the files of a one-member etcd as always (DIR/etcd, etcd.log,
# etcd.pid, etcd.ports, named "etcd"), several are DIR/etcd.I, etcd.I.log, ... named "etcd.I".
etcd_base() {  # member
  if [ "$etcd_n" -eq 1 ]; then echo "$dir/etcd"; else echo "$dir/etcd.$1"; fi
}
etcd_label() {  # member
  if [ "$etcd_n" -eq 1 ]; then echo "etcd"; else echo "etcd.$1"; fi
}
# The members' pid files in DIR whatever the shape (for stop and status, which need no config).
etcd_pidfiles() {
  local f
  for f in "$dir"/etcd.pid "$dir"/etcd.[0-9]*.pid; do [ -e "$f" ] && echo "$f"; done
  return 0
}
etcd_any_alive() {
  local f
  for f in $(etcd_pidfiles); do alive "$f" && return 0; done
  return 1
}

# One line per etcd member of several: its client URL and whether it leads, from its own
# /v3/maintenance/status (etcdctl endpoint status: "URL, ID, VERSION, DB SIZE, IS LEADER, IS
# LEARNER, TERM, INDEX, APPLIED, ERRORS").
etcd_member_lines() {
  local i f url line leader errors
  for i in $(seq 0 $((etcd_n - 1))); do
    f="$(etcd_base "$i").pid"
    if ! alive "$f"; then echo "$(etcd_label "$i"): not running"; continue; fi
    url="$etcd_scheme://127.0.0.1:$(cut -d' ' -f1 "$(etcd_base "$i").ports" 2>/dev/null)"
    line="$(ETCDCTL_API=3 etcdctl "${etcdctl_tls[@]}" --endpoints "$url" --dial-timeout 1s --command-timeout 2s \
              endpoint status -w simple 2>/dev/null | head -n 1)" || true
    leader="$(awk -F', ' '{ print $5 }' <<< "$line")"
    errors="$(awk -F', ' '{ print $10 }' <<< "$line")"
    if [ -z "$line" ]; then leader="not answering"
    elif [ -n "$errors" ]; then leader="$errors"
    elif [ "$leader" = true ]; then leader="leader"
    else leader="follower"; fi
    echo "$(etcd_label "$i"): running (pid $(cat "$f")), $url, $leader"
  done
}

# Each member's ports, in etcd_client[I] and etcd_peer[I]: from its ports file (chosen now if
# absent, or outside the range free_port picks from, as a cluster made by an older launcher's may
# be). A member about to start whose client port another program holds gets another one; its peer
# port may move only while no other member has recorded it (one member, or a new cluster), else
# start dies naming the port.
declare -a etcd_client=() etcd_peer=()
etcd_ports() {
  local i base cp pp chosen=()
  for i in $(seq 0 $((etcd_n - 1))); do
    base="$(etcd_base "$i")" cp="" pp=""
    if [ -f "$base.ports" ]; then
      read -r cp pp < "$base.ports" || true
      if ! [[ "$cp" =~ ^[0-9]+$ && "$pp" =~ ^[0-9]+$ ]] || ! safe_port "$cp" || ! safe_port "$pp"; then
        cp="" pp=""
      fi
    fi
    if ! alive "$base.pid" && [ -n "$cp" ]; then
      if port_held "$cp"; then
        echo "$(etcd_label "$i")'s client port $cp is taken; choosing another" >&2
        cp="$(free_port "${chosen[@]}" "$pp")"
      fi
      if port_held "$pp"; then
        if [ "$etcd_n" -gt 1 ] && [ -f "$conf" ]; then
          die "$(etcd_label "$i")'s peer port $pp is held by another program (ss -tlnp 'sport = :$pp'" \
              "names it), and the other members know $(etcd_label "$i") there: free that port and" \
              "start again"
        fi
        pp=""
      fi
    fi
    [ -n "$cp" ] || cp="$(free_port "${chosen[@]}")"
    [ -n "$pp" ] || pp="$(free_port "${chosen[@]}" "$cp")"
    chosen+=("$cp" "$pp")
    etcd_client[i]="$cp" etcd_peer[i]="$pp"
    echo "$cp $pp" > "$base.ports"
  done
}

# Starts every etcd member that is not running on the ports etcd_ports gives, and waits until
# each answers healthy (a leader elected: every member is started at once, so several reach
# their quorum together). Sets endpoints (every member's client URL). Returns 1 if a member
# found its ports taken at bind (another program got there between the check and the bind),
# dies on other errors.
try_etcd() {
  etcd_ports
  local i base c p initial="" started=() log_start=()
  for i in $(seq 0 $((etcd_n - 1))); do
    if [ "$etcd_n" -eq 1 ]; then initial="ecstore=http://127.0.0.1:${etcd_peer[0]}"
    else initial+="${initial:+,}ecstore$i=http://127.0.0.1:${etcd_peer[i]}"; fi
  done
  for i in $(seq 0 $((etcd_n - 1))); do
    base="$(etcd_base "$i")"
    alive "$base.pid" && continue
    c="$etcd_scheme://127.0.0.1:${etcd_client[i]}" p="http://127.0.0.1:${etcd_peer[i]}"
    # With TLS: https for clients, each proving a certificate the CA signed (the peers stay on
    # loopback http between the launcher's own members).
    local tls_flags=()
    if [ "$etcd_tls" = on ]; then
      tls_flags=(--cert-file "$dir/tls/server.crt" --key-file "$dir/tls/server.key"
                 --client-cert-auth --trusted-ca-file "$dir/tls/ca.crt")
    fi
    touch "$base.log"
    log_start[i]=$(( $(wc -l < "$base.log") + 1 ))
    local name=ecstore
    [ "$etcd_n" -eq 1 ] || name="ecstore$i"
    # --initial-* count only for a new data dir; the token keeps two new clusters apart.
    spawn "$base.log" /usr/bin/etcd --name "$name" --data-dir "$base" \
      --listen-client-urls "$c" --advertise-client-urls "$c" \
      --listen-peer-urls "$p" --initial-advertise-peer-urls "$p" \
      --initial-cluster "$initial" --initial-cluster-state new \
      --initial-cluster-token "ecstore-$dir" "${tls_flags[@]}"
    echo $! > "$base.pid"
    started+=("$i")
  done
  endpoints=""
  for i in $(seq 0 $((etcd_n - 1))); do
    endpoints+="${endpoints:+,}$etcd_scheme://127.0.0.1:${etcd_client[i]}"
  done
  local pending
  for _ in $(seq 1 200); do
    pending=()
    for i in "${started[@]}"; do
      base="$(etcd_base "$i")"
      c="$etcd_scheme://127.0.0.1:${etcd_client[i]}"
      if ETCDCTL_API=3 etcdctl "${etcdctl_tls[@]}" --endpoints "$c" --dial-timeout 1s endpoint health >/dev/null 2>&1; then
        continue
      fi
      pending+=("$i")
      alive "$base.pid" && continue
      if tail -n "+${log_start[i]}" "$base.log" | grep -q 'address already in use'; then
        rm -f "$base.pid"
        # A new cluster starts over on new ports everywhere; an existing one moves this member's
        # client port (etcd_ports at the next try).
        if [ ! -f "$conf" ]; then
          for c in "${started[@]}"; do
            stop_pid "$(etcd_base "$c").pid" "$(etcd_label "$c")"
            rm -rf "$(etcd_base "$c")" "$(etcd_base "$c").ports"
          done
        fi
        return 1
      fi
      tail -n 20 "$base.log" >&2
      die "$(etcd_label "$i") did not start (log: $base.log)"
    done
    if [ "${#pending[@]}" -eq 0 ]; then
      for i in "${started[@]}"; do
        base="$(etcd_base "$i")"
        echo "$(etcd_label "$i"): $etcd_scheme://127.0.0.1:${etcd_client[i]} (data $base, log $base.log)"
      done
      return 0
    fi
    sleep 0.1
  done
  die "etcd did not become healthy in 20 s (logs: $(etcd_base 0).log ...)"
}

start_etcd() {
  for _ in 1 2 3 4 5; do
    if try_etcd; then return; fi
    echo "etcd's ports were taken meanwhile; choosing others" >&2
  done
  die "etcd could not bind its ports in 5 attempts (log: $(etcd_base 0).log)"
}

#!/usr/bin/env bash
# Certificates for etcd over TLS with client certificates (issue 32 item 3), made with the openssl
# command-line tool: a CA, etcd's server certificate and one client certificate per name given.
#
#   scripts/etcd_certs.sh DIR [--host NAME_OR_IP ...] [CLIENT ...]
#
# Writes, in DIR (made if missing; keys mode 0600):
#   ca.crt, ca.key           the CA that signs the others (etcd's --trusted-ca-file, every
#                            program's etcd_ca_file)
#   server.crt, server.key   etcd's --cert-file/--key-file: subjectAltName 127.0.0.1, ::1,
#                            localhost and each --host; usable as a client certificate too
#                            (etcd 3.4's JSON gateway connects to its own gRPC port with it).
#                            No CN either: etcd 3.4 takes that CN as the user of a gateway
#                            request sent without an Accept header.
#   CLIENT.crt, CLIENT.key   a client certificate for each CLIENT (default: one, "ecstore"): the
#                            etcd_cert_file/etcd_key_file of the programs. Its subject is
#                            O=ecstore, OU=CLIENT, without a CN: with etcd's auth enabled, etcd's
#                            JSON gateway (which ecstore speaks) refuses a certificate with a CN,
#                            so programs act as an etcd user by password (etcd_user), and the
#                            certificate only says they may connect.
# Keys are ECDSA P-256, certificates valid for 10 years. Files that exist are kept (a CA made once
# keeps signing; a client certificate made by an older version, with a CN, too); remove DIR to
# start over. Exit status 1 with a message on any error.
set -euo pipefail

die() { echo "etcd_certs.sh: $*" >&2; exit 1; }
[ $# -ge 1 ] || die "usage: etcd_certs.sh DIR [--host NAME_OR_IP ...] [CLIENT ...]"
case "$1" in -h|--help) sed -n '2,23p' "$0" | sed -E 's/^# ?//'; exit 0 ;; esac
command -v openssl > /dev/null || die "no openssl: run scripts/setup.sh"
out="$1"
shift
hosts=(127.0.0.1 ::1 localhost)
clients=()
while [ $# -gt 0 ]; do
  case "$1" in
    --host) [ -n "${2:-}" ] || die "--host takes a name or an IP address"; hosts+=("$2"); shift 2 ;;
    -*) die "unknown option '$1'" ;;
    *) [[ "$1" =~ ^[A-Za-z0-9._-]+$ ]] || die "bad client name '$1'"; clients+=("$1"); shift ;;
  esac
done
[ "${#clients[@]}" -gt 0 ] || clients=(ecstore)
mkdir -p "$out"
umask 077

san=""
for h in "${hosts[@]}"; do
  if [[ "$h" =~ ^[0-9.]+$ || "$h" == *:* ]]; then san+="${san:+,}IP:$h"; else san+="${san:+,}DNS:$h"; fi
done

new_key() {  # FILE
  openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2> /dev/null ||
    die "openssl genpkey failed for $1"
}

# A certificate signed by the CA: NAME (files NAME.crt/NAME.key), its subject and its extensions.
signed() {  # NAME SUBJECT EXTENSIONS
  local name="$1" subject="$2" ext="$3"
  [ -f "$out/$name.crt" ] && [ -f "$out/$name.key" ] && return 0
  new_key "$out/$name.key"
  openssl req -new -key "$out/$name.key" -subj "$subject" -out "$out/$name.csr" 2> /dev/null ||
    die "openssl req failed for $name"
  printf '%b' "$ext" > "$out/$name.ext"
  openssl x509 -req -in "$out/$name.csr" -CA "$out/ca.crt" -CAkey "$out/ca.key" \
    -CAserial "$out/ca.srl" -CAcreateserial -days 3650 -sha256 -extfile "$out/$name.ext" \
    -out "$out/$name.crt" 2> /dev/null || die "openssl x509 failed for $name"
  rm -f "$out/$name.csr" "$out/$name.ext"
}

if [ ! -f "$out/ca.crt" ] || [ ! -f "$out/ca.key" ]; then
  new_key "$out/ca.key"
  openssl req -x509 -new -key "$out/ca.key" -subj "/CN=ecstore etcd CA" -days 3650 -sha256 \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
    -out "$out/ca.crt" 2> /dev/null || die "openssl req -x509 failed for the CA"
fi
signed server "/O=ecstore/OU=etcd" "basicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth,clientAuth\nsubjectAltName=$san\n"
for c in "${clients[@]}"; do
  signed "$c" "/O=ecstore/OU=$c" "basicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=clientAuth\n"
done
chmod 644 "$out"/*.crt

// ec-rados's command line, rados's syntax, as a function a test can call in-process:
//
//   ec-rados [-c CONF] -p POOL put OBJ FILE [--offset N]   (FILE "-": standard input)
//   ec-rados [-c CONF] -p POOL append OBJ FILE
//   ec-rados [-c CONF] -p POOL get OBJ FILE                (FILE "-": standard output)
//   ec-rados [-c CONF] -p POOL stat OBJ                    "POOL/OBJ mtime T, size N" (rados's)
//   ec-rados [-c CONF] -p POOL setxattr OBJ NAME [VALUE]   (no VALUE: standard input)
//   ec-rados [-c CONF] -p POOL getxattr OBJ NAME           the value as it is (no newline)
//   ec-rados [-c CONF] -p POOL listxattr OBJ               one name per line
//   ec-rados [-c CONF] -p POOL rmxattr OBJ NAME
//   ec-rados [-c CONF] -p POOL touch OBJ [TIMESTAMP]       create if absent; mtime now or TIMESTAMP
//   ec-rados [-c CONF] -p POOL truncate OBJ SIZE           cut, or grow with zeros
//   ec-rados [-c CONF] -p POOL rm OBJ...
//   ec-rados [-c CONF] -p POOL ls                          one name per line
//   ec-rados [-c CONF] -p POOL bench SECONDS write|seq|rand [-b SIZE] [-t CONCURRENCY]
//                              [--no-cleanup] [--run-name NAME] [--format plain|json|json-pretty]
//                              [--max-objects N] [--latency-log FILE]
//   ec-rados [-c CONF] -p POOL cleanup [--run-name NAME]
//   ec-rados [-c CONF] list-inconsistent-obj PGID [--format json|json-pretty]
//                              what the PG's last scrub found (scrub_commands.h); no -p
//   ec-rados [-c CONF] lspools                            the pools, one per line
//   ec-rados [-c CONF] [-p POOL] df [--format plain|json|json-pretty]
//                              usage and client I/O per pool, then totals (pool_commands.h)
//
// The config is -c CONF, else $EC_CONF, else /etc/ecstore/ecstore.conf; its [global] names etcd.
// Exit status: 0 on success; else the errno of the error (ec::cli::ExitStatus), its message on
// `err` ("error: ..."; rados's "error opening pool p: (2) No such file or directory" and "No scrub
// information available for pg 1.3"): ENOENT 2 for a missing pool, object or scrub record,
// ENODATA 61 for a missing xattr, ENAMETOOLONG / EFBIG / E2BIG for the xattr limits, EIO 5
// for a bench whose reads found mismatches (as rados bench's read runs), ECONNREFUSED 111 for an
// unreachable etcd, ... A usage error (bad argument or option, unknown command: "no valid command
// found; 'frob' is not a command (see ec-rados --help)" with the closest commands) exits EINVAL
// (22), never CLI11's 105-109. rados itself exits 1 on every error; ecstore gives the errno, as
// `ceph` does, so that a script can tell ENOENT from EIO. --help (also after a command) and
// --version exit 0. During a bench, SIGINT or SIGTERM ends the run
// early with its summary (the previous handlers are back when the bench returns).
#pragma once

#include <istream>
#include <ostream>

namespace ec::tools::rados {

struct CliStreams {
  std::istream& in;
  std::ostream& out;
  std::ostream& err;
};

// Runs one ec-rados command line (argv[0] is the program name). Never throws.
int RunRadosCli(int argc, char** argv, const CliStreams& io);

}  // namespace ec::tools::rados

// ec-rados's command line, rados's syntax, as a function a test can call in-process:
//
//   ec-rados [-c CONF] -p POOL put OBJ FILE [--offset N]   (FILE "-": standard input)
//   ec-rados [-c CONF] -p POOL append OBJ FILE
//   ec-rados [-c CONF] -p POOL get OBJ FILE                (FILE "-": standard output)
//   ec-rados [-c CONF] -p POOL stat OBJ                    "POOL/OBJ size N version V"
//   ec-rados [-c CONF] -p POOL rm OBJ...
//   ec-rados [-c CONF] -p POOL ls                          one name per line
//   ec-rados [-c CONF] -p POOL bench SECONDS write|seq|rand [-b SIZE] [-t CONCURRENCY]
//                              [--no-cleanup] [--run-name NAME] [--format plain|json|json-pretty]
//                              [--max-objects N] [--latency-log FILE]
//   ec-rados [-c CONF] -p POOL cleanup [--run-name NAME]
//   ec-rados [-c CONF] list-inconsistent-obj PGID [--format json|json-pretty]
//                              what the PG's last scrub found (scrub_commands.h); no -p
//
// The config is -c CONF, else $EC_CONF, else /etc/ecstore/ecstore.conf; its [global] names etcd.
// Exit status: 0 on success; 1 on a usage error (CLI11's own codes are mapped to 1), on any
// failed operation ("error: ..." on `err`; rados's "No scrub information available for pg 1.3"
// for a PG never scrubbed), and on a bench whose reads found mismatches. --help
// (also after a command) and --version exit 0. During a bench, SIGINT or SIGTERM ends the run
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

// The Galois fields of jerasure's library (libJerasure on gf-complete), set up once per process
// for every plugin that calls it (jerasure for its techniques; shec for w=16/32 and its matrix).
//
// jerasure keeps one default field per word size w in process-wide globals, created by
// galois_init_default_field(), which is not thread safe: two plugins creating the same field at
// once would race. These functions are the only way our code creates those fields; they live in
// libec, a shared library, so that one lock guards the globals however many plugins a program
// links or dlopen()s.
#pragma once

#include "common/status.h"

namespace ec {

// Creates jerasure's default fields for w = 4, 8, 16 and 32 (Ceph's __erasure_code_init does the
// same at plugin load). Runs once per process; every later call returns the first call's result
// without touching gf-complete again.
// Errors: the error gf-complete returned for the first w it refused, as
// "failed to gf_init_easy(W)" (ENOMEM in practice). Thread safe.
Status InitGaloisFields();

// Makes sure jerasure's default field for `w` exists, creating it on first use (a bit-matrix or
// Cauchy code may use a w other than those InitGaloisFields() creates). Idempotent.
// Errors: EINVAL "w=W must be between 1 and 32"; gf-complete's error as
// "failed to gf_init_easy(W)". Thread safe.
Status EnsureGaloisField(int w);

}  // namespace ec

#include "plugins/clay/clay_program.h"

#include <isa-l/erasure_code.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <numeric>
#include <tuple>

#include "plugins/clay/clay_gfni.h"

namespace ec::clay {

namespace {

// XOR rows are split off a step only when it has at least kXorMinInputs inputs and they are at
// least half of its rows: the split reads the inputs a second time, which pays when it removes a
// large share of the multiplies (k=4 m=2 d=5 encode: +5-7%) and loses otherwise (2-input pair
// steps, and 1 row of 4 in k=10 m=4 d=13: -3-5%, measured with ec-clay-bench).
constexpr int kXorMinInputs = 3;

}  // namespace

ProgramBuilder::ProgramBuilder(int num_slots) {
  program_.scratch_sub_chunks.assign(num_slots, 0);
}

void ProgramBuilder::SetScratch(int slot, std::uint32_t sub_chunks) {
  program_.scratch_sub_chunks[slot] = sub_chunks;
}

std::uint32_t ProgramBuilder::AddSolve(std::shared_ptr<const MdsCode::Solve> solve) {
  program_.solves.push_back(std::move(solve));
  return static_cast<std::uint32_t>(program_.solves.size() - 1);
}

void ProgramBuilder::Add(OpKind kind, std::uint32_t param, const Ref* in, int n_in, const Ref* out,
                         int n_out) {
  Op op;
  op.kind = kind;
  op.param = param;
  op.n_in = static_cast<std::uint16_t>(n_in);
  op.n_out = static_cast<std::uint16_t>(n_out);
  op.ref = static_cast<std::uint32_t>(pending_refs_.size());
  pending_refs_.insert(pending_refs_.end(), in, in + n_in);
  pending_refs_.insert(pending_refs_.end(), out, out + n_out);
  pending_.push_back(op);
}

void ProgramBuilder::Copy(Ref out, Ref in) {
  if (in.slot == kZeroSlot) return Zero(out);
  Add(OpKind::kCopy, 0, &in, 1, &out, 1);
}

void ProgramBuilder::Zero(Ref out) {
  Add(OpKind::kZero, 0, nullptr, 0, &out, 1);
}

void ProgramBuilder::Linear(const std::vector<Ref>& in, const std::vector<Ref>& out,
                            const std::vector<std::uint8_t>& coef) {
  const std::size_t n = in.size();
  // Drop inputs that read zeros or that no output uses, and outputs that are zero.
  std::vector<std::size_t> cols, rows;
  for (std::size_t i = 0; i < n; ++i) {
    if (in[i].slot == kZeroSlot) continue;
    for (std::size_t j = 0; j < out.size(); ++j) {
      if (coef[j * n + i] != 0) {
        cols.push_back(i);
        break;
      }
    }
  }
  for (std::size_t j = 0; j < out.size(); ++j) {
    bool zero = true;
    for (std::size_t i : cols) zero &= coef[j * n + i] == 0;
    if (zero)
      Zero(out[j]);
    else
      rows.push_back(j);
  }
  if (rows.empty()) return;
  // A row with a single 1 is a copy.
  if (rows.size() == 1 && cols.size() == 1 && coef[rows[0] * n + cols[0]] == 1)
    return Copy(out[rows[0]], in[cols[0]]);
  std::string key = std::to_string(cols.size()) + "x" + std::to_string(rows.size()) + ":";
  const std::size_t header = key.size();
  std::vector<Ref> ins, outs;
  for (std::size_t i : cols) ins.push_back(in[i]);
  for (std::size_t j : rows) {
    outs.push_back(out[j]);
    for (std::size_t i : cols) key.push_back(static_cast<char>(coef[j * n + i]));
  }
  auto [it, added] = table_index_.emplace(key, static_cast<std::uint32_t>(program_.tables.size()));
  if (added) {
    const int n_in = static_cast<int>(cols.size());
    const int n_out = static_cast<int>(rows.size());
    std::vector<std::uint8_t> matrix(key.begin() + header, key.end());
    LinearTable table;
    if (GfniAvailable())
      for (std::uint8_t c : matrix) table.affine.push_back(GfniMatrix(c));
    table.tables.resize(32 * matrix.size());
    ec_init_tables(n_in, n_out, matrix.data(), table.tables.data());
    std::vector<std::uint8_t> other;
    for (int j = 0; j < n_out; ++j) {
      const auto row = matrix.begin() + j * n_in;
      if (n_in >= kXorMinInputs &&
          std::all_of(row, row + n_in, [](std::uint8_t c) { return c == 1; })) {
        table.xor_rows.push_back(j);
      } else {
        table.other_rows.push_back(j);
        other.insert(other.end(), row, row + n_in);
      }
    }
    if (table.xor_rows.size() * 2 < static_cast<std::size_t>(n_out)) {
      table.xor_rows.clear();
      table.other_rows.clear();
      other.clear();
    }
    if (!table.xor_rows.empty() && !other.empty()) {
      table.other_tables.resize(32 * other.size());
      ec_init_tables(n_in, static_cast<int>(table.other_rows.size()), other.data(),
                     table.other_tables.data());
    }
    program_.tables.push_back(std::move(table));
  }
  Add(OpKind::kLinear, it->second, ins.data(), static_cast<int>(ins.size()), outs.data(),
      static_cast<int>(outs.size()));
}

void ProgramBuilder::Pair(unsigned known, unsigned target, Ref in0, Ref in1, Ref out0, Ref out1) {
  const Ref in[2] = {in0, in1};
  const Ref out[2] = {out0, out1};
  Add(OpKind::kPair, known | target << 4, in, 2, out, (target & (target - 1)) ? 2 : 1);
}

void ProgramBuilder::Mds(std::uint32_t solve, const std::vector<Ref>& in,
                         const std::vector<Ref>& out) {
  Add(OpKind::kMds, solve, in.data(), static_cast<int>(in.size()), out.data(),
      static_cast<int>(out.size()));
}

void ProgramBuilder::EndPhase() {
  const auto& refs = pending_refs_;
  auto shape = [](const Op& o) { return std::tuple(o.kind, o.param, o.n_in, o.n_out); };
  auto same_shape = [&](const Op& a, const Op& b) {
    if (shape(a) != shape(b)) return false;
    for (int i = 0; i < a.n_in + a.n_out; ++i)
      if (refs[a.ref + i].slot != refs[b.ref + i].slot) return false;
    return true;
  };
  auto less = [&](std::uint32_t ia, std::uint32_t ib) {
    const Op& a = pending_[ia];
    const Op& b = pending_[ib];
    if (shape(a) != shape(b)) return shape(a) < shape(b);
    const int n = a.n_in + a.n_out;
    for (int i = 0; i < n; ++i)
      if (refs[a.ref + i].slot != refs[b.ref + i].slot)
        return refs[a.ref + i].slot < refs[b.ref + i].slot;
    for (int i = 0; i < n; ++i)
      if (refs[a.ref + i].pos != refs[b.ref + i].pos)
        return refs[a.ref + i].pos < refs[b.ref + i].pos;
    return false;
  };
  std::vector<std::uint32_t> order(pending_.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), less);

  // `head` is the pending step that opened the kernel call being extended (the last emitted).
  const Op* head = nullptr;
  for (std::uint32_t index : order) {
    const Op& op = pending_[index];
    if (head != nullptr && same_shape(*head, op)) {
      Op& current = program_.ops.back();
      bool adjacent = true;
      for (int i = 0; i < op.n_in + op.n_out && adjacent; ++i) {
        const Ref& r = refs[op.ref + i];
        adjacent = r.slot == kZeroSlot || r.pos == refs[head->ref + i].pos + current.count;
      }
      if (adjacent) {
        current.count += op.count;
        continue;
      }
    }
    Op merged = op;
    merged.ref = static_cast<std::uint32_t>(program_.refs.size());
    program_.refs.insert(program_.refs.end(), refs.begin() + op.ref,
                         refs.begin() + op.ref + op.n_in + op.n_out);
    program_.ops.push_back(merged);
    head = &op;
  }
  pending_.clear();
  pending_refs_.clear();
}

Program ProgramBuilder::Finish() {
  if (!pending_.empty()) EndPhase();
  for (const Op& op : program_.ops) {
    program_.max_count = std::max(program_.max_count, op.count);
    for (int i = 0; i < op.n_in; ++i)
      if (program_.refs[op.ref + i].slot == kZeroSlot)
        program_.zero_sub_chunks = std::max(program_.zero_sub_chunks, op.count);
  }
  return std::move(program_);
}

namespace {

// Splitting off the XOR rows costs a second call, and ISA-L's xor_gen has a high fixed cost per
// call (about 250 ns more than a table multiply at 4 KiB here); below this length the split costs
// more than the table multiplies it saves (ec-clay-bench: (4,2,5) encode at 4 KiB 0.28x isa with a
// 512-byte threshold, 0.48x with this one).
constexpr std::size_t kXorMinLength = 16384;

void RunLinear(const LinearTable& table, std::size_t len, int n_in, int n_out,
               const std::uint8_t* const* in, std::uint8_t* const* out) {
  if (!table.affine.empty()) {
    GfniCombine(len, n_in, n_out, table.affine.data(), in, out);
    return;
  }
  bool use_xor = !table.xor_rows.empty() && len >= kXorMinLength && XorRows(len, n_in, in, nullptr);
  for (int row : table.xor_rows)
    if (reinterpret_cast<std::uintptr_t>(out[row]) % 32 != 0) use_xor = false;
  if (!use_xor) {
    ApplyTables(len, n_in, n_out, table.tables.data(), in, out);
    return;
  }
  for (int row : table.xor_rows) XorRows(len, n_in, in, out[row]);
  if (table.other_rows.empty()) return;
  std::array<std::uint8_t*, 512> rest{};
  for (std::size_t j = 0; j < table.other_rows.size(); ++j) rest[j] = out[table.other_rows[j]];
  ApplyTables(len, n_in, static_cast<int>(table.other_rows.size()), table.other_tables.data(), in,
              rest.data());
}

}  // namespace

Status RunProgram(const Program& program, const PairCode& pair, const MdsCode& mds,
                  std::size_t sub_chunk_size, std::uint8_t* const* slots, const std::uint8_t* zeros,
                  std::uint8_t* spare) {
  // A step has at most k+nu+q-1 inputs and m+q outputs, both below 2 * 254. Left uninitialised:
  // zeroing 8 KiB per call was a third of the time of a repair with 32-byte sub-chunks.
  std::array<const std::uint8_t*, 512> in;
  std::array<std::uint8_t*, 512> out;
  for (const Op& op : program.ops) {
    const std::size_t len = op.count * sub_chunk_size;
    const Ref* r = program.refs.data() + op.ref;
    for (int i = 0; i < op.n_in; ++i) {
      in[i] = r[i].slot == kZeroSlot ? zeros : slots[r[i].slot] + r[i].pos * sub_chunk_size;
    }
    for (int j = 0; j < op.n_out; ++j) {
      out[j] = slots[r[op.n_in + j].slot] + r[op.n_in + j].pos * sub_chunk_size;
    }
    switch (op.kind) {
      case OpKind::kCopy:
        std::memcpy(out[0], in[0], len);
        break;
      case OpKind::kZero:
        std::memset(out[0], 0, len);
        break;
      case OpKind::kLinear:
        RunLinear(program.tables[op.param], len, op.n_in, op.n_out, in.data(), out.data());
        break;
      case OpKind::kPair:
        EC_RETURN_IF_ERROR(
            pair.Solve(op.param & 15, op.param >> 4, len, in.data(), out.data(), spare));
        break;
      case OpKind::kMds:
        EC_RETURN_IF_ERROR(mds.Run(*program.solves[op.param], len, in.data(), out.data()));
        break;
    }
  }
  return Status::OK();
}

}  // namespace ec::clay

#include "plugins/shec/shec_codec.h"

#include <algorithm>
#include <map>

#include "ec/aligned_regions.h"

extern "C" {
#include <galois.h>
#include <jerasure.h>
}

namespace ec::shec {

Result<std::shared_ptr<const ShecCodec>> ShecCodec::Create(Technique technique, int k, int m, int c,
                                                           int w) {
  Result<std::vector<int>> matrix = CodingMatrix(technique, k, m, c, w);
  if (!matrix.ok()) return matrix.status();
  return std::shared_ptr<const ShecCodec>(new ShecCodec(technique, k, m, c, w, std::move(*matrix)));
}

ShecCodec::ShecCodec(Technique technique, int k, int m, int c, int w, std::vector<int> matrix)
    : technique_(technique),
      k_(k),
      m_(m),
      c_(c),
      w_(w),
      matrix_(std::move(matrix)),
      programs_(kDecodeLruCapacity) {
  if (w_ == 8) {
    std::vector<std::uint8_t> coding(matrix_.begin(), matrix_.end());
    encoder_ = std::make_unique<gf::MatrixCodec>(k_, m_, std::move(coding), 1);
  }
}

int ShecCodec::Mul(int a, int b) const {
  if (w_ == 8) return gf::Mul(static_cast<std::uint8_t>(a), static_cast<std::uint8_t>(b));
  return galois_single_multiply(a, b, w_);
}

void ShecCodec::Encode(std::size_t len, const std::uint8_t* const* data,
                       std::uint8_t* const* parity) const {
  if (encoder_) {
    encoder_->Encode(len, data, parity);
    return;
  }
  AlignedRegions regions(len);
  std::vector<char*> d(k_), p(m_);
  for (int i = 0; i < k_; ++i) d[i] = regions.Input(data[i]);
  for (int j = 0; j < m_; ++j) p[j] = regions.Output(parity[j]);
  jerasure_matrix_encode(k_, m_, w_, const_cast<int*>(matrix_.data()), d.data(), p.data(),
                         static_cast<int>(len));
  regions.CopyBack();
}

Result<ShecCodec::Program> ShecCodec::BuildProgram(const std::vector<int>& targets,
                                                   const std::vector<bool>& available) const {
  std::vector<bool> want(static_cast<std::size_t>(k_ + m_), false);
  for (int t : targets) want[t] = true;
  Result<RecoveryPlan> found = FindRecovery(view(), want, available);
  if (!found.ok()) return found.status();
  const RecoveryPlan& plan = *found;

  // Sources: the plan's rows, plus the available data a missing parity is re-encoded from.
  std::map<int, int> index;
  for (int id : plan.rows) index.emplace(id, 0);
  for (int t : targets) {
    if (t < k_) continue;
    for (int j = 0; j < k_; ++j)
      if (matrix_[(t - k_) * k_ + j] != 0 && available[j]) index.emplace(j, 0);
  }
  Program program;
  for (auto& [id, slot] : index) {
    slot = static_cast<int>(program.sources.size());
    program.sources.push_back(id);
  }
  const std::size_t n = program.sources.size();
  const std::size_t dim = plan.rows.size();
  program.coefficients.assign(targets.size() * n, 0);
  // Adds `factor` times the solution of data column `column` (missing) to `row`.
  auto add_solved = [&](int* row, int column, int factor) {
    const auto pos = std::find(plan.columns.begin(), plan.columns.end(), column);
    const std::size_t i = static_cast<std::size_t>(pos - plan.columns.begin());
    for (std::size_t r = 0; r < dim; ++r) {
      row[index.at(plan.rows[r])] ^= Mul(factor, plan.inverse[i * dim + r]);
    }
  };
  for (std::size_t t = 0; t < targets.size(); ++t) {
    int* row = program.coefficients.data() + t * n;
    const int id = targets[t];
    if (id < k_) {
      add_solved(row, id, 1);
      continue;
    }
    for (int j = 0; j < k_; ++j) {
      const int coefficient = matrix_[(id - k_) * k_ + j];
      if (coefficient == 0) continue;
      if (available[j])
        row[index.at(j)] ^= coefficient;
      else
        add_solved(row, j, coefficient);
    }
  }
  if (w_ == 8) {
    std::vector<std::uint8_t> bytes(program.coefficients.begin(), program.coefficients.end());
    program.codec = std::make_unique<gf::MatrixCodec>(
        static_cast<int>(n), static_cast<int>(targets.size()), std::move(bytes), 1);
  }
  return program;
}

Result<std::shared_ptr<const ShecCodec::Program>> ShecCodec::ProgramFor(
    const std::vector<int>& targets, const std::vector<bool>& available) const {
  // Key: one byte per piece (available or not), then the targets in order.
  std::string key;
  key.reserve(available.size() + targets.size() + 1);
  for (bool a : available) key.push_back(a ? 'a' : '-');
  key.push_back('|');
  for (int t : targets) key.push_back(static_cast<char>(t));
  if (auto cached = programs_.Get(key)) return cached;
  Result<Program> built = BuildProgram(targets, available);
  if (!built.ok()) return built.status();
  auto program = std::make_shared<const Program>(std::move(*built));
  programs_.Put(key, program);
  return program;
}

Status ShecCodec::Decode(std::size_t len, const std::uint8_t* const* pieces,
                         const std::vector<int>& targets, std::uint8_t* const* outputs) const {
  if (targets.empty()) return Status::OK();
  std::vector<bool> available(static_cast<std::size_t>(k_ + m_));
  for (int i = 0; i < k_ + m_; ++i) available[i] = pieces[i] != nullptr;
  Result<std::shared_ptr<const Program>> program = ProgramFor(targets, available);
  if (!program.ok()) return program.status();
  const Program& p = **program;
  const int n = static_cast<int>(p.sources.size());
  if (p.codec) {
    std::vector<const std::uint8_t*> sources(n);
    for (int s = 0; s < n; ++s) sources[s] = pieces[p.sources[s]];
    p.codec->Encode(len, sources.data(), outputs);
    return Status::OK();
  }
  AlignedRegions regions(len);
  std::vector<char*> sources(n), outs(targets.size());
  for (int s = 0; s < n; ++s) sources[s] = regions.Input(pieces[p.sources[s]]);
  for (std::size_t t = 0; t < targets.size(); ++t) outs[t] = regions.Output(outputs[t]);
  for (std::size_t t = 0; t < targets.size(); ++t) {
    jerasure_matrix_dotprod(n, w_, const_cast<int*>(p.coefficients.data() + t * n), nullptr,
                            n + static_cast<int>(t), sources.data(), outs.data(),
                            static_cast<int>(len));
  }
  regions.CopyBack();
  return Status::OK();
}

}  // namespace ec::shec

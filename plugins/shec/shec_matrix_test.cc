// The SHEC coding matrix: shingle choice, window patterns and the Vandermonde coefficients kept.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "ec/galois_fields.h"
#include "plugins/shec/shec_matrix.h"

extern "C" {
#include <reed_sol.h>
}

namespace ec::shec {
namespace {

// Rows as "1100" strings (1 = non-zero coefficient).
std::vector<std::string> Pattern(const std::vector<int>& matrix, int k, int m) {
  std::vector<std::string> rows;
  for (int j = 0; j < m; ++j) {
    std::string row;
    for (int i = 0; i < k; ++i) row += matrix[j * k + i] != 0 ? '1' : '0';
    rows.push_back(row);
  }
  return rows;
}

std::vector<std::string> PatternOf(Technique t, int k, int m, int c) {
  Result<std::vector<int>> matrix = CodingMatrix(t, k, m, c, 8);
  EXPECT_TRUE(matrix.ok()) << matrix.status().ToString();
  return matrix.ok() ? Pattern(*matrix, k, m) : std::vector<std::string>{};
}

TEST(ShecMatrix, ReferencePattern) {
  ASSERT_TRUE(InitGaloisFields().ok());
  // ceph-ec-reference.md §4, corpus-verified: k=4 m=3 c=2 (multiple).
  EXPECT_EQ(PatternOf(Technique::kMultiple, 4, 3, 2),
            (std::vector<std::string>{"1111", "1100", "0011"}));
}

TEST(ShecMatrix, SinglePatternIsOneGroupOfEqualWindows) {
  ASSERT_TRUE(InitGaloisFields().ok());
  // m rows, each keeping [r*k/m, (r+c)*k/m) modulo k.
  EXPECT_EQ(PatternOf(Technique::kSingle, 4, 2, 1), (std::vector<std::string>{"1100", "0011"}));
  // k=4 m=3 c=2: [0,2), [1,4), [2,5) -> columns 0-1, 1-3, 2-3 and 0.
  EXPECT_EQ(PatternOf(Technique::kSingle, 4, 3, 2),
            (std::vector<std::string>{"1100", "0111", "1011"}));
  EXPECT_EQ(PatternOf(Technique::kSingle, 6, 3, 3),
            (std::vector<std::string>{"111111", "111111", "111111"}));
}

TEST(ShecMatrix, ShingleChoice) {
  EXPECT_EQ(ChooseShingles(Technique::kSingle, 8, 4, 3).m2, 4);
  const Shingles s = ChooseShingles(Technique::kMultiple, 4, 3, 2);
  EXPECT_EQ(s.m1, 1);
  EXPECT_EQ(s.c1, 1);
  EXPECT_EQ(s.m2, 2);
  EXPECT_EQ(s.c2, 1);
  // Impossible splits are -1; a possible one counts windows plus the narrowest cover per column.
  EXPECT_EQ(RecoveryCost(4, 1, 2, 2, 1), -1);
  EXPECT_EQ(RecoveryCost(4, 0, 3, 1, 2), -1);
  // k=4, one group of 2 rows with 1 shingle: windows of width 2 cover every column once.
  EXPECT_EQ(RecoveryCost(4, 0, 2, 0, 1), 2 + 2 + 4 * 2);
}

TEST(ShecMatrix, KeepsJerasureCoefficientsInsideWindows) {
  ASSERT_TRUE(InitGaloisFields().ok());
  for (int w : {8, 16, 32}) {
    for (auto t : {Technique::kSingle, Technique::kMultiple}) {
      const int k = 8, m = 4, c = 3;
      Result<std::vector<int>> matrix = CodingMatrix(t, k, m, c, w);
      ASSERT_TRUE(matrix.ok()) << matrix.status().ToString();
      int* rs = reed_sol_vandermonde_coding_matrix(k, m, w);
      ASSERT_NE(rs, nullptr);
      int zeros = 0;
      for (int i = 0; i < k * m; ++i) {
        if ((*matrix)[i] == 0)
          ++zeros;
        else
          EXPECT_EQ((*matrix)[i], rs[i]) << "w=" << w << " entry " << i;
      }
      std::free(rs);
      EXPECT_GT(zeros, 0) << "w=" << w;
      // Every data chunk is covered by at least one parity.
      for (int i = 0; i < k; ++i) {
        bool covered = false;
        for (int j = 0; j < m; ++j) covered = covered || (*matrix)[j * k + i] != 0;
        EXPECT_TRUE(covered) << "column " << i;
      }
    }
  }
  EXPECT_EQ(CodingMatrix(Technique::kSingle, 4, 3, 2, 7).status().code(), EINVAL);
}

}  // namespace
}  // namespace ec::shec

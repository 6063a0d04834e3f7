#include "kernels/embedding.h"

#include <cmath>

#include "kernels/simd.h"

namespace pmt::kernels {

PMT_MULTIVERSION
void PMT_KERNEL(embed_f32)(const float* table, const int32_t* ids, size_t n, size_t d, const float* pos_table,
               size_t pos0, float* y) {
  const float scale = std::sqrt(static_cast<float>(d));
  for (size_t t = 0; t < n; ++t) {
    const float* __restrict row = table + static_cast<size_t>(ids[t]) * d;
    const float* __restrict pe = pos_table + (pos0 + t) * d;
    float* __restrict yt = y + t * d;
    for (size_t c = 0; c < d; ++c) yt[c] = row[c] * scale + pe[c];
  }
}

PMT_MULTIVERSION
void PMT_KERNEL(embed_qc8)(const int8_t* table, const float* row_scales, const int32_t* ids, size_t n, size_t d,
               const float* pos_table, size_t pos0, float* y) {
  const float sqrt_d = std::sqrt(static_cast<float>(d));
  for (size_t t = 0; t < n; ++t) {
    const size_t id = static_cast<size_t>(ids[t]);
    const int8_t* __restrict row = table + id * d;
    const float* __restrict pe = pos_table + (pos0 + t) * d;
    float* __restrict yt = y + t * d;
    const float scale = row_scales[id] * sqrt_d;
    for (size_t c = 0; c < d; ++c) yt[c] = static_cast<float>(row[c]) * scale + pe[c];
  }
}

PMT_MULTIVERSION
void PMT_KERNEL(row_logits_f32)(const float* h, size_t rows, const float* table, const int32_t* ids, size_t n,
                                size_t d, float* out, size_t out_stride) {
  for (size_t j = 0; j < n; ++j) {
    const float* row = table + static_cast<size_t>(ids[j]) * d;
    for (size_t r = 0; r < rows; ++r) out[r * out_stride + j] = simd::dot(h + r * d, row, d);
  }
}

PMT_MULTIVERSION
void PMT_KERNEL(row_logits_qc8)(const float* h, size_t rows, const int8_t* table, const float* row_scales,
                                const int32_t* ids, size_t n, size_t d, float* scratch, float* out,
                                size_t out_stride) {
  for (size_t j = 0; j < n; ++j) {
    const size_t id = static_cast<size_t>(ids[j]);
    const int8_t* __restrict row = table + id * d;
    const float scale = row_scales[id];
    float* __restrict w = scratch;
    for (size_t c = 0; c < d; ++c) w[c] = static_cast<float>(row[c]) * scale;
    for (size_t r = 0; r < rows; ++r) out[r * out_stride + j] = simd::dot(h + r * d, w, d);
  }
}

#if !defined(PMT_NEON_COPY)  // the references and the rest are compiled once
void sinusoid_table(float* pe, size_t max_len, size_t d) {
  for (size_t c = 0; c < d; ++c) {
    const size_t two_i = c & ~size_t{1};  // columns 2i and 2i+1 share a frequency
    const double inv_freq = std::pow(10000.0, -static_cast<double>(two_i) / static_cast<double>(d));
    for (size_t pos = 0; pos < max_len; ++pos) {
      const double angle = static_cast<double>(pos) * inv_freq;
      pe[pos * d + c] = static_cast<float>(c % 2 == 0 ? std::sin(angle) : std::cos(angle));
    }
  }
}

void embed_f32_ref(const float* table, const int32_t* ids, size_t n, size_t d,
                   const float* pos_table, size_t pos0, float* y) {
  const double scale = std::sqrt(static_cast<double>(d));
  for (size_t t = 0; t < n; ++t)
    for (size_t c = 0; c < d; ++c)
      y[t * d + c] = static_cast<float>(table[static_cast<size_t>(ids[t]) * d + c] * scale +
                                        pos_table[(pos0 + t) * d + c]);
}

void embed_qc8_ref(const int8_t* table, const float* row_scales, const int32_t* ids, size_t n,
                   size_t d, const float* pos_table, size_t pos0, float* y) {
  const double scale = std::sqrt(static_cast<double>(d));
  for (size_t t = 0; t < n; ++t) {
    const size_t id = static_cast<size_t>(ids[t]);
    for (size_t c = 0; c < d; ++c)
      y[t * d + c] =
          static_cast<float>(static_cast<double>(table[id * d + c]) * row_scales[id] * scale +
                             pos_table[(pos0 + t) * d + c]);
  }
}

void row_logits_f32_ref(const float* h, size_t rows, const float* table, const int32_t* ids, size_t n, size_t d,
                        float* out, size_t out_stride) {
  for (size_t r = 0; r < rows; ++r)
    for (size_t j = 0; j < n; ++j) {
      double acc = 0.0;
      for (size_t c = 0; c < d; ++c) acc += static_cast<double>(h[r * d + c]) * table[static_cast<size_t>(ids[j]) * d + c];
      out[r * out_stride + j] = static_cast<float>(acc);
    }
}

void row_logits_qc8_ref(const float* h, size_t rows, const int8_t* table, const float* row_scales,
                        const int32_t* ids, size_t n, size_t d, float* out, size_t out_stride) {
  for (size_t r = 0; r < rows; ++r)
    for (size_t j = 0; j < n; ++j) {
      const size_t id = static_cast<size_t>(ids[j]);
      double acc = 0.0;
      for (size_t c = 0; c < d; ++c) acc += static_cast<double>(h[r * d + c]) * table[id * d + c] * row_scales[id];
      out[r * out_stride + j] = static_cast<float>(acc);
    }
}
#endif

}  // namespace pmt::kernels

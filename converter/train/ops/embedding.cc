#include "train/ops/embedding.h"

#include <cmath>

namespace pmt::train {

void sinusoidal_positions(float* pe, int max_len, int d) {
  for (int pos = 0; pos < max_len; ++pos) {
    for (int i = 0; i < d; i += 2) {
      const double angle = pos / std::pow(10000.0, static_cast<double>(i) / d);
      pe[static_cast<long>(pos) * d + i] = static_cast<float>(std::sin(angle));
      if (i + 1 < d) pe[static_cast<long>(pos) * d + i + 1] = static_cast<float>(std::cos(angle));
    }
  }
}

void embedding_forward(float* out, const int32_t* ids, int batch, int len, const float* table, const float* pe,
                       int d, float scale) {
  for (int b = 0; b < batch; ++b) {
    for (int t = 0; t < len; ++t) {
      const long r = static_cast<long>(b) * len + t;
      const float* e = table + static_cast<long>(ids[r]) * d;
      const float* p = pe + static_cast<long>(t) * d;
      float* o = out + r * d;
      for (int i = 0; i < d; ++i) o[i] = e[i] * scale + p[i];
    }
  }
}

void embedding_backward(float* dtable, const float* dout, const int32_t* ids, long n, int d, float scale) {
  for (long r = 0; r < n; ++r) {
    float* g = dtable + static_cast<long>(ids[r]) * d;
    const float* dr = dout + r * d;
    for (int i = 0; i < d; ++i) g[i] += dr[i] * scale;
  }
}

}  // namespace pmt::train

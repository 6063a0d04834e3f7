// Token embedding lookup scaled by sqrt(d_model) plus sinusoidal positions (Vaswani et al. 3.5).
#pragma once

#include <cstdint>

namespace pmt::train {

// pe[pos, 2i] = sin(pos / 10000^(2i/d)), pe[pos, 2i+1] = cos(pos / 10000^(2i/d)); pe: [max_len, d].
void sinusoidal_positions(float* pe, int max_len, int d);

// out[b, t] = table[ids[b, t]] * scale + pe[t] for a [batch, len] block of ids (all < vocab rows).
// out: [batch * len, d]; pe: at least [len, d].
void embedding_forward(float* out, const int32_t* ids, int batch, int len, const float* table, const float* pe,
                       int d, float scale);

// dtable[ids[r]] += dout[r] * scale for each of the n rows (positions have no parameters).
void embedding_backward(float* dtable, const float* dout, const int32_t* ids, long n, int d, float scale);

}  // namespace pmt::train

// The encoder-decoder Transformer of a model file on XNNPACK operators: an encoder pass over a
// batch of sources and an incremental decoder step with key/value caches. Every buffer comes
// from the Translator's arena; after create() and bind() nothing is allocated.
//
// Layouts (floats, row-major, D = d_model):
// - The encoder packs the sentences of a batch back to back, without padding: sentence b
//   occupies rows [offset_b, offset_b + len_b), and attention runs per sentence over its own
//   len_b keys, which equals a padded batch with a key padding mask.
// - Cross-attention keys/values, per decoder layer [max_batch * max_src_len, 2D] (K | V), are
//   computed once per sentence at the end of encode().
// - Self-attention keys/values, per decoder layer [slots][max_tgt_len][2D], slot = one
//   hypothesis (max_batch * max_beam slots); position p of a slot holds K|V of the token fed at
//   step p.
// - Both caches hold bfloat16 (kernels/quantize.h) for an int8 file: half of float's bytes, and at
//   the defaults (batch 4, beam 4, 178 target positions) the self-attention caches are most of
//   the arena; bfloat16's rounding is well below the int8 weights' error. An fp32 file keeps
//   float caches, so that it stays the exact reference of the trainer's forward.
#pragma once

#include <cstddef>
#include <atomic>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "arena.h"
#include "linear.h"
#include "pocketmt/model_file.h"
#include "thread_pool.h"

namespace pmt::rt {

struct NetworkLimits {
  int32_t max_batch = 0;
  int32_t max_src_len = 0;  // tokens incl. EOS
  int32_t max_tgt_len = 0;  // decoder steps (positions) per hypothesis
  int32_t max_beam = 0;
};

class Network {
 public:
  // Creating the operators from `file` (which must outlive the Network) is XNNPACK's weight
  // packing, most of a load, in independent jobs that several threads can share: plan() checks
  // the file's LayerNorms and lists the jobs (an attention block, an FFN, a projection);
  // create_operators() runs jobs until none is left, from any number of threads at once;
  // creation_error() then gives the first failure. With release_weights (only for a file that
  // ModelFile::open mapped), each weight's pages are given back once XNNPACK has packed it.
  // Empty string or error.
  std::string plan(const ModelFile& file, const NetworkLimits& limits, const ThreadPool* pool, bool release_weights);
  void create_operators();
  std::string creation_error() const;
  // plan() and every job on the calling thread.
  std::string create(const ModelFile& file, const NetworkLimits& limits, const ThreadPool* pool, bool release_weights);
  // Carves this network's buffers; run once to measure and once on the real arena, where it
  // also fills the positional encodings and copies the LayerNorm parameters and the embedding
  // table in (with release_weights, the file's pages are then all given back).
  void bind(ArenaLayout& arena);

  const ModelConfig& config() const { return config_; }
  const NetworkLimits& limits() const { return limits_; }
  size_t slots() const { return static_cast<size_t>(limits_.max_batch) * limits_.max_beam; }

  // Encodes sources[b] (ids with the final EOS, 1 <= size <= max_src_len, count <= max_batch)
  // and stores their cross-attention keys/values; sentence b is then addressed as b. With
  // `shortlist` and a file that has one, the decoder's logits cover each sentence's candidate
  // tokens only (see columns()). A file with a shortlist has no packed output layer: without
  // `shortlist` its logits are every token's, computed from the embedding rows one by one
  // (exact, slower than the int8 GEMM of a file without a shortlist).
  void encode(std::span<const std::span<const int32_t>> sources, bool shortlist);
  // One decoder step at position `pos` for `rows` hypotheses (rows <= slots()): row r feeds
  // tokens[r], appends to and attends over the self-attention cache of slot slots[r]
  // (positions 0..pos), and attends to the encoded sentence sentences[r]. Leaves the logits of
  // row r in logits() + r * vocab_size, columns(sentences[r]) of them.
  void decode(size_t pos, size_t rows, const int32_t* tokens, const int32_t* slots,
              const int32_t* sentences);
  float* logits() { return logits_; }
  // The logit columns of sentence b since the last encode: every token (vocab_size columns,
  // column = token id), or with the shortlist the sentence's own candidates in ascending id
  // order: the file's frequent pieces, EOS, and each of its source pieces with that piece's list
  // (ModelFile::shortlist()). Per sentence, so that a translation never depends on the other
  // sentences of its batch.
  bool has_shortlist() const { return shortlist_ != nullptr; }
  size_t columns(size_t b) const { return use_columns_ ? cand_count_[b] : config_.vocab_size; }
  int32_t column_token(size_t b, size_t column) const {
    return use_columns_ ? cand_ids_[cand_begin_[b] + column] : static_cast<int32_t>(column);
  }
  // -1 for a token that is not a candidate of sentence b.
  int32_t token_column(size_t b, int32_t token) const;
  // Copies positions [0, len) of every layer's self-attention cache from slot `from` to `to`.
  void copy_cache(size_t from, size_t to, size_t len);

 private:
  struct Norm { const float* gamma = nullptr; const float* beta = nullptr; };
  struct FeedForward { Linear linear1, linear2; };
  struct EncoderLayer {
    Linear in_proj, out_proj;  // self-attention: fused QKV [3D, D]
    Norm norm1, norm2;
    FeedForward ffn;
  };
  struct DecoderLayer {
    Linear in_proj, out_proj;          // causal self-attention
    Linear q_proj, kv_proj, cross_out;  // cross-attention
    Norm norm1, norm2, norm3;
    FeedForward ffn;
    std::byte* self_kv = nullptr;   // [slots][max_tgt_len][2D], kv_bytes() each
    std::byte* cross_kv = nullptr;  // [max_batch * max_src_len][2D], kv_bytes() each
  };

  std::string create_linear(const std::string& weight, const std::string& bias,
                            const Linear::Options& options, Linear* out);
  std::string create_attention(const std::string& prefix, Linear* in_proj, Linear* out_proj);
  std::string create_ffn(const std::string& prefix, FeedForward* out);
  std::string find_norm(const std::string& name, Norm* out) const;
  // The operators still to create (plan()), the next one to take, and each one's error.
  std::vector<std::function<std::string()>> jobs_;
  std::atomic<size_t> next_job_{0};
  std::vector<std::string> job_errors_;

  // The pool for a GEMM of `rows` rows, or none when it is too small to gain from threads
  // (waking the workers costs about as much as a few tens of microseconds of work). Measured on
  // the small model's decoder rows: one int8 row per step 0.12 -> 0.08 ms with two threads.
  static constexpr size_t kMinParallelWork = 256 * 1024;  // fp32 multiply-adds
  pthreadpool_t pool_for(const Linear& op, size_t rows) const;
  void embed(const int32_t* ids, size_t n, size_t pos0, float* y) const;
  // The key/value caches' element: bfloat16 (bf16_kv_) or float. store_kv puts n floats at
  // element `at` of a cache; attend_kv is one query's attention over kv_len cached K|V rows from
  // element `at`.
  size_t kv_bytes() const { return bf16_kv_ ? sizeof(uint16_t) : sizeof(float); }
  void store_kv(const float* x, size_t n, std::byte* cache, size_t at) const;
  void attend_kv(const float* q, size_t ld_q, const std::byte* cache, size_t at, size_t kv_len, float* out,
                 float* scratch) const;
  void linear(const Linear& op, size_t rows, const float* x, float* y);
  void feed_forward(const FeedForward& ffn, size_t rows, const float* x, float* y);
  // y = LN(x + residual) (residual may be null).
  void layer_norm(const Norm& norm, size_t rows, const float* x, const float* residual, float* y) const;
  // x_ <- the residual block around sublayer f(in, out) over [rows, D]: post-LN x = LN(x + f(x)),
  // pre-LN x = x + f(LN(x)).
  template <class F>
  void residual(const Norm& norm, size_t rows, F&& f);
  // Replaces the coarse int8 logits of each row's best candidates by exact dot products of the
  // float decoder states h [rows, D] with the int8 embedding rows.
  void refine_logits(size_t rows, const float* h);
  // Encodes sentences [first, last) of `sources`, whose rows (src_offset_, src_len_) fit in
  // encoder_rows_.
  void encode_group(std::span<const std::span<const int32_t>> sources, size_t first, size_t last);
  // Fills cand_* with the candidates of each of `sources`, or with every token when not
  // `shortlist`.
  void select_columns(std::span<const std::span<const int32_t>> sources, bool shortlist);

  const ModelFile* file_ = nullptr;
  bool release_weights_ = false;
  const ThreadPool* pool_ = nullptr;
  ModelConfig config_;
  NetworkLimits limits_;
  const TensorView* embed_ = nullptr;
  bool bf16_kv_ = false;  // int8 file: bfloat16 caches
  const void* embed_rows_ = nullptr;       // the table, copied into the arena by bind()
  const float* embed_scales_ = nullptr;    // I8: its row scales, likewise
  Linear output_;  // logits = h E^T; only for a file without a shortlist
  std::vector<EncoderLayer> encoder_;
  std::vector<DecoderLayer> decoder_;
  Norm encoder_norm_, decoder_norm_;  // pre-LN only
  size_t refine_count_ = 0;           // int8 logits recomputed exactly per row
  const ShortlistView* shortlist_ = nullptr;  // the file's; its lists are copied into the arena
  ShortlistView arena_shortlist_;
  bool use_columns_ = false;
  // Sentence b's candidates: cand_ids_[cand_begin_[b] ..][.. cand_count_[b]), ascending;
  // cand_ids_ holds max_batch * vocab ids (a sentence can have every token), seen_ is a
  // [vocab] scratch mark, all false between calls.
  int32_t *cand_ids_ = nullptr, *cand_begin_ = nullptr, *cand_count_ = nullptr;
  bool* seen_ = nullptr;

  // Arena buffers. Encoder and decoder never run at once, so they share the working rows.
  // The encoder's rows per pass: a batch's sentences are encoded in groups of at most this many
  // rows (one sentence at least), so its activations never take max_batch * max_src_len rows
  // (5.8 MB of int8 activations at batch 4 and 128 tokens). 128 rows keep XNNPACK's GEMMs as
  // efficient per row as larger passes.
  static constexpr size_t kEncoderRows = 128;
  size_t encoder_rows_ = 0;  // min(max_batch * max_src_len, max(max_src_len, kEncoderRows))
  size_t max_rows_ = 0;      // max(encoder_rows_, slots())
  float *x_ = nullptr, *normed_ = nullptr, *qkv_ = nullptr, *attn_ = nullptr, *proj_ = nullptr,
        *hidden_ = nullptr, *logits_ = nullptr, *pos_table_ = nullptr, *attn_scratch_ = nullptr,
        *refine_row_ = nullptr, *refine_val_ = nullptr;
  // int8 activations: the input of a Linear, its output, and the FFN's hidden layer when
  // linear2 reads linear1's int8 output as is.
  int8_t *xq_ = nullptr, *yq_ = nullptr, *hq_ = nullptr;
  int32_t *src_offset_ = nullptr, *src_len_ = nullptr, *refine_idx_ = nullptr;
  size_t attn_scratch_len_ = 0;
};

}  // namespace pmt::rt

// Growing a trained model's vocabulary for text it was not built from: whole-word pieces appended
// to its SentencePiece model (every old piece keeps its id and score, so the old text segments as
// before where no new word occurs) and one embedding row appended per new piece. The default
// model's 8,000 pieces were made from software text and the Bible, which spell common everyday
// words in fragments ("coffee" as "▁c off e e", "school" as "▁ s cho ol"); a small model then has
// to learn to read and write each of them from letters.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/safetensors.h"

namespace sentencepiece {
class SentencePieceProcessor;
}

namespace pmt::corpus {

// A word the old vocabulary spells in several pieces, as it occurs in the text after the model's
// normalization: "▁coffee" with the ids of "▁c", "off", "e", "e".
struct WordPieces {
  std::string word;          // the pieces' text concatenated, "▁" included
  std::vector<int> pieces;   // old ids, in order
  int64_t count = 0;         // occurrences in the text
  float old_score = 0;       // sum of the pieces' scores: the old segmentation's log-probability
};

struct ExtensionOptions {
  int64_t min_count = 5;     // a word must occur at least this often
  size_t max_new = 4000;     // at most this many pieces are added
  size_t max_chars = 16;     // longest new piece in characters, "▁" included (SentencePiece's default)
};

// Splits every line as `sp` does and counts its words (a piece that starts with "▁" and the
// pieces after it up to the next one). Candidates are words of two or more pieces, none of them a
// byte, <unk> or control piece, made of letters (apostrophes between them: "don't"; no digit, so
// numbers stay digit by digit for the runtime to copy, no punctuation) and at most `max_chars`
// characters. Returns the `max_new` candidates with
// `min_count` or more occurrences that save the most pieces (count x (pieces - 1)), ties by word,
// in that order: the order their new ids follow.
std::vector<WordPieces> choose_new_pieces(const sentencepiece::SentencePieceProcessor& sp,
                                          const std::vector<std::string>& lines, const ExtensionOptions& options);

// The score a new piece gets: its old segmentation's plus 1 and half a point per piece it
// replaces, so that Viterbi segmentation prefers it to those pieces and a longer new word to a
// shorter one with the old pieces after it ("▁schools" over "▁school" + "s") without ties.
float new_piece_score(const WordPieces& w);

// `serialized` (a SentencePiece ModelProto) with one `pieces` entry (piece, score; type NORMAL)
// appended per word: protobuf appends the repeated field's later entries, so the old ids stay.
std::string append_pieces(std::string_view serialized, const std::vector<WordPieces>& words);

// Appends one row per word to the checkpoint's `embed.weight` [V, D] (shared by the encoder and
// decoder inputs and the output projection): the mean of its old pieces' rows, rescaled to their
// mean length, so that the new piece starts near what the model read for the fragments. Sets
// vocab_size in the metadata and drops optimizer moments (they belong to the old shapes). Returns
// an error message or empty.
std::string extend_embedding(const std::vector<WordPieces>& words, StFile* checkpoint);

}  // namespace pmt::corpus

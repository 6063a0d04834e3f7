// `pmt-convert inspect`: a summary of a verified model file for people (aligned text) or
// machines (one JSON object): config, special ids, tokenizer (pieces, size, storage), metadata,
// and per tensor its shape, dtype, bytes, scale range and activation quantization.
#pragma once

#include <string>

#include "pocketmt/model_file.h"

namespace pmt::exporter {

// Number of pieces of the file's SentencePiece model, or -1 (and *error set) when it does not
// parse.
int tokenizer_pieces(const ModelFile& file, std::string* error);

// The summary as text or JSON. `label` names the file (its path) in the output.
std::string describe_model(const ModelFile& file, const std::string& label, bool json);

}  // namespace pmt::exporter

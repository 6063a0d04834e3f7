// Writes the generated seeds of the fuzz corpora (committed under tests/fuzz/corpus/): the micro
// model as the exporter writes it (fp32, int8) and a checkpoint as the trainer
// writes it. Usage: fuzz_make_seeds <corpus dir>. The hand-written text seeds live beside them.
#include <cstdio>
#include <string>
#include <vector>

#include "common/safetensors.h"
#include "export/model_writer.h"
#include "micro_model.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  const struct {
    std::string name;
    std::vector<uint8_t> bytes;
  } models[] = {{"micro-f32.pmt", pmt::fuzz::micro_model(pmt::DType::F32)},
                {"micro-i8.pmt", pmt::fuzz::micro_model(pmt::DType::I8)}};
  for (const auto& m : models) {
    if (std::string e = pmt::exporter::write_file_atomically(dir + "/model_file/" + m.name, m.bytes); !e.empty()) {
      std::fprintf(stderr, "%s\n", e.c_str());
      return 1;
    }
  }
  pmt::StFile checkpoint;
  checkpoint.metadata = pmt::config_to_metadata(pmt::fuzz::micro_config());
  checkpoint.metadata["train.step"] = "3";
  checkpoint.tensors.push_back({"embed.weight", {4, 2}, {1, -2, 3, -4, 0.5f, 0, 1e-30f, 3e38f}});
  checkpoint.tensors.push_back({"empty", {0, 3}, {}});
  checkpoint.tensors.push_back({"scalar", {}, {7}});
  if (std::string e = pmt::write_safetensors(dir + "/safetensors/micro.safetensors", checkpoint); !e.empty()) {
    std::fprintf(stderr, "%s\n", e.c_str());
    return 1;
  }
  return 0;
}

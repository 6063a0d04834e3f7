// `pmt-convert train` / `average` end to end on a tiny generated corpus: bad input gives exit 2
// with a message, a short run writes its checkpoints, a resume continues it.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "common/text_lines.h"
#include "train/checkpoint.h"
#include "train/ops/gemm.h"
#include "train_test_util.h"

namespace pmt::cli {
int cmd_train(int argc, char** argv);
int cmd_average(int argc, char** argv);
}  // namespace pmt::cli

using namespace pmt;

namespace {

int run(int (*cmd)(int, char**), std::vector<std::string> args) {
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  const int status = cmd(static_cast<int>(argv.size()), argv.data());
  // The train command sets the process-wide GEMM backend (--gemm, default auto); the library's
  // own tests in this process run on fp32.
  train::set_gemm_backend(train::GemmBackend::kFp32);
  return status;
}

std::string lines_text(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}

// data/{train,valid}.{en,es} and a 64-piece SentencePiece model (the tiny preset's vocabulary).
struct TinyCorpus {
  test::ScratchDir dir{"cli"};
  std::string data = dir.file("data");
  std::string spm;
  TinyCorpus() {
    std::filesystem::create_directories(data);
    const auto en = test::pseudo_sentences(120, 1), es = test::pseudo_sentences(120, 2);
    test::write_file(data + "/train.en", lines_text({en.begin(), en.begin() + 100}));
    test::write_file(data + "/train.es", lines_text({es.begin(), es.begin() + 100}));
    test::write_file(data + "/valid.en", lines_text({en.begin() + 100, en.end()}));
    test::write_file(data + "/valid.es", lines_text({es.begin() + 100, es.end()}));
    test::write_file(dir.file("spm.txt"), lines_text(en) + lines_text(es));
    spm = test::train_sentencepiece(dir.file("spm.txt"), dir.file("spm"), 64);
  }
  std::vector<std::string> args(const std::string& out) const {
    return {"--data", data, "--spm", spm, "--preset", "tiny", "--out", out, "--batch-tokens", "200",
            "--warmup", "10", "--log-every", "2", "--eval-every", "3", "--eval-sentences", "5"};
  }
};

std::vector<std::string> plus(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace

TEST_CASE("train: a short run, a resume and an average") {
  TinyCorpus c;
  const std::string out = c.dir.file("run");
  REQUIRE(run(cli::cmd_train, plus(c.args(out), {"--steps", "4", "--keep", "3"})) == 0);
  for (const char* f : {"last.safetensors", "best.safetensors", "step-0000003.safetensors", "step-0000004.safetensors"})
    CHECK(std::filesystem::exists(out + "/" + f));
  // Refuses to overwrite a run by accident.
  CHECK(run(cli::cmd_train, plus(c.args(out), {"--steps", "4"})) == 2);
  REQUIRE(run(cli::cmd_train, plus(c.args(out), {"--steps", "6", "--average", "2", "--resume", out + "/last.safetensors"})) == 0);
  StFile file;
  ModelConfig config;
  REQUIRE(train::read_checkpoint(out + "/last.safetensors", &file, &config) == "");
  CHECK(file.metadata.at("train.step") == "6");
  CHECK(file.metadata.at("train.numbered_checkpoints") == "3,4,6");
  REQUIRE(train::read_checkpoint(out + "/average.safetensors", &file, &config) == "");
  CHECK(file.metadata.at("averaged_from").find("step-0000004.safetensors") != std::string::npos);
  CHECK(run(cli::cmd_average, {"--out", c.dir.file("avg.safetensors"), out + "/step-0000003.safetensors",
                               out + "/step-0000006.safetensors"}) == 0);
  CHECK(std::filesystem::exists(c.dir.file("avg.safetensors")));
}

TEST_CASE("train: bad input exits with status 2") {
  TinyCorpus c;
  const std::string out = c.dir.file("bad");
  CHECK(run(cli::cmd_train, plus(c.args(out), {"--preset", "huge"})) == 2);
  CHECK(run(cli::cmd_train, plus(c.args(out), {"--steps", "zero"})) == 2);
  CHECK(run(cli::cmd_train, plus(c.args(out), {"--bogus"})) == 2);
  CHECK(run(cli::cmd_train, plus(c.args(out), {"--spm", c.dir.file("missing.model")})) == 2);
  CHECK(run(cli::cmd_train, plus(c.args(out), {"--data", c.dir.file("nowhere")})) == 2);
  // The small preset has 8000 pieces; this vocabulary has 64.
  CHECK(run(cli::cmd_train, plus(c.args(out), {"--preset", "small"})) == 2);

  SUBCASE("mismatched line counts") {
    test::write_file(c.data + "/train.es", "una\ndos\n");
    CHECK(run(cli::cmd_train, c.args(out)) == 2);
  }
  SUBCASE("invalid UTF-8") {
    test::write_file(c.data + "/valid.es", std::string(20, 'a') + "\n\xC3\x28\n");
    test::write_file(c.data + "/valid.en", "a\nb\n");
    CHECK(run(cli::cmd_train, c.args(out)) == 2);
  }
  SUBCASE("a resume checkpoint that does not fit") {
    const std::string other = c.dir.file("other");
    REQUIRE(run(cli::cmd_train, plus(c.args(other), {"--steps", "1"})) == 0);
    const std::string last = other + "/last.safetensors";
    CHECK(run(cli::cmd_train, plus(c.args(out), {"--preset", "small", "--resume", last})) == 2);
    CHECK(run(cli::cmd_train, plus(c.args(out), {"--dropout", "0.3", "--resume", last})) == 2);
    CHECK(run(cli::cmd_train, plus(c.args(out), {"--resume", other + "/best.safetensors"})) == 2);  // no optimizer state
    CHECK(run(cli::cmd_train, plus(c.args(out), {"--resume", c.dir.file("spm.txt")})) == 2);     // not a checkpoint
    CHECK(run(cli::cmd_train, plus(c.args(out), {"--preset", "small", "--init", last})) == 2);
    CHECK(run(cli::cmd_train, plus(c.args(out), {"--init", c.dir.file("spm.txt")})) == 2);
    CHECK(run(cli::cmd_train, plus(c.args(out), {"--init", last, "--resume", last})) == 2);
  }
}

// --init starts a new run from weights alone (best, an average, a checkpoint whose Adam state was
// not kept): step 0, fresh moments, its own schedule, here with a cool-down.
TEST_CASE("train --init: a new run from a checkpoint's weights, with --decay") {
  TinyCorpus c;
  const std::string first = c.dir.file("first"), second = c.dir.file("second");
  REQUIRE(run(cli::cmd_train, plus(c.args(first), {"--steps", "3"})) == 0);
  const std::string weights = first + "/best.safetensors";  // no optimizer state
  StFile start, end;
  ModelConfig config;
  REQUIRE(train::read_checkpoint(weights, &start, &config) == "");

  // At rate 0 the run's weights are the initial checkpoint's, bit for bit: they were loaded.
  REQUIRE(run(cli::cmd_train, plus(c.args(second), {"--steps", "2", "--init", weights, "--lr-scale", "0"})) == 0);
  REQUIRE(train::read_checkpoint(second + "/last.safetensors", &end, &config) == "");
  CHECK(end.metadata.at("train.step") == "2");
  CHECK(end.metadata.at("train.init") == weights);
  for (const StTensor& t : start.tensors) {
    const StTensor* u = end.find(t.name);
    REQUIRE(u != nullptr);
    CHECK(u->data == t.data);
  }

  // With a rate, it trains on and remembers the cool-down for a resume.
  const std::string third = c.dir.file("third");
  REQUIRE(run(cli::cmd_train, plus(c.args(third), {"--steps", "4", "--init", weights, "--decay", "3"})) == 0);
  REQUIRE(train::read_checkpoint(third + "/last.safetensors", &end, &config) == "");
  CHECK(end.metadata.at("train.decay") == "3");
  CHECK(end.find("decoder.layers.0.linear1.weight")->data != start.find("decoder.layers.0.linear1.weight")->data);
  REQUIRE(run(cli::cmd_train, {"--resume", third + "/last.safetensors", "--steps", "5"}) == 0);
  REQUIRE(train::read_checkpoint(third + "/last.safetensors", &end, &config) == "");
  CHECK(end.metadata.at("train.decay") == "3");
  CHECK(end.metadata.at("train.init") == weights);
}

TEST_CASE("check_utf8 rejects malformed sequences") {
  using pmt::check_utf8;
  CHECK(check_utf8("plain ascii") == "");
  CHECK(check_utf8("Jehová, 日本, 😀") == "");
  CHECK(check_utf8("\xC3\x28") != "");          // bad continuation
  CHECK(check_utf8("\xC0\xAF") != "");          // overlong '/'
  CHECK(check_utf8("\xED\xA0\x80") != "");      // surrogate
  CHECK(check_utf8("\xF4\x90\x80\x80") != "");  // above U+10FFFF
  CHECK(check_utf8("abc\xE2\x82") != "");       // truncated
}

// Issue 14, finding 9: `--resume FILE` alone looked for the default corpus (data/web-rv) and
// reset --eval-every, --eval-sentences and --log-every to their defaults.
TEST_CASE("train: a resume takes the run's corpus, vocabulary and evaluation settings back") {
  TinyCorpus c;
  const std::string out = c.dir.file("run");
  REQUIRE(run(cli::cmd_train, plus(c.args(out), {"--steps", "4"})) == 0);
  const std::string last = out + "/last.safetensors";
  REQUIRE(run(cli::cmd_train, {"--resume", last, "--steps", "9"}) == 0);
  StFile file;
  ModelConfig config;
  REQUIRE(train::read_checkpoint(last, &file, &config) == "");
  CHECK(file.metadata.at("train.step") == "9");
  CHECK(file.metadata.at("train.data") == c.data);
  CHECK(file.metadata.at("train.spm") == c.spm);
  CHECK(file.metadata.at("train.log_every") == "2");
  CHECK(file.metadata.at("train.eval_every") == "3");
  CHECK(file.metadata.at("train.eval_sentences") == "5");
  CHECK(file.metadata.at("train.gemm") == "auto");  // the default
  // --eval-every 3 kept: evaluations (and numbered checkpoints) at 6 and 9, not only at the end.
  CHECK(std::filesystem::exists(out + "/step-0000006.safetensors"));
  // An option given again wins and is remembered in turn.
  REQUIRE(run(cli::cmd_train, {"--resume", last, "--steps", "10", "--log-every", "5"}) == 0);
  REQUIRE(train::read_checkpoint(last, &file, &config) == "");
  CHECK(file.metadata.at("train.log_every") == "5");
  CHECK(file.metadata.at("train.eval_every") == "3");
  CHECK(file.metadata.at("train.steps") == "10");
  // A run stopped early (SIGINT) goes on to its own --steps, not to the default 1,000 (session 17:
  // a --new-corpus resume without --steps went to 1,000 and changed the cool-down).
  file.metadata["train.steps"] = "12";
  REQUIRE(write_safetensors(last, file) == "");
  REQUIRE(run(cli::cmd_train, {"--resume", last}) == 0);
  REQUIRE(train::read_checkpoint(last, &file, &config) == "");
  CHECK(file.metadata.at("train.step") == "12");
  CHECK(file.metadata.at("train.steps") == "12");
}

TEST_CASE("train: a run that chose bf16 resumes on any CPU (auto, with a warning, where bf16 is missing)") {
  TinyCorpus c;
  const std::string out = c.dir.file("run");
  REQUIRE(run(cli::cmd_train, plus(c.args(out), {"--steps", "2", "--gemm", "fp32"})) == 0);
  const std::string last = out + "/last.safetensors";
  StFile file;
  REQUIRE(read_safetensors(last, &file) == "");
  file.metadata["train.gemm"] = "bf16";  // as a checkpoint from an AMX or AVX512-BF16 machine has it
  REQUIRE(write_safetensors(last, file) == "");
  REQUIRE(run(cli::cmd_train, {"--resume", last, "--steps", "3"}) == 0);
  ModelConfig config;
  REQUIRE(train::read_checkpoint(last, &file, &config) == "");
  CHECK(file.metadata.at("train.step") == "3");
  CHECK(file.metadata.at("train.gemm") == (train::bf16_available() ? "bf16" : "auto"));
}

TEST_CASE("train --gemm: bf16 needs AMX or AVX512-BF16 (exit 2 without); a resume keeps the choice") {
  TinyCorpus c;
  const std::string out = c.dir.file("run");
  CHECK(run(cli::cmd_train, plus(c.args(out), {"--steps", "2", "--gemm", "fp16"})) == 2);
  if (!train::bf16_available()) {
    MESSAGE("no AMX or AVX512-BF16 here: only the refusal is tested");
    CHECK(run(cli::cmd_train, plus(c.args(out), {"--steps", "2", "--gemm", "bf16"})) == 2);
    CHECK(run(cli::cmd_train, plus(c.args(out), {"--steps", "2", "--gemm", "auto"})) == 0);
    return;
  }
  REQUIRE(run(cli::cmd_train, plus(c.args(out), {"--steps", "2", "--gemm", "bf16"})) == 0);
  const std::string last = out + "/last.safetensors";
  REQUIRE(run(cli::cmd_train, {"--resume", last, "--steps", "3"}) == 0);
  StFile file;
  ModelConfig config;
  REQUIRE(train::read_checkpoint(last, &file, &config) == "");
  CHECK(file.metadata.at("train.gemm") == "bf16");
}

#include "corpus/software_text.h"

#include <algorithm>

#include "corpus/length_ratio.h"
#include "corpus/message_cleaning.h"
#include "corpus/utf8.h"

namespace pmt::corpus {

uint32_t stable_hash(std::string_view s) {
  uint32_t h = 2166136261u;
  for (const char c : s) h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
  return h;
}

Split split_of_document(const std::string& name, int held_out_buckets) {
  const uint32_t bucket = stable_hash(name) % 50, n = static_cast<uint32_t>(held_out_buckets);
  if (bucket >= 7 && bucket < 7 + n) return Split::kTest;
  if (bucket >= 23 && bucket < 23 + n) return Split::kValid;
  return Split::kTrain;
}

bool clean_pair(const SentencePair& raw, SentencePair* out, CleanCounts* counts) {
  const auto clean = [](const std::string& s) { return collapse_whitespace(strip_accelerators(strip_markup(s))); };
  SentencePair p{clean(raw.en), clean(raw.es)};
  if (p.en.empty() || p.es.empty()) return ++counts->empty, false;
  const int words = count_words(p.en);
  if (words < 3 || words > 120) return ++counts->length, false;
  if (near_duplicate_key(p.en) == near_duplicate_key(p.es)) return ++counts->untranslated, false;
  if (placeholders(p.en) != placeholders(p.es)) return ++counts->placeholders, false;
  const FunctionWords es = count_function_words(p.es), en = count_function_words(p.en);
  if (es.english > es.spanish || en.spanish > en.english) return ++counts->language, false;
  *out = std::move(p);
  return true;
}

SoftwareCorpus build_software_corpus(const std::vector<RawDocument>& documents, int held_out_buckets,
                                     SeenEnglish* seen) {
  SoftwareCorpus corpus;
  CleanCounts& counts = corpus.counts;
  struct Cleaned {
    Split split;
    std::vector<SentencePair> pairs;
  };
  std::vector<Cleaned> cleaned;
  std::vector<double> ratios;
  for (const RawDocument& d : documents) {
    Cleaned c{split_of_document(d.name, held_out_buckets), {}};
    ++corpus.documents[static_cast<int>(c.split)];
    for (const SentencePair& raw : d.pairs) {
      ++counts.raw;
      SentencePair p;
      if (!clean_pair(raw, &p, &counts)) continue;
      ratios.push_back(static_cast<double>(text::length_in_code_points(p.es)) /
                       static_cast<double>(text::length_in_code_points(p.en)));
      c.pairs.push_back(std::move(p));
    }
    cleaned.push_back(std::move(c));
  }
  corpus.median_ratio = median(ratios);

  for (const Split split : {Split::kTrain, Split::kValid, Split::kTest}) {
    for (const Cleaned& c : cleaned) {
      if (c.split != split) continue;
      for (const SentencePair& p : c.pairs) {
        const size_t en_len = text::length_in_code_points(p.en), es_len = text::length_in_code_points(p.es);
        const double factor = en_len < 20 && es_len < 20 ? 3.0 : 2.0;
        if (!ratio_within(static_cast<double>(es_len) / static_cast<double>(en_len), corpus.median_ratio, factor)) {
          ++counts.ratio;
          continue;
        }
        if (!seen->text.insert(p.en).second) {
          ++counts.duplicate;
          continue;
        }
        if (!seen->key.insert(near_duplicate_key(p.en)).second) {
          ++counts.near_duplicate;
          continue;
        }
        ++counts.kept[static_cast<int>(split)];
        corpus.splits[static_cast<int>(split)].push_back(p);
      }
    }
  }
  return corpus;
}

}  // namespace pmt::corpus

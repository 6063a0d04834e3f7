#include "corpus/prepare.h"

#include <algorithm>
#include <fstream>
#include <future>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "corpus/length_ratio.h"
#include "corpus/osis_text.h"
#include "corpus/rv1909_text.h"
#include "corpus/utf8.h"
#include "corpus/verse_alignment.h"

namespace pmt::corpus {
namespace {

constexpr double kMaxRatioFactor = 2.0;

// One verse of the KJV/RV verse list with the stripped text of every module.
struct Verse {
  int chapter = 0;  // canonical chapter index
  bool first_of_chapter = false;
  std::string web, kjv, rv;
  bool in_place = false;  // rule 4
};

std::unordered_map<std::string_view, std::string_view> index_by_key(const std::vector<ImpEntry>& e) {
  std::unordered_map<std::string_view, std::string_view> index;
  index.reserve(e.size());
  for (const ImpEntry& entry : e) index.emplace(entry.key, entry.osis);
  return index;
}

std::string_view find_or_empty(const std::unordered_map<std::string_view, std::string_view>& index,
                               std::string_view key) {
  const auto it = index.find(key);
  return it == index.end() ? std::string_view{} : it->second;
}

// Rules 1-2: the verse list with the cleaned text of the three modules.
std::vector<Verse> read_verses(const BibleSources& sources, PreparedCorpus* out) {
  const auto web = index_by_key(sources.web);
  const auto kjv = index_by_key(sources.kjv);
  std::vector<Verse> verses;
  std::string_view book;
  int chapter_number = 0;
  for (const ImpEntry& entry : sources.rv) {
    VerseRef ref;
    if (!parse_verse_ref(entry.key, &ref)) continue;
    const bool new_chapter = ref.book != book || ref.chapter != chapter_number;
    if (new_chapter) {
      book = ref.book;
      chapter_number = ref.chapter;
      ++out->chapters;
    }
    Verse v;
    v.chapter = out->chapters - 1;
    v.first_of_chapter = ref.verse == 1;
    const std::string_view kjv_osis = find_or_empty(kjv, entry.key);
    v.web = osis_to_text(find_or_empty(web, entry.key));
    v.kjv = osis_to_text(kjv_osis);
    v.rv = osis_to_text(entry.osis);
    if (has_subscription(kjv_osis)) {
      std::string cut = cut_subscription(v.rv);
      out->subscriptions_cut += cut != v.rv;
      v.rv = std::move(cut);
    }
    verses.push_back(std::move(v));
  }
  WordCaseCounts case_counts;
  for (const Verse& v : verses) case_counts.add_text(v.rv);
  for (Verse& v : verses) {
    if (!v.first_of_chapter) continue;
    std::string recased = recase_chapter_opening(v.rv, case_counts);
    out->openings_recased += recased != v.rv;
    v.rv = std::move(recased);
  }
  out->verses = static_cast<int>(verses.size());
  return verses;
}

int count_question_marks(std::string_view s) {
  return static_cast<int>(std::count(s.begin(), s.end(), '?'));
}

// Rule 4: marks the verses RV and KJV align one-to-one in place, chapter by chapter.
void align_chapters(std::vector<Verse>* verses, PreparedCorpus* out) {
  std::vector<VerseFeatures> kjv, rv;
  int64_t kjv_chars = 0, rv_chars = 0;
  for (const Verse& v : *verses) {
    kjv.push_back({static_cast<int>(text::length_in_code_points(v.kjv)), count_question_marks(v.kjv)});
    rv.push_back({static_cast<int>(text::length_in_code_points(v.rv)), count_question_marks(v.rv)});
    kjv_chars += kjv.back().length;
    rv_chars += rv.back().length;
  }
  AlignmentModel model;
  if (kjv_chars > 0 && rv_chars > 0) {
    model.target_per_source_char = static_cast<double>(rv_chars) / static_cast<double>(kjv_chars);
  }
  for (size_t begin = 0; begin < verses->size();) {
    size_t end = begin;
    while (end < verses->size() && (*verses)[end].chapter == (*verses)[begin].chapter) ++end;
    const std::vector<bool> in_place =
        aligned_in_place(std::span(kjv).subspan(begin, end - begin), std::span(rv).subspan(begin, end - begin), model);
    for (size_t i = begin; i < end; ++i) {
      (*verses)[i].in_place = in_place[i - begin];
      out->misaligned_verses += !in_place[i - begin];
    }
    begin = end;
  }
}

// Rules 3-5 for one pairing: the indices of the verses kept, in order.
std::vector<size_t> filter_pairs(const std::vector<Verse>& verses, std::string Verse::*english,
                                 DropCounts* drops, double* median_ratio) {
  std::vector<size_t> candidates;
  std::vector<double> ratios;
  for (size_t i = 0; i < verses.size(); ++i) {
    const Verse& v = verses[i];
    if ((v.*english).empty() || v.rv.empty()) {
      ++drops->empty;
    } else if (!v.in_place) {
      ++drops->versification;
    } else {
      candidates.push_back(i);
      ratios.push_back(static_cast<double>(text::length_in_code_points(v.rv)) /
                       static_cast<double>(text::length_in_code_points(v.*english)));
    }
  }
  *median_ratio = median(ratios);
  std::vector<size_t> kept;
  for (size_t k = 0; k < candidates.size(); ++k) {
    if (ratio_within(ratios[k], *median_ratio, kMaxRatioFactor)) {
      kept.push_back(candidates[k]);
    } else {
      ++drops->length_ratio;
    }
  }
  return kept;
}

}  // namespace

bool prepare_corpus(const BibleSources& sources, const PrepareOptions& options,
                    PreparedCorpus* out, std::string* error) {
  *out = PreparedCorpus{};
  std::vector<Verse> verses = read_verses(sources, out);
  if (verses.empty()) {
    *error = "the RV1909 source holds no verse";
    return false;
  }
  align_chapters(&verses, out);
  const std::vector<size_t> web_kept = filter_pairs(verses, &Verse::web, &out->web_drops, &out->web_median_ratio);
  const std::vector<size_t> kjv_kept = filter_pairs(verses, &Verse::kjv, &out->kjv_drops, &out->kjv_median_ratio);

  const auto split_of = [&](size_t i) { return split_of_chapter(verses[i].chapter); };
  std::unordered_set<std::string_view> train_english;  // rule 7
  for (size_t i : web_kept) {
    if (split_of(i) == Split::kTrain) train_english.insert(verses[i].web);
  }
  for (size_t i : kjv_kept) {
    if (split_of(i) == Split::kTrain) train_english.insert(verses[i].kjv);
  }
  for (size_t i : web_kept) {
    const Split split = split_of(i);
    if (split != Split::kTrain && train_english.count(verses[i].web)) {
      ++out->web_drops.leaked[static_cast<int>(split)];
      continue;
    }
    out->splits[static_cast<int>(split)].push_back({verses[i].web, verses[i].rv});
  }
  for (size_t i : kjv_kept) {
    if (split_of(i) != Split::kTrain) continue;  // the held-out sets are WEB-RV only
    ++out->kjv_train_pairs;
    if (options.add_kjv_to_train) {
      out->splits[static_cast<int>(Split::kTrain)].push_back({verses[i].kjv, verses[i].rv});
    }
  }
  return true;
}

bool read_bible_modules(BibleModules* out, std::string* error) {
  const char* modules[3] = {"engWEB2015eb", "engKJV2006eb", "spaRV1909eb"};
  std::string errors[3];
  std::vector<std::future<bool>> runs;  // the three mod2imp runs are independent: overlap them
  for (int m = 0; m < 3; ++m) {
    runs.push_back(std::async(std::launch::async, dump_sword_module, std::string(modules[m]), &out->dumps[m],
                              &errors[m]));
  }
  bool ok = true;
  for (int m = 0; m < 3; ++m) {
    if (!runs[m].get() && ok) {
      *error = errors[m];
      ok = false;
    }
  }
  if (!ok) return false;
  out->sources = {parse_imp(out->dumps[0]), parse_imp(out->dumps[1]), parse_imp(out->dumps[2])};
  return true;
}

int64_t count_side_words(const std::vector<SentencePair>& pairs, bool english) {
  int64_t words = 0;
  for (const SentencePair& p : pairs) words += static_cast<int64_t>(text::split_on_space(english ? p.en : p.es).size());
  return words;
}

bool write_pairs(const std::vector<SentencePair>& pairs, const std::filesystem::path& dir,
                 const std::string& stem, std::string* error) {
  for (const bool english : {true, false}) {
    const std::filesystem::path path = dir / (stem + (english ? ".en" : ".es"));
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    for (const SentencePair& p : pairs) file << (english ? p.en : p.es) << '\n';
    file.close();
    if (!file) {
      *error = "cannot write " + path.string();
      return false;
    }
  }
  return true;
}

bool write_corpus(const PreparedCorpus& corpus, const std::filesystem::path& dir, std::string* error) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    *error = "cannot create " + dir.string() + ": " + ec.message();
    return false;
  }
  for (int s = 0; s < kNumSplits; ++s) {
    if (!write_pairs(corpus.splits[s], dir, split_name(static_cast<Split>(s)), error)) return false;
  }
  return true;
}

}  // namespace pmt::corpus

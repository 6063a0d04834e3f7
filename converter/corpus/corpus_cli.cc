// pmt-convert corpus: the general-domain English->Spanish corpus (software text Debian ships
// translated, plus the Bible pairs of `prepare`), with held-out sets per source.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "corpus/cli_options.h"
#include "pmt_progress.h"
#include "corpus/debian_packages.h"
#include "corpus/help_pages.h"
#include "corpus/libreoffice_help.h"
#include "corpus/message_cleaning.h"
#include "corpus/mo_catalog.h"
#include "corpus/number_copies.h"
#include "corpus/software_text.h"
#include "corpus/written_pairs.h"

namespace pmt::cli {
namespace fs = std::filesystem;
namespace {

constexpr char kUsage[] =
    "Builds the general-domain English->Spanish corpus from text Debian ships translated (fetched\n"
    "with apt-get download into the cache, read with dpkg-deb, never installed), cleaned and split\n"
    "by document, plus the WEB-RV1909 Bible pairs. Sources, in the order they are deduplicated:\n"
    "  gettext  the Spanish gettext catalogs of the packages in --packages (split by package)\n"
    "  help     GNOME/MATE help pages (usr/share/help/{C,es}) of the packages in --help-packages,\n"
    "           aligned block by block (split by page)\n"
    "  libreoffice  LibreOffice help pages (HTML, en-US and es) of the packages in\n"
    "           --libreoffice-packages, aligned by paragraph id (split by page)\n"
    "  everyday everyday pairs the project wrote (--everyday, *.tsv), less those like a sentence\n"
    "           of the everyday test set (--everyday-test), repeated --everyday-repeat times in\n"
    "           train (split by pair)\n"
    "No source trains on the everyday test set's English. Writes DIR/train.{en,es} (every source,\n"
    "with ALL-CAPS copies of some pairs and number copies: pairs whose shared digit runs, or one\n"
    "number word, become other digits), DIR/valid.{en,es} (the sources interleaved),\n"
    "DIR/{valid,test}.<source>.{en,es} and DIR/report.txt.";

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

fs::path default_cache() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return fs::path(xdg) / "pocketmt";
  if (const char* home = std::getenv("HOME"); home && *home) return fs::path(home) / ".cache" / "pocketmt";
  return fs::path(".cache") / "pocketmt";
}

bool read_package_list(const fs::path& path, std::vector<std::string>* packages, std::string* error) {
  std::ifstream in(path);
  if (!in) return *error = "cannot read the package list " + path.string(), false;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.empty() || line[0] == '#') continue;
    if (!corpus::is_package_name(line)) {
      return *error = path.string() + ":" + std::to_string(n) + ": not a package name: '" + line + "'", false;
    }
    packages->push_back(line);
  }
  return true;
}

// What a help source found, page by page (a page is counted once, under the first that applies);
// left_out: blocks with an empty link (GNOME), paragraphs with system-specific variants (LibreOffice).
struct PageCounts {
  int64_t pages = 0, untranslated = 0, unparsable = 0, unaligned = 0, aligned = 0, left_out = 0;
};

// A source: its package list (for everyday, the folder of its .tsv files) and the members it
// extracts from each .deb. Extractions stay in <cache>/<subdir>/<package> so that a second run
// reads only the extracted files.
struct Source {
  std::string name, list_path;
  const char* subdir;
  std::vector<std::string> patterns;
  int held_out_buckets;  // split_of_document: a help page gives ~10 pairs, so 2% of pages is too few
};

// The Spanish catalogs of one package: one document.
bool read_catalogs(const std::string& package, const std::vector<fs::path>& files,
                   std::vector<corpus::RawDocument>* documents, std::string* error) {
  corpus::RawDocument doc{package, {}};
  for (const fs::path& f : files) {
    std::string bytes;
    std::vector<corpus::MoMessage> messages;
    if (!corpus::read_file(f, &bytes, error)) return false;
    if (!corpus::parse_mo(bytes, &messages, error)) {
      std::fprintf(stderr, "warning: %s: %s (skipped)\n", f.c_str(), error->c_str());
      continue;
    }
    for (auto& m : messages) doc.pairs.push_back({std::move(m.source), std::move(m.target)});
  }
  documents->push_back(std::move(doc));
  return true;
}

// The help pages of one package: each page of usr/share/help/C/<doc>/ whose translation is at the
// same path under usr/share/help/es/ is a document of its own ("<package>/<doc>/<page>"), so the
// held-out sets take whole pages.
bool read_help_pages(const std::string& package, const fs::path& dir, const std::vector<fs::path>& files,
                     std::vector<corpus::RawDocument>* documents, PageCounts* counts, std::string* error) {
  const fs::path c_root = dir / "usr/share/help/C", es_root = dir / "usr/share/help/es";
  for (const fs::path& c_file : files) {
    const fs::path rel = c_file.lexically_relative(c_root);
    if (rel.empty() || *rel.begin() == "..") continue;  // a Spanish file
    ++counts->pages;
    if (!fs::exists(es_root / rel)) {
      ++counts->untranslated;
      continue;
    }
    std::string en_xml, es_xml, parse_error;
    if (!corpus::read_file(c_file, &en_xml, error) || !corpus::read_file(es_root / rel, &es_xml, error)) return false;
    std::vector<corpus::HelpBlock> en, es;
    if (!corpus::parse_help_page(en_xml, &en, &parse_error) || !corpus::parse_help_page(es_xml, &es, &parse_error)) {
      std::fprintf(stderr, "warning: %s/%s: %s (skipped)\n", package.c_str(), rel.c_str(), parse_error.c_str());
      ++counts->unparsable;
      continue;
    }
    corpus::RawDocument doc{package + "/" + rel.generic_string(), {}};
    if (!corpus::align_help_blocks(en, es, &doc.pairs, &counts->left_out)) {
      ++counts->unaligned;
      continue;
    }
    ++counts->aligned;
    documents->push_back(std::move(doc));
  }
  return true;
}

// The LibreOffice help pages: each English page (help/en-US/, from one of the extracted packages)
// whose Spanish page is at the same path under help/es/ is a document ("text/shared/....html").
bool read_libreoffice_pages(const std::vector<fs::path>& dirs, std::vector<corpus::RawDocument>* documents,
                            PageCounts* counts, std::string* error) {
  fs::path en_root, es_root;
  for (const fs::path& dir : dirs) {
    if (fs::is_directory(dir / "usr/share/libreoffice/help/en-US")) en_root = dir / "usr/share/libreoffice/help/en-US";
    if (fs::is_directory(dir / "usr/share/libreoffice/help/es")) es_root = dir / "usr/share/libreoffice/help/es";
  }
  if (en_root.empty() || es_root.empty()) {
    *error = "the libreoffice packages hold no help/en-US and help/es pages";
    return false;
  }
  std::vector<fs::path> pages;
  std::error_code ec;
  for (const auto& entry : fs::recursive_directory_iterator(en_root, ec)) {
    if (entry.is_regular_file() && entry.path().extension() == ".html") pages.push_back(entry.path());
  }
  std::sort(pages.begin(), pages.end());
  for (const fs::path& en_file : pages) {
    const fs::path rel = en_file.lexically_relative(en_root);
    ++counts->pages;
    if (!fs::exists(es_root / rel)) {
      ++counts->untranslated;
      continue;
    }
    std::string en_html, es_html;
    if (!corpus::read_file(en_file, &en_html, error) || !corpus::read_file(es_root / rel, &es_html, error)) return false;
    corpus::RawDocument doc{rel.generic_string(), {}};
    if (!corpus::align_libreoffice_paragraphs(corpus::parse_libreoffice_page(en_html),
                                              corpus::parse_libreoffice_page(es_html), &doc.pairs,
                                              &counts->left_out)) {
      ++counts->unaligned;
      continue;
    }
    ++counts->aligned;
    documents->push_back(std::move(doc));
  }
  return true;
}

void report_clean_counts(std::ostream& r, const std::string& name, const corpus::SoftwareCorpus& corpus) {
  const corpus::CleanCounts& c = corpus.counts;
  r << name << " pairs: " << c.raw << " raw\n"
    << "  dropped by rule: empty " << c.empty << ", length " << c.length << ", untranslated " << c.untranslated
    << ", placeholders " << c.placeholders << ", language " << c.language << ", ratio " << c.ratio
    << " (es/en median " << corpus.median_ratio << "), duplicate " << c.duplicate << ", near duplicate "
    << c.near_duplicate << "\n";
}

// Every k-th pair so that at most `limit` remain, spread over the whole set.
std::vector<corpus::SentencePair> thin(const std::vector<corpus::SentencePair>& pairs, size_t limit) {
  if (pairs.size() <= limit) return pairs;
  std::vector<corpus::SentencePair> out;
  for (size_t i = 0; i < limit; ++i) out.push_back(pairs[i * pairs.size() / limit]);
  return out;
}

}  // namespace

int cmd_corpus(int argc, char** argv) {
  std::string out_dir = "data/en-es", cache_arg, sources_arg = "gettext,help,libreoffice,everyday";
  std::string gettext_list = "converter/corpus/sources/gettext-packages.txt";
  std::string help_list = "converter/corpus/sources/help-packages.txt";
  std::string libreoffice_list = "converter/corpus/sources/libreoffice-packages.txt";
  std::string everyday_dir = "converter/corpus/sources/everyday", everyday_test = "tests/data/everyday/everyday";
  std::string caps_arg = "4", held_out_arg = "2000", repeat_arg = "4";
  bool offline = false, quiet = false;
  const Option options[] = {
      {"--out", &out_dir, nullptr, "output folder (default data/en-es)", "DIR"},
      {"--cache", &cache_arg, nullptr,
       "downloaded and extracted packages (default $XDG_CACHE_HOME/pocketmt, else ~/.cache/pocketmt); a second run "
       "downloads nothing", "DIR"},
      {"--sources", &sources_arg, nullptr, "comma-separated sources (default gettext,help,libreoffice,everyday)",
       "LIST"},
      {"--packages", &gettext_list, nullptr,
       "gettext package list, one name a line (default converter/corpus/sources/gettext-packages.txt)", "FILE"},
      {"--help-packages", &help_list, nullptr, "help package list (default converter/corpus/sources/help-packages.txt)",
       "FILE"},
      {"--libreoffice-packages", &libreoffice_list, nullptr,
       "LibreOffice help packages, English and Spanish (default converter/corpus/sources/libreoffice-packages.txt)",
       "FILE"},
      {"--everyday", &everyday_dir, nullptr,
       "folder of the everyday source's .tsv files (default converter/corpus/sources/everyday)", "DIR"},
      {"--everyday-test", &everyday_test, nullptr,
       "the everyday test set, PREFIX.en and PREFIX.es (default tests/data/everyday/everyday)", "PREFIX"},
      {"--everyday-repeat", &repeat_arg, nullptr, "copies of each everyday train pair in train (default 4)", "N"},
      {"--offline", nullptr, &offline, "use only what the cache holds"},
      {"--quiet", nullptr, &quiet, "no download and extraction progress on stderr"},
      {"--caps-percent", &caps_arg, nullptr, "share of train pairs also added in capitals (default 4)", "N"},
      {"--max-held-out", &held_out_arg, nullptr, "pairs kept per held-out set and source (default 2000)", "N"}};
  if (auto r = parse_options("corpus", kUsage, argc, argv, options); r != ParseResult::kOk) return exit_code(r);
  int64_t caps_percent = 0, max_held_out = 0, everyday_repeat = 0;
  if (!parse_int_option("corpus", "--caps-percent", caps_arg, 0, 100, &caps_percent) ||
      !parse_int_option("corpus", "--max-held-out", held_out_arg, 1, 1000000000, &max_held_out) ||
      !parse_int_option("corpus", "--everyday-repeat", repeat_arg, 1, 100, &everyday_repeat)) {
    return 2;
  }
  const fs::path cache = cache_arg.empty() ? default_cache() : fs::path(cache_arg);
  const auto start = std::chrono::steady_clock::now();
  const auto fail = [](const std::string& message, int code) {
    std::fprintf(stderr, "pmt-convert corpus: %s\n", message.c_str());
    return code;
  };

  const Source known[] = {
      {"gettext", gettext_list, "gettext-es", {"./usr/share/locale/es/LC_MESSAGES/*.mo"}, 1},
      {"help", help_list, "help",
       {"./usr/share/help/C/*.page", "./usr/share/help/C/*.xml", "./usr/share/help/C/*.docbook",
        "./usr/share/help/es/*.page", "./usr/share/help/es/*.xml", "./usr/share/help/es/*.docbook"}, 2},
      {"libreoffice", libreoffice_list, "libreoffice", {"./usr/share/libreoffice/help/*.html"}, 2},
      {"everyday", everyday_dir, nullptr, {}, 2}};
  std::vector<const Source*> chosen;
  std::istringstream names(sources_arg);
  for (std::string name; std::getline(names, name, ',');) {
    const auto it = std::find_if(std::begin(known), std::end(known), [&](const Source& s) { return s.name == name; });
    if (it == std::end(known)) {
      return fail("unknown source '" + name + "' (known: gettext, help, libreoffice, everyday)", 2);
    }
    if (std::find(chosen.begin(), chosen.end(), &*it) != chosen.end()) return fail("source '" + name + "' given twice", 2);
    chosen.push_back(&*it);
  }
  if (chosen.empty()) return fail("--sources names no source", 2);

  std::string error;
  std::ostringstream r;
  std::vector<std::pair<std::string, const std::vector<corpus::SentencePair>*>> sources;  // name, splits
  std::vector<corpus::SoftwareCorpus> built;
  built.reserve(chosen.size());  // `sources` points into it
  // The everyday test set's English counts as seen from the start: no source trains on it.
  std::vector<corpus::SentencePair> everyday_test_pairs;
  if (!corpus::read_parallel_files(everyday_test, &everyday_test_pairs, &error)) return fail(error, 2);
  const std::vector<corpus::SentencePair>* everyday_train = nullptr;  // repeated in train
  corpus::SeenEnglish seen;
  for (const auto& p : everyday_test_pairs) {
    seen.text.insert(p.en);
    seen.key.insert(corpus::near_duplicate_key(p.en));
  }
  for (const Source* source : chosen) {
    if (source->name == "everyday") {
      std::vector<corpus::RawDocument> documents;
      if (!corpus::read_written_pairs(source->list_path, &documents, &error)) return fail(error, 2);
      const int64_t test_like = corpus::drop_test_like(everyday_test_pairs, &documents);
      built.push_back(corpus::build_software_corpus(documents, source->held_out_buckets, &seen));
      sources.emplace_back(source->name, built.back().splits);
      everyday_train = &built.back().splits[0];
      r << "everyday: " << documents.size() << " pairs written, " << test_like << " dropped as like a test sentence\n";
      report_clean_counts(r, source->name, built.back());
      continue;
    }
    std::vector<std::string> packages, missing;
    if (!read_package_list(source->list_path, &packages, &error)) return fail(error, 2);
    if (!offline) {
      cli::Progress download("pmt-convert corpus: " + source->name + ": download", 0, "packages", quiet);
      const auto on_group = [&download](size_t done, size_t total) {
        download.set_total(static_cast<double>(total));
        download.update(static_cast<double>(done));
      };
      if (!corpus::download_packages(packages, cache / "debs", &missing, &error, on_group)) return fail(error, 1);
    }
    cli::Progress extraction("pmt-convert corpus: " + source->name + ": extract and read",
                             static_cast<double>(packages.size()), "packages", quiet);
    std::vector<corpus::RawDocument> documents;
    PageCounts pages;
    std::vector<fs::path> extracted;  // libreoffice: the pages of all its packages are paired at the end
    int unreadable = 0, read = 0;
    for (size_t i = 0; i < packages.size(); ++i) {
      extraction.update(static_cast<double>(i), std::to_string(documents.size()) + " documents");
      const fs::path deb = corpus::cached_deb(cache / "debs", packages[i]);
      if (deb.empty()) {
        if (offline) missing.push_back(packages[i]);
        continue;
      }
      const fs::path dir = cache / source->subdir / packages[i];
      std::vector<fs::path> files;
      bool ok = corpus::extract_cached(deb, source->patterns, dir, &files, &error);
      if (ok && source->name == "gettext") ok = read_catalogs(packages[i], files, &documents, &error);
      if (ok && source->name == "help") ok = read_help_pages(packages[i], dir, files, &documents, &pages, &error);
      if (ok && source->name == "libreoffice") extracted.push_back(dir);
      if (!ok) {
        std::fprintf(stderr, "warning: %s: %s (skipped)\n", packages[i].c_str(), error.c_str());
        ++unreadable;
        continue;
      }
      ++read;
    }
    extraction.update(static_cast<double>(packages.size()), std::to_string(documents.size()) + " documents");
    extraction.finish();
    if (source->name == "libreoffice" && !read_libreoffice_pages(extracted, &documents, &pages, &error)) {
      return fail(error, 1);
    }
    built.push_back(corpus::build_software_corpus(documents, source->held_out_buckets, &seen));
    const corpus::SoftwareCorpus& corpus = built.back();
    sources.emplace_back(source->name, corpus.splits);

    r << source->name << ": " << packages.size() << " packages listed, " << missing.size() << " not downloadable, "
      << unreadable << " unreadable, " << read << " read; " << corpus.documents[0] << " train / "
      << corpus.documents[1] << " valid / " << corpus.documents[2] << " test documents\n";
    for (const std::string& m : missing) r << "  not downloadable: " << m << "\n";
    if (source->name != "gettext") {
      r << source->name << " pages: " << pages.pages << " originals, " << pages.untranslated
        << " without a Spanish page, " << pages.unparsable << " unparsable, " << pages.unaligned
        << " with different block or id sequences, " << pages.aligned << " aligned; " << pages.left_out
        << (source->name == "help" ? " blocks with empty links" : " paragraphs with system-specific variants")
        << " left out\n";
    }
    report_clean_counts(r, source->name, corpus);
  }

  corpus::BibleModules bible;
  corpus::PreparedCorpus prepared;
  if (!corpus::read_bible_modules(&bible, &error) || !corpus::prepare_corpus(bible.sources, {}, &prepared, &error)) {
    return fail(error, 2);
  }
  sources.emplace_back("bible", prepared.splits);

  // Held-out sets per source; train mixes every source and adds the ALL-CAPS copies.
  std::vector<corpus::SentencePair> train, valid, caps, numbers, repeats;
  std::vector<std::array<std::vector<corpus::SentencePair>, 2>> held(sources.size());  // [source][valid, test]
  size_t longest_valid = 0;
  for (size_t s = 0; s < sources.size(); ++s) {
    const auto* splits = sources[s].second;
    train.insert(train.end(), splits[0].begin(), splits[0].end());
    held[s][0] = thin(splits[1], static_cast<size_t>(max_held_out));
    held[s][1] = thin(splits[2], static_cast<size_t>(max_held_out));
    longest_valid = std::max(longest_valid, held[s][0].size());
  }
  for (const auto& p : train) {
    if (corpus::stable_hash(p.en) % 100 < static_cast<uint32_t>(caps_percent)) caps.push_back({corpus::to_upper_latin(p.en), corpus::to_upper_latin(p.es)});
  }
  corpus::NumberCopyCounts number_counts;
  numbers = corpus::number_copies(train, &number_counts);
  for (int64_t k = 1; everyday_train && k < everyday_repeat; ++k) {
    repeats.insert(repeats.end(), everyday_train->begin(), everyday_train->end());
  }
  train.insert(train.end(), caps.begin(), caps.end());
  train.insert(train.end(), numbers.begin(), numbers.end());
  train.insert(train.end(), repeats.begin(), repeats.end());
  r << "number copies: " << number_counts.digits << " with other digits, " << number_counts.words
    << " with a number word in digits\n";
  for (size_t i = 0; i < longest_valid; ++i) {
    for (const auto& h : held) {
      if (i < h[0].size()) valid.push_back(h[0][i]);
    }
  }

  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec) return fail("cannot create " + out_dir + ": " + ec.message(), 1);
  bool ok = corpus::write_pairs(train, out_dir, "train", &error) && corpus::write_pairs(valid, out_dir, "valid", &error);
  for (size_t s = 0; s < sources.size() && ok; ++s) {
    ok = corpus::write_pairs(held[s][0], out_dir, "valid." + sources[s].first, &error) &&
         corpus::write_pairs(held[s][1], out_dir, "test." + sources[s].first, &error);
  }
  if (!ok) return fail(error, 1);

  r << "source      split  pairs     words en   words es\n";
  const auto row = [&](const std::string& source, const char* split, const std::vector<corpus::SentencePair>& pairs) {
    char line[160];
    std::snprintf(line, sizeof line, "%-11s %-6s %8zu %10lld %10lld\n", source.c_str(), split, pairs.size(),
                  static_cast<long long>(corpus::count_side_words(pairs, true)),
                  static_cast<long long>(corpus::count_side_words(pairs, false)));
    r << line;
  };
  for (size_t s = 0; s < sources.size(); ++s) {
    row(sources[s].first, "train", sources[s].second[0]);
    row(sources[s].first, "valid", held[s][0]);
    row(sources[s].first, "test", held[s][1]);
  }
  row("caps", "train", caps);
  row("numbers", "train", numbers);
  row("repeats", "train", repeats);
  row("all", "train", train);
  row("all", "valid", valid);
  std::ofstream(fs::path(out_dir) / "report.txt", std::ios::binary | std::ios::trunc) << r.str();
  std::fputs(r.str().c_str(), stdout);
  std::printf("wrote %s in %.1f s\n", out_dir.c_str(), seconds_since(start));
  return 0;
}

}  // namespace pmt::cli

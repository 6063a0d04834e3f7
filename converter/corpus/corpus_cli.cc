// pmt-convert corpus: the general-domain English->Spanish corpus (software text Debian ships
// translated, plus the Bible pairs of `prepare`), with held-out sets per source.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "corpus/cli_options.h"
#include "corpus/debian_packages.h"
#include "corpus/message_cleaning.h"
#include "corpus/mo_catalog.h"
#include "corpus/software_text.h"
#include "corpus/utf8.h"

namespace pmt::cli {
namespace fs = std::filesystem;
namespace {

constexpr char kUsage[] =
    "usage: pmt-convert corpus [--out DIR] [--cache DIR] [--packages FILE] [--offline]\n"
    "                          [--caps-percent N] [--max-held-out N]\n"
    "  Builds the general-domain English->Spanish corpus: the Spanish gettext catalogs of the\n"
    "  Debian packages listed in FILE (fetched with apt-get download into the cache, read with\n"
    "  dpkg-deb, never installed), cleaned and split by package, plus the WEB-RV1909 Bible pairs.\n"
    "  Writes DIR/train.{en,es} (every source, with ALL-CAPS copies of some pairs), DIR/valid.{en,es}\n"
    "  (the sources interleaved), DIR/{valid,test}.<source>.{en,es} and DIR/report.txt.\n"
    "  --out DIR           output folder (default data/en-es)\n"
    "  --cache DIR         downloaded and extracted packages (default $XDG_CACHE_HOME/pocketmt,\n"
    "                      else ~/.cache/pocketmt); a second run downloads nothing\n"
    "  --packages FILE     package list, one name a line (default\n"
    "                      converter/corpus/sources/gettext-packages.txt)\n"
    "  --offline           use only what the cache holds\n"
    "  --caps-percent N    share of train pairs also added in capitals (default 4)\n"
    "  --max-held-out N    pairs kept per held-out set and source (default 2000)\n";

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

// The Spanish catalogs of one package, read from its cached .deb; the extraction is kept in the
// cache beside a stamp naming the .deb it came from, so a second run reads only the catalogs.
bool read_catalogs(const fs::path& cache, const std::string& package, corpus::RawDocument* doc,
                   std::string* error) {
  const fs::path deb = corpus::cached_deb(cache / "debs", package);
  const fs::path dir = cache / "gettext-es" / package;
  const fs::path stamp = cache / "gettext-es" / (package + ".from");
  std::string stamped;
  std::vector<fs::path> files;
  if (fs::exists(stamp) && corpus::read_file(stamp, &stamped, error) && stamped == deb.filename().string()) {
    std::error_code ec;
    for (const auto& e : fs::recursive_directory_iterator(dir, ec)) {
      if (e.is_regular_file()) files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
  } else {
    if (!corpus::extract_files(deb, "./usr/share/locale/es/LC_MESSAGES/*.mo", dir, &files, error)) return false;
    std::ofstream(stamp, std::ios::binary | std::ios::trunc) << deb.filename().string();
  }
  for (const fs::path& f : files) {
    std::string bytes;
    std::vector<corpus::MoMessage> messages;
    if (!corpus::read_file(f, &bytes, error)) return false;
    if (!corpus::parse_mo(bytes, &messages, error)) {
      std::fprintf(stderr, "warning: %s: %s (skipped)\n", f.c_str(), error->c_str());
      continue;
    }
    for (auto& m : messages) doc->pairs.push_back({std::move(m.source), std::move(m.target)});
  }
  return true;
}

int64_t words(const std::vector<corpus::SentencePair>& pairs, bool english) {
  int64_t n = 0;
  for (const auto& p : pairs) n += static_cast<int64_t>(text::split_on_space(english ? p.en : p.es).size());
  return n;
}

// Every k-th pair so that at most `limit` remain, spread over the whole set.
std::vector<corpus::SentencePair> thin(const std::vector<corpus::SentencePair>& pairs, size_t limit) {
  if (pairs.size() <= limit) return pairs;
  std::vector<corpus::SentencePair> out;
  for (size_t i = 0; i < limit; ++i) out.push_back(pairs[i * pairs.size() / limit]);
  return out;
}

uint32_t text_hash(const std::string& s) {
  uint32_t h = 2166136261u;
  for (const char c : s) h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
  return h;
}

}  // namespace

int cmd_corpus(int argc, char** argv) {
  std::string out_dir = "data/en-es", cache_arg, list_path = "converter/corpus/sources/gettext-packages.txt";
  std::string caps_arg = "4", held_out_arg = "2000";
  bool offline = false;
  const Option options[] = {{"--out", &out_dir},        {"--cache", &cache_arg},
                            {"--packages", &list_path}, {"--offline", nullptr, &offline},
                            {"--caps-percent", &caps_arg}, {"--max-held-out", &held_out_arg}};
  if (auto r = parse_options("corpus", kUsage, argc, argv, options); r != ParseResult::kOk) return exit_code(r);
  long caps_percent = 0, max_held_out = 0;
  if (!parse_int_option("corpus", "--caps-percent", caps_arg, 0, 100, &caps_percent) ||
      !parse_int_option("corpus", "--max-held-out", held_out_arg, 1, 1000000000, &max_held_out)) {
    return 2;
  }
  const fs::path cache = cache_arg.empty() ? default_cache() : fs::path(cache_arg);
  const auto start = std::chrono::steady_clock::now();
  const auto fail = [](const std::string& message, int code) {
    std::fprintf(stderr, "pmt-convert corpus: %s\n", message.c_str());
    return code;
  };

  std::string error;
  std::vector<std::string> packages, missing;
  if (!read_package_list(list_path, &packages, &error)) return fail(error, 2);
  if (!offline && !corpus::download_packages(packages, cache / "debs", &missing, &error)) return fail(error, 1);

  std::vector<corpus::RawDocument> documents;
  int unreadable = 0;
  for (size_t i = 0; i < packages.size(); ++i) {
    if (corpus::cached_deb(cache / "debs", packages[i]).empty()) {
      if (offline) missing.push_back(packages[i]);
      continue;
    }
    corpus::RawDocument doc{packages[i], {}};
    if (!read_catalogs(cache, packages[i], &doc, &error)) {
      std::fprintf(stderr, "warning: %s: %s (skipped)\n", packages[i].c_str(), error.c_str());
      ++unreadable;
      continue;
    }
    documents.push_back(std::move(doc));
    if ((i + 1) % 200 == 0 || i + 1 == packages.size()) {
      std::printf("  read %zu / %zu packages (%.0f s)\n", i + 1, packages.size(), seconds_since(start));
      std::fflush(stdout);
    }
  }
  const corpus::SoftwareCorpus software = corpus::build_software_corpus(documents);

  corpus::BibleModules bible;
  corpus::PreparedCorpus prepared;
  if (!corpus::read_bible_modules(&bible, &error) || !corpus::prepare_corpus(bible.sources, {}, &prepared, &error)) {
    return fail(error, 2);
  }

  // Held-out sets per source; train mixes every source and adds the ALL-CAPS copies.
  const std::pair<const char*, const std::vector<corpus::SentencePair>*> sources[] = {
      {"gettext", software.splits}, {"bible", prepared.splits}};
  std::vector<corpus::SentencePair> train, valid, caps;
  std::vector<corpus::SentencePair> held[2][2];  // [source][valid, test]
  for (int s = 0; s < 2; ++s) {
    const auto* splits = sources[s].second;
    train.insert(train.end(), splits[0].begin(), splits[0].end());
    held[s][0] = thin(splits[1], static_cast<size_t>(max_held_out));
    held[s][1] = thin(splits[2], static_cast<size_t>(max_held_out));
  }
  for (const auto& p : train) {
    if (text_hash(p.en) % 100 < static_cast<uint32_t>(caps_percent)) caps.push_back({corpus::to_upper_latin(p.en), corpus::to_upper_latin(p.es)});
  }
  train.insert(train.end(), caps.begin(), caps.end());
  for (size_t i = 0; i < std::max(held[0][0].size(), held[1][0].size()); ++i) {
    for (int s = 0; s < 2; ++s) {
      if (i < held[s][0].size()) valid.push_back(held[s][0][i]);
    }
  }

  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec) return fail("cannot create " + out_dir + ": " + ec.message(), 1);
  bool ok = corpus::write_pairs(train, out_dir, "train", &error) && corpus::write_pairs(valid, out_dir, "valid", &error);
  for (int s = 0; s < 2 && ok; ++s) {
    ok = corpus::write_pairs(held[s][0], out_dir, std::string("valid.") + sources[s].first, &error) &&
         corpus::write_pairs(held[s][1], out_dir, std::string("test.") + sources[s].first, &error);
  }
  if (!ok) return fail(error, 1);

  const corpus::CleanCounts& c = software.counts;
  std::ostringstream r;
  r << "gettext: " << packages.size() << " packages listed, " << missing.size() << " not downloadable, "
    << unreadable << " unreadable; " << software.documents[0] << " train / " << software.documents[1]
    << " valid / " << software.documents[2] << " test packages\n";
  for (const std::string& m : missing) r << "  not downloadable: " << m << "\n";
  r << "gettext messages: " << c.raw << " raw\n"
    << "  dropped by rule: empty " << c.empty << ", length " << c.length << ", untranslated " << c.untranslated
    << ", placeholders " << c.placeholders << ", language " << c.language << ", ratio " << c.ratio
    << " (es/en median " << software.median_ratio << "), duplicate " << c.duplicate << ", near duplicate "
    << c.near_duplicate << "\n";
  r << "source   split  pairs     words en   words es\n";
  const auto row = [&](const char* source, const char* split, const std::vector<corpus::SentencePair>& pairs) {
    char line[160];
    std::snprintf(line, sizeof line, "%-8s %-6s %8zu %10lld %10lld\n", source, split, pairs.size(),
                  static_cast<long long>(words(pairs, true)), static_cast<long long>(words(pairs, false)));
    r << line;
  };
  for (int s = 0; s < 2; ++s) {
    row(sources[s].first, "train", sources[s].second[0]);
    row(sources[s].first, "valid", held[s][0]);
    row(sources[s].first, "test", held[s][1]);
  }
  row("caps", "train", caps);
  row("all", "train", train);
  row("all", "valid", valid);
  std::ofstream(fs::path(out_dir) / "report.txt", std::ios::binary | std::ios::trunc) << r.str();
  std::fputs(r.str().c_str(), stdout);
  std::printf("wrote %s in %.1f s\n", out_dir.c_str(), seconds_since(start));
  return 0;
}

}  // namespace pmt::cli

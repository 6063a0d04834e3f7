#include "corpus/debian_packages.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace pmt::corpus {
namespace fs = std::filesystem;
namespace {

bool run(const std::string& command) { return std::system(command.c_str()) == 0; }

bool apt_download(const fs::path& cache_dir, const std::vector<std::string>& packages) {
  std::string command = "cd " + shell_quote(cache_dir.string()) + " && apt-get download -q";
  for (const std::string& p : packages) command += " " + p;
  return run(command + " >/dev/null 2>&1");
}

}  // namespace

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (const char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

bool is_package_name(const std::string& name) {
  if (name.size() < 2) return false;
  const auto ok = [](char c, bool first) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || (!first && (c == '+' || c == '.' || c == '-'));
  };
  if (!ok(name[0], true)) return false;
  return std::all_of(name.begin() + 1, name.end(), [&](char c) { return ok(c, false); });
}

fs::path cached_deb(const fs::path& cache_dir, const std::string& package) {
  fs::path best;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(cache_dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() > package.size() + 1 && name.compare(0, package.size(), package) == 0 &&
        name[package.size()] == '_' && name.ends_with(".deb") && entry.path() > best) {
      best = entry.path();
    }
  }
  return best;
}

bool download_packages(const std::vector<std::string>& packages, const fs::path& cache_dir,
                       std::vector<std::string>* missing, std::string* error,
                       const std::function<void(size_t, size_t)>& progress) {
  std::error_code ec;
  fs::create_directories(cache_dir, ec);
  if (ec) {
    *error = "cannot create " + cache_dir.string() + ": " + ec.message();
    return false;
  }
  std::vector<std::string> wanted;
  for (const std::string& p : packages) {
    if (cached_deb(cache_dir, p).empty()) wanted.push_back(p);
  }
  std::printf("packages: %zu cached, %zu to download into %s\n", packages.size() - wanted.size(),
              wanted.size(), cache_dir.c_str());
  std::fflush(stdout);
  constexpr size_t kGroup = 50;
  for (size_t start = 0; start < wanted.size(); start += kGroup) {
    const std::vector<std::string> group(wanted.begin() + start,
                                         wanted.begin() + std::min(wanted.size(), start + kGroup));
    if (!apt_download(cache_dir, group)) {
      for (const std::string& p : group) {  // apt-get stops at the first unknown package
        if (cached_deb(cache_dir, p).empty() && !apt_download(cache_dir, {p})) missing->push_back(p);
      }
    }
    if (progress) progress(std::min(wanted.size(), start + kGroup), wanted.size());
  }
  return true;
}

bool extract_files(const fs::path& deb, const std::vector<std::string>& patterns, const fs::path& dir,
                   std::vector<fs::path>* files, std::string* error) {
  std::error_code ec;
  fs::remove_all(dir, ec);
  fs::create_directories(dir, ec);
  if (ec) {
    *error = "cannot create " + dir.string() + ": " + ec.message();
    return false;
  }
  // tar exits 2 when no member matches; a package without the files is not an error, a broken
  // .deb is (dpkg-deb fails, so the pipeline's status file records it).
  const fs::path status = dir / ".dpkg-status";
  std::string command = "{ dpkg-deb --fsys-tarfile " + shell_quote(deb.string()) + "; echo $? > " +
                        shell_quote(status.string()) + "; } | tar -x -C " + shell_quote(dir.string()) + " --wildcards";
  for (const std::string& pattern : patterns) command.append(" ").append(shell_quote(pattern));
  command += " 2>/dev/null";
  std::system(command.c_str());
  std::string dpkg_status;
  if (!read_file(status, &dpkg_status, error)) return false;
  fs::remove(status, ec);
  if (dpkg_status.empty() || dpkg_status[0] != '0') {
    *error = "dpkg-deb cannot read " + deb.string();
    return false;
  }
  for (const auto& entry : fs::recursive_directory_iterator(dir, ec)) {
    if (entry.is_regular_file()) files->push_back(entry.path());
  }
  std::sort(files->begin(), files->end());
  return true;
}

bool extract_cached(const fs::path& deb, const std::vector<std::string>& patterns, const fs::path& dir,
                    std::vector<fs::path>* files, std::string* error) {
  const fs::path stamp = dir.string() + ".from";
  std::string stamped, unused;
  if (!fs::exists(stamp) || !read_file(stamp, &stamped, &unused) || stamped != deb.filename().string()) {
    if (!extract_files(deb, patterns, dir, files, error)) return false;
    std::ofstream(stamp, std::ios::binary | std::ios::trunc) << deb.filename().string();
    return true;
  }
  std::error_code ec;
  for (const auto& entry : fs::recursive_directory_iterator(dir, ec)) {
    if (entry.is_regular_file()) files->push_back(entry.path());
  }
  std::sort(files->begin(), files->end());
  return true;
}

bool read_file(const fs::path& path, std::string* bytes, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = "cannot read " + path.string();
    return false;
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  *bytes = std::move(buffer).str();
  return true;
}

}  // namespace pmt::corpus

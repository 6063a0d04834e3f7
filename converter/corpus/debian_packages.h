// Debian binary packages as a text source: `apt-get download` into a cache folder outside the
// checkout (no installation, no root needed), then `dpkg-deb --fsys-tarfile | tar` to pull out
// only the files a source needs. A second run finds the .deb files in the cache and downloads
// nothing.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace pmt::corpus {

// True for a valid Debian package name ([a-z0-9][a-z0-9+.-]+), which is what makes it safe to
// pass to the shell.
bool is_package_name(const std::string& name);

// The cached .deb of `package` in `cache_dir` ("<package>_<version>_<arch>.deb"); when several
// versions are cached, the last in byte order. Empty when none.
std::filesystem::path cached_deb(const std::filesystem::path& cache_dir, const std::string& package);

// Downloads the packages that have no .deb in cache_dir yet, in groups (one apt-get call per group
// of 50), continuing past a group that fails by retrying its packages one at a time.
// `missing` receives the packages that could not be downloaded (unknown to apt, network).
// `progress`, when set, is called after each group with (packages downloaded, packages to
// download). False only when cache_dir cannot be created.
bool download_packages(const std::vector<std::string>& packages, const std::filesystem::path& cache_dir,
                       std::vector<std::string>* missing, std::string* error,
                       const std::function<void(size_t, size_t)>& progress = {});

// Extracts the members of `deb` matching any of the shell globs `patterns` (as tar --wildcards
// sees paths, e.g. "./usr/share/locale/es/LC_MESSAGES/*.mo") into `dir`, replacing what dir held,
// and returns the extracted regular files sorted by path. A package without a matching member
// gives none.
bool extract_files(const std::filesystem::path& deb, const std::vector<std::string>& patterns,
                   const std::filesystem::path& dir, std::vector<std::filesystem::path>* files,
                   std::string* error);

// extract_files kept in the cache: a stamp beside dir ("<dir>.from") names the .deb the files
// came from, so a later run with the same .deb only lists them.
bool extract_cached(const std::filesystem::path& deb, const std::vector<std::string>& patterns,
                    const std::filesystem::path& dir, std::vector<std::filesystem::path>* files,
                    std::string* error);

// s single-quoted for /bin/sh, so any path or pattern reaches the command as one word.
std::string shell_quote(const std::string& s);

// Reads a whole file into *bytes.
bool read_file(const std::filesystem::path& path, std::string* bytes, std::string* error);

}  // namespace pmt::corpus

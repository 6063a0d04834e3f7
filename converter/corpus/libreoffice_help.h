// LibreOffice help as a text source: the HTML pages of libreoffice-help-en-us
// (usr/share/libreoffice/help/en-US/) and libreoffice-help-es (.../help/es/) come from the same
// .xhp files, and every translatable paragraph and heading keeps its id (id="par_id3150443",
// id="hd_id3143267") in both languages, so pages align by id. Pure: the CLI reads the files.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "corpus/prepare.h"

namespace pmt::corpus {

// A paragraph (<p>) or heading (<h1>..<h6>) with a par_id / hd_id id, and its inner HTML
// (inline markup and entities left for clean_pair's strip_markup).
struct IdParagraph {
  std::string id;
  std::string html;
};

// The id'd paragraphs and headings of one page in document order. The inner HTML runs to the
// matching close tag of the same element.
std::vector<IdParagraph> parse_libreoffice_page(std::string_view html);

// Pairs paragraph i of `en` with paragraph i of `es` when both pages have the same ids in the same
// order. Paragraphs holding system-specific variants (class="switchinline": "Tools - Options"
// beside the macOS "LibreOffice - Preferences", both in the HTML) are left out and counted in
// *switched. False, with no pairs, when the id sequences differ.
bool align_libreoffice_paragraphs(const std::vector<IdParagraph>& en, const std::vector<IdParagraph>& es,
                                  std::vector<SentencePair>* pairs, int64_t* switched);

}  // namespace pmt::corpus

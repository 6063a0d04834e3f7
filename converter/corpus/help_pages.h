// GNOME / MATE help as a text source: Mallard (.page) and DocBook (.xml, .docbook) files under
// usr/share/help/C/<doc>/ and their translations under usr/share/help/es/<doc>/. Translators
// work on the XML through itstool, so a translated file keeps the original's block elements in
// the same order; aligning those blocks one to one gives the pairs. Pure: the CLI reads the files.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "corpus/prepare.h"

namespace pmt::corpus {

// One text block of a help page: its element name (as written, prefix included) and its text with
// inline markup rendered as plain text but entity references left as in the source, so that
// clean_pair's strip_markup decodes them exactly once.
struct HelpBlock {
  std::string element;
  std::string text;
  bool complete = true;  // false when an empty <link>, <ulink> or <xref> stands for a title or URL
                         // that is not in the text
};

// The text blocks of one page in document order:
//  - text blocks are p, title, subtitle, desc (Mallard, whose item, td and th hold <p>s) and
//    para, simpara, title, subtitle, term, entry, member, refpurpose, attribution (DocBook); when
//    one holds other blocks (an <entry> holding <para>s, a <para> holding a list), the text around
//    them gives blocks of its own;
//  - verbatim blocks (screen, programlisting, synopsis, literallayout, code outside a text block),
//    editorial comments, credits, footnotes, index terms and media fallbacks are dropped;
//  - inline elements keep their text without a space; <guiseq>/<menuchoice> parts are joined by
//    " ▸ " as yelp shows them, <keyseq>/<keycombo> parts by "+";
//  - DOCTYPE internal-subset entities (<!ENTITY app "gedit">) are expanded.
// False with *error on XML this reader does not accept (unclosed or mismatched tags).
bool parse_help_page(std::string_view xml, std::vector<HelpBlock>* blocks, std::string* error);

// Pairs block i of `en` with block i of `es` when both pages have the same block elements in the
// same order; incomplete blocks are left out (*incomplete counts them). False, with no pairs, when
// the block sequences differ.
bool align_help_blocks(const std::vector<HelpBlock>& en, const std::vector<HelpBlock>& es,
                       std::vector<SentencePair>* pairs, int64_t* incomplete);

}  // namespace pmt::corpus

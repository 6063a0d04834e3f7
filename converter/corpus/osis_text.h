// Plain text from the OSIS markup of one verse as the SWORD modules store it. Written for
// engWEB2015eb, engKJV2006eb and spaRV1909eb; libsword's own plain renderers leak Strong's
// numbers, keep glued words and lose the Psalm superscriptions, hence this stripper.
#pragma once

#include <string>
#include <string_view>

namespace pmt::corpus {

// Rules, in the order they apply:
//  1. Everything after the end-of-book marker (<div type="book" eID=.../>) is cut: WEB's
//     Revelation 22:21 carries the whole glossary there.
//  2. Notes (<note>, footnotes and cross-references) are removed with their content and leave a
//     space ("God<note/>created" -> "God created"), except before closing punctuation
//     ("incomprehensible<note/>?" -> "incomprehensible?").
//  3. Titles are removed with their content (section and book titles, KJV's subscriptions and
//     acrostic letters) except Psalm superscriptions (<title type="psalm">), which are kept as
//     text because RV1909 has them as plain text in verse 1. Song of Songs speaker labels
//     (<speaker>) are removed with their content.
//  4. Every other tag is removed and its content kept. Word-level tags (<w>, <transChange>,
//     <divineName>, <q>, <seg>, <name>, <foreign>, <rdg>, <catchWord>, <reference>, <hi>) leave
//     nothing, so "<w>God</w>’s" stays "God’s"; any other tag (<l>, <lg>, <lb>, <div>,
//     <milestone>, <chapter>, <title>, <item>, <list>, ...) leaves a space. Attributes are never
//     output, so Strong's numbers (lemma="strong:H0430") cannot leak.
//  5. Two word elements with nothing between them (</w><transChange>, </transChange><w>: 577
//     places in RV1909 such as "enviada</transChange><w>por") are separated by a space.
//  6. In text: the XML entities &amp; &lt; &gt; &quot; &apos; are decoded; stray USFM markers
//     left in KJV text (\nd, \+nd*) and KJV's paragraph signs (¶) are removed.
//  7. Whitespace is normalised: runs of spaces, tabs and newlines become one space; leading and
//     trailing spaces are removed, and so is a space before , . ; : ! ? (WEB's red-letter markup
//     leaves a few: "walk’</q> ?”").
// Not handled (left as the text has them): RV1909's 1909 orthography ("á", "fué"), KJV's
// bracketed words ("[but]").
std::string osis_to_text(std::string_view osis);

// True when the verse markup carries a subscription: an untyped <title> after the chapter's end
// marker, which is how the KJV module encodes the notes closing 14 of Paul's letters
// ("Written to the Romans from Corinthus..."). RV1909 has the same notes as plain verse text.
bool has_subscription(std::string_view osis);

}  // namespace pmt::corpus
